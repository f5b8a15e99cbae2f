//===- EarlyDeallocs.cpp - Free each buffer after its last use ------------===//
//
// MLIR's ownership-based deallocation frees a buffer at the end of the
// block that allocated it. For a loop's body that is the end of the step,
// but for a script's top level it is the end of the program: every
// temporary of the top level (a dataset normalized once, a product
// printed once) would stay allocated for the whole run. This pass moves
// each `memref.dealloc` of a buffer allocated in the same block to just
// after the buffer's last use in that block, as a reference count would
// free it. A buffer is moved only when every alias of it is known: views
// (casts, subviews, reshapes, reinterpretations, the base buffer of its
// metadata) are followed; a use that may let it escape (a yield, a
// return, an op that returns a memref the pass does not know) keeps the
// dealloc where it is. A use inside a nested region counts as a use by the
// op that holds the region. Runtime calls do not keep the buffers they are
// given (libtflrt copies what it keeps: tapes, checkpoints).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_EARLYDEALLOCS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// Whether `op`'s memref results are views of its memref operands.
bool isView(Operation *op) {
  // (memref.transpose is a view without ViewLikeOpInterface: attention
  // reads the heads of a product's result through one.)
  return isa<ViewLikeOpInterface, memref::CastOp, memref::ReinterpretCastOp,
             memref::ExtractStridedMetadataOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::TransposeOp>(op);
}

/// The last op of `block` that uses `buffer` or a view of it (an op that
/// holds a use in a region counts), or null when the buffer may escape.
/// `position` numbers the ops of `block` in order.
Operation *lastUse(Value buffer, Block *block, Operation *dealloc,
                   const llvm::DenseMap<Operation *, unsigned> &position) {
  SmallVector<Value> aliases = {buffer};
  Operation *last = buffer.getDefiningOp();
  for (size_t i = 0; i < aliases.size(); ++i) {
    for (OpOperand &use : aliases[i].getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      if (isView(user)) {
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            aliases.push_back(result);
      } else if (llvm::any_of(
                     user->getResultTypes(),
                     llvm::IsaPred<BaseMemRefType, LLVM::LLVMPointerType>) ||
                 isa<memref::ExtractAlignedPointerAsIndexOp,
                     UnrealizedConversionCastOp>(user) ||
                 user->hasTrait<OpTrait::IsTerminator>() ||
                 isa<memref::DeallocOp>(user)) {
        return nullptr; // may escape, or is freed some other way
      }
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return nullptr; // used outside the block
      if (position.lookup(last) < position.lookup(inBlock))
        last = inBlock;
    }
  }
  return last;
}

struct EarlyDeallocsPass : impl::EarlyDeallocsBase<EarlyDeallocsPass> {
  void runOnOperation() override {
    // By block, each dealloc's place found before any moves (a move would
    // renumber the block for the next question: quadratic in a block of a
    // training step's thousands of ops and hundreds of deallocs).
    llvm::MapVector<Block *, SmallVector<memref::DeallocOp>> byBlock;
    getOperation().walk([&](memref::DeallocOp d) {
      auto alloc = d.getMemref().getDefiningOp<memref::AllocOp>();
      if (alloc && alloc->getBlock() == d->getBlock())
        byBlock[d->getBlock()].push_back(d);
    });
    for (auto &[block, deallocs] : byBlock) {
      llvm::DenseMap<Operation *, unsigned> position;
      for (Operation &op : *block)
        position.try_emplace(&op, position.size());
      SmallVector<std::pair<memref::DeallocOp, Operation *>> moves;
      for (memref::DeallocOp dealloc : deallocs) {
        Operation *last =
            lastUse(dealloc.getMemref(), block, dealloc, position);
        if (last && position.lookup(last) < position.lookup(dealloc))
          moves.emplace_back(dealloc, last);
      }
      for (auto [dealloc, last] : moves)
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
} // namespace mlir::tfl
