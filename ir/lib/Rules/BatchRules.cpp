//===- BatchRules.cpp - Batching rules of the ops that are not elementwise ===//
//
// vmap's rules (Tfl_BatchOpInterface, TflInterfaces.td) for reductions,
// data movement, matmul, convolutions and pooling. Each takes the op's
// operands batched (the batch dim first) or not and emits the op once for
// the whole batch: a reduction or a transpose over axes one further on, a
// product as one batched product, a convolution or a pool over the batch's
// images and the examples' together. The Tfl_Elementwise ops share one
// generic rule (batchElementwise).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/BatchRules.h"
#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

#include "llvm/ADT/STLExtras.h"

namespace mlir::tfl {

namespace {

RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `axes` one further on, past the batch dim.
SmallVector<int64_t> shifted(ArrayRef<int64_t> axes) {
  return llvm::map_to_vector(axes, [](int64_t a) { return a + 1; });
}

/// A batched value with examples of two or more dims, its batch dim and
/// its examples' first dim as one: [N, B, ...] as [N * B, ...].
Value foldBatch(OpBuilder &b, Location loc, Value v) {
  ArrayRef<int64_t> shape = tensorOf(v).getShape();
  SmallVector<int64_t> folded{shape[0] * shape[1]};
  llvm::append_range(folded, shape.drop_front(2));
  return ReverseBuilder(b, loc).reshape(v, folded);
}

/// The inverse of foldBatch: [N * B, ...] as [N, B, ...].
Value unfoldBatch(OpBuilder &b, Location loc, Value v, int64_t size) {
  ArrayRef<int64_t> shape = tensorOf(v).getShape();
  SmallVector<int64_t> unfolded{size, shape[0] / size};
  llvm::append_range(unfolded, shape.drop_front());
  return ReverseBuilder(b, loc).reshape(v, unfolded);
}

/// For batched `indices` (examples of `indexRank` dims) into each
/// example's `rows` rows: example n's offset n * rows, [size, 1, ...], to
/// add so that they index the batch's rows as one tensor.
Value rowOffsets(OpBuilder &b, Location loc, Value indices, int64_t indexRank,
                 int64_t rows) {
  auto type = tensorOf(indices);
  int64_t size = type.getDimSize(0);
  SmallVector<int64_t> shape{size};
  shape.append(indexRank, 1);
  SmallVector<APInt> offsets;
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  for (int64_t n = 0; n < size; ++n)
    offsets.emplace_back(width, n * rows);
  return ConstantOp::create(b, loc,
                            DenseElementsAttr::get(type.clone(shape), offsets));
}

/// Every operand batched (the unbatched ones broadcast to the batch).
SmallVector<Value> allBatched(OpBuilder &b, Location loc, ValueRange operands,
                              ArrayRef<bool> batched, int64_t size) {
  SmallVector<Value> out;
  for (auto [v, on] : llvm::zip(operands, batched))
    out.push_back(on ? v : broadcastToBatch(b, loc, v, size));
  return out;
}

/// The ops on NHWC images (convolutions and pools): the examples' images
/// and the batch's as one batch of images, the op on them, and the result
/// unfolded. Only operands that are images of each example may be
/// batched (`images`); a filter may not.
LogicalResult batchOverImages(OpBuilder &b, Operation *op, ValueRange operands,
                              ArrayRef<bool> batched, ArrayRef<bool> images,
                              int64_t size, SmallVectorImpl<Value> &results) {
  Location loc = op->getLoc();
  SmallVector<Value> folded;
  for (auto [i, v] : llvm::enumerate(operands)) {
    if (!images[i]) {
      if (batched[i])
        return op->emitError("vmap: ")
               << op->getName()
               << " with a filter that differs per example is not "
                  "supported yet";
      folded.push_back(v);
      continue;
    }
    folded.push_back(
        foldBatch(b, loc, batched[i] ? v : broadcastToBatch(b, loc, v, size)));
  }
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] *= size;
  OperationState state(loc, op->getName());
  state.addOperands(folded);
  state.addAttributes(op->getAttrs());
  state.addTypes(type.clone(shape));
  Operation *copy = b.create(state);
  results.push_back(unfoldBatch(b, loc, copy->getResult(0), size));
  return success();
}

template <typename ReductionOp>
LogicalResult batchReduction(ReductionOp op, OpBuilder &b, ValueRange operands,
                             int64_t size, SmallVectorImpl<Value> &results) {
  results.push_back(ReductionOp::create(
      b, op.getLoc(), batchedType(op.getType(), size), operands[0],
      b.getDenseI64ArrayAttr(shifted(op.getAxes())), op.getKeepdimsAttr()));
  return success();
}

template <typename ArgOp>
LogicalResult batchArgReduction(ArgOp op, OpBuilder &b, ValueRange operands,
                                int64_t size, SmallVectorImpl<Value> &results) {
  Location loc = op.getLoc();
  Value x = operands[0];
  std::optional<int64_t> axis = op.getAxis();
  if (!axis) {
    // The index into each example's flattened elements.
    x = ReverseBuilder(b, loc).reshape(
        x, {size, op.getInput().getType().getNumElements()});
    axis = 0;
  }
  auto type = batchedType(op.getType(), size);
  auto flat = cast<RankedTensorType>(x.getType());
  auto resultType =
      op.getAxis() ? type
                   : RankedTensorType::get(
                         reducedShape(flat.getShape(), {1}, op.getKeepdims()),
                         type.getElementType());
  Value r = ArgOp::create(b, loc, resultType, x, b.getI64IntegerAttr(*axis + 1),
                          op.getKeepdimsAttr());
  results.push_back(ReverseBuilder(b, loc).reshape(r, type.getShape()));
  return success();
}

/// An i64 tensor of `shape` holding `values`.
Value i64Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}

