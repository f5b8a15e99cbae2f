//===- HostScalars.cpp - Scalar work stays on the host --------------------===//
//
// `tfl-host-scalars`, the first step of the CUDA wing: the scalar
// arithmetic that host code steers itself with (a loop counter times the
// batch size, a step count, Adam's bias corrections, "is this a logging
// step") runs on the host, on host buffers, instead of as one-thread kernels
// whose results the host then waits for. The steps are the pass's
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "BufferAliases.h"
#include "Copies.h"
#include "tfl/Codegen/Cuda/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tfl {
#define GEN_PASS_DEF_HOSTSCALARS
#include "tfl/Codegen/Cuda/Passes.h.inc"

namespace {

/// A buffer of one element (rank 0, or every dim 1).
bool isScalarBuffer(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.hasStaticShape() && m.getNumElements() == 1;
}

/// Whether `op` overwrites all of `buffer` without reading it first.
bool overwrites(Operation *op, Value buffer) {
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getMemref() == buffer;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics())
    return false;
  bool written = false;
  for (OpOperand &operand : op->getOpOperands()) {
    if (operand.get() != buffer)
      continue;
    if (!linalgOp.isDpsInit(&operand) ||
        linalgOp.payloadUsesValueFromOperand(&operand))
      return false;
    written = true;
  }
  return written;
}

/// Step 1: a one-element buffer that code reuses for several values gets
/// a buffer of its own for each value, so that each value can be placed
/// by itself. This holds when, in every block that uses the buffer, the
/// first use overwrites it: no value then flows from one block to another,
/// and a value lives from one overwrite to the next in its block. (A cast
/// of the buffer counts as a read, and its own uses must come before the
/// next overwrite in the block.)
void splitReusedScalars(IRRewriter &rewriter, func::FuncOp fn) {
  SmallVector<memref::AllocOp> allocs;
  fn.walk([&](memref::AllocOp a) {
    if (isScalarBuffer(a.getType()) && a.getDynamicSizes().empty())
      allocs.push_back(a);
  });
  for (memref::AllocOp alloc : allocs) {
    Value buffer = alloc.getResult();
    llvm::MapVector<Block *, SmallVector<Operation *>> byBlock;
    bool simple = true;
    for (Operation *user : buffer.getUsers()) {
      if (isa<memref::DeallocOp>(user))
        continue;
      bool known = isa<memref::LoadOp, memref::StoreOp, memref::CastOp>(user) ||
                   (isa<linalg::LinalgOp>(user) &&
                    cast<linalg::LinalgOp>(user).hasPureBufferSemantics());
      if (!known) {
        simple = false;
        break;
      }
      byBlock[user->getBlock()].push_back(user);
    }
    size_t uses = 0;
    for (auto &[block, users] : byBlock) {
      llvm::sort(users, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      users.erase(llvm::unique(users), users.end());
      uses += users.size();
      simple = simple && overwrites(users.front(), buffer);
      // A cast's uses stay in the block, before the next overwrite.
      for (auto [i, user] : llvm::enumerate(users)) {
        if (!isa<memref::CastOp>(user))
          continue;
        Operation *next = nullptr;
        for (Operation *later : ArrayRef(users).drop_front(i + 1))
          if (overwrites(later, buffer)) {
            next = later;
            break;
          }
        for (Operation *castUser : user->getResult(0).getUsers())
          simple = simple && castUser->getBlock() == block &&
                   (!next || castUser->isBeforeInBlock(next));
      }
    }
    if (!simple || uses < 2)
      continue;
    for (auto &[block, users] : byBlock) {
      // One buffer per value: a new one at each overwrite, freed after the
      // value's last use; the first value in the allocation's own block
      // keeps the buffer.
      bool keepFirst = block == alloc->getBlock();
      Value current;
      Operation *lastUse = nullptr;
      auto freeCurrent = [&] {
        if (!current || current == buffer)
          return;
        rewriter.setInsertionPointAfter(lastUse);
        memref::DeallocOp::create(rewriter, alloc.getLoc(), current);
      };
      for (Operation *user : users) {
        if (overwrites(user, buffer)) {
          freeCurrent();
          if (keepFirst) {
            current = buffer;
            keepFirst = false;
          } else {
            rewriter.setInsertionPoint(user);
            current = memref::AllocOp::create(rewriter, alloc.getLoc(),
                                              alloc.getType(),
                                              alloc.getAlignmentAttr());
          }
        }
        if (current != buffer)
          rewriter.modifyOpInPlace(
              user, [&] { user->replaceUsesOfWith(buffer, current); });
        lastUse = user;
        if (isa<memref::CastOp>(user))
          for (Operation *castUser : user->getResult(0).getUsers())
            if (lastUse->isBeforeInBlock(castUser))
              lastUse = castUser;
      }
      freeCurrent();
    }
  }
}

/// The memref values `op` reads or writes: its operands, and buffers its
/// body uses from above.
SmallVector<Value> buffersOf(linalg::LinalgOp op) {
  SmallVector<Value> result;
  for (Value v : op->getOperands())
    if (isa<BaseMemRefType>(v.getType()))
      result.push_back(v);
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<BaseMemRefType>(v.getType()) &&
          !op->isAncestor(v.getParentBlock()->getParentOp()))
        result.push_back(v);
  });
  return result;
}

