//===- TflDialect.cpp - The tfl dialect -----------------------------------===//

#include "tfl/IR/TflDialect.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Transforms/InliningUtils.h"

#include "tfl/IR/TflDialect.cpp.inc"

using namespace mlir;
using namespace mlir::tfl;

namespace {
/// Every tfl op has value semantics and no region, so any can be inlined.
struct TflInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TflDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tfl/IR/TflOps.cpp.inc"
      >();
  addInterfaces<TflInlinerInterface>();
}

Operation *TflDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<DenseElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