/// Where a window whose starts differ per example lies in each example's
/// `shape` (row-major), with `size` examples: [size, window...] flat
/// positions, each plus n * |shape| for example n when `offset`. Static
/// starts are the op's; dynamic ones (`starts`, in order) are [size]
/// where `startBatched`, else scalars. With `check`, the program stops
/// unless every example's window lies inside `shape` (as the slice's
/// own check does).
Value windowPositions(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                      ArrayRef<int64_t> window, ArrayRef<int64_t> staticStarts,
                      ArrayRef<int64_t> strides, ValueRange starts,
                      ArrayRef<bool> startBatched, int64_t size, bool offset,
                      bool check) {
  ReverseBuilder r(b, loc);
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  SmallVector<int64_t> column(rank + 1, 1);
  column[0] = size;
  Value positions, valid;
  int64_t stride = elements, dynamic = 0;
  for (int64_t d = 0; d < rank; ++d) {
    stride /= shape[d];
    Value start;
    if (staticStarts[d] != ShapedType::kDynamic) {
      start = i64Constant(b, loc, {}, {staticStarts[d]});
    } else {
      start = starts[dynamic];
      if (startBatched[dynamic++])
        start = r.reshape(start, column);
      // The window's extent along d: it must lie in [0, shape[d]).
      if (check) {
        int64_t reach = (window[d] - 1) * strides[d];
        Value lo = r.add(
            start, i64Constant(b, loc, {}, {std::min<int64_t>(reach, 0)}));
        Value hi = r.add(
            start, i64Constant(b, loc, {}, {std::max<int64_t>(reach, 0)}));
        Value inside = r.mul(
            r.castTo(r.gt(lo, i64Constant(b, loc, {}, {-1})), b.getI64Type()),
            r.castTo(r.gt(i64Constant(b, loc, {}, {shape[d]}), hi),
                     b.getI64Type()));
        valid = valid ? r.mul(valid, inside) : inside;
      }
    }
    // start + j * stride along d, in elements.
    SmallVector<int64_t> along(rank + 1, 1), steps;
    along[d + 1] = window[d];
    for (int64_t j = 0; j < window[d]; ++j)
      steps.push_back(j * strides[d] * stride);
    Value alongD = r.add(r.mul(start, i64Constant(b, loc, {}, {stride})),
                         i64Constant(b, loc, along, steps));
    positions = positions ? r.add(positions, alongD) : alongD;
  }
  // Every example's positions are [size, window...] once a start differs
  // per example; example n's are in its own elements.
  if (offset)
    positions = r.add(positions, rowOffsets(b, loc, positions, rank, elements));
  if (valid) {
    auto scalar = RankedTensorType::get({}, b.getI64Type());
    SmallVector<int64_t> axes;
    for (int64_t a = 0; a < tensorOf(valid).getRank(); ++a)
      axes.push_back(a);
    Value every =
        ReduceMinOp::create(b, loc, scalar, valid, b.getDenseI64ArrayAttr(axes),
                            b.getBoolAttr(false));
    AssertOp::create(b, loc, r.eq(every, i64Constant(b, loc, {}, {1})),
                     b.getStringAttr("index out of range: an example's slice "
                                     "leaves its tensor"));
  }
  return positions;
}

