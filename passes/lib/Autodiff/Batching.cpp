//===- Batching.cpp - vmap: functions mapped over a batch dim -------------===//
//
// A `tfl.vmap @f(args) {in_axes, out_axes}` becomes a call of `f.vmap`, a
// copy of f in which every value that differs per example has the batch
// dim first (BatchBuilder.h). The batch dims of the arguments are moved
// first before the call and those of the results to `out_axes` after it.
// vmaps are expanded with the grads, jvps and Jacobians, innermost first,
// so vmap(grad(f)) batches f's generated gradient (per-example gradients)
// and grad(vmap(f)) differentiates the batched function.
//
//===----------------------------------------------------------------------===//

#include "BatchBuilder.h"

namespace mlir::tfl::autodiff {

namespace {

/// The name of `op` as the language spells it: `print`, not `tfl.print`.
std::string opName(Operation *op) {
  StringRef name = op->getName().getStringRef();
  name.consume_front("tfl.");
  return name.str();
}

/// `v` with its dim `from` moved to `to`.
Value moveDim(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to) {
  if (from == to)
    return v;
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != from)
      perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  return ReverseBuilder(b, loc).transpose(v, perm);
}

/// An scf.while of `types` on `inits` with empty regions (its builder
/// adds a block to each).
scf::WhileOp emptyWhile(OpBuilder &b, Location loc, TypeRange types,
                        ValueRange inits) {
  OperationState state(loc, scf::WhileOp::getOperationName());
  state.addOperands(inits);
  state.addTypes(types);
  state.addRegion();
  state.addRegion();
  return cast<scf::WhileOp>(b.create(state));
}

/// Whether any of a batch's conditions (an i1 [size] tensor) holds, as an
/// i1 scalar: the sum of them is positive.
Value anyHolds(OpBuilder &b, Location loc, Value holds) {
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  auto counts = cast<RankedTensorType>(holds.getType()).clone(b.getF32Type());
  Value count =
      ReduceSumOp::create(b, loc, f32, CastOp::create(b, loc, counts, holds),
                          b.getDenseI64ArrayAttr(0), b.getBoolAttr(false));
  ReverseBuilder r(b, loc);
  return tensor::ExtractOp::create(b, loc, r.gt(count, r.scalar(count, 0.0)),
                                   ValueRange{});
}

/// True when every value `f` makes or takes has static dims.
bool allStatic(func::FuncOp f) {
  auto isStatic = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return !tensor || tensor.hasStaticShape();
  };
  if (!llvm::all_of(f.getArgumentTypes(), isStatic))
    return false;
  WalkResult r = f.walk([&](Operation *op) {
    return llvm::all_of(op->getResultTypes(), isStatic)
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

} // namespace

SmallVector<Value> BatchBuilder::mappedAs(OpBuilder &b, Location loc,
                                          ValueRange values,
                                          ArrayRef<bool> toBatch,
                                          IRMapping &map) {
  SmallVector<Value> out;
  for (auto [v, on] : llvm::zip(values, toBatch)) {
    Value copy = map.lookupOrDefault(v);
    if (on && !isBatched(copy)) {
      copy = broadcastToBatch(b, loc, copy, size);
      batched.insert(copy);
    }
    out.push_back(copy);
  }
  return out;
}

void BatchBuilder::discard(Block *block) {
  for (Value v : block->getArguments())
    batched.erase(v);
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
    discard(&op);
  block->erase();
}

void BatchBuilder::forget(Operation *op) {
  op->walk([&](Operation *inner) {
    for (Value v : inner->getResults())
      batched.erase(v);
    for (Region &region : inner->getRegions())
      for (Block &block : region)
        for (Value v : block.getArguments())
          batched.erase(v);
  });
}

void BatchBuilder::discard(Operation *op) {
  forget(op);
  op->erase();
}

Block *BatchBuilder::blockCopy(Region &to, Block &from, TypeRange types,
                               ArrayRef<bool> on, IRMapping &map) {
  auto *block = new Block;
  to.push_back(block);
  for (auto [arg, type, batch] : llvm::zip(from.getArguments(), types, on)) {
    Value copy = block->addArgument(type, arg.getLoc());
    map.map(arg, copy);
    if (batch)
      batched.insert(copy);
  }
  return block;
}

bool BatchBuilder::readsBatched(Operation &op, IRMapping &map) {
  for (Value v : op.getOperands())
    if (isBatched(map.lookupOrDefault(v)))
      return true;
  bool found = false;
  for (Region &region : op.getRegions())
    visitUsedValuesDefinedAbove(region, [&](OpOperand *use) {
      found |= isBatched(map.lookupOrDefault(use->get()));
    });
  // A region reading or storing on a tape that holds batched entries
  // (a reverse loop reading the states its forward loop stored) goes op by
  // op too; one that does not is copied as it is, an unbatched use of the
  // tapes it touches (a batched store after it builds the function again).
  SmallVector<std::pair<int64_t, bool>> touched;
  op.walk([&](Operation *inner) {
    if (auto tape = inner->getAttrOfType<IntegerAttr>("tape"))
      touched.push_back(
          {tape.getInt(), isa<TapeAddOp, TapeAccumulatedOp>(inner)});
  });
  for (auto [tape, sums] : touched)
    found |= (sums ? tapes.sums : tapes.entries).contains(tape);
  if (!found)
    for (auto [tape, sums] : touched)
      tapes.usedUnbatched.insert(tape);
  return found;
}

FailureOr<BatchBuilder::Batched>
BatchBuilder::batchedOf(func::FuncOp f, ArrayRef<bool> mask, int64_t n) {
  std::string suffix;
  for (bool on : mask)
    suffix += on ? '1' : '0';
  auto key = std::make_tuple(f.getOperation(), suffix, n);
  auto it = built.find(key);
  if (it != built.end())
    return it->second;
  if (!f.getBody().hasOneBlock())
    return f.emitError("vmap needs a function of one block");
  if (!allStatic(f))
    return f.emitError("vmap of a function with dims known only at run time "
                       "is not supported yet");
  // A callee's batched function is built in the middle of its caller's.
  int64_t outerSize = size;
  size = n;
  auto restore = llvm::scope_exit([&] { size = outerSize; });

  FunctionType type = f.getFunctionType();
  SmallVector<Type> inputs;
  for (auto [t, on] : llvm::zip(type.getInputs(), mask))
    inputs.push_back(typeAs(t, on));
  OpBuilder b(module.getContext());
  b.setInsertionPointAfter(f);
  auto fn = func::FuncOp::create(
      b, f.getLoc(),
      (f.getSymName() + ".vmap" + std::to_string(n) + "_" + suffix).str(),
      b.getFunctionType(inputs, type.getResults()));
  fn.setPrivate();
  if (f->hasAttr("tfl.checkpoint")) // a reverse over it recomputes the batch
    fn->setAttr("tfl.checkpoint", b.getUnitAttr());
  symbols.insert(fn);
  Block &body = f.getBody().front();
  // A function's tapes are its own (its frame): built again, with what
  // was learned of them, until none becomes batched after an unbatched
  // use.
  Tapes outerTapes = std::move(tapes);
  tapes = Tapes();
  auto restoreTapes = llvm::scope_exit([&] { tapes = std::move(outerTapes); });
  IRMapping map;
  do {
    if (!fn.getBody().empty())
      discard(&fn.getBody().front());
    tapes.again = false;
    tapes.usedUnbatched.clear();
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    map.clear();
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      map.map(arg, entry->getArgument(i));
      if (mask[i])
        batched.insert(entry->getArgument(i));
    }
    if (failed(batchBlock(b, body, map)))
      return failure();
  } while (tapes.again);
  Operation *ret = body.getTerminator();
  Batched result{fn, {}};
  SmallVector<Value> values;
  SmallVector<Type> types;
  for (Value v : ret->getOperands()) {
    Value copy = map.lookupOrDefault(v);
    result.results.push_back(isBatched(copy));
    values.push_back(copy);
    types.push_back(copy.getType());
  }
  func::ReturnOp::create(b, ret->getLoc(), values);
  fn.setFunctionType(b.getFunctionType(inputs, types));
  built[key] = result;
  if (hasCustomRule(f)) {
    // (batchRule may batch the rule on a trial, which restores `built`:
    // no reference into it lives across the call.)
    if (failed(batchRule(f, result, mask)))
      return failure();
    built[key] = result;
  }
  return result;
}

FailureOr<BatchBuilder::Batched>
BatchBuilder::tryBatchedOf(func::FuncOp f, ArrayRef<bool> mask, int64_t n) {
  DenseSet<Operation *> before;
  for (auto fn : module.getOps<func::FuncOp>())
    before.insert(fn);
  auto builtBefore = built;
  FailureOr<Batched> result = failure();
  {
    ScopedDiagnosticHandler quiet(module.getContext(),
                                  [](Diagnostic &) { return success(); });
    result = batchedOf(f, mask, n);
  }
  if (succeeded(result))
    return result;
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!before.contains(fn)) {
      forget(fn);
      symbols.erase(fn);
    }
  built = std::move(builtBefore);
  return failure();
}

