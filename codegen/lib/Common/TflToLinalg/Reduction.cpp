//===- Reduction.cpp - tfl reductions to linalg.generic -------------------===//
//
// A reduction is one linalg.generic with reduction iterators over the
// reduced axes, writing into an output filled with the operation's identity;
// `keepdims` re-inserts the size-1 dims with tensor.expand_shape. The loops
// accumulate in row-major order, as the eager kernels do. An arg-reduction
// carries (best value, best index) through a two-output generic.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

namespace mlir::tfl {
namespace {

bool isUnsignedInt(Type t) { return t.isInteger(8) || t.isInteger(1); }

/// The identity of a reduction (sum 0, product 1, max -inf or the lowest
/// integer, min +inf or the highest).
TypedAttr identity(Builder &b, Type t, bool isSum, bool isProd, bool isMax) {
  if (isSum || isProd)
    return isa<FloatType>(t) ? TypedAttr(b.getFloatAttr(t, isSum ? 0 : 1))
                             : TypedAttr(b.getIntegerAttr(t, isSum ? 0 : 1));
  if (auto f = dyn_cast<FloatType>(t))
    return b.getFloatAttr(
        t, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/isMax));
  unsigned width = t.getIntOrFloatBitWidth();
  APInt v = isUnsignedInt(t) ? (isMax ? APInt::getMinValue(width)
                                      : APInt::getMaxValue(width))
                             : (isMax ? APInt::getSignedMinValue(width)
                                      : APInt::getSignedMaxValue(width));
  return b.getIntegerAttr(t, v);
}

/// Reassociation from `reduced` (axes dropped) to `keepdims` (axes kept as
/// size-1 dims): each kept axis joins the group of a neighbouring dim.
SmallVector<ReassociationIndices>
keepdimsReassociation(int64_t rank, ArrayRef<int64_t> axes) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0; d < rank; ++d) {
    pending.push_back(d);
    if (!llvm::is_contained(axes, d)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

/// `value` (reduced over `axes`) with the size-1 dims of keepdims restored.
Value restoreKeptDims(OpBuilder &b, Location loc, Value value,
                      RankedTensorType keptType, ArrayRef<int64_t> axes) {
  return tensor::ExpandShapeOp::create(
      b, loc, keptType, value, keepdimsReassociation(keptType.getRank(), axes));
}

/// Builds the generic reducing `input` over `axes` into an output filled
/// with `init`; `combine(in, acc)` is the body.
Value buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
    TypedAttr init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  SmallVector<int64_t> outShape = reducedShape(inType.getShape(), axes, false);
  Type elem = inType.getElementType();
  Value empty = tensor::EmptyOp::create(
      b, loc, outShape, elem,
      dynamicSizes(b, loc, RankedTensorType::get(outShape, elem), input));
  Value initValue = arith::ConstantOp::create(b, loc, init);
  Value filled =
      linalg::FillOp::create(b, loc, ValueRange{initValue}, ValueRange{empty})
          .getResult(0);
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced)
      outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{filled.getType()}, ValueRange{input},
      ValueRange{filled}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, combine(nb, nl, args[0], args[1]));
      });
  return generic.getResult(0);
}

template <typename OpTy> struct ReductionToLinalg : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    constexpr bool isSum = std::is_same_v<OpTy, ReduceSumOp>;
    constexpr bool isProd = std::is_same_v<OpTy, ReduceProdOp>;
    constexpr bool isMax = std::is_same_v<OpTy, ReduceMaxOp>;
    Type elem = inType.getElementType();
    bool isFloat = isa<FloatType>(elem), isUnsigned = isUnsignedInt(elem);
    Location loc = op.getLoc();
    Value reduced = buildReduction(
        rewriter, loc, adaptor.getInput(), op.getAxes(),
        identity(rewriter, elem, isSum, isProd, isMax),
        [&](OpBuilder &b, Location l, Value x, Value acc) -> Value {
          if constexpr (isSum)
            return isFloat ? Value(arith::AddFOp::create(b, l, acc, x))
                           : Value(arith::AddIOp::create(b, l, acc, x));
          if constexpr (isProd)
            return isFloat ? Value(arith::MulFOp::create(b, l, acc, x))
                           : Value(arith::MulIOp::create(b, l, acc, x));
          if constexpr (isMax) {
            if (isFloat)
              return arith::MaximumFOp::create(b, l, acc, x);
            return isUnsigned ? Value(arith::MaxUIOp::create(b, l, acc, x))
                              : Value(arith::MaxSIOp::create(b, l, acc, x));
          }
          if (isFloat)
            return arith::MinimumFOp::create(b, l, acc, x);
          return isUnsigned ? Value(arith::MinUIOp::create(b, l, acc, x))
                            : Value(arith::MinSIOp::create(b, l, acc, x));
        });
    if (op.getKeepdims())
      reduced =
          restoreKeptDims(rewriter, loc, reduced,
                          cast<RankedTensorType>(op.getType()), op.getAxes());
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

