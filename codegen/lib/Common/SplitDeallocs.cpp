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
// - another allocation, or a global;
// - a value an `scf.for` after the allocation carries (a result, or a
//   carried value inside it), whose initial value and yielded value are
//   told apart (a training loop's results, the trained parameters, are in
//   the dealloc of every buffer allocated before it at the function's end).
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
// What is left of a dealloc that retains nothing (a function's last, of
// the buffers made before a training loop and the loop's results) is then
// split by origin: each memref traced, as above and through `scf.for`s'
// initial and yielded values, to the operations that may have allocated
// it, and a dealloc made for each group of memrefs joined by a shared
// operation (buffers of different allocations are different buffers). A
// memref traced to something else (a call's result) leaves it whole.
// Otherwise MLIR's simplification compares every pair of the list, and
// the list grows with a model's layers.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

#include <numeric>

namespace mlir::tfl {

#define GEN_PASS_DEF_SPLITDEALLOCS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// Appends to `sources` the values whose buffer `v` may be (a view of), one
/// step back: through views, `arith.select`, `scf.if`, and the initial and
/// yielded values of what an `scf.for` carries (inside it or as its
/// result). False when `v` is none of these.
bool sourcesOf(Value v, SmallVectorImpl<Value> &sources) {
  auto carried = [&](scf::ForOp loop, unsigned k) {
    sources.append({loop.getInitArgs()[k],
                    loop.getBody()->getTerminator()->getOperand(k)});
    return true;
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return loop && arg.getArgNumber() > 0 &&
           carried(loop, arg.getArgNumber() - 1);
  }
  Operation *def = v.getDefiningOp();
  if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def))
    sources.push_back(metadata.getSource());
  else if (auto memrefCast = dyn_cast<memref::CastOp>(def))
    sources.push_back(memrefCast.getSource());
  else if (auto view = dyn_cast<ViewLikeOpInterface>(def))
    sources.push_back(view.getViewSource());
  else if (auto select = dyn_cast<arith::SelectOp>(def))
    sources.append({select.getTrueValue(), select.getFalseValue()});
  else if (auto branch = dyn_cast<scf::IfOp>(def)) {
    unsigned index = cast<OpResult>(v).getResultNumber();
    sources.append({branch.thenYield().getOperand(index),
                    branch.elseYield().getOperand(index)});
  } else if (auto loop = dyn_cast<scf::ForOp>(def))
    return carried(loop, cast<OpResult>(v).getResultNumber());
  else
    return false;
  return true;
}

/// Whether `v` cannot be the buffer that `alloc` creates, nor a view of it
/// (see the file comment). A value met again (a cycle through a loop, or a
/// value two sources share) is taken as distinct: every check here is a
/// conjunction, so its first answer already counts.
bool distinctFrom(Value v, memref::AllocOp alloc,
                  llvm::SmallPtrSetImpl<Value> &visited, unsigned depth = 0) {
  if (depth > 16)
    return false;
  if (!visited.insert(v).second)
    return true;
  Block *block = alloc->getBlock();
  Operation *def = v.getDefiningOp();
  auto arg = dyn_cast<BlockArgument>(v);
  if (arg && arg.getOwner() == block)
    return true;
  Operation *at = def ? def : arg.getOwner()->getParentOp();
  Operation *inBlock = block->findAncestorOpInBlock(*at);
  if (!inBlock || inBlock->isBeforeInBlock(alloc))
    return true;
  if (def == alloc.getOperation())
    return false;
  if (isa_and_present<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(
          def))
    return true;
  SmallVector<Value, 2> sources;
  return sourcesOf(v, sources) && llvm::all_of(sources, [&](Value source) {
           return distinctFrom(source, alloc, visited, depth + 1);
         });
}

/// distinctFrom, each question with a set of its own.
bool distinctFrom(Value v, memref::AllocOp alloc) {
  llvm::SmallPtrSet<Value, 8> visited;
  return distinctFrom(v, alloc, visited);
}

/// Splits `dealloc` (see the file comment); returns what is left of it.
bufferization::DeallocOp split(bufferization::DeallocOp dealloc) {
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
    return dealloc;
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
  return rest;
}

/// Adds to `origins` the operations that may have allocated the buffer `v`
/// is (a view of); false when that is not known.
bool addOrigins(Value v, llvm::SmallPtrSetImpl<Operation *> &origins,
                llvm::SmallPtrSetImpl<Value> &visited, unsigned depth = 0) {
  if (depth > 16)
    return false;
  if (!visited.insert(v).second)
    return true; // a cycle through a loop adds no origin
  Operation *def = v.getDefiningOp();
  if (isa_and_present<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(
          def)) {
    origins.insert(def);
    return true;
  }
  SmallVector<Value, 2> sources;
  return sourcesOf(v, sources) && llvm::all_of(sources, [&](Value source) {
           return addOrigins(source, origins, visited, depth + 1);
         });
}

/// Splits a dealloc that retains nothing into one for each group of its
/// memrefs that share an allocating operation (see the file comment).
void groupByOrigin(bufferization::DeallocOp dealloc) {
  OperandRange memrefs = dealloc.getMemrefs();
  if (memrefs.size() < 2 || !dealloc.getRetained().empty())
    return;
  // Union-find over the memrefs, joined through their origins.
  SmallVector<unsigned> parent(memrefs.size());
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  llvm::DenseMap<Operation *, unsigned> firstWith;
  for (unsigned i = 0; i < memrefs.size(); ++i) {
    llvm::SmallPtrSet<Operation *, 4> origins;
    llvm::SmallPtrSet<Value, 8> visited;
    if (!addOrigins(memrefs[i], origins, visited))
      return;
    for (Operation *origin : origins) {
      auto [it, inserted] = firstWith.try_emplace(origin, i);
      if (!inserted)
        parent[find(i)] = find(it->second);
    }
  }
  llvm::MapVector<unsigned, SmallVector<unsigned>> groups;
  for (unsigned i = 0; i < memrefs.size(); ++i)
    groups[find(i)].push_back(i);
  if (groups.size() < 2)
    return;
  OpBuilder builder(dealloc);
  for (auto &[root, members] : groups) {
    SmallVector<Value> groupMemrefs, groupConditions;
    for (unsigned i : members) {
      groupMemrefs.push_back(memrefs[i]);
      groupConditions.push_back(dealloc.getConditions()[i]);
    }
    bufferization::DeallocOp::create(builder, dealloc.getLoc(), groupMemrefs,
                                     groupConditions, ValueRange{});
  }
  dealloc.erase();
}

struct SplitDeallocsPass : impl::SplitDeallocsBase<SplitDeallocsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation().walk(
        [&](bufferization::DeallocOp d) { deallocs.push_back(d); });
    for (bufferization::DeallocOp dealloc : deallocs)
      groupByOrigin(split(dealloc));
  }
};

} // namespace
} // namespace mlir::tfl
