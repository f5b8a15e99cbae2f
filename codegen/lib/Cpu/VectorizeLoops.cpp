//===- VectorizeLoops.cpp - linalg.generic on buffers to vector loops -----===//
//
// convert-linalg-to-loops makes one scalar loop per dim, and LLVM's loop
// vectorizer, which cannot prove that a generic's buffers do not overlap,
// then either leaves the loops scalar or vectorizes an outer loop with
// gathers and scatters. This pass vectorizes them itself, for each
// `linalg.generic` on static buffers of 8- to 64-bit elements whose
// innermost loop dim is contiguous in every operand that indexes it (i1
// buffers, a byte in memory but a bit in a vector, are first viewed as
// the bytes they are: `boolsAsBytes`):
//
//  1. Adjacent loop dims that every operand indexes together, in order, and
//     that are alike (both parallel or both reduction) merge into one
//     (a bias add over NHWC becomes a (N*H*W, C) loop nest, an elementwise
//     op one flat loop).
//  2. The innermost dim is tiled into vectors (the whole dim when it is
//     short, else `vector-bits` at a time, the remainder peeled off),
//     every other dim by 1. The outermost loop of a large generic, when it
//     runs over a parallel dim, is marked for tfl-parallelize-loops. A sum
//     of rows into columns wider than a vector (a bias's gradient) gets its
//     columns' loop outermost (`sumsColumns`), so that it runs on the
//     threads too.
//  3. Each tile becomes vector ops (`linalg::vectorize`); a peeled tail
//     becomes masked vector ops.
//  4. A reduction's accumulator, read and written in every iteration of
//     the loops it is invariant to, is hoisted into the loops' iter_args;
//     reads of buffers a loop never writes, at indices it does not change
//     (a broadcast operand), move out of it with what is computed from
//     them.
//
// Before step 1, a generic whose body loads whole trailing rows of other
// buffers at indices its outer dims compute (`gather`'s generic, reading
// x[order[i], h, w, c], with the elementwise work fused into it) becomes a
// loop nest over those outer dims around a flat generic that takes each
// row as an operand (`gatherRows`), which the steps above then vectorize.
// Its loop goes on the threads at a quarter of an elementwise loop's size
// (`kGatherWeight`): picked rows come from memory, not from the caches.
//
// Generics it cannot handle stay for convert-linalg-to-loops: scalar
// loops, but a large one's outermost parallel dim becomes a loop marked
// for tfl-parallelize-loops around the generic on each slice
// (`parallelizeScalar`: transposes of attention heads), so no
// large loop nest runs on one thread, nor stays in the function around it.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/BufferRoots.h"
#include "tfl/Codegen/CollapseLoops.h"
#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_VECTORIZELOOPS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// Innermost extents up to this many elements are one vector (tileElements).
constexpr int64_t kWholeDimElements = 64;
/// The narrowest tile a wider one halves to where that divides a dim.
constexpr int64_t kHalvedTileBits = 1024;

/// Marks a tile for step 3 with the vector sizes of its loop dims.
constexpr StringLiteral kTileAttr = "tfl.vector_tile";

/// Generics with at least kParallelIterations iterations (Passes.h) get
/// their outermost loop, when it runs over a parallel dim, marked for
/// tfl-parallelize-loops.

/// Whether `op` is inside a loop already marked for tfl-parallelize-loops
/// (a tfl-fuse-rows chain's): its own loops stay on the thread it runs on.
bool insideParallelLoop(Operation *op) {
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (loop->hasAttr(kParallelLoopAttr))
      return true;
  return false;
}

/// What an iteration that loads from another buffer at a place it reads
/// from memory (a gather: a batch's images picked by a shuffled index)
/// counts for in worthThreads. Its first loads miss the caches (and the
/// TLB, in a dataset of tens of MB) where an elementwise iteration's are
/// prefetched: the main job's input step, 25,088 picked pixels converted
/// to f32, took 25-30 us on one thread (about 1 ns an element, 5-10 times
/// an elementwise op's), 10 us on two.
constexpr int64_t kGatherWeight = 4;

