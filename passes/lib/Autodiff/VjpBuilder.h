//===- VjpBuilder.h - Reverse mode's builder of vjp functions ---*- C++ -*-===//
//
// Shared by the autodiff pass's files (passes/lib/Autodiff/): Autodiff.cpp
// (the pass, and which vjp each function gets), Activity.cpp (which values
// and ops the reverse sweep has work for), ReverseSweep.cpp (the forward
// copy and the pullbacks of a block's ops) and ControlFlow.cpp (the
// reverse of ifs and loops, and their tapes). The algorithm is described
// in Autodiff.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_PASSES_AUTODIFF_VJPBUILDER_H
#define TFL_PASSES_AUTODIFF_VJPBUILDER_H

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/ScopeExit.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

namespace mlir::tfl::autodiff {

inline bool isFloatTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// Whether `f` has a custom derivative (@custom_gradient's pullback or
/// @custom_jvp's tangent rule): it returns its value's leaves, then the
/// residuals its rule reads.
inline bool hasCustomRule(func::FuncOp f) {
  return f->hasAttr("tfl.custom_value_leaves");
}

/// How many leaves the value of `f` (a function with a custom rule) has:
/// its first results; the residuals its rule reads come after.
inline size_t customValueLeaves(func::FuncOp f) {
  return static_cast<size_t>(
      f->getAttrOfType<IntegerAttr>("tfl.custom_value_leaves").getInt());
}

/// A custom-rule function's rule: @custom_jvp's jvp_fn(t..., residuals...)
/// (`tangent`) or @custom_gradient's grad_fn(dy..., residuals...). `lead`
/// counts its inputs before the residuals: the arguments' tangents (what
/// f captures, after its arguments, is constant to the rule) or the
/// value's cotangents.
struct CustomRule {
  func::FuncOp fn;
  bool tangent;
  size_t valueLeaves, lead;
};
inline CustomRule customRuleOf(SymbolTable &symbols, func::FuncOp f) {
  bool tangent = f->hasAttr("tfl.custom_tangent");
  auto name = f->getAttrOfType<FlatSymbolRefAttr>(
      tangent ? "tfl.custom_tangent" : "tfl.custom_pullback");
  auto fn = symbols.lookup<func::FuncOp>(name.getValue());
  size_t leaves = customValueLeaves(f);
  size_t residuals = f.getFunctionType().getNumResults() - leaves;
  return {fn, tangent, leaves, fn.getFunctionType().getNumInputs() - residuals};
}

/// The function a derivative of `f` is built from: `f`, or, where `f`
/// holds attention ops the transform takes apart (tfl.attention_backward,
/// which has no rule of its own, and with `forwardToo` tfl.attention,
/// whose pullback forward mode would transpose), a copy of `f` next to it
/// with those ops decomposed (tfl/IR/Attention.h), so that `f` itself
/// keeps its fused ops.
func::FuncOp attentionParts(SymbolTable &symbols, func::FuncOp f,
                            bool forwardToo);
/// After a derivative `derived` of `f` was built from `parts`: names it as
/// built from `f` and erases `parts` if it is a copy.
void dropAttentionParts(SymbolTable &symbols, func::FuncOp f,
                        func::FuncOp parts, FailureOr<func::FuncOp> derived);

/// Marks a batched function whose custom rule vmap could not batch.
constexpr llvm::StringLiteral kUnbatchedRuleAttr = "tfl.unbatched_rule";

/// An error at a batched function `f` whose custom rule vmap could not
/// batch, when a derivative of it is asked for; success for another.
inline LogicalResult checkRuleBatched(func::FuncOp f) {
  auto name = f->getAttrOfType<FlatSymbolRefAttr>(kUnbatchedRuleAttr);
  if (!name)
    return success();
  InFlightDiagnostic error =
      f.emitError("vmap cannot batch the custom rule of this function, "
                  "which a derivative of vmap of it needs");
  if (Operation *rule = SymbolTable::lookupNearestSymbolFrom(f, name))
    error.attachNote(rule->getLoc())
        << "the rule: vmap cannot batch a print or a write of what "
           "differs per example";
  return error;
}

/// Marks the op whose result says whether a reverse loop's iteration ran
/// (for vmap, which runs every example's loop as long as the longest: the
/// examples for which it did not ran it on values no iteration had).
constexpr llvm::StringLiteral kIterationRanAttr = "tfl.iteration_ran";

/// A zero of `type`: a tfl constant for a tensor, an arith one for a scalar
/// (an index or integer a function takes besides its tensors).
inline Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return arith::ConstantOp::create(b, loc,
                                     cast<TypedAttr>(b.getZeroAttr(type)));
  return filled(b, loc, tensor,
                cast<TypedAttr>(b.getZeroAttr(tensor.getElementType())));
}

