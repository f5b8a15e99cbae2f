//===- FuseRows.cpp - Chains of row-wise ops in one loop over row tiles ---===//
//
// A softmax, a layer norm and their gradients reach the buffers as a chain
// of linalg ops over the same rows: a reduction of each row (its max, its
// mean) into a buffer filled first, an elementwise op reading the row and
// its reduction (x - max, its exp), another reduction, and so on. Each op
// of the chain ran as its own loop over every row, split among the cores:
// a fork and a join per op, and every intermediate written to memory and
// read back by the next op after all rows were done.
//
// This pass, before tfl-vectorize-loops, puts each such chain in one loop
// over tiles of rows, marked for tfl-parallelize-loops: an iteration runs
// every op of the chain on its tile (subviews of the tile's rows), so each
// row is read from memory once and its intermediates stay in the core's
// cache between the ops, and the chain forks once. The ops themselves are
// unchanged (the vectorizer then makes each a vector loop over its tile),
// so each computes what it did, in the same order.
//
// The rows are the chain's leading loop dims d0..dk-1 (k <= 2), parallel in
// every op. Fusing is legal when each op touches, of any buffer the chain
// writes, only the rows of its own iteration:
//  - every operand an op indexes by a row dim reads each row dim at most
//    once, as an index of its own, with its extent (a causal mask [T, T]
//    of scores [B, T, T], indexed by the rows' T: a tile reads the mask's
//    rows its own rows index), the same way wherever the op reads it;
//  - an operand that may share memory with a buffer the chain writes
//    takes d0..dk-1 as its leading dims, in order, and is a whole buffer
//    of the identity layout, so that its tiles are the same bytes as every
//    other view's of it;
//  - operands indexed by no row dim (a layer norm's weight, a broadcast)
//    are read whole by every tile, and so must not be written by the chain;
//  - bodies read no other memory, and `linalg.index` of a row dim is
//    offset by the tile's first row.
// Between the chain's ops, allocations, views and pure ops stay before the
// loop and deallocations move after it; any other op ends the chain. A
// chain of one generic (a reduction and its fill) stays as it is.
//
// With the `gpu` option (the CUDA pipeline's device functions), a chain is
// worth a loop whatever its size: its tiles become the blocks of one
// kernel (tfl-linalg-to-gpu), where the ops were a launch each. The rows
// may then be every leading parallel dim (a softmax over the last dim of
// [B, H, T, T] has B x H x T rows), and a tile is one row, or the rows of
// about kGpuTileElements elements along the last row dim; the loop is
// marked `tfl.row_blocks` instead.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/BufferRoots.h"
#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_FUSEROWS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// Elements of one op's tile at most: with the few buffers a chain reads
/// and writes, a tile stays in a core's first- or second-level cache.
constexpr int64_t kTileElements = 4096;
/// Tiles at least, so that every thread gets some. (A chain whose largest
/// op has fewer than kParallelIterations iterations stays as it is.)
constexpr int64_t kMinTiles = 4;
/// Row dims at most (tiles over one or two leading dims).
constexpr unsigned kMaxRowDims = 2;
/// On the GPU: row dims at most, and elements of a tile (a block's) below
/// which a tile takes several rows.
constexpr unsigned kGpuMaxRowDims = 4;
constexpr int64_t kGpuTileElements = 256;

/// Whether `e` reads any of the dims below `k`.
bool usesRows(AffineExpr e, unsigned k) {
  for (unsigned d = 0; d < k; ++d)
    if (e.isFunctionOfDim(d))
      return true;
  return false;
}

/// Whether `map` reads any row dim (below `k`).
bool usesRows(AffineMap map, unsigned k) {
  return llvm::any_of(map.getResults(),
                      [&](AffineExpr e) { return usesRows(e, k); });
}

/// A linalg op the chain can hold: a generic or fill on static buffers
/// whose body reads no memory.
bool isCandidate(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isa<linalg::GenericOp, linalg::FillOp>(op) ||
      !linalgOp.hasPureBufferSemantics() || linalgOp.getNumLoops() == 0)
    return false;
  for (Value v : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(v.getType());
        type && !type.hasStaticShape())
      return false;
  WalkResult inner = op->getRegion(0).walk([](Operation *o) {
    return isMemoryEffectFree(o) ? WalkResult::advance()
                                 : WalkResult::interrupt();
  });
  return !inner.wasInterrupted();
}

