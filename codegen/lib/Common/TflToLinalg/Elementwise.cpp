//===- Elementwise.cpp - tfl elementwise ops to linalg.generic ------------===//
//
// Each elementwise op becomes one linalg.generic over the result's shape.
// Broadcasting lives in the indexing maps: operand dims are aligned on the
// right, and a size-1 dim that stretches reads index 0. Chains of these
// generics are then fused by linalg's elementwise fusion.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfl {
namespace {

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic computing `body` of the (broadcast) inputs at each
/// element of `resultType` (whose dynamic dims are the batch size);
/// failure when no value gives the batch size.
FailureOr<Value> buildElementwise(OpBuilder &b, Location loc,
                                  RankedTensorType resultType,
                                  ValueRange inputs, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t lead = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < type.getRank(); ++j) {
      bool stretched =
          type.getDimSize(j) == 1 && resultType.getDimSize(lead + j) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(lead + j, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  FailureOr<Value> init = emptyTensor(b, loc, resultType, inputs);
  if (failed(init))
    return failure();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{*init}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        // bf16/f16 compute in f32, rounded once per op (as the eager
        // interpreter does): the body sees f32 values.
        SmallVector<Value> values;
        for (Value arg : args.drop_back())
          values.push_back(
              isHalfFloat(arg.getType())
                  ? Value(arith::ExtFOp::create(nb, nl, nb.getF32Type(), arg))
                  : arg);
        Value r = body(nb, nl, values);
        Type elem = resultType.getElementType();
        if (isHalfFloat(elem) && r.getType() != elem)
          r = arith::TruncFOp::create(nb, nl, elem, r);
        linalg::YieldOp::create(nb, nl, r);
      });
  return generic.getResult(0);
}

/// The scalar computation of a broadcasting binary op.
template <typename OpTy>
Value scalarBinary(OpBuilder &b, Location loc, Value x, Value y);

template <>
Value scalarBinary<AddOp>(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}
template <>
Value scalarBinary<SubOp>(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::SubFOp::create(b, l, x, y);
  return arith::SubIOp::create(b, l, x, y);
}
template <>
Value scalarBinary<MulOp>(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, y);
  return arith::MulIOp::create(b, l, x, y);
}
template <>
Value scalarBinary<DivOp>(OpBuilder &b, Location l, Value x, Value y) {
  return arith::DivFOp::create(b, l, x, y);
}

Value intConstant(OpBuilder &b, Location l, Type t, int64_t v) {
  return arith::ConstantOp::create(b, l, t, b.getIntegerAttr(t, v));
}

bool isUnsignedInt(Type t) { return t.isInteger(8) || t.isInteger(1); }

/// `pick ? whenTrue : whenFalse` on scalars.
Value select(OpBuilder &b, Location l, Value pick, Value whenTrue,
             Value whenFalse) {
  return arith::SelectOp::create(b, l, pick, whenTrue, whenFalse);
}

/// Python's remainder fix-up: a nonzero `r` whose sign differs from the
/// divisor's moves by one divisor.
Value signFixup(OpBuilder &b, Location l, Value r, Value y, Value zero,
                bool isFloat) {
  Value rNonZero, rNeg, yNeg;
  if (isFloat) {
    rNonZero = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, r, zero);
    rNeg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, r, zero);
    yNeg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, y, zero);
  } else {
    rNonZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, r, zero);
    rNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, zero);
    yNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, y, zero);
  }
  Value signsDiffer = arith::XOrIOp::create(b, l, rNeg, yNeg);
  Value fix = arith::AndIOp::create(b, l, rNonZero, signsDiffer);
  Value moved = isFloat ? Value(arith::AddFOp::create(b, l, r, y))
                        : Value(arith::AddIOp::create(b, l, r, y));
  return select(b, l, fix, moved, r);
}

/// Integer `x // y` or `x % y` with NumPy's 0 for a zero divisor.
Value guardedIntDivision(OpBuilder &b, Location l, Value x, Value y,
                         function_ref<Value(Value)> divide) {
  Type t = x.getType();
  Value zero = intConstant(b, l, t, 0);
  Value isZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y, zero);
  Value safe = select(b, l, isZero, intConstant(b, l, t, 1), y);
  return select(b, l, isZero, zero, divide(safe));
}

template <>
Value scalarBinary<FloorDivOp>(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return math::FloorOp::create(b, l, arith::DivFOp::create(b, l, x, y));
  bool isUnsigned = isUnsignedInt(x.getType());
  return guardedIntDivision(b, l, x, y, [&](Value safe) -> Value {
    if (isUnsigned)
      return arith::DivUIOp::create(b, l, x, safe);
    return arith::FloorDivSIOp::create(b, l, x, safe);
  });
}

