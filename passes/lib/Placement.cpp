//===- Placement.cpp - Devices of ops, and the copies between them --------===//
//
// tfl-place-devices: each op runs on the device its `tfl.device` attribute
// names, or that of the op or function holding it, or the program's
// target. The pass makes that explicit and inserts a `tfl.to_device` where
// a value computed on one device is used on another, as TensorFlow's
// placer does for `tf.device` scopes. The steps are the pass's description
// in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <map>

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLPLACEDEVICES
#include "tfl/Passes/Passes.h.inc"

namespace {

/// Forgets every device: a CPU program runs all of its ops on the CPU
/// (soft placement, as TensorFlow's for a GPU it does not have).
void placeEverythingOnHost(ModuleOp module) {
  module.walk([](Operation *op) {
    op->removeAttr(kDeviceAttrName);
    if (auto copy = dyn_cast<ToDeviceOp>(op)) {
      copy.replaceAllUsesWith(copy.getInput());
      copy.erase();
    }
  });
}

class Placer {
public:
  Placer(ModuleOp module, StringAttr target)
      : module(module), symbols(module), target(target) {}

  void run() {
    specializeCallees();
    makeDevicesExplicit();
    insertCopies();
  }

private:
  /// Step 1: a function called on another device than its own is cloned
  /// for that device (once per device), so a call inside a `with` block
  /// runs its callee's whole body there.
  void specializeCallees() {
    SmallVector<func::FuncOp> worklist(module.getOps<func::FuncOp>());
    std::map<std::pair<Operation *, StringRef>, func::FuncOp> clones;
    while (!worklist.empty()) {
      func::FuncOp fn = worklist.pop_back_val();
      fn.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal())
          return;
        StringAttr device = deviceOf(call, target);
        if (device == deviceOf(callee, target))
          return;
        func::FuncOp &clone = clones[{callee, device.getValue()}];
        if (!clone) {
          clone = callee.clone();
          clone.setSymName(
              (callee.getSymName() + "_on_" + device.getValue()).str());
          clone.setPrivate();
          clone->setAttr(kDeviceAttrName, device);
          symbols.insert(clone, std::next(Block::iterator(callee)));
          worklist.push_back(clone);
        }
        call.setCallee(clone.getSymName());
      });
    }
  }

  /// Step 2: every op not on the target names its device; an op on the
  /// target names it only where an enclosing op names another. Copies name
  /// none: they run between devices.
  void makeDevicesExplicit() {
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op == fn)
          return;
        if (isa<ToDeviceOp>(op)) {
          op->removeAttr(kDeviceAttrName);
          return;
        }
        StringAttr device = deviceOf(op, target);
        StringAttr inherited = deviceOf(op->getParentOp(), target);
        if (device != target || inherited != target)
          op->setAttr(kDeviceAttrName, device);
        else
          op->removeAttr(kDeviceAttrName);
      });
    }
  }

  /// Step 3: each tensor operand computed on another device than its user
  /// runs on is copied, once per value and device, right after it is made.
  void insertCopies() {
    DenseMap<std::pair<Value, Attribute>, Value> copies;
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      fn.walk([&](Operation *op) {
        if (isa<ToDeviceOp>(op))
          return;
        StringAttr device = deviceOf(op, target);
        for (OpOperand &use : op->getOpOperands()) {
          Value v = use.get();
          // Constants are had on every device (the canonicalizer merges
          // and hoists them, whatever their users' devices).
          if (!isa<RankedTensorType>(v.getType()) ||
              matchPattern(v, m_Constant()))
            continue;
          if (deviceOfValue(v) == device)
            continue;
          Value &copy = copies[{v, device}];
          if (!copy) {
            OpBuilder b(module.getContext());
            if (Operation *def = v.getDefiningOp())
              b.setInsertionPointAfter(def);
            else
              b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
            copy = ToDeviceOp::create(b, v.getLoc(), v, device);
          }
          use.set(copy);
        }
      });
    }
  }

  ModuleOp module;
  SymbolTable symbols;
  StringAttr target;
};

struct TflPlaceDevicesPass : impl::TflPlaceDevicesBase<TflPlaceDevicesPass> {
  using TflPlaceDevicesBase::TflPlaceDevicesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string wanted = target;
    if (wanted.empty())
      if (auto attr = module->getAttrOfType<StringAttr>("tfl.target"))
        wanted = attr.getValue().str();
    if (wanted.empty() || wanted == "cpu") {
      placeEverythingOnHost(module);
      return;
    }
    if (wanted != "cuda") {
      module.emitError("tfl-place-devices: unknown target '")
          << wanted << "' (cpu or cuda)";
      return signalPassFailure();
    }
    auto device = StringAttr::get(module.getContext(), wanted);
    module->setAttr("tfl.target", device); // for deviceOfValue
    Placer(module, device).run();
  }
};

} // namespace
} // namespace mlir::tfl