/// slice and embed_slice: the window of each example (its starts read by
/// every example alike), or, where a start differs per example, each
/// example's window by its flat positions: a gather of the examples'
/// elements (slice) or a scatter into zeros (embed_slice).
template <typename WindowOp>
LogicalResult batchWindow(WindowOp op, OpBuilder &b, ValueRange operands,
                          ArrayRef<bool> batched, int64_t size,
                          SmallVectorImpl<Value> &results) {
  if (llvm::is_contained(batched.drop_front(), true)) {
    constexpr bool embed = std::is_same_v<WindowOp, EmbedSliceOp>;
    Location loc = op.getLoc();
    ReverseBuilder r(b, loc);
    auto window = cast<RankedTensorType>(op.getInput().getType());
    auto full = op.getType();
    if (!embed)
      std::swap(window, full);
    if (embed && !isa<FloatType>(full.getElementType()))
      return op.emitError("vmap: ")
             << op->getName() << " of integers at a position that differs "
             << "per example is not supported yet";
    Value positions = windowPositions(
        b, loc, full.getShape(), window.getShape(), op.getStaticStarts(),
        op.getStrides(), operands.drop_front(), batched.drop_front(), size,
        /*offset=*/embed || batched[0], /*check=*/!embed);
    int64_t elements = full.getNumElements();
    auto type = batchedType(op.getType(), size);
    if (!embed) {
      Value x =
          r.reshape(operands[0], {batched[0] ? size * elements : elements});
      results.push_back(
          GatherOp::create(b, loc, type, x, positions, b.getI64IntegerAttr(0)));
      return success();
    }
    Value y =
        batched[0] ? operands[0] : broadcastToBatch(b, loc, operands[0], size);
    Value sums = ScatterAddOp::create(
        b, loc, RankedTensorType::get({size * elements}, full.getElementType()),
        y, positions, b.getI64IntegerAttr(0));
    results.push_back(r.reshape(sums, type.getShape()));
    return success();
  }
  SmallVector<int64_t> starts{0}, strides{1};
  llvm::append_range(starts, op.getStaticStarts());
  llvm::append_range(strides, op.getStrides());
  results.push_back(WindowOp::create(
      b, op.getLoc(), batchedType(op.getType(), size), operands[0],
      operands.drop_front(), b.getDenseI64ArrayAttr(starts),
      b.getDenseI64ArrayAttr(strides)));
  return success();
}

} // namespace

RankedTensorType batchedType(Type type, int64_t size) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape{size};
  llvm::append_range(shape, t.getShape());
  return t.clone(shape);
}

Value broadcastToBatch(OpBuilder &b, Location loc, Value v, int64_t size) {
  return BroadcastToOp::create(b, loc, batchedType(v.getType(), size), v);
}

Value alignExamples(OpBuilder &b, Location loc, Value v, int64_t rank) {
  ArrayRef<int64_t> shape = tensorOf(v).getShape();
  int64_t missing = rank + 1 - static_cast<int64_t>(shape.size());
  if (missing <= 0)
    return v;
  SmallVector<int64_t> aligned{shape[0]};
  aligned.append(missing, 1);
  llvm::append_range(aligned, shape.drop_front());
  return ReverseBuilder(b, loc).reshape(v, aligned);
}

void batchElementwise(OpBuilder &b, Operation *op, ValueRange operands,
                      ArrayRef<bool> batched, int64_t size,
                      SmallVectorImpl<Value> &results) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  OperationState state(op->getLoc(), op->getName());
  for (auto [v, on] : llvm::zip(operands, batched))
    state.addOperands(on ? alignExamples(b, op->getLoc(), v, type.getRank())
                         : v);
  state.addAttributes(op->getAttrs());
  state.addTypes(batchedType(type, size));
  results.push_back(b.create(state)->getResult(0));
}