template <>
Value scalarBinary<ModOp>(OpBuilder &b, Location l, Value x, Value y) {
  Type t = x.getType();
  if (isa<FloatType>(t)) {
    Value r = arith::RemFOp::create(b, l, x, y);
    Value zero = arith::ConstantOp::create(b, l, t, b.getFloatAttr(t, 0));
    return signFixup(b, l, r, y, zero, /*isFloat=*/true);
  }
  bool isUnsigned = isUnsignedInt(t);
  return guardedIntDivision(b, l, x, y, [&](Value safe) -> Value {
    if (isUnsigned)
      return arith::RemUIOp::create(b, l, x, safe);
    Value r = arith::RemSIOp::create(b, l, x, safe);
    return signFixup(b, l, r, safe, intConstant(b, l, t, 0),
                     /*isFloat=*/false);
  });
}

template <>
Value scalarBinary<PowOp>(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return math::PowFOp::create(b, l, x, y);
  // math.ipowi divides by zero for 0 ** negative; TFL gives 0 there.
  Type t = x.getType();
  Value zero = intConstant(b, l, t, 0);
  Value xZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, zero);
  Value yNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, y, zero);
  Value undefined = arith::AndIOp::create(b, l, xZero, yNeg);
  Value safeY = select(b, l, undefined, zero, y);
  Value p = math::IPowIOp::create(b, l, x, safeY);
  return select(b, l, undefined, zero, p);
}

Value floatConstant(OpBuilder &b, Location l, Type t, double v) {
  return arith::ConstantOp::create(b, l, t, b.getFloatAttr(t, v));
}

template <>
Value scalarBinary<MaximumOp>(OpBuilder &b, Location l, Value x, Value y) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::MaximumFOp::create(b, l, x, y);
  if (isUnsignedInt(t))
    return arith::MaxUIOp::create(b, l, x, y);
  return arith::MaxSIOp::create(b, l, x, y);
}

template <>
Value scalarBinary<MinimumOp>(OpBuilder &b, Location l, Value x, Value y) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::MinimumFOp::create(b, l, x, y);
  if (isUnsignedInt(t))
    return arith::MinUIOp::create(b, l, x, y);
  return arith::MinSIOp::create(b, l, x, y);
}

/// The scalar computation of an elementwise math built-in. Each matches the
/// eager kernel's formula in runtime/lib/Kernels.cpp.
template <typename OpTy> Value scalarUnary(OpBuilder &b, Location l, Value x);

template <> Value scalarUnary<ExpOp>(OpBuilder &b, Location l, Value x) {
  return math::ExpOp::create(b, l, x);
}

template <> Value scalarUnary<LogOp>(OpBuilder &b, Location l, Value x) {
  return math::LogOp::create(b, l, x);
}

template <> Value scalarUnary<Log1pOp>(OpBuilder &b, Location l, Value x) {
  return math::Log1pOp::create(b, l, x);
}
template <> Value scalarUnary<ErfOp>(OpBuilder &b, Location l, Value x) {
  return math::ErfOp::create(b, l, x);
}

template <> Value scalarUnary<Expm1Op>(OpBuilder &b, Location l, Value x) {
  return math::ExpM1Op::create(b, l, x);
}

template <> Value scalarUnary<SqrtOp>(OpBuilder &b, Location l, Value x) {
  return math::SqrtOp::create(b, l, x);
}

template <> Value scalarUnary<RsqrtOp>(OpBuilder &b, Location l, Value x) {
  return arith::DivFOp::create(b, l, floatConstant(b, l, x.getType(), 1),
                               math::SqrtOp::create(b, l, x));
}

template <> Value scalarUnary<TanhOp>(OpBuilder &b, Location l, Value x) {
  return math::TanhOp::create(b, l, x);
}

template <> Value scalarUnary<SigmoidOp>(OpBuilder &b, Location l, Value x) {
  Value one = floatConstant(b, l, x.getType(), 1);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}

template <> Value scalarUnary<SinOp>(OpBuilder &b, Location l, Value x) {
  return math::SinOp::create(b, l, x);
}

template <> Value scalarUnary<CosOp>(OpBuilder &b, Location l, Value x) {
  return math::CosOp::create(b, l, x);
}

template <> Value scalarUnary<FloorOp>(OpBuilder &b, Location l, Value x) {
  return math::FloorOp::create(b, l, x);
}

template <> Value scalarUnary<RoundOp>(OpBuilder &b, Location l, Value x) {
  return math::RoundEvenOp::create(b, l, x);
}

template <> Value scalarUnary<AbsOp>(OpBuilder &b, Location l, Value x) {
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(b, l, x);
  if (isUnsignedInt(x.getType()))
    return x;
  return math::AbsIOp::create(b, l, x);
}

