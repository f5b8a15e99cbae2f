//===- ControlFlow.cpp - The reverse of ifs and loops, and their tapes ----===//
//
// scf.if's pullback is an scf.if on the same condition; scf.for's and
// scf.while's are loops over their iterations in reverse, each reading the
// state its iteration started from back off the vjp's tape, recomputing
// the iteration and pulling its carried values' cotangents back through
// it.
//
//===----------------------------------------------------------------------===//

#include "VjpBuilder.h"

namespace mlir::tfl::autodiff {

namespace {

/// Marks the op computing `ran` (an i1, or the 0-d tensor it was read out
/// of) with kIterationRanAttr, for vmap.
void markIterationRan(OpBuilder &b, Value ran) {
  if (auto extract = ran.getDefiningOp<tensor::ExtractOp>())
    ran = extract.getTensor();
  if (Operation *def = ran.getDefiningOp())
    def->setAttr(kIterationRanAttr, b.getUnitAttr());
}

/// The value of an integer or index `v` when it is known when compiling:
/// a constant, a 0-d constant tensor's element, or what the folders of the
/// arith ops computing it from such values give (MLIRGen's trip count of
/// `range(3)`, before canonicalization has run).
std::optional<int64_t> knownInt(Value v, int depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16 || def->getNumResults() != 1)
    return std::nullopt;
  if (auto extract = dyn_cast<tensor::ExtractOp>(def)) {
    DenseIntElementsAttr dense;
    if (extract.getIndices().empty() &&
        matchPattern(extract.getTensor(), m_Constant(&dense)) &&
        dense.isSplat())
      return dense.getSplatValue<APInt>().getSExtValue();
    return std::nullopt;
  }
  if (!isa<arith::ArithDialect>(def->getDialect()))
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> k = knownInt(operand, depth + 1);
    if (!k || !operand.getType().isIntOrIndex())
      return std::nullopt;
    operands.push_back(IntegerAttr::get(operand.getType(), *k));
  }
  SmallVector<OpFoldResult> folded;
  if (failed(def->fold(operands, folded)) || folded.size() != 1)
    return std::nullopt;
  // A folder may give one of the operands (x - 0 is x).
  if (auto same = dyn_cast<Value>(folded.front()))
    return same == v ? std::nullopt : knownInt(same, depth + 1);
  auto attr = dyn_cast<IntegerAttr>(cast<Attribute>(folded.front()));
  return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
}

} // namespace

void VjpBuilder::finishReverseLoop(OpBuilder &b, OpBuilder &rb,
                                   scf::ForOp reverse, ArrayRef<Value> states,
                                   ArrayRef<Value> inits,
                                   ArrayRef<Value> outside,
                                   DenseMap<Value, Value> &iterationAdjoint,
                                   DenseMap<Value, Value> &adjoint, Value ran) {
  Location loc = reverse.getLoc();
  ValueRange carriedIn = reverse.getRegionIterArgs();
  SmallVector<Value> yields;
  for (Value state : states) {
    Value d = iterationAdjoint.lookup(state);
    yields.push_back(d ? d : zerosOf(rb, loc, state.getType()));
  }
  for (auto [k, v] : llvm::enumerate(outside)) {
    Value sum = carriedIn[states.size() + k];
    if (Value d = iterationAdjoint.lookup(v))
      sum = AddOp::create(rb, loc, d.getType(), sum, d);
    yields.push_back(sum);
  }
  if (ran) {
    auto pick = scf::IfOp::create(rb, loc, ValueRange(yields).getTypes(), ran,
                                  /*withElseRegion=*/true);
    OpBuilder thenB = OpBuilder::atBlockEnd(pick.thenBlock());
    scf::YieldOp::create(thenB, loc, yields);
    OpBuilder elseB = OpBuilder::atBlockEnd(pick.elseBlock());
    scf::YieldOp::create(elseB, loc, ValueRange(carriedIn));
    yields.assign(pick.getResults().begin(), pick.getResults().end());
  }
  scf::YieldOp::create(rb, loc, yields);
  for (auto [k, init] : llvm::enumerate(inits))
    if (active.contains(init))
      accumulate(b, adjoint, init, reverse.getResult(k), loc);
  for (auto [k, v] : llvm::enumerate(outside))
    accumulate(b, adjoint, v, reverse.getResult(states.size() + k), loc);
}

