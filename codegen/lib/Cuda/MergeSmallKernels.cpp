//===- MergeSmallKernels.cpp - Runs of small launches become one ----------===//
//
// `tfl-merge-small-kernels`: a training step's tail is dozens of kernels of
// one or a few blocks (a loss over a batch of 32, an optimizer's update of a
// bias), each costing a launch and a gap on the GPU for microseconds of
// work. Consecutive small launches in a block of host code become one
// launch of one block, which runs their bodies in order with a block
// barrier between them (after a barrier, every thread of the block sees
// the global memory the others wrote before it). The steps are the pass's
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "BufferAliases.h"
#include "tfl/Codegen/Cuda/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tfl {
#define GEN_PASS_DEF_MERGESMALLKERNELS
#include "tfl/Codegen/Cuda/Passes.h.inc"

namespace {

/// The threads of a merged launch's block.
constexpr int64_t kBlockSize = 256;
/// The most work (threads times the iterations of their deepest loop nest)
/// a launch may have to join a merged one: a merged launch runs on one
/// multiprocessor, so a launch of few blocks that loop long (a block
/// reduction over a large batch) keeps its own launch.
constexpr int64_t kMaxWork = int64_t(1) << 16;
/// The most bytes of parameters a merged launch's kernel may take: CUDA
/// allows 4352 before PTX ISA 8.1 (ptxas refuses more), and a merged
/// launch of many small ones (a comparison of two trees of gradients, leaf
/// by leaf) reads many buffers.
constexpr int64_t kMaxParameterBytes = 4096;

/// The bytes of kernel parameters a value that a launch's body reads from
/// outside takes once the kernel is outlined: a memref's descriptor (two
/// pointers, an offset, a size and a stride per dim), or a scalar.
int64_t parameterBytes(Value v) {
  if (auto memref = dyn_cast<MemRefType>(v.getType()))
    return 8 * (3 + 2 * memref.getRank());
  return 8;
}

/// The iterations of `loop` per thread, if its bounds say: a loop from a
/// thread id strides over at most ub / step iterations.
std::optional<int64_t> tripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!ub || !step || *step <= 0)
    return std::nullopt;
  int64_t from = lb.value_or(0);
  return std::max<int64_t>(0, (*ub - from + *step - 1) / *step);
}

/// Threads times the iterations of the deepest loop nest of `launch`'s
/// body, or nothing when a loop's bounds are not constant.
std::optional<int64_t> work(gpu::LaunchOp launch, int64_t threads) {
  int64_t deepest = 1;
  WalkResult walk = launch.getBody().walk([&](Operation *op) {
    if (isa<scf::WhileOp>(op))
      return WalkResult::interrupt();
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      return WalkResult::advance();
    int64_t iterations = 1;
    for (; loop && launch->isProperAncestor(loop);
         loop = loop->getParentOfType<scf::ForOp>()) {
      std::optional<int64_t> n = tripCount(loop);
      if (!n)
        return WalkResult::interrupt();
      iterations *= std::max<int64_t>(*n, 1);
    }
    deepest = std::max(deepest, iterations);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return threads * deepest;
}

/// A launch that may join a merged one: a one-dimensional grid of at most
/// `maxBlocks` blocks of at most kBlockSize threads, all sizes constant;
/// `synchronizes` when its body has block-wide operations (which need every
/// thread of the block, so only a launch of kBlockSize threads has them).
struct Small {
  gpu::LaunchOp launch;
  int64_t blocks, threads;
  bool synchronizes;
};

std::optional<Small> asSmall(gpu::LaunchOp launch, int64_t maxBlocks) {
  auto constant = [](Value v) { return getConstantIntValue(v); };
  std::optional<int64_t> gx = constant(launch.getGridSizeX()),
                         gy = constant(launch.getGridSizeY()),
                         gz = constant(launch.getGridSizeZ()),
                         bx = constant(launch.getBlockSizeX()),
                         by = constant(launch.getBlockSizeY()),
                         bz = constant(launch.getBlockSizeZ());
  if (!gx || !gy || !gz || !bx || !by || !bz || *gy != 1 || *gz != 1 ||
      *by != 1 || *bz != 1 || *gx < 1 || *gx > maxBlocks || *bx < 1 ||
      *bx > kBlockSize || launch.getDynamicSharedMemorySize() ||
      launch.hasClusterSize() || launch.getAsyncToken() ||
      !launch.getAsyncDependencies().empty() ||
      !launch.getBody().hasOneBlock() ||
      !launch.getWorkgroupAttributions().empty() ||
      !launch.getPrivateAttributions().empty())
    return std::nullopt;
  bool synchronizes = false;
  launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, gpu::AllReduceOp, gpu::ShuffleOp,
            gpu::SubgroupReduceOp>(op))
      synchronizes = true;
  });
  if (synchronizes && *bx != kBlockSize)
    return std::nullopt;
  std::optional<int64_t> w = work(launch, *gx * *bx);
  if (!w || *w > kMaxWork)
    return std::nullopt;
  return Small{launch, *gx, *bx, synchronizes};
}

