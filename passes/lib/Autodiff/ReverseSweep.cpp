//===- ReverseSweep.cpp - The forward copy and the pullbacks of ops -------===//
//
// A vjp's body: the forward copy of the function's ops (with what copies
// leave out scrubbed, and the generator's state read before what draws),
// then the pullbacks of its ops, last to first, each through the op's
// ReverseOpInterface, a callee's own vjp (recomputing a checkpoint's
// forward behind a tfl.optimization_barrier), or, for a tape op, on the
// tape that holds its cotangents.
//
//===----------------------------------------------------------------------===//

#include "VjpBuilder.h"

namespace mlir::tfl::autodiff {

LogicalResult VjpBuilder::reverseBlock(OpBuilder &b, Block &block,
                                       IRMapping &map,
                                       DenseMap<Value, Value> &adjoint) {
  for (Operation &op : llvm::reverse(block.without_terminator())) {
    SmallVector<Value> dResults;
    bool any = false;
    for (Value r : op.getResults()) {
      dResults.push_back(adjoint.lookup(r));
      any |= dResults.back() != nullptr;
    }
    // A loop with an active result pushed its states on the tape in the
    // forward sweep: its reverse must release them even when no cotangent
    // reaches it. A write of an active value on a tape has no result, but
    // its input gets the cotangent the tape holds.
    Value stored = storedOnTape(op);
    bool writes = stored && active.contains(stored);
    if (!any && !usesTape(op) && !writes)
      continue;
    if (failed(reverseOp(b, op, map, dResults, adjoint)))
      return failure();
  }
  return success();
}

LogicalResult VjpBuilder::reverseOp(OpBuilder &b, Operation &op, IRMapping &map,
                                    ArrayRef<Value> dResults,
                                    DenseMap<Value, Value> &adjoint) {
  // The pullback runs where the op ran (an op in a `with device` block
  // names its device; tfl-place-devices copies what crosses).
  OnDeviceOf onDevice(b, op);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return reverseIf(b, ifOp, map, dResults, adjoint);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return reverseFor(b, forOp, map, dResults, adjoint);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return reverseWhile(b, whileOp, map, dResults, adjoint);
  if (op.getNumRegions() > 0)
    return op.emitError("differentiating through '")
           << op.getName() << "' is not supported yet";
  if (isa<TapePushOp, TapeWriteOp, TapeReadOp, TapeAddOp, TapeAccumulatedOp>(
          op)) {
    reverseTapeOp(b, op, map, dResults, adjoint);
    return success();
  }
  if (llvm::none_of(op.getOperands(),
                    [&](Value v) { return active.contains(v); }))
    return success();
  Operation *clone = map.lookup(op.getResult(0)).getDefiningOp();
  SmallVector<Value> dOperands;
  if (auto call = dyn_cast<func::CallOp>(clone)) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    // A custom rule's residuals with cotangents need the body's reverse.
    VjpKind kind = VjpKind::Custom;
    if (auto leaves =
            callee->getAttrOfType<IntegerAttr>("tfl.custom_value_leaves"))
      if (llvm::any_of(dResults.drop_front(leaves.getInt()),
                       [](Value d) { return d != nullptr; }))
        kind = VjpKind::Full;
    SmallVector<bool> differentiated;
    for (Value operand : op.getOperands())
      differentiated.push_back(active.contains(operand));
    FailureOr<func::FuncOp> calleeVjp = vjpOf(callee, kind, differentiated);
    if (failed(calleeVjp))
      return failure();
    SmallVector<Value> args(call.getOperands());
    for (auto [r, d] : llvm::zip(call.getResults(), dResults))
      args.push_back(d ? d : zerosOf(b, op.getLoc(), r.getType()));
    // A checkpoint's vjp recomputes the callee's forward from its
    // arguments: behind a barrier, which neither CSE nor a fold sees
    // through, and with the cotangents, so it runs where they exist. The
    // forward sweep's intermediates then die in the forward sweep.
    if (callee->hasAttr("tfl.checkpoint") && !args.empty())
      args = OptimizationBarrierOp::create(b, op.getLoc(), args)->getResults();
    // The callee's vjp runs its forward again: with the draws it made.
    Value now;
    if (Value state = randomBefore.lookup(&op))
      now = replayRandom(b, op.getLoc(), state);
    auto reverse = func::CallOp::create(b, op.getLoc(), *calleeVjp, args);
    if (now)
      SetRandomStateOp::create(b, op.getLoc(), now);
    llvm::append_range(dOperands,
                       reverse.getResults().drop_front(call.getNumResults()));
  } else {
    auto rule = dyn_cast<ReverseOpInterface>(clone);
    if (!rule)
      return op.emitError("no gradient rule for '")
             << op.getName() << "'; it cannot be differentiated";
    // A rule builds every operand's cotangent; those of inactive operands
    // are dead code, which the simplify stage removes.
    if (failed(rule.reverse(b, dResults, dOperands)))
      return failure();
  }
  for (auto [operand, d] : llvm::zip(op.getOperands(), dOperands))
    if (d && active.contains(operand))
      accumulate(b, adjoint, operand, d, op.getLoc());
  return success();
}

