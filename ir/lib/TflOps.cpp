//===- TflOps.cpp - Ops of the tfl dialect --------------------------------===//
//
// Verifiers and folders. Shape checks here repeat, for hand-written IR, what
// the frontend's Sema already guarantees for IR generated from `.tfl`. The
// nn ops' are in NNOps.cpp, the I/O ops' in IOOps.cpp, the collectives' in
// CollectiveOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tfl;

std::optional<SmallVector<int64_t>>
mlir::tfl::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      out[i] = db;
    else if (db == 1 || da == db)
      out[i] = da;
    else if (ShapedType::isDynamic(da))
      out[i] = db;
    else if (ShapedType::isDynamic(db))
      out[i] = da;
    else
      return std::nullopt;
  }
  return out;
}

SmallVector<int64_t> mlir::tfl::reducedShape(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> axes,
                                             bool keepdims) {
  SmallVector<int64_t> out;
  for (int64_t i = 0, e = shape.size(); i < e; ++i) {
    if (!llvm::is_contained(axes, i))
      out.push_back(shape[i]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

/// Checks that `axes` are sorted, distinct and within `rank`, and that
/// `result` has the reduced shape.
static LogicalResult verifyReduction(Operation *op, RankedTensorType input,
                                     RankedTensorType result,
                                     ArrayRef<int64_t> axes, bool keepdims) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= input.getRank())
      return op->emitOpError("axis ")
             << axes[i] << " is out of range for " << input;
    if (i > 0 && axes[i] <= axes[i - 1])
      return op->emitOpError("axes must be sorted and distinct");
  }
  SmallVector<int64_t> shape = reducedShape(input.getShape(), axes, keepdims);
  if (result.getShape() != ArrayRef<int64_t>(shape))
    return op->emitOpError("result type ")
           << result << " is not " << input << " reduced over the axes";
  return success();
}

template <typename OpTy> static LogicalResult verifyReductionOp(OpTy op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  auto result = cast<RankedTensorType>(op.getResult().getType());
  if (input.getElementType() != result.getElementType())
    return op.emitOpError("result element type differs from the input's");
  return verifyReduction(op, input, result, op.getAxes(), op.getKeepdims());
}

StringAttr mlir::tfl::deviceOf(Operation *op, StringAttr fallback) {
  for (; op; op = op->getParentOp())
    if (auto device = op->getAttrOfType<StringAttr>(kDeviceAttrName))
      return device;
  return fallback;
}

LogicalResult ToDeviceOp::verify() {
  if (getDevice() != "cpu" && getDevice() != "cuda")
    return emitOpError("moves to \"cpu\" or \"cuda\", not \"")
           << getDevice() << "\"";
  return success();
}

StringAttr mlir::tfl::deviceOfValue(Value v) {
  if (auto copy = v.getDefiningOp<ToDeviceOp>())
    return copy.getDeviceAttr();
  Operation *owner = v.getDefiningOp();
  if (!owner)
    owner = cast<BlockArgument>(v).getOwner()->getParentOp();
  auto module = owner->getParentOfType<ModuleOp>();
  auto target =
      module ? module->getAttrOfType<StringAttr>("tfl.target") : StringAttr();
  return deviceOf(owner,
                  target ? target : StringAttr::get(v.getContext(), "cpu"));
}

