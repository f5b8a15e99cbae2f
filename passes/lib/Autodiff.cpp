//===- Autodiff.cpp - Reverse-mode autodiff of tfl functions --------------===//
//
// Builds, for a function `f(x...) -> (y...)`, its vector-Jacobian product
// `f.vjp(x..., dy...) -> (y..., dx...)` in one function (combined mode).
// Algorithm:
//   1. Clone f's body (the forward sweep), mapping f's values to the
//      clones.
//   2. Mark active values: float values that depend on an argument.
//   3. Seed the cotangent of each returned value with its `dy` argument.
//   4. Walk f's ops last to first. For an op with an active operand and a
//      cotangent on a result, emit its pullback after the forward sweep:
//      through ReverseOpInterface on the clone, or, for a call of a user
//      function, a call of the callee's own `.vjp` (built on demand).
//      Cotangents reaching one value are added.
//   5. Return the results and each argument's cotangent (zeros when none
//      reaches it).
// A `tfl.grad @f(x) {argnums}` becomes `f.vjp(x, 1)`, whose results give
// the value and the gradients. Grads are expanded innermost first, so the
// functions a vjp differentiates hold no tfl.grad; what they hold instead
// (calls of other vjps) is differentiated like any call.
//
// Control flow: an scf.if's pullback is an scf.if on the same condition
// whose branches recompute their forward ops and pull back through them.
// An scf.for's forward copy pushes each iteration's state on the tape; its
// pullback is a loop over the same iterations in reverse that pops the
// state, recomputes the iteration and pulls back through it. An
// scf.while's copy pushes the state of each `before` execution and reads
// the tape's size around the loop; its pullback goes through the last
// `before`, then loops over the counted iterations in reverse.
//
// Random draws: what the reverse sweep runs again (an iteration, a branch,
// a call through its callee's vjp) draws again. The forward copy reads the
// generator's state (key, draw count) before each such computation that
// draws, on the tape for a loop's iterations; the reverse sets it back
// before running it again, so the same numbers come out, and restores the
// state the forward sweep left after (as PyTorch's checkpointing does).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include <map>

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLAUTODIFF
#include "tfl/Passes/Passes.h.inc"

namespace {

bool isFloatTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// A zero of `type`: a tfl constant for a tensor, an arith one for a scalar
/// (an index or integer a function takes besides its tensors).
Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return arith::ConstantOp::create(b, loc,
                                     cast<TypedAttr>(b.getZeroAttr(type)));
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(tensor, b.getZeroAttr(tensor.getElementType())));
}

/// The type of the random generator's state: key and draw count.
RankedTensorType randomStateType(Builder &b) {
  return RankedTensorType::get({2}, b.getI64Type());
}

/// Adds `cotangent` to the cotangent of `of`.
void accumulate(OpBuilder &b, DenseMap<Value, Value> &adjoint, Value of,
                Value cotangent, Location loc) {
  auto [it, inserted] = adjoint.try_emplace(of, cotangent);
  if (!inserted)
    it->second =
        AddOp::create(b, loc, cotangent.getType(), it->second, cotangent);
}

class VjpBuilder {
public:
  explicit VjpBuilder(ModuleOp module) : module(module), symbols(module) {}

  /// Which vjp of a function: the usual one (a @custom_gradient function's
  /// uses its rule and ignores its residuals' cotangents), the reverse of
  /// its body as written, or both (when residuals get cotangents, as in a
  /// second derivative).
  enum class VjpKind { Custom, Primal, Full };
  /// The vjp function of `f`, built on first use, for the arguments marked
  /// in `differentiated` (all float arguments when empty): the others are
  /// inactive (no adjoint work for what only they reach) and get zero
  /// cotangents.
  FailureOr<func::FuncOp> vjpOf(func::FuncOp f, VjpKind kind = VjpKind::Custom,
                                ArrayRef<bool> differentiated = {});