void VjpBuilder::readIteration(OpBuilder &rb, Location loc, Operation *op,
                               Block &start, size_t first, Value m,
                               IRMapping &local) {
  LoopTape tape = loopTape.lookup(op);
  Type i64 = rb.getI64Type();
  Value firstEntry = arith::AddIOp::create(
      rb, loc, tape.start,
      arith::MulIOp::create(rb, loc, m,
                            i64Constant(rb, loc, tape.perIteration)));
  int64_t k = 0;
  auto read = [&](Type type) -> Value {
    Value position =
        arith::AddIOp::create(rb, loc, firstEntry, i64Constant(rb, loc, k++));
    return TapeReadOp::create(rb, loc, type, position, ownTape);
  };
  if (tape.draws)
    SetRandomStateOp::create(rb, loc, read(randomStateType(rb)));
  for (int64_t lower : tape.lower) {
    Value cursor = read(RankedTensorType::get({}, i64));
    TapeRewindOp::create(
        rb, loc, tensor::ExtractOp::create(rb, loc, cursor, ValueRange{}),
        lower, /*release=*/false);
  }
  for (BlockArgument arg : start.getArguments().drop_front(first))
    local.map(arg, read(arg.getType()));
}

scf::ForOp VjpBuilder::reverseLoop(OpBuilder &b, Location loc, Value n,
                                   ValueRange inits) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, n, one, inits);
  // Without carried values the body comes with its yield; finishReverseLoop
  // makes it.
  if (loop.getBody()->mightHaveTerminator())
    loop.getBody()->getTerminator()->erase();
  return loop;
}

void VjpBuilder::seedCarried(OpBuilder &rb, Location loc, Block &body,
                             ArrayRef<unsigned> carried, ValueRange carriedIn,
                             DenseMap<Value, Value> &adjoint) {
  for (auto [k, i] : llvm::enumerate(carried)) {
    Value yielded = body.getTerminator()->getOperand(i);
    if (active.contains(yielded))
      accumulate(rb, adjoint, yielded, carriedIn[k], loc);
  }
}

Value VjpBuilder::recordedIterations(OpBuilder &b, Location loc,
                                     Operation *op) {
  LoopTape tape = loopTape.lookup(op);
  Value recorded = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tape.end, tape.start),
      i64Constant(b, loc, tape.perIteration));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), recorded);
}

LogicalResult VjpBuilder::reverseFor(OpBuilder &b, scf::ForOp op,
                                     IRMapping &map, ArrayRef<Value> dResults,
                                     DenseMap<Value, Value> &adjoint) {
  Location loc = op.getLoc();
  Block &body = *op.getBody();
  // Carried cotangents: those of the active carried values, then those of
  // the active values the body reads from outside.
  SmallVector<unsigned> carried;
  for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs()))
    if (active.contains(arg))
      carried.push_back(i);
  SmallVector<Value> outside = activeUsedAbove(op);
  SmallVector<Value> inits;
  for (unsigned i : carried)
    inits.push_back(dResults[i] ? dResults[i]
                                : zerosOf(b, loc, op.getResult(i).getType()));
  for (Value v : outside)
    inits.push_back(zerosOf(b, loc, v.getType()));

  // j = 0 .. n-1 visits iteration lb + (n - 1 - j) * step.
  bool draws = drawsRandom(op);
  Value now =
      draws ? RandomStateOp::create(b, loc, randomStateType(b)) : Value();
  Value lb = map.lookup(op.getLowerBound()),
        ub = map.lookup(op.getUpperBound());
  Value step = map.lookup(op.getStep());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value n = arith::MaxSIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, span, step), zero);
  // A range not known when compiling may differ per example under vmap,
  // which runs every example's loop as long as the longest: the reverse
  // loop visits the iterations the forward copy recorded, and passes those
  // past an example's own range through (`ran`).
  bool known = llvm::all_of(op->getOperands().take_front(3),
                            [](Value v) { return knownInt(v).has_value(); });
  Value count = known ? n : recordedIterations(b, loc, op);
  scf::ForOp reverse = reverseLoop(b, loc, count, inits);
  Block *rbody = reverse.getBody();
  OpBuilder rb = OpBuilder::atBlockBegin(rbody);
  Value last = arith::SubIOp::create(
      rb, loc,
      arith::SubIOp::create(rb, loc, count,
                            arith::ConstantIndexOp::create(rb, loc, 1)),
      reverse.getInductionVar());
  Value ran;
  if (!known) {
    ran = arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::slt, last, n);
    markIterationRan(rb, ran);
  }
  Value iv = arith::AddIOp::create(rb, loc, lb,
                                   arith::MulIOp::create(rb, loc, last, step));
  IRMapping local = map;
  local.map(op.getInductionVar(), iv);
  // What this iteration started from.
  Value start = loopTape.lookup(op).start;
  readIteration(rb, loc, op, body, /*first=*/1,
                arith::IndexCastOp::create(rb, loc, rb.getI64Type(), last),
                local);
  if (failed(cloneForward(rb, body, local, /*recompute=*/true)))
    return failure();
  DenseMap<Value, Value> iterationAdjoint;
  seedCarried(rb, loc, body, carried, reverse.getRegionIterArgs(),
              iterationAdjoint);
  if (failed(reverseBlock(rb, body, local, iterationAdjoint)))
    return failure();
  SmallVector<Value> carriedArgs, carriedInits;
  for (unsigned i : carried) {
    carriedArgs.push_back(op.getRegionIterArgs()[i]);
    carriedInits.push_back(op.getInitArgs()[i]);
  }
  finishReverseLoop(b, rb, reverse, carriedArgs, carriedInits, outside,
                    iterationAdjoint, adjoint, ran);
  TapeRewindOp::create(b, loc, start, ownTape, /*release=*/true);
  if (draws)
    SetRandomStateOp::create(b, loc, now);
  return success();
}

