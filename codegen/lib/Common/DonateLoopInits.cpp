//===- DonateLoopInits.cpp - A loop frees the buffers it starts from ------===//
//
// MLIR's ownership-based deallocation gives an `scf.for` the buffers it
// starts from without their ownership (an i1 of `false` beside each), so
// the block that allocated them frees them after the loop. A training loop
// starts from the initial parameters and optimizer state: the compiled
// step then held them, a second copy of the model and its moments,
// through every step, where eager mode frees them after their last use
// (and the peak of a checkpointed GPT's step was a third higher than
// eager mode's).
//
// This pass, right after the deallocation pass, hands a loop the ownership
// of an initial buffer that the block allocated (`memref.alloc`) and uses
// no more: every use of it and of what may alias it (any memref an op
// makes from it) is before the loop, except the loop's one initial value
// and the block's `bufferization.dealloc` of the buffer itself after it.
// The loop's ownership operand becomes `true` and that dealloc's
// condition `false`: the body's dealloc, which already frees a carried
// buffer it owns when it yields another, frees the initial one at the end
// of the first iteration, and a loop that runs no iteration returns it
// owned, to be freed with the loop's results.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_DONATELOOPINITS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// The block's dealloc of `buffer` after `loop` when `loop` may own it:
/// `loop`'s initial value once, and otherwise used (itself and what may
/// alias it) only before `loop` in its block, and by that dealloc. Null
/// otherwise.
bufferization::DeallocOp donatable(Value buffer, scf::ForOp loop) {
  Block *block = loop->getBlock();
  bufferization::DeallocOp dealloc;
  int initUses = 0;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (user == loop.getOperation()) {
        if (v != buffer ||
            use.getOperandNumber() < loop.getNumControlOperands())
          return {};
        ++initUses;
        continue;
      }
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top || top == loop.getOperation())
        return {};
      if (top->isBeforeInBlock(loop)) {
        // What may alias the buffer must not outlive the loop's start:
        // any memref an op makes from it, nor a pointer.
        if (isa<memref::ExtractAlignedPointerAsIndexOp>(user) ||
            user->hasTrait<OpTrait::IsTerminator>())
          return {};
        for (Value r : user->getResults()) {
          if (isa<LLVM::LLVMPointerType>(r.getType()))
            return {};
          if (isa<BaseMemRefType>(r.getType()))
            worklist.push_back(r);
        }
        continue;
      }
      auto d = dyn_cast<bufferization::DeallocOp>(user);
      if (!d || dealloc || v != buffer || d->getBlock() != block ||
          llvm::is_contained(d.getRetained(), buffer))
        return {};
      dealloc = d;
    }
  }
  return initUses == 1 ? dealloc : bufferization::DeallocOp();
}

void donate(scf::ForOp loop) {
  ValueRange inits = loop.getInitArgs();
  SmallVector<unsigned> memrefs;
  for (auto [i, v] : llvm::enumerate(inits))
    if (isa<BaseMemRefType>(v.getType()))
      memrefs.push_back(i);
  // The deallocation pass appended an ownership flag per carried memref.
  size_t m = memrefs.size();
  if (m == 0 || inits.size() < 2 * m)
    return;
  size_t firstFlag = inits.size() - m;
  for (size_t k = 0; k < m; ++k)
    if (!inits[firstFlag + k].getType().isInteger(1) || memrefs[k] >= firstFlag)
      return;
  OpBuilder b(loop);
  for (auto [k, i] : llvm::enumerate(memrefs)) {
    Value buffer = loop.getInitArgs()[i];
    if (!matchPattern(loop.getInitArgs()[firstFlag + k], m_Zero()) ||
        !buffer.getDefiningOp<memref::AllocOp>() ||
        buffer.getDefiningOp()->getBlock() != loop->getBlock())
      continue;
    bufferization::DeallocOp dealloc = donatable(buffer, loop);
    if (!dealloc)
      continue;
    Location loc = loop.getLoc();
    loop.getInitArgsMutable()[firstFlag + k].assign(
        arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    OpBuilder db(dealloc);
    Value no = arith::ConstantOp::create(db, loc, db.getBoolAttr(false));
    for (auto [j, memref] : llvm::enumerate(dealloc.getMemrefs()))
      if (memref == buffer)
        dealloc.getConditionsMutable()[j].assign(no);
  }
}

struct DonateLoopInitsPass : impl::DonateLoopInitsBase<DonateLoopInitsPass> {
  void runOnOperation() override {
    getOperation().walk([](scf::ForOp loop) { donate(loop); });
  }
};

} // namespace
} // namespace mlir::tfl
