//===- BatchSize.cpp - The run-time size of a module's dynamic dims -------===//
//
// A dynamic dim in TFL is a batch size given when an exported function is
// called (`f32[?, 784]`), and Sema keeps every dynamic dim of a module the
// same run-time size: the one batch size. Lowerings read it from an
// argument of the function they build into, or else from an operand with a
// dynamic dim (a broadcast of a scalar to [?, 10] in a gradient has no
// operand that carries it, and a function may have no batch argument).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tfl {

/// The size of `v`'s first dynamic dim, or null when it has none.
static Value dynamicDimOf(OpBuilder &b, Location loc, Value v) {
  auto type = dyn_cast<ShapedType>(v.getType());
  if (!type || !type.hasRank())
    return {};
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    if (isa<MemRefType>(type))
      return memref::DimOp::create(b, loc, v, d);
    return tensor::DimOp::create(b, loc, v, d);
  }
  return {};
}

Value batchSize(OpBuilder &b, Location loc, ValueRange values) {
  // An argument's first: a dim of an operand made by another op would be
  // one more use of it, which keeps linalg from fusing the two ops.
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto fn = isa<FunctionOpInterface>(parent)
                ? cast<FunctionOpInterface>(parent)
                : parent->getParentOfType<FunctionOpInterface>();
  if (fn && !fn.isExternal()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&fn.getFunctionBody().front());
    for (Value arg : fn.getArguments())
      if (Value size = dynamicDimOf(b, loc, arg))
        return size;
  }
  for (Value v : values)
    if (Value size = dynamicDimOf(b, loc, v))
      return size;
  return {};
}

SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, ShapedType type,
                                ValueRange values) {
  SmallVector<Value> sizes;
  if (type.hasStaticShape())
    return sizes;
  Value batch = batchSize(b, loc, values);
  if (!batch)
    return sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(batch);
  return sizes;
}

FailureOr<Value> emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                             ValueRange values) {
  SmallVector<Value> sizes = dynamicSizes(b, loc, type, values);
  if (sizes.size() != type.getNumDynamicDims())
    return failure();
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 sizes)
      .getResult();
}

} // namespace mlir::tfl
