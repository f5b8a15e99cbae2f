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
// Functions with control flow (scf) are not differentiated yet: the pass
// reports the region op at its location.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLAUTODIFF
#include "tfl/Passes/Passes.h.inc"

namespace {

bool isFloatTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(tensor, b.getZeroAttr(tensor.getElementType())));
}

class VjpBuilder {
public:
  explicit VjpBuilder(ModuleOp module) : module(module), symbols(module) {}

  /// The vjp function of `f`, built on first use.
  FailureOr<func::FuncOp> vjpOf(func::FuncOp f);

  /// Replaces `grad` by a call of its callee's vjp.
  LogicalResult expand(GradOp grad);

private:
  FailureOr<func::FuncOp> build(func::FuncOp f);

  ModuleOp module;
  SymbolTable symbols;
  DenseMap<Operation *, func::FuncOp> vjps;
};

FailureOr<func::FuncOp> VjpBuilder::vjpOf(func::FuncOp f) {
  auto it = vjps.find(f);
  if (it != vjps.end())
    return it->second;
  FailureOr<func::FuncOp> vjp = build(f);
  if (succeeded(vjp))
    vjps[f] = *vjp;
  return vjp;
}

FailureOr<func::FuncOp> VjpBuilder::build(func::FuncOp f) {
  if (!f.getBody().hasOneBlock())
    return f.emitError("autodiff needs a function of one block");
  Block &body = f.getBody().front();
  for (Operation &op : body.without_terminator())
    if (op.getNumRegions() > 0)
      return op.emitError("differentiating through '")
             << op.getName() << "' is not supported yet";

  // The vjp's signature: (args, result cotangents) -> (results, arg
  // cotangents).
  FunctionType type = f.getFunctionType();
  SmallVector<Type> inputs(type.getInputs());
  llvm::append_range(inputs, type.getResults());
  SmallVector<Type> outputs(type.getResults());
  llvm::append_range(outputs, type.getInputs());
  OpBuilder b(module.getContext());
  b.setInsertionPointAfter(f);
  auto vjp =
      func::FuncOp::create(b, f.getLoc(), (f.getSymName() + ".vjp").str(),
                           b.getFunctionType(inputs, outputs));
  vjp.setPrivate();
  symbols.insert(vjp);
  Block *entry = vjp.addEntryBlock();
  b.setInsertionPointToStart(entry);

  // 1-2. The forward sweep, and which values are active.
  IRMapping map;
  DenseSet<Value> active;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    map.map(arg, entry->getArgument(i));
    if (isFloatTensor(arg.getType()))
      active.insert(arg);
  }
  for (Operation &op : body.without_terminator()) {
    b.clone(op, map);
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      for (Value r : op.getResults())
        if (isFloatTensor(r.getType()))
          active.insert(r);
  }

  // 3. Seeds.
  DenseMap<Value, Value> adjoint;
  auto accumulate = [&](Value of, Value cotangent, Location loc) {
    auto [it, inserted] = adjoint.try_emplace(of, cotangent);
    if (!inserted)
      it->second =
          AddOp::create(b, loc, cotangent.getType(), it->second, cotangent);
  };
  Operation *ret = body.getTerminator();
  size_t numArgs = type.getNumInputs();
  for (auto [i, v] : llvm::enumerate(ret->getOperands()))
    if (active.contains(v))
      accumulate(v, entry->getArgument(numArgs + i), ret->getLoc());

  // 4. The reverse sweep.
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    SmallVector<Value> dResults;
    bool any = false;
    for (Value r : op.getResults()) {
      dResults.push_back(adjoint.lookup(r));
      any |= dResults.back() != nullptr;
    }
    if (!any || llvm::none_of(op.getOperands(),
                              [&](Value v) { return active.contains(v); }))
      continue;
    Operation *clone = map.lookup(op.getResult(0)).getDefiningOp();
    SmallVector<Value> dOperands;
    if (auto call = dyn_cast<func::CallOp>(clone)) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      FailureOr<func::FuncOp> calleeVjp = vjpOf(callee);
      if (failed(calleeVjp))
        return failure();
      SmallVector<Value> args(call.getOperands());
      for (auto [r, d] : llvm::zip(call.getResults(), dResults))
        args.push_back(d ? d : zerosOf(b, op.getLoc(), r.getType()));
      auto reverse = func::CallOp::create(b, op.getLoc(), *calleeVjp, args);
      llvm::append_range(dOperands,
                         reverse.getResults().drop_front(call.getNumResults()));
    } else {
      auto rule = dyn_cast<ReverseOpInterface>(clone);
      if (!rule)
        return op.emitError("no gradient rule for '")
               << op.getName() << "'; it cannot be differentiated";
      if (failed(rule.reverse(b, dResults, dOperands)))
        return failure();
    }
    for (auto [operand, d] : llvm::zip(op.getOperands(), dOperands))
      if (d && active.contains(operand))
        accumulate(operand, d, op.getLoc());
  }

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
  if (type.getNumResults() != 1 || !isFloatTensor(type.getResult(0)) ||
      cast<RankedTensorType>(type.getResult(0)).getRank() != 0)
    return grad.emitError("grad needs a function returning one float scalar");
  FailureOr<func::FuncOp> vjp = vjpOf(callee);
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
  auto call = func::CallOp::create(b, grad.getLoc(), *vjp, args);
  SmallVector<Value> results;
  if (grad.getWithValue())
    results.push_back(call.getResult(0));
  for (int64_t a : grad.getArgnums())
    results.push_back(call.getResult(1 + a));
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