LogicalResult BatchBuilder::batchBlock(OpBuilder &b, Block &block,
                                       IRMapping &map, Value mask) {
  // A masked loop's body runs for the examples `mask` holds for; a reverse
  // loop's test of whether its iteration ran narrows them until its block
  // ends.
  Value outer = activeMask;
  auto restore = llvm::scope_exit([&] { activeMask = outer; });
  if (mask)
    narrowActive(b, block.getParentOp()->getLoc(), mask);
  for (Operation &op : block.without_terminator())
    if (failed(batchOp(b, op, map)))
      return failure();
  return success();
}

LogicalResult BatchBuilder::batchBarrier(OpBuilder &b, Operation &op,
                                         ArrayRef<Value> operands,
                                         ArrayRef<bool> operandBatched,
                                         IRMapping &map) {
  auto barrier = OptimizationBarrierOp::create(b, op.getLoc(), operands);
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    if (operandBatched[i])
      batched.insert(barrier.getResult(i));
    map.map(r, barrier.getResult(i));
  }
  return success();
}

LogicalResult BatchBuilder::batchOp(OpBuilder &b, Operation &op,
                                    IRMapping &map) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return batchIf(b, ifOp, map);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return batchFor(b, forOp, map);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return batchWhile(b, whileOp, map);
  if (op.hasAttr("tape"))
    return batchTapeOp(b, op, map);
  if (!readsBatched(op, map)) {
    b.clone(op, map);
    return success();
  }
  if (auto call = dyn_cast<func::CallOp>(op))
    return batchCall(b, call, map);
  Location loc = op.getLoc();
  SmallVector<Value> operands;
  SmallVector<bool> operandBatched;
  for (Value v : op.getOperands()) {
    operands.push_back(map.lookupOrDefault(v));
    operandBatched.push_back(isBatched(operands.back()));
  }
  if (isa<OptimizationBarrierOp>(op))
    return batchBarrier(b, op, operands, operandBatched, map);
  if (isa<SliceOp, EmbedSliceOp, GatherOp, ScatterAddOp>(op))
    maskIndices(b, loc, operands);
  if (std::optional<LogicalResult> plumbed =
          batchScalarPlumbing(b, op, operands, operandBatched, map))
    return *plumbed;
  SmallVector<Value> results;
  OnDeviceOf onDevice(b, op);
  if (auto filter = dyn_cast<Conv2DBackwardFilterOp>(op)) {
    map.map(filter.getResult(),
            filterGradients(b, filter, operands, operandBatched));
    return success();
  }
  if (op.hasTrait<OpTrait::Elementwise>()) {
    batchElementwise(b, &op, operands, operandBatched, size, results);
  } else if (auto rule = dyn_cast<BatchOpInterface>(op)) {
    if (failed(rule.batch(b, operands, operandBatched, size, results)))
      return failure();
  } else if (isa_and_nonnull<TflDialect>(op.getDialect())) {
    return op.emitError("vmap cannot batch ")
           << opName(&op) << " of a value that differs per example";
  } else if (FailureOr<Value> scalar = batchScalarOp(b, op, operands);
             succeeded(scalar)) {
    results.push_back(*scalar);
  } else {
    return op.emitError("vmap: scalar arithmetic on a value that differs "
                        "per example (")
           << op.getName() << ") is not supported yet";
  }
  for (auto [r, v] : llvm::zip(op.getResults(), results)) {
    batched.insert(v);
    map.map(r, v);
  }
  // A reverse loop's test of whether its iteration ran: the rest of the
  // loop's body runs for the examples where it holds.
  if (op.hasAttr(kIterationRanAttr) && results.size() == 1 &&
      cast<RankedTensorType>(results[0].getType()).getRank() == 1)
    narrowActive(b, loc, results[0]);
  return success();
}