/// A copy to where its value is is the value; a copy of a copy goes
/// straight from the first one's source.
LogicalResult ToDeviceOp::canonicalize(ToDeviceOp op,
                                       PatternRewriter &rewriter) {
  if (deviceOfValue(op.getInput()) == op.getDeviceAttr()) {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
  auto inner = op.getInput().getDefiningOp<ToDeviceOp>();
  if (!inner)
    return failure();
  rewriter.modifyOpInPlace(
      op, [&] { op.getInputMutable().assign(inner.getInput()); });
  return success();
}

LogicalResult ReduceSumOp::verify() { return verifyReductionOp(*this); }
LogicalResult ReduceProdOp::verify() { return verifyReductionOp(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReductionOp(*this); }
LogicalResult ReduceMinOp::verify() { return verifyReductionOp(*this); }

template <typename OpTy> static LogicalResult verifyArgReduction(OpTy op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  auto result = cast<RankedTensorType>(op.getResult().getType());
  if (!op.getAxis()) {
    if (result.getRank() != (op.getKeepdims() ? input.getRank() : 0) ||
        llvm::any_of(result.getShape(), [](int64_t d) { return d != 1; }))
      return op.emitOpError("result of a reduction over all axes must be ")
             << (op.getKeepdims() ? "all ones" : "a scalar");
    return success();
  }
  return verifyReduction(op, input, result,
                         {static_cast<int64_t>(*op.getAxis())},
                         op.getKeepdims());
}

LogicalResult ArgmaxOp::verify() { return verifyArgReduction(*this); }
LogicalResult ArgminOp::verify() { return verifyArgReduction(*this); }

/// Shared verifier of the broadcasting binary ops; the result's element type
/// is the operands' unless `resultElement` says otherwise.
static LogicalResult verifyBroadcastingBinary(Operation *op,
                                              Type resultElement = {}) {
  auto lhs = cast<RankedTensorType>(op->getOperand(0).getType());
  auto rhs = cast<RankedTensorType>(op->getOperand(1).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (lhs.getElementType() != rhs.getElementType())
    return op->emitOpError("operands have different element types: ")
           << lhs << " and " << rhs;
  if (!resultElement)
    resultElement = lhs.getElementType();
  if (result.getElementType() != resultElement)
    return op->emitOpError("result element type ")
           << result.getElementType() << " is not " << resultElement;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhs.getShape(), rhs.getShape());
  if (!shape)
    return op->emitOpError("operand shapes do not broadcast: ")
           << lhs << " and " << rhs;
  bool matches = shape->size() == static_cast<size_t>(result.getRank());
  for (size_t i = 0; matches && i < shape->size(); ++i)
    matches = ShapedType::isDynamic((*shape)[i]) ||
              ShapedType::isDynamic(result.getDimSize(i)) ||
              (*shape)[i] == result.getDimSize(i);
  if (!matches)
    return op->emitOpError("result type ")
           << result << " is not the broadcast of " << lhs << " and " << rhs;
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

/// A comparison of two splat constants is a splat (a condition such as
/// `rate == 0.0` on a constant argument, once inlined, so that the branch
/// it steers folds away).
OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  auto lhs = dyn_cast_or_null<SplatElementsAttr>(adaptor.getLhs());
  auto rhs = dyn_cast_or_null<SplatElementsAttr>(adaptor.getRhs());
  if (!lhs || !rhs || lhs.getElementType() != rhs.getElementType() ||
      !getType().hasStaticShape())
    return {};
  int cmp; // -1, 0 or 1; 2 for unordered floats
  if (isa<FloatType>(lhs.getElementType())) {
    llvm::APFloat::cmpResult c = lhs.getSplatValue<llvm::APFloat>().compare(
        rhs.getSplatValue<llvm::APFloat>());
    cmp = c == llvm::APFloat::cmpLessThan      ? -1
          : c == llvm::APFloat::cmpEqual       ? 0
          : c == llvm::APFloat::cmpGreaterThan ? 1
                                               : 2;
  } else {
    llvm::APInt x = lhs.getSplatValue<llvm::APInt>();
    llvm::APInt y = rhs.getSplatValue<llvm::APInt>();
    // u8 (i8) and bool compare unsigned.
    bool less = x.getBitWidth() <= 8 ? x.ult(y) : x.slt(y);
    cmp = x == y ? 0 : (less ? -1 : 1);
  }
  bool result = false;
  switch (getPredicate()) {
  case ComparePredicate::lt:
    result = cmp == -1;
    break;
  case ComparePredicate::le:
    result = cmp == -1 || cmp == 0;
    break;
  case ComparePredicate::gt:
    result = cmp == 1;
    break;
  case ComparePredicate::ge:
    result = cmp == 1 || cmp == 0;
    break;
  case ComparePredicate::eq:
    result = cmp == 0;
    break;
  case ComparePredicate::ne:
    result = cmp != 0; // true for NaN
    break;
  }
  return DenseElementsAttr::get(getType(), result);
}

/// not of a constant is a constant (a function's "not returned yet" flag
/// after an `if` that cannot return, which guards the rest of its body),
/// and not of not is the value.
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto isIdentity = [](ArrayRef<int64_t> perm) {
    for (auto [i, p] : llvm::enumerate(perm))
      if (p != static_cast<int64_t>(i))
        return false;
    return true;
  };
  if (isIdentity(getPerm()) && getInput().getType() == getType())
    return getInput();
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // Result dim i is the inner's input dim innerPerm[perm[i]].
  SmallVector<int64_t> composed;
  for (int64_t p : getPerm())
    composed.push_back(inner.getPerm()[p]);
  if (isIdentity(composed) && inner.getInput().getType() == getType())
    return inner.getInput();
  setPerm(composed);
  getInputMutable().assign(inner.getInput());
  return getResult();
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput())) {
    if (input.isSplat())
      return DenseElementsAttr::get(getType(), !input.getSplatValue<bool>());
    SmallVector<bool> flipped;
    for (bool b : input.getValues<bool>())
      flipped.push_back(!b);
    return DenseElementsAttr::get(getType(), flipped);
  }
  if (auto inner = getInput().getDefiningOp<NotOp>())
    return inner.getInput();
  return {};
}

