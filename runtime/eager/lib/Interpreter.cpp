//===- Interpreter.cpp - The eager interpreter of tfl IR ------------------===//
//
// A frame maps each SSA value of the running function to its tensor. Blocks
// run their ops in order; calls push a frame and a location on the call
// stack; a kernel that throws stops the run with a diagnostic at its op.
//
//===----------------------------------------------------------------------===//

#include "tfl/Eager/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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
  if (t.isInteger(64))
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
  /// Reports `message` at `op` with the call stack as notes.
  void fail(Operation *op, const Twine &message);

  SymbolTable symbols;
  const KernelRegistry &registry;
  SmallVector<Location> callStack;
};

void Interpreter::fail(Operation *op, const Twine &message) {
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
  if (auto callOp = dyn_cast<func::CallOp>(op)) {
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