/// Whether loops over `ranges` (a dynamic one counting as long) have
/// kParallelIterations or more iterations in all, each counting `weight`.
bool worthThreads(ArrayRef<int64_t> ranges, int64_t weight = 1) {
  int64_t iterations = weight;
  for (int64_t range : ranges)
    iterations = ShapedType::isDynamic(range)
                     ? kParallelIterations
                     : std::min(iterations * range, kParallelIterations);
  return iterations >= kParallelIterations;
}

/// Marks `loop`, over loops of `ranges` (worthThreads's), for
/// tfl-parallelize-loops, unless it is small or inside a marked loop.
void markIfWorthThreads(RewriterBase &rewriter, Operation *loop,
                        ArrayRef<int64_t> ranges, int64_t weight = 1) {
  if (worthThreads(ranges, weight) && !insideParallelLoop(loop))
    loop->setAttr(kParallelLoopAttr, rewriter.getUnitAttr());
}

/// Elements a vector holds as they lie in memory: 32- and 64-bit floats,
/// integers of 8 bits or more (u8 images), not i1 (a byte in memory, a bit
/// in a vector: boolsAsBytes views such buffers as bytes first).
bool isVectorElement(Type type) {
  if (auto f = dyn_cast<FloatType>(type))
    return f.getWidth() == 32 || f.getWidth() == 64;
  if (auto i = dyn_cast<IntegerType>(type))
    return i.getWidth() == 8 || i.getWidth() == 16 || i.getWidth() == 32 ||
           i.getWidth() == 64;
  return false;
}

/// Before the steps: the i1 buffers `op` reads and writes (masks, the
/// results of comparisons) as the bytes they are in memory. Each becomes
/// a view of i8s of the same buffer (an unrealized cast, which the LLVM
/// lowering folds: a memref's descriptor does not hold its element type),
/// its values truncated to i1 where the body reads them and widened where
/// it yields them, so that the generic's elements are vector elements.
void boolsAsBytes(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics())
    return;
  Type i1 = rewriter.getI1Type(), i8 = rewriter.getI8Type();
  auto isBoolBuffer = [&](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && type.getElementType() == i1;
  };
  if (llvm::none_of(op->getOperands(), isBoolBuffer))
    return;
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  unsigned numInputs = op.getNumDpsInputs();
  rewriter.modifyOpInPlace(op, [&] {
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isBoolBuffer(operand.get()))
        continue;
      auto type = cast<MemRefType>(operand.get().getType());
      rewriter.setInsertionPoint(op);
      Value bytes =
          UnrealizedConversionCastOp::create(
              rewriter, op.getLoc(),
              MemRefType::Builder(type).setElementType(i8), operand.get())
              .getResult(0);
      operand.set(bytes);
      unsigned n = operand.getOperandNumber();
      BlockArgument arg = body->getArgument(n);
      arg.setType(i8);
      rewriter.setInsertionPointToStart(body);
      Value bit = arith::TruncIOp::create(rewriter, op.getLoc(), i1, arg);
      rewriter.replaceAllUsesExcept(arg, bit, bit.getDefiningOp());
      if (n < numInputs)
        continue;
      OpOperand &yielded = yield->getOpOperand(n - numInputs);
      rewriter.setInsertionPoint(yield);
      yielded.set(
          arith::ExtUIOp::create(rewriter, op.getLoc(), i8, yielded.get()));
    }
  });
}

/// Whether `op` can be vectorized along its innermost loop dim: buffers
/// of vector elements (static, or with a batch size given when the
/// program runs), and that dim (if an operand indexes it) the operand's
/// last, contiguous one.
bool isCandidate(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return false;
  unsigned inner = op.getNumLoops() - 1;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !isVectorElement(type.getElementType()) ||
        !type.isLastDimUnitStride())
      return false;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getResult(r).isFunctionOfDim(inner) &&
          (r + 1 != map.getNumResults() ||
           map.getResult(r) != getAffineDimExpr(inner, op.getContext())))
        return false;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::none_of(ranges, ShapedType::isDynamic))
    return succeeded(linalg::vectorizeOpPrecondition(op));
  // A batch's dynamic dims: the precondition of masked vectors, one
  // element along each of them.
  for (int64_t &range : ranges)
    if (ShapedType::isDynamic(range))
      range = 1;
  return succeeded(linalg::vectorizeOpPrecondition(op, ranges));
}

