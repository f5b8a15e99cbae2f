//===- Interpreter.cpp - The eager interpreter of tfl IR ------------------===//
//
// A frame maps each SSA value of the running function to its tensor (scalars
// of builtin types, index included, are 0-d tensors). Blocks run their ops
// in order; calls push a frame and a location on the call stack; scf.if,
// scf.for and scf.while run their regions here; a kernel that throws stops
// the run with a diagnostic at its op.
//
//===----------------------------------------------------------------------===//

#include "tfl/Eager/Interpreter.h"
#include "tflrt/Output.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace tfl::eager {

tflrt::DType toRuntimeDType(Type t) {
  if (t.isF32())
    return tflrt::DType::F32;
  if (t.isF64())
    return tflrt::DType::F64;
  if (t.isInteger(32))
    return tflrt::DType::I32;
  if (t.isInteger(64) || t.isIndex())
    return tflrt::DType::I64;
  if (t.isInteger(8))
    return tflrt::DType::U8;
  return tflrt::DType::Bool;
}

namespace {

class Interpreter {
public:
  Interpreter(ModuleOp module, const KernelRegistry &registry)
      : symbols(module), registry(registry) {}

  FailureOr<SmallVector<Tensor>> call(func::FuncOp fn, ArrayRef<Tensor> args);

private:
  using Frame = llvm::DenseMap<Value, Tensor>;

  /// Runs `block`'s ops; returns the operands of its terminator.
  FailureOr<SmallVector<Tensor>> runBlock(Block &block, Frame &frame);
  LogicalResult runOp(Operation &op, Frame &frame);
  /// Runs a structured control-flow op; its results go to `results`.
  LogicalResult runControlFlow(Operation &op, ArrayRef<Tensor> operands,
                               Frame &frame, SmallVectorImpl<Tensor> &results);
  /// Reports `message` at `op` with the call stack as notes.
  void fail(Operation *op, const Twine &message);

  SymbolTable symbols;
  const KernelRegistry &registry;
  SmallVector<Location> callStack;
};

void Interpreter::fail(Operation *op, const Twine &message) {
  // What the program printed so far comes before the error, as natively.
  tflrt::flushOutput();
  InFlightDiagnostic diag = op->emitError(message);
  for (auto it = callStack.rbegin(); it != callStack.rend(); ++it)
    diag.attachNote(*it) << "called from here";
}

FailureOr<SmallVector<Tensor>> Interpreter::call(func::FuncOp fn,
                                                 ArrayRef<Tensor> args) {
  Frame frame;
  Block &entry = fn.getBody().front();
  for (auto [arg, value] : llvm::zip(entry.getArguments(), args))
    frame[arg] = value;
  return runBlock(entry, frame);
}

FailureOr<SmallVector<Tensor>> Interpreter::runBlock(Block &block,
                                                     Frame &frame) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      SmallVector<Tensor> results;
      for (Value v : op.getOperands())
        results.push_back(frame.lookup(v));
      return results;
    }
    if (failed(runOp(op, frame)))
      return failure();
  }
  return SmallVector<Tensor>();
}

LogicalResult Interpreter::runOp(Operation &op, Frame &frame) {
  SmallVector<Tensor> operands;
  for (Value v : op.getOperands())
    operands.push_back(frame.lookup(v));

  SmallVector<Tensor> results;
  if (isa<scf::IfOp, scf::ForOp, scf::WhileOp>(op)) {
    if (failed(runControlFlow(op, operands, frame, results)))
      return failure();
  } else if (auto callOp = dyn_cast<func::CallOp>(op)) {
    auto callee = symbols.lookup<func::FuncOp>(callOp.getCallee());
    if (!callee || callee.isExternal()) {
      fail(&op, "call of a function with no body: @" + callOp.getCallee());
      return failure();
    }
    callStack.push_back(op.getLoc());
    FailureOr<SmallVector<Tensor>> r = call(callee, operands);
    callStack.pop_back();
    if (failed(r))
      return failure();
    results = std::move(*r);
  } else {
    const Kernel *kernel = registry.lookup(op.getName().getStringRef());
    if (!kernel) {
      fail(&op, "the eager interpreter has no kernel for '" +
                    op.getName().getStringRef() + "'");
      return failure();
    }
    try {
      (*kernel)(&op, operands, results);
    } catch (const std::exception &e) {
      fail(&op, e.what());
      return failure();
    }
  }
  for (auto [value, tensor] : llvm::zip(op.getResults(), results))
    frame[value] = std::move(tensor);
  return success();
}

/// The value of a 0-d integer tensor.
int64_t scalarInt(const Tensor &t) { return t.view().getAsInt(nullptr); }

Tensor indexTensor(int64_t v) {
  Tensor t(tflrt::DType::I64, {});
  t.data<int64_t>()[0] = v;
  return t;
}

LogicalResult Interpreter::runControlFlow(Operation &op,
                                          ArrayRef<Tensor> operands,
                                          Frame &frame,
                                          SmallVectorImpl<Tensor> &results) {
  auto bind = [&](Block &block, ArrayRef<Tensor> values) {
    for (auto [arg, value] : llvm::zip(block.getArguments(), values))
      frame[arg] = value;
  };
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    Region &region =
        scalarInt(operands[0]) ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (region.empty())
      return success();
    FailureOr<SmallVector<Tensor>> r = runBlock(region.front(), frame);
    if (failed(r))
      return failure();
    results.assign(r->begin(), r->end());
    return success();
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    int64_t lb = scalarInt(operands[0]), ub = scalarInt(operands[1]);
    int64_t step = scalarInt(operands[2]);
    SmallVector<Tensor> carried(operands.begin() + 3, operands.end());
    Block &body = forOp.getRegion().front();
    for (int64_t i = lb; i < ub; i += step) {
      frame[body.getArgument(0)] = indexTensor(i);
      for (size_t k = 0; k < carried.size(); ++k)
        frame[body.getArgument(k + 1)] = carried[k];
      FailureOr<SmallVector<Tensor>> r = runBlock(body, frame);
      if (failed(r))
        return failure();
      carried = std::move(*r);
    }
    results.assign(carried.begin(), carried.end());
    return success();
  }
  auto whileOp = cast<scf::WhileOp>(op);
  SmallVector<Tensor> args(operands.begin(), operands.end());
  while (true) {
    Block &before = whileOp.getBefore().front();
    bind(before, args);
    FailureOr<SmallVector<Tensor>> cond = runBlock(before, frame);
    if (failed(cond))
      return failure();
    SmallVector<Tensor> forwarded(cond->begin() + 1, cond->end());
    if (!scalarInt((*cond)[0])) {
      results.assign(forwarded.begin(), forwarded.end());
      return success();
    }
    Block &after = whileOp.getAfter().front();
    bind(after, forwarded);
    FailureOr<SmallVector<Tensor>> next = runBlock(after, frame);
    if (failed(next))
      return failure();
    args = std::move(*next);
  }
}

} // namespace

LogicalResult run(ModuleOp module, StringRef entry,
                  const KernelRegistry &registry) {
  auto fn = module.lookupSymbol<func::FuncOp>(entry);
  if (!fn)
    return module.emitError("no function @") << entry << " to run";
  Interpreter interpreter(module, registry);
  return interpreter.call(fn, {});
}

} // namespace tfl::eager