#define TFL_BATCH_REDUCTION(OP, HOW)                                           \
  LogicalResult OP::batch(OpBuilder &b, ValueRange operands,                   \
                          ArrayRef<bool> batched, int64_t size,                \
                          SmallVectorImpl<Value> &results) {                   \
    return HOW(*this, b, operands, size, results);                             \
  }
TFL_BATCH_REDUCTION(ReduceSumOp, batchReduction)
TFL_BATCH_REDUCTION(ReduceProdOp, batchReduction)
TFL_BATCH_REDUCTION(ReduceMaxOp, batchReduction)
TFL_BATCH_REDUCTION(ReduceMinOp, batchReduction)
TFL_BATCH_REDUCTION(ArgmaxOp, batchArgReduction)
TFL_BATCH_REDUCTION(ArgminOp, batchArgReduction)
#undef TFL_BATCH_REDUCTION

LogicalResult BroadcastToOp::batch(OpBuilder &b, ValueRange operands,
                                   ArrayRef<bool> batched, int64_t size,
                                   SmallVectorImpl<Value> &results) {
  auto type = getType();
  Value x = alignExamples(b, getLoc(), operands[0], type.getRank());
  results.push_back(
      BroadcastToOp::create(b, getLoc(), batchedType(type, size), x));
  return success();
}

LogicalResult ReshapeOp::batch(OpBuilder &b, ValueRange operands,
                               ArrayRef<bool> batched, int64_t size,
                               SmallVectorImpl<Value> &results) {
  results.push_back(ReshapeOp::create(b, getLoc(), batchedType(getType(), size),
                                      operands[0]));
  return success();
}

LogicalResult TransposeOp::batch(OpBuilder &b, ValueRange operands,
                                 ArrayRef<bool> batched, int64_t size,
                                 SmallVectorImpl<Value> &results) {
  SmallVector<int64_t> perm{0};
  llvm::append_range(perm, shifted(getPerm()));
  results.push_back(ReverseBuilder(b, getLoc()).transpose(operands[0], perm));
  return success();
}

LogicalResult SliceOp::batch(OpBuilder &b, ValueRange operands,
                             ArrayRef<bool> batched, int64_t size,
                             SmallVectorImpl<Value> &results) {
  return batchWindow(*this, b, operands, batched, size, results);
}

LogicalResult EmbedSliceOp::batch(OpBuilder &b, ValueRange operands,
                                  ArrayRef<bool> batched, int64_t size,
                                  SmallVectorImpl<Value> &results) {
  return batchWindow(*this, b, operands, batched, size, results);
}

LogicalResult ConcatOp::batch(OpBuilder &b, ValueRange operands,
                              ArrayRef<bool> batched, int64_t size,
                              SmallVectorImpl<Value> &results) {
  results.push_back(
      ConcatOp::create(b, getLoc(), batchedType(getType(), size),
                       allBatched(b, getLoc(), operands, batched, size),
                       b.getI64IntegerAttr(getAxis() + 1)));
  return success();
}

LogicalResult GatherOp::batch(OpBuilder &b, ValueRange operands,
                              ArrayRef<bool> batched, int64_t size,
                              SmallVectorImpl<Value> &results) {
  Location loc = getLoc();
  ReverseBuilder r(b, loc);
  int64_t axis = getAxis();
  auto type = batchedType(getType(), size);
  Value x = operands[0], indices = operands[1];
  if (!batched[1]) {
    // Each example's slices at the same indices: one dim further on.
    results.push_back(GatherOp::create(b, loc, type, x, indices,
                                       b.getI64IntegerAttr(axis + 1)));
    return success();
  }
  ArrayRef<int64_t> in = getInput().getType().getShape();
  int64_t indexRank = getIndices().getType().getRank();
  if (!batched[0]) {
    // The examples' indices into one tensor: their batch dim comes out
    // at `axis`, and moves first.
    SmallVector<int64_t> shape(in.take_front(axis));
    llvm::append_range(shape, tensorOf(indices).getShape());
    llvm::append_range(shape, in.drop_front(axis + 1));
    Value g = GatherOp::create(b, loc, type.clone(shape), x, indices,
                               b.getI64IntegerAttr(axis));
    SmallVector<int64_t> perm{axis};
    for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
      if (i != axis)
        perm.push_back(i);
    results.push_back(r.transpose(g, perm));
    return success();
  }
  if (axis != 0)
    return emitError("vmap: a gather along dim ")
           << axis << " of a tensor and at indices that both differ per "
           << "example is not supported yet";
  // Example n's indices into its own rows: rows n * in[0] + index of the
  // batch's rows as one tensor.
  Value rows = r.add(indices, rowOffsets(b, loc, indices, indexRank, in[0]));
  results.push_back(GatherOp::create(b, loc, type, foldBatch(b, loc, x), rows,
                                     b.getI64IntegerAttr(0)));
  return success();
}