/// A call of libtflrt's host functions (which tfl-device-memory leaves as
/// it is when all the buffers it passes stay on the host).
bool isRuntimeCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee().starts_with("tflrt_") &&
         !call.getCallee().starts_with("tflrt_cuda_");
}

/// Step 2: which buffer classes stay on the host, and which linalg ops
/// run there.
struct Placement {
  explicit Placement(const BufferAliases &aliases) : aliases(aliases) {}

  /// Whether buffer `v` stays on the host (anything else, a scalar, is
  /// host data anyway).
  bool isHost(Value v) const {
    return !isa<BaseMemRefType>(v.getType()) ||
           hostClasses.contains(aliases.leader(v));
  }
  /// Sends `v`'s class to the device; true if it was on the host.
  bool demote(Value v) { return hostClasses.erase(aliases.leader(v)); }

  const BufferAliases &aliases;
  llvm::DenseSet<Value> hostClasses; // by leader
  llvm::DenseSet<Operation *> hostOps;
};

/// The linalg ops on buffers in `fn`.
SmallVector<linalg::LinalgOp> bufferOps(func::FuncOp fn) {
  SmallVector<linalg::LinalgOp> ops;
  fn.walk([&](linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics())
      ops.push_back(op);
  });
  return ops;
}

Placement place(func::FuncOp fn, const BufferAliases &aliases) {
  Placement p(aliases);
  SmallVector<linalg::LinalgOp> ops = bufferOps(fn);
  // Candidates: classes of one-element buffers made here, used only by
  // host loads and stores, deallocation and linalg ops.
  llvm::DenseSet<Value> rejected;
  fn.walk([&](Operation *op) {
    for (Value v : op->getResults()) {
      if (!isa<BaseMemRefType>(v.getType()))
        continue;
      Value leader = aliases.leader(v);
      if (rejected.contains(leader) || p.hostClasses.contains(leader))
        continue;
      bool ok = !aliases.isOpen(v);
      for (Operation *root : aliases.roots(v))
        ok = ok && isa<memref::AllocOp, memref::GetGlobalOp>(root) &&
             isScalarBuffer(root->getResult(0).getType());
      for (Value member : aliases.members(v)) {
        if (!ok)
          break;
        for (Operation *user : member.getUsers()) {
          if (user->getParentOfType<linalg::LinalgOp>() ||
              isRuntimeCall(user) ||
              isa<linalg::LinalgOp, memref::LoadOp, memref::StoreOp,
                  memref::DeallocOp, memref::ExtractAlignedPointerAsIndexOp,
                  memref::ExtractStridedMetadataOp, ViewLikeOpInterface,
                  arith::SelectOp, scf::YieldOp, scf::ForOp, scf::WhileOp,
                  scf::ConditionOp>(user))
            continue;
          ok = false;
          break;
        }
      }
      (ok ? p.hostClasses : rejected).insert(leader);
    }
  });
  // An op runs on the host when every buffer it touches stays there; a
  // class written by an op that runs on the device goes to the device.
  SmallVector<func::CallOp> calls;
  fn.walk([&](func::CallOp call) {
    if (isRuntimeCall(call))
      calls.push_back(call);
  });
  auto isHostValue = [&](Value v) { return p.isHost(v); };
  bool changed = true;
  while (changed) {
    changed = false;
    // A runtime call gets host buffers only, or device buffers only. A
    // collective's are on the device (NCCL's): a scalar result kept on
    // the host would make every step wait for it.
    for (func::CallOp call : calls) {
      bool device = call.getCallee().starts_with("tflrt_collective_");
      if (!device && llvm::all_of(call.getOperands(), isHostValue))
        continue;
      for (Value v : call.getOperands())
        if (isa<BaseMemRefType>(v.getType()))
          changed |= p.demote(v);
    }
    for (linalg::LinalgOp op : ops) {
      SmallVector<Value> buffers = buffersOf(op);
      if (llvm::all_of(buffers, isHostValue))
        continue;
      for (OpOperand &init : op.getDpsInitsMutable())
        changed |= p.demote(init.get());
      // A buffer the body reads from above is read by the kernel.
      for (Value v : buffers)
        if (!llvm::is_contained(op->getOperands(), v))
          changed |= p.demote(v);
    }
  }
  for (linalg::LinalgOp op : ops)
    if (llvm::all_of(buffersOf(op), isHostValue))
      p.hostOps.insert(op);
  return p;
}