  /// Replaces `grad` by a call of its callee's vjp.
  LogicalResult expand(GradOp grad);

private:
  FailureOr<func::FuncOp> build(func::FuncOp f, StringRef suffix,
                                ArrayRef<bool> differentiated);
  /// An empty vjp function of `f` named with `suffix`, of signature (args,
  /// result cotangents) -> (results, arg cotangents), with `b` at the start
  /// of its body.
  func::FuncOp createVjpFunction(OpBuilder &b, func::FuncOp f,
                                 StringRef suffix);
  FailureOr<func::FuncOp> buildFull(func::FuncOp f);
  /// The vjp of a @custom_gradient function: its primal, then its
  /// pullback (the user's grad_fn) on the value's cotangent and the
  /// residuals the primal returned.
  FailureOr<func::FuncOp> buildCustom(func::FuncOp f);
  /// Marks the float values of `block` (and of the regions in it) that
  /// depend on an active value.
  void markActive(Block &block);
  /// Emits at `b` the pullbacks of `block`'s ops, last to first; `map`
  /// gives the recomputed forward value of each of the block's values, and
  /// `adjoint` the cotangents of original values.
  LogicalResult reverseBlock(OpBuilder &b, Block &block, IRMapping &map,
                             DenseMap<Value, Value> &adjoint);
  /// The pullback of one op with result cotangents `dResults`.
  LogicalResult reverseOp(OpBuilder &b, Operation &op, IRMapping &map,
                          ArrayRef<Value> dResults,
                          DenseMap<Value, Value> &adjoint);
  /// Clones `block`'s ops (not its terminator) at `b` through `map`. The
  /// loops directly in the block push each iteration's state on the tape,
  /// for the reverse loop that pairs with this copy (loops nested deeper
  /// are recomputed, and instrumented, by their own reverse).
  /// In a `recompute` copy (a branch or an iteration the reverse runs
  /// again), output and file writes are left out. Before an if or a call
  /// that draws random numbers, the generator's state is read (for the
  /// reverse to draw the same again); a loop on the tape that draws pushes
  /// it with each iteration's state.
  LogicalResult cloneForward(OpBuilder &b, Block &block, IRMapping &map,
                             bool recompute);
  /// scf.for: a reverse loop over the same iterations, last first; each
  /// pops the iteration's state, recomputes the body, and pulls the carried
  /// values' cotangents back through it, accumulating those of the active
  /// values the body reads from outside.
  LogicalResult reverseFor(OpBuilder &b, scf::ForOp op, IRMapping &map,
                           ArrayRef<Value> dResults,
                           DenseMap<Value, Value> &adjoint);
  /// scf.while: the forward copy pushes the state each `before` execution
  /// starts from, and reads the tape's size around the loop to count them.
  /// The pullback pulls back through the last `before` (the exit test),
  /// then loops over the iterations, last first, through `after` and
  /// `before`, recomputing each from its popped state.
  LogicalResult reverseWhile(OpBuilder &b, scf::WhileOp op, IRMapping &map,
                             ArrayRef<Value> dResults,
                             DenseMap<Value, Value> &adjoint);
  /// Whether the forward copy of `op` pushes per-iteration states on the
  /// tape (and its reverse pops them): a loop with an active result.
  bool usesTape(Operation &op);
  /// Pops the state a loop iteration (or a `before`) started from: the
  /// arguments of `start` from `first` on, mapped in `local`.
  void popState(OpBuilder &rb, Location loc, Block &start, size_t first,
                IRMapping &local);
  /// Seeds the cotangents of what `body` yields for the `carried` values
  /// with the reverse loop's carried cotangents.
  void seedCarried(OpBuilder &rb, Location loc, Block &body,
                   ArrayRef<unsigned> carried, ValueRange carriedIn,
                   DenseMap<Value, Value> &adjoint);
  /// Whether `op` draws random numbers (or seeds the generator): itself, in
  /// its regions, or in a function it calls.
  bool drawsRandom(Operation *op);
  bool drawsRandom(func::FuncOp f);
  /// Reads the generator's state, sets it to `state` (what it was before a
  /// computation the reverse sweep runs again), and returns what it was,
  /// to be set back after the second run.
  Value replayRandom(OpBuilder &b, Location loc, Value state);
  /// Pops the generator state a loop iteration started from and sets it.
  void popRandom(OpBuilder &rb, Location loc);
  /// The active values a region op's regions read from outside.
  SmallVector<Value> activeUsedAbove(Operation *op);
  /// Ends a reverse loop: yields the cotangents of the carried `states` and
  /// the running sums for `outside`, then adds the results to the
  /// cotangents of the loop's `inits` and of `outside`.
  void finishReverseLoop(OpBuilder &b, OpBuilder &rb, scf::ForOp reverse,
                         ArrayRef<Value> states, ArrayRef<Value> inits,
                         ArrayRef<Value> outside,
                         DenseMap<Value, Value> &iterationAdjoint,
                         DenseMap<Value, Value> &adjoint);
  /// Tape sizes read around each instrumented while loop's latest copy.
  DenseMap<Operation *, std::pair<Value, Value>> whileTape;
  /// The generator state read before the latest copy of each if and call
  /// that draws.
  DenseMap<Operation *, Value> randomBefore;
  /// Which functions draw random numbers, once known.
  DenseMap<Operation *, bool> functionDraws;
  /// scf.if: a reverse scf.if on the same condition; each branch recomputes
  /// its forward ops, pulls its results' cotangents back through them, and
  /// yields the cotangents of the active values it read from outside.
  LogicalResult reverseIf(OpBuilder &b, scf::IfOp op, IRMapping &map,
                          ArrayRef<Value> dResults,
                          DenseMap<Value, Value> &adjoint);

