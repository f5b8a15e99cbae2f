//===- DataBufferization.cpp - File ops on buffers ------------------------===//
//
// The file ops stay tfl ops through tfl-to-linalg and become libtflrt calls
// during One-Shot Bufferize, where the analysis learns what they read and
// allocate (as for tfl.print):
//   tfl.load_data  a fresh buffer, filled by tflrt_load_<format>_<dtype>;
//   tfl.encode_text  a fresh buffer, filled by tflrt_encode_text_u8;
//   tfl.load       a fresh buffer per tensor, tflrt_checkpoint_read_<dtype>;
//   tfl.save_npy   tflrt_save_npy_<dtype> on the input's buffer;
//   tfl.save       tflrt_checkpoint_add_<dtype> per input, then
//                  tflrt_checkpoint_write.
//   tfl.scatter_add  a fresh buffer, filled by tflrt_scatter_add_<dtype>;
//   tfl.tape_push, tfl.tape_write, tfl.tape_add
//                  tflrt_tape_<op>_<dtype> on the input's buffer;
//   tfl.tape_read, tfl.tape_accumulated
//                  a fresh buffer, filled by tflrt_tape_<op>_<dtype>.
// Each file call gets the op's location text, for errors naming the file.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/Codegen/RuntimeCallModel.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

namespace {

std::string suffixed(StringRef prefix, Value memref) {
  Type elem = cast<BaseMemRefType>(memref.getType()).getElementType();
  return (prefix + runtimeTypeSuffix(elem)).str();
}

struct LoadDataModel : RuntimeCallModel<LoadDataModel, LoadDataOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    auto load = cast<LoadDataOp>(op);
    rewriter.setInsertionPoint(op);
    std::string function = ("tflrt_load_" + load.getFormat() + "_" +
                            runtimeTypeSuffix(load.getType().getElementType()))
                               .str();
    return bufferizeAsFilledBuffer(
        rewriter, op, options, function,
        {textPointer(rewriter, op, load.getPath())},
        {textPointer(rewriter, op, locationText(op->getLoc()))});
  }
};

struct EncodeTextModel : RuntimeCallModel<EncodeTextModel, EncodeTextOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    rewriter.setInsertionPoint(op);
    return bufferizeAsFilledBuffer(
        rewriter, op, options, "tflrt_encode_text_u8",
        {textPointer(rewriter, op, cast<EncodeTextOp>(op).getText())});
  }
};

struct LoadModel : RuntimeCallModel<LoadModel, LoadOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    auto load = cast<LoadOp>(op);
    rewriter.setInsertionPoint(op);
    Value path = textPointer(rewriter, op, load.getPath());
    Value where = textPointer(rewriter, op, locationText(op->getLoc()));
    SmallVector<Value> buffers;
    for (auto [type, name] :
         llvm::zip(load.getResultTypes(), load.getNames())) {
      FailureOr<Value> buffer =
          allocateBuffer(rewriter, op->getLoc(), type, options);
      if (failed(buffer))
        return failure();
      Value unranked = castToUnranked(rewriter, op->getLoc(), *buffer);
      callRuntime(rewriter, op, suffixed("tflrt_checkpoint_read_", *buffer),
                  {path,
                   textPointer(rewriter, op, cast<StringAttr>(name).getValue()),
                   unranked, where});
      buffers.push_back(*buffer);
    }
    bufferization::replaceOpWithBufferizedValues(rewriter, op, buffers);
    return success();
  }
};

struct SaveNpyModel : RuntimeCallModel<SaveNpyModel, SaveNpyOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto save = cast<SaveNpyOp>(op);
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, save.getInput(), options, state);
    if (failed(buffer))
      return failure();
    rewriter.setInsertionPoint(op);
    Value unranked = castToUnranked(rewriter, op->getLoc(), *buffer);
    callRuntime(rewriter, op, suffixed("tflrt_save_npy_", *buffer),
                {textPointer(rewriter, op, save.getPath()), unranked,
                 textPointer(rewriter, op, locationText(op->getLoc()))});
    rewriter.eraseOp(op);
    return success();
  }
};

struct SaveModel : RuntimeCallModel<SaveModel, SaveOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto save = cast<SaveOp>(op);
    FailureOr<SmallVector<Value>> buffers =
        getBuffers(rewriter, save.getInputs(), options, state);
    if (failed(buffers))
      return failure();
    rewriter.setInsertionPoint(op);
    for (auto [buffer, name] : llvm::zip(*buffers, save.getNames())) {
      Value unranked = castToUnranked(rewriter, op->getLoc(), buffer);
      callRuntime(rewriter, op, suffixed("tflrt_checkpoint_add_", buffer),
                  {textPointer(rewriter, op, cast<StringAttr>(name).getValue()),
                   unranked});
    }
    callRuntime(rewriter, op, "tflrt_checkpoint_write",
                {textPointer(rewriter, op, save.getPath()),
                 textPointer(rewriter, op, locationText(op->getLoc()))});
    rewriter.eraseOp(op);
    return success();
  }
};

