//===- DataMovement.cpp - tfl shape ops to tensor and linalg --------------===//
//
// reshape is metadata only: collapse to 1-D, then expand to the new shape
// (both always valid for row-major data, and free after bufferization).
// transpose is a linalg.generic with a permuted input map, so it fuses with
// elementwise neighbours. concat writes each input into its slice of an
// empty result. slice is a tensor.extract_slice (a view once bufferized) for
// positive strides and a gathering generic otherwise; a dynamic start is
// first checked by libtflrt, which stops the program with the `.tfl`
// location when the window leaves the tensor.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

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
    Location loc = op.getLoc();
    // A batch (a dynamic dim): the elements are batch x the static dims'
    // product in both shapes (Sema keeps one dynamic dim in each).
    int64_t flatSize =
        in.hasStaticShape() ? in.getNumElements() : ShapedType::kDynamic;
    if (in.getNumDynamicDims() > 1 || out.getNumDynamicDims() > 1 ||
        in.hasStaticShape() != out.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "a reshape of one batch only");
    auto flatType = RankedTensorType::get({flatSize}, in.getElementType());
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
    else if (out.getRank() > 1 && out.hasStaticShape())
      result = tensor::ExpandShapeOp::create(rewriter, loc, out, flat,
                                             oneGroup(out.getRank()));
    else if (out.getRank() > 1) {
      Value batch = batchSize(rewriter, loc, adaptor.getInput());
      SmallVector<OpFoldResult> shape;
      for (int64_t d : out.getShape())
        shape.push_back(ShapedType::isDynamic(d) ? OpFoldResult(batch)
                                                 : rewriter.getIndexAttr(d));
      result = tensor::ExpandShapeOp::create(rewriter, loc, out, flat,
                                             oneGroup(out.getRank()), shape);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// dim: tensor.dim, as an i64 scalar tensor.
struct DimToTensor : OpConversionPattern<DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value size =
        tensor::DimOp::create(rewriter, loc, adaptor.getInput(), op.getAxis());
    size =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), size);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(),
                                                        ValueRange{size});
    return success();
  }
};

struct TransposeToLinalg : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
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
    FailureOr<Value> empty =
        emptyTensor(rewriter, op.getLoc(), out, adaptor.getInput());
    if (failed(empty))
      return failure();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{out}, ValueRange{adaptor.getInput()},
        ValueRange{*empty}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct SliceToTensor : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    // A batch (dynamic) dim is only taken whole (Sema).
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (in.isDynamicDim(d) &&
          (!out.isDynamicDim(d) || op.getStaticStarts()[d] != 0 ||
           op.getStrides()[d] != 1))
        return rewriter.notifyMatchFailure(op, "a batch dim is taken whole");
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    Type i64 = rewriter.getI64Type();
    auto i64Const = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(rewriter, loc, i64,
                                       rewriter.getI64IntegerAttr(v));
    };
    // Starts: static ones as attributes; dynamic ones checked, then cast.
    SmallVector<OpFoldResult> offsets;
    SmallVector<Value> startValues;
    size_t next = 0;
    for (auto [d, s] : llvm::enumerate(op.getStaticStarts())) {
      if (!ShapedType::isDynamic(s)) {
        offsets.push_back(rewriter.getIndexAttr(s));
        startValues.push_back(i64Const(s));
        continue;
      }
      Value start = tensor::ExtractOp::create(
          rewriter, loc, adaptor.getStarts()[next++], ValueRange{});
      auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
      func::FuncOp check = getOrInsertRuntimeFunction(
          rewriter, module, "tflrt_check_slice",
          rewriter.getFunctionType({i64, i64, i64, i64, ptr}, {}));
      Value where =
          getOrCreateStringPointer(rewriter, loc, module, locationText(loc));
      func::CallOp::create(rewriter, loc, check,
                           ValueRange{start, i64Const(out.getDimSize(d)),
                                      i64Const(op.getStrides()[d]),
                                      i64Const(in.getDimSize(d)), where});
      offsets.push_back(Value(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(), start)));
      startValues.push_back(start);
    }
    bool positive =
        llvm::all_of(op.getStrides(), [](int64_t t) { return t > 0; });
    if (positive) {
      SmallVector<OpFoldResult> sizes, strides;
      for (auto [d, size] : llvm::enumerate(out.getShape())) {
        sizes.push_back(ShapedType::isDynamic(size)
                            ? OpFoldResult(tensor::DimOp::create(
                                  rewriter, loc, adaptor.getInput(), d))
                            : rewriter.getIndexAttr(size));
        strides.push_back(rewriter.getIndexAttr(op.getStrides()[d]));
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, out, adaptor.getInput(), offsets, sizes, strides);
      return success();
    }
    // A negative stride: each result element reads its source element.
    int64_t rank = out.getRank();
    if (!out.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "a reversed slice of a batch");
    Value empty = tensor::EmptyOp::create(rewriter, loc, out.getShape(),
                                          out.getElementType());
    Value input = adaptor.getInput();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{}, ValueRange{empty},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = arith::IndexCastOp::create(
                b, l, b.getI64Type(), linalg::IndexOp::create(b, l, d));
            Value stride = arith::ConstantOp::create(
                b, l, b.getI64Type(), b.getI64IntegerAttr(op.getStrides()[d]));
            Value pos = arith::AddIOp::create(
                b, l, startValues[d], arith::MulIOp::create(b, l, i, stride));
            indices.push_back(
                arith::IndexCastOp::create(b, l, b.getIndexType(), pos));
          }
          linalg::YieldOp::create(
              b, l,
              ValueRange{tensor::ExtractOp::create(b, l, input, indices)});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// embed_slice: tensor.insert_slice of the input into zeros (the starts
