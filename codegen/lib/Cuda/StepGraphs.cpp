//===- StepGraphs.cpp - Loop bodies the runtime may replay as graphs ------===//
//
// `tfl-step-graphs`: each innermost host loop that issues device work gets
// `tflrt_cuda_step_begin(site)` at the start of its body and
// `tflrt_cuda_step_end(site)` before its terminator. libtflrt_cuda records
// the device work between the two and replays it as a CUDA graph when an
// earlier iteration issued the same work (see runtime/cuda/lib/Graphs.cpp).
// The steps are the pass's description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Cuda/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tfl {
#define GEN_PASS_DEF_STEPGRAPHS
#include "tfl/Codegen/Cuda/Passes.h.inc"

namespace {

constexpr StringLiteral kBegin = "tflrt_cuda_step_begin";
constexpr StringLiteral kEnd = "tflrt_cuda_step_end";

class DeviceWork {
public:
  explicit DeviceWork(ModuleOp module) : symbols(module) {}

  /// Whether `op` itself (not counting what it contains) issues device
  /// work: a launch, a copy or fill, a libtflrt_cuda call, or a call of a
  /// function that does.
  bool issues(Operation *op) {
    if (isa<gpu::LaunchFuncOp, gpu::MemcpyOp, gpu::MemsetOp>(op))
      return true;
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      return false;
    StringRef callee = call.getCallee();
    if (callee == kBegin || callee == kEnd)
      return false;
    if (callee.starts_with("tflrt_cuda_"))
      return true;
    auto fn = symbols.lookup<func::FuncOp>(callee);
    return fn && !fn.isDeclaration() && functionIssues(fn);
  }

  /// Whether any op nested in `root` issues device work.
  bool within(Operation *root) {
    return root
        ->walk([&](Operation *op) {
          return op != root && issues(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
        })
        .wasInterrupted();
  }

private:
  bool functionIssues(func::FuncOp fn) {
    auto [it, inserted] = known.try_emplace(fn, false);
    if (!inserted)
      return it->second; // known, or being looked at (a recursion)
    bool result = within(fn);
    known[fn] = result;
    return result;
  }

  SymbolTable symbols;
  DenseMap<Operation *, bool> known;
};

bool isLoop(Operation *op) { return isa<scf::ForOp, scf::WhileOp>(op); }

/// The body a loop's markers go into.
Block *bodyOf(Operation *loop) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop))
    return forOp.getBody();
  return &cast<scf::WhileOp>(loop).getAfter().front();
}

class StepGraphsPass : public impl::StepGraphsBase<StepGraphsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceWork work(module);
    SmallVector<Operation *> loops;
    module.walk([&](Operation *op) {
      if (!isLoop(op) || op->getParentOfType<gpu::GPUModuleOp>() ||
          !work.within(op))
        return;
      // Innermost: no loop inside it issues device work.
      bool inner =
          !op->walk([&](Operation *nested) {
               return nested != op && isLoop(nested) && work.within(nested)
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             }).wasInterrupted();
      if (inner)
        loops.push_back(op);
    });
    if (loops.empty())
      return;

    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToStart(module.getBody());
    Location loc = module.getLoc();
    auto type = builder.getFunctionType({builder.getI64Type()}, {});
    for (StringRef name : {kBegin, kEnd})
      if (!module.lookupSymbol(name))
        func::FuncOp::create(builder, loc, name, type).setPrivate();

    int64_t site = 0;
    for (Operation *loop : loops) {
      Block *body = bodyOf(loop);
      builder.setInsertionPointToStart(body);
      Value id = arith::ConstantIntOp::create(builder, loop->getLoc(),
                                              builder.getI64Type(), site++);
      func::CallOp::create(builder, loop->getLoc(), kBegin, TypeRange(), id);
      builder.setInsertionPoint(body->getTerminator());
      func::CallOp::create(builder, loop->getLoc(), kEnd, TypeRange(), id);
    }
  }
};

} // namespace
} // namespace mlir::tfl