template <> Value scalarUnary<SignOp>(OpBuilder &b, Location l, Value x) {
  // x > 0 ? 1 : (x < 0 ? -1 : x): NaN and zeros pass through.
  Type t = x.getType();
  bool isFloat = isa<FloatType>(t);
  auto constant = [&](int64_t v) -> Value {
    return isFloat ? floatConstant(b, l, t, v) : intConstant(b, l, t, v);
  };
  Value zero = constant(0);
  Value pos = isFloat
                  ? Value(arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                                x, zero))
                  : Value(arith::CmpIOp::create(b, l,
                                                isUnsignedInt(t)
                                                    ? arith::CmpIPredicate::ugt
                                                    : arith::CmpIPredicate::sgt,
                                                x, zero));
  Value neg = isFloat
                  ? Value(arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                                x, zero))
                  : Value(arith::CmpIOp::create(b, l,
                                                isUnsignedInt(t)
                                                    ? arith::CmpIPredicate::ult
                                                    : arith::CmpIPredicate::slt,
                                                x, zero));
  return select(b, l, pos, constant(1), select(b, l, neg, constant(-1), x));
}

template <> Value scalarUnary<SquareOp>(OpBuilder &b, Location l, Value x) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, x);
  return arith::MulIOp::create(b, l, x, x);
}

template <> Value scalarUnary<ReluOp>(OpBuilder &b, Location l, Value x) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::MaximumFOp::create(b, l, x, floatConstant(b, l, t, 0));
  if (isUnsignedInt(t))
    return x;
  return arith::MaxSIOp::create(b, l, x, intConstant(b, l, t, 0));
}

/// One comparison: IEEE ordered for floats but for `ne` (true for NaN, as
/// NumPy's), unsigned for u8 (i8) and bool (i1).
Value scalarCompare(OpBuilder &b, Location l, ComparePredicate pred, Value x,
                    Value y) {
  if (isa<FloatType>(x.getType())) {
    arith::CmpFPredicate p = arith::CmpFPredicate::OEQ;
    switch (pred) {
    case ComparePredicate::lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case ComparePredicate::le:
      p = arith::CmpFPredicate::OLE;
      break;
    case ComparePredicate::gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case ComparePredicate::ge:
      p = arith::CmpFPredicate::OGE;
      break;
    case ComparePredicate::eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    case ComparePredicate::ne:
      p = arith::CmpFPredicate::UNE;
      break;
    }
    return arith::CmpFOp::create(b, l, p, x, y);
  }
  bool isUnsigned = x.getType().isInteger(8) || x.getType().isInteger(1);
  arith::CmpIPredicate p = arith::CmpIPredicate::eq;
  switch (pred) {
  case ComparePredicate::lt:
    p = isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case ComparePredicate::le:
    p = isUnsigned ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case ComparePredicate::gt:
    p = isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case ComparePredicate::ge:
    p = isUnsigned ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  case ComparePredicate::eq:
    p = arith::CmpIPredicate::eq;
    break;
  case ComparePredicate::ne:
    p = arith::CmpIPredicate::ne;
    break;
  }
  return arith::CmpIOp::create(b, l, p, x, y);
}

/// A float converted to an integer type toward zero, saturating at the
/// type's bounds and NaN giving 0 (as the eager interpreter's
/// convertNumber, XLA and the GPU's cvt.rzi), where fptosi alone would be
/// poison. Each bound is compared as the float type holds it: the minimum
/// exactly, the maximum rounded up to a power of two where it must be.
Value saturatingFloatToInt(OpBuilder &b, Location l, Value x, IntegerType to,
                           bool isUnsigned) {
  auto from = cast<FloatType>(x.getType());
  unsigned width = to.getWidth();
  APInt lo =
      isUnsigned ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  APInt hi =
      isUnsigned ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  auto bound = [&](const APInt &v) {
    APFloat f(from.getFloatSemantics());
    f.convertFromAPInt(v, !isUnsigned, APFloat::rmNearestTiesToEven);
    return arith::ConstantOp::create(b, l, from, b.getFloatAttr(from, f));
  };
  auto intConst = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, l, to, b.getIntegerAttr(to, v));
  };
  Value truncated = isUnsigned
                        ? arith::FPToUIOp::create(b, l, to, x).getResult()
                        : arith::FPToSIOp::create(b, l, to, x).getResult();
  Value atMost =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, x, bound(lo));
  Value atLeast =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, x, bound(hi));
  Value isNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
  Value r = arith::SelectOp::create(b, l, atLeast, intConst(hi), truncated);
  r = arith::SelectOp::create(b, l, atMost, intConst(lo), r);
  return arith::SelectOp::create(b, l, isNan, intConst(APInt(width, 0)), r);
}

