//===- ConvBufferization.cpp - Convolution and pooling on buffers ---------===//
//
// tfl.conv2d, tfl.max_pool2d and tfl.avg_pool2d stay tfl ops through
// tfl-to-linalg and become, during One-Shot Bufferize, a fresh output
// buffer and one oneDNN-backed libtflrt call reading the inputs' buffers
// (`tflrt_conv2d_f32`, `tflrt_max_pool2d_f32`, `tflrt_avg_pool2d_f32`): the
// same functions the eager kernels call. tfl.attention and its adjoint
// become `tflrt_attention_f32` and `tflrt_attention_backward_f32` calls.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/Codegen/RuntimeCallModel.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

namespace {

template <typename OpTy>
struct WindowOpBufferization
    : RuntimeCallModel<WindowOpBufferization<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto window = cast<OpTy>(op);
    Location loc = op->getLoc();
    FailureOr<SmallVector<Value>> inputs =
        getBuffers(rewriter, op->getOperands(), options, state);
    if (failed(inputs))
      return failure();
    SmallVector<Value> args = *inputs;
    rewriter.setInsertionPoint(op);
    FailureOr<Value> out =
        allocateBuffer(rewriter, loc, window.getType(), options, *inputs);
    if (failed(out))
      return failure();
    args.push_back(*out);
    for (Value &arg : args)
      arg = castToUnranked(rewriter, loc, arg);
    SmallVector<int64_t> ints;
    if constexpr (std::is_same_v<OpTy, MaxPool2DOp> ||
                  std::is_same_v<OpTy, AvgPool2DOp> ||
                  std::is_same_v<OpTy, MaxPool2DBackwardOp> ||
                  std::is_same_v<OpTy, AvgPool2DBackwardOp> ||
                  std::is_same_v<OpTy, MaxPool2DGatherOp>)
      llvm::append_range(ints, window.getSize());
    llvm::append_range(ints, window.getStrides());
    llvm::append_range(ints, window.getPadding());
    for (int64_t v : ints)
      args.push_back(arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getI64IntegerAttr(v)));
    callRuntime(rewriter, op,
                ("tflrt_" + op->getName().stripDialect() + "_f32").str(), args);
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

/// tfl.attention and tfl.attention_backward: fresh buffers for the
/// results, filled by one call (`tflrt_attention_f32`,
/// `tflrt_attention_backward_f32`) that reads the operands' buffers in
/// place, strided views included.
template <typename OpTy>
struct AttentionBufferization
    : RuntimeCallModel<AttentionBufferization<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto attention = cast<OpTy>(op);
    Location loc = op->getLoc();
    FailureOr<SmallVector<Value>> inputs =
        getBuffers(rewriter, op->getOperands(), options, state);
    if (failed(inputs))
      return failure();
    SmallVector<Value> args = *inputs, outs;
    rewriter.setInsertionPoint(op);
    for (Type type : op->getResultTypes()) {
      FailureOr<Value> out =
          allocateBuffer(rewriter, loc, type, options, *inputs);
      if (failed(out))
        return failure();
      outs.push_back(*out);
    }
    llvm::append_range(args, outs);
    for (Value &arg : args)
      arg = castToUnranked(rewriter, loc, arg);
    args.push_back(arith::ConstantOp::create(
        rewriter, loc, rewriter.getI64IntegerAttr(attention.getCausal())));
    args.push_back(
        arith::ConstantOp::create(rewriter, loc, attention.getScaleAttr()));
    callRuntime(rewriter, op,
                ("tflrt_" + op->getName().stripDialect() + "_f32").str(), args);
    bufferization::replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};

} // namespace

void attachConvBufferizationModels(MLIRContext *ctx) {
  AttentionOp::attachInterface<AttentionBufferization<AttentionOp>>(*ctx);
  AttentionBackwardOp::attachInterface<
      AttentionBufferization<AttentionBackwardOp>>(*ctx);
  Conv2DOp::attachInterface<WindowOpBufferization<Conv2DOp>>(*ctx);
  MaxPool2DBackwardOp::attachInterface<
      WindowOpBufferization<MaxPool2DBackwardOp>>(*ctx);
  AvgPool2DBackwardOp::attachInterface<
      WindowOpBufferization<AvgPool2DBackwardOp>>(*ctx);
  MaxPool2DGatherOp::attachInterface<WindowOpBufferization<MaxPool2DGatherOp>>(
      *ctx);
  Conv2DBackwardInputOp::attachInterface<
      WindowOpBufferization<Conv2DBackwardInputOp>>(*ctx);
  Conv2DBackwardFilterOp::attachInterface<
      WindowOpBufferization<Conv2DBackwardFilterOp>>(*ctx);
  MaxPool2DOp::attachInterface<WindowOpBufferization<MaxPool2DOp>>(*ctx);
  AvgPool2DOp::attachInterface<WindowOpBufferization<AvgPool2DOp>>(*ctx);
}

} // namespace mlir::tfl
