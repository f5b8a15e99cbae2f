//===- Registration.h - Dialects and interfaces tflc needs ------*- C++ -*-===//

#ifndef TFL_CODEGEN_REGISTRATION_H
#define TFL_CODEGEN_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tfl {

/// Adds the tfl dialect and every dialect and external interface model the
/// CPU pipeline uses (bufferization models, inliner extensions, LLVM IR
/// translations).
void registerCompilerDialects(DialectRegistry &registry);

/// Attaches BufferizableOpInterface to the tfl ops that survive until
/// bufferization (tfl.print, the random, file, convolution and pooling
/// ops, the collectives and the optimization barrier).
void registerBufferizationModels(DialectRegistry &registry);
/// The bufferization models of the random ops (a fresh buffer filled by
/// one libtflrt draw); part of registerBufferizationModels.
void attachRandomBufferizationModels(MLIRContext *ctx);
/// The bufferization models of the file ops (DataBufferization.cpp).
void attachDataBufferizationModels(MLIRContext *ctx);
/// The bufferization models of conv2d and pooling (ConvBufferization.cpp).
void attachConvBufferizationModels(MLIRContext *ctx);
/// The bufferization models of the collectives
/// (CollectiveBufferization.cpp).
void attachCollectiveBufferizationModels(MLIRContext *ctx);
/// The bufferization model of tfl.optimization_barrier (its operands'
/// buffers; BarrierBufferization.cpp).
void attachBarrierBufferizationModel(MLIRContext *ctx);

} // namespace mlir::tfl

#endif // TFL_CODEGEN_REGISTRATION_H
