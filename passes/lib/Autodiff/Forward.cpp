//===- Forward.cpp - Forward-mode autodiff of tfl functions ---------------===//
//
// Builds, for a function `f(x...) -> (y...)`, its Jacobian-vector product
// `f.jvp(x..., tx...) -> (y..., ty...)`: each tangent has its primal's
// type (an integer's is ignored; an integer result's is zeros).
// Algorithm:
//   1. Mark active values as reverse mode does: floats that depend on an
//      active argument.
//   2. Copy f's ops in order; after the copy of an op with an active
//      result, compute its results' tangents from its operands'.
//   3. An op's tangent rule is its pullback transposed. The pullback
//      (ReverseOpInterface), built on placeholder cotangents `dy`, is a
//      small program linear in `dy` giving `dx_i = J_i^T dy`. Reverse mode
//      over that program's ops, seeded with `dx_i`'s cotangents set to the
//      operands' tangents `t_i`, gives at `dy` the sum of `J_i t_i`: the
//      tangent. The pullback's ops that only fed `dx_i` are then dead and
//      erased. So every op with a reverse rule has a forward one, derived
//      and not written twice, and forward mode is exact wherever reverse
//      mode is (the transpose of a linear map is exact).
//   4. scf.if, scf.for and scf.while become the same op with the active
//      values' tangents as extra results (and iteration arguments): the
//      tangents ride along and nothing is kept on a tape.
//   5. A call of a user function becomes a call of the callee's jvp.
// A tape's entries' tangents go on a tape of their own, at the entries'
// positions (pushes and reads of a gradient's loops, for jvp of a grad).
// A `tfl.jvp @f(x..., tx...)` becomes `f.jvp(x..., tx...)`. The pass
// expands grads and jvps innermost first, so `jvp(grad(f))` (the
// Hessian-vector product, forward over reverse) differentiates f's vjp,
// and `grad` of a function calling jvp differentiates its jvp function.
//
//===----------------------------------------------------------------------===//

#include "JvpBuilder.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tfl::autodiff {

FailureOr<func::FuncOp>
JvpBuilder::jvpOf(func::FuncOp f, ArrayRef<bool> differentiated, JvpKind kind) {
  if (failed(checkRuleBatched(f)))
    return failure();
  SmallVector<bool> mask;
  std::string suffix;
  bool all = true;
  for (auto [i, t] : llvm::enumerate(f.getFunctionType().getInputs())) {
    bool on = isFloatTensor(t) && (differentiated.empty() || differentiated[i]);
    mask.push_back(on);
    all &= on || !isFloatTensor(t);
    suffix += on ? '1' : '0';
  }
  bool custom = hasCustomRule(f);
  if (!custom)
    kind = JvpKind::Custom;
  auto key = std::make_tuple(f.getOperation(), static_cast<int>(kind), suffix);
  auto it = jvps.find(key);
  if (it != jvps.end())
    return it->second;
  // A callee's jvp is built in the middle of its caller's.
  auto outer = std::make_tuple(std::move(active), std::move(activeEntries),
                               std::move(activeSums), tangentTapes);
  FailureOr<func::FuncOp> jvp = failure();
  if (custom && kind == JvpKind::Custom)
    jvp = buildCustom(f);
  else if (kind == JvpKind::Full)
    jvp = buildFull(f);
  else {
    // Forward mode transposes pullbacks: an attention's goes through its
    // parts.
    func::FuncOp parts = attentionParts(symbols, f, /*forwardToo=*/true);
    jvp = build(parts,
                (kind == JvpKind::Primal ? ".primal_jvp" : ".jvp") +
                    (all ? std::string() : "." + suffix),
                mask);
    dropAttentionParts(symbols, f, parts, jvp);
  }
  std::tie(active, activeEntries, activeSums, tangentTapes) = std::move(outer);
  if (succeeded(jvp))
    jvps[key] = *jvp;
  return jvp;
}

