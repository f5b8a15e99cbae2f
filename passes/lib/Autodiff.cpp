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
// An scf.for's forward copy pushes each iteration's state on the vjp's own
// tape; its pullback is a loop over the same iterations in reverse that
// reads the state back, recomputes the iteration and pulls back through
// it, then releases the entries. An scf.while's copy pushes the state of
// each `before` execution; the tape's cursor around the loop counts them;
// its pullback goes through the last `before`, then loops over the
// counted iterations in reverse.
//
// Tapes are differentiable, so the vjp of a vjp goes through loops: the
// vjp of a function using tapes 0..M uses tape M + 1 for its own loops
// and tape M + 2 + c for the cotangents of tape c's entries. The reverse
// of a read adds the read's cotangent into the accumulator of its
// position; the reverse of the push takes the sum (and the reverse of an
// add reads, of an accumulator's read writes, on that tape). Copies keep
// every entry (they skip releases), and before running an iteration or a
// branch again the reverse sweep moves the cursors of the tapes it
// pushes on back to where they were, so it pushes its entries at the
// positions it pushed them the first time, where the accumulators are.
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
#include "llvm/ADT/ScopeExit.h"

#include <map>
#include <set>

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
  return filled(b, loc, tensor,
                cast<TypedAttr>(b.getZeroAttr(tensor.getElementType())));
}

/// An i64 constant.
Value i64Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64Type(),
                                   b.getI64IntegerAttr(v));
}