/// An assert whose condition is known true checks nothing.
LogicalResult AssertOp::canonicalize(AssertOp op, PatternRewriter &rewriter) {
  auto cond = op.getCond().getDefiningOp<ConstantOp>();
  if (!cond)
    return failure();
  auto value = cast<DenseElementsAttr>(cond.getValue());
  if (!llvm::all_of(value.getValues<bool>(), [](bool b) { return b; }))
    return failure();
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Two embed_slices of static windows added: the reverse pass's sum of the
/// cotangents of slices of one tensor (attention's q, k and v, split from
/// one projection). Side by side along one axis and alike in the others,
/// they are one embed_slice of their inputs joined; on one window, one of
/// their sum. No zeros are made and added (x + 0 is x but for -0).
LogicalResult AddOp::canonicalize(AddOp op, PatternRewriter &rewriter) {
  auto a = op.getLhs().getDefiningOp<EmbedSliceOp>();
  auto b = op.getRhs().getDefiningOp<EmbedSliceOp>();
  if (!a || !b || a == b || !a->hasOneUse() || !b->hasOneUse() ||
      a.getType() != op.getType() || b.getType() != op.getType() ||
      !a.getStarts().empty() || !b.getStarts().empty() ||
      a.getStrides() != b.getStrides() ||
      llvm::any_of(a.getStrides(), [](int64_t t) { return t != 1; }))
    return failure();
  auto ta = cast<RankedTensorType>(a.getInput().getType());
  auto tb = cast<RankedTensorType>(b.getInput().getType());
  if (!ta.hasStaticShape() || !tb.hasStaticShape())
    return failure();
  ArrayRef<int64_t> sa = a.getStaticStarts(), sb = b.getStaticStarts();
  std::optional<int64_t> axis;
  for (int64_t d = 0; d < ta.getRank(); ++d) {
    if (sa[d] == sb[d] && ta.getDimSize(d) == tb.getDimSize(d))
      continue;
    if (axis)
      return failure();
    axis = d;
  }
  Location loc = op.getLoc();
  if (!axis) {
    Value sum = AddOp::create(rewriter, loc, ta, a.getInput(), b.getInput());
    rewriter.replaceOpWithNewOp<EmbedSliceOp>(op, op.getType(), sum,
                                              ValueRange{}, sa, a.getStrides());
    return success();
  }
  int64_t k = *axis;
  EmbedSliceOp lo = a, hi = b;
  if (sb[k] + tb.getDimSize(k) == sa[k])
    std::swap(lo, hi);
  else if (sa[k] + ta.getDimSize(k) != sb[k])
    return failure();
  SmallVector<int64_t> shape(ta.getShape());
  shape[k] = ta.getDimSize(k) + tb.getDimSize(k);
  Value joined = ConcatOp::create(
      rewriter, loc, RankedTensorType::get(shape, ta.getElementType()),
      ValueRange{lo.getInput(), hi.getInput()}, k);
  rewriter.replaceOpWithNewOp<EmbedSliceOp>(op, op.getType(), joined,
                                            ValueRange{}, lo.getStaticStarts(),
                                            lo.getStrides());
  return success();
}

LogicalResult AddOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult SubOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult MulOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult DivOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult MaximumOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult MinimumOp::verify() { return verifyBroadcastingBinary(*this); }

LogicalResult WhereOp::verify() {
  auto cond = cast<RankedTensorType>(getCond().getType());
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (lhs.getElementType() != rhs.getElementType() ||
      result.getElementType() != lhs.getElementType())
    return emitOpError("values and result must share one element type, got ")
           << lhs << ", " << rhs << " -> " << result;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhs.getShape(), rhs.getShape());
  if (shape)
    shape = broadcastShapes(cond.getShape(), *shape);
  if (!shape)
    return emitOpError("operand shapes do not broadcast: ")
           << cond << ", " << lhs << " and " << rhs;
  if (result.getRank() != static_cast<int64_t>(shape->size()))
    return emitOpError("result type ")
           << result << " is not the broadcast shape";
  for (size_t i = 0; i < shape->size(); ++i)
    if (!ShapedType::isDynamic((*shape)[i]) &&
        !ShapedType::isDynamic(result.getDimSize(i)) &&
        (*shape)[i] != result.getDimSize(i))
      return emitOpError("result type ")
             << result << " is not the broadcast shape";
  return success();
}