func::FuncOp JvpBuilder::createJvpFunction(OpBuilder &b, func::FuncOp f,
                                           StringRef suffix) {
  FunctionType type = f.getFunctionType();
  SmallVector<Type> inputs(type.getInputs()), outputs(type.getResults());
  llvm::append_range(inputs, type.getInputs());
  llvm::append_range(outputs, type.getResults());
  b.setInsertionPointAfter(f);
  auto jvp =
      func::FuncOp::create(b, f.getLoc(), (f.getSymName() + suffix).str(),
                           b.getFunctionType(inputs, outputs));
  jvp.setPrivate();
  // A checkpoint's jvp is one too: a reverse over it recomputes both.
  if (f->hasAttr("tfl.checkpoint"))
    jvp->setAttr("tfl.checkpoint", b.getUnitAttr());
  symbols.insert(jvp);
  b.setInsertionPointToStart(jvp.addEntryBlock());
  return jvp;
}

FailureOr<func::FuncOp> JvpBuilder::buildFromTangentRule(func::FuncOp f) {
  auto [rule, tangent, valueLeaves, numTangents] = customRuleOf(symbols, f);
  FunctionType type = f.getFunctionType();
  size_t numArgs = type.getNumInputs(), numResults = type.getNumResults();
  OpBuilder b(module.getContext());
  func::FuncOp jvp = createJvpFunction(b, f, ".jvp");
  Block *entry = &jvp.front();
  Location loc = f.getLoc();
  // The primal (value and residuals), then jvp_fn on the tangents (an
  // integer argument's as zeros) and the residuals.
  auto primal = func::CallOp::create(b, loc, f,
                                     entry->getArguments().take_front(numArgs));
  // (What f captures, after its arguments, is constant to the rule.)
  SmallVector<Value> args;
  for (BlockArgument t :
       entry->getArguments().drop_front(numArgs).take_front(numTangents))
    args.push_back(isFloatTensor(t.getType()) ? Value(t)
                                              : zerosOf(b, loc, t.getType()));
  llvm::append_range(args, primal.getResults().drop_front(valueLeaves));
  auto tangents = func::CallOp::create(b, loc, rule, args);
  SmallVector<Value> results(primal.getResults());
  for (size_t i = 0; i < numResults; ++i)
    results.push_back(i < valueLeaves ? tangents.getResult(i)
                                      : zerosOf(b, loc, type.getResult(i)));
  func::ReturnOp::create(b, loc, results);
  return jvp;
}

FailureOr<func::FuncOp> JvpBuilder::buildCustom(func::FuncOp f) {
  if (f->hasAttr("tfl.custom_tangent"))
    return buildFromTangentRule(f);
  // The rule's vjp g(x, dy) -> (value, residuals, dx) is linear in the
  // value's cotangent dy: reverse mode through g with respect to dy,
  // seeded with dx's cotangent t, gives at dy J t.
  FailureOr<func::FuncOp> rule = reverse.vjpOf(f);
  if (failed(rule))
    return failure();
  FunctionType type = f.getFunctionType();
  size_t numArgs = type.getNumInputs(), numResults = type.getNumResults();
  size_t valueLeaves = customValueLeaves(f);
  SmallVector<bool> onCotangents(numArgs, false);
  for (size_t i = 0; i < numResults; ++i)
    onCotangents.push_back(i < valueLeaves);
  FailureOr<func::FuncOp> transposed =
      reverse.vjpOf(*rule, VjpBuilder::VjpKind::Custom, onCotangents);
  if (failed(transposed))
    return failure();
  OpBuilder b(module.getContext());
  func::FuncOp jvp = createJvpFunction(b, f, ".jvp");
  Block *entry = &jvp.front();
  Location loc = f.getLoc();
  // (x, dy = 0, then the cotangents of g's value, residuals = 0, dx = t)
  SmallVector<Value> args(entry->getArguments().take_front(numArgs));
  for (int round = 0; round < 2; ++round)
    for (Type t : type.getResults())
      args.push_back(zerosOf(b, loc, t));
  llvm::append_range(args, entry->getArguments().drop_front(numArgs));
  auto call = func::CallOp::create(b, loc, *transposed, args);
  SmallVector<Value> results(call.getResults().take_front(numResults));
  size_t dy = numResults + numArgs + numArgs;
  for (size_t i = 0; i < numResults; ++i)
    results.push_back(i < valueLeaves ? call.getResult(dy + i)
                                      : zerosOf(b, loc, type.getResult(i)));
  func::ReturnOp::create(b, loc, results);
  return jvp;
}