LogicalResult VjpBuilder::reverseWhile(OpBuilder &b, scf::WhileOp op,
                                       IRMapping &map, ArrayRef<Value> dResults,
                                       DenseMap<Value, Value> &adjoint) {
  Location loc = op.getLoc();
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  auto condition = op.getConditionOp();
  size_t numState = before.getNumArguments();
  if (numState == 0)
    return op.emitError("differentiating a loop that carries no values is "
                        "not supported");
  SmallVector<unsigned> carried;
  for (auto [i, arg] : llvm::enumerate(before.getArguments()))
    if (active.contains(arg))
      carried.push_back(i);
  SmallVector<Value> outside = activeUsedAbove(op);
  bool draws = drawsRandom(op);
  Value now =
      draws ? RandomStateOp::create(b, loc, randomStateType(b)) : Value();

  // The `before` executions the forward copy pushed.
  LoopTape tape = loopTape.lookup(op);
  Type i64 = b.getI64Type();
  Value executions = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tape.end, tape.start),
      i64Constant(b, loc, tape.perIteration));
  Value iterations =
      arith::SubIOp::create(b, loc, executions, i64Constant(b, loc, 1));

  // 1. The last `before` execution: the exit test, forwarding the results.
  FailureOr<SmallVector<Value>> inits =
      reverseExitTest(b, op, map, dResults, carried, outside, iterations);
  if (failed(inits))
    return failure();

  // 2. The iterations, last first: after, then the before that led to it.
  // Iteration j of the reverse loop runs after `iterations - 1 - j`.
  Value n = arith::IndexCastOp::create(b, loc, b.getIndexType(), iterations);
  scf::ForOp reverse = reverseLoop(b, loc, n, *inits);
  OpBuilder rb = OpBuilder::atBlockBegin(reverse.getBody());
  IRMapping local = map;
  Value m = arith::SubIOp::create(
      rb, loc,
      arith::SubIOp::create(rb, loc, iterations, i64Constant(rb, loc, 1)),
      arith::IndexCastOp::create(rb, loc, i64, reverse.getInductionVar()));
  readIteration(rb, loc, op, before, /*first=*/0, m, local);
  if (failed(cloneForward(rb, before, local, /*recompute=*/true)))
    return failure();
  // Whether the iteration ran: its `before` held (always, but where vmap
  // ran an example's loop on after its own exit).
  Value ran = local.lookupOrDefault(condition.getCondition());
  markIterationRan(rb, ran);
  for (auto [fwd, arg] : llvm::zip(condition.getArgs(), after.getArguments()))
    local.map(arg, local.lookupOrDefault(fwd));
  if (failed(cloneForward(rb, after, local, /*recompute=*/true)))
    return failure();
  DenseMap<Value, Value> iterationAdjoint;
  seedCarried(rb, loc, after, carried, reverse.getRegionIterArgs(),
              iterationAdjoint);
  if (failed(reverseBlock(rb, after, local, iterationAdjoint)))
    return failure();
  for (auto [fwd, arg] : llvm::zip(condition.getArgs(), after.getArguments()))
    if (Value d = iterationAdjoint.lookup(arg); d && active.contains(fwd))
      accumulate(rb, iterationAdjoint, fwd, d, loc);
  if (failed(reverseBlock(rb, before, local, iterationAdjoint)))
    return failure();
  SmallVector<Value> states, initValues;
  for (unsigned i : carried) {
    states.push_back(before.getArgument(i));
    initValues.push_back(op.getInits()[i]);
  }
  finishReverseLoop(b, rb, reverse, states, initValues, outside,
                    iterationAdjoint, adjoint, ran);
  TapeRewindOp::create(b, loc, tape.start, ownTape, /*release=*/true);
  if (draws)
    SetRandomStateOp::create(b, loc, now);
  return success();
}

