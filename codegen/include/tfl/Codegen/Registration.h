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
/// bufferization (tfl.print).
void registerBufferizationModels(DialectRegistry &registry);

} // namespace mlir::tfl

#endif // TFL_CODEGEN_REGISTRATION_H
