//===- LinalgToGpu.cpp - linalg on buffers -> GPU-mapped parallel loops ---===//
//
// The first step of the CUDA wing (`tfl-linalg-to-gpu`): each linalg op that
// host code runs on buffers becomes a nest of parallel loops shaped for one
// kernel launch; gpu-map-parallel-loops and convert-parallel-loops-to-gpu
// then make the `gpu.launch`. The algorithm is the pass's description in
// Passes.td. Each thread computes whole output elements, so a reduction's
// dims run sequentially inside the thread that owns the element, except
// in block reductions (a block per output) and row kernels (a block per
// tile of a chain of row-wise ops, tfl-fuse-rows with `gpu`).
//
//===----------------------------------------------------------------------===//

#include "BufferAliases.h"
#include "Copies.h"
#include "tfl/Codegen/BufferRoots.h"
#include "tfl/Codegen/CollapseLoops.h"
#include "tfl/Codegen/Cuda/Passes.h"
#include "tfl/Codegen/Passes.h"
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

/// Splits a linear index into indices of dims of the given sizes (row-major;
/// a dim of size 1 is index 0, with no division: a row kernel's tile has
/// such dims).
void delinearize(OpBuilder &b, Location loc, Value linear,
                 ArrayRef<Value> sizes, MutableArrayRef<Value> indices) {
  auto unit = [&](int64_t i) { return getConstantIntValue(sizes[i]) == 1; };
  int64_t outermost = 0; // the first dim not of size 1: takes what is left
  while (outermost + 1 < static_cast<int64_t>(sizes.size()) && unit(outermost))
    ++outermost;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == outermost) {
      indices[i] = linear;
    } else if (unit(i)) {
      indices[i] = arith::ConstantIndexOp::create(b, loc, 0);
    } else {
      indices[i] = arith::RemUIOp::create(b, loc, linear, sizes[i]);
      linear = arith::DivUIOp::create(b, loc, linear, sizes[i]);
    }
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

/// The sizes of a generic's loops.
SmallVector<Value> loopSizes(RewriterBase &rewriter, linalg::GenericOp g) {
  SmallVector<Value> sizes;
  auto linalgOp = cast<linalg::LinalgOp>(g.getOperation());
  for (Range r : linalgOp.createLoopRanges(rewriter, g.getLoc()))
    sizes.push_back(
        getValueOrCreateConstantIndexOp(rewriter, g.getLoc(), r.size));
  return sizes;
}

/// A generic's loop sizes (its parallel dims first, tfl-linalg-to-gpu's
/// step 1), split into the parallel dims' and the reduced dims'.
struct LoopSizes {
  SmallVector<Value> all;
  unsigned numParallel;
  ArrayRef<Value> parallel() const {
    return ArrayRef(all).take_front(numParallel);
  }
  ArrayRef<Value> reduced() const {
    return ArrayRef(all).drop_front(numParallel);
  }
};

LoopSizes splitLoopSizes(RewriterBase &rewriter, linalg::GenericOp g) {
  return {loopSizes(rewriter, g), g.getNumParallelLoops()};
}

/// The sequential loop of one thread's partial result: it combines the
/// contributions of reduced elements `from`, `from + step`, ... (below
/// `reduced`, the reduced dims' linearized size), starting from the
/// combiner's identity, for the output element whose parallel ivs `ivs`
/// holds (its reduced ivs are filled in per iteration).
scf::ForOp partialLoop(RewriterBase &rewriter, linalg::GenericOp g,
                       const Combiner &c, ArrayRef<Value> ivs,
                       ArrayRef<Value> reducedSizes, Value from, Value reduced,
                       Value step) {
  Location loc = g.getLoc();
  unsigned numParallel = g.getNumParallelLoops();
  Type t = c.op->getResult(0).getType();
  Block &body = g.getRegion().front();
  Value out = body.getArgument(g.getNumDpsInputs());
  auto loop =
      scf::ForOp::create(rewriter, loc, from, reduced, step,
                         ValueRange{identity(rewriter, loc, c.kind, t)});
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
  return loop;
}