/// Whether host op `op`, between two small launches, lets them merge (the
/// merged launch goes where the last one is): pure ops, allocations,
/// deallocations (which move after the merged launch), and host code on
/// host buffers (which no kernel touches).
bool canCross(Operation *op, const llvm::DenseSet<Value> &hostValues) {
  if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op))
    return true;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return hostValues.contains(load.getMemref());
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return hostValues.contains(store.getMemref());
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// Step 2: one launch of one block for `run`, where its last launch was.
void merge(IRRewriter &rewriter, ArrayRef<Small> run) {
  gpu::LaunchOp last = run.back().launch;
  Location loc = last.getLoc();
  rewriter.setInsertionPoint(last);
  int64_t threads = 1;
  for (const Small &s : run)
    threads = std::max(threads, s.threads);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value one = c(1);
  auto merged =
      gpu::LaunchOp::create(rewriter, loc, one, one, one, c(threads), one, one);
  Block &body = merged.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value tid = merged.getThreadIds().x;
  for (auto [i, s] : llvm::enumerate(run)) {
    gpu::LaunchOp launch = s.launch;
    Block &old = launch.getBody().front();
    auto bodyAt = [&, &s = s, &old = old](OpBuilder &b, Value blockId) {
      IRMapping map;
      gpu::KernelDim3 ids = launch.getBlockIds(), tids = launch.getThreadIds(),
                      grid = launch.getGridSize(),
                      block = launch.getBlockSize();
      Value bone = arith::ConstantIndexOp::create(b, loc, 1);
      Value bzero = arith::ConstantIndexOp::create(b, loc, 0);
      map.map(ids.x, blockId);
      map.map(ids.y, bzero);
      map.map(ids.z, bzero);
      map.map(tids.x, tid);
      map.map(tids.y, merged.getThreadIds().y);
      map.map(tids.z, merged.getThreadIds().z);
      map.map(grid.x, arith::ConstantIndexOp::create(b, loc, s.blocks));
      map.map(grid.y, bone);
      map.map(grid.z, bone);
      map.map(block.x, arith::ConstantIndexOp::create(b, loc, s.threads));
      map.map(block.y, bone);
      map.map(block.z, bone);
      for (Operation &op : old.without_terminator())
        b.clone(op, map);
    };
    // The launch's threads only (a one-thread kernel runs on thread 0).
    auto guarded = [&, &s = s](OpBuilder &b, Value blockId) {
      if (s.threads == threads)
        return bodyAt(b, blockId);
      Value inside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, tid,
          arith::ConstantIndexOp::create(b, loc, s.threads));
      auto branch = scf::IfOp::create(b, loc, inside, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      bodyAt(b, blockId);
    };
    if (s.blocks == 1) {
      guarded(rewriter, zero);
    } else {
      auto loop = scf::ForOp::create(rewriter, loc, zero, c(s.blocks), c(1));
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
      guarded(rewriter, loop.getInductionVar());
      // The next block's reduction reuses its shared memory.
      if (s.synchronizes)
        gpu::BarrierOp::create(rewriter, loc);
    }
    if (i + 1 < run.size())
      gpu::BarrierOp::create(rewriter, loc);
  }
  gpu::TerminatorOp::create(rewriter, loc);
  for (Small s : run)
    rewriter.eraseOp(s.launch);
}

struct MergeSmallKernelsPass
    : impl::MergeSmallKernelsBase<MergeSmallKernelsPass> {
  using MergeSmallKernelsBase::MergeSmallKernelsBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Value> hostValues = BufferAliases(fn).hostValues();
    // Step 1: the runs, block by block.
    SmallVector<SmallVector<Small>> runs;
    fn.walk([&](Block *block) {
      if (block->getParentOp()->getParentOfType<gpu::LaunchOp>() ||
          isa<gpu::LaunchOp>(block->getParentOp()))
        return;
      SmallVector<Small> run;
      // What the run's bodies read from outside: the merged kernel's
      // parameters.
      llvm::SetVector<Value> captured;
      int64_t bytes = 0;
      auto flush = [&] {
        if (run.size() > 1)
          runs.push_back(run);
        run.clear();
        captured.clear();
        bytes = 0;
      };
      for (Operation &op : *block) {
        if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
          if (std::optional<Small> s = asSmall(launch, maxBlocks)) {
            llvm::SetVector<Value> reads;
            getUsedValuesDefinedAbove(launch.getBody(), reads);
            int64_t more = 0;
            for (Value v : reads)
              if (!captured.contains(v))
                more += parameterBytes(v);
            if (!run.empty() && bytes + more > kMaxParameterBytes)
              flush();
            for (Value v : reads)
              if (captured.insert(v))
                bytes += parameterBytes(v);
            run.push_back(*s);
            continue;
          }
          flush();
          continue;
        }
        if (!canCross(&op, hostValues))
          flush();
      }
      flush();
    });
    for (ArrayRef<Small> run : runs) {
      // Deallocations between the launches wait for the merged one.
      gpu::LaunchOp last = run.back().launch;
      SmallVector<memref::DeallocOp> deallocs;
      for (Operation *op = run.front().launch->getNextNode(); op != last;
           op = op->getNextNode())
        if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
          deallocs.push_back(dealloc);
      for (memref::DeallocOp dealloc : llvm::reverse(deallocs))
        rewriter.moveOpAfter(dealloc, last);
      merge(rewriter, run);
    }
  }
};

} // namespace
} // namespace mlir::tfl
