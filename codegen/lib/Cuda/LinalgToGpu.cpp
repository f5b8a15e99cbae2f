//===- LinalgToGpu.cpp - linalg on buffers -> GPU-mapped parallel loops ---===//
//
// The first step of the CUDA wing (`tfl-linalg-to-gpu`): each linalg op that
// host code runs on buffers becomes a nest of parallel loops shaped for one
// kernel launch; gpu-map-parallel-loops and convert-parallel-loops-to-gpu
// then make the `gpu.launch`. The algorithm is the pass's description in
// Passes.td. Each thread computes whole output elements, so a reduction's
// dims run sequentially inside the thread that owns the element.
//
//===----------------------------------------------------------------------===//

#include "Copies.h"
#include "tfl/Codegen/Cuda/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

namespace mlir::tfl {
#define GEN_PASS_DEF_LINALGTOGPU
#include "tfl/Codegen/Cuda/Passes.h.inc"

namespace {

/// Step 1: a generic whose parallel dims come first.
FailureOr<linalg::GenericOp> parallelDimsFirst(RewriterBase &rewriter,
                                               linalg::LinalgOp op) {
  linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> general =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(general))
      return op.emitOpError("has no generic form to run on the GPU");
    generic = *general;
  }
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it != utils::IteratorType::parallel)
      order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return generic;
  rewriter.setInsertionPoint(generic);
  return linalg::interchangeGenericOp(rewriter, generic, order);
}

/// The scf.parallel that the first op from `after` in `block` starts (the
/// loop collapsing replaces the op it is given).
scf::ParallelOp findParallelAfter(Block *block, Operation *after) {
  Operation *op = after ? after->getNextNode() : &block->front();
  for (; op; op = op->getNextNode())
    if (auto loop = dyn_cast<scf::ParallelOp>(op))
      return loop;
  return nullptr;
}

/// A reduction's body `out = combine(out, contribution(ins))` with a
/// combining op that gpu.all_reduce has.
struct Combiner {
  gpu::AllReduceOperation kind;
  Operation *op;      // combine(out, contribution)
  Value contribution; // what one reduced element adds
};

std::optional<gpu::AllReduceOperation> allReduceKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The combiner of a one-output reduction on 32-bit elements (what the
/// warp shuffles of gpu.all_reduce move), if its body has that form.
std::optional<Combiner> matchCombiner(linalg::GenericOp g) {
  if (g.getNumDpsInits() != 1 || g.getNumReductionLoops() == 0)
    return std::nullopt;
  Block &body = g.getRegion().front();
  Value out = body.getArgument(g.getNumDpsInputs());
  Type t = out.getType();
  if (!(t.isF32() || t.isInteger(32)) || !out.hasOneUse())
    return std::nullopt;
  Operation *op = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!op || op->getBlock() != &body || op->getNumOperands() != 2 ||
      *out.getUsers().begin() != op)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = allReduceKind(op);
  if (!kind)
    return std::nullopt;
  Value other =
      op->getOperand(0) == out ? op->getOperand(1) : op->getOperand(0);
  return Combiner{*kind, op, other};
}

/// The neutral element of a combiner on type `t`.
Value identity(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
               Type t) {
  using K = gpu::AllReduceOperation;
  if (auto f = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    llvm::APFloat v = llvm::APFloat::getZero(sem);
    if (kind == K::MUL)
      v = llvm::APFloat::getOne(sem);
    else if (kind == K::MAXNUMF || kind == K::MAXIMUMF)
      v = llvm::APFloat::getInf(sem, /*Negative=*/true);
    else if (kind == K::MINNUMF || kind == K::MINIMUMF)
      v = llvm::APFloat::getInf(sem);
    return arith::ConstantFloatOp::create(b, loc, f, v);
  }
  unsigned width = t.getIntOrFloatBitWidth();
  llvm::APInt v = llvm::APInt::getZero(width);
  if (kind == K::MUL)
    v = llvm::APInt(width, 1);
  else if (kind == K::MAXSI)
    v = llvm::APInt::getSignedMinValue(width);
  else if (kind == K::MINSI)
    v = llvm::APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

/// Splits a linear index into indices of dims of the given sizes (row-major).
void delinearize(OpBuilder &b, Location loc, Value linear,
                 ArrayRef<Value> sizes, MutableArrayRef<Value> indices) {
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      indices[i] = linear;
      break;
    }
    indices[i] = arith::RemUIOp::create(b, loc, linear, sizes[i]);
    linear = arith::DivUIOp::create(b, loc, linear, sizes[i]);
  }
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value p = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value v : values)
    p = arith::MulIOp::create(b, loc, p, v);
  return p;
}

/// The indices `map` gives for the loop ivs.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    indices.push_back(
        affine::AffineApplyOp::create(b, loc, map.getSubMap({i}), ivs));
  return indices;
}