LogicalResult BatchBuilder::batchTapeOp(OpBuilder &b, Operation &op,
                                        IRMapping &map) {
  Value stored = storedOnTape(op);
  for (Value v : op.getOperands())
    if (v != stored && isBatched(map.lookupOrDefault(v)))
      return op.emitError("vmap: a gradient's loop reads its record at a "
                          "position that differs per example");
  int64_t tape = op.getAttrOfType<IntegerAttr>("tape").getInt();
  // Entries go to the tape's entries; tape_add's to its accumulators.
  bool sums = isa<TapeAddOp, TapeAccumulatedOp>(op);
  DenseSet<int64_t> &held = sums ? tapes.sums : tapes.entries;
  Operation *copy = b.clone(op, map);
  if (stored) {
    Value v = map.lookupOrDefault(stored);
    if (isBatched(v) && held.insert(tape).second &&
        tapes.usedUnbatched.contains(tape))
      tapes.again = true;
    if (!held.contains(tape)) {
      tapes.usedUnbatched.insert(tape);
      return success();
    }
    if (!isBatched(v)) {
      OpBuilder before(copy);
      v = broadcastToBatch(before, op.getLoc(), v, size);
    }
    copy->setOperand(copy->getNumOperands() - 1, v);
    return success();
  }
  if (!isa<TapeReadOp, TapeAccumulatedOp>(op))
    return success();
  if (!held.contains(tape)) {
    tapes.usedUnbatched.insert(tape);
    return success();
  }
  Value r = copy->getResult(0);
  r.setType(batchedType(r.getType(), size));
  batched.insert(r);
  map.map(op.getResult(0), r);
  return success();
}