LogicalResult DimOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  if (static_cast<int64_t>(getAxis()) >= in.getRank())
    return emitOpError("axis ") << getAxis() << " is out of range for " << in;
  return success();
}

LogicalResult BroadcastToOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type differs from the input's");
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(in.getShape(), out.getShape());
  if (!shape || ArrayRef<int64_t>(*shape) != out.getShape())
    return emitOpError("cannot broadcast ") << in << " to " << out;
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type differs from the input's");
  if (in.hasStaticShape() && out.hasStaticShape() &&
      in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << in << " (" << in.getNumElements() << " elements) to " << out;
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int64_t> perm = getPerm();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError("perm has ")
           << perm.size() << " entries for a rank-" << in.getRank() << " input";
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError("perm is not a permutation");
    seen[p] = true;
  }
  if (out.getRank() != in.getRank() ||
      out.getElementType() != in.getElementType())
    return emitOpError("result type ") << out << " does not match " << in;
  for (size_t i = 0; i < perm.size(); ++i)
    if (out.getDimSize(i) != in.getDimSize(perm[i]))
      return emitOpError("result type ")
             << out << " is not " << in << " permuted";
  return success();
}

LogicalResult SliceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int64_t> starts = getStaticStarts(), strides = getStrides();
  if (static_cast<int64_t>(starts.size()) != in.getRank() ||
      static_cast<int64_t>(strides.size()) != in.getRank() ||
      out.getRank() != in.getRank())
    return emitOpError("needs one start and stride per dim of ")
           << in << " and a result of the same rank";
  if (out.getElementType() != in.getElementType())
    return emitOpError("result element type differs from the input's");
  int64_t dynamic = llvm::count_if(
      starts, [](int64_t s) { return ShapedType::isDynamic(s); });
  if (dynamic != static_cast<int64_t>(getStarts().size()))
    return emitOpError("has ") << getStarts().size() << " start operands for "
                               << dynamic << " dynamic starts";
  for (auto [d, start, stride] : llvm::enumerate(starts, strides)) {
    if (stride == 0)
      return emitOpError("stride of dim ") << d << " is zero";
    int64_t size = out.getDimSize(d), n = in.getDimSize(d);
    if (ShapedType::isDynamic(start) || size == 0 || ShapedType::isDynamic(n))
      continue;
    int64_t last = start + (size - 1) * stride;
    if (start < 0 || start >= n || last < 0 || last >= n)
      return emitOpError("reads outside dim ")
             << d << " of " << in << " (start " << start << ", " << size
             << " elements, stride " << stride << ")";
  }
  return success();
}

LogicalResult GatherOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto idx = cast<RankedTensorType>(getIndices().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= in.getRank())
    return emitOpError("axis ") << axis << " is out of range for " << in;
  SmallVector<int64_t> shape(in.getShape().take_front(axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, in.getShape().drop_front(axis + 1));
  if (out.getShape() != ArrayRef<int64_t>(shape) ||
      out.getElementType() != in.getElementType())
    return emitOpError("result type ")
           << out << " is not the gather of " << in << " at " << idx;
  return success();
}

/// A concat of one tensor is that tensor.
OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

/// A concat's input that is a concat along the same axis (used only there)
/// gives its inputs in its place.
LogicalResult ConcatOp::canonicalize(ConcatOp op, PatternRewriter &rewriter) {
  SmallVector<Value> inputs;
  bool flattened = false;
  for (Value v : op.getInputs()) {
    auto inner = v.getDefiningOp<ConcatOp>();
    if (inner && inner.getAxis() == op.getAxis() && inner->hasOneUse()) {
      llvm::append_range(inputs, inner.getInputs());
      flattened = true;
    } else {
      inputs.push_back(v);
    }
  }
  if (!flattened)
    return failure();
  rewriter.replaceOpWithNewOp<ConcatOp>(op, op.getType(), inputs, op.getAxis());
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= out.getRank())
    return emitOpError("axis ") << axis << " is out of range for " << out;
  int64_t total = 0;
  for (Value v : getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != out.getRank() ||
        t.getElementType() != out.getElementType())
      return emitOpError("input ") << t << " does not match the result " << out;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != axis && t.getDimSize(d) != out.getDimSize(d))
        return emitOpError("input ")
               << t << " differs from " << out << " in dim " << d;
    total += t.getDimSize(axis);
  }
  if (total != out.getDimSize(axis))
    return emitOpError("inputs add up to ") << total << " along axis " << axis
                                            << ", not " << out.getDimSize(axis);
  return success();
}

