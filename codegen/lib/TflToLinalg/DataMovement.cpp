//===- DataMovement.cpp - tfl shape ops to tensor and linalg --------------===//
//
// reshape is metadata only: collapse to 1-D, then expand to the new shape
// (both always valid for row-major data, and free after bufferization).
// transpose is a linalg.generic with a permuted input map, so it fuses with
// elementwise neighbours. concat writes each input into its slice of an
// empty result.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfl {
namespace {

/// All dims of a rank-`rank` tensor in one group.
SmallVector<ReassociationIndices> oneGroup(int64_t rank) {
  if (rank == 0)
    return {};
  ReassociationIndices all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  return {all};
}

struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    if (!in.hasStaticShape() || !out.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes not lowered yet");
    Location loc = op.getLoc();
    auto flatType =
        RankedTensorType::get({in.getNumElements()}, in.getElementType());
    Value flat = adaptor.getInput();
    if (in.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, flat,
                                           oneGroup(0));
    else if (in.getRank() > 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flatType, flat,
                                             oneGroup(in.getRank()));
    Value result = flat;
    if (out.getRank() == 0)
      result = tensor::CollapseShapeOp::create(rewriter, loc, out, flat,
                                               oneGroup(0));
    else if (out.getRank() > 1)
      result = tensor::ExpandShapeOp::create(rewriter, loc, out, flat,
                                             oneGroup(out.getRank()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TransposeToLinalg : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
    if (!out.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes not lowered yet");
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = out.getRank();
    // Result dim i reads input dim perm[i]: input dim k is loop dim i with
    // perm[i] == k.
    SmallVector<AffineExpr> inExprs(rank);
    for (int64_t i = 0; i < rank; ++i)
      inExprs[op.getPerm()[i]] = getAffineDimExpr(i, ctx);
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, inExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), out.getShape(),
                                          out.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{out}, ValueRange{adaptor.getInput()},
        ValueRange{empty}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct ConcatToTensor : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
    if (!out.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes not lowered yet");
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    Value result = tensor::EmptyOp::create(rewriter, loc, out.getShape(),
                                           out.getElementType());
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(out.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes, strides;
      for (int64_t d : type.getShape()) {
        sizes.push_back(rewriter.getIndexAttr(d));
        strides.push_back(rewriter.getIndexAttr(1));
      }
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateTflDataMovementToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeToTensor, TransposeToLinalg, ConcatToTensor>(
      patterns.getContext());
}

} // namespace mlir::tfl