/// were checked by the slice this reverses).
struct EmbedSliceToTensor : OpConversionPattern<EmbedSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmbedSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto out = cast<RankedTensorType>(op.getType());
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(out.getElementType()));
    FailureOr<Value> empty =
        emptyTensor(rewriter, loc, out, adaptor.getInput());
    if (failed(empty))
      return failure();
    Value zeros = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                         ValueRange{*empty})
                      .getResult(0);
    SmallVector<OpFoldResult> offsets, strides;
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, adaptor.getInput());
    size_t next = 0;
    for (auto [d, s] : llvm::enumerate(op.getStaticStarts())) {
      if (ShapedType::isDynamic(s)) {
        Value start = tensor::ExtractOp::create(
            rewriter, loc, adaptor.getStarts()[next++], ValueRange{});
        offsets.push_back(Value(arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(), start)));
      } else {
        offsets.push_back(rewriter.getIndexAttr(s));
      }
      strides.push_back(rewriter.getIndexAttr(op.getStrides()[d]));
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getInput(), zeros, offsets, sizes, strides);
    return success();
  }
};

/// stop_gradient: the identity once gradients are built. to_device: the
/// identity too, the copies being made where host functions are called
/// from device code (tfl-device-memory).
template <typename OpTy> struct IdentityToInput : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// gather: the smallest and largest index are checked by libtflrt (as slice
/// starts are), then a generic reads each result element from its source
/// (at the index clamped into the axis).
struct GatherToLinalg : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto idxType = cast<RankedTensorType>(op.getIndices().getType());
    auto out = cast<RankedTensorType>(op.getType());
    if (in.isDynamicDim(op.getAxis()))
      return rewriter.notifyMatchFailure(op, "gathers along a static axis");
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    int64_t axis = op.getAxis(), idxRank = idxType.getRank();
    Type i64 = rewriter.getI64Type();
    Value indices = adaptor.getIndices();
    if (!idxType.hasStaticShape() || idxType.getNumElements() > 0) {
      auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
      func::FuncOp check = getOrInsertRuntimeFunction(
          rewriter, module, "tflrt_check_slice",
          rewriter.getFunctionType({i64, i64, i64, i64, ptr}, {}));
      Value where =
          getOrCreateStringPointer(rewriter, loc, module, locationText(loc));
      auto c = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(rewriter, loc, i64,
                                         rewriter.getI64IntegerAttr(v));
      };
      SmallVector<int64_t> all;
      for (int64_t d = 0; d < idxRank; ++d)
        all.push_back(d);
      auto scalarType = RankedTensorType::get({}, idxType.getElementType());
      // The checked range's size: 1, or, for a batch of indices (which may
      // be empty, its extreme values then meaningless), 0 when it is empty.
      Value count = c(1);
      if (!idxType.hasStaticShape()) {
        Value n = arith::IndexCastOp::create(rewriter, loc, i64,
                                             batchSize(rewriter, loc, indices));
        int64_t rest = 1; // the static dims' product
        for (int64_t d : idxType.getShape())
          rest *= ShapedType::isDynamic(d) ? 1 : d;
        count = arith::SelectOp::create(
            rewriter, loc,
            arith::CmpIOp::create(
                rewriter, loc, arith::CmpIPredicate::sgt,
                arith::MulIOp::create(rewriter, loc, n, c(rest)), c(0)),
            c(1), c(0));
      }
      for (bool isMax : {false, true}) {
        Value r =
            isMax
                ? Value(ReduceMaxOp::create(rewriter, loc, scalarType, indices,
                                            rewriter.getDenseI64ArrayAttr(all),
                                            rewriter.getBoolAttr(false)))
                : Value(ReduceMinOp::create(rewriter, loc, scalarType, indices,
                                            rewriter.getDenseI64ArrayAttr(all),
                                            rewriter.getBoolAttr(false)));
        Value v = tensor::ExtractOp::create(rewriter, loc, r, ValueRange{});
        if (!v.getType().isInteger(64))
          v = arith::ExtSIOp::create(rewriter, loc, i64, v);
        func::CallOp::create(
            rewriter, loc, check,
            ValueRange{v, count, c(1), c(in.getDimSize(axis)), where});
      }
    }
    Value input = adaptor.getInput();
    int64_t rank = out.getRank();
    FailureOr<Value> empty =
        emptyTensor(rewriter, loc, out, {adaptor.getIndices(), input});
    if (failed(empty))
      return failure();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{}, ValueRange{*empty},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> idxAt, srcAt;
          for (int64_t d = axis; d < axis + idxRank; ++d)
            idxAt.push_back(linalg::IndexOp::create(b, l, d));
          Value pick = tensor::ExtractOp::create(b, l, indices, idxAt);
          pick = arith::IndexCastOp::create(b, l, b.getIndexType(), pick);
          // Clamped into the axis: the range check above stops the
          // program, but a GPU checks later (at its next wait), and its
          // kernel must not read outside the source meanwhile.
          Value last = arith::ConstantIndexOp::create(
              b, l, std::max<int64_t>(in.getDimSize(axis) - 1, 0));
          pick = arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, pick, last),
              arith::ConstantIndexOp::create(b, l, 0));
          for (int64_t d = 0; d < axis; ++d)
            srcAt.push_back(linalg::IndexOp::create(b, l, d));
          srcAt.push_back(pick);
          for (int64_t d = axis + idxRank; d < rank; ++d)
            srcAt.push_back(linalg::IndexOp::create(b, l, d));
          linalg::YieldOp::create(
              b, l, ValueRange{tensor::ExtractOp::create(b, l, input, srcAt)});
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
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    if (out.isDynamicDim(axis))
      return rewriter.notifyMatchFailure(op, "joins along a static axis");
    FailureOr<Value> empty =
        emptyTensor(rewriter, loc, out, adaptor.getInputs());
    if (failed(empty))
      return failure();
    Value result = *empty;
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      // An input without elements adds none (and an insert_slice at offset
      // 0 of a size-0 dim does not verify).
      if (llvm::is_contained(type.getShape(), 0)) {
        offset += type.getDimSize(axis);
        continue;
      }
      SmallVector<OpFoldResult> offsets(out.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        rewriter.getIndexAttr(1));
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
  patterns.add<ReshapeToTensor, DimToTensor, TransposeToLinalg, SliceToTensor,
               ConcatToTensor, IdentityToInput<StopGradientOp>,
               IdentityToInput<ToDeviceOp>, EmbedSliceToTensor, GatherToLinalg>(
      patterns.getContext());
}

} // namespace mlir::tfl