/// The block reduction: one block per output element; its threads stride
/// over the reduced elements, each combining a partial result in a
/// register, then gpu.all_reduce combines the block's partials (warp
/// shuffles, shared memory across warps) and thread 0 combines the total
/// into the output element.
void buildBlockReduction(RewriterBase &rewriter, linalg::GenericOp g,
                         const Combiner &c, int64_t blockSize) {
  Location loc = g.getLoc();
  rewriter.setInsertionPoint(g);
  unsigned numLoops = g.getNumLoops();
  unsigned numParallel = g.getNumParallelLoops();
  SmallVector<Value> sizes;
  auto linalgOp = cast<linalg::LinalgOp>(g.getOperation());
  for (Range r : linalgOp.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, r.size));
  ArrayRef<Value> parallelSizes = ArrayRef(sizes).take_front(numParallel);
  ArrayRef<Value> reducedSizes = ArrayRef(sizes).drop_front(numParallel);
  Value outputs = product(rewriter, loc, parallelSizes);
  Value reduced = product(rewriter, loc, reducedSizes);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  auto launch = gpu::LaunchOp::create(rewriter, loc, outputs, one, one, threads,
                                      one, one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> ivs(numLoops, zero);
  delinearize(rewriter, loc, launch.getBlockIds().x, parallelSizes,
              MutableArrayRef<Value>(ivs).take_front(numParallel));
  Value thread = launch.getThreadIds().x;
  Type t = c.op->getResult(0).getType();
  Block &body = g.getRegion().front();
  Value out = body.getArgument(g.getNumDpsInputs());

  // Each thread's partial result over reduced elements thread, thread +
  // blockSize, ...
  auto loop =
      scf::ForOp::create(rewriter, loc, thread, reduced, threads,
                         ValueRange{identity(rewriter, loc, c.kind, t)});
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> loopIvs(ivs);
    delinearize(rewriter, loc, loop.getInductionVar(), reducedSizes,
                MutableArrayRef<Value>(loopIvs).drop_front(numParallel));
    IRMapping map;
    for (OpOperand *input : g.getDpsInputOperands()) {
      SmallVector<Value> indices =
          applyMap(rewriter, loc, g.getMatchingIndexingMap(input), loopIvs);
      map.map(body.getArgument(input->getOperandNumber()),
              memref::LoadOp::create(rewriter, loc, input->get(), indices));
    }
    for (Operation &op : body.without_terminator()) {
      if (&op == c.op)
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        map.map(index.getResult(), loopIvs[index.getDim()]);
        continue;
      }
      rewriter.clone(op, map);
    }
    map.map(out, loop.getRegionIterArg(0));
    Operation *combined = rewriter.clone(*c.op, map);
    scf::YieldOp::create(rewriter, loc, combined->getResult(0));
  }
  Value total = gpu::AllReduceOp::create(
      rewriter, loc, loop.getResult(0),
      gpu::AllReduceOperationAttr::get(rewriter.getContext(), c.kind),
      rewriter.getUnitAttr());
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      thread, zero);
  auto ifFirst = scf::IfOp::create(rewriter, loc, first, false);
  rewriter.setInsertionPointToStart(ifFirst.thenBlock());
  OpOperand *init = g.getDpsInitOperand(0);
  SmallVector<Value> indices =
      applyMap(rewriter, loc, g.getMatchingIndexingMap(init), ivs);
  Value old = memref::LoadOp::create(rewriter, loc, init->get(), indices);
  IRMapping map;
  map.map(out, old);
  map.map(c.contribution, total);
  Operation *combined = rewriter.clone(*c.op, map);
  memref::StoreOp::create(rewriter, loc, combined->getResult(0), init->get(),
                          indices);
  rewriter.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.eraseOp(g);
}

/// Whether a reduction runs as block reductions: when it reduces at least
/// a warp's worth of elements per output (or everything to one value);
/// short reductions (a softmax over 10 classes) run one thread per output.
bool wantsBlockReduction(linalg::GenericOp g) {
  if (g.getNumParallelLoops() == 0)
    return true;
  int64_t reduced = 1;
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  for (int64_t i = g.getNumParallelLoops(); i < g.getNumLoops(); ++i) {
    if (ShapedType::isDynamic(ranges[i]))
      return false;
    reduced *= ranges[i];
  }
  return reduced >= 32;
}

