//===- RandomBufferization.cpp - Random ops on buffers --------------------===//
//
// tfl.random_uniform, tfl.random_normal and tfl.shuffle_indices stay tfl
// ops through tfl-to-linalg (their effect on the generator's state keeps
// every pass from merging or moving them) and become, during One-Shot
// Bufferize, a fresh buffer filled by one libtflrt call:
// `tflrt_random_<kind>_<dtype>` or `tflrt_shuffle_indices`. The eager
// kernels call the same functions, so both modes draw identical numbers.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/Codegen/RuntimeCallModel.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

namespace {

/// The runtime function filling a buffer for `op`.
std::string fillFunction(Operation *op) {
  Type elem =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  if (isa<ShuffleIndicesOp>(op))
    return "tflrt_shuffle_indices";
  std::string kind = isa<RandomNormalOp>(op) ? "tflrt_random_normal_"
                                             : "tflrt_random_uniform_";
  return kind + runtimeTypeSuffix(elem).str();
}

template <typename OpTy>
struct RandomOpBufferization
    : RuntimeCallModel<RandomOpBufferization<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    return bufferizeAsFilledBuffer(rewriter, op, options, fillFunction(op));
  }
};

} // namespace

void attachRandomBufferizationModels(MLIRContext *ctx) {
  RandomUniformOp::attachInterface<RandomOpBufferization<RandomUniformOp>>(
      *ctx);
  RandomNormalOp::attachInterface<RandomOpBufferization<RandomNormalOp>>(*ctx);
  ShuffleIndicesOp::attachInterface<RandomOpBufferization<ShuffleIndicesOp>>(
      *ctx);
}

} // namespace mlir::tfl