  ModuleOp module;
  SymbolTable symbols;
  /// Built vjps by function, kind and differentiated arguments ('1'/'0').
  std::map<std::tuple<Operation *, int, std::string>, func::FuncOp> vjps;
  /// The active values of the function being differentiated.
  DenseSet<Value> active;
};

FailureOr<func::FuncOp> VjpBuilder::vjpOf(func::FuncOp f, VjpKind kind,
                                          ArrayRef<bool> differentiated) {
  // Which arguments are active: a float one that is differentiated. A
  // custom rule computes every cotangent.
  bool custom = kind == VjpKind::Full ||
                (kind == VjpKind::Custom && f->hasAttr("tfl.custom_pullback"));
  SmallVector<bool> mask;
  std::string suffix;
  bool all = true;
  for (auto [i, t] : llvm::enumerate(f.getFunctionType().getInputs())) {
    bool on = isFloatTensor(t) &&
              (custom || differentiated.empty() || differentiated[i]);
    mask.push_back(on);
    all &= on || !isFloatTensor(t);
    suffix += on ? '1' : '0';
  }
  auto key = std::make_tuple(f.getOperation(), static_cast<int>(kind), suffix);
  auto it = vjps.find(key);
  if (it != vjps.end())
    return it->second;
  DenseSet<Value> outer = std::move(active);
  FailureOr<func::FuncOp> vjp = failure();
  if (kind == VjpKind::Full)
    vjp = buildFull(f);
  else if (custom)
    vjp = buildCustom(f);
  else
    vjp = build(f,
                (kind == VjpKind::Primal ? ".primal_vjp" : ".vjp") +
                    (all ? std::string() : "." + suffix),
                mask);
  active = std::move(outer);
  if (succeeded(vjp))
    vjps[key] = *vjp;
  return vjp;
}

func::FuncOp VjpBuilder::createVjpFunction(OpBuilder &b, func::FuncOp f,
                                           StringRef suffix) {
  FunctionType type = f.getFunctionType();
  SmallVector<Type> inputs(type.getInputs());
  llvm::append_range(inputs, type.getResults());
  SmallVector<Type> outputs(type.getResults());
  llvm::append_range(outputs, type.getInputs());
  b.setInsertionPointAfter(f);
  auto vjp =
      func::FuncOp::create(b, f.getLoc(), (f.getSymName() + suffix).str(),
                           b.getFunctionType(inputs, outputs));
  vjp.setPrivate();
  symbols.insert(vjp);
  b.setInsertionPointToStart(vjp.addEntryBlock());
  return vjp;
}