Value BatchBuilder::filterGradients(OpBuilder &b, Conv2DBackwardFilterOp op,
                                    ArrayRef<Value> operands,
                                    ArrayRef<bool> operandBatched) {
  Location loc = op.getLoc();
  ReverseBuilder r(b, loc);
  SmallVector<Value> both;
  for (auto [v, on] : llvm::zip(operands, operandBatched))
    both.push_back(on ? v : broadcastToBatch(b, loc, v, size));
  RankedTensorType filterType = op.getType();
  auto type = batchedType(filterType, size);
  Value zeros = zerosOf(b, loc, type);
  Value lb = arith::ConstantIndexOp::create(b, loc, 0);
  Value ub = arith::ConstantIndexOp::create(b, loc, size);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, ValueRange{zeros});
  OpBuilder inner = OpBuilder::atBlockBegin(loop.getBody());
  if (!loop.getBody()->empty() && loop.getBody()->mightHaveTerminator())
    inner.setInsertionPoint(loop.getBody()->getTerminator());
  ReverseBuilder ri(inner, loc);
  Value index = arith::IndexCastOp::create(inner, loc, inner.getI64Type(),
                                           loop.getInductionVar());
  Value n = tensor::FromElementsOp::create(
      inner, loc, RankedTensorType::get({}, inner.getI64Type()), index);
  // Example n's images and output cotangents, its filter's gradient,
  // added into row n of the batch's.
  auto example = [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> starts(t.getRank(), 0), strides(t.getRank(), 1);
    starts[0] = ShapedType::kDynamic;
    SmallVector<int64_t> one(t.getShape());
    one[0] = 1;
    Value slice = SliceOp::create(inner, loc, t.clone(one), v, ValueRange{n},
                                  inner.getDenseI64ArrayAttr(starts),
                                  inner.getDenseI64ArrayAttr(strides));
    return ri.reshape(slice, t.getShape().drop_front());
  };
  Value w = Conv2DBackwardFilterOp::create(
      inner, loc, filterType, example(both[0]), example(both[1]),
      op.getStridesAttr(), op.getPaddingAttr());
  SmallVector<int64_t> starts(type.getRank(), 0), strides(type.getRank(), 1);
  starts[0] = ShapedType::kDynamic;
  Value row = EmbedSliceOp::create(
      inner, loc, type, ri.reshape(w, batchedType(filterType, 1).getShape()),
      ValueRange{n}, inner.getDenseI64ArrayAttr(starts),
      inner.getDenseI64ArrayAttr(strides));
  Value sum = ri.add(loop.getRegionIterArgs()[0], row);
  if (!loop.getBody()->empty() && loop.getBody()->mightHaveTerminator())
    loop.getBody()->getTerminator()->setOperands(sum);
  else
    scf::YieldOp::create(inner, loc, sum);
  Value result = loop.getResult(0);
  batched.insert(result);
  return result;
}

