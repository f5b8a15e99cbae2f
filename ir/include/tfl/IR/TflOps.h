//===- TflOps.h - Ops of the tfl dialect ------------------------*- C++ -*-===//

#ifndef TFL_IR_TFLOPS_H
#define TFL_IR_TFLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflDialect.h"

#include "tfl/IR/TflOpsEnums.h.inc"

namespace mlir::tfl {
/// The random generator's state, which random ops read and advance.
struct RandomStateResource
    : public SideEffects::Resource::Base<RandomStateResource> {
  llvm::StringRef getName() final { return "tfl.random_state"; }
};
/// The autodiff tape, which tape_push and tape_pop read and write.
struct TapeResource : public SideEffects::Resource::Base<TapeResource> {
  llvm::StringRef getName() final { return "tfl.tape"; }
};
/// The processes of a run, on which collectives act.
struct CommunicatorResource
    : public SideEffects::Resource::Base<CommunicatorResource> {
  llvm::StringRef getName() final { return "tfl.communicator"; }
};

namespace OpTrait {
/// The ODS trait Tfl_RunsOnHalfFloats (TflOps.td): an op that works on
/// bf16/f16 values as they are; `tfl-widen-half` gives every other op f32
/// copies of them.
template <typename ConcreteType>
class RunsOnHalfFloats
    : public mlir::OpTrait::TraitBase<ConcreteType, RunsOnHalfFloats> {};
/// The ODS trait Tfl_Elementwise (TflInterfaces.td): elementwise with NumPy
/// broadcasting, batched by vmap's generic rule.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};
} // namespace OpTrait
} // namespace mlir::tfl

#include <optional>

#include "tfl/IR/TflInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tfl/IR/TflOps.h.inc"

namespace mlir::tfl {

/// NumPy's broadcast of two static-or-dynamic shapes (dynamic dims are
/// ShapedType::kDynamic); nullopt when two static dims disagree.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// The shape of `shape` reduced over `axes` (sorted, distinct, in range),
/// with size-1 dims in their place when `keepdims`.
llvm::SmallVector<int64_t> reducedShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> axes,
                                        bool keepdims);

/// True for the 16-bit floats, bf16 and f16.
bool isHalfFloat(Type elementType);

/// True for the ops that work on bf16/f16 values as they are: those with
/// the Tfl_RunsOnHalfFloats trait (TflOps.td). Every other op with 16-bit
/// float operands or results is rewritten by `tfl-widen-half` to run on f32
/// copies, its results rounded back.
bool runsOnHalfFloats(Operation *op);

/// The attribute naming the device ("cpu" or "cuda") an op runs on, and
/// with it every op it holds that names no device of its own; a function's
/// names the device of its body. Ops that none names run on the program's
/// target (tfl-place-devices).
inline constexpr llvm::StringLiteral kDeviceAttrName = "tfl.device";

/// The device `op` runs on by the attributes of it, its ancestors and its
/// function; `fallback` when none names one.
StringAttr deviceOf(Operation *op, StringAttr fallback);

/// The device value `v` lives on: where the op that made it ran (a
/// to_device's destination), or for a block argument, where its block's
/// op or function runs; the module's `tfl.target` ("cpu" when unset) where
/// nothing names one.
StringAttr deviceOfValue(Value v);

/// An OpBuilder listener marking every op inserted through it with a
/// device (nothing while `device` is null).
struct DeviceMarker : OpBuilder::Listener {
  explicit DeviceMarker(StringAttr device = {}) : device(device) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (device)
      op->setAttr(kDeviceAttrName, device);
  }
  StringAttr device;
};

} // namespace mlir::tfl

#endif // TFL_IR_TFLOPS_H
