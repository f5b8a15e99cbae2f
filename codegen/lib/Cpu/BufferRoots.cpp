//===- BufferRoots.cpp - The buffers under chains of views ----------------===//

#include "tfl/Codegen/BufferRoots.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tfl {

Value rootBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

bool distinctBuffers(Value a, Value b) {
  if (a == b)
    return false;
  auto isAlloc = [](Value v) {
    return v.getDefiningOp<memref::AllocOp>() ||
           v.getDefiningOp<memref::AllocaOp>();
  };
  auto isEntryArgOrGlobal = [](Value v) {
    if (v.getDefiningOp<memref::GetGlobalOp>())
      return true;
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  };
  // A buffer allocated inside the block of an argument (a loop's carried
  // buffer, in its body) is a new one: the argument's is alive there.
  auto allocatedUnder = [&](Value alloc, Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return isAlloc(alloc) && arg &&
           arg.getOwner()->findAncestorOpInBlock(*alloc.getDefiningOp());
  };
  return (isAlloc(a) && (isAlloc(b) || isEntryArgOrGlobal(b))) ||
         (isAlloc(b) && isEntryArgOrGlobal(a)) || allocatedUnder(a, b) ||
         allocatedUnder(b, a);
}

} // namespace mlir::tfl