LogicalResult BatchBuilder::batchCall(OpBuilder &b, func::CallOp op,
                                      IRMapping &map) {
  auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
  if (!callee)
    return op.emitError("unknown function @") << op.getCallee();
  SmallVector<Value> operands;
  SmallVector<bool> mask;
  for (Value v : op.getOperands()) {
    operands.push_back(map.lookupOrDefault(v));
    mask.push_back(isBatched(operands.back()));
  }
  FailureOr<Batched> fn = batchedOf(callee, mask, size);
  if (failed(fn))
    return failure();
  auto call = func::CallOp::create(b, op.getLoc(), fn->fn, operands);
  for (auto [r, copy, on] :
       llvm::zip(op.getResults(), call.getResults(), fn->results)) {
    map.map(r, copy);
    if (on)
      batched.insert(copy);
  }
  return success();
}

LogicalResult BatchBuilder::batchIf(OpBuilder &b, scf::IfOp op,
                                    IRMapping &map) {
  if (!readsBatched(*op, map)) {
    b.clone(*op, map);
    return success();
  }
  Value condition = map.lookupOrDefault(op.getCondition());
  if (isBatched(condition))
    return selectBranches(b, op, condition, map);
  // The branches as they are; a result batched in either is batched.
  Location loc = op.getLoc();
  auto copy = scf::IfOp::create(b, loc, op.getResultTypes(), condition,
                                /*addThenBlock=*/false,
                                /*addElseBlock=*/false);
  auto erase = llvm::scope_exit([&] { discard(copy); });
  SmallVector<Block *> blocks;
  for (auto [from, to] : llvm::zip(op->getRegions(), copy->getRegions())) {
    if (from.empty())
      continue;
    Block *block = b.createBlock(&to);
    blocks.push_back(block);
    OpBuilder inner = OpBuilder::atBlockEnd(block);
    if (failed(batchBlock(inner, from.front(), map)))
      return failure();
  }
  size_t numResults = op.getNumResults();
  SmallVector<bool> resultBatched(numResults, false);
  for (Region &from : op->getRegions())
    if (!from.empty())
      for (auto [i, v] :
           llvm::enumerate(from.front().getTerminator()->getOperands()))
        resultBatched[i] =
            resultBatched[i] || isBatched(map.lookupOrDefault(v));
  SmallVector<Type> types;
  for (auto [t, on] : llvm::zip(op.getResultTypes(), resultBatched))
    types.push_back(typeAs(t, on));
  b.setInsertionPointAfter(copy);
  auto result = scf::IfOp::create(b, loc, types, condition,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
  size_t k = 0;
  for (auto [from, to] : llvm::zip(op->getRegions(), result->getRegions())) {
    if (from.empty())
      continue;
    Block *block = blocks[k++];
    block->moveBefore(&to, to.end());
    OpBuilder inner = OpBuilder::atBlockEnd(block);
    scf::YieldOp::create(inner, loc,
                         mappedAs(inner, loc,
                                  from.front().getTerminator()->getOperands(),
                                  resultBatched, map));
  }
  for (auto [r, copyResult, on] :
       llvm::zip(op.getResults(), result.getResults(), resultBatched)) {
    map.map(r, copyResult);
    if (on)
      batched.insert(copyResult);
  }
  return success();
}

LogicalResult BatchBuilder::selectBranches(OpBuilder &b, scf::IfOp op,
                                           Value condition, IRMapping &map) {
  // Both branches run for every example: they may have no effect beyond
  // their results.
  if (!onlyComputes(op))
    return op.emitError("vmap: an if on a value that differs per example "
                        "runs both branches, and this one's branches do more "
                        "than compute values (print, draw random numbers, "
                        "write files)");
  Location loc = op.getLoc();
  SmallVector<SmallVector<Value>> yields;
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    if (failed(batchBlock(b, region.front(), map)))
      return failure();
    yields.emplace_back();
    for (Value v : region.front().getTerminator()->getOperands())
      yields.back().push_back(map.lookupOrDefault(v));
  }
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    auto type = batchedType(r.getType(), size);
    Value c = alignExamples(b, loc, condition, type.getRank() - 1);
    Value chosen = WhereOp::create(b, loc, type, c, yields[0][i], yields[1][i]);
    batched.insert(chosen);
    map.map(r, chosen);
  }
  return success();
}