/// One output of a combining reduction by a block's threads: each combines
/// every `threads`-th of the output's reduced elements from `thread` on
/// (the output's parallel ivs in `ivs`), gpu.all_reduce combines their
/// partials, and thread 0 combines the total into the output element.
void blockCombine(RewriterBase &rewriter, linalg::GenericOp g,
                  const Combiner &c, ArrayRef<Value> ivs,
                  ArrayRef<Value> reducedSizes, Value thread, Value threads) {
  Location loc = g.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  scf::ForOp loop = partialLoop(rewriter, g, c, ivs, reducedSizes, thread,
                                product(rewriter, loc, reducedSizes), threads);
  Value total = gpu::AllReduceOp::create(
      rewriter, loc, loop.getResult(0),
      gpu::AllReduceOperationAttr::get(rewriter.getContext(), c.kind),
      rewriter.getUnitAttr());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      thread, zero);
  auto ifFirst = scf::IfOp::create(rewriter, loc, first, false);
  rewriter.setInsertionPointToStart(ifFirst.thenBlock());
  OpOperand *init = g.getDpsInitOperand(0);
  SmallVector<Value> indices =
      applyMap(rewriter, loc, g.getMatchingIndexingMap(init), ivs);
  Value old = memref::LoadOp::create(rewriter, loc, init->get(), indices);
  IRMapping map;
  map.map(g.getRegion().front().getArgument(g.getNumDpsInputs()), old);
  map.map(c.contribution, total);
  Operation *combined = rewriter.clone(*c.op, map);
  memref::StoreOp::create(rewriter, loc, combined->getResult(0), init->get(),
                          indices);
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
  LoopSizes sizes = splitLoopSizes(rewriter, g);
  ArrayRef<Value> parallelSizes = sizes.parallel(),
                  reducedSizes = sizes.reduced();
  Value outputs = product(rewriter, loc, parallelSizes);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  auto launch = gpu::LaunchOp::create(rewriter, loc, outputs, one, one, threads,
                                      one, one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> ivs(numLoops, zero);
  delinearize(rewriter, loc, launch.getBlockIds().x, parallelSizes,
              MutableArrayRef<Value>(ivs).take_front(numParallel));
  // Each thread's partial result over reduced elements thread, thread +
  // blockSize, ...
  blockCombine(rewriter, g, c, ivs, reducedSizes, launch.getThreadIds().x,
               threads);
  rewriter.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.eraseOp(g);
}

/// How a large reduction into few outputs is split over many blocks.
struct Split {
  int64_t outputs, reduced; // elements out, and reduced per output
  int64_t partials;         // partial results per output element
  bool outputsInner;        // partial[p][o] (else partial[o][p])
};

/// Whether a reduction has too few outputs to fill the GPU with one block
/// each (a bias gradient: 16 sums of a batch's 173k pixels), and how to
/// split it: about 64k threads in all, each combining at least 8 elements.
/// Threads of one output are adjacent when the reduced dims are innermost
/// in memory (a full sum), threads of one partial otherwise (the channels
/// of an NHWC bias gradient), so that a warp's loads are contiguous.
std::optional<Split> planSplit(linalg::GenericOp g) {
  constexpr int64_t kMaxOutputs = 512, kMinReduced = 4096, kThreads = 65536;
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  unsigned numParallel = g.getNumParallelLoops();
  int64_t outputs = 1, reduced = 1;
  for (auto [i, r] : llvm::enumerate(ranges))
    (i < numParallel ? outputs : reduced) *= r;
  if (outputs > kMaxOutputs || reduced < kMinReduced)
    return std::nullopt;
  int64_t partials = std::min(kThreads / outputs, reduced / 8) / 32 * 32;
  if (partials < 64)
    return std::nullopt;
  // The input read with the most dims decides which dim is innermost.
  bool outputsInner = false;
  unsigned rank = 0;
  for (OpOperand *input : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(input);
    if (map.getNumResults() <= rank)
      continue;
    rank = map.getNumResults();
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    outputsInner = dim && dim.getPosition() < numParallel;
  }
  return Split{outputs, reduced, partials, outputsInner};
}