/// Whether a generic with `iterators`, tiled by `tileSizes` into vectors
/// of `width` along its innermost dim of `inner` elements, sums columns:
/// its innermost dim parallel and cut into whole vectors, its outermost
/// tiled dim a reduction (a bias's gradient, a sum over the rows). Its
/// vectors' loop then goes outermost: each vector's sum stays in a
/// register over the rows (step 4), and the vectors spread over the
/// threads, where the loop over the rows outermost would keep the sums in
/// memory and run on one thread.
bool sumsColumns(ArrayRef<utils::IteratorType> iterators,
                 ArrayRef<int64_t> tileSizes, int64_t inner, int64_t width) {
  if (ShapedType::isDynamic(inner) || tileSizes.back() == 0 ||
      inner % width != 0 || !linalg::isParallelIterator(iterators.back()))
    return false;
  for (auto [size, iterator] : llvm::zip(tileSizes, iterators))
    if (size != 0)
      return linalg::isReductionIterator(iterator);
  return false;
}

/// A tile's elements along an innermost dim of `inner` elements of `bits`:
/// the whole dim when it is short, else the widest tile from `tileBits`
/// down to kHalvedTileBits that divides it (96 floats: 3 tiles of 32, not
/// one of 64 and a masked rest), else `tileBits`' with a rest.
int64_t tileElements(int64_t inner, unsigned bits, int64_t tileBits) {
  bool dynamic = ShapedType::isDynamic(inner);
  if (!dynamic && inner <= kWholeDimElements)
    return inner;
  int64_t width = tileBits / static_cast<int64_t>(bits);
  for (int64_t w = width; !dynamic && w * bits >= kHalvedTileBits; w /= 2)
    if (inner % w == 0)
      return w;
  return width;
}

/// Step 2: tiles `op` into tiles of `tileBits`, marked for step 3.
void tile(RewriterBase &rewriter, linalg::GenericOp op, int64_t tileBits) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t inner = ranges.back();
  // A dim sized by a batch (dynamic) is long, as far as this pass knows.
  bool innerDynamic = ShapedType::isDynamic(inner);
  unsigned bits = 0;
  for (Value operand : op->getOperands())
    bits = std::max(bits, cast<MemRefType>(operand.getType())
                              .getElementType()
                              .getIntOrFloatBitWidth());
  int64_t width = tileElements(inner, bits, tileBits);
  SmallVector<int64_t> vectorSizes(ranges.size(), 1);
  vectorSizes.back() = width;
  // A tile size of 0 leaves a dim whole; 1 makes a loop over it.
  SmallVector<int64_t> tileSizes(ranges.size(), 1);
  tileSizes.back() = !innerDynamic && width == inner ? 0 : width;
  for (auto [size, range] : llvm::zip(tileSizes, ranges))
    if (range == 1)
      size = 0;
  auto markTiles = [&](Operation *root) {
    root->walk([&](linalg::GenericOp tileOp) {
      tileOp->setAttr(kTileAttr, rewriter.getDenseI64ArrayAttr(vectorSizes));
    });
  };
  if (llvm::all_of(tileSizes, [](int64_t s) { return s == 0; })) {
    markTiles(op);
    return;
  }
  auto iterators = op.getIteratorTypesArray();
  // The first tiled dim, which the outermost loop runs over.
  unsigned outerDim =
      llvm::find_if(tileSizes, [](int64_t s) { return s != 0; }) -
      tileSizes.begin();
  linalg::LinalgTilingOptions options;
  options.setTileSizes(tileSizes);
  bool columns = sumsColumns(iterators, tileSizes, inner, width);
  if (columns) {
    SmallVector<unsigned> order{static_cast<unsigned>(ranges.size() - 1)};
    for (unsigned d = 0; d + 1 < ranges.size(); ++d)
      order.push_back(d);
    options.setInterchange(order);
    outerDim = ranges.size() - 1;
  }
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled =
      linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled))
    return;
  rewriter.eraseOp(op);
  // Peeling puts the remainder loop right after the main one (inside the
  // outer loops, or after the only loop).
  Operation *outermost = tiled->loops.front();
  Operation *after = outermost->getNextNode();
  if (tileSizes.back() != 0 && (innerDynamic || inner % width != 0))
    linalg::peelLoop(rewriter, tiled->loops.back());
  if (innerDynamic) // (the remainder of a batch's run stays scalar)
    markTiles(tiled->loops.back());
  else
    for (Operation *o = outermost; o != after; o = o->getNextNode())
      markTiles(o);
  if (linalg::isParallelIterator(iterators[outerDim]))
    markIfWorthThreads(rewriter, outermost, ranges);
}