LogicalResult BatchBuilder::batchFor(OpBuilder &b, scf::ForOp op,
                                     IRMapping &map) {
  if (!readsBatched(*op, map)) {
    b.clone(*op, map);
    return success();
  }
  if (llvm::any_of(op->getOperands().take_front(3),
                   [&](Value v) { return isBatched(map.lookupOrDefault(v)); }))
    return maskedFor(b, op, map);
  Location loc = op.getLoc();
  size_t numArgs = op.getInitArgs().size();
  SmallVector<bool> carried;
  for (Value v : op.getInitArgs())
    carried.push_back(isBatched(map.lookupOrDefault(v)));
  // A value an iteration makes batched is carried batched: at most one
  // more try per carried value.
  for (size_t attempt = 0; attempt <= numArgs; ++attempt) {
    SmallVector<Value> inits = mappedAs(b, loc, op.getInitArgs(), carried, map);
    auto copy =
        scf::ForOp::create(b, loc, map.lookupOrDefault(op.getLowerBound()),
                           map.lookupOrDefault(op.getUpperBound()),
                           map.lookupOrDefault(op.getStep()), inits);
    Block *body = copy.getBody();
    if (!body->empty() && body->mightHaveTerminator())
      body->getTerminator()->erase();
    map.map(op.getInductionVar(), copy.getInductionVar());
    for (auto [arg, copyArg, on] :
         llvm::zip(op.getRegionIterArgs(), copy.getRegionIterArgs(), carried)) {
      map.map(arg, copyArg);
      if (on)
        batched.insert(copyArg);
    }
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    if (failed(batchBlock(inner, *op.getBody(), map)))
      return failure();
    ValueRange yielded = op.getBody()->getTerminator()->getOperands();
    bool grew = false;
    for (auto [i, v] : llvm::enumerate(yielded))
      if (!carried[i] && isBatched(map.lookupOrDefault(v)))
        carried[i] = grew = true;
    if (grew) {
      discard(copy);
      continue;
    }
    scf::YieldOp::create(inner, loc,
                         mappedAs(inner, loc, yielded, carried, map));
    for (auto [r, copyResult, on] :
         llvm::zip(op.getResults(), copy.getResults(), carried)) {
      map.map(r, copyResult);
      if (on)
        batched.insert(copyResult);
    }
    return success();
  }
  return op.emitError("vmap: the loop's carried values did not settle");
}

