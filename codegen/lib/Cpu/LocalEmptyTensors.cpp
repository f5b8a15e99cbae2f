//===- LocalEmptyTensors.cpp - An empty tensor per use --------------------===//
//
// CSE merges identical `tensor.empty`s. Merged across a loop, a loop body's
// results (a training step's new weights, say) are written into one buffer
// allocated before the loop, which the body then copies into a fresh
// buffer to carry to the next iteration. Merged within a block, one empty
// tensor (or a reshape of it) becomes the destination of hundreds of ops (a
// training step's layer-norm reductions), all of which one-shot
// bufferization's analysis then puts in one alias set, every write checked
// against every read of the set: its time grew with the square of a
// model's layers. And a buffer is allocated where its empty tensor is:
// merged, a gradient's destination is allocated in the forward sweep and
// held until the reverse sweep writes it. Before bufferization, on the
// CPU, a reshape of an empty tensor becomes an empty tensor, and each use
// of an empty tensor gets one of its own, right before its user: a loop
// body writes fresh buffers (from libtflrt's cache of freed buffers) and
// carries them without a copy, each destination is a set of its own, and
// each buffer lives from the op that writes it.
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
    OpBuilder builder(&getContext());
    // A reshape of an empty tensor is an empty tensor of its result's shape.
    SmallVector<Operation *> reshapes;
    getOperation().walk([&](Operation *op) {
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op) &&
          op->getOperand(0).getDefiningOp<tensor::EmptyOp>() &&
          cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape())
        reshapes.push_back(op);
    });
    for (Operation *reshape : reshapes) {
      auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
      Operation *source = reshape->getOperand(0).getDefiningOp();
      builder.setInsertionPoint(reshape);
      reshape->replaceAllUsesWith(tensor::EmptyOp::create(
          builder, reshape->getLoc(), type.getShape(), type.getElementType()));
      reshape->erase();
      if (source->use_empty())
        source->erase();
    }
    // An empty tensor for each use, right before its user: where the
    // empty was, its buffer would be allocated, and live from there.
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    for (tensor::EmptyOp empty : empties) {
      bool kept = false; // by one use of the op right after it
      for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
        Operation *user = use.getOwner();
        if (!kept && user == empty->getNextNode()) {
          kept = true;
          continue;
        }
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
