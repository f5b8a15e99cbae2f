//===- Interpreter.cpp - The eager interpreter of tfl IR ------------------===//
//
// A frame maps each SSA value of the running function to its tensor (scalars
// of builtin types, index included, are 0-d tensors). Blocks run their ops
// in order; calls push a frame and a location on the call stack; scf.if,
// scf.for and scf.while run their regions here; a kernel that throws stops
// the run with a diagnostic at its op. A value leaves the frame after the
// last op of its block that uses it, so its tensor is freed then (if no
// other value shares it), as a reference count in Python would free it.
//
//===----------------------------------------------------------------------===//

#include "tfl/Eager/Interpreter.h"
#include "tfl/IR/TflOps.h"
#include "tflrt/Flags.h"
#include "tflrt/Format.h"
#include "tflrt/Kernels.h"
#include "tflrt/Output.h"

#include <cmath>
#include <memory>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace tfl::eager {

tflrt::DType toRuntimeDType(Type t) {
  if (t.isF32())
    return tflrt::DType::F32;
  if (t.isF64())
    return tflrt::DType::F64;
  if (t.isBF16())
    return tflrt::DType::BF16;
  if (t.isF16())
    return tflrt::DType::F16;
  if (t.isInteger(32))
    return tflrt::DType::I32;
  if (t.isInteger(64) || t.isIndex())
    return tflrt::DType::I64;
  if (t.isInteger(8))
    return tflrt::DType::U8;
  return tflrt::DType::Bool;
}

namespace {

bool isHalfTensor(const Tensor &t) { return tflrt::isHalf(t.dtype()); }
bool isHalfType(Type t) {
  return mlir::tfl::isHalfFloat(getElementTypeOrSelf(t));
}

class Interpreter {
public:
  Interpreter(ModuleOp module, const KernelRegistry &registry,
              const RunOptions &options)
      : symbols(module), registry(registry), options(options) {}

  FailureOr<SmallVector<Tensor>> call(func::FuncOp fn, ArrayRef<Tensor> args);
  /// The debugger's view of the stack: a frame per running function.
  SmallVector<DebugFrame> debugFrames;

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

  /// A tfl.debug_point: records where the frame is, and stops there when
  /// it is a breakpoint or the debugger is stepping.
  LogicalResult debugPoint(mlir::tfl::DebugPointOp op,
                           ArrayRef<Tensor> operands);
  /// Shows the debugger's prompt; failure when it quits the run.
  LogicalResult stopInDebugger(Operation *op, StringRef reason);
  /// Stepping: stop at the next debug point (Step), or at the next one in a
  /// frame no deeper than `nextDepth` (Next).
  DebugAction stepping = DebugAction::Continue;
  size_t nextDepth = 0;

  /// Traces and checks the results of `op` as the options ask.
  LogicalResult observe(Operation &op, ArrayRef<Tensor> results);

  /// For each op of `block`, the values of the block (its arguments and
  /// results of its ops) whose last use in the block it is (an op holding
  /// a use in a region counts); a value nothing uses dies where it is
  /// defined (arguments: at the block's first op). Computed once a block.
  const llvm::DenseMap<Operation *, SmallVector<Value>> &deaths(Block &block);