LogicalResult ScatterAddOp::batch(OpBuilder &b, ValueRange operands,
                                  ArrayRef<bool> batched, int64_t size,
                                  SmallVectorImpl<Value> &results) {
  Location loc = getLoc();
  auto type = batchedType(getType(), size);
  if (!batched[1]) {
    results.push_back(ScatterAddOp::create(b, loc, type, operands[0],
                                           operands[1],
                                           b.getI64IntegerAttr(getAxis() + 1)));
    return success();
  }
  if (getAxis() != 0)
    return emitError("vmap: a scatter_add along dim ")
           << getAxis() << " at indices that differ per example is not "
           << "supported yet";
  // Example n's slices added into its own rows, n * rows + index of the
  // batch's rows as one tensor.
  ReverseBuilder r(b, loc);
  Value dy =
      batched[0] ? operands[0] : broadcastToBatch(b, loc, operands[0], size);
  Value indices = operands[1];
  ArrayRef<int64_t> out = getType().getShape();
  int64_t indexRank = getIndices().getType().getRank();
  // The batch's index dims as one: indices [N, I...] -> [N * |I|], dy
  // [N, I..., rest] -> [N * |I|, rest].
  int64_t count = size;
  for (int64_t d : tensorOf(indices).getShape().drop_front())
    count *= d;
  Value rows = r.reshape(
      r.add(indices, rowOffsets(b, loc, indices, indexRank, out[0])), {count});
  ArrayRef<int64_t> dyShape = tensorOf(dy).getShape();
  SmallVector<int64_t> flatDy{count};
  llvm::append_range(flatDy, dyShape.drop_front(1 + indexRank));
  SmallVector<int64_t> flatOut{size * out[0]};
  llvm::append_range(flatOut, out.drop_front());
  Value sum =
      ScatterAddOp::create(b, loc, type.clone(flatOut), r.reshape(dy, flatDy),
                           rows, b.getI64IntegerAttr(0));
  results.push_back(r.reshape(sum, type.getShape()));
  return success();
}