/// The split reduction, two launches and a buffer of partial results:
/// a parallel loop of one thread per (output, partial) pair, each
/// combining every `partials`-th reduced element of its output from the
/// identity into its slot of the buffer; then a block reduction per output
/// combines its partials into the output element.
void buildSplitReduction(RewriterBase &rewriter, linalg::GenericOp g,
                         const Combiner &c, const Split &split,
                         int64_t blockSize) {
  Location loc = g.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(g);
  unsigned numLoops = g.getNumLoops();
  unsigned numParallel = g.getNumParallelLoops();
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  LoopSizes sizes = splitLoopSizes(rewriter, g);
  ArrayRef<Value> parallelSizes = sizes.parallel(),
                  reducedSizes = sizes.reduced();

  // partial[p][o...] or partial[o...][p].
  SmallVector<int64_t> shape(ranges.begin(), ranges.begin() + numParallel);
  shape.insert(split.outputsInner ? shape.begin() : shape.end(),
               split.partials);
  Type t = c.op->getResult(0).getType();
  Value partial =
      memref::AllocOp::create(rewriter, loc, MemRefType::get(shape, t));
  auto slot = [&](auto indices, auto p) {
    indices.insert(split.outputsInner ? indices.begin() : indices.end(), p);
    return indices;
  };

  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value numPartials =
      arith::ConstantIndexOp::create(rewriter, loc, split.partials);
  Value numOutputs =
      arith::ConstantIndexOp::create(rewriter, loc, split.outputs);
  Value total = arith::ConstantIndexOp::create(rewriter, loc,
                                               split.outputs * split.partials);
  Value numReduced =
      arith::ConstantIndexOp::create(rewriter, loc, split.reduced);
  auto threads = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                         ValueRange{total}, ValueRange{one});
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(threads.getBody()->getTerminator());
    Value id = threads.getInductionVars()[0];
    Value inner = split.outputsInner ? numOutputs : numPartials;
    Value minor = arith::RemUIOp::create(rewriter, loc, id, inner);
    Value major = arith::DivUIOp::create(rewriter, loc, id, inner);
    Value output = split.outputsInner ? minor : major;
    Value p = split.outputsInner ? major : minor;
    SmallVector<Value> ivs(numLoops, zero);
    delinearize(rewriter, loc, output, parallelSizes,
                MutableArrayRef<Value>(ivs).take_front(numParallel));
    scf::ForOp loop = partialLoop(rewriter, g, c, ivs, reducedSizes, p,
                                  numReduced, numPartials);
    memref::StoreOp::create(
        rewriter, loc, loop.getResult(0), partial,
        slot(SmallVector<Value>(ivs.begin(), ivs.begin() + numParallel), p));
  }
  (void)scf::tileParallelLoop(threads, {blockSize}, /*noMinMaxBounds=*/true);

  // out[o] = combine(out[o], partial[o][0], partial[o][1], ...).
  SmallVector<AffineExpr> dims;
  for (unsigned i = 0; i < numParallel; ++i)
    dims.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineExpr> partialDims =
      slot(SmallVector<AffineExpr>(dims), getAffineDimExpr(numParallel, ctx));
  OpOperand *init = g.getDpsInitOperand(0);
  AffineMap maps[] = {
      AffineMap::get(numParallel + 1, 0, partialDims, ctx),
      AffineMap::get(numParallel + 1, 0,
                     g.getMatchingIndexingMap(init).getResults(), ctx)};
  SmallVector<utils::IteratorType> iterators(numParallel,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Block &body = g.getRegion().front();
  Value out = body.getArgument(g.getNumDpsInputs());
  auto combine = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, ValueRange{partial}, ValueRange{init->get()},
      maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping map;
        map.map(c.contribution, args[0]);
        map.map(out, args[1]);
        linalg::YieldOp::create(b, l, b.clone(*c.op, map)->getResult(0));
      });
  rewriter.setInsertionPointAfter(g);
  memref::DeallocOp::create(rewriter, loc, partial);
  buildBlockReduction(rewriter, combine, *matchCombiner(combine), blockSize);
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

/// Reductions into at most this many outputs per tile run, in a row
/// kernel, as block reductions one output after the other; more outputs
/// are a thread's each.
constexpr int64_t kRowBlockReducedOutputs = 4;