FailureOr<SmallVector<Value>> VjpBuilder::reverseExitTest(
    OpBuilder &b, scf::WhileOp op, IRMapping &map, ArrayRef<Value> dResults,
    ArrayRef<unsigned> carried, ArrayRef<Value> outside, Value iterations) {
  Location loc = op.getLoc();
  Block &before = op.getBefore().front();
  IRMapping last = map;
  readIteration(b, loc, op, before, /*first=*/0, iterations, last);
  if (failed(cloneForward(b, before, last, /*recompute=*/true)))
    return failure();
  DenseMap<Value, Value> lastAdjoint;
  for (auto [fwd, d] : llvm::zip(op.getConditionOp().getArgs(), dResults))
    if (d && active.contains(fwd))
      accumulate(b, lastAdjoint, fwd, d, loc);
  if (failed(reverseBlock(b, before, last, lastAdjoint)))
    return failure();
  // The reverse loop starts from the cotangents of that `before`'s state
  // and of the outside values it read (zeros where none).
  SmallVector<Value> inits;
  for (unsigned i : carried)
    inits.push_back(before.getArgument(i));
  llvm::append_range(inits, outside);
  for (Value &v : inits) {
    Value d = lastAdjoint.lookup(v);
    v = d ? d : zerosOf(b, loc, v.getType());
  }
  return inits;
}

LogicalResult VjpBuilder::reverseIf(OpBuilder &b, scf::IfOp op, IRMapping &map,
                                    ArrayRef<Value> dResults,
                                    DenseMap<Value, Value> &adjoint) {
  // The active values the branches read from outside: their cotangents
  // are the reverse if's results.
  SmallVector<Value> outside = activeUsedAbove(op);
  if (outside.empty())
    return success();
  SmallVector<Type> types;
  for (Value v : outside)
    types.push_back(v.getType());
  Location loc = op.getLoc();
  // The branches run again with the draws they made, pushing at the
  // positions they pushed at.
  Value now;
  if (Value state = randomBefore.lookup(op))
    now = replayRandom(b, loc, state);
  for (auto [tape, cursor] : tapesBefore.lookup(op))
    TapeRewindOp::create(b, loc, cursor, tape, /*release=*/false);
  auto reverse = scf::IfOp::create(b, loc, types, map.lookup(op.getCondition()),
                                   /*withElseRegion=*/true);
  for (unsigned i = 0; i < 2; ++i) {
    Block &forward = op->getRegion(i).front();
    Block &target = reverse->getRegion(i).front();
    OpBuilder rb = OpBuilder::atBlockEnd(&target);
    // Recompute the branch, then pull back from what it yielded.
    IRMapping local = map;
    if (failed(cloneForward(rb, forward, local, /*recompute=*/true)))
      return failure();
    DenseMap<Value, Value> branchAdjoint;
    for (auto [v, d] :
         llvm::zip(forward.getTerminator()->getOperands(), dResults))
      if (d && active.contains(v))
        accumulate(rb, branchAdjoint, v, d, loc);
    if (failed(reverseBlock(rb, forward, local, branchAdjoint)))
      return failure();
    SmallVector<Value> yields;
    for (Value v : outside) {
      Value d = branchAdjoint.lookup(v);
      yields.push_back(d ? d : zerosOf(rb, loc, v.getType()));
    }
    scf::YieldOp::create(rb, loc, yields);
  }
  if (now)
    SetRandomStateOp::create(b, loc, now);
  for (auto [v, d] : llvm::zip(outside, reverse.getResults()))
    accumulate(b, adjoint, v, d, loc);
  return success();
}

} // namespace mlir::tfl::autodiff
