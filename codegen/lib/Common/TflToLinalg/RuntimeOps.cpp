//===- RuntimeOps.cpp - tfl ops that are libtflrt calls on scalars --------===//
//
// The ops whose work is one or two calls of libtflrt's C ABI on scalars,
// made while tfl becomes linalg: checks (assert, check_numerics), flags,
// the generator's seed and state, log_scalar, the autodiff tape's
// cursor, the clock, and the run's rank and world size. Each extracts its
// operands' scalars, calls (callRuntime, RuntimeAbi.h), and is erased or
// replaced by the results. The ops that read or write whole tensors
// through libtflrt (print, random draws, files, convolutions,
// collectives) are lowered on buffers instead, by the bufferization
// models of codegen/lib/Bufferization/.
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

/// The element of a 0-d tensor.
Value scalarOf(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

/// A 0-d i1 tensor as the byte the C ABI takes for a flag.
Value byteOf(OpBuilder &b, Location loc, Value flag) {
  return arith::ExtUIOp::create(b, loc, b.getI8Type(), scalarOf(b, loc, flag));
}

/// assert: a libtflrt call that stops the program when the condition is
/// false.
struct AssertToRuntime : OpConversionPattern<AssertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callRuntime(rewriter, op, "tflrt_assert",
                {byteOf(rewriter, op.getLoc(), adaptor.getCond()),
                 textPointer(rewriter, op, op.getMessage()),
                 textPointer(rewriter, op, locationText(op.getLoc()))});
    rewriter.eraseOp(op);
    return success();
  }
};

/// check_numerics: a fused reduction to "all finite" (|x| < inf is false for
/// NaN and Inf), passed to libtflrt, which stops the program when it is
/// false; the result is the input.
struct CheckNumericsToRuntime : OpConversionPattern<CheckNumericsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CheckNumericsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    Type i1 = rewriter.getI1Type();
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{}, i1);
    Value yes =
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    Value init = linalg::FillOp::create(rewriter, loc, ValueRange{yes},
                                        ValueRange{empty})
                     .getResult(0);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(type.getRank()),
        AffineMap::get(type.getRank(), 0, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::reduction);
    auto body = [&](OpBuilder &b, Location l, ValueRange args) {
      Value magnitude = math::AbsFOp::create(b, l, args[0]);
      Value inf = arith::ConstantOp::create(
          b, l,
          b.getFloatAttr(type.getElementType(),
                         std::numeric_limits<double>::infinity()));
      Value ok = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                       magnitude, inf);
      linalg::YieldOp::create(
          b, l, ValueRange{arith::AndIOp::create(b, l, args[1], ok)});
    };
    Value finite =
        linalg::GenericOp::create(rewriter, loc, init.getType(),
                                  ValueRange{adaptor.getInput()},
                                  ValueRange{init}, maps, iterators, body)
            .getResult(0);
    callRuntime(rewriter, op, "tflrt_check_numerics",
                {byteOf(rewriter, loc, finite),
                 textPointer(rewriter, op, op.getMessage()),
                 textPointer(rewriter, op, locationText(loc))});
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// flag: the runtime's parsed value of the flag, as a 0-d tensor.
struct FlagToRuntime : OpConversionPattern<FlagOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FlagOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType();
    Type scalar = elem.isInteger(1) ? rewriter.getI8Type() : elem;
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    func::FuncOp fn = getOrInsertRuntimeFunction(
        rewriter, module, ("tflrt_flag_" + runtimeTypeSuffix(elem)).str(),
        rewriter.getFunctionType({ptr}, {scalar}));
    Value name = getOrCreateStringPointer(rewriter, loc, module, op.getName());
    Value value =
        func::CallOp::create(rewriter, loc, fn, ValueRange{name}).getResult(0);
    if (elem.isInteger(1))
      value = arith::TruncIOp::create(rewriter, loc, elem, value);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type,
                                                        ValueRange{value});
    return success();
  }
};

/// Replaces `op` by the tensor of the scalars (of type `scalar`) that the
/// libtflrt functions `names`, taking nothing, return, in order.
void replaceByRuntimeScalars(ConversionPatternRewriter &rewriter, Operation *op,
                             ArrayRef<StringRef> names, Type scalar) {
  auto module = op->getParentOfType<ModuleOp>();
  auto type = rewriter.getFunctionType({}, {scalar});
  SmallVector<Value> scalars;
  for (StringRef name : names) {
    func::FuncOp fn = getOrInsertRuntimeFunction(rewriter, module, name, type);
    scalars.push_back(
        func::CallOp::create(rewriter, op->getLoc(), fn, ValueRange{})
            .getResult(0));
  }
  rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op->getResultTypes(),
                                                      scalars);
}

