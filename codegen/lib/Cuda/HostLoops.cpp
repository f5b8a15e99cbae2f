//===- HostLoops.cpp - The CPU pipeline's loops for host functions --------===//
//
// `tfl-host-loops`, the first step of the CUDA wing: the work placed on the
// CPU (host functions, tfl-outline-host-work) gets the loop passes of the
// CPU pipeline, run on each host function alone (a dynamic pipeline), so
// that device code keeps its linalg ops for the GPU's kernels.
//
//===----------------------------------------------------------------------===//

#include "BufferAliases.h"
#include "tfl/Codegen/Cuda/Passes.h"
#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/Pipelines.h"

namespace mlir::tfl {
#define GEN_PASS_DEF_HOSTLOOPS
#include "tfl/Codegen/Cuda/Passes.h.inc"

namespace {

struct HostLoopsPass : impl::HostLoopsBase<HostLoopsPass> {
  void runOnOperation() override {
    OpPassManager host(func::FuncOp::getOperationName());
    addHalfFloatLowering(host);
    addCpuLoops(host);
    host.addPass(createApproximateMath());
    SmallVector<func::FuncOp> fns;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() && isHostFunction(fn))
        fns.push_back(fn);
    for (func::FuncOp fn : fns)
      if (failed(runPipeline(host, fn)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
