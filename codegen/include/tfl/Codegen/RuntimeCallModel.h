//===- RuntimeCallModel.h - tfl ops that bufferize to calls -----*- C++ -*-===//
//
// The tfl ops that become libtflrt calls during One-Shot Bufferize (print,
// the random draws, the file ops, convolution and pooling) share one
// BufferizableOpInterface model: they read their tensor operands and write
// none of them, and each tensor result is a fresh buffer aliasing no
// operand. `Concrete` supplies bufferize().
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_RUNTIMECALLMODEL_H
#define TFL_CODEGEN_RUNTIMECALLMODEL_H

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"

namespace mlir::tfl {

template <typename Concrete, typename OpTy>
struct RuntimeCallModel
    : public bufferization::BufferizableOpInterface::ExternalModel<Concrete,
                                                                   OpTy> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const bufferization::AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return false;
  }
  bufferization::AliasingValueList
  getAliasingValues(Operation *, OpOperand &,
                    const bufferization::AnalysisState &) const {
    return {};
  }
};

/// The buffers of tensor values `values` (as the op's operands read them).
FailureOr<SmallVector<Value>>
getBuffers(RewriterBase &rewriter, ValueRange values,
           const bufferization::BufferizationOptions &options,
           bufferization::BufferizationState &state);

/// A fresh buffer for a result of tensor type `type`, its dynamic (batch)
/// dims sized from `batchFrom` or the enclosing function (batchSize).
FailureOr<Value>
allocateBuffer(RewriterBase &rewriter, Location loc, Type type,
               const bufferization::BufferizationOptions &options,
               ValueRange batchFrom = {});

/// Bufferizes `op`'s one tensor result as a fresh buffer that a single
/// call `@function(leading..., buffer, trailing...)` fills (the buffer as
/// an unranked memref), and replaces `op` with it. Values in `leading` and
/// `trailing` must already exist before `op`.
LogicalResult
bufferizeAsFilledBuffer(RewriterBase &rewriter, Operation *op,
                        const bufferization::BufferizationOptions &options,
                        StringRef function, ValueRange leading = {},
                        ValueRange trailing = {});

} // namespace mlir::tfl

#endif // TFL_CODEGEN_RUNTIMECALLMODEL_H
