//===- SplitDeallocs.cpp - A dealloc of its own for each fresh buffer -----===//
//
// MLIR's ownership-based deallocation ends each block with one
// `bufferization.dealloc` of every buffer the block may own, and its
// simplification splits off each memref that no other one of the list may
// alias, as its alias analysis tells. That analysis cannot tell a global
// constant (`memref.get_global`) from a fresh allocation. A loop body
// with an `if` that yields a constant in one branch (a Python `or`, a
// flag chosen with a literal) thus put every buffer of the body into one
// dealloc, lowered to a run-time comparison of every pointer with every
// other at the end of the body: no buffer could then be freed right after
// its last use, and no pass that looks for a buffer's only reader saw one.
//
// This pass splits off, from a dealloc, each memref that a `memref.alloc`
// in the dealloc's own block created, when no other memref of the list
// can be that buffer. A memref is told apart from the buffer when it
// comes, through views, `arith.select` and `scf.if`, from:
//
// - a value defined before the allocation (in the block or outside it, a
//   block argument of the block included): it is still in use at the
//   dealloc, so its memory was allocated when the buffer was, and is not
//   the buffer's (if it was not in use, its condition is false and the
//   dealloc does nothing with it either way);
// - another allocation, or a global.
//
// The new dealloc retains what the old one did that may be the buffer,
// and the ownership it returns for those is or-ed into the old one's. A
// retained memref that a `memref.alloc` of the block created, and that no
// memref of the list can be, is dropped from the retained list (its
// ownership through the dealloc is false): a loop body that yields new
// parameters each step would otherwise compare each of their pointers
// with each buffer of the last step at run time, and MLIR's simplification
// spends seconds finding that out for a model's hundreds.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_SPLITDEALLOCS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// Whether `v` cannot be the buffer that `alloc` creates, nor a view of it
/// (see the file comment).
bool distinctFrom(Value v, memref::AllocOp alloc, unsigned depth = 0) {
  if (depth > 16)
    return false;
  Block *block = alloc->getBlock();
  Operation *def = v.getDefiningOp();
  auto arg = dyn_cast<BlockArgument>(v);
  if (arg && arg.getOwner() == block)
    return true;
  Operation *at = def ? def : arg.getOwner()->getParentOp();
  Operation *inBlock = block->findAncestorOpInBlock(*at);
  if (!inBlock || inBlock->isBeforeInBlock(alloc))
    return true;
  if (!def || def == alloc.getOperation())
    return false;
  if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def))
    return true;
  auto from = [&](Value source) {
    return distinctFrom(source, alloc, depth + 1);
  };
  if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def))
    return from(metadata.getSource());
  if (auto cast = dyn_cast<memref::CastOp>(def))
    return from(cast.getSource());
  if (auto view = dyn_cast<ViewLikeOpInterface>(def))
    return from(view.getViewSource());
  if (auto select = dyn_cast<arith::SelectOp>(def))
    return from(select.getTrueValue()) && from(select.getFalseValue());
  if (auto branch = dyn_cast<scf::IfOp>(def)) {
    unsigned index = cast<OpResult>(v).getResultNumber();
    return from(branch.thenYield().getOperand(index)) &&
           from(branch.elseYield().getOperand(index));
  }
  return false;
}

/// Splits `dealloc` (see the file comment).
void split(bufferization::DeallocOp dealloc) {
  Block *block = dealloc->getBlock();
  SmallVector<Value> memrefs(dealloc.getMemrefs());
  SmallVector<Value> conditions(dealloc.getConditions());
  SmallVector<Value> retained(dealloc.getRetained());
  SmallVector<bool> alone(memrefs.size(), false);
  bool any = false;
  for (size_t i = 0; i < memrefs.size(); ++i) {
    auto alloc = memrefs[i].getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != block)
      continue;
    alone[i] = true;
    for (size_t j = 0; j < memrefs.size() && alone[i]; ++j)
      alone[i] = j == i || distinctFrom(memrefs[j], alloc);
    any |= alone[i];
  }
  // A retained memref that a memref.alloc of the block created, and that
  // no memref of the list can be, is owned through no dealloc here: the
  // rest drop it (a loop body that yields new parameters each iteration
  // and frees the last ones otherwise lowers to comparing every yielded
  // pointer with every freed one).
  SmallVector<bool> unrelated(retained.size(), false);
  for (size_t r = 0; r < retained.size(); ++r) {
    auto alloc = retained[r].getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != block)
      continue;
    unrelated[r] =
        llvm::all_of(memrefs, [&](Value m) { return distinctFrom(m, alloc); });
    any |= unrelated[r];
  }
  if (!any)
    return;
  OpBuilder builder(dealloc);
  Location loc = dealloc.getLoc();
  // The ownership of each retained memref that the new deallocs return.
  SmallVector<Value> owned(retained.size());
  SmallVector<Value> restMemrefs, restConditions;
  for (size_t i = 0; i < memrefs.size(); ++i) {
    if (!alone[i]) {
      restMemrefs.push_back(memrefs[i]);
      restConditions.push_back(conditions[i]);
      continue;
    }
    auto alloc = memrefs[i].getDefiningOp<memref::AllocOp>();
    SmallVector<Value> keep;
    SmallVector<size_t> keepIndex;
    for (size_t r = 0; r < retained.size(); ++r)
      if (!distinctFrom(retained[r], alloc)) {
        keep.push_back(retained[r]);
        keepIndex.push_back(r);
      }
    auto own = bufferization::DeallocOp::create(
        builder, loc, ValueRange{memrefs[i]}, ValueRange{conditions[i]}, keep);
    for (size_t k = 0; k < keep.size(); ++k) {
      Value &o = owned[keepIndex[k]];
      Value now = own.getUpdatedConditions()[k];
      o = o ? arith::OrIOp::create(builder, loc, o, now) : now;
    }
  }
  SmallVector<Value> restRetained;
  for (size_t r = 0; r < retained.size(); ++r)
    if (!unrelated[r])
      restRetained.push_back(retained[r]);
  auto rest = bufferization::DeallocOp::create(builder, loc, restMemrefs,
                                               restConditions, restRetained);
  Value no;
  for (size_t r = 0, k = 0; r < retained.size(); ++r) {
    Value result;
    if (!unrelated[r]) {
      result = rest.getUpdatedConditions()[k++];
    } else {
      if (!no)
        no =
            arith::ConstantOp::create(builder, loc, builder.getBoolAttr(false));
      result = no;
    }
    if (owned[r])
      result = arith::OrIOp::create(builder, loc, result, owned[r]);
    dealloc.getUpdatedConditions()[r].replaceAllUsesWith(result);
  }
  dealloc.erase();
}

struct SplitDeallocsPass : impl::SplitDeallocsBase<SplitDeallocsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation().walk(
        [&](bufferization::DeallocOp d) { deallocs.push_back(d); });
    for (bufferization::DeallocOp dealloc : deallocs)
      split(dealloc);
  }
};

} // namespace
} // namespace mlir::tfl