  SymbolTable symbols;
  const KernelRegistry &registry;
  const RunOptions &options;
  SmallVector<Location> callStack;
  uint64_t opsRun = 0;
  // (Boxed: a block's map stays where it is while nested blocks add
  // theirs.)
  llvm::DenseMap<
      Block *, std::unique_ptr<llvm::DenseMap<Operation *, SmallVector<Value>>>>
      deathsByBlock;
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
  if (!options.debugger)
    return runBlock(entry, frame);
  debugFrames.push_back({fn.getSymName().str(), fn.getLoc(), -1, {}, {}});
  FailureOr<SmallVector<Tensor>> results = runBlock(entry, frame);
  debugFrames.pop_back();
  return results;
}

LogicalResult Interpreter::debugPoint(mlir::tfl::DebugPointOp op,
                                      ArrayRef<Tensor> operands) {
  if (debugFrames.empty())
    return success();
  DebugFrame &here = debugFrames.back();
  here.where = op.getLoc();
  here.scope = static_cast<int64_t>(op.getScope());
  here.values.assign(operands.begin(), operands.end());
  here.names.clear();
  for (llvm::StringRef name : op.getNames().getAsValueRange<StringAttr>())
    here.names.push_back(name.str());
  if (op.getStop())
    return stopInDebugger(op, "breakpoint");
  if (stepping == DebugAction::Step ||
      (stepping == DebugAction::Next && debugFrames.size() <= nextDepth))
    return stopInDebugger(op, "step");
  return success();
}

LogicalResult Interpreter::stopInDebugger(Operation *op, StringRef reason) {
  tflrt::flushOutput();
  DebugAction action = options.debugger(debugFrames, reason);
  stepping = action;
  nextDepth = debugFrames.size();
  if (action == DebugAction::Quit) {
    InFlightDiagnostic diag = op->emitError("the run was stopped at the "
                                            "debugger's prompt");
    for (auto it = callStack.rbegin(); it != callStack.rend(); ++it)
      diag.attachNote(*it) << "called from here";
    return failure();
  }
  return success();
}

const llvm::DenseMap<Operation *, SmallVector<Value>> &
Interpreter::deaths(Block &block) {
  std::unique_ptr<llvm::DenseMap<Operation *, SmallVector<Value>>> &slot =
      deathsByBlock[&block];
  if (slot)
    return *slot;
  slot = std::make_unique<llvm::DenseMap<Operation *, SmallVector<Value>>>();
  llvm::DenseMap<Operation *, SmallVector<Value>> &map = *slot;
  if (block.empty())
    return map;
  auto lastUse = [&](Value v, Operation *def) {
    Operation *last = def;
    for (Operation *user : v.getUsers())
      if (Operation *inBlock = block.findAncestorOpInBlock(*user))
        if (!last || last->isBeforeInBlock(inBlock))
          last = inBlock;
    return last ? last : &block.front();
  };
  for (BlockArgument arg : block.getArguments())
    map[lastUse(arg, nullptr)].push_back(arg);
  for (Operation &op : block)
    for (Value result : op.getResults())
      map[lastUse(result, &op)].push_back(result);
  return map;
}

FailureOr<SmallVector<Tensor>> Interpreter::runBlock(Block &block,
                                                     Frame &frame) {
  // A tensor is freed after the last op that uses it, as a reference
  // count would free it, not when its function returns.
  const llvm::DenseMap<Operation *, SmallVector<Value>> &dying = deaths(block);
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      SmallVector<Tensor> results;
      for (Value v : op.getOperands())
        results.push_back(frame.lookup(v));
      if (auto it = dying.find(&op); it != dying.end())
        for (Value v : it->second)
          frame.erase(v);
      return results;
    }
    if (failed(runOp(op, frame)))
      return failure();
    if (auto it = dying.find(&op); it != dying.end())
      for (Value v : it->second)
        frame.erase(v);
  }
  return SmallVector<Tensor>();
}

LogicalResult Interpreter::runOp(Operation &op, Frame &frame) {
  if (options.maxOps && ++opsRun > options.maxOps) {
    fail(&op, "stopped: the run's budget of " + Twine(options.maxOps) +
                  " ops is spent");
    return failure();
  }
  SmallVector<Tensor> operands;
  for (Value v : op.getOperands())
    operands.push_back(frame.lookup(v));

  SmallVector<Tensor> results;
  if (auto point = dyn_cast<mlir::tfl::DebugPointOp>(op))
    return debugPoint(point, operands);
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
    if (!debugFrames.empty())
      debugFrames.back().where = op.getLoc();
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
      // What fails in libtflrt (or, on a GPU, libtflrt_cuda: a copy that
      // finds the device's work failed) throws, to be reported at the op.
      tflrt::ExportBoundary boundary;
      // bf16/f16 compute in f32: a kernel gets f32 copies of 16-bit float
      // operands and its results are rounded back, as compiled code's
      // arithmetic does. Casts, constants and prints take them as they are.
      bool widen =
          !isa<mlir::tfl::CastOp, mlir::tfl::ConstantOp, mlir::tfl::PrintOp>(
              op) &&
          (llvm::any_of(operands, isHalfTensor) ||
           llvm::any_of(op.getResultTypes(), isHalfType));
      if (widen)
        for (Tensor &t : operands)
          if (isHalfTensor(t))
            t = tflrt::cast(t, tflrt::DType::F32);
      (*kernel)(&op, operands, results);
      if (widen)
        for (auto [t, type] : llvm::zip(results, op.getResultTypes()))
          if (isHalfType(type))
            t = tflrt::cast(t, toRuntimeDType(getElementTypeOrSelf(type)));
    } catch (const std::exception &e) {
      StringRef message = e.what();
      message.consume_front("error: "); // (the runtime's, placeless)
      fail(&op, message);
      return failure();
    }
  }
  if ((options.trace || options.checkNumerics) && failed(observe(op, results)))
    return failure();
  for (auto [value, tensor] : llvm::zip(op.getResults(), results))
    frame[value] = std::move(tensor);
  return success();
}

/// "file.tfl:LINE:COL" of an op.
std::string locationText(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (!isa<UnknownLoc>(inner))
        return locationText(inner);
  if (auto site = dyn_cast<CallSiteLoc>(loc))
    return locationText(site.getCallee());
  if (auto name = dyn_cast<NameLoc>(loc))
    return locationText(name.getChildLoc());
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (Twine(f.getFilename().getValue()) + ":" + Twine(f.getLine()) + ":" +
            Twine(f.getColumn()))
        .str();
  return "<unknown>";
}