/// An i64 constant.
inline Value i64Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64Type(),
                                   b.getI64IntegerAttr(v));
}

/// The value a tape push, write or add stores (its last operand), or null
/// for another op.
inline Value storedOnTape(Operation &op) {
  return isa<TapePushOp, TapeWriteOp, TapeAddOp>(op)
             ? op.getOperand(op.getNumOperands() - 1)
             : Value();
}

/// The type of the random generator's state: key and draw count.
inline RankedTensorType randomStateType(Builder &b) {
  return RankedTensorType::get({2}, b.getI64Type());
}

/// Adds `cotangent` to the cotangent of `of`.
inline void accumulate(OpBuilder &b, DenseMap<Value, Value> &adjoint, Value of,
                       Value cotangent, Location loc) {
  auto [it, inserted] = adjoint.try_emplace(of, cotangent);
  if (!inserted)
    it->second =
        AddOp::create(b, loc, cotangent.getType(), it->second, cotangent);
}

/// While alive, marks the ops `b` creates with `op`'s device, when `op`
/// names one (ops in a `with device` block do).
class OnDeviceOf {
public:
  OnDeviceOf(OpBuilder &b, Operation &op)
      : b(b), outer(b.getListener()),
        marker(op.getAttrOfType<StringAttr>(kDeviceAttrName)) {
    if (marker.device)
      b.setListener(&marker);
  }
  ~OnDeviceOf() { b.setListener(outer); }
  OnDeviceOf(const OnDeviceOf &) = delete;
  OnDeviceOf &operator=(const OnDeviceOf &) = delete;

private:
  OpBuilder &b;
  OpBuilder::Listener *outer;
  DeviceMarker marker;
};

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
  /// Forward mode shares the activity analysis.
  friend class JvpBuilder;
  friend class BatchBuilder;
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
  /// residuals the primal returned. A @custom_jvp function's: its primal,
  /// then its tangent rule (the user's jvp_fn, linear in the tangents)
  /// transposed.
  FailureOr<func::FuncOp> buildCustom(func::FuncOp f);
  FailureOr<func::FuncOp> buildTransposedRule(func::FuncOp f);
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
  /// The pullback of a while's last `before` execution (its exit test,
  /// recomputed from the state it read back): the cotangents the reverse
  /// loop starts from, of the carried state and of the `outside` values.
  FailureOr<SmallVector<Value>>
  reverseExitTest(OpBuilder &b, scf::WhileOp op, IRMapping &map,
                  ArrayRef<Value> dResults, ArrayRef<unsigned> carried,
                  ArrayRef<Value> outside, Value iterations);
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
  /// cotangents of the loop's `inits` and of `outside`. With `ran` (an i1:
  /// whether the iteration ran), an scf.if passes the cotangents through
  /// an iteration that did not run: a while's or a `for`'s over a range
  /// not known when compiling, where vmap runs every example as long as
  /// the longest and records the others' iterations with their state
  /// unchanged. Outside vmap every recorded iteration ran (a branch always
  /// taken); under it the if is a select per example.
  void finishReverseLoop(OpBuilder &b, OpBuilder &rb, scf::ForOp reverse,
                         ArrayRef<Value> states, ArrayRef<Value> inits,
                         ArrayRef<Value> outside,
                         DenseMap<Value, Value> &iterationAdjoint,
                         DenseMap<Value, Value> &adjoint, Value ran = {});
  /// How many iterations the latest forward copy of the loop `op` pushed
  /// on the tape (an index).
  Value recordedIterations(OpBuilder &b, Location loc, Operation *op);
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

} // namespace mlir::tfl::autodiff

#endif // TFL_PASSES_AUTODIFF_VJPBUILDER_H