FailureOr<func::FuncOp> VjpBuilder::buildFull(func::FuncOp f) {
  FailureOr<func::FuncOp> custom = vjpOf(f, VjpKind::Custom);
  FailureOr<func::FuncOp> primal = vjpOf(f, VjpKind::Primal);
  if (failed(custom) || failed(primal))
    return failure();
  OpBuilder b(module.getContext());
  func::FuncOp vjp = createVjpFunction(b, f, ".full_vjp");
  Block *entry = &vjp.front();
  // The user's rule for the value's cotangent, plus the ordinary reverse
  // of the body for the residuals' (which a second derivative gives).
  size_t numArgs = f.getFunctionType().getNumInputs();
  size_t numResults = f.getFunctionType().getNumResults();
  int64_t valueLeaves =
      f->getAttrOfType<IntegerAttr>("tfl.custom_value_leaves").getInt();
  // Both run f's forward: with the same draws.
  Value start = drawsRandom(f)
                    ? RandomStateOp::create(b, f.getLoc(), randomStateType(b))
                    : Value();
  auto withRule =
      func::CallOp::create(b, f.getLoc(), *custom, entry->getArguments());
  if (start)
    SetRandomStateOp::create(b, f.getLoc(), start);
  SmallVector<Value> args(entry->getArguments());
  for (size_t i = 0; i < static_cast<size_t>(valueLeaves); ++i)
    args[numArgs + i] =
        zerosOf(b, f.getLoc(), f.getFunctionType().getResult(i));
  auto throughBody = func::CallOp::create(b, f.getLoc(), *primal, args);
  SmallVector<Value> results(withRule.getResults().take_front(numResults));
  for (size_t i = 0; i < numArgs; ++i) {
    Value a = withRule.getResult(numResults + i);
    Value c = throughBody.getResult(numResults + i);
    results.push_back(isFloatTensor(a.getType())
                          ? AddOp::create(b, f.getLoc(), a.getType(), a, c)
                          : a);
  }
  func::ReturnOp::create(b, f.getLoc(), results);
  return vjp;
}

void VjpBuilder::markActive(Block &block) {
  auto isActive = [&](Value v) { return active.contains(v); };
  for (Operation &op : block) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      // A carried value is active when its initial value or the value the
      // body yields for it is: iterate to a fixed point.
      Block &body = *loop.getBody();
      for (bool changed = true; changed;) {
        markActive(body);
        changed = false;
        for (auto [init, arg, yielded] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                       body.getTerminator()->getOperands()))
          if ((isActive(init) || isActive(yielded)) && !isActive(arg) &&
              isFloatTensor(arg.getType())) {
            active.insert(arg);
            changed = true;
          }
      }
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      // Before's arguments take the initial values and after's yields;
      // after's arguments take what the condition forwards.
      Block &before = loop.getBefore().front(),
            &after = loop.getAfter().front();
      for (bool changed = true; changed;) {
        markActive(before);
        markActive(after);
        changed = false;
        auto mark = [&](Value v) {
          if (!isActive(v) && isFloatTensor(v.getType())) {
            active.insert(v);
            changed = true;
          }
        };
        for (auto [init, arg, yielded] :
             llvm::zip(loop.getInits(), before.getArguments(),
                       after.getTerminator()->getOperands()))
          if (isActive(init) || isActive(yielded))
            mark(arg);
        for (auto [fwd, arg] :
             llvm::zip(loop.getConditionOp().getArgs(), after.getArguments()))
          if (isActive(fwd))
            mark(arg);
      }
      for (auto [fwd, r] :
           llvm::zip(loop.getConditionOp().getArgs(), loop.getResults()))
        if (isActive(fwd) && isFloatTensor(r.getType()))
          active.insert(r);
      continue;
    }
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        markActive(inner);
    bool any = llvm::any_of(op.getOperands(), isActive);
    // A region op's results are active when a yielded value is.
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        if (Operation *term = inner.getTerminator())
          any |= llvm::any_of(term->getOperands(), isActive);
    if (any)
      for (Value r : op.getResults())
        if (isFloatTensor(r.getType()))
          active.insert(r);
  }
}

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
    // forward sweep: its reverse must pop them even when no cotangent
    // reaches it.
    if (!any && !usesTape(op))
      continue;
    if (failed(reverseOp(b, op, map, dResults, adjoint)))
      return failure();
  }
  return success();
}