/// One thread's share of `g` in a row kernel: the output elements thread,
/// thread + threads, ... of its parallel dims, each computed whole (its
/// reduced dims, if any, a sequential loop carrying the outputs' values).
void threadShare(RewriterBase &rewriter, linalg::GenericOp g, Value thread,
                 Value threads) {
  Location loc = g.getLoc();
  unsigned numParallel = g.getNumParallelLoops();
  LoopSizes sizes = splitLoopSizes(rewriter, g);
  ArrayRef<Value> parallelSizes = sizes.parallel(),
                  reducedSizes = sizes.reduced();
  Value outputs = product(rewriter, loc, parallelSizes);
  auto loop = scf::ForOp::create(rewriter, loc, thread, outputs, threads);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> ivs(g.getNumLoops(), zero);
  delinearize(rewriter, loc, loop.getInductionVar(), parallelSizes,
              MutableArrayRef<Value>(ivs).take_front(numParallel));
  Block &body = g.getRegion().front();
  auto at = [&](OpOperand *operand, ArrayRef<Value> loopIvs) {
    return applyMap(rewriter, loc, g.getMatchingIndexingMap(operand), loopIvs);
  };
  // The outputs' values before the element's reduction, or where the body
  // reads them (null otherwise: an elementwise op only writes them).
  SmallVector<Value> outs;
  for (OpOperand &init : g.getDpsInitsMutable()) {
    bool read =
        !reducedSizes.empty() || !g.getMatchingBlockArgument(&init).use_empty();
    outs.push_back(
        read ? memref::LoadOp::create(rewriter, loc, init.get(), at(&init, ivs))
                   .getResult()
             : Value());
  }
  // The body at `loopIvs` on the outputs' values `current`: what it yields.
  auto compute = [&](ArrayRef<Value> loopIvs, ValueRange current) {
    IRMapping map;
    for (OpOperand *input : g.getDpsInputOperands()) {
      Value arg = body.getArgument(input->getOperandNumber());
      map.map(arg, isa<MemRefType>(input->get().getType())
                       ? memref::LoadOp::create(rewriter, loc, input->get(),
                                                at(input, loopIvs))
                             .getResult()
                       : input->get());
    }
    for (auto [i, v] : llvm::enumerate(current))
      if (v)
        map.map(body.getArgument(g.getNumDpsInputs() + i), v);
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op))
        map.map(index.getResult(), loopIvs[index.getDim()]);
      else
        rewriter.clone(op, map);
    }
    return llvm::map_to_vector(body.getTerminator()->getOperands(),
                               [&](Value v) { return map.lookupOrDefault(v); });
  };
  SmallVector<Value> results;
  if (reducedSizes.empty()) {
    results = compute(ivs, outs);
  } else {
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto reduce = scf::ForOp::create(
        rewriter, loc, zero, product(rewriter, loc, reducedSizes), one, outs);
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(reduce.getBody());
    SmallVector<Value> loopIvs(ivs);
    delinearize(rewriter, loc, reduce.getInductionVar(), reducedSizes,
                MutableArrayRef<Value>(loopIvs).drop_front(numParallel));
    scf::YieldOp::create(rewriter, loc,
                         compute(loopIvs, reduce.getRegionIterArgs()));
    results = reduce.getResults();
  }
  for (auto [init, v] : llvm::zip(g.getDpsInitsMutable(), results))
    memref::StoreOp::create(rewriter, loc, v, init.get(), at(&init, ivs));
}

/// A combining reduction of `g` into few outputs in a row kernel: for each
/// output in turn, the block's threads stride over its reduced elements,
/// gpu.all_reduce combines their partials and thread 0 stores.
void blockShare(RewriterBase &rewriter, linalg::GenericOp g, const Combiner &c,
                Value thread, Value threads, int64_t outputs) {
  Location loc = g.getLoc();
  unsigned numParallel = g.getNumParallelLoops();
  LoopSizes sizes = splitLoopSizes(rewriter, g);
  ArrayRef<Value> parallelSizes = sizes.parallel(),
                  reducedSizes = sizes.reduced();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ForOp::create(rewriter, loc, zero,
                                 product(rewriter, loc, parallelSizes), one);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  SmallVector<Value> ivs(g.getNumLoops(), zero);
  delinearize(rewriter, loc, loop.getInductionVar(), parallelSizes,
              MutableArrayRef<Value>(ivs).take_front(numParallel));
  blockCombine(rewriter, g, c, ivs, reducedSizes, thread, threads);
  // Every thread reads the total from the all-reduce's workgroup buffer
  // before the next output's all-reduce writes that buffer again.
  if (outputs > 1) {
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    gpu::BarrierOp::create(rewriter, loc);
  }
}

/// The elements of one tile of `op` (all its loops' iterations).
int64_t tileElements(linalg::LinalgOp op) {
  int64_t n = 1;
  for (int64_t r : op.getStaticLoopRanges())
    n *= r;
  return n;
}