LogicalResult BatchBuilder::batchWhile(OpBuilder &b, scf::WhileOp op,
                                       IRMapping &map) {
  if (!readsBatched(*op, map)) {
    b.clone(*op, map);
    return success();
  }
  Location loc = op.getLoc();
  size_t numArgs = op.getInits().size();
  SmallVector<bool> carried;
  for (Value v : op.getInits())
    carried.push_back(isBatched(map.lookupOrDefault(v)));
  for (size_t attempt = 0; attempt <= numArgs; ++attempt) {
    SmallVector<Value> inits = mappedAs(b, loc, op.getInits(), carried, map);
    SmallVector<Type> argTypes(ValueRange(inits).getTypes());
    // The `before` region: the condition, and what it forwards.
    auto copy = emptyWhile(b, loc, TypeRange(argTypes), inits);
    auto erase = llvm::scope_exit([&] {
      if (copy)
        discard(copy);
    });
    // Gives the copy up, `b` where it was.
    auto giveUp = [&] {
      b.setInsertionPointAfter(copy);
      discard(copy);
      copy = nullptr;
    };
    Block *before = blockCopy(copy.getBefore(), op.getBefore().front(),
                              argTypes, carried, map);
    OpBuilder inner = OpBuilder::atBlockEnd(before);
    if (failed(batchBlock(inner, op.getBefore().front(), map)))
      return failure();
    scf::ConditionOp cond = op.getConditionOp();
    if (isBatched(map.lookupOrDefault(cond.getCondition()))) {
      giveUp();
      return maskedWhile(b, op, map);
    }
    bool grew = false;
    SmallVector<bool> forwarded;
    for (Value v : cond.getArgs())
      forwarded.push_back(isBatched(map.lookupOrDefault(v)));
    // The `after` region: the body, on what the condition forwards.
    SmallVector<Type> afterTypes;
    for (auto [t, on] : llvm::zip(op.getResultTypes(), forwarded))
      afterTypes.push_back(typeAs(t, on));
    scf::ConditionOp::create(
        inner, loc, map.lookupOrDefault(cond.getCondition()),
        mappedAs(inner, loc, cond.getArgs(), forwarded, map));
    Block *after = blockCopy(copy.getAfter(), op.getAfter().front(), afterTypes,
                             forwarded, map);
    inner = OpBuilder::atBlockEnd(after);
    if (failed(batchBlock(inner, op.getAfter().front(), map)))
      return failure();
    ValueRange yielded = op.getAfter().front().getTerminator()->getOperands();
    for (auto [i, v] : llvm::enumerate(yielded))
      if (!carried[i] && isBatched(map.lookupOrDefault(v)))
        carried[i] = grew = true;
    if (grew) {
      giveUp();
      continue;
    }
    scf::YieldOp::create(inner, loc,
                         mappedAs(inner, loc, yielded, carried, map));
    // The results are what the condition forwards.
    SmallVector<Type> resultTypes(afterTypes);
    b.setInsertionPointAfter(copy);
    auto result = emptyWhile(b, loc, resultTypes, inits);
    result.getBefore().takeBody(copy.getBefore());
    result.getAfter().takeBody(copy.getAfter());
    for (auto [r, copyResult, on] :
         llvm::zip(op.getResults(), result.getResults(), forwarded)) {
      map.map(r, copyResult);
      if (on)
        batched.insert(copyResult);
    }
    b.setInsertionPointAfter(result);
    return success();
  }
  return op.emitError("vmap: the loop's carried values did not settle");
}

