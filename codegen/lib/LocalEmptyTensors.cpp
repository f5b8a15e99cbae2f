//===- LocalEmptyTensors.cpp - An empty tensor per loop body --------------===//
//
// CSE merges a `tensor.empty` inside a loop with an identical one before
// it, so that a loop body's results (a training step's new weights, say)
// are written into one buffer allocated before the loop, which the body
// then copies into a fresh buffer to carry to the next iteration. Before
// bufferization, on the CPU, each use of an empty tensor in another block
// than the empty's own gets an empty tensor of its own, right before it:
// the body then writes a fresh buffer (from libtflrt's cache of freed
// buffers) and carries that, without a copy.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_LOCALEMPTYTENSORS
#include "tfl/Codegen/Passes.h.inc"

namespace {

struct LocalEmptyTensorsPass
    : impl::LocalEmptyTensorsBase<LocalEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    OpBuilder builder(&getContext());
    for (tensor::EmptyOp empty : empties) {
      for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
        Operation *user = use.getOwner();
        if (user->getBlock() == empty->getBlock())
          continue;
        builder.setInsertionPoint(user);
        use.set(builder.clone(*empty)->getResult(0));
      }
      if (empty->use_empty())
        empty.erase();
    }
  }
};

} // namespace
} // namespace mlir::tfl
