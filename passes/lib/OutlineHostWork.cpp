//===- OutlineHostWork.cpp - CPU-placed work of a GPU program, apart ------===//
//
// tfl-outline-host-work: in a program for the "cuda" target, each run of
// consecutive ops placed on the CPU becomes a private function marked
// `tfl.device = "cpu"`, called where the run was, so that the CUDA wing
// compiles it as host code and copies values across at the call. The steps
// are the pass's description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLOUTLINEHOSTWORK
#include "tfl/Passes/Passes.h.inc"

namespace {

bool placedOnCpu(Operation *op) {
  auto device = op->getAttrOfType<StringAttr>(kDeviceAttrName);
  return device && device.getValue() == "cpu";
}

/// Ops that stay where they are and neither join nor break a run:
/// constants (cloned into a function that reads them) and copies between
/// devices (moved before or after the call).
bool isMovable(Operation *op) {
  return op->getNumRegions() == 0 &&
         (op->hasTrait<mlir::OpTrait::ConstantLike>() || isa<ToDeviceOp>(op));
}

/// Ops whose buffers the CUDA wing keeps on the device whatever their
/// placement: those with effects on the autodiff tapes or on the
/// communicator (collectives, NCCL's), as tfl-overlap-collectives tells
/// them apart; and calls (of a function this pass does not look into).
bool staysOnDevice(Operation *op) {
  if (isa<func::CallOp>(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<TapeResource, CommunicatorResource>(e.getResource());
  });
}

/// Whether `op` can be part of a run: placed on the CPU, and so is
/// everything in its regions (terminators and constants aside).
bool isHostWork(Operation *op) {
  if (!placedOnCpu(op) || staysOnDevice(op) || isMovable(op) ||
      op->hasTrait<mlir::OpTrait::IsTerminator>())
    return false;
  bool nestedOk = true;
  op->walk([&](Operation *nested) {
    if (nested == op || nested->hasTrait<mlir::OpTrait::IsTerminator>() ||
        (nested->hasTrait<mlir::OpTrait::ConstantLike>() &&
         nested->getNumRegions() == 0))
      return WalkResult::advance();
    if (!placedOnCpu(nested) || staysOnDevice(nested) ||
        isa<ToDeviceOp>(nested)) {
      nestedOk = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return nestedOk;
}

/// A run of host work in one block, and the movable ops between its ops:
/// those that read one of the run's values go after its call (`after`),
/// the others before it.
struct Run {
  SmallVector<Operation *> ops;
  SmallVector<Operation *> before, after;
  llvm::DenseSet<Value> produced; // by ops and by `after`

  bool empty() const { return ops.empty(); }
  bool readsRun(Operation *op) const {
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return produced.contains(v); });
  }
};

class Outliner {
public:
  Outliner(ModuleOp module) : module(module), symbols(module) {}

  void run() {
    SmallVector<func::FuncOp> fns;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !placedOnCpu(fn))
        fns.push_back(fn);
    for (func::FuncOp fn : fns) {
      counter = 0;
      current = fn;
      for (Block &block : fn.getBody())
        processBlock(block);
    }
  }

private:
  /// Step 1: the runs of `block`, outlined; the blocks of other ops first.
  void processBlock(Block &block) {
    SmallVector<Run> runs(1);
    auto close = [&] {
      if (!runs.back().empty())
        runs.emplace_back();
      else
        runs.back() = Run();
    };
    for (Operation &op : block) {
      Run &run = runs.back();
      if (isHostWork(&op)) {
        // A run's op cannot read what a copy made of the run's values.
        if (llvm::any_of(run.after, [&](Operation *a) {
              return llvm::any_of(a->getResults(), [&](Value r) {
                return llvm::is_contained(op.getOperands(), r);
              });
            }))
          close();
        Run &into = runs.back();
        into.ops.push_back(&op);
        for (Value r : op.getResults())
          into.produced.insert(r);
        continue;
      }
      if (!run.empty() && isMovable(&op)) {
        if (run.readsRun(&op)) {
          run.after.push_back(&op);
          for (Value r : op.getResults())
            run.produced.insert(r);
        } else {
          run.before.push_back(&op);
        }
        continue;
      }
      close();
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          processBlock(nested);
    }
    for (Run &run : runs)
      if (!run.empty())
        outline(run);
  }

  /// Step 2: `run` as a host function and a call.
  void outline(Run &run) {
    llvm::DenseSet<Operation *> inRun(run.ops.begin(), run.ops.end());
    auto isInside = [&](Operation *op) {
      for (Operation *p = op; p; p = p->getParentOp())
        if (inRun.contains(p))
          return true;
      return false;
    };
    // Inputs: read inside, made outside (constants are cloned instead).
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> constants;
    for (Operation *op : run.ops)
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (def ? isInside(def) : isInside(v.getParentBlock()->getParentOp()))
            continue;
          if (def && def->hasTrait<mlir::OpTrait::ConstantLike>() &&
              def->getNumRegions() == 0)
            constants.insert(def);
          else
            inputs.insert(v);
        }
      });
    // Outputs: made by the run's ops, used outside them.
    SmallVector<Value> outputs;
    for (Operation *op : run.ops)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(),
                         [&](Operation *u) { return !isInside(u); }))
          outputs.push_back(r);

    OpBuilder b(module.getContext());
    b.setInsertionPoint(current);
    Location loc = run.ops.front()->getLoc();
    auto type = b.getFunctionType(ValueRange(inputs.getArrayRef()).getTypes(),
                                  ValueRange(outputs).getTypes());
    std::string name =
        (current.getSymName() + ".host" + Twine(counter++)).str();
    auto fn = func::FuncOp::create(b, loc, name, type);
    fn.setPrivate();
    fn->setAttr(kDeviceAttrName, b.getStringAttr("cpu"));
    for (auto [i, v] : llvm::enumerate(inputs))
      if (isa<TensorType>(v.getType()))
        fn.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
    symbols.insert(fn);
    Block *body = fn.addEntryBlock();
    b.setInsertionPointToStart(body);
    IRMapping map;
    for (auto [v, arg] : llvm::zip(inputs, body->getArguments()))
      map.map(v, arg);
    for (Operation *c : constants)
      b.clone(*c, map);
    for (Operation *op : run.ops)
      b.clone(*op, map);
    SmallVector<Value> results;
    for (Value v : outputs)
      results.push_back(map.lookup(v));
    func::ReturnOp::create(b, loc, results);

    // The call where the run began; the copies that do not depend on the
    // run before it, those that do after it (where they are).
    Operation *first = run.ops.front();
    for (Operation *op : run.before)
      op->moveBefore(first);
    b.setInsertionPoint(first);
    auto call = func::CallOp::create(b, loc, fn, inputs.getArrayRef());
    for (auto [v, r] : llvm::zip(outputs, call.getResults()))
      v.replaceUsesWithIf(
          r, [&](OpOperand &use) { return !isInside(use.getOwner()); });
    for (Operation *op : llvm::reverse(run.ops))
      op->erase();
  }

  ModuleOp module;
  SymbolTable symbols;
  func::FuncOp current;
  int64_t counter = 0;
};

struct TflOutlineHostWorkPass
    : impl::TflOutlineHostWorkBase<TflOutlineHostWorkPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target = module->getAttrOfType<StringAttr>("tfl.target");
    if (!target || target.getValue() != "cuda")
      return;
    Outliner(module).run();
  }
};

} // namespace
} // namespace mlir::tfl