/// `op`'s results as they are laid out: a product's transpose holds its
/// operand as it was (isProductTranspose), shown transposed.
SmallVector<Tensor> laidOut(Operation &op, ArrayRef<Tensor> results) {
  SmallVector<Tensor> shown(results);
  if (auto transpose = dyn_cast<mlir::tfl::TransposeOp>(op);
      transpose && isProductTranspose(transpose.getResult())) {
    ArrayRef<int64_t> perm = transpose.getPerm();
    shown[0] = tflrt::transpose(results[0],
                                std::vector<int64_t>(perm.begin(), perm.end()));
  }
  return shown;
}

LogicalResult Interpreter::observe(Operation &op, ArrayRef<Tensor> results) {
  // The program's own ops: tfl ops and calls (not loop bookkeeping).
  bool isProgramOp =
      isa<func::CallOp, scf::IfOp, scf::ForOp, scf::WhileOp>(op) ||
      op.getName().getDialectNamespace() == "tfl";
  if (!isProgramOp)
    return success();
  SmallVector<Tensor> shown = laidOut(op, results);
  for (auto [i, t] : llvm::enumerate(shown)) {
    tflrt::TensorView v = t.view();
    int64_t n = t.numElements();
    double lo = 0, hi = 0, sum = 0;
    int64_t badIndex = -1;
    for (int64_t k = 0; k < n; ++k) {
      double x = 0;
      if (t.dtype() == tflrt::DType::F32)
        x = t.data<float>()[k];
      else if (t.dtype() == tflrt::DType::F64)
        x = t.data<double>()[k];
      else if (tflrt::isHalf(t.dtype()))
        x = tflrt::halfToFloat(t.dtype(), t.data<uint16_t>()[k]);
      else {
        std::vector<int64_t> index(t.rank());
        for (int64_t d = t.rank() - 1, rest = k; d >= 0; --d) {
          index[d] = rest % t.shape()[d];
          rest /= t.shape()[d];
        }
        x = static_cast<double>(v.getAsInt(index.data()));
      }
      if (!std::isfinite(x) && badIndex < 0)
        badIndex = k;
      lo = k ? std::min(lo, x) : x;
      hi = k ? std::max(hi, x) : x;
      sum += x;
    }
    if (options.trace) {
      std::string shape = tflrt::dtypeName(t.dtype());
      if (t.rank() > 0)
        shape += tflrt::shapeToString(t.shape());
      tflrt::flushOutput();
      llvm::errs() << "trace: " << locationText(op.getLoc()) << " "
                   << op.getName().getStringRef();
      if (results.size() > 1)
        llvm::errs() << " #" << i;
      llvm::errs() << " -> " << shape;
      // Values at the tensor's own precision (integers as integers).
      // The mean of a 16-bit or integer tensor shows as an f32.
      tflrt::DType meanType = t.dtype() == tflrt::DType::F64
                                  ? tflrt::DType::F64
                                  : tflrt::DType::F32;
      tflrt::DType dtype = t.dtype();
      auto show = [dtype](double x) {
        return tflrt::isFloat(dtype) ? tflrt::formatFloatScalar(x, dtype)
                                     : std::to_string(static_cast<int64_t>(x));
      };
      if (n > 0)
        llvm::errs() << " min=" << show(lo) << " max=" << show(hi)
                     << " mean=" << tflrt::formatFloatScalar(sum / n, meanType);
      llvm::errs() << "\n";
    }
    if (options.checkNumerics && badIndex >= 0 && tflrt::isFloat(t.dtype())) {
      std::string message =
          (Twine("check-numerics: '") + op.getName().getStringRef() +
           "' produced a NaN or infinity (at flat index " + Twine(badIndex) +
           " of " + tflrt::dtypeName(t.dtype()) +
           tflrt::shapeToString(t.shape()) + ")")
              .str();
      fail(&op, message);
      if (options.pdb && options.debugger && !debugFrames.empty()) {
        // Post mortem: the prompt where the NaN appeared; the run ends.
        debugFrames.back().where = op.getLoc();
        options.debugger(debugFrames, message);
      }
      return failure();
    }
  }
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

void declareFlags(ModuleOp module) {
  auto table = module->getAttrOfType<ArrayAttr>("tfl.flags");
  if (!table)
    return;
  for (auto flag : table.getAsRange<DictionaryAttr>())
    tflrt::declareFlag(
        cast<StringAttr>(flag.get("name")).str(),
        static_cast<int>(cast<IntegerAttr>(flag.get("dtype")).getInt()),
        cast<StringAttr>(flag.get("default")).str(),
        cast<StringAttr>(flag.get("help")).str());
}

LogicalResult run(ModuleOp module, StringRef entry,
                  const KernelRegistry &registry, const RunOptions &options) {
  auto fn = module.lookupSymbol<func::FuncOp>(entry);
  if (!fn)
    return module.emitError("no function @") << entry << " to run";
  Interpreter interpreter(module, registry, options);
  return interpreter.call(fn, {});
}

} // namespace tfl::eager