LogicalResult VjpBuilder::reverseOp(OpBuilder &b, Operation &op, IRMapping &map,
                                    ArrayRef<Value> dResults,
                                    DenseMap<Value, Value> &adjoint) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return reverseIf(b, ifOp, map, dResults, adjoint);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return reverseFor(b, forOp, map, dResults, adjoint);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return reverseWhile(b, whileOp, map, dResults, adjoint);
  if (op.getNumRegions() > 0)
    return op.emitError("differentiating through '")
           << op.getName() << "' is not supported yet";
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

SmallVector<Value> VjpBuilder::activeUsedAbove(Operation *op) {
  SetVector<Value> used;
  getUsedValuesDefinedAbove(op->getRegions(), used);
  SmallVector<Value> outside;
  for (Value v : used)
    if (active.contains(v))
      outside.push_back(v);
  return outside;
}

void VjpBuilder::finishReverseLoop(OpBuilder &b, OpBuilder &rb,
                                   scf::ForOp reverse, ArrayRef<Value> states,
                                   ArrayRef<Value> inits,
                                   ArrayRef<Value> outside,
                                   DenseMap<Value, Value> &iterationAdjoint,
                                   DenseMap<Value, Value> &adjoint) {
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
  scf::YieldOp::create(rb, loc, yields);
  for (auto [k, init] : llvm::enumerate(inits))
    if (active.contains(init))
      accumulate(b, adjoint, init, reverse.getResult(k), loc);
  for (auto [k, v] : llvm::enumerate(outside))
    accumulate(b, adjoint, v, reverse.getResult(states.size() + k), loc);
}

LogicalResult VjpBuilder::cloneForward(OpBuilder &b, Block &block,
                                       IRMapping &map, bool recompute) {
  for (Operation &op : block.without_terminator()) {
    if (recompute && isa<PrintOp, LogScalarOp, SaveOp, SaveNpyOp, AssertOp>(op))
      continue;
    // A region op cloned before (by the forward sweep) left its blocks'
    // arguments in the mapping; forget them, or the new copy's blocks would
    // get none.
    op.walk([&](Block *inner) {
      for (BlockArgument arg : inner->getArguments())
        map.erase(arg);
    });
    if (!usesTape(op)) {
      if (isa<scf::IfOp, func::CallOp>(op) && drawsRandom(&op))
        randomBefore[&op] =
            RandomStateOp::create(b, op.getLoc(), randomStateType(b));
      b.clone(op, map);
      continue;
    }
    // The loop pushes the state each iteration (each `before` of a while)
    // starts from, after the generator's when it draws; a while also reads
    // the tape's size around itself.
    auto sizeType = RankedTensorType::get({}, b.getI64Type());
    bool isWhile = isa<scf::WhileOp>(op);
    Value before =
        isWhile ? TapeSizeOp::create(b, op.getLoc(), sizeType) : Value();
    Operation *clone = b.clone(op, map);
    Block &start = clone->getRegion(0).front();
    OpBuilder pb = OpBuilder::atBlockBegin(&start);
    if (drawsRandom(&op))
      TapePushOp::create(
          pb, op.getLoc(),
          RandomStateOp::create(pb, op.getLoc(), randomStateType(pb)));
    for (Value state : start.getArguments().drop_front(isWhile ? 0 : 1))
      TapePushOp::create(pb, op.getLoc(), state);
    if (isWhile)
      whileTape[&op] = {before, TapeSizeOp::create(b, op.getLoc(), sizeType)};
  }
  return success();
}