FailureOr<func::FuncOp> JvpBuilder::buildFull(func::FuncOp f) {
  FailureOr<func::FuncOp> custom = jvpOf(f, {}, JvpKind::Custom);
  FailureOr<func::FuncOp> primal = jvpOf(f, {}, JvpKind::Primal);
  if (failed(custom) || failed(primal))
    return failure();
  OpBuilder b(module.getContext());
  func::FuncOp jvp = createJvpFunction(b, f, ".full_jvp");
  Block *entry = &jvp.front();
  Location loc = f.getLoc();
  size_t numResults = f.getFunctionType().getNumResults();
  size_t valueLeaves = customValueLeaves(f);
  // Both run f: with the same draws.
  Value start = reverse.drawsRandom(f)
                    ? RandomStateOp::create(b, loc, randomStateType(b))
                    : Value();
  auto withRule = func::CallOp::create(b, loc, *custom, entry->getArguments());
  if (start)
    SetRandomStateOp::create(b, loc, start);
  auto throughBody =
      func::CallOp::create(b, loc, *primal, entry->getArguments());
  SmallVector<Value> results(withRule.getResults().take_front(numResults));
  for (size_t i = 0; i < numResults; ++i)
    results.push_back(i < valueLeaves ? withRule.getResult(numResults + i)
                                      : throughBody.getResult(numResults + i));
  func::ReturnOp::create(b, loc, results);
  return jvp;
}

FailureOr<func::FuncOp> JvpBuilder::build(func::FuncOp f, StringRef suffix,
                                          ArrayRef<bool> differentiated) {
  if (!f.getBody().hasOneBlock())
    return f.emitError("jvp needs a function of one block");
  // The tangents of a tape's entries go on a tape above every tape f uses.
  tangentTapes = 0;
  f.walk([&](Operation *op) {
    if (auto tape = op->getAttrOfType<IntegerAttr>("tape"))
      tangentTapes = std::max(tangentTapes, tape.getInt() + 1);
  });
  OpBuilder b(module.getContext());
  func::FuncOp jvp = createJvpFunction(b, f, suffix);
  Block *entry = &jvp.front();

  Block &body = f.getBody().front();
  IRMapping map;
  DenseMap<Value, Value> tangent;
  size_t n = body.getNumArguments();
  // The activity analysis is reverse mode's, run on its own sets.
  auto saved = std::make_tuple(std::move(reverse.active),
                               std::move(reverse.activeEntries),
                               std::move(reverse.activeSums));
  reverse.active.clear();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    map.map(arg, entry->getArgument(i));
    if (differentiated[i]) {
      reverse.active.insert(arg);
      tangent[arg] = entry->getArgument(n + i);
    }
  }
  // What a tape read gives is active when active values were written on
  // that tape anywhere in f: iterate to a fixed point.
  reverse.activeEntries.clear();
  reverse.activeSums.clear();
  for (size_t marked = 0;;) {
    reverse.markActive(body);
    size_t now = reverse.active.size() + reverse.activeEntries.size() +
                 reverse.activeSums.size();
    if (now == marked)
      break;
    marked = now;
  }
  active = std::move(reverse.active);
  activeEntries = std::move(reverse.activeEntries);
  activeSums = std::move(reverse.activeSums);
  std::tie(reverse.active, reverse.activeEntries, reverse.activeSums) =
      std::move(saved);

  if (failed(forwardBlock(b, body, map, tangent))) {
    jvp.erase();
    return failure();
  }
  Operation *ret = body.getTerminator();
  SmallVector<Value> results;
  withTangents(b, ret->getLoc(), ret->getOperands(),
               llvm::to_vector(llvm::seq<unsigned>(0, ret->getNumOperands())),
               map, tangent, results);
  func::ReturnOp::create(b, ret->getLoc(), results);
  return jvp;
}