/// The row dim (below `k`) that `e` is, if it is one alone.
std::optional<unsigned> rowDimOf(AffineExpr e, unsigned k) {
  auto dim = dyn_cast<AffineDimExpr>(e);
  if (!dim || dim.getPosition() >= k)
    return std::nullopt;
  return dim.getPosition();
}

/// Whether `map` takes the row dims (below `k`) as its leading results, in
/// order, and reads them nowhere else.
bool rowsLeading(AffineMap map, unsigned k) {
  if (map.getNumResults() < k)
    return false;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    if (r < k ? rowDimOf(map.getResult(r), k) != r
              : usesRows(map.getResult(r), k))
      return false;
  return true;
}

/// Whether `op`'s first `k` loop dims can be row dims: parallel, and each
/// operand either reads none of them or reads each of them at most once,
/// as a whole index of its own (a causal mask [T, T] of scores [B, H, T, T]
/// indexed by the rows' T; a tile then reads the rows of it that the
/// tile's rows index), with their extents; a value read by several
/// operands reads the rows at the same positions in each (one view of it
/// serves them).
bool rowsFit(linalg::LinalgOp op, unsigned k) {
  if (k > op.getNumLoops())
    return false;
  auto iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned d = 0; d < k; ++d)
    if (!linalg::isParallelIterator(iterators[d]))
      return false;
  // Per value, the row dim at each of its positions (-1: none).
  DenseMap<Value, SmallVector<int>> tiled;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<int> positions;
    for (AffineExpr e : map.getResults())
      positions.push_back(rowDimOf(e, k) ? int(*rowDimOf(e, k)) : -1);
    auto [it, inserted] = tiled.try_emplace(operand.get(), positions);
    if (!inserted && it->second != positions)
      return false;
    if (!usesRows(map, k))
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      return false;
    llvm::SmallBitVector seen(k);
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      AffineExpr e = map.getResult(r);
      if (!usesRows(e, k))
        continue;
      std::optional<unsigned> d = rowDimOf(e, k);
      if (!d || seen.test(*d) || type.getDimSize(r) != ranges[*d])
        return false;
      seen.set(*d);
    }
  }
  return true;
}

/// The most row dims `op` can have, up to `most`.
unsigned rowDimsOf(linalg::LinalgOp op, unsigned most) {
  unsigned k = 0;
  while (k < most && rowsFit(op, k + 1))
    ++k;
  return k;
}

/// A chain: its ops, in order, and the extents of its row dims.
struct Chain {
  SmallVector<linalg::LinalgOp> ops;
  SmallVector<int64_t> rows;
};

/// Whether `type` is a whole buffer of `root`'s elements in the identity
/// layout.
bool isWholeBuffer(MemRefType type, Value root) {
  auto rootType = dyn_cast<MemRefType>(root.getType());
  return type.getLayout().isIdentity() && rootType &&
         rootType.hasStaticShape() &&
         rootType.getNumElements() == type.getNumElements();
}

/// Whether the ops of `chain`, with `k` row dims, touch only their own rows
/// of the buffers the chain writes (the file comment's rules).
bool touchesOwnRows(ArrayRef<linalg::LinalgOp> ops, unsigned k) {
  SmallVector<Value> written;
  for (linalg::LinalgOp op : ops)
    for (Value init : op.getDpsInits())
      written.push_back(rootBuffer(init));
  for (linalg::LinalgOp op : ops) {
    if (!rowsFit(op, k))
      return false;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        continue;
      Value root = rootBuffer(operand.get());
      if (llvm::all_of(written,
                       [&](Value w) { return distinctBuffers(root, w); }))
        continue;
      if (!rowsLeading(op.getMatchingIndexingMap(&operand), k) ||
          !isWholeBuffer(type, root))
        return false;
    }
  }
  return true;
}

