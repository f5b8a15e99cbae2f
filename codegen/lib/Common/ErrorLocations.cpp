//===- ErrorLocations.cpp - The .tfl line of the runtime's errors ---------===//
//
// Run-time checks pass their source location to libtflrt as an argument.
// What can fail elsewhere in the runtime has none: an allocation the system
// refuses, a GPU launch, copy or wait, a cuBLAS or cuDNN call. Before each
// such op in host code this pass stores the address of its location text
// ("file.tfl:LINE:COL" and its "called from" notes, a constant global) in
// libtflrt's `tflrt_where`, which the runtime's errors name. One store per
// change of location in straight-line code: a store costs less than the
// call it precedes. Ops in loops that run on several threads (outlined by
// tfl-parallelize-loops) are not marked: they run under the location of
// the op that holds the loop.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::tfl {

#define GEN_PASS_DEF_ERRORLOCATIONS
#include "tfl/Codegen/Passes.h.inc"

namespace {

constexpr StringLiteral kWhere = "tflrt_where";

/// An op whose failure the runtime reports without a location argument:
/// a call of a runtime function (a declaration), a host allocation, or a
/// GPU op (alloc, launch, copy, fill, wait).
bool mayFail(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    return callee && callee.isExternal();
  }
  if (op->getDialect() && op->getDialect()->getNamespace() == "gpu")
    return true;
  if (isa<memref::AllocaOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.hasEffect<MemoryEffects::Allocate>();
}

/// An op whose regions run on several host threads, or on the device.
bool runsElsewhere(Operation *op) {
  if (op->hasAttr(kParallelLoopAttr) || isa<scf::ParallelOp, scf::ForallOp>(op))
    return true;
  StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return ns == "omp" || ns == "gpu";
}

class Marker {
public:
  explicit Marker(ModuleOp module) : module(module), builder(module) {}

  void markBlock(Block &block) {
    // The location the runtime holds here, when known.
    std::optional<std::string> current;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (mayFail(&op)) {
        std::string text = locationText(op.getLoc());
        if (text != current) {
          setWhere(&op, text);
          current = text;
        }
      }
      if (op.getNumRegions() == 0) {
        // A call of a TFL function sets locations of its own.
        if (isa<CallOpInterface>(op) && !mayFail(&op))
          current.reset();
        continue;
      }
      if (runsElsewhere(&op)) {
        // What fails inside fails at the op that holds it.
        bool fails = op.walk([](Operation *inner) {
                         return mayFail(inner) ? WalkResult::interrupt()
                                               : WalkResult::advance();
                       }).wasInterrupted();
        if (fails)
          setWhere(&op, locationText(op.getLoc()));
      } else {
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            markBlock(inner);
      }
      current.reset();
    }
  }

private:
  void setWhere(Operation *op, StringRef text) {
    builder.setInsertionPoint(op);
    Location loc = op->getLoc();
    auto ptr = LLVM::LLVMPointerType::get(module.getContext());
    Value value = text.empty() // no location
                      ? LLVM::ZeroOp::create(builder, loc, ptr).getResult()
                      : getOrCreateStringPointer(builder, loc, module, text);
    Value where = LLVM::AddressOfOp::create(builder, loc, ptr, kWhere);
    LLVM::StoreOp::create(builder, loc, value, where);
    anyStore = true;
  }

  ModuleOp module;
  OpBuilder builder;
  bool anyStore = false;

public:
  /// Whether a store was inserted.
  bool marked() const { return anyStore; }
};

struct ErrorLocationsPass : impl::ErrorLocationsBase<ErrorLocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module->hasAttr(kOpKernelAttrName))
      return;
    Marker marker(module);
    for (auto fn : module.getOps<func::FuncOp>())
      for (Block &block : fn.getBody())
        marker.markBlock(block);
    if (!marker.marked() || module.lookupSymbol(kWhere))
      return;
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    // Thread-local, as libtflrt's: a library's exports run on their
    // callers' threads.
    LLVM::GlobalOp::create(builder, module.getLoc(),
                           LLVM::LLVMPointerType::get(module.getContext()),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kWhere, Attribute(), /*alignment=*/0,
                           /*addrSpace=*/0, /*dsoLocal=*/false,
                           /*thread_local_=*/true);
  }
};

} // namespace
} // namespace mlir::tfl