LogicalResult JvpBuilder::expand(JvpOp op) {
  auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
  if (!callee)
    return op.emitError("unknown function @") << op.getCallee();
  // (A @custom_gradient function also returns its residuals, which the
  // jvp leaves out.)
  FunctionType type = callee.getFunctionType();
  size_t values = op.getNumResults() / 2;
  if (op.getNumOperands() != 2 * type.getNumInputs() ||
      values > type.getNumResults())
    return op.emitError("jvp of @")
           << op.getCallee() << " takes its arguments then their tangents "
           << "and gives its results then theirs";
  // An argument whose tangent is a constant zero (a closure's capture, a
  // direction with no component along it) is inactive: no tangent work.
  SmallVector<bool> differentiated;
  size_t n = type.getNumInputs();
  for (size_t i = 0; i < n; ++i) {
    DenseElementsAttr zeros;
    bool zero = matchPattern(op.getOperand(n + i), m_Constant(&zeros)) &&
                zeros.isSplat() && isFloatTensor(zeros.getType()) &&
                zeros.getSplatValue<APFloat>().isZero();
    differentiated.push_back(!zero);
  }
  FailureOr<func::FuncOp> jvp = jvpOf(callee, differentiated);
  if (failed(jvp))
    return failure();
  OpBuilder b(op);
  auto call = func::CallOp::create(b, op.getLoc(), *jvp, op.getOperands());
  SmallVector<Value> results(call.getResults().take_front(values));
  llvm::append_range(results,
                     call.getResults().slice(type.getNumResults(), values));
  op.replaceAllUsesWith(results);
  op.erase();
  return success();
}

LogicalResult JvpBuilder::forwardBlock(OpBuilder &b, Block &block,
                                       IRMapping &map,
                                       DenseMap<Value, Value> &tangent) {
  for (Operation &op : block.without_terminator())
    if (failed(forwardOp(b, op, map, tangent)))
      return failure();
  return success();
}

LogicalResult JvpBuilder::forwardOp(OpBuilder &b, Operation &op, IRMapping &map,
                                    DenseMap<Value, Value> &tangent) {
  if (isa<TapePushOp, TapeWriteOp, TapeReadOp, TapeAddOp, TapeAccumulatedOp,
          TapeRewindOp>(op)) {
    forwardTapeOp(b, op, map, tangent);
    return success();
  }
  bool anyActive = llvm::any_of(op.getResults(),
                                [&](Value r) { return active.contains(r); });
  if (!anyActive) {
    b.clone(op, map);
    return success();
  }
  // The tangent runs where the op runs (tfl-place-devices copies what
  // crosses).
  OnDeviceOf onDevice(b, op);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return forwardIf(b, ifOp, map, tangent);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return forwardFor(b, forOp, map, tangent);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return forwardWhile(b, whileOp, map, tangent);
  if (auto call = dyn_cast<func::CallOp>(op))
    return forwardCall(b, call, map, tangent);
  if (op.getNumRegions() > 0)
    return op.emitError("forward mode through '")
           << op.getName() << "' is not supported yet";
  Operation *copy = b.clone(op, map);
  SmallVector<Value> operandTangents;
  for (Value operand : op.getOperands())
    operandTangents.push_back(tangent.lookup(operand));
  if (llvm::all_of(operandTangents, [](Value t) { return !t; }))
    return success();
  FailureOr<SmallVector<Value>> results = tangentOf(b, copy, operandTangents);
  if (failed(results))
    return op.emitError("no forward rule for '")
           << op.getName() << "': its pullback is not linear in tfl ops";
  for (auto [r, t] : llvm::zip(op.getResults(), *results))
    if (t && active.contains(r))
      tangent[r] = t;
  return success();
}

