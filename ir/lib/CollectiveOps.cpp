//===- CollectiveOps.cpp - Collectives across processes -------------------===//
//
// The collective ops (Ops/Collectives.td): their
// result types (each result has its input's type), verifiers, and reverse
// rules. The rules follow from each rank's result depending on every
// rank's input, so a pullback on one rank needs the others' cotangents:
//   all_reduce(op)  -> all_reduce(op) of the cotangents (for sum, d(sum of
//                      every rank's results)/dx_s = sum of the cotangents;
//                      for mean the same divided by the world size);
//   broadcast(root) -> reduce_to_root(root): only the root's input reached
//                      the results, each rank's;
//   reduce_to_root  -> broadcast, from the same root;
//   all_gather      -> this rank's row of an all_reduce (sum) of the
//                      cotangent: rank r's input is row r of every rank's
//                      result.
// Differentiating a program thus differentiates the sum over ranks of
// what each rank returns (as JAX's psum transposes to psum).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"

namespace mlir::tfl {

namespace {

bool isFloatTensor(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

/// Gives the float operands whose results have cotangents the results of
/// `collective` (made on those cotangents); the others get none.
void pullBackThrough(
    ValueRange inputs, ValueRange dResults, SmallVectorImpl<Value> &dOperands,
    function_ref<Operation *(ValueRange cotangents)> collective) {
  SmallVector<Value> cotangents;
  SmallVector<size_t> positions;
  for (auto [i, input] : llvm::enumerate(inputs))
    if (dResults[i] && isFloatTensor(input)) {
      cotangents.push_back(dResults[i]);
      positions.push_back(i);
    }
  dOperands.assign(inputs.size(), nullptr);
  if (cotangents.empty())
    return;
  Operation *op = collective(cotangents);
  for (auto [i, position] : llvm::enumerate(positions))
    dOperands[position] = op->getResult(i);
}

/// Results of the inputs' types.
LogicalResult sameTypes(ValueRange operands,
                        SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}

LogicalResult verifyRoot(Operation *op, int64_t root) {
  if (root < 0)
    return op->emitOpError("root must be a rank (0 or more), not ") << root;
  return success();
}

} // namespace

// The results have the inputs' types.
#define TFL_RESULTS_OF_INPUT_TYPES(OP)                                         \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location>, ValueRange operands,             \
      DictionaryAttr, OpaqueProperties, RegionRange,                           \
      SmallVectorImpl<Type> &inferredReturnTypes) {                            \
    return sameTypes(operands, inferredReturnTypes);                           \
  }
TFL_RESULTS_OF_INPUT_TYPES(AllReduceOp)
TFL_RESULTS_OF_INPUT_TYPES(BroadcastOp)
TFL_RESULTS_OF_INPUT_TYPES(ReduceToRootOp)
#undef TFL_RESULTS_OF_INPUT_TYPES

/// all_reduce's mean needs float tensors.
static LogicalResult verifyReduction(Operation *op, CollectiveReduction kind,
                                     ValueRange inputs) {
  if (kind != CollectiveReduction::mean)
    return success();
  for (Value input : inputs)
    if (!isFloatTensor(input))
      return op->emitOpError("mean needs float tensors, got ")
             << input.getType();
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyReduction(*this, getOp(), getInputs());
}

LogicalResult BroadcastOp::verify() { return verifyRoot(*this, getRoot()); }

LogicalResult ReduceToRootOp::verify() { return verifyRoot(*this, getRoot()); }

LogicalResult AllGatherOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getElementType() != out.getElementType() ||
      out.getRank() != in.getRank() + 1 ||
      out.getShape().drop_front() != in.getShape() ||
      ShapedType::isDynamic(out.getDimSize(0)) || out.getDimSize(0) < 1)
    return emitOpError("result must stack the input's type on a leading "
                       "axis of the world's size, got ")
           << out << " for " << in;
  return success();
}

LogicalResult AllReduceStartOp::verify() {
  if (getInputs().empty())
    return emitOpError("starts an all_reduce of at least one tensor");
  return verifyReduction(*this, getOp(), getInputs());
}

LogicalResult AllReduceWaitOp::verify() {
  auto start = getRequest().getDefiningOp<AllReduceStartOp>();
  if (!start)
    return success(); // a request passed in: checked where it started
  if (start.getInputs().getTypes() != getResults().getTypes())
    return emitOpError("result types differ from the inputs of the "
                       "all_reduce_start that made its request");
  return success();
}

LogicalResult AllReduceOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  pullBackThrough(getInputs(), dResults, dOperands, [&](ValueRange d) {
    return AllReduceOp::create(b, getLoc(), getOp(), d);
  });
  return success();
}

LogicalResult BroadcastOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  pullBackThrough(getInputs(), dResults, dOperands, [&](ValueRange d) {
    return ReduceToRootOp::create(b, getLoc(), d, getRoot());
  });
  return success();
}

LogicalResult AllGatherOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  auto in = cast<RankedTensorType>(getInput().getType());
  if (!dResults[0] || !isa<FloatType>(in.getElementType())) {
    dOperands.push_back(nullptr);
    return success();
  }
  Location loc = getLoc();
  Value sum = AllReduceOp::create(b, loc, CollectiveReduction::sum,
                                  ValueRange{dResults[0]})
                  .getResult(0);
  Value rank =
      RankOp::create(b, loc, RankedTensorType::get({}, b.getI64Type()));
  auto out = cast<RankedTensorType>(getResult().getType());
  SmallVector<int64_t> starts(out.getRank(), 0), strides(out.getRank(), 1);
  starts[0] = ShapedType::kDynamic;
  SmallVector<int64_t> rowShape(out.getShape());
  rowShape[0] = 1;
  Value row = SliceOp::create(b, loc, out.clone(rowShape), sum,
                              ValueRange{rank}, b.getDenseI64ArrayAttr(starts),
                              b.getDenseI64ArrayAttr(strides));
  dOperands.push_back(ReshapeOp::create(b, loc, in, row));
  return success();
}

LogicalResult ReduceToRootOp::reverse(OpBuilder &b, ValueRange dResults,
                                      SmallVectorImpl<Value> &dOperands) {
  pullBackThrough(getInputs(), dResults, dOperands, [&](ValueRange d) {
    return BroadcastOp::create(b, getLoc(), d, getRoot());
  });
  return success();
}

} // namespace mlir::tfl
