//===- CollectiveBufferization.cpp - Collectives on buffers ---------------===//
//
// The collective ops stay tfl ops through tfl-to-linalg and become calls of
// libtflrt's engine (CApi.h, tflrt/Collectives.h) during One-Shot
// Bufferize:
//   all_reduce, broadcast, reduce_to_root of one tensor
//       in place: tflrt_collective_run_<dtype>(kind, op, root, buffer,
//       buffer) on the input's buffer (which One-Shot Bufferize copies
//       first where the input is read again later), as MPI_IN_PLACE: no
//       buffer to allocate, nothing to copy;
//   ... of several tensors (a tree), and all_reduce_start
//       %req = tflrt_collective_begin(kind, op, root), then
//       tflrt_collective_add_<dtype>(%req, input) for each input (a copy:
//       the input's buffer may be freed at once) and
//       tflrt_collective_start(%req);
//   all_gather
//       a fresh buffer of the world's rows, filled by
//       tflrt_collective_run_<dtype>(3, 0, 0, input, result);
//   ... and all_reduce_wait
//       tflrt_collective_wait(%req), then for each result a fresh buffer
//       filled by tflrt_collective_take_<dtype>(%req, position, result).
// The runtime reduces each dtype's tensors of a request in one message.
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

/// tflrt::dist::Kind and Reduction (the C ABI's numbering).
enum class Kind : int64_t {
  AllReduce = 0,
  Broadcast = 1,
  ReduceToRoot = 2,
  AllGather = 3
};

struct Collective {
  Kind kind;
  int64_t op = 0;
  int64_t root = 0;
};

Collective describe(Operation *op) {
  if (auto r = dyn_cast<AllReduceOp>(op))
    return {Kind::AllReduce, static_cast<int64_t>(r.getOp())};
  if (auto r = dyn_cast<AllReduceStartOp>(op))
    return {Kind::AllReduce, static_cast<int64_t>(r.getOp())};
  if (auto b = dyn_cast<BroadcastOp>(op))
    return {Kind::Broadcast, 0, static_cast<int64_t>(b.getRoot())};
  if (isa<AllGatherOp>(op))
    return {Kind::AllGather};
  return {Kind::ReduceToRoot, 0,
          static_cast<int64_t>(cast<ReduceToRootOp>(op).getRoot())};
}

Value i64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}

std::string suffixed(StringRef prefix, Value memref) {
  Type elem = cast<BaseMemRefType>(memref.getType()).getElementType();
  return (prefix + runtimeTypeSuffix(elem)).str();
}

/// One call does the whole collective of `op` from the buffer `input` to
/// `output` (the same buffer: in place).
void callRun(RewriterBase &rewriter, Operation *op, Value input, Value output) {
  Location loc = op->getLoc();
  Collective c = describe(op);
  callRuntime(rewriter, op, suffixed("tflrt_collective_run_", output),
              {i64(rewriter, loc, int64_t(c.kind)), i64(rewriter, loc, c.op),
               i64(rewriter, loc, c.root), castToUnranked(rewriter, loc, input),
               castToUnranked(rewriter, loc, output)});
}

/// begin, an add per input buffer, start: the request.
Value startRequest(RewriterBase &rewriter, Operation *op, ValueRange inputs) {
  Location loc = op->getLoc();
  Collective c = describe(op);
  auto module = op->getParentOfType<ModuleOp>();
  Type i64Type = rewriter.getI64Type();
  func::FuncOp begin = getOrInsertRuntimeFunction(
      rewriter, module, "tflrt_collective_begin",
      rewriter.getFunctionType({i64Type, i64Type, i64Type}, {i64Type}));
  Value request =
      func::CallOp::create(rewriter, loc, begin,
                           ValueRange{i64(rewriter, loc, int64_t(c.kind)),
                                      i64(rewriter, loc, c.op),
                                      i64(rewriter, loc, c.root)})
          .getResult(0);
  for (Value input : inputs)
    callRuntime(rewriter, op, suffixed("tflrt_collective_add_", input),
                {request, castToUnranked(rewriter, loc, input)});
  callRuntime(rewriter, op, "tflrt_collective_start", {request});
  return request;
}

