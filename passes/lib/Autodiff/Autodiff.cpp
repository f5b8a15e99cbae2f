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
// the value and the gradients (a seeded one, `vjp_fn(dy)`'s, `f.vjp(x,
// dy)`). Grads are expanded innermost first, so the
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

#include "BatchBuilder.h"
#include "JvpBuilder.h"
#include "tfl/IR/Attention.h"
#include "tfl/Passes/Passes.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLAUTODIFF
#include "tfl/Passes/Passes.h.inc"

namespace autodiff {

func::FuncOp attentionParts(SymbolTable &symbols, func::FuncOp f,
                            bool forwardToo) {
  bool any = false;
  f.walk([&](Operation *op) {
    any |= isa<AttentionBackwardOp>(op) || (forwardToo && isa<AttentionOp>(op));
  });
  if (!any)
    return f;
  OpBuilder b(f);
  b.setInsertionPointAfter(f);
  auto parts = cast<func::FuncOp>(b.clone(*f));
  symbols.insert(parts);
  decomposeAttention(parts, forwardToo);
  return parts;
}

void dropAttentionParts(SymbolTable &symbols, func::FuncOp f,
                        func::FuncOp parts, FailureOr<func::FuncOp> derived) {
  if (parts == f)
    return;
  if (succeeded(derived)) {
    StringRef suffix =
        derived->getSymName().drop_front(parts.getSymName().size());
    if (failed(symbols.rename(*derived, (f.getSymName() + suffix).str())))
      llvm_unreachable("a derivative's name is free when it is built");
  }
  symbols.erase(parts);
}

FailureOr<func::FuncOp> VjpBuilder::vjpOf(func::FuncOp f, VjpKind kind,
                                          ArrayRef<bool> differentiated) {
  if (failed(checkRuleBatched(f)))
    return failure();
  // Which arguments are active: a float one that is differentiated. A
  // custom rule computes every cotangent.
  bool custom =
      kind == VjpKind::Full || (kind == VjpKind::Custom && hasCustomRule(f));
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
  else {
    func::FuncOp parts = attentionParts(symbols, f, /*forwardToo=*/false);
    vjp = build(parts,
                (kind == VjpKind::Primal ? ".primal_vjp" : ".vjp") +
                    (all ? std::string() : "." + suffix),
                mask);
    dropAttentionParts(symbols, f, parts, vjp);
  }
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
  size_t valueLeaves = customValueLeaves(f);
  // Both run f's forward: with the same draws.
  Value start = drawsRandom(f)
                    ? RandomStateOp::create(b, f.getLoc(), randomStateType(b))
                    : Value();
  auto withRule =
      func::CallOp::create(b, f.getLoc(), *custom, entry->getArguments());
  if (start)
    SetRandomStateOp::create(b, f.getLoc(), start);
  SmallVector<Value> args(entry->getArguments());
  for (size_t i = 0; i < valueLeaves; ++i)
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

FailureOr<func::FuncOp> VjpBuilder::buildTransposedRule(func::FuncOp f) {
  auto [rule, tangent, valueLeaves, numTangents] = customRuleOf(symbols, f);
  FunctionType type = f.getFunctionType();
  size_t numArgs = type.getNumInputs();
  // jvp_fn(t..., residuals...) is linear in the tangents t: its vjp with
  // respect to them, at t = 0 and the value's cotangent dy, is J^T dy.
  // (What f captures gets zeros.)
  SmallVector<bool> onTangents(rule.getFunctionType().getNumInputs(), false);
  std::fill_n(onTangents.begin(), numTangents, true);
  FailureOr<func::FuncOp> transposed = vjpOf(rule, VjpKind::Custom, onTangents);
  if (failed(transposed))
    return failure();
  OpBuilder b(module.getContext());
  func::FuncOp vjp = createVjpFunction(b, f, ".vjp");
  Block *entry = &vjp.front();
  Location loc = f.getLoc();
  auto primal = func::CallOp::create(b, loc, f,
                                     entry->getArguments().take_front(numArgs));
  SmallVector<Value> args;
  for (Type t : type.getInputs().take_front(numTangents))
    args.push_back(zerosOf(b, loc, t));
  llvm::append_range(args, primal.getResults().drop_front(valueLeaves));
  llvm::append_range(args, entry->getArguments().slice(numArgs, valueLeaves));
  auto grads = func::CallOp::create(b, loc, *transposed, args);
  SmallVector<Value> results(primal.getResults());
  for (size_t i = 0; i < numArgs; ++i)
    results.push_back(i < numTangents && isFloatTensor(type.getInput(i))
                          ? grads.getResult(valueLeaves + i)
                          : zerosOf(b, loc, type.getInput(i)));
  func::ReturnOp::create(b, loc, results);
  return vjp;
}

FailureOr<func::FuncOp> VjpBuilder::buildCustom(func::FuncOp f) {
  if (f->hasAttr("tfl.custom_tangent"))
    return buildTransposedRule(f);
  CustomRule rule = customRuleOf(symbols, f);
  func::FuncOp pullback = rule.fn;
  size_t valueLeaves = rule.valueLeaves;
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
  size_t numInputs = type.getNumInputs();
  // Seeded: the callee's operands, then cotangents for its first results
  // (a @custom_gradient function's value; its residuals get zeros).
  // Otherwise the first result is the value, a float scalar, seeded with 1
  // (a @custom_gradient function returns its residuals after it).
  size_t seeds = grad.getSeeded() ? grad.getOperands().size() - numInputs : 1;
  if (grad.getSeeded()) {
    if (grad.getOperands().size() < numInputs || seeds > type.getNumResults())
      return grad.emitError("a seeded grad takes the callee's ")
             << numInputs << " operands and at most " << type.getNumResults()
             << " cotangents";
    for (size_t i = 0; i < seeds; ++i)
      if (grad.getOperand(numInputs + i).getType() != type.getResult(i))
        return grad.emitError("cotangent ")
               << i << " does not have the type of the callee's result " << i;
  } else if (type.getNumResults() < 1 || !isFloatTensor(type.getResult(0)) ||
             cast<RankedTensorType>(type.getResult(0)).getRank() != 0 ||
             (type.getNumResults() > 1 && !hasCustomRule(callee))) {
    return grad.emitError("grad needs a function returning one float scalar");
  }
  SmallVector<bool> differentiated(type.getNumInputs(), false);
  for (int64_t a : grad.getArgnums())
    differentiated[a] = true;
  FailureOr<func::FuncOp> vjp = vjpOf(callee, VjpKind::Custom, differentiated);
  if (failed(vjp))
    return failure();
  OpBuilder b(grad);
  DeviceMarker marker(grad->getAttrOfType<StringAttr>(kDeviceAttrName));
  b.setListener(&marker);
  SmallVector<Value> args(grad.getOperands());
  if (!grad.getSeeded()) {
    auto seedType = cast<RankedTensorType>(type.getResult(0));
    args.push_back(ConstantOp::create(
        b, grad.getLoc(),
        DenseElementsAttr::get(
            seedType, b.getFloatAttr(seedType.getElementType(), 1.0))));
  }
  for (Type t : type.getResults().drop_front(seeds))
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

} // namespace autodiff

namespace {

using autodiff::BatchBuilder;
using autodiff::JvpBuilder;
using autodiff::VjpBuilder;

struct TflAutodiffPass : impl::TflAutodiffBase<TflAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    VjpBuilder builder(module);
    JvpBuilder forward(module, builder);
    BatchBuilder batching(module, builder);
    forward.batching = &batching;
    SymbolTable symbols(module);
    auto calleeOf = [&](Operation *op) {
      auto callee = op->getAttrOfType<FlatSymbolRefAttr>("callee");
      return symbols.lookup<func::FuncOp>(callee.getValue());
    };
    // Expand grads, jvps, jacobians and vmaps whose callee reaches none,
    // until none is left.
    while (true) {
      DenseMap<Operation *, bool> reachesGrad;
      std::function<bool(func::FuncOp)> reaches = [&](func::FuncOp f) {
        auto [it, inserted] = reachesGrad.try_emplace(f, false);
        if (!inserted)
          return it->second;
        bool found = false;
        f.walk([&](Operation *op) {
          if (isa<GradOp, JvpOp, JacobianOp, VmapOp>(op))
            found = true;
          else if (auto call = dyn_cast<func::CallOp>(op))
            if (auto g = symbols.lookup<func::FuncOp>(call.getCallee()))
              found |= reaches(g);
        });
        return reachesGrad[f] = found;
      };
      SmallVector<Operation *> ready;
      bool anyLeft = false;
      module.walk([&](Operation *op) {
        if (!isa<GradOp, JvpOp, JacobianOp, VmapOp>(op))
          return;
        anyLeft = true;
        func::FuncOp callee = calleeOf(op);
        if (!callee || !reaches(callee))
          ready.push_back(op);
      });
      if (!anyLeft)
        return;
      if (ready.empty()) {
        module.emitError("tfl.grad, tfl.jvp, tfl.jacobian and tfl.vmap ops "
                         "reach each other in a cycle");
        return signalPassFailure();
      }
      for (Operation *op : ready) {
        LogicalResult expanded =
            isa<GradOp>(op)   ? builder.expand(cast<GradOp>(op))
            : isa<JvpOp>(op)  ? forward.expand(cast<JvpOp>(op))
            : isa<VmapOp>(op) ? batching.expand(cast<VmapOp>(op))
                              : forward.expand(cast<JacobianOp>(op));
        if (failed(expanded))
          return signalPassFailure();
      }
    }
  }
};

} // namespace

} // namespace mlir::tfl