FailureOr<SmallVector<Value>>
JvpBuilder::tangentOf(OpBuilder &b, Operation *copy,
                      ArrayRef<Value> operandTangents) {
  auto rule = dyn_cast<ReverseOpInterface>(copy);
  if (!rule)
    return failure();
  Location loc = copy->getLoc();
  Block *block = b.getInsertionBlock();
  Block::iterator start = b.getInsertionPoint();
  Operation *before = start == block->begin() ? nullptr : &*std::prev(start);
  // The pullback on placeholder cotangents, and what depends on them.
  DenseSet<Value> linear;
  SmallVector<Value> placeholders;
  for (Value r : copy->getResults()) {
    Value dy =
        isFloatTensor(r.getType()) ? zerosOf(b, loc, r.getType()) : Value();
    placeholders.push_back(dy);
    if (dy)
      linear.insert(dy);
  }
  SmallVector<Value> dOperands;
  if (failed(rule.reverse(b, placeholders, dOperands)))
    return failure();
  SmallVector<Operation *> pullback;
  for (auto it = before ? std::next(before->getIterator()) : block->begin();
       it != b.getInsertionPoint(); ++it)
    pullback.push_back(&*it);
  SmallVector<Operation *> linearOps;
  for (Operation *op : pullback)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return linear.contains(v); })) {
      if (op->getNumRegions() > 0)
        return failure();
      for (Value r : op->getResults())
        linear.insert(r);
      linearOps.push_back(op);
    }
  // Reverse mode over the pullback's linear ops.
  DenseMap<Value, Value> adjoint;
  for (auto [d, t] : llvm::zip(dOperands, operandTangents))
    if (d && t && linear.contains(d))
      accumulate(b, adjoint, d, t, loc);
  for (Operation *op : llvm::reverse(linearOps)) {
    SmallVector<Value> dResults;
    bool any = false;
    for (Value r : op->getResults()) {
      dResults.push_back(adjoint.lookup(r));
      any |= dResults.back() != nullptr;
    }
    if (!any)
      continue;
    auto inner = dyn_cast<ReverseOpInterface>(op);
    if (!inner)
      return failure();
    SmallVector<Value> dInner;
    if (failed(inner.reverse(b, dResults, dInner)))
      return failure();
    for (auto [operand, d] : llvm::zip(op->getOperands(), dInner))
      if (d && linear.contains(operand))
        accumulate(b, adjoint, operand, d, loc);
  }
  SmallVector<Value> results;
  for (Value dy : placeholders)
    results.push_back(dy ? adjoint.lookup(dy) : Value());
  // What only computed the pullback's cotangents, or the transposed rules'
  // cotangents of the non-linear operands, is dead now.
  DenseSet<Value> kept(results.begin(), results.end());
  SmallVector<Operation *> made;
  for (auto it = before ? std::next(before->getIterator()) : block->begin();
       it != b.getInsertionPoint(); ++it)
    made.push_back(&*it);
  for (Operation *op : llvm::reverse(made))
    if (llvm::none_of(op->getResults(),
                      [&](Value r) { return kept.contains(r); }) &&
        isOpTriviallyDead(op))
      op->erase();
  return results;
}

void JvpBuilder::forwardTapeOp(OpBuilder &b, Operation &op, IRMapping &map,
                               DenseMap<Value, Value> &tangent) {
  Location loc = op.getLoc();
  int64_t tape = op.getAttrOfType<IntegerAttr>("tape").getInt();
  int64_t tangents = tangentTapes + tape;
  // A push writes at the cursor: its entry's tangent goes at that position
  // of the tangent tape (a read of a position never written gives zeros).
  Value position;
  if (isa<TapePushOp>(op) && activeEntries.contains(tape))
    position = TapeSizeOp::create(b, loc, b.getI64Type(), tape);
  Operation *copy = b.clone(op, map);
  if (isa<TapePushOp, TapeWriteOp>(op) && activeEntries.contains(tape)) {
    Value stored = storedOnTape(op);
    if (isa<TapeWriteOp>(op))
      position = copy->getOperand(0);
    TapeWriteOp::create(b, loc, position,
                        tangentOrZeros(b, loc, tangent, stored), tangents);
  } else if (auto add = dyn_cast<TapeAddOp>(op)) {
    if (Value t = tangent.lookup(add.getInput()))
      TapeAddOp::create(b, loc, copy->getOperand(0), t, tangents);
  } else if (auto read = dyn_cast<TapeReadOp>(op)) {
    if (active.contains(read.getResult()))
      tangent[read.getResult()] = TapeReadOp::create(
          b, loc, read.getType(), copy->getOperand(0), tangents);
  } else if (auto sum = dyn_cast<TapeAccumulatedOp>(op)) {
    if (active.contains(sum.getResult()))
      tangent[sum.getResult()] = TapeAccumulatedOp::create(
          b, loc, sum.getType(), copy->getOperand(0), tangents);
  } else if (auto rewind = dyn_cast<TapeRewindOp>(op)) {
    if (activeEntries.contains(tape) || activeSums.contains(tape))
      TapeRewindOp::create(b, loc, copy->getOperand(0), tangents,
                           rewind.getRelease());
  }
}

