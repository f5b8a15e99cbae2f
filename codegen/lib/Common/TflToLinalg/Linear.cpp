//===- Linear.cpp - tfl linear algebra to linalg --------------------------===//
//
// tfl.matmul becomes zero-filled linalg.matmul; after bufferization,
// tfl-linalg-to-runtime turns float ones into BLAS calls.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfl {
namespace {

struct MatmulToLinalg : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    Value zero = arith::ConstantOp::create(rewriter, loc, elem,
                                           rewriter.getZeroAttr(elem));
    FailureOr<Value> empty =
        emptyTensor(rewriter, loc, type, {adaptor.getLhs(), adaptor.getRhs()});
    if (failed(empty))
      return rewriter.notifyMatchFailure(op, "no value gives the batch size");
    Value filled = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{*empty})
                       .getResult(0);
    SmallVector<Value, 2> inputs = {adaptor.getLhs(), adaptor.getRhs()};
    Value product =
        type.getRank() == 3
            ? linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{type},
                                            inputs, ValueRange{filled})
                  .getResult(0)
            : linalg::MatmulOp::create(rewriter, loc, TypeRange{type}, inputs,
                                       ValueRange{filled})
                  .getResult(0);
    rewriter.replaceOp(op, product);
    return success();
  }
};

} // namespace

void populateTflLinearToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulToLinalg>(patterns.getContext());
}

} // namespace mlir::tfl