/// Step 3: vectorizes each marked tile: static ones as they are, the
/// dynamic remainder tiles with masks of the tile's vector sizes.
void vectorizeTiles(RewriterBase &rewriter, Operation *root) {
  SmallVector<linalg::GenericOp> tiles;
  root->walk([&](linalg::GenericOp op) {
    if (op->hasAttr(kTileAttr))
      tiles.push_back(op);
  });
  for (linalg::GenericOp op : tiles) {
    auto sizes = op->getAttrOfType<DenseI64ArrayAttr>(kTileAttr).asArrayRef();
    SmallVector<int64_t> vectorSizes(sizes);
    op->removeAttr(kTileAttr);
    bool isStatic =
        llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> result =
        isStatic ? linalg::vectorize(rewriter, op)
                 : linalg::vectorize(rewriter, op, vectorSizes);
    if (succeeded(result))
      rewriter.eraseOp(op);
  }
}

/// Whether `loop` runs at least once (constant bounds).
bool runsAtLeastOnce(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  return lb && ub && *lb < *ub;
}

/// The buffer a vector transfer or a scalar load or store accesses, with
/// whether it writes it; null for other ops.
std::pair<Value, bool> accessedBuffer(Operation *op) {
  if (auto read = dyn_cast<vector::TransferReadOp>(op))
    return {read.getBase(), false};
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    return {write.getBase(), true};
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemRef(), false};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return {store.getMemRef(), true};
  return {Value(), false};
}

/// Whether no op in `loop` but `except` may write (or, unless `writesOnly`,
/// read) the buffer with root `root`.
bool noConflictingAccess(scf::ForOp loop, Value root, bool writesOnly,
                         ArrayRef<Operation *> except = {}) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (llvm::is_contained(except, op) || isa<scf::ForOp, scf::YieldOp>(op))
      return WalkResult::advance();
    auto [buffer, writes] = accessedBuffer(op);
    if (buffer)
      return (writesOnly && !writes) ||
                     distinctBuffers(rootBuffer(buffer), root)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    bool harmless = effects && !effects.hasEffect<MemoryEffects::Write>() &&
                    !effects.hasEffect<MemoryEffects::Free>() &&
                    (writesOnly || !effects.hasEffect<MemoryEffects::Read>());
    return harmless ? WalkResult::advance() : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Moves reads at loop-invariant indices of buffers the loop never writes
/// (a broadcast operand, read once per tile) out of their loops, and then
/// what is computed from them alone (that broadcast's own arithmetic).
void hoistInvariantReads(func::FuncOp func) {
  bool changed = true;
  while (changed) {
    changed = false;
    func.walk([&](scf::ForOp loop) {
      if (!runsAtLeastOnce(loop))
        return;
      for (Operation &op : llvm::make_early_inc_range(*loop.getBody())) {
        auto [buffer, writes] = accessedBuffer(&op);
        if (!buffer || writes)
          continue;
        if (llvm::all_of(
                op.getOperands(),
                [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }) &&
            noConflictingAccess(loop, rootBuffer(buffer),
                                /*writesOnly=*/true)) {
          loop.moveOutOfLoop(&op);
          changed = true;
        }
      }
    });
    func.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
  }
}