struct ScatterAddModel : RuntimeCallModel<ScatterAddModel, ScatterAddOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto scatter = cast<ScatterAddOp>(op);
    FailureOr<SmallVector<Value>> inputs =
        getBuffers(rewriter, op->getOperands(), options, state);
    if (failed(inputs))
      return failure();
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    FailureOr<Value> out =
        allocateBuffer(rewriter, loc, scatter.getType(), options);
    if (failed(out))
      return failure();
    Value axis = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI64IntegerAttr(scatter.getAxis()));
    callRuntime(rewriter, op, suffixed("tflrt_scatter_add_", *out),
                {castToUnranked(rewriter, loc, (*inputs)[0]),
                 castToUnranked(rewriter, loc, (*inputs)[1]),
                 castToUnranked(rewriter, loc, *out), axis});
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

/// The tape number as an i64 constant before `op`.
Value tapeNumber(RewriterBase &rewriter, Operation *op, int64_t tape) {
  rewriter.setInsertionPoint(op);
  return arith::ConstantOp::create(rewriter, op->getLoc(),
                                   rewriter.getI64IntegerAttr(tape));
}

/// tape_push, tape_write, tape_add: `@<prefix><dtype>(tape, position,
/// input)` on the input's buffer (a push has no position).
template <typename Concrete, typename OpTy>
struct TapeStoreModel : RuntimeCallModel<Concrete, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto store = cast<OpTy>(op);
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, store.getInput(), options, state);
    if (failed(buffer))
      return failure();
    SmallVector<Value> args{tapeNumber(rewriter, op, store.getTape())};
    llvm::append_range(args, op->getOperands().drop_back());
    args.push_back(castToUnranked(rewriter, op->getLoc(), *buffer));
    callRuntime(rewriter, op, suffixed(Concrete::prefix, *buffer), args);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TapePushModel : TapeStoreModel<TapePushModel, TapePushOp> {
  static constexpr StringLiteral prefix = "tflrt_tape_push_";
};

struct TapeWriteModel : TapeStoreModel<TapeWriteModel, TapeWriteOp> {
  static constexpr StringLiteral prefix = "tflrt_tape_write_";
};

struct TapeAddModel : TapeStoreModel<TapeAddModel, TapeAddOp> {
  static constexpr StringLiteral prefix = "tflrt_tape_add_";
};

/// tape_read, tape_accumulated: a fresh buffer filled by
/// `@<prefix><dtype>(tape, position, buffer)`.
template <typename Concrete, typename OpTy>
struct TapeLoadModel : RuntimeCallModel<Concrete, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    auto load = cast<OpTy>(op);
    Type elem = load.getType().getElementType();
    Value tape = tapeNumber(rewriter, op, load.getTape());
    return bufferizeAsFilledBuffer(
        rewriter, op, options,
        (Concrete::prefix + runtimeTypeSuffix(elem)).str(),
        {tape, load.getPosition()});
  }
};

struct TapeReadModel : TapeLoadModel<TapeReadModel, TapeReadOp> {
  static constexpr StringLiteral prefix = "tflrt_tape_read_";
};

struct TapeAccumulatedModel
    : TapeLoadModel<TapeAccumulatedModel, TapeAccumulatedOp> {
  static constexpr StringLiteral prefix = "tflrt_tape_accumulated_";
};

} // namespace

void attachDataBufferizationModels(MLIRContext *ctx) {
  TapePushOp::attachInterface<TapePushModel>(*ctx);
  TapeWriteOp::attachInterface<TapeWriteModel>(*ctx);
  TapeAddOp::attachInterface<TapeAddModel>(*ctx);
  TapeReadOp::attachInterface<TapeReadModel>(*ctx);
  TapeAccumulatedOp::attachInterface<TapeAccumulatedModel>(*ctx);
  ScatterAddOp::attachInterface<ScatterAddModel>(*ctx);
  LoadDataOp::attachInterface<LoadDataModel>(*ctx);
  EncodeTextOp::attachInterface<EncodeTextModel>(*ctx);
  LoadOp::attachInterface<LoadModel>(*ctx);
  SaveNpyOp::attachInterface<SaveNpyModel>(*ctx);
  SaveOp::attachInterface<SaveModel>(*ctx);
}

} // namespace mlir::tfl