/// wait, then a fresh buffer per result, filled by take.
FailureOr<SmallVector<Value>>
finishRequest(RewriterBase &rewriter, Operation *op, Value request,
              const bufferization::BufferizationOptions &options) {
  Location loc = op->getLoc();
  callRuntime(rewriter, op, "tflrt_collective_wait", {request});
  SmallVector<Value> results;
  for (auto [i, type] : llvm::enumerate(op->getResultTypes())) {
    FailureOr<Value> buffer = allocateBuffer(rewriter, loc, type, options);
    if (failed(buffer))
      return failure();
    callRuntime(rewriter, op, suffixed("tflrt_collective_take_", *buffer),
                {request, i64(rewriter, loc, static_cast<int64_t>(i)),
                 castToUnranked(rewriter, loc, *buffer)});
    results.push_back(*buffer);
  }
  return results;
}

/// all_reduce, broadcast and reduce_to_root: in place on a lone tensor,
/// fresh buffers for a tree's.
template <typename OpTy>
struct CollectiveModel : RuntimeCallModel<CollectiveModel<OpTy>, OpTy> {
  static bool inPlace(Operation *op) { return op->getNumOperands() == 1; }
  bool bufferizesToAllocation(Operation *op, Value) const {
    return !inPlace(op);
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &,
                               const bufferization::AnalysisState &) const {
    return inPlace(op);
  }
  bufferization::AliasingValueList
  getAliasingValues(Operation *op, OpOperand &,
                    const bufferization::AnalysisState &) const {
    if (!inPlace(op))
      return {};
    return {{op->getResult(0), bufferization::BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    FailureOr<SmallVector<Value>> inputs =
        getBuffers(rewriter, op->getOperands(), options, state);
    if (failed(inputs))
      return failure();
    rewriter.setInsertionPoint(op);
    if (inPlace(op)) {
      callRun(rewriter, op, inputs->front(), inputs->front());
      bufferization::replaceOpWithBufferizedValues(rewriter, op,
                                                   inputs->front());
      return success();
    }
    Value request = startRequest(rewriter, op, *inputs);
    FailureOr<SmallVector<Value>> results =
        finishRequest(rewriter, op, request, options);
    if (failed(results))
      return failure();
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *results);
    return success();
  }
};

struct AllGatherModel : RuntimeCallModel<AllGatherModel, AllGatherOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto gather = cast<AllGatherOp>(op);
    FailureOr<Value> input =
        bufferization::getBuffer(rewriter, gather.getInput(), options, state);
    if (failed(input))
      return failure();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> out =
        allocateBuffer(rewriter, op->getLoc(), gather.getType(), options);
    if (failed(out))
      return failure();
    callRun(rewriter, op, *input, *out);
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

struct AllReduceStartModel
    : RuntimeCallModel<AllReduceStartModel, AllReduceStartOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    FailureOr<SmallVector<Value>> inputs =
        getBuffers(rewriter, op->getOperands(), options, state);
    if (failed(inputs))
      return failure();
    rewriter.setInsertionPoint(op);
    Value request = startRequest(rewriter, op, *inputs);
    rewriter.replaceOp(op, request);
    return success();
  }
};

struct AllReduceWaitModel
    : RuntimeCallModel<AllReduceWaitModel, AllReduceWaitOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &) const {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> results = finishRequest(
        rewriter, op, cast<AllReduceWaitOp>(op).getRequest(), options);
    if (failed(results))
      return failure();
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *results);
    return success();
  }
};

} // namespace

void attachCollectiveBufferizationModels(MLIRContext *ctx) {
  AllReduceOp::attachInterface<CollectiveModel<AllReduceOp>>(*ctx);
  BroadcastOp::attachInterface<CollectiveModel<BroadcastOp>>(*ctx);
  ReduceToRootOp::attachInterface<CollectiveModel<ReduceToRootOp>>(*ctx);
  AllGatherOp::attachInterface<AllGatherModel>(*ctx);
  AllReduceStartOp::attachInterface<AllReduceStartModel>(*ctx);
  AllReduceWaitOp::attachInterface<AllReduceWaitModel>(*ctx);
}

} // namespace mlir::tfl