template <typename OpTy>
struct ArgReductionToLinalg : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    if (!op.getAxis() && !inType.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "an index into a flattened batch is not lowered");
    constexpr bool isMax = std::is_same_v<OpTy, ArgmaxOp>;
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    int64_t axis;
    if (op.getAxis()) {
      axis = *op.getAxis();
    } else {
      // Over all axes: the index into the flattened input.
      ReassociationIndices all;
      for (int64_t d = 0; d < inType.getRank(); ++d)
        all.push_back(d);
      auto flatType = RankedTensorType::get({inType.getNumElements()},
                                            inType.getElementType());
      input = inType.getRank() == 0 ? Value(tensor::ExpandShapeOp::create(
                                          rewriter, loc, flatType, input,
                                          ArrayRef<ReassociationIndices>{}))
                                    : Value(tensor::CollapseShapeOp::create(
                                          rewriter, loc, flatType, input,
                                          ArrayRef<ReassociationIndices>{all}));
      axis = 0;
    }
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    Type elem = type.getElementType();
    bool isFloat = isa<FloatType>(elem);
    bool isUnsigned = isUnsignedInt(elem);
    SmallVector<int64_t> outShape =
        reducedShape(type.getShape(), {axis}, false);
    Type i64 = rewriter.getI64Type();
    auto fill = [&](Type t, TypedAttr v) {
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, outShape, t,
          dynamicSizes(rewriter, loc, RankedTensorType::get(outShape, t),
                       input));
      Value c = arith::ConstantOp::create(rewriter, loc, v);
      return linalg::FillOp::create(rewriter, loc, ValueRange{c},
                                    ValueRange{empty})
          .getResult(0);
    };
    Value bestInit = fill(elem, identity(rewriter, elem, false, false, isMax));
    Value idxInit = fill(i64, rewriter.getI64IntegerAttr(0));
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d != axis)
        outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, ctx);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   outMap, outMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestInit.getType(), idxInit.getType()},
        ValueRange{input}, ValueRange{bestInit, idxInit}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value take;
          if (isFloat) {
            take = arith::CmpFOp::create(b, l,
                                         isMax ? arith::CmpFPredicate::OGT
                                               : arith::CmpFPredicate::OLT,
                                         x, best);
            // The first NaN wins, as in NumPy.
            Value xNan =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
            Value bestNan = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::UNO, best, best);
            Value one = arith::ConstantOp::create(b, l, b.getI1Type(),
                                                  b.getBoolAttr(true));
            Value firstNan = arith::AndIOp::create(
                b, l, xNan, arith::XOrIOp::create(b, l, bestNan, one));
            take = arith::OrIOp::create(b, l, take, firstNan);
          } else {
            arith::CmpIPredicate p = isUnsigned
                                         ? (isMax ? arith::CmpIPredicate::ugt
                                                  : arith::CmpIPredicate::ult)
                                         : (isMax ? arith::CmpIPredicate::sgt
                                                  : arith::CmpIPredicate::slt);
            take = arith::CmpIOp::create(b, l, p, x, best);
          }
          Value idx = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, x, best),
                         arith::SelectOp::create(b, l, take, idx, bestIdx)});
        });
    Value result = generic.getResult(1);
    auto resultType = cast<RankedTensorType>(op.getType());
    if (resultType.getShape() != ArrayRef<int64_t>(outShape))
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, resultType, result,
          op.getAxis() ? keepdimsReassociation(resultType.getRank(), {axis})
                       : SmallVector<ReassociationIndices>{});
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateTflReductionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReductionToLinalg<ReduceSumOp>, ReductionToLinalg<ReduceProdOp>,
               ReductionToLinalg<ReduceMaxOp>, ReductionToLinalg<ReduceMinOp>,
               ArgReductionToLinalg<ArgmaxOp>, ArgReductionToLinalg<ArgminOp>>(
      patterns.getContext());
}

} // namespace mlir::tfl
