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
#include "tfl/IR/Attention.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

namespace {

/// Bufferizes `op` as one call `tflrt_<op>_<type>(operands..., results...,
/// scalars...)`: the operands' buffers as they are (strided views
/// included) and a fresh buffer per result, each through `view` when
/// given (a view of the buffer, such as a transpose), as unranked
/// memrefs, then the i64 or f64 constants `scalars` makes.
LogicalResult
bufferizeAsCall(Operation *op, RewriterBase &rewriter,
                const bufferization::BufferizationOptions &options,
                bufferization::BufferizationState &state,
                function_ref<void(SmallVectorImpl<Value> &)> scalars,
                function_ref<Value(Value)> view = nullptr) {
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
    arg = castToUnranked(rewriter, loc, view ? view(arg) : arg);
  scalars(args);
  // f32 (the CPU widens 16-bit operands first); the CUDA target keeps a
  // 16-bit convolution (cuDNN's tensor cores): _bf16, _f16.
  Type elem = getElementTypeOrSelf(op->getOperand(0).getType());
  StringRef suffix = elem.isBF16() ? "_bf16" : elem.isF16() ? "_f16" : "_f32";
  callRuntime(rewriter, op,
              ("tflrt_" + op->getName().stripDialect() + suffix).str(), args);
  bufferization::replaceOpWithBufferizedValues(rewriter, op, outs);
  return success();
}

template <typename OpTy>
struct WindowOpBufferization
    : RuntimeCallModel<WindowOpBufferization<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto window = cast<OpTy>(op);
    return bufferizeAsCall(op, rewriter, options, state, [&](auto &args) {
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
        args.push_back(arith::ConstantOp::create(
            rewriter, op->getLoc(), rewriter.getI64IntegerAttr(v)));
    });
  }
};

/// `buffer` [..., T, H, E] as [..., H, T, E]: a memref.transpose view,
/// its strides swapped (no copy).
Value swapSeqAndHeads(RewriterBase &rewriter, Location loc, Value buffer) {
  int64_t rank = cast<MemRefType>(buffer.getType()).getRank();
  auto map = AffineMapAttr::get(
      AffineMap::getPermutationMap(seqHeadsSwap(rank), rewriter.getContext()));
  return memref::TransposeOp::create(rewriter, loc, buffer, map);
}

/// tfl.attention and tfl.attention_backward: causal as an i64, the scale
/// as an f64. A seq_major op passes each buffer as a transposed view, so
/// the kernels read and write [..., T, H, E] in place.
template <typename OpTy>
struct AttentionBufferization
    : RuntimeCallModel<AttentionBufferization<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto attention = cast<OpTy>(op);
    Location loc = op->getLoc();
    auto swap = [&](Value buffer) {
      return swapSeqAndHeads(rewriter, loc, buffer);
    };
    return bufferizeAsCall(
        op, rewriter, options, state,
        [&](auto &args) {
          args.push_back(arith::ConstantOp::create(
              rewriter, loc,
              rewriter.getI64IntegerAttr(attention.getCausal())));
          args.push_back(arith::ConstantOp::create(rewriter, loc,
                                                   attention.getScaleAttr()));
        },
        attention.getSeqMajor() ? function_ref<Value(Value)>(swap) : nullptr);
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