/// Step 4: a transfer_read and transfer_write of the same vector of a
/// buffer, at loop-invariant indices, in the body of an scf.for that
/// otherwise touches only other buffers (a reduction's accumulator), become
/// one read before the loop, a loop-carried vector, and one write after.
/// (linalg::hoistRedundantVectorTransfers gives up on any buffer with uses
/// outside the loop, which every accumulator has.)
bool hoistAccumulator(RewriterBase &rewriter, scf::ForOp loop) {
  for (auto write : loop.getBody()->getOps<vector::TransferWriteOp>()) {
    Value buffer = write.getBase();
    Value root = rootBuffer(buffer);
    if (!isa<MemRefType>(buffer.getType()) ||
        !loop.isDefinedOutsideOfLoop(buffer) ||
        !llvm::all_of(write.getIndices(),
                      [&](Value i) { return loop.isDefinedOutsideOfLoop(i); }))
      continue;
    auto reads = loop.getBody()->getOps<vector::TransferReadOp>();
    auto it = llvm::find_if(reads, [&](vector::TransferReadOp r) {
      return r.getBase() == buffer && r.getIndices() == write.getIndices() &&
             r.getVectorType() == write.getVectorType() &&
             r.getPermutationMap() == write.getPermutationMap() &&
             !r.getMask() && !write.getMask() && r->isBeforeInBlock(write);
    });
    if (it == reads.end())
      continue;
    vector::TransferReadOp read = *it;
    if (!noConflictingAccess(loop, root, /*writesOnly=*/false,
                             {read.getOperation(), write.getOperation()}))
      continue;
    loop.moveOutOfLoop(read);
    Value written = write.getVector();
    FailureOr<LoopLikeOpInterface> newLoop = loop.replaceWithAdditionalYields(
        rewriter, read.getResult(), /*replaceInitOperandUsesInLoop=*/true,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{written};
        });
    if (failed(newLoop))
      return false;
    write->moveAfter(*newLoop);
    write.getValueToStoreMutable().assign(
        newLoop->getOperation()->getResults().back());
    return true;
  }
  return false;
}