LogicalResult VjpBuilder::cloneForward(OpBuilder &b, Block &block,
                                       IRMapping &map, bool recompute) {
  Type i64 = b.getI64Type();
  for (Operation &op : block.without_terminator()) {
    if (leftOutOfCopy(op, recompute))
      continue;
    // A region op cloned before (by the forward sweep) left its blocks'
    // arguments in the mapping; forget them, or the new copy's blocks would
    // get none.
    op.walk([&](Block *inner) {
      for (BlockArgument arg : inner->getArguments())
        map.erase(arg);
    });
    Location loc = op.getLoc();
    if (auto push = dyn_cast<TapePushOp>(op);
        push && !push.getReplay() && active.contains(push.getInput()))
      pushPosition[&op] = TapeSizeOp::create(b, loc, i64, push.getTape());
    if (!usesTape(op)) {
      if (isa<scf::IfOp, func::CallOp>(op) && drawsRandom(&op))
        randomBefore[&op] = RandomStateOp::create(b, loc, randomStateType(b));
      if (isa<scf::IfOp>(op)) {
        SmallVector<std::pair<int64_t, Value>> cursors;
        for (int64_t tape : lowerTapesPushed(&op))
          cursors.push_back({tape, TapeSizeOp::create(b, loc, i64, tape)});
        tapesBefore[&op] = std::move(cursors);
      }
      scrub(b.clone(op, map), recompute);
      continue;
    }
    // The loop pushes, each iteration (each `before` of a while), the
    // generator's state when it draws, the cursors of the lower tapes it
    // pushes on, and the state the iteration starts from.
    LoopTape tape;
    bool isWhile = isa<scf::WhileOp>(op);
    tape.start = TapeSizeOp::create(b, loc, i64, ownTape);
    tape.draws = drawsRandom(&op);
    tape.lower = lowerTapesPushed(&op);
    Operation *clone = b.clone(op, map);
    scrub(clone, recompute);
    Block &start = clone->getRegion(0).front();
    OpBuilder pb = OpBuilder::atBlockBegin(&start);
    auto push = [&](Value v) { TapePushOp::create(pb, loc, v, ownTape); };
    if (tape.draws)
      push(RandomStateOp::create(pb, loc, randomStateType(pb)));
    for (int64_t lower : tape.lower)
      push(tensor::FromElementsOp::create(
          pb, loc, RankedTensorType::get({}, i64),
          ValueRange{TapeSizeOp::create(pb, loc, i64, lower)}));
    ValueRange states = start.getArguments().drop_front(isWhile ? 0 : 1);
    for (Value state : states)
      push(state);
    tape.perIteration = (tape.draws ? 1 : 0) +
                        static_cast<int64_t>(tape.lower.size() + states.size());
    tape.end = TapeSizeOp::create(b, loc, i64, ownTape);
    loopTape[&op] = tape;
  }
  return success();
}

bool VjpBuilder::leftOutOfCopy(Operation &op, bool recompute) {
  if (isa<TapeEnterOp, TapeExitOp>(op))
    return true;
  if (auto rewind = dyn_cast<TapeRewindOp>(op))
    return rewind.getRelease();
  return recompute && isa<PrintOp, PrintTemplateOp, LogScalarOp, SaveOp,
                          SaveNpyOp, AssertOp, TapeAddOp, DebugPointOp>(op);
}

void VjpBuilder::scrub(Operation *copy, bool recompute) {
  SmallVector<Operation *> leftOut;
  copy->walk([&](Operation *inner) {
    if (inner != copy && leftOutOfCopy(*inner, recompute))
      leftOut.push_back(inner);
    if (auto push = dyn_cast<TapePushOp>(inner); push && recompute)
      push.setReplay(true);
  });
  for (Operation *inner : leftOut)
    inner->erase();
}

SmallVector<int64_t> VjpBuilder::lowerTapesPushed(Operation *op) {
  std::set<int64_t> tapes;
  op->walk([&](TapePushOp push) {
    tapes.insert(static_cast<int64_t>(push.getTape()));
  });
  return SmallVector<int64_t>(tapes.begin(), tapes.end());
}

Value VjpBuilder::replayRandom(OpBuilder &b, Location loc, Value state) {
  Value now = RandomStateOp::create(b, loc, randomStateType(b));
  SetRandomStateOp::create(b, loc, state);
  return now;
}

void VjpBuilder::reverseTapeOp(OpBuilder &b, Operation &op, IRMapping &map,
                               ArrayRef<Value> dResults,
                               DenseMap<Value, Value> &adjoint) {
  Location loc = op.getLoc();
  int64_t tape = adjointTape(op.getAttrOfType<IntegerAttr>("tape").getInt());
  // A write's input gets what the adjoint tape holds for its position: the
  // sum of the cotangents of the reads of an entry, or the cotangent of
  // the sum an add went into.
  if (Value input = storedOnTape(op)) {
    auto push = dyn_cast<TapePushOp>(op);
    if (!active.contains(input) || (push && push.getReplay()))
      return;
    Value position = isa<TapePushOp>(op) ? pushPosition.lookup(&op)
                                         : map.lookup(op.getOperand(0));
    Value d =
        isa<TapeAddOp>(op)
            ? TapeReadOp::create(b, loc, input.getType(), position, tape)
                  .getResult()
            : TapeAccumulatedOp::create(b, loc, input.getType(), position, tape)
                  .getResult();
    accumulate(b, adjoint, input, d, loc);
    return;
  }
  // A read's cotangent goes to its position on the adjoint tape.
  if (!dResults[0])
    return;
  Value position = map.lookup(op.getOperand(0));
  if (isa<TapeReadOp>(op))
    TapeAddOp::create(b, loc, position, dResults[0], tape);
  else
    TapeWriteOp::create(b, loc, position, dResults[0], tape);
}

} // namespace mlir::tfl::autodiff