bool VjpBuilder::usesTape(Operation &op) {
  return isa<scf::ForOp, scf::WhileOp>(op) &&
         llvm::any_of(op.getResults(),
                      [&](Value v) { return active.contains(v); });
}

bool VjpBuilder::drawsRandom(Operation *op) {
  WalkResult found = op->walk([&](Operation *inner) {
    if (isa<RandomNormalOp, RandomUniformOp, ShuffleIndicesOp, SeedOp>(inner))
      return WalkResult::interrupt();
    if (auto call = dyn_cast<func::CallOp>(inner))
      if (auto f = symbols.lookup<func::FuncOp>(call.getCallee()))
        if (drawsRandom(f))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool VjpBuilder::drawsRandom(func::FuncOp f) {
  auto [it, inserted] = functionDraws.try_emplace(f, false);
  if (!inserted)
    return it->second;
  bool draws = drawsRandom(f.getOperation());
  return functionDraws[f] = draws;
}

Value VjpBuilder::replayRandom(OpBuilder &b, Location loc, Value state) {
  Value now = RandomStateOp::create(b, loc, randomStateType(b));
  SetRandomStateOp::create(b, loc, state);
  return now;
}

void VjpBuilder::popRandom(OpBuilder &rb, Location loc) {
  SetRandomStateOp::create(rb, loc,
                           TapePopOp::create(rb, loc, randomStateType(rb)));
}

void VjpBuilder::popState(OpBuilder &rb, Location loc, Block &start,
                          size_t first, IRMapping &local) {
  ArrayRef<BlockArgument> args = start.getArguments().drop_front(first);
  SmallVector<Value> states(args.size());
  for (size_t i = args.size(); i-- > 0;)
    states[i] = TapePopOp::create(rb, loc, args[i].getType());
  for (auto [arg, state] : llvm::zip(args, states))
    local.map(arg, state);
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
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value n = arith::MaxSIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, span, step), zero);
  auto reverse = scf::ForOp::create(b, loc, zero, n, one, inits);
  Block *rbody = reverse.getBody();
  OpBuilder rb = OpBuilder::atBlockBegin(rbody);
  Value last =
      arith::SubIOp::create(rb, loc, arith::SubIOp::create(rb, loc, n, one),
                            reverse.getInductionVar());
  Value iv = arith::AddIOp::create(rb, loc, lb,
                                   arith::MulIOp::create(rb, loc, last, step));
  IRMapping local = map;
  local.map(op.getInductionVar(), iv);
  // The state this iteration started from, popped in reverse push order.
  popState(rb, loc, body, /*first=*/1, local);
  if (draws)
    popRandom(rb, loc);
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
                    iterationAdjoint, adjoint);
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

  // Pops the state one `before` execution started from and recomputes it.
  auto recomputeBefore = [&](OpBuilder &rb, IRMapping &local) -> LogicalResult {
    popState(rb, loc, before, /*first=*/0, local);
    if (draws)
      popRandom(rb, loc);
    return cloneForward(rb, before, local, /*recompute=*/true);
  };

  // 1. The last `before` execution: the exit test, forwarding the results.
  IRMapping last = map;
  if (failed(recomputeBefore(b, last)))
    return failure();
  DenseMap<Value, Value> lastAdjoint;
  for (auto [fwd, d] : llvm::zip(condition.getArgs(), dResults))
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

  // 2. The iterations, last first: after, then the before that led to it.
  auto [sizeBefore, sizeAfter] = whileTape.lookup(op);
  Type i64 = b.getI64Type();
  auto scalar = [&](Value t) {
    return tensor::ExtractOp::create(b, loc, t, ValueRange{}).getResult();
  };
  Value pushes =
      arith::SubIOp::create(b, loc, scalar(sizeAfter), scalar(sizeBefore));
  Value perIteration = arith::ConstantOp::create(
      b, loc, i64,
      b.getI64IntegerAttr(static_cast<int64_t>(numState + (draws ? 1 : 0))));
  Value one64 = arith::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  Value iterations = arith::SubIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, pushes, perIteration), one64);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value n = arith::IndexCastOp::create(b, loc, b.getIndexType(), iterations);
  auto reverse = scf::ForOp::create(b, loc, zero, n, one, inits);
  OpBuilder rb = OpBuilder::atBlockBegin(reverse.getBody());
  IRMapping local = map;
  if (failed(recomputeBefore(rb, local)))
    return failure();
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
                    iterationAdjoint, adjoint);
  if (draws)
    SetRandomStateOp::create(b, loc, now);
  return success();
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
  // The branches run again with the draws they made.
  Value now;
  if (Value state = randomBefore.lookup(op))
    now = replayRandom(b, loc, state);
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