/// Hoists accumulators out of every loop they are invariant to, innermost
/// loops first.
void hoistAccumulators(RewriterBase &rewriter, func::FuncOp func) {
  bool changed = true;
  while (changed) {
    changed = false;
    func.walk([&](scf::ForOp loop) {
      if (hoistAccumulator(rewriter, loop)) {
        changed = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
  }
}

/// A load in the body of a generic (see gatherRows).
struct BodyLoad {
  memref::LoadOp load;
  /// Whether it reads a whole row (see rowLoads); if not, the outer dims
  /// compute all its indices.
  bool row;
};

/// Whether `v` is defined outside `op` (neither in its body nor under it).
bool definedOutside(Value v, Operation *op) {
  return !op->isAncestor(v.getParentBlock()->getParentOp());
}

/// Whether `v`, in the body of `op`, is computed from values defined
/// outside `op` and the indices of its dims below `s` alone (through pure
/// ops and loads), memoized in `known`.
bool onlyOuter(Value v, linalg::GenericOp op, unsigned s,
               DenseMap<Value, bool> &known) {
  if (definedOutside(v, op))
    return true;
  if (auto it = known.find(v); it != known.end())
    return it->second;
  bool result = false;
  Operation *def = v.getDefiningOp();
  if (auto index = dyn_cast_or_null<linalg::IndexOp>(def)) {
    result = index.getDim() < s;
  } else if (def && def->getBlock() == op.getBody() &&
             (isPure(def) || isa<memref::LoadOp>(def)) &&
             def->getNumRegions() == 0) {
    result = llvm::all_of(def->getOperands(), [&](Value operand) {
      return onlyOuter(operand, op, s, known);
    });
  }
  known[v] = result;
  return result;
}

/// The body loads of `op` if each is either computed by dims [0, s) alone
/// or reads a whole row: its buffer's trailing dims are the dims [s, n) of
/// `op`, in order and of the same sizes, each indexed by its own dim's
/// index (or 0, where the dim's size is 1), and its leading ones indexed
/// by what the outer dims compute; and no dim from s on has an index used
/// otherwise. Failure otherwise.
FailureOr<SmallVector<BodyLoad>> rowLoads(linalg::GenericOp op, unsigned s) {
  unsigned n = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  DenseMap<Value, bool> known;
  SmallVector<BodyLoad> loads;
  DenseSet<Operation *> rowLoadOps;
  for (Operation &inner : op.getBody()->without_terminator()) {
    auto load = dyn_cast<memref::LoadOp>(&inner);
    if (!load)
      continue;
    if (onlyOuter(load.getResult(), op, s, known)) {
      loads.push_back({load, false});
      continue;
    }
    MemRefType type = load.getMemRefType();
    int64_t rank = type.getRank(), lead = rank - (n - s);
    if (lead < 0 || !type.getLayout().isIdentity() || !type.hasStaticShape() ||
        !definedOutside(load.getMemRef(), op))
      return failure();
    for (int64_t r = 0; r < rank; ++r) {
      Value index = load.getIndices()[r];
      if (r < lead) {
        if (!onlyOuter(index, op, s, known))
          return failure();
        continue;
      }
      unsigned d = s + (r - lead);
      if (type.getDimSize(r) != ranges[d])
        return failure();
      auto dim = index.getDefiningOp<linalg::IndexOp>();
      if (dim ? dim.getDim() != d
              : !(ranges[d] == 1 && isConstantIntValue(index, 0)))
        return failure();
    }
    loads.push_back({load, true});
    rowLoadOps.insert(load);
  }
  // The inner dims' indices go to row loads only.
  WalkResult walk = op.getBody()->walk([&](linalg::IndexOp index) {
    if (index.getDim() < s)
      return WalkResult::advance();
    for (Operation *user : index->getUsers())
      if (!rowLoadOps.contains(user))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || rowLoadOps.empty())
    return failure();
  return loads;
}

/// `buffer` (with an identity layout) at `offsets` on its leading dims and
/// whole on the others, as a flat memref.
Value flatRow(OpBuilder &b, Location loc, Value buffer,
              ArrayRef<OpFoldResult> offsets) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> all(offsets), sizes,
      strides(rank, b.getIndexAttr(1));
  all.resize(rank, b.getIndexAttr(0));
  for (int64_t r = 0; r < rank; ++r)
    sizes.push_back(b.getIndexAttr(
        r < static_cast<int64_t>(offsets.size()) ? 1 : type.getDimSize(r)));
  Value view = memref::SubViewOp::create(b, loc, buffer, all, sizes, strides);
  ReassociationIndices group;
  for (int64_t r = 0; r < rank; ++r)
    group.push_back(r);
  return memref::CollapseShapeOp::create(b, loc, view,
                                         ArrayRef<ReassociationIndices>{group});
}

/// Before step 1: `op`, an elementwise generic (identity maps on static
/// buffers with identity layouts) whose body loads whole rows of other
/// buffers (see rowLoads), becomes a loop nest over its outer dims around
/// a flat generic over the rows, which takes each loaded row as an
/// operand; what the outer dims compute (the row's index) moves out to the
/// loops. The outermost loop is marked for tfl-parallelize-loops like a
/// tiled generic's. Other generics stay as they are.
void gatherRows(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.getNumReductionLoops() != 0 ||
      op.getBody()->getOps<memref::LoadOp>().empty())
    return;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape() ||
        !op.getMatchingIndexingMap(&operand).isIdentity())
      return;
  }
  unsigned n = op.getNumLoops(), s = 1;
  FailureOr<SmallVector<BodyLoad>> loads = failure();
  for (; s < n; ++s)
    if (succeeded(loads = rowLoads(op, s)))
      break;
  if (failed(loads))
    return;
  // The generic writes none of the buffers it loads from.
  for (BodyLoad l : *loads)
    for (Value out : op.getDpsInits())
      if (!distinctBuffers(rootBuffer(l.load.getMemRef()), rootBuffer(out)))
        return;

  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  rewriter.setInsertionPoint(op);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  SmallVector<Value> lbs(s, c(0)), ubs, steps(s, c(1));
  for (unsigned d = 0; d < s; ++d)
    ubs.push_back(c(ranges[d]));
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps,
      [&](OpBuilder &b, Location l, ValueRange ivs) {
        IRMapping map;
        // What the outer dims compute, out of the body.
        op.getBody()->walk([&](linalg::IndexOp index) {
          if (index.getDim() < s)
            map.map(index.getResult(), ivs[index.getDim()]);
        });
        DenseMap<Value, bool> known;
        for (Operation &inner : op.getBody()->without_terminator())
          if (!isa<linalg::IndexOp>(inner) && inner.getNumResults() == 1 &&
              onlyOuter(inner.getResult(0), op, s, known))
            b.clone(inner, map);
        SmallVector<Value> ins, outs;
        SmallVector<OpFoldResult> at(ivs.begin(), ivs.end());
        for (Value in : op.getDpsInputs())
          ins.push_back(flatRow(b, l, in, at));
        for (BodyLoad load : *loads) {
          if (!load.row)
            continue;
          MemRefType type = load.load.getMemRefType();
          SmallVector<OpFoldResult> lead;
          for (int64_t r = 0; r < type.getRank() - (n - s); ++r)
            lead.push_back(map.lookupOrDefault(load.load.getIndices()[r]));
          ins.push_back(flatRow(b, l, load.load.getMemRef(), lead));
        }
        for (Value out : op.getDpsInits())
          outs.push_back(flatRow(b, l, out, at));
        auto id = AffineMap::getMultiDimIdentityMap(1, b.getContext());
        SmallVector<AffineMap> maps(ins.size() + outs.size(), id);
        linalg::GenericOp::create(
            b, l, TypeRange{}, ins, outs, maps,
            SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
            [&](OpBuilder &bb, Location, ValueRange args) {
              Block *body = op.getBody();
              unsigned numIns = op.getNumDpsInputs();
              for (unsigned i = 0; i < numIns; ++i)
                map.map(body->getArgument(i), args[i]);
              unsigned next = numIns;
              for (BodyLoad load : *loads)
                if (load.row)
                  map.map(load.load.getResult(), args[next++]);
              for (unsigned i = 0; i < op.getNumDpsInits(); ++i)
                map.map(body->getArgument(numIns + i), args[next + i]);
              for (Operation &inner : *body)
                if (!isa<linalg::IndexOp>(inner) &&
                    (inner.getNumResults() == 0 ||
                     !map.contains(inner.getResult(0))))
                  bb.clone(inner, map);
            });
      });
  markIfWorthThreads(rewriter, nest.loops.front(), ranges, kGatherWeight);
  rewriter.eraseOp(op);
}