LogicalResult FloorDivOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult ModOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult PowOp::verify() { return verifyBroadcastingBinary(*this); }
LogicalResult CompareOp::verify() {
  return verifyBroadcastingBinary(*this, IntegerType::get(getContext(), 1));
}

LogicalResult CastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getShape() != out.getShape())
    return emitOpError("result shape differs from the input's: ")
           << in << " -> " << out;
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  int64_t rank = lhs.getRank();
  if ((rank != 2 && rank != 3) || rhs.getRank() != rank)
    return emitOpError("expects 2-D operands, or 3-D batched ones, got ")
           << lhs << " and " << rhs;
  if (lhs.getElementType() != rhs.getElementType() ||
      result.getElementType() != lhs.getElementType())
    return emitOpError("operands and result must share one element type, got ")
           << lhs << ", " << rhs << " -> " << result;
  auto dimOk = [](int64_t expected, int64_t got) {
    return ShapedType::isDynamic(expected) || ShapedType::isDynamic(got) ||
           expected == got;
  };
  int64_t k1 = lhs.getDimSize(rank - 1), k2 = rhs.getDimSize(rank - 2);
  if (!dimOk(k1, k2))
    return emitOpError("inner dimensions differ: ") << lhs << " @ " << rhs;
  if (rank == 3 && !dimOk(lhs.getDimSize(0), rhs.getDimSize(0)))
    return emitOpError("batch dimensions differ: ") << lhs << " @ " << rhs;
  if (result.getRank() != rank ||
      !dimOk(lhs.getDimSize(rank - 2), result.getDimSize(rank - 2)) ||
      !dimOk(rhs.getDimSize(rank - 1), result.getDimSize(rank - 1)) ||
      (rank == 3 && !dimOk(lhs.getDimSize(0), result.getDimSize(0))))
    return emitOpError("result type ")
           << result << " is not the product's shape for " << lhs << " @ "
           << rhs;
  return success();
}

/// An embed_slice whose window is the whole result is its input.
OpFoldResult EmbedSliceOp::fold(FoldAdaptor) {
  if (!getStarts().empty() || getInput().getType() != getType() ||
      llvm::any_of(getStaticStarts(), [](int64_t s) { return s != 0; }) ||
      llvm::any_of(getStrides(), [](int64_t t) { return t != 1; }))
    return {};
  return getInput();
}

LogicalResult EmbedSliceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getRank() != out.getRank() ||
      getStaticStarts().size() != static_cast<size_t>(in.getRank()) ||
      getStrides().size() != static_cast<size_t>(in.getRank()))
    return emitOpError("needs a start and a stride per dim of ") << out;
  if (llvm::any_of(getStrides(), [](int64_t t) { return t < 1; }))
    return emitOpError("needs positive strides");
  size_t dynamic = llvm::count_if(
      getStaticStarts(), [](int64_t s) { return ShapedType::isDynamic(s); });
  if (dynamic != getStarts().size())
    return emitOpError("has ") << getStarts().size() << " start operands for "
                               << dynamic << " dynamic starts";
  return success();
}

LogicalResult GradOp::verify() {
  int64_t n = static_cast<int64_t>(getOperands().size());
  for (int64_t a : getArgnums())
    if (a < 0 || a >= n)
      return emitOpError("argnum ") << a << " is not an operand index";
  size_t expected = getArgnums().size() + (getWithValue() ? 1 : 0);
  if (getResults().size() != expected)
    return emitOpError("has ")
           << getResults().size() << " results, expected " << expected;
  for (auto [i, a] : llvm::enumerate(getArgnums()))
    if (getResult(i + (getWithValue() ? 1 : 0)).getType() !=
        getOperand(a).getType())
      return emitOpError("gradient ") << i << " does not have the type of "
                                      << "operand " << a;
  return success();
}