FailureOr<func::FuncOp> VjpBuilder::buildCustom(func::FuncOp f) {
  auto pullbackName =
      f->getAttrOfType<FlatSymbolRefAttr>("tfl.custom_pullback");
  auto pullback = symbols.lookup<func::FuncOp>(pullbackName.getValue());
  int64_t valueLeaves =
      f->getAttrOfType<IntegerAttr>("tfl.custom_value_leaves").getInt();
  ArrayRef<int64_t> cotangents =
      f->getAttrOfType<DenseI64ArrayAttr>("tfl.custom_cotangents").asArrayRef();
  FunctionType type = f.getFunctionType();
  OpBuilder b(module.getContext());
  func::FuncOp vjp = createVjpFunction(b, f, ".vjp");
  Block *entry = &vjp.front();
  size_t numArgs = type.getNumInputs();
  // The primal (value and residuals), then grad_fn on the value's
  // cotangent and the residuals.
  auto primal = func::CallOp::create(b, f.getLoc(), f,
                                     entry->getArguments().take_front(numArgs));
  SmallVector<Value> pullbackArgs(
      entry->getArguments().slice(numArgs, valueLeaves));
  llvm::append_range(pullbackArgs, primal.getResults().drop_front(valueLeaves));
  auto grads = func::CallOp::create(b, f.getLoc(), pullback, pullbackArgs);
  SmallVector<Value> results(primal.getResults());
  for (auto [i, c] : llvm::enumerate(cotangents))
    results.push_back(c >= 0 ? grads.getResult(c)
                             : zerosOf(b, f.getLoc(), type.getInput(i)));
  func::ReturnOp::create(b, f.getLoc(), results);
  return vjp;
}

FailureOr<func::FuncOp> VjpBuilder::build(func::FuncOp f, StringRef suffix,
                                          ArrayRef<bool> differentiated) {
  if (!f.getBody().hasOneBlock())
    return f.emitError("autodiff needs a function of one block");
  Block &body = f.getBody().front();
  // A generated gradient with loops keeps their states on the tape, which
  // a second differentiation would not see through.
  WalkResult tape = f.walk([](Operation *op) {
    return isa<TapePushOp, TapePopOp>(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
  });
  if (tape.wasInterrupted())
    return f.emitError("a gradient of a gradient through a loop is not "
                       "supported yet");

  FunctionType type = f.getFunctionType();
  OpBuilder b(module.getContext());
  func::FuncOp vjp = createVjpFunction(b, f, suffix);
  Block *entry = &vjp.front();

  // 1-2. The forward sweep, and which values are active.
  IRMapping map;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    map.map(arg, entry->getArgument(i));
    if (differentiated[i])
      active.insert(arg);
  }
  markActive(body);
  if (failed(cloneForward(b, body, map, /*recompute=*/false)))
    return failure();

  // 3. Seeds.
  DenseMap<Value, Value> adjoint;
  Operation *ret = body.getTerminator();
  size_t numArgs = type.getNumInputs();
  for (auto [i, v] : llvm::enumerate(ret->getOperands()))
    if (active.contains(v))
      accumulate(b, adjoint, v, entry->getArgument(numArgs + i), ret->getLoc());

  // 4. The reverse sweep.
  if (failed(reverseBlock(b, body, map, adjoint)))
    return failure();

  // 5. Results and argument cotangents.
  SmallVector<Value> results;
  for (Value v : ret->getOperands())
    results.push_back(map.lookupOrDefault(v));
  for (BlockArgument arg : body.getArguments()) {
    Value d = adjoint.lookup(arg);
    results.push_back(d ? d : zerosOf(b, f.getLoc(), arg.getType()));
  }
  func::ReturnOp::create(b, ret->getLoc(), results);
  return vjp;
}