/// Step 4: a device op's one-element inputs that stay on the host are read
/// by the host before the launch and reach the kernel by value.
void passByValue(IRRewriter &rewriter, linalg::GenericOp op,
                 const Placement &p) {
  llvm::BitVector drop(op.getNumDpsInputs());
  Block &body = op.getRegion().front();
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value v = input->get();
    if (!isa<MemRefType>(v.getType()) || !p.isHost(v))
      continue;
    rewriter.setInsertionPoint(op);
    auto type = cast<MemRefType>(v.getType());
    SmallVector<Value> zeros(type.getRank(), arith::ConstantIndexOp::create(
                                                 rewriter, op.getLoc(), 0));
    Value value = memref::LoadOp::create(rewriter, op.getLoc(), v, zeros);
    unsigned index = input->getOperandNumber();
    rewriter.replaceAllUsesWith(body.getArgument(index), value);
    drop.set(index);
  }
  if (drop.none())
    return;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!drop.test(input->getOperandNumber())) {
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
  for (OpOperand &init : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&init));
  // A loop that only a dropped input indexed (a sum over a one-element
  // host buffer) has one iteration and no operand left to size it: it
  // goes, and its index is 0.
  unsigned numLoops = op.getNumLoops();
  llvm::SmallBitVector unused(numLoops, true);
  for (AffineMap map : maps)
    for (unsigned d = 0; d < numLoops; ++d)
      if (map.isFunctionOfDim(d))
        unused.reset(d);
  SmallVector<utils::IteratorType> iterators;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
    if (!unused.test(d))
      iterators.push_back(it);
  if (unused.any()) {
    for (AffineMap &map : maps)
      map = compressDims(map, unused);
    SmallVector<linalg::IndexOp> indices;
    body.walk([&](linalg::IndexOp index) { indices.push_back(index); });
    for (linalg::IndexOp index : indices) {
      uint64_t d = index.getDim();
      rewriter.setInsertionPoint(index);
      if (unused.test(d)) {
        rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(index, 0);
        continue;
      }
      uint64_t below = 0;
      for (uint64_t e = 0; e < d; ++e)
        below += unused.test(e);
      rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, d - below);
    }
  }
  rewriter.setInsertionPoint(op);
  auto replacement =
      linalg::GenericOp::create(rewriter, op.getLoc(), TypeRange{}, inputs,
                                op.getDpsInits(), maps, iterators);
  replacement->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), replacement.getRegion(),
                              replacement.getRegion().end());
  // The inputs' block arguments come first.
  drop.resize(body.getNumArguments());
  body.eraseArguments(drop);
  rewriter.eraseOp(op);
}

/// Step 3: the buffers `isHost` says stay on the host are marked.
void markHostBuffers(RewriterBase &rewriter, func::FuncOp fn,
                     function_ref<bool(Value)> isHost) {
  fn.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::GetGlobalOp>(op) &&
        isHost(op->getResult(0)))
      op->setAttr(kHostBufferAttr, rewriter.getUnitAttr());
  });
}

/// `op` as host loops.
LogicalResult toHostLoops(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  if (failed(linalg::linalgOpToLoops(rewriter, op)))
    return op.emitOpError("cannot become host loops");
  rewriter.eraseOp(op);
  return success();
}

struct HostScalarsPass : impl::HostScalarsBase<HostScalarsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    IRRewriter rewriter(&getContext());
    // Copies between buffers are placed as the linalg ops they are.
    copiesToLinalg(rewriter, fn);
    // Work placed on the CPU (a host function): all of it on the host.
    if (isHostFunction(fn)) {
      markHostBuffers(rewriter, fn, [](Value) { return true; });
      for (linalg::LinalgOp op : bufferOps(fn))
        if (failed(toHostLoops(rewriter, op)))
          return signalPassFailure();
      return;
    }
    splitReusedScalars(rewriter, fn);
    BufferAliases aliases(fn);
    Placement p = place(fn, aliases);

    // Step 3: the host's buffers are marked, its ops become host loops.
    markHostBuffers(rewriter, fn, [&](Value v) { return p.isHost(v); });
    for (linalg::LinalgOp op : bufferOps(fn)) {
      if (p.hostOps.contains(op)) {
        if (failed(toHostLoops(rewriter, op)))
          return signalPassFailure();
        continue;
      }
      if (llvm::none_of(op.getDpsInputs(), [&](Value v) {
            return isa<MemRefType>(v.getType()) && p.isHost(v);
          }))
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic =
          isa<linalg::GenericOp>(op)
              ? FailureOr<linalg::GenericOp>(cast<linalg::GenericOp>(op))
              : linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic)) {
        op.emitOpError("has no generic form to run on the GPU");
        return signalPassFailure();
      }
      passByValue(rewriter, *generic, p);
    }
  }
};

} // namespace
} // namespace mlir::tfl