/// Steps 2 and 3 for one op.
LogicalResult convert(RewriterBase &rewriter, linalg::LinalgOp op,
                      int64_t blockSize) {
  FailureOr<linalg::GenericOp> generic = parallelDimsFirst(rewriter, op);
  if (failed(generic))
    return failure();
  if (std::optional<Combiner> c = matchCombiner(*generic)) {
    if (wantsBlockReduction(*generic)) {
      buildBlockReduction(rewriter, *generic, *c, blockSize);
      return success();
    }
  }
  Location loc = generic->getLoc();
  if (generic->getNumParallelLoops() == 0) {
    // No parallel dim (a full reduction, or a scalar): one iteration.
    rewriter.setInsertionPoint(*generic);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto single = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{one}, ValueRange{one});
    rewriter.moveOpBefore(*generic, single.getBody()->getTerminator());
    rewriter.setInsertionPoint(*generic);
    if (failed(linalg::linalgOpToLoops(rewriter, *generic)))
      return generic->emitOpError("cannot become loops");
    rewriter.eraseOp(*generic);
    return success();
  }

  Block *block = generic->getOperation()->getBlock();
  Operation *before = generic->getOperation()->getPrevNode();
  rewriter.setInsertionPoint(*generic);
  FailureOr<linalg::LinalgLoops> loops =
      linalg::linalgOpToParallelLoops(rewriter, *generic);
  if (failed(loops))
    return generic->emitOpError("cannot become parallel loops");
  rewriter.eraseOp(*generic);
  auto outer = dyn_cast<scf::ParallelOp>(loops->front());
  if (!outer)
    return emitError(loc, "expected a parallel loop first");
  if (outer.getNumLoops() > 1) {
    std::vector<unsigned> all(outer.getNumLoops());
    std::iota(all.begin(), all.end(), 0u);
    collapseParallelLoops(rewriter, outer, {all});
    outer = findParallelAfter(block, before);
  }
  // Tiles of blockSize with a bounds check (not a partial last tile), so
  // that every block has the same static number of threads.
  (void)scf::tileParallelLoop(outer, {blockSize}, /*noMinMaxBounds=*/true);
  return success();
}

/// Whether `v` is a constant zero.
bool isZero(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isZero();
  return false;
}

/// Step 0: a product into a buffer that was just filled with zeros
/// (linalg.matmul's C += A B after C = 0) overwrites it instead (libtflrt_
/// cuda's *_overwrite entry points, beta = 0): no fill kernel, and cuBLAS
/// does not read C.
void foldZeroFills(IRRewriter &rewriter, func::FuncOp fn) {
  static const llvm::StringMap<StringRef> kOverwrite = {
      {"tflrt_matmul_f32", "tflrt_cuda_matmul_overwrite_f32"},
      {"tflrt_matmul_f64", "tflrt_cuda_matmul_overwrite_f64"},
      {"tflrt_batch_matmul_f32", "tflrt_cuda_batch_matmul_overwrite_f32"},
      {"tflrt_batch_matmul_f64", "tflrt_cuda_batch_matmul_overwrite_f64"}};
  SmallVector<func::CallOp> calls;
  fn.walk([&](func::CallOp call) {
    if (kOverwrite.contains(call.getCallee()) && call.getNumOperands() == 3)
      calls.push_back(call);
  });
  // The buffer a call operand views (through the cast to an unranked
  // memref, and any views).
  auto bufferOf = [](Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (auto cast = dyn_cast<memref::CastOp>(def))
        v = cast.getSource();
      else if (auto view = dyn_cast<ViewLikeOpInterface>(def))
        v = view.getViewSource();
      else
        break;
    }
    return v;
  };
  for (func::CallOp call : calls) {
    Value c = bufferOf(call.getOperand(2));
    // C a fresh buffer that neither A nor B views.
    if (!c.getDefiningOp<memref::AllocOp>() ||
        bufferOf(call.getOperand(0)) == c || bufferOf(call.getOperand(1)) == c)
      continue;
    // The fill right before the call, with only casts between.
    Operation *op = call->getPrevNode();
    while (op && isa<memref::CastOp>(op))
      op = op->getPrevNode();
    auto fill = dyn_cast_or_null<linalg::FillOp>(op);
    if (!fill || fill.getOutputs().front() != c ||
        !isZero(fill.getInputs().front()))
      continue;
    rewriter.setInsertionPoint(call);
    func::FuncOp callee = getOrInsertRuntimeFunction(
        rewriter, fn->getParentOfType<ModuleOp>(),
        kOverwrite.lookup(call.getCallee()), call.getCalleeType());
    rewriter.replaceOpWithNewOp<func::CallOp>(call, callee, call.getOperands());
    rewriter.eraseOp(fill);
  }
}

struct LinalgToGpuPass : impl::LinalgToGpuBase<LinalgToGpuPass> {
  using LinalgToGpuBase::LinalgToGpuBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    foldZeroFills(rewriter, getOperation());
    // Copies between buffers become kernels too.
    copiesToLinalg(rewriter, getOperation());
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && !op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      if (failed(convert(rewriter, op, blockSize)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
