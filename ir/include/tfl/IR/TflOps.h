//===- TflOps.h - Ops of the tfl dialect ------------------------*- C++ -*-===//

#ifndef TFL_IR_TFLOPS_H
#define TFL_IR_TFLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tfl/IR/TflDialect.h"

#include "tfl/IR/TflOpsEnums.h.inc"

#include <optional>

#define GET_OP_CLASSES
#include "tfl/IR/TflOps.h.inc"

namespace mlir::tfl {

/// NumPy's broadcast of two static-or-dynamic shapes (dynamic dims are
/// ShapedType::kDynamic); nullopt when two static dims disagree.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

} // namespace mlir::tfl

#endif // TFL_IR_TFLOPS_H