LogicalResult MatmulOp::batch(OpBuilder &b, ValueRange operands,
                              ArrayRef<bool> batched, int64_t size,
                              SmallVectorImpl<Value> &results) {
  Location loc = getLoc();
  ReverseBuilder r(b, loc);
  auto type = batchedType(getType(), size);
  Value lhs = operands[0], rhs = operands[1];
  if (getLhs().getType().getRank() == 2 && batched[0] && !batched[1]) {
    // Every example's rows times one matrix: one product of all the rows.
    Value rows = foldBatch(b, loc, lhs);
    results.push_back(unfoldBatch(b, loc, r.matmul(rows, rhs), size));
    return success();
  }
  if (getLhs().getType().getRank() == 2 && !batched[0] && batched[1]) {
    // One matrix times every example's columns: one product of the
    // matrix and all the columns, never the matrix copied per example.
    auto shape = cast<RankedTensorType>(rhs.getType()).getShape();
    int64_t k = shape[1], p = shape[2];
    if (p == 1) {
      // Columns of one (a matrix times vectors, a Jacobian's basis):
      // [N, K] @ W^T, the transpose a flag of the product.
      Value rows = r.reshape(rhs, {size, k});
      Value product = r.matmul(rows, r.transpose(lhs, {1, 0}));
      results.push_back(r.reshape(product, type.getShape()));
      return success();
    }
    // W @ [K, N * P], then the batch dim first again.
    Value columns = r.reshape(r.transpose(rhs, {1, 0, 2}), {k, size * p});
    Value product = r.matmul(lhs, columns);
    int64_t m = type.getDimSize(1);
    results.push_back(r.transpose(r.reshape(product, {m, size, p}), {1, 0, 2}));
    return success();
  }
  SmallVector<Value> both = allBatched(b, loc, operands, batched, size);
  if (getLhs().getType().getRank() == 2 &&
      getLhs().getType().getDimSize(1) == 1) {
    // Outer products ([N, M, 1] @ [N, 1, P], a per-example gradient of
    // a layer): one broadcasting product, which the elementwise fusion
    // writes once.
    results.push_back(r.mul(both[0], both[1]));
    return success();
  }
  if (getLhs().getType().getRank() == 2) {
    // [N, M, K] @ [N, K, P]: one batched product.
    results.push_back(r.matmul(both[0], both[1]));
    return success();
  }
  // Examples of batched products: the batch's and the examples' batches
  // as one.
  Value product =
      r.matmul(foldBatch(b, loc, both[0]), foldBatch(b, loc, both[1]));
  results.push_back(r.reshape(product, type.getShape()));
  return success();
}

LogicalResult Conv2DOp::batch(OpBuilder &b, ValueRange operands,
                              ArrayRef<bool> batched, int64_t size,
                              SmallVectorImpl<Value> &results) {
  return batchOverImages(b, *this, operands, batched, {true, false}, size,
                         results);
}

LogicalResult Conv2DBackwardInputOp::batch(OpBuilder &b, ValueRange operands,
                                           ArrayRef<bool> batched, int64_t size,
                                           SmallVectorImpl<Value> &results) {
  return batchOverImages(b, *this, operands, batched, {true, false}, size,
                         results);
}

/// Attention and its adjoint take any leading dims: a batch dim is one
/// more, and an operand the batch shares is broadcast to it.
static void batchLeading(OpBuilder &b, Operation *op, ValueRange operands,
                         ArrayRef<bool> batched, int64_t size,
                         SmallVectorImpl<Value> &results) {
  SmallVector<Value> all;
  for (auto [v, isBatched] : llvm::zip(operands, batched))
    all.push_back(isBatched ? v : broadcastToBatch(b, op->getLoc(), v, size));
  SmallVector<Type> types;
  for (Type t : op->getResultTypes())
    types.push_back(batchedType(t, size));
  OperationState state(op->getLoc(), op->getName(), all, types, op->getAttrs());
  llvm::append_range(results, b.create(state)->getResults());
}

LogicalResult AttentionOp::batch(OpBuilder &b, ValueRange operands,
                                 ArrayRef<bool> batched, int64_t size,
                                 SmallVectorImpl<Value> &results) {
  batchLeading(b, *this, operands, batched, size, results);
  return success();
}

LogicalResult AttentionBackwardOp::batch(OpBuilder &b, ValueRange operands,
                                         ArrayRef<bool> batched, int64_t size,
                                         SmallVectorImpl<Value> &results) {
  batchLeading(b, *this, operands, batched, size, results);
  return success();
}

#define TFL_BATCH_POOL(OP, IMAGES)                                             \
  LogicalResult OP::batch(OpBuilder &b, ValueRange operands,                   \
                          ArrayRef<bool> batched, int64_t size,                \
                          SmallVectorImpl<Value> &results) {                   \
    return batchOverImages(b, *this, operands, batched, IMAGES, size,          \
                           results);                                           \
  }
TFL_BATCH_POOL(MaxPool2DOp, {true})
TFL_BATCH_POOL(AvgPool2DOp, {true})
TFL_BATCH_POOL(MaxPool2DBackwardOp, (ArrayRef<bool>{true, true}))
TFL_BATCH_POOL(AvgPool2DBackwardOp, (ArrayRef<bool>{true, true}))
TFL_BATCH_POOL(MaxPool2DGatherOp, (ArrayRef<bool>{true, true}))
#undef TFL_BATCH_POOL

} // namespace mlir::tfl