/// Whether `op`, between two ops of a chain, can stay before the chain's
/// loop (an allocation, a view, a pure op) or move after it (a dealloc).
bool staysOutside(Operation *op) {
  if (isa<memref::DeallocOp, memref::AllocOp>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// The largest divisor of `n` that is at most `limit` (at least 1).
int64_t largestDivisor(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, std::max<int64_t>(limit, 1)); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// How many tiles of `tile` rows the row dims `rows` hold.
int64_t tileCount(ArrayRef<int64_t> rows, ArrayRef<int64_t> tile) {
  int64_t tiles = 1;
  for (auto [extent, size] : llvm::zip(rows, tile))
    tiles *= extent / size;
  return tiles;
}

/// The tile of the row dims for `chain`: rows of each dim per tile, or
/// empty when the chain is not worth a loop.
SmallVector<int64_t> tileOf(const Chain &chain, bool gpu) {
  bool reduces = false;
  int64_t perRow = 1, iterations = 0, generics = 0;
  unsigned k = chain.rows.size();
  for (linalg::LinalgOp op : chain.ops) {
    reduces |= op.getNumReductionLoops() != 0;
    generics += isa<linalg::GenericOp>(op);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t inner = 1, all = 1;
    for (unsigned d = 0; d < ranges.size(); ++d) {
      all *= ranges[d];
      if (d >= k)
        inner *= ranges[d];
    }
    perRow = std::max(perRow, inner);
    iterations = std::max(iterations, all);
  }
  if (generics < 2 || !reduces)
    return {};
  if (gpu) {
    // A row per block, or a few short ones.
    SmallVector<int64_t> tile(k, 1);
    tile[k - 1] = largestDivisor(
        chain.rows[k - 1], std::max<int64_t>(kGpuTileElements / perRow, 1));
    return tile;
  }
  if (iterations < kParallelIterations)
    return {};
  SmallVector<int64_t> tile(chain.rows);
  int64_t budget = std::max<int64_t>(kTileElements / perRow, 1);
  // With two row dims: whole runs of the second when they fit, else a cut
  // of one run.
  if (k == 1) {
    tile[0] = largestDivisor(chain.rows[0], budget);
  } else if (chain.rows[1] <= budget) {
    tile[0] = largestDivisor(chain.rows[0], budget / chain.rows[1]);
  } else {
    tile[0] = 1;
    tile[1] = largestDivisor(chain.rows[1], budget);
  }
  // Too few tiles: smaller ones, down to a row.
  for (unsigned d = 0; d < k; ++d)
    while (tileCount(chain.rows, tile) < kMinTiles && tile[d] > 1)
      tile[d] = largestDivisor(chain.rows[d], tile[d] - 1);
  if (tileCount(chain.rows, tile) < kMinTiles)
    return {};
  return tile;
}

/// Replaces the ops of `chain` by one loop over tiles of `tile` rows, right
/// after its last op; the deallocs in `frees` move after the loop.
void fuse(RewriterBase &rewriter, const Chain &chain, ArrayRef<int64_t> tile,
          ArrayRef<Operation *> frees, bool gpu) {
  unsigned k = chain.rows.size();
  Operation *last = chain.ops.back();
  Location loc = last->getLoc();
  rewriter.setInsertionPointAfter(last);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  auto loop = scf::ForOp::create(rewriter, loc, c(0),
                                 c(tileCount(chain.rows, tile)), c(1));
  loop->setAttr(gpu ? kRowBlocksAttr : kParallelLoopAttr,
                rewriter.getUnitAttr());
  Operation *after = loop;
  for (Operation *free : frees) {
    rewriter.moveOpAfter(free, after);
    after = free;
  }

  rewriter.setInsertionPointToStart(loop.getBody());
  Value index = loop.getInductionVar();
  // The tile's first row in each row dim.
  // Row-major over the tiles of each dim, the first dim slowest.
  SmallVector<Value> first(k);
  for (unsigned d = k - 1; d > 0; --d) {
    Value across = c(chain.rows[d] / tile[d]);
    Value at = arith::RemUIOp::create(rewriter, loc, index, across);
    first[d] = arith::MulIOp::create(rewriter, loc, at, c(tile[d]));
    index = arith::DivUIOp::create(rewriter, loc, index, across);
  }
  first[0] = arith::MulIOp::create(rewriter, loc, index, c(tile[0]));
  for (linalg::LinalgOp op : chain.ops) {
    IRMapping map;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      AffineMap indexing = op.getMatchingIndexingMap(&operand);
      if (map.contains(v) || !usesRows(indexing, k))
        continue;
      auto type = cast<MemRefType>(v.getType());
      SmallVector<OpFoldResult> offsets, sizes,
          strides(type.getRank(), rewriter.getIndexAttr(1));
      // A tile of the rows where a row dim indexes the operand.
      for (int64_t r = 0; r < type.getRank(); ++r) {
        std::optional<unsigned> d = rowDimOf(indexing.getResult(r), k);
        offsets.push_back(d ? OpFoldResult(first[*d])
                            : OpFoldResult(rewriter.getIndexAttr(0)));
        sizes.push_back(
            rewriter.getIndexAttr(d ? tile[*d] : type.getDimSize(r)));
      }
      map.map(v, memref::SubViewOp::create(rewriter, loc, v, offsets, sizes,
                                           strides)
                     .getResult());
    }
    Operation *clone = rewriter.clone(*op, map);
    // linalg.index of a row dim counts from the tile's first row.
    clone->walk([&](linalg::IndexOp indexOp) {
      if (indexOp.getDim() >= k)
        return;
      rewriter.setInsertionPointAfter(indexOp);
      auto add = arith::AddIOp::create(rewriter, indexOp.getLoc(), indexOp,
                                       first[indexOp.getDim()]);
      rewriter.replaceAllUsesExcept(indexOp, add, add);
    });
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  }
  for (linalg::LinalgOp op : chain.ops)
    rewriter.eraseOp(op);
}

/// Fuses the chains of `block` (not of the blocks nested in its ops).
void fuseChains(RewriterBase &rewriter, Block &block, bool gpu) {
  unsigned most = gpu ? kGpuMaxRowDims : kMaxRowDims;
  Chain chain;
  SmallVector<Operation *> frees, pendingFrees;
  auto close = [&] {
    if (!chain.ops.empty()) {
      SmallVector<int64_t> tile = tileOf(chain, gpu);
      if (!tile.empty())
        fuse(rewriter, chain, tile, frees, gpu);
    }
    chain = Chain();
    frees.clear();
    pendingFrees.clear();
  };
  auto start = [&](linalg::LinalgOp op) {
    unsigned k = rowDimsOf(op, most);
    if (k == 0)
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    chain.ops.push_back(op);
    chain.rows.assign(ranges.begin(), ranges.begin() + k);
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (!isCandidate(&op)) {
      if (!chain.ops.empty() && staysOutside(&op)) {
        if (isa<memref::DeallocOp>(op))
          pendingFrees.push_back(&op);
        continue;
      }
      close();
      continue;
    }
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (chain.ops.empty()) {
      start(linalgOp);
      continue;
    }
    // The row dims the chain and this op share.
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    unsigned k = 0;
    while (k < chain.rows.size() && k < ranges.size() &&
           ranges[k] == chain.rows[k])
      ++k;
    SmallVector<linalg::LinalgOp> ops(chain.ops);
    ops.push_back(linalgOp);
    while (k > 0 && !touchesOwnRows(ops, k))
      --k;
    if (k == 0) {
      close();
      start(linalgOp);
      continue;
    }
    chain.ops = std::move(ops);
    chain.rows.resize(k);
    frees.append(pendingFrees);
    pendingFrees.clear();
  }
  close();
}

struct FuseRowsPass : impl::FuseRowsBase<FuseRowsPass> {
  using FuseRowsBase::FuseRowsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // The blocks outside linalg ops (whose bodies hold no chains, and go
    // with the ops fused).
    SmallVector<Block *> blocks;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<linalg::LinalgOp>(op))
        return WalkResult::skip();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          blocks.push_back(&block);
      return WalkResult::advance();
    });
    for (Block *block : blocks)
      fuseChains(rewriter, *block, gpu);
  }
};

} // namespace
} // namespace mlir::tfl