/// A tfl.row_blocks loop (tfl-fuse-rows' chain of row-wise ops over tiles
/// of rows) as one kernel: a block per tile, with as many threads as the
/// widest op's tile has elements (rounded up to a warp, at most
/// `blockSize`); its ops run in order, each shared out among the threads
/// (threadShare, blockShare), with a block barrier (after which every
/// thread sees what the others wrote) before an op that depends on one
/// since the last barrier.
LogicalResult buildRowKernel(RewriterBase &rewriter, scf::ForOp loop,
                             int64_t blockSize) {
  Location loc = loop.getLoc();
  int64_t widest = 1;
  for (auto op : loop.getBody()->getOps<linalg::LinalgOp>())
    widest = std::max(widest, tileElements(op));
  int64_t threads = std::min(blockSize, (widest + 31) / 32 * 32);
  rewriter.setInsertionPoint(loop);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value threadCount = arith::ConstantIndexOp::create(rewriter, loc, threads);
  auto launch = gpu::LaunchOp::create(rewriter, loc, loop.getUpperBound(), one,
                                      one, threadCount, one, one);
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  // (fuse's loops count tiles from 0 by 1.)
  rewriter.replaceAllUsesWith(loop.getInductionVar(), launch.getBlockIds().x);
  for (Operation &op :
       llvm::make_early_inc_range(loop.getBody()->without_terminator()))
    op.moveBefore(terminator);
  rewriter.eraseOp(loop);
  rewriter.setInsertionPointToStart(&body);
  Value thread = launch.getThreadIds().x;
  Value blockThreads = arith::ConstantIndexOp::create(rewriter, loc, threads);
  SmallVector<linalg::LinalgOp> ops(body.getOps<linalg::LinalgOp>());
  // The buffers the ops since the last barrier wrote and read: an op that
  // reads the one or writes either (other threads' elements) waits.
  SmallVector<Value> written, read;
  auto touches = [](ArrayRef<Value> buffers, Value v) {
    return llvm::any_of(
        buffers, [&](Value b) { return !distinctBuffers(b, rootBuffer(v)); });
  };
  for (linalg::LinalgOp op : ops) {
    bool waits = false;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      waits |= touches(written, operand.get()) ||
               (op.isDpsInit(&operand) && touches(read, operand.get()));
    }
    rewriter.setInsertionPoint(op);
    if (waits) {
      gpu::BarrierOp::create(rewriter, loc);
      written.clear();
      read.clear();
    }
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()))
        (op.isDpsInit(&operand) ? written : read)
            .push_back(rootBuffer(operand.get()));
    FailureOr<linalg::GenericOp> g = parallelDimsFirst(rewriter, op);
    if (failed(g))
      return failure();
    rewriter.setInsertionPoint(*g);
    std::optional<Combiner> c = matchCombiner(*g);
    int64_t outputs = 1;
    SmallVector<int64_t> ranges = g->getStaticLoopRanges();
    for (unsigned d = 0; d < g->getNumParallelLoops(); ++d)
      outputs *= ranges[d];
    if (c && outputs <= kRowBlockReducedOutputs &&
        tileElements(*g) / outputs >= 32)
      blockShare(rewriter, *g, *c, thread, blockThreads, outputs);
    else
      threadShare(rewriter, *g, thread, blockThreads);
    rewriter.eraseOp(*g);
  }
  return success();
}

/// Steps 2 and 3 for one op.
LogicalResult convert(RewriterBase &rewriter, linalg::LinalgOp op,
                      int64_t blockSize) {
  FailureOr<linalg::GenericOp> generic = parallelDimsFirst(rewriter, op);
  if (failed(generic))
    return failure();
  // Step 1b: contiguous loops fold into one (64-bit divisions of a
  // kernel's index back into one per dim cost a split reduction over an
  // NHWC batch more than its loads).
  generic = collapseContiguousLoops(rewriter, *generic);
  if (std::optional<Combiner> c = matchCombiner(*generic)) {
    if (std::optional<Split> split = planSplit(*generic)) {
      buildSplitReduction(rewriter, *generic, *c, *split, blockSize);
      return success();
    }
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

struct LinalgToGpuPass : impl::LinalgToGpuBase<LinalgToGpuPass> {
  using LinalgToGpuBase::LinalgToGpuBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Chains of row-wise ops (tfl-fuse-rows) become a kernel each.
    SmallVector<scf::ForOp> rowLoops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kRowBlocksAttr))
        rowLoops.push_back(loop);
    });
    for (scf::ForOp loop : rowLoops)
      if (failed(buildRowKernel(rewriter, loop, blockSize)))
        return signalPassFailure();
    if (rowsOnly)
      return;
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
