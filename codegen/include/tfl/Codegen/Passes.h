//===- Passes.h - Conversions of tfl to native code -------------*- C++ -*-===//

#ifndef TFL_CODEGEN_PASSES_H
#define TFL_CODEGEN_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfl {

#define GEN_PASS_DECL
#include "tfl/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfl/Codegen/Passes.h.inc"

/// The unit attribute tfl-vectorize-loops puts on an scf.for whose
/// iterations are independent and large enough to run on several threads,
/// for tfl-parallelize-loops.
constexpr StringLiteral kParallelLoopAttr = "tfl.parallel";

/// The unit attribute tfl-fuse-rows puts, for the GPU, on its scf.for over
/// tiles of rows: tfl-linalg-to-gpu makes each iteration a block of one
/// kernel, the chain's ops run by the block's threads together.
constexpr StringLiteral kRowBlocksAttr = "tfl.row_blocks";

/// Loops with at least this many iterations in all are worth several
/// threads (tfl-vectorize-loops marks them; tfl-fuse-rows fuses no smaller
/// chain): a parallel region costs about a microsecond, 2^15 float
/// operations take several.
constexpr int64_t kParallelIterations = int64_t{1} << 15;

/// Patterns of tfl-to-linalg, one function per op family.
void populateTflElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateTflLinearToLinalgPatterns(RewritePatternSet &patterns);
void populateTflReductionToLinalgPatterns(RewritePatternSet &patterns);
void populateTflDataMovementToLinalgPatterns(RewritePatternSet &patterns);
/// The ops that are libtflrt calls on scalars (RuntimeOps.cpp).
void populateTflRuntimeOpsToLinalgPatterns(RewritePatternSet &patterns);
/// All of tfl-to-linalg's patterns: the families above.
void populateTflToLinalgPatterns(RewritePatternSet &patterns);

/// A dynamic dim in TFL is the batch size of an exported function, and
/// every dynamic dim of a module has that one run-time size (Sema keeps it
/// so). batchSize reads it, as an index, from an argument of the function
/// `b` builds into, else from the first of `values` with a dynamic dim;
/// null when neither has one.
Value batchSize(OpBuilder &b, Location loc, ValueRange values);
/// The sizes of `type`'s dynamic dims (each the batch size), in order.
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, ShapedType type,
                                ValueRange values);
/// A tensor.empty of `type`, its dynamic dims the batch size.
FailureOr<Value> emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                             ValueRange values);

} // namespace mlir::tfl

#endif // TFL_CODEGEN_PASSES_H