/// Generics no step above takes (a transpose, whose innermost dim is
/// strided in one operand) stay scalar loops, but not serial
/// ones: a large one's outermost parallel dim (after step 1's merging)
/// becomes a loop marked for tfl-parallelize-loops around the generic on
/// each slice, so it runs on every thread and its loops leave the
/// enclosing function (whose size LLVM's loop analyses scale with).
void parallelizeScalar(RewriterBase &rewriter, linalg::GenericOp op) {
  bool gathers = !op.getBody()->getOps<memref::LoadOp>().empty();
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      !worthThreads(op.getStaticLoopRanges(), gathers ? kGatherWeight : 1))
    return;
  // Iterations on several threads may only read memory outside the
  // output (a gather's loads), not write it or call out.
  WalkResult writes = op.getBody()->walk([](Operation *inner) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    bool reads = effects && effects.onlyHasEffect<MemoryEffects::Read>();
    return isMemoryEffectFree(inner) || reads ? WalkResult::advance()
                                              : WalkResult::interrupt();
  });
  if (writes.wasInterrupted())
    return;
  op = collapseContiguousLoops(rewriter, op);
  auto iterators = op.getIteratorTypesArray();
  if (!linalg::isParallelIterator(iterators.front()))
    return;
  SmallVector<int64_t> tileSizes(op.getNumLoops(), 0);
  tileSizes.front() = 1;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(
      rewriter, op, linalg::LinalgTilingOptions().setTileSizes(tileSizes));
  if (failed(tiled) || tiled->loops.empty())
    return;
  rewriter.eraseOp(op);
  tiled->loops.front()->setAttr(kParallelLoopAttr, rewriter.getUnitAttr());
}