LogicalResult JacobianOp::verify() {
  int64_t n = static_cast<int64_t>(getOperands().size());
  if (getArgnums().empty() || getResults().size() % getArgnums().size())
    return emitOpError("has ")
           << getResults().size() << " results, not a multiple of its "
           << getArgnums().size() << " argnums";
  size_t perArg = getResults().size() / getArgnums().size();
  for (auto [k, a] : llvm::enumerate(getArgnums())) {
    if (a < 0 || a >= n)
      return emitOpError("argnum ") << a << " is not an operand index";
    ArrayRef<int64_t> in =
        cast<RankedTensorType>(getOperand(a).getType()).getShape();
    for (size_t j = 0; j < perArg; ++j) {
      ArrayRef<int64_t> out =
          cast<RankedTensorType>(getResult(k * perArg + j).getType())
              .getShape();
      if (out.size() < in.size() || out.take_back(in.size()) != in)
        return emitOpError("result ")
               << k * perArg + j << " does not end in operand " << a
               << "'s dims";
    }
  }
  return success();
}

LogicalResult JvpOp::verify() {
  size_t n = getOperands().size(), m = getResults().size();
  if (n % 2 || m % 2)
    return emitOpError("takes primals then their tangents and gives results "
                       "then theirs: even counts, not ")
           << n << " and " << m;
  for (size_t i = 0; i < n / 2; ++i)
    if (getOperand(i).getType() != getOperand(i + n / 2).getType())
      return emitOpError("tangent ") << i << " does not have its primal's type";
  for (size_t i = 0; i < m / 2; ++i)
    if (getResult(i).getType() != getResult(i + m / 2).getType())
      return emitOpError("result tangent ")
             << i << " does not have its result's type";
  return success();
}

LogicalResult VmapOp::verify() {
  if (getInAxes().size() != getOperands().size() ||
      getOutAxes().size() != getResults().size())
    return emitOpError("has one in_axes entry per operand and one out_axes "
                       "entry per result");
  std::optional<int64_t> size;
  for (auto [i, a] : llvm::enumerate(getInAxes())) {
    if (a == -1)
      continue;
    auto t = cast<RankedTensorType>(getOperand(i).getType());
    if (a < 0 || a >= t.getRank())
      return emitOpError("in_axes entry ")
             << i << " is not a dim of operand " << i << " (nor -1)";
    if (size && *size != t.getDimSize(a))
      return emitOpError("maps operand ")
             << i << " over a dim of size " << t.getDimSize(a)
             << ", the others over " << *size;
    size = t.getDimSize(a);
  }
  if (!size)
    return emitOpError("maps no operand over a dim");
  for (auto [j, a] : llvm::enumerate(getOutAxes())) {
    auto t = cast<RankedTensorType>(getResult(j).getType());
    if (a < 0 || a >= t.getRank() || t.getDimSize(a) != *size)
      return emitOpError("result ")
             << j << " has no dim of the batch size at out_axes entry " << j;
  }
  return success();
}

// A barrier's results have its operands' types.
LogicalResult OptimizationBarrierOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}

namespace {

/// A barrier's constant operands pass around it: their results become the
/// constants, and the barrier keeps the rest (or goes, with none left).
struct ForwardBarrierConstants : OpRewritePattern<OptimizationBarrierOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(OptimizationBarrierOp op,
                                PatternRewriter &rewriter) const override {
    auto isConstant = [](Value v) { return matchPattern(v, m_Constant()); };
    SmallVector<Value> kept;
    for (Value v : op.getInputs())
      if (!isConstant(v))
        kept.push_back(v);
    if (kept.size() == op.getInputs().size())
      return failure();
    OptimizationBarrierOp barrier;
    if (!kept.empty())
      barrier = OptimizationBarrierOp::create(rewriter, op.getLoc(), kept);
    SmallVector<Value> results;
    unsigned next = 0;
    for (Value v : op.getInputs())
      results.push_back(isConstant(v) ? v : barrier.getResult(next++));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void OptimizationBarrierOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  results.add<ForwardBarrierConstants>(context);
}

bool mlir::tfl::isHalfFloat(Type elementType) {
  return elementType.isBF16() || elementType.isF16();
}

bool mlir::tfl::runsOnHalfFloats(Operation *op) {
  return op->hasTrait<OpTrait::RunsOnHalfFloats>();
}

#include "tfl/IR/TflInterfaces.cpp.inc"
#include "tfl/IR/TflOpsEnums.cpp.inc"

#define GET_OP_CLASSES
#include "tfl/IR/TflOps.cpp.inc"