LogicalResult VjpBuilder::expand(GradOp grad) {
  auto callee = symbols.lookup<func::FuncOp>(grad.getCallee());
  if (!callee)
    return grad.emitError("unknown function @") << grad.getCallee();
  FunctionType type = callee.getFunctionType();
  // The first result is the value (a @custom_gradient function returns
  // its residuals after it).
  if (type.getNumResults() < 1 || !isFloatTensor(type.getResult(0)) ||
      cast<RankedTensorType>(type.getResult(0)).getRank() != 0 ||
      (type.getNumResults() > 1 && !callee->hasAttr("tfl.custom_pullback")))
    return grad.emitError("grad needs a function returning one float scalar");
  SmallVector<bool> differentiated(type.getNumInputs(), false);
  for (int64_t a : grad.getArgnums())
    differentiated[a] = true;
  FailureOr<func::FuncOp> vjp = vjpOf(callee, VjpKind::Custom, differentiated);
  if (failed(vjp))
    return failure();
  OpBuilder b(grad);
  auto seedType = cast<RankedTensorType>(type.getResult(0));
  Value seed = ConstantOp::create(
      b, grad.getLoc(),
      DenseElementsAttr::get(seedType,
                             b.getFloatAttr(seedType.getElementType(), 1.0)));
  SmallVector<Value> args(grad.getOperands());
  args.push_back(seed);
  for (Type t : type.getResults().drop_front())
    args.push_back(zerosOf(b, grad.getLoc(), t));
  auto call = func::CallOp::create(b, grad.getLoc(), *vjp, args);
  SmallVector<Value> results;
  if (grad.getWithValue())
    results.push_back(call.getResult(0));
  for (int64_t a : grad.getArgnums())
    results.push_back(call.getResult(type.getNumResults() + a));
  grad.replaceAllUsesWith(results);
  grad.erase();
  return success();
}

struct TflAutodiffPass : impl::TflAutodiffBase<TflAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    VjpBuilder builder(module);
    SymbolTable symbols(module);
    // Expand grads whose callee reaches no grad, until none is left.
    while (true) {
      DenseMap<Operation *, bool> reachesGrad;
      std::function<bool(func::FuncOp)> reaches = [&](func::FuncOp f) {
        auto [it, inserted] = reachesGrad.try_emplace(f, false);
        if (!inserted)
          return it->second;
        bool found = false;
        f.walk([&](Operation *op) {
          if (isa<GradOp>(op))
            found = true;
          else if (auto call = dyn_cast<func::CallOp>(op))
            if (auto g = symbols.lookup<func::FuncOp>(call.getCallee()))
              found |= reaches(g);
        });
        return reachesGrad[f] = found;
      };
      SmallVector<GradOp> ready;
      bool anyLeft = false;
      module.walk([&](GradOp grad) {
        anyLeft = true;
        auto callee = symbols.lookup<func::FuncOp>(grad.getCallee());
        if (!callee || !reaches(callee))
          ready.push_back(grad);
      });
      if (!anyLeft)
        return;
      if (ready.empty()) {
        module.emitError("tfl.grad ops reach each other in a cycle");
        return signalPassFailure();
      }
      for (GradOp grad : ready)
        if (failed(builder.expand(grad)))
          return signalPassFailure();
    }
  }
};

} // namespace

} // namespace mlir::tfl