/// One element converted as NumPy's astype (i8 and i1 read unsigned), a
/// float into an integer type saturating.
Value scalarCast(OpBuilder &b, Location l, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  // Into a 16-bit float through f32, as the eager interpreter converts (and
  // no target needs a library call for f64 or integers to bf16).
  if (isHalfFloat(to) && !from.isF32())
    return arith::TruncFOp::create(b, l, to,
                                   scalarCast(b, l, x, b.getF32Type()));
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  bool fromUnsigned = from.isInteger(8) || from.isInteger(1);
  if (to.isInteger(1)) {
    if (fromFloat) {
      Value zero =
          arith::ConstantOp::create(b, l, from, b.getFloatAttr(from, 0));
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, x, zero);
    }
    Value zero =
        arith::ConstantOp::create(b, l, from, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, l, to, x);
    return arith::TruncFOp::create(b, l, to, x);
  }
  if (!fromFloat && toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, l, to, x);
    return arith::SIToFPOp::create(b, l, to, x);
  }
  if (fromFloat)
    return saturatingFloatToInt(b, l, x, cast<IntegerType>(to),
                                to.isInteger(8));
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncIOp::create(b, l, to, x);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, l, to, x);
  return arith::ExtSIOp::create(b, l, to, x);
}

/// The scalar computation of an elementwise op at one element, given the
/// op and its operands' elements.
template <typename OpTy>
using ScalarBody = Value (*)(OpBuilder &, Location, OpTy, ValueRange);

/// One pattern for every elementwise op: a (broadcasting) linalg.generic
/// over the result whose body is the op's scalar computation.
template <typename OpTy, ScalarBody<OpTy> Body>
struct ElementwiseToLinalg : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        adaptor.getOperands(), [&](OpBuilder &b, Location l, ValueRange args) {
          return Body(b, l, op, args);
        });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "no value gives the batch size");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

template <typename OpTy>
Value binaryBody(OpBuilder &b, Location l, OpTy, ValueRange args) {
  return scalarBinary<OpTy>(b, l, args[0], args[1]);
}

template <typename OpTy>
Value unaryBody(OpBuilder &b, Location l, OpTy, ValueRange args) {
  return scalarUnary<OpTy>(b, l, args[0]);
}

Value negBody(OpBuilder &b, Location l, NegOp, ValueRange args) {
  Value x = args[0];
  if (isa<FloatType>(x.getType()))
    return arith::NegFOp::create(b, l, x);
  return arith::SubIOp::create(b, l, intConstant(b, l, x.getType(), 0), x);
}

Value castBody(OpBuilder &b, Location l, CastOp op, ValueRange args) {
  return scalarCast(b, l, args[0], op.getType().getElementType());
}

Value compareBody(OpBuilder &b, Location l, CompareOp op, ValueRange args) {
  return scalarCompare(b, l, op.getPredicate(), args[0], args[1]);
}

Value notBody(OpBuilder &b, Location l, NotOp, ValueRange args) {
  Value one =
      arith::ConstantOp::create(b, l, b.getI1Type(), b.getBoolAttr(true));
  return arith::XOrIOp::create(b, l, args[0], one);
}

Value whereBody(OpBuilder &b, Location l, WhereOp, ValueRange args) {
  return select(b, l, args[0], args[1], args[2]);
}

/// broadcast_to is the identity through a broadcasting generic.
Value broadcastBody(OpBuilder &, Location, BroadcastToOp, ValueRange args) {
  return args[0];
}

template <typename OpTy>
using Binary = ElementwiseToLinalg<OpTy, binaryBody<OpTy>>;
template <typename OpTy>
using Unary = ElementwiseToLinalg<OpTy, unaryBody<OpTy>>;

struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};

} // namespace

void populateTflElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<Binary<AddOp>, Binary<SubOp>, Binary<MulOp>, Binary<DivOp>,
               Binary<FloorDivOp>, Binary<ModOp>, Binary<PowOp>,
               Binary<MaximumOp>, Binary<MinimumOp>>(ctx);
  patterns.add<Unary<ExpOp>, Unary<LogOp>, Unary<Log1pOp>, Unary<Expm1Op>,
               Unary<ErfOp>, Unary<SqrtOp>, Unary<RsqrtOp>, Unary<TanhOp>,
               Unary<SigmoidOp>, Unary<SinOp>, Unary<CosOp>, Unary<FloorOp>,
               Unary<RoundOp>, Unary<AbsOp>, Unary<SignOp>, Unary<SquareOp>,
               Unary<ReluOp>>(ctx);
  patterns
      .add<ElementwiseToLinalg<NegOp, negBody>,
           ElementwiseToLinalg<CastOp, castBody>,
           ElementwiseToLinalg<CompareOp, compareBody>,
           ElementwiseToLinalg<NotOp, notBody>,
           ElementwiseToLinalg<WhereOp, whereBody>,
           ElementwiseToLinalg<BroadcastToOp, broadcastBody>, ConstantToArith>(
          ctx);
}

} // namespace mlir::tfl
