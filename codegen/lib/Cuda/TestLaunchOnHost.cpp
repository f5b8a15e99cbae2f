//===- TestLaunchOnHost.cpp - One-thread launches as host loops -----------===//
//
// `tfl-test-launch-on-host`: the GPU's row kernels, built for one thread
// per block, run as loops on the CPU, so that tests on a machine without a
// GPU check their numbers (the pass's description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Cuda/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfl {
#define GEN_PASS_DEF_TESTLAUNCHONHOST
#include "tfl/Codegen/Cuda/Passes.h.inc"

namespace {

/// `launch` as an scf.for over its blocks (x; y and z of one block), its
/// one thread's body moved into the loop.
LogicalResult runOnHost(IRRewriter &rewriter, gpu::LaunchOp launch) {
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  for (Value v : {block.x, block.y, block.z, grid.y, grid.z})
    if (!matchPattern(v, m_One()))
      return launch.emitOpError(
          "runs on the host only with one thread in blocks along x");
  if (launch.hasClusterSize() || !launch.getBody().hasOneBlock() ||
      !launch.getWorkgroupAttributions().empty() ||
      !launch.getPrivateAttributions().empty() || launch.getAsyncToken())
    return launch.emitOpError("runs on the host only as a plain launch");
  Location loc = launch.getLoc();
  rewriter.setInsertionPoint(launch);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ForOp::create(rewriter, loc, zero, grid.x, one);
  auto replace = [&](gpu::KernelDim3 dims, Value x, Value yz) {
    rewriter.replaceAllUsesWith(dims.x, x);
    rewriter.replaceAllUsesWith(dims.y, yz);
    rewriter.replaceAllUsesWith(dims.z, yz);
  };
  replace(launch.getBlockIds(), loop.getInductionVar(), zero);
  replace(launch.getThreadIds(), zero, zero);
  replace(launch.getGridSize(), grid.x, one);
  replace(launch.getBlockSize(), one, one);
  Block &body = launch.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    op.moveBefore(loop.getBody()->getTerminator());
  rewriter.eraseOp(launch);
  // One thread: an all-reduce is its operand, a barrier waits for no one.
  SmallVector<Operation *> syncs;
  loop.walk([&](Operation *op) {
    if (isa<gpu::AllReduceOp, gpu::BarrierOp>(op))
      syncs.push_back(op);
  });
  for (Operation *op : syncs) {
    if (auto reduce = dyn_cast<gpu::AllReduceOp>(op))
      rewriter.replaceOp(reduce, reduce.getValue());
    else
      rewriter.eraseOp(op);
  }
  return success();
}

struct TestLaunchOnHostPass : impl::TestLaunchOnHostBase<TestLaunchOnHostPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp launch : launches)
      if (failed(runOnHost(rewriter, launch)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