/// The value a tape push, write or add stores (its last operand), or null
/// for another op.
Value storedOnTape(Operation &op) {
  return isa<TapePushOp, TapeWriteOp, TapeAddOp>(op)
             ? op.getOperand(op.getNumOperands() - 1)
             : Value();
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
  /// reads the iteration's state back, recomputes the body, and pulls the
  /// carried values' cotangents back through it, accumulating those of the
  /// active values the body reads from outside.
  LogicalResult reverseFor(OpBuilder &b, scf::ForOp op, IRMapping &map,
                           ArrayRef<Value> dResults,
                           DenseMap<Value, Value> &adjoint);
  /// scf.while: the forward copy pushes the state each `before` execution
  /// starts from, and reads the tape's cursor around the loop to count
  /// them.
  /// The pullback pulls back through the last `before` (the exit test),
  /// then loops over the iterations, last first, through `after` and
  /// `before`, recomputing each from the state it read back.
  LogicalResult reverseWhile(OpBuilder &b, scf::WhileOp op, IRMapping &map,
                             ArrayRef<Value> dResults,
                             DenseMap<Value, Value> &adjoint);
  /// Whether the forward copy of `op` pushes per-iteration states on the
  /// tape (and its reverse reads them): a loop with an active result, or
  /// that writes active values on a tape.
  bool usesTape(Operation &op);
  /// What the forward copy of a loop on the tape pushed: where its entries
  /// start and end (a while's), and per iteration, the generator's state
  /// (if it draws), the cursors of the lower tapes it pushes on, and the
  /// state the iteration started from.
  struct LoopTape {
    Value start, end;
    bool draws = false;
    SmallVector<int64_t> lower;
    int64_t perIteration = 0;
  };
  /// In the reverse of `op`, gets back what iteration `m` (an i64, or a
  /// `before` execution of a while) pushed: sets the generator's state,
  /// moves the lower tapes' cursors back, and maps the arguments of
  /// `start` from `first` on in `local`.
  void readIteration(OpBuilder &rb, Location loc, Operation *op, Block &start,
                     size_t first, Value m, IRMapping &local);
  /// The tapes below the vjp's own that `op` or its regions push on.
  SmallVector<int64_t> lowerTapesPushed(Operation *op);
  /// Removes from a copy of an op (and its regions) what copies leave out:
  /// releases of tape entries (the vjp's reverse reads them again), and in
  /// a `recompute` copy, output and additions into accumulators (done
  /// once, by the forward copy); marks a recompute copy's pushes as
  /// replays.
  void scrub(Operation *copy, bool recompute);
  /// Whether a copy leaves `op` out (see scrub).
  static bool leftOutOfCopy(Operation &op, bool recompute);
  /// The pullback of a tape op of the function differentiated: on the
  /// tape that holds its cotangents.
  void reverseTapeOp(OpBuilder &b, Operation &op, IRMapping &map,
                     ArrayRef<Value> dResults, DenseMap<Value, Value> &adjoint);
  /// A loop of `n` iterations from 0 carrying `inits`, its body empty.
  scf::ForOp reverseLoop(OpBuilder &b, Location loc, Value n, ValueRange inits);
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
  /// What the latest copy of each loop on the tape pushed.
  DenseMap<Operation *, LoopTape> loopTape;
  /// The cursor each lower tape push of the function differentiated wrote
  /// at, in its latest copy.
  DenseMap<Operation *, Value> pushPosition;
  /// The cursors of the lower tapes an if pushes on, before its latest
  /// copy.
  DenseMap<Operation *, SmallVector<std::pair<int64_t, Value>>> tapesBefore;
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
  /// Its tapes whose entries, or whose accumulators, hold active values.
  DenseSet<int64_t> activeEntries, activeSums;
  /// The tape its vjp's loops use: above every tape it uses itself.
  int64_t ownTape = 0;
  /// The tape holding the cotangents of tape `tape`'s entries (and the
  /// entries whose cotangents tape `tape`'s accumulators hold).
  int64_t adjointTape(int64_t tape) const { return ownTape + 1 + tape; }
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
  // A callee's vjp is built in the middle of its caller's.
  auto outer = std::make_tuple(std::move(active), std::move(activeEntries),
                               std::move(activeSums), ownTape);
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
  std::tie(active, activeEntries, activeSums, ownTape) = std::move(outer);
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
  // tfl-inline-into-vjps inlines the calls it makes.
  vjp->setAttr("tfl.vjp", b.getUnitAttr());
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
    // What a tape op reads is active when active values were written there
    // (a fixed point over the function, in build).
    if (Value stored = storedOnTape(op); stored && isActive(stored))
      (isa<TapeAddOp>(op) ? activeSums : activeEntries)
          .insert(op.getAttrOfType<IntegerAttr>("tape").getInt());
    if (auto read = dyn_cast<TapeReadOp>(op);
        read && activeEntries.contains(read.getTape()) &&
        isFloatTensor(read.getType()))
      active.insert(read.getResult());
    if (auto sum = dyn_cast<TapeAccumulatedOp>(op);
        sum && activeSums.contains(sum.getTape()))
      active.insert(sum.getResult());
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
  DeviceMarker marker(op.getAttrOfType<StringAttr>(kDeviceAttrName));
  OpBuilder::Listener *outer = b.getListener();
  if (marker.device)
    b.setListener(&marker);
  llvm::scope_exit restore([&] { b.setListener(outer); });
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
    if (isWhile)
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

bool VjpBuilder::usesTape(Operation &op) {
  if (!isa<scf::ForOp, scf::WhileOp>(op))
    return false;
  if (llvm::any_of(op.getResults(),
                   [&](Value v) { return active.contains(v); }))
    return true;
  WalkResult writes = op.walk([&](Operation *inner) {
    Value stored = storedOnTape(*inner);
    return stored && active.contains(stored) ? WalkResult::interrupt()
                                             : WalkResult::advance();
  });
  return writes.wasInterrupted();
}

bool VjpBuilder::drawsRandom(Operation *op) {
  WalkResult found = op->walk([&](Operation *inner) {
    if (isa<RandomNormalOp, RandomUniformOp, ShuffleIndicesOp, SeedOp,
            SetRandomStateOp>(inner))
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
  scf::ForOp reverse = reverseLoop(b, loc, n, inits);
  Block *rbody = reverse.getBody();
  OpBuilder rb = OpBuilder::atBlockBegin(rbody);
  Value last = arith::SubIOp::create(
      rb, loc,
      arith::SubIOp::create(rb, loc, n,
                            arith::ConstantIndexOp::create(rb, loc, 1)),
      reverse.getInductionVar());
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
                    iterationAdjoint, adjoint);
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

  // Reads the state `before` execution `m` started from and recomputes it.
  auto recomputeBefore = [&](OpBuilder &rb, IRMapping &local,
                             Value m) -> LogicalResult {
    readIteration(rb, loc, op, before, /*first=*/0, m, local);
    return cloneForward(rb, before, local, /*recompute=*/true);
  };

  // 1. The last `before` execution: the exit test, forwarding the results.
  IRMapping last = map;
  if (failed(recomputeBefore(b, last, iterations)))
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
  // Iteration j of the reverse loop runs after `iterations - 1 - j`.
  Value n = arith::IndexCastOp::create(b, loc, b.getIndexType(), iterations);
  scf::ForOp reverse = reverseLoop(b, loc, n, inits);
  OpBuilder rb = OpBuilder::atBlockBegin(reverse.getBody());
  IRMapping local = map;
  Value m = arith::SubIOp::create(
      rb, loc,
      arith::SubIOp::create(rb, loc, iterations, i64Constant(rb, loc, 1)),
      arith::IndexCastOp::create(rb, loc, i64, reverse.getInductionVar()));
  if (failed(recomputeBefore(rb, local, m)))
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
  TapeRewindOp::create(b, loc, tape.start, ownTape, /*release=*/true);
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
  // The vjp's loops use a tape above every tape f uses (f being a vjp
  // itself, for a higher derivative).
  ownTape = 0;
  f.walk([&](Operation *op) {
    if (auto tape = op->getAttrOfType<IntegerAttr>("tape"))
      ownTape = std::max(ownTape, tape.getInt() + 1);
  });

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
  // What a tape read gives is active when active values were written on
  // that tape anywhere in f: iterate to a fixed point.
  activeEntries.clear();
  activeSums.clear();
  for (size_t marked = 0;;) {
    markActive(body);
    size_t now = active.size() + activeEntries.size() + activeSums.size();
    if (now == marked)
      break;
    marked = now;
  }
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
  // A vjp that uses tapes has a frame of its own.
  WalkResult tapes = vjp.walk([](Operation *op) {
    return op->hasAttr("tape") ? WalkResult::interrupt()
                               : WalkResult::advance();
  });
  if (tapes.wasInterrupted())
    TapeExitOp::create(b, f.getLoc());
  func::ReturnOp::create(b, ret->getLoc(), results);
  if (tapes.wasInterrupted()) {
    b.setInsertionPointToStart(entry);
    TapeEnterOp::create(b, f.getLoc());
  }
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
  DeviceMarker marker(grad->getAttrOfType<StringAttr>(kDeviceAttrName));
  b.setListener(&marker);
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