/// seed: restarts libtflrt's generator (the random ops draw from it during
/// bufferization).
struct SeedToRuntime : OpConversionPattern<SeedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SeedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callRuntime(rewriter, op, "tflrt_seed",
                {scalarOf(rewriter, op.getLoc(), adaptor.getSeed())});
    rewriter.eraseOp(op);
    return success();
  }
};

/// random_state: the generator's key and draw count, two libtflrt calls.
struct RandomStateToRuntime : OpConversionPattern<RandomStateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandomStateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceByRuntimeScalars(rewriter, op,
                            {"tflrt_random_key", "tflrt_random_draws"},
                            rewriter.getI64Type());
    return success();
  }
};

/// set_random_state: a libtflrt call with the key and draw count.
struct SetRandomStateToRuntime : OpConversionPattern<SetRandomStateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SetRandomStateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> args;
    for (int64_t i = 0; i < 2; ++i) {
      Value at = arith::ConstantIndexOp::create(rewriter, loc, i);
      args.push_back(
          tensor::ExtractOp::create(rewriter, loc, adaptor.getState(), at));
    }
    callRuntime(rewriter, op, "tflrt_set_random_state", args);
    rewriter.eraseOp(op);
    return success();
  }
};

/// log_scalar: a libtflrt call appending the point to the scalars file.
struct LogScalarToRuntime : OpConversionPattern<LogScalarOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LogScalarOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    callRuntime(rewriter, op, "tflrt_log_scalar",
                {textPointer(rewriter, op, op.getName()),
                 scalarOf(rewriter, loc, adaptor.getValue()),
                 scalarOf(rewriter, loc, adaptor.getStep()),
                 textPointer(rewriter, op, locationText(loc))});
    rewriter.eraseOp(op);
    return success();
  }
};

/// tape_enter, tape_exit, tape_rewind: libtflrt calls (with the tape's
/// number and the position).
template <typename OpTy> struct TapeCallToRuntime : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> args;
    StringRef name = "tflrt_tape_enter";
    if constexpr (std::is_same_v<OpTy, TapeExitOp>)
      name = "tflrt_tape_exit";
    if constexpr (std::is_same_v<OpTy, TapeRewindOp>) {
      name = op.getRelease() ? "tflrt_tape_release" : "tflrt_tape_rewind";
      args = {
          arith::ConstantOp::create(rewriter, op.getLoc(),
                                    rewriter.getI64IntegerAttr(op.getTape())),
          adaptor.getPosition()};
    }
    callRuntime(rewriter, op, name, args);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tape_size: a libtflrt call returning the tape's cursor.
struct TapeSizeToRuntime : OpConversionPattern<TapeSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TapeSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i64 = rewriter.getI64Type();
    func::FuncOp fn = getOrInsertRuntimeFunction(
        rewriter, op->getParentOfType<ModuleOp>(), "tflrt_tape_size",
        rewriter.getFunctionType({i64}, {i64}));
    Value tape = arith::ConstantOp::create(
        rewriter, op.getLoc(), rewriter.getI64IntegerAttr(op.getTape()));
    rewriter.replaceOpWithNewOp<func::CallOp>(op, fn, tape);
    return success();
  }
};

/// now: a libtflrt call reading the clock.
struct NowToRuntime : OpConversionPattern<NowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceByRuntimeScalars(rewriter, op, {"tflrt_now"}, rewriter.getF64Type());
    return success();
  }
};

/// rank, world_size: libtflrt's answers (the run's, fixed at its start).
template <typename OpTy> struct WorldToRuntime : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceByRuntimeScalars(
        rewriter, op,
        {std::is_same_v<OpTy, RankOp> ? "tflrt_rank" : "tflrt_world_size"},
        rewriter.getI64Type());
    return success();
  }
};

} // namespace

void populateTflRuntimeOpsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<AssertToRuntime, CheckNumericsToRuntime, FlagToRuntime,
               LogScalarToRuntime, NowToRuntime, SeedToRuntime,
               RandomStateToRuntime, SetRandomStateToRuntime,
               TapeCallToRuntime<TapeEnterOp>, TapeCallToRuntime<TapeExitOp>,
               TapeSizeToRuntime, TapeCallToRuntime<TapeRewindOp>,
               WorldToRuntime<RankOp>, WorldToRuntime<WorldSizeOp>>(
      patterns.getContext());
}

} // namespace mlir::tfl