Value JvpBuilder::tangentOrZeros(OpBuilder &b, Location loc,
                                 const DenseMap<Value, Value> &tangent,
                                 Value v) {
  Value t = tangent.lookup(v);
  return t ? t : zerosOf(b, loc, v.getType());
}

void JvpBuilder::withTangents(OpBuilder &b, Location loc, ValueRange values,
                              ArrayRef<unsigned> indices, IRMapping &map,
                              const DenseMap<Value, Value> &tangent,
                              SmallVectorImpl<Value> &into) {
  for (Value v : values)
    into.push_back(map.lookupOrDefault(v));
  for (unsigned i : indices)
    into.push_back(tangentOrZeros(b, loc, tangent, values[i]));
}

LogicalResult JvpBuilder::forwardAndYield(OpBuilder &b, Block &from, Block *to,
                                          ArrayRef<unsigned> indices,
                                          IRMapping &map,
                                          DenseMap<Value, Value> &tangent) {
  OpBuilder ib = OpBuilder::atBlockEnd(to, b.getListener());
  if (failed(forwardBlock(ib, from, map, tangent)))
    return failure();
  Operation *yield = from.getTerminator();
  SmallVector<Value> yielded;
  withTangents(ib, yield->getLoc(), yield->getOperands(), indices, map, tangent,
               yielded);
  scf::YieldOp::create(ib, yield->getLoc(), yielded);
  return success();
}

void JvpBuilder::mapResults(Operation *op, Operation *copy,
                            ArrayRef<unsigned> indices, IRMapping &map,
                            DenseMap<Value, Value> &tangent) {
  size_t n = op->getNumResults();
  for (auto [i, r] : llvm::enumerate(op->getResults()))
    map.map(r, copy->getResult(i));
  for (auto [j, i] : llvm::enumerate(indices))
    tangent[op->getResult(i)] = copy->getResult(n + j);
}

SmallVector<unsigned> JvpBuilder::activeIndices(ValueRange values) const {
  SmallVector<unsigned> indices;
  for (auto [i, v] : llvm::enumerate(values))
    if (active.contains(v))
      indices.push_back(i);
  return indices;
}

LogicalResult JvpBuilder::forwardIf(OpBuilder &b, scf::IfOp op, IRMapping &map,
                                    DenseMap<Value, Value> &tangent) {
  Location loc = op.getLoc();
  SmallVector<unsigned> carried = activeIndices(op.getResults());
  SmallVector<Type> types(op.getResultTypes());
  for (unsigned i : carried)
    types.push_back(op.getResult(i).getType());
  auto copy =
      scf::IfOp::create(b, loc, types, map.lookupOrDefault(op.getCondition()),
                        /*withElseRegion=*/true);
  copy->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  for (auto [from, to] : {std::make_pair(op.thenBlock(), copy.thenBlock()),
                          std::make_pair(op.elseBlock(), copy.elseBlock())}) {
    if (failed(forwardAndYield(b, *from, to, carried, map, tangent)))
      return failure();
  }
  mapResults(op, copy, carried, map, tangent);
  return success();
}

LogicalResult JvpBuilder::forwardFor(OpBuilder &b, scf::ForOp op,
                                     IRMapping &map,
                                     DenseMap<Value, Value> &tangent) {
  Location loc = op.getLoc();
  SmallVector<unsigned> carried = activeIndices(op.getRegionIterArgs());
  SmallVector<Value> inits;
  withTangents(b, loc, op.getInitArgs(), carried, map, tangent, inits);
  auto copy =
      scf::ForOp::create(b, loc, map.lookupOrDefault(op.getLowerBound()),
                         map.lookupOrDefault(op.getUpperBound()),
                         map.lookupOrDefault(op.getStep()), inits);
  copy->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  size_t n = op.getNumRegionIterArgs();
  map.map(op.getInductionVar(), copy.getInductionVar());
  for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs()))
    map.map(arg, copy.getRegionIterArgs()[i]);
  for (auto [j, i] : llvm::enumerate(carried))
    tangent[op.getRegionIterArgs()[i]] = copy.getRegionIterArgs()[n + j];
  Block *body = copy.getBody();
  if (!body->empty() && body->back().hasTrait<mlir::OpTrait::IsTerminator>())
    body->back().erase();
  if (failed(forwardAndYield(b, *op.getBody(), body, carried, map, tangent)))
    return failure();
  mapResults(op, copy, carried, map, tangent);
  return success();
}

