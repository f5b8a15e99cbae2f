//===- BarrierBufferization.cpp - tfl.optimization_barrier on buffers -----===//
//
// tfl.optimization_barrier stays a tfl op through tfl-to-linalg, so that
// the CSE runs of the linalg stage do not merge a checkpointed call's
// recomputation with the forward sweep's ops, and disappears during
// One-Shot Bufferize: each result is its operand's buffer (equivalent, no
// copy, neither read nor written). Once ops work on buffers, nothing merges
// ops that write them.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"

namespace mlir::tfl {

namespace {

using bufferization::AliasingValueList;
using bufferization::AnalysisState;

struct BarrierBufferization
    : bufferization::BufferizableOpInterface::ExternalModel<
          BarrierBufferization, OptimizationBarrierOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return false;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    return {{op->getResult(operand.getOperandNumber()),
             bufferization::BufferRelation::Equivalent}};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    SmallVector<Value> buffers;
    for (Value input : op->getOperands()) {
      FailureOr<Value> buffer =
          bufferization::getBuffer(rewriter, input, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    bufferization::replaceOpWithBufferizedValues(rewriter, op, buffers);
    return success();
  }
};

} // namespace

void attachBarrierBufferizationModel(MLIRContext *ctx) {
  OptimizationBarrierOp::attachInterface<BarrierBufferization>(*ctx);
}

} // namespace mlir::tfl
