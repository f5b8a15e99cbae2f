//===- OverlapCollectives.cpp - Gradient buckets reduced during backward --===//
//
// tfl-overlap-collectives: each tfl.all_reduce becomes buckets that start
// as soon as their tensors are ready and wait where their results are
// first used (Passes.td has the algorithm). Collectives act on one
// resource, so nothing else moves them; this pass moves them on purpose,
// the same way on every rank.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLOVERLAPCOLLECTIVES
#include "tfl/Passes/Passes.h.inc"

namespace {

/// The op of `block` after which `v` exists, or null when it exists from
/// the block's start (a block argument, or a value made outside).
Operation *readyAfter(Block *block, Value v) {
  Operation *def = v.getDefiningOp();
  return def ? block->findAncestorOpInBlock(*def) : nullptr;
}

/// Whether ready point `a` comes before `b` (null is the block's start).
bool readyBefore(Operation *a, Operation *b) {
  if (!a || !b)
    return !a && b;
  return a->isBeforeInBlock(b);
}

/// Whether `op` does what another rank might observe (writes a file,
/// prints, reads a file another rank may write): a collective must not
/// move across it, so that a program may use one as a barrier (rank 0
/// saves, all_reduce, every rank loads). The random generator's state, the
/// tapes and the collectives themselves are this process's own.
bool isFence(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return true;
  return llvm::any_of(*effects, [](const MemoryEffects::EffectInstance &e) {
    return !isa<RandomStateResource, TapeResource, CommunicatorResource>(
        e.getResource());
  });
}

int64_t byteSize(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

void overlap(AllReduceOp allReduce, int64_t firstBucketBytes,
             int64_t bucketBytes) {
  Block *block = allReduce->getBlock();
  ValueRange inputs = allReduce.getInputs();
  // 1. The tensors in the order they are ready (by the position of the op
  // after which each is; the block's start is 0), in operand order among
  // equals.
  DenseMap<Operation *, unsigned> position;
  unsigned n = 0;
  for (Operation &op : *block)
    position[&op] = ++n;
  SmallVector<std::pair<unsigned, unsigned>> order;
  for (unsigned i = 0; i < inputs.size(); ++i) {
    Operation *after = readyAfter(block, inputs[i]);
    order.push_back({after ? position[after] : 0, i});
  }
  llvm::sort(order);
  // 2. Buckets.
  SmallVector<SmallVector<unsigned>> buckets(1);
  int64_t bytes = 0;
  for (auto [ready, i] : order) {
    buckets.back().push_back(i);
    bytes += byteSize(inputs[i]);
    int64_t cap = buckets.size() == 1 ? firstBucketBytes : bucketBytes;
    if (bytes >= cap) {
      buckets.emplace_back();
      bytes = 0;
    }
  }
  if (buckets.back().empty())
    buckets.pop_back();
  // 3. Each bucket starts after its last tensor is ready, after the bucket
  // before it, and after the fences before the all_reduce.
  OpBuilder b(allReduce->getContext());
  Location loc = allReduce.getLoc();
  Operation *previous = nullptr;
  for (Operation *op = allReduce->getPrevNode(); op; op = op->getPrevNode())
    if (isFence(op)) {
      previous = op;
      break;
    }
  SmallVector<Value> requests;
  for (ArrayRef<unsigned> bucket : buckets) {
    Operation *after = readyAfter(block, inputs[bucket.back()]);
    if (readyBefore(after, previous))
      after = previous;
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(block);
    SmallVector<Value> tensors;
    for (unsigned i : bucket)
      tensors.push_back(inputs[i]);
    auto start = AllReduceStartOp::create(b, loc, allReduce.getOp(), tensors);
    requests.push_back(start.getRequest());
    previous = start;
  }
  // 4. Each bucket's wait, before the first use of its results, or the
  // first fence after the all_reduce.
  Operation *fence = allReduce->getNextNode();
  while (fence && !isFence(fence))
    fence = fence->getNextNode();
  for (auto [bucket, request] : llvm::zip(buckets, requests)) {
    SmallVector<Type> types;
    for (unsigned i : bucket)
      types.push_back(inputs[i].getType());
    Operation *firstUse = fence;
    for (unsigned i : bucket)
      for (Operation *user : allReduce.getResult(i).getUsers())
        if (Operation *at = block->findAncestorOpInBlock(*user);
            at && (!firstUse || at->isBeforeInBlock(firstUse)))
          firstUse = at;
    b.setInsertionPoint(firstUse ? firstUse : allReduce.getOperation());
    auto wait = AllReduceWaitOp::create(b, loc, types, request);
    for (auto [i, result] : llvm::zip(bucket, wait.getResults()))
      allReduce.getResult(i).replaceAllUsesWith(result);
  }
  allReduce->erase();
}

struct OverlapCollectives
    : impl::TflOverlapCollectivesBase<OverlapCollectives> {
  using Base::Base;
  void runOnOperation() override {
    // tflc --bucket-mb: the module's tfl.bucket_bytes, 0 for no buckets.
    int64_t first = firstBucketBytes, rest = bucketBytes;
    if (auto attr =
            getOperation()->getAttrOfType<IntegerAttr>("tfl.bucket_bytes")) {
      if (attr.getInt() <= 0)
        return;
      rest = attr.getInt();
      first = std::min(first, rest);
    }
    SmallVector<AllReduceOp> allReduces;
    getOperation().walk([&](AllReduceOp op) { allReduces.push_back(op); });
    for (AllReduceOp op : allReduces)
      overlap(op, first, rest);
  }
};

} // namespace

} // namespace mlir::tfl
