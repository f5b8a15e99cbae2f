//===- ReverseBuilder.cpp - Building pullbacks out of tfl ops -------------===//

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tfl {

namespace {

RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The broadcast result type of a binary op on `x` and `y` (x's elements).
RankedTensorType broadcastType(Value x, Value y, Type elem = {}) {
  RankedTensorType a = tensorOf(x);
  SmallVector<int64_t> shape =
      *broadcastShapes(a.getShape(), tensorOf(y).getShape());
  return RankedTensorType::get(shape, elem ? elem : a.getElementType());
}

} // namespace

#define TFL_BINARY(NAME, OP)                                                   \
  Value ReverseBuilder::NAME(Value x, Value y) {                               \
    return OP::create(b, loc, broadcastType(x, y), x, y);                      \
  }
TFL_BINARY(add, AddOp)
TFL_BINARY(sub, SubOp)
TFL_BINARY(mul, MulOp)
TFL_BINARY(div, DivOp)
TFL_BINARY(pow, PowOp)
#undef TFL_BINARY

#define TFL_UNARY(NAME, OP)                                                    \
  Value ReverseBuilder::NAME(Value x) { return OP::create(b, loc, x); }
TFL_UNARY(neg, NegOp)
TFL_UNARY(exp, ExpOp)
TFL_UNARY(log, LogOp)
TFL_UNARY(sin, SinOp)
TFL_UNARY(cos, CosOp)
TFL_UNARY(sign, SignOp)
TFL_UNARY(floor, FloorOp)
#undef TFL_UNARY

Value ReverseBuilder::select(Value cond, Value x, Value y) {
  RankedTensorType xy = broadcastType(x, y);
  SmallVector<int64_t> shape =
      *broadcastShapes(tensorOf(cond).getShape(), xy.getShape());
  return WhereOp::create(b, loc, xy.clone(shape), cond, x, y);
}

Value ReverseBuilder::winMask(Value x, Value y) {
  Value half = select(eq(x, y), scalar(x, 0.5), scalar(x, 0.0));
  return select(gt(x, y), scalar(x, 1.0), half);
}

Value ReverseBuilder::eq(Value x, Value y) {
  return CompareOp::create(b, loc, broadcastType(x, y, b.getI1Type()),
                           ComparePredicate::eq, x, y);
}

Value ReverseBuilder::gt(Value x, Value y) {
  return CompareOp::create(b, loc, broadcastType(x, y, b.getI1Type()),
                           ComparePredicate::gt, x, y);
}

Value ReverseBuilder::scalar(Value like, double value) {
  auto type = RankedTensorType::get({}, tensorOf(like).getElementType());
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type,
                             b.getFloatAttr(type.getElementType(), value)));
}

Value filled(OpBuilder &b, Location loc, RankedTensorType type,
             TypedAttr value) {
  if (type.hasStaticShape())
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, value));
  Value scalar = ConstantOp::create(
      b, loc, DenseElementsAttr::get(type.clone(ArrayRef<int64_t>{}), value));
  return BroadcastToOp::create(b, loc, type, scalar);
}

Value ReverseBuilder::zeros(Value like) {
  return filled(
      b, loc, tensorOf(like),
      cast<TypedAttr>(b.getZeroAttr(tensorOf(like).getElementType())));
}

Value ReverseBuilder::ones(Value like) {
  return filled(b, loc, tensorOf(like),
                b.getFloatAttr(tensorOf(like).getElementType(), 1.0));
}

Value ReverseBuilder::castTo(Value x, Type elementType) {
  if (tensorOf(x).getElementType() == elementType)
    return x;
  return CastOp::create(b, loc, tensorOf(x).clone(elementType), x);
}

Value ReverseBuilder::castLike(Value x, Value like) {
  return castTo(x, tensorOf(like).getElementType());
}

Value ReverseBuilder::sumTo(Value x, Value like) {
  ArrayRef<int64_t> from = tensorOf(x).getShape();
  ArrayRef<int64_t> to = tensorOf(like).getShape();
  if (from == to)
    return x;
  // Dims broadcasting added (leading) or stretched (size 1 in `like`).
  size_t lead = from.size() - to.size();
  SmallVector<int64_t> axes;
  for (size_t d = 0; d < from.size(); ++d)
    if (d < lead || (to[d - lead] == 1 && from[d] != 1))
      axes.push_back(static_cast<int64_t>(d));
  RankedTensorType in = tensorOf(x);
  Value sum = ReduceSumOp::create(
      b, loc, in.clone(reducedShape(from, axes, /*keepdims=*/false)), x,
      b.getDenseI64ArrayAttr(axes), b.getBoolAttr(false));
  return reshape(sum, to);
}

Value ReverseBuilder::unreduce(Value x, Value like, ArrayRef<int64_t> axes) {
  ArrayRef<int64_t> shape = tensorOf(like).getShape();
  Value kept = reshape(x, reducedShape(shape, axes, /*keepdims=*/true));
  return BroadcastToOp::create(b, loc, tensorOf(kept).clone(shape), kept);
}

Value ReverseBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  if (tensorOf(x).getShape() == shape)
    return x;
  return ReshapeOp::create(b, loc, tensorOf(x).clone(shape), x);
}

Value ReverseBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> in = tensorOf(x).getShape();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in[p]);
  return TransposeOp::create(b, loc, tensorOf(x).clone(shape), x,
                             b.getDenseI64ArrayAttr(perm));
}

Value ReverseBuilder::matmul(Value x, Value y) {
  ArrayRef<int64_t> a = tensorOf(x).getShape(), c = tensorOf(y).getShape();
  SmallVector<int64_t> shape(a.drop_back());
  shape.push_back(c.back());
  return MatmulOp::create(b, loc, tensorOf(x).clone(shape), x, y);
}

} // namespace mlir::tfl
