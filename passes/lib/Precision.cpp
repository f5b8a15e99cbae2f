//===- Precision.cpp - Mixed precision and 16-bit floats ------------------===//
//
// tfl-autocast rewrites f32 matmuls and convolutions to a low precision, as
// PyTorch's autocast; tfl-widen-half runs the ops that have no 16-bit
// kernels on f32 copies of their 16-bit operands.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLAUTOCAST
#define GEN_PASS_DEF_TFLWIDENHALF
#include "tfl/Passes/Passes.h.inc"

namespace {

/// `value` cast to element type `to` (itself when it has that type).
Value castTo(OpBuilder &b, Location loc, Value value, Type to) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == to)
    return value;
  return CastOp::create(b, loc, type.clone(to), value);
}

/// Clones `op` with each operand of element type `from` cast to `to` and
/// each result of type `from` computed as `to` and cast back; replaces
/// `op` with the clone's (cast) results.
void retype(Operation *op, Type from, Type to) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  IRMapping mapping;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (type && type.getElementType() == from)
      mapping.map(operand, castTo(b, loc, operand, to));
  }
  Operation *clone = b.clone(*op, mapping);
  b.setInsertionPointAfter(clone);
  for (auto [old, now] : llvm::zip(op->getResults(), clone->getResults())) {
    auto type = dyn_cast<RankedTensorType>(old.getType());
    if (!type || type.getElementType() != from) {
      old.replaceAllUsesWith(now);
      continue;
    }
    now.setType(type.clone(to));
    old.replaceAllUsesWith(castTo(b, loc, now, from));
  }
  op->erase();
}

bool hasElementType(TypeRange types, function_ref<bool(Type)> pred) {
  return llvm::any_of(types, [&](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && pred(tensor.getElementType());
  });
}

struct Autocast : impl::TflAutocastBase<Autocast> {
  using TflAutocastBase::TflAutocastBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string wanted = precision;
    if (wanted.empty())
      if (auto attr = module->getAttrOfType<StringAttr>("tfl.precision"))
        wanted = attr.getValue().str();
    if (wanted.empty() || wanted == "f32")
      return;
    Builder b(module.getContext());
    Type low;
    if (wanted == "bf16")
      low = b.getBF16Type();
    else if (wanted == "f16")
      low = b.getF16Type();
    else {
      module.emitError("unknown precision '")
          << wanted << "' (bf16, f16 or f32)";
      return signalPassFailure();
    }
    Type f32 = b.getF32Type();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<MatmulOp, Conv2DOp, Conv2DBackwardInputOp,
              Conv2DBackwardFilterOp>(op) &&
          llvm::all_of(op->getOperandTypes(), [&](Type t) {
            return cast<RankedTensorType>(t).getElementType() == f32;
          }))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      retype(op, f32, low);
  }
};

struct WidenHalf : impl::TflWidenHalfBase<WidenHalf> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    // One type at a time, so an op that mixed bf16 and f16 would be
    // widened twice over (none does: only casts change a float's type).
    for (Type half : {Type(b.getBF16Type()), Type(b.getF16Type())}) {
      auto isHalf = [&](Type t) { return t == half; };
      SmallVector<Operation *> ops;
      module.walk([&](Operation *op) {
        if (isa<TflDialect>(op->getDialect()) && !runsOnHalfFloats(op) &&
            (hasElementType(op->getOperandTypes(), isHalf) ||
             hasElementType(op->getResultTypes(), isHalf)))
          ops.push_back(op);
      });
      for (Operation *op : ops)
        retype(op, half, b.getF32Type());
    }
  }
};

} // namespace
} // namespace mlir::tfl
