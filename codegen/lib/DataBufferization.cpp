//===- DataBufferization.cpp - File ops on buffers ------------------------===//
//
// The file ops stay tfl ops through tfl-to-linalg and become libtflrt calls
// during One-Shot Bufferize, where the analysis learns what they read and
// allocate (as for tfl.print):
//   tfl.load_data  a fresh buffer, filled by tflrt_load_<format>_<dtype>;
//   tfl.load       a fresh buffer per tensor, tflrt_checkpoint_read_<dtype>;
//   tfl.save_npy   tflrt_save_npy_<dtype> on the input's buffer;
//   tfl.save       tflrt_checkpoint_add_<dtype> per input, then
//                  tflrt_checkpoint_write.
// Each call gets the op's location text, for errors naming the file.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

namespace {

/// Calls `@name(args...)`, declaring it from the arguments' types.
void callRuntime(OpBuilder &b, Operation *op, StringRef name, ValueRange args) {
  SmallVector<Type> types(args.getTypes());
  func::FuncOp fn = getOrInsertRuntimeFunction(
      b, op->getParentOfType<ModuleOp>(), name, b.getFunctionType(types, {}));
  func::CallOp::create(b, op->getLoc(), fn, args);
}

Value text(OpBuilder &b, Operation *op, StringRef value) {
  return getOrCreateStringPointer(b, op->getLoc(),
                                  op->getParentOfType<ModuleOp>(), value);
}

std::string suffixed(StringRef prefix, Value memref) {
  Type elem = cast<BaseMemRefType>(memref.getType()).getElementType();
  return (prefix + runtimeTypeSuffix(elem)).str();
}

/// A fresh buffer of `type`.
FailureOr<Value> allocate(RewriterBase &rewriter, Location loc, Type type,
                          const bufferization::BufferizationOptions &options) {
  auto tensor = cast<RankedTensorType>(type);
  return options.createAlloc(
      rewriter, loc,
      MemRefType::get(tensor.getShape(), tensor.getElementType()),
      ValueRange{});
}

/// Shared by the ops: which operands are read, and that results are fresh.
template <typename Concrete, typename OpTy>
struct FileOpModel
    : bufferization::BufferizableOpInterface::ExternalModel<Concrete, OpTy> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const bufferization::AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return false;
  }
  bufferization::AliasingValueList
  getAliasingValues(Operation *, OpOperand &,
                    const bufferization::AnalysisState &) const {
    return {};
  }
};

struct LoadDataModel : FileOpModel<LoadDataModel, LoadDataOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    auto load = cast<LoadDataOp>(op);
    rewriter.setInsertionPoint(op);
    FailureOr<Value> buffer =
        allocate(rewriter, op->getLoc(), load.getType(), options);
    if (failed(buffer))
      return failure();
    Value unranked = castToUnranked(rewriter, op->getLoc(), *buffer);
    callRuntime(
        rewriter, op,
        suffixed(("tflrt_load_" + load.getFormat() + "_").str(), *buffer),
        {text(rewriter, op, load.getPath()), unranked,
         text(rewriter, op, locationText(op->getLoc()))});
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

struct LoadModel : FileOpModel<LoadModel, LoadOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    auto load = cast<LoadOp>(op);
    rewriter.setInsertionPoint(op);
    Value path = text(rewriter, op, load.getPath());
    Value where = text(rewriter, op, locationText(op->getLoc()));
    SmallVector<Value> buffers;
    for (auto [type, name] :
         llvm::zip(load.getResultTypes(), load.getNames())) {
      FailureOr<Value> buffer = allocate(rewriter, op->getLoc(), type, options);
      if (failed(buffer))
        return failure();
      Value unranked = castToUnranked(rewriter, op->getLoc(), *buffer);
      callRuntime(rewriter, op, suffixed("tflrt_checkpoint_read_", *buffer),
                  {path, text(rewriter, op, cast<StringAttr>(name).getValue()),
                   unranked, where});
      buffers.push_back(*buffer);
    }
    bufferization::replaceOpWithBufferizedValues(rewriter, op, buffers);
    return success();
  }
};

struct SaveNpyModel : FileOpModel<SaveNpyModel, SaveNpyOp> {
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
                {text(rewriter, op, save.getPath()), unranked,
                 text(rewriter, op, locationText(op->getLoc()))});
    rewriter.eraseOp(op);
    return success();
  }
};

struct SaveModel : FileOpModel<SaveModel, SaveOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto save = cast<SaveOp>(op);
    SmallVector<Value> buffers;
    for (Value input : save.getInputs()) {
      FailureOr<Value> buffer =
          bufferization::getBuffer(rewriter, input, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    rewriter.setInsertionPoint(op);
    for (auto [buffer, name] : llvm::zip(buffers, save.getNames())) {
      Value unranked = castToUnranked(rewriter, op->getLoc(), buffer);
      callRuntime(
          rewriter, op, suffixed("tflrt_checkpoint_add_", buffer),
          {text(rewriter, op, cast<StringAttr>(name).getValue()), unranked});
    }
    callRuntime(rewriter, op, "tflrt_checkpoint_write",
                {text(rewriter, op, save.getPath()),
                 text(rewriter, op, locationText(op->getLoc()))});
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void attachDataBufferizationModels(MLIRContext *ctx) {
  LoadDataOp::attachInterface<LoadDataModel>(*ctx);
  LoadOp::attachInterface<LoadModel>(*ctx);
  SaveNpyOp::attachInterface<SaveNpyModel>(*ctx);
  SaveOp::attachInterface<SaveModel>(*ctx);
}

} // namespace mlir::tfl