LogicalResult BatchBuilder::maskedWhile(OpBuilder &b, scf::WhileOp op,
                                        IRMapping &map) {
  scf::ConditionOp cond = op.getConditionOp();
  Block &beforeBlock = op.getBefore().front();
  if (cond.getArgs() != ValueRange(beforeBlock.getArguments()))
    return op.emitError("vmap: a while on a value that differs per example "
                        "must carry its state unchanged into its body");
  if (failed(runsPastExit(op, "a while on a value that differs per example",
                          "every example's condition fails")))
    return failure();
  Location loc = op.getLoc();
  size_t numArgs = op.getInits().size();
  SmallVector<bool> all(numArgs, true);
  SmallVector<Value> inits = mappedAs(b, loc, op.getInits(), all, map);
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  auto maskType = RankedTensorType::get({size}, b.getI1Type());
  SmallVector<Type> forwardedTypes(types);
  forwardedTypes.push_back(maskType);
  auto copy = emptyWhile(b, loc, TypeRange(types), inits);
  Block *before = blockCopy(copy.getBefore(), beforeBlock, types, all, map);
  OpBuilder inner = OpBuilder::atBlockEnd(before);
  if (failed(batchBlock(inner, beforeBlock, map)))
    return failure();
  // The examples' conditions go on into the body with their state.
  Value holds = map.lookupOrDefault(cond.getCondition());
  SmallVector<Value> forwarded(before->getArguments());
  forwarded.push_back(holds);
  scf::ConditionOp::create(inner, loc, anyHolds(inner, loc, holds), forwarded);
  Block *after =
      blockCopy(copy.getAfter(), op.getAfter().front(), types, all, map);
  after->addArgument(maskType, loc);
  inner = OpBuilder::atBlockEnd(after);
  if (failed(batchBlock(inner, op.getAfter().front(), map,
                        after->getArguments().back())))
    return failure();
  // An example whose condition failed keeps its state.
  scf::YieldOp::create(
      inner, loc,
      maskedYields(inner, loc,
                   op.getAfter().front().getTerminator()->getOperands(),
                   after->getArguments().back(), after->getArguments(), map));
  b.setInsertionPointAfter(copy);
  auto result = emptyWhile(b, loc, forwardedTypes, inits);
  result.getBefore().takeBody(copy.getBefore());
  result.getAfter().takeBody(copy.getAfter());
  discard(copy);
  for (auto [r, copyResult] : llvm::zip(op.getResults(), result.getResults())) {
    map.map(r, copyResult);
    batched.insert(copyResult);
  }
  b.setInsertionPointAfter(result);
  return success();
}

LogicalResult BatchBuilder::expand(VmapOp vmap) {
  auto callee = symbols.lookup<func::FuncOp>(vmap.getCallee());
  if (!callee)
    return vmap.emitError("unknown function @") << vmap.getCallee();
  OpBuilder b(vmap);
  DeviceMarker marker(vmap->getAttrOfType<StringAttr>(kDeviceAttrName));
  b.setListener(&marker);
  Location loc = vmap.getLoc();
  SmallVector<Value> operands;
  SmallVector<bool> mask;
  int64_t n = 0;
  for (auto [v, axis] : llvm::zip(vmap.getOperands(), vmap.getInAxes())) {
    mask.push_back(axis >= 0);
    if (axis < 0) {
      operands.push_back(v);
      continue;
    }
    n = cast<RankedTensorType>(v.getType()).getDimSize(axis);
    operands.push_back(moveDim(b, loc, v, axis, 0));
  }
  FailureOr<Batched> fn = batchedOf(callee, mask, n);
  if (failed(fn))
    return failure();
  auto call = func::CallOp::create(b, loc, fn->fn, operands);
  SmallVector<Value> results;
  for (auto [v, on, axis] :
       llvm::zip(call.getResults(), fn->results, vmap.getOutAxes())) {
    Value r = on ? v : broadcastToBatch(b, loc, v, n);
    results.push_back(moveDim(b, loc, r, 0, axis));
  }
  vmap.replaceAllUsesWith(results);
  vmap.erase();
  return success();
}

} // namespace mlir::tfl::autodiff