LogicalResult JvpBuilder::forwardWhile(OpBuilder &b, scf::WhileOp op,
                                       IRMapping &map,
                                       DenseMap<Value, Value> &tangent) {
  Location loc = op.getLoc();
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  // Before's arguments take the initial values and after's yields; after's
  // (and the loop's results) what the condition forwards.
  SmallVector<unsigned> carried = activeIndices(before.getArguments());
  SmallVector<unsigned> forwarded = activeIndices(after.getArguments());
  SmallVector<Value> inits;
  withTangents(b, loc, op.getInits(), carried, map, tangent, inits);
  SmallVector<Type> resultTypes(op.getResultTypes());
  for (unsigned i : forwarded)
    resultTypes.push_back(op.getResult(i).getType());
  auto copy = scf::WhileOp::create(b, loc, resultTypes, inits);
  copy->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  auto makeBlock = [&](Region &region, Block &from,
                       ArrayRef<unsigned> extra) -> Block * {
    SmallVector<Type> types(from.getArgumentTypes());
    for (unsigned i : extra)
      types.push_back(from.getArgument(i).getType());
    SmallVector<Location> locs(types.size(), loc);
    Block *to = new Block();
    region.push_back(to);
    to->addArguments(types, locs);
    size_t n = from.getNumArguments();
    for (auto [i, arg] : llvm::enumerate(from.getArguments()))
      map.map(arg, to->getArgument(i));
    for (auto [j, i] : llvm::enumerate(extra))
      tangent[from.getArgument(i)] = to->getArgument(n + j);
    return to;
  };
  Block *newBefore = makeBlock(copy.getBefore(), before, carried);
  OpBuilder bb = OpBuilder::atBlockEnd(newBefore, b.getListener());
  if (failed(forwardBlock(bb, before, map, tangent)))
    return failure();
  scf::ConditionOp condition = op.getConditionOp();
  SmallVector<Value> args;
  withTangents(bb, loc, condition.getArgs(), forwarded, map, tangent, args);
  scf::ConditionOp::create(bb, condition.getLoc(),
                           map.lookupOrDefault(condition.getCondition()), args);
  Block *newAfter = makeBlock(copy.getAfter(), after, forwarded);
  if (failed(forwardAndYield(b, after, newAfter, carried, map, tangent)))
    return failure();
  mapResults(op, copy, forwarded, map, tangent);
  return success();
}

LogicalResult JvpBuilder::forwardCall(OpBuilder &b, func::CallOp op,
                                      IRMapping &map,
                                      DenseMap<Value, Value> &tangent) {
  auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
  if (!callee)
    return op.emitError("unknown function @") << op.getCallee();
  SmallVector<bool> differentiated;
  for (Value operand : op.getOperands())
    differentiated.push_back(active.contains(operand));
  // A custom rule's residuals with tangents (read by the rule's own vjp, in
  // a second derivative) need the body's forward mode.
  JvpKind kind = JvpKind::Custom;
  if (auto leaves =
          callee->getAttrOfType<IntegerAttr>("tfl.custom_value_leaves"))
    if (llvm::any_of(op.getResults().drop_front(leaves.getInt()),
                     [&](Value r) { return active.contains(r); }))
      kind = JvpKind::Full;
  FailureOr<func::FuncOp> jvp = jvpOf(callee, differentiated, kind);
  if (failed(jvp))
    return failure();
  Location loc = op.getLoc();
  SmallVector<Value> args;
  withTangents(b, loc, op.getOperands(),
               llvm::to_vector(llvm::seq<unsigned>(0, op.getNumOperands())),
               map, tangent, args);
  auto call = func::CallOp::create(b, loc, *jvp, args);
  call->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  size_t n = op.getNumResults();
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    map.map(r, call.getResult(i));
    if (active.contains(r))
      tangent[r] = call.getResult(n + i);
  }
  return success();
}

} // namespace mlir::tfl::autodiff