/// The canonicalization patterns of every op of the dialects `Dialects`.
template <typename... Dialects>
RewritePatternSet canonicalizations(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (isa<Dialects...>(name.getDialect()))
      name.getCanonicalizationPatterns(patterns, ctx);
  return patterns;
}

/// Applies `patterns` to `func` with a bound on the rewrites (a hundred
/// per op), so patterns that undo each other cannot run away. Not reaching
/// a fixpoint leaves valid, merely less simplified IR. The driver's region
/// simplification (dead blocks and arguments, merged blocks) is left out:
/// these patterns make none to simplify, and on a training step's body it
/// was half of the pass's time, rescanning the whole function each round.
void simplify(func::FuncOp func, RewritePatternSet &&patterns) {
  int64_t ops = 0;
  func.walk([&](Operation *) { ++ops; });
  (void)applyPatternsGreedily(
      func, std::move(patterns),
      GreedyRewriteConfig()
          .setMaxNumRewrites(100 * ops)
          .setMaxIterations(20)
          .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled));
}

struct VectorizeLoopsPass : impl::VectorizeLoopsBase<VectorizeLoopsPass> {
  using VectorizeLoopsBase::VectorizeLoopsBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    func::FuncOp func = getOperation();
    IRRewriter rewriter(ctx);
    func.walk([&](linalg::GenericOp op) { boolsAsBytes(rewriter, op); });
    SmallVector<linalg::GenericOp> gathers;
    func.walk([&](linalg::GenericOp op) {
      if (!isCandidate(op))
        gathers.push_back(op);
    });
    for (linalg::GenericOp op : gathers)
      gatherRows(rewriter, op);
    SmallVector<linalg::GenericOp> candidates, scalar;
    func.walk([&](linalg::GenericOp op) {
      if (isCandidate(op))
        candidates.push_back(op);
      else if (!insideParallelLoop(op))
        scalar.push_back(op);
    });
    for (linalg::GenericOp op : scalar)
      parallelizeScalar(rewriter, op);
    if (candidates.empty())
      return;
    int64_t tileBits = vectorBits > 0 ? vectorBits : vectorTileBits();
    for (linalg::GenericOp op : candidates) // step 1, then 2
      tile(rewriter, collapseContiguousLoops(rewriter, op), tileBits);

    // Fold the tiles' constant sizes into their subviews, so the full
    // tiles are static.
    simplify(func,
             canonicalizations<affine::AffineDialect, memref::MemRefDialect,
                               linalg::LinalgDialect, scf::SCFDialect,
                               arith::ArithDialect>(ctx));
    vectorizeTiles(rewriter, func);

    // Step 4: transfers straight on the buffers (not on the tiles'
    // subviews), loop-invariant ones out of their loops, and accumulators
    // into iter_args.
    // Tiles reduce over unit dims: their multi_reductions fold away.
    simplify(func, canonicalizations<vector::VectorDialect>(ctx));
    {
      RewritePatternSet patterns(ctx);
      memref::populateFoldMemRefAliasOpPatterns(patterns);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorToVectorCanonicalizationPatterns(patterns);
      simplify(func, std::move(patterns));
    }
    func.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    hoistAccumulators(rewriter, func);
    hoistInvariantReads(func);
  }
};

} // namespace

} // namespace mlir::tfl
