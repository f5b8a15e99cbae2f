//===- Passes.h - Transformations of tfl to tfl -----------------*- C++ -*-===//

#ifndef TFL_PASSES_PASSES_H
#define TFL_PASSES_PASSES_H

#include "tfl/IR/TflDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfl {

#define GEN_PASS_DECL
#include "tfl/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfl/Passes/Passes.h.inc"

} // namespace mlir::tfl

#endif // TFL_PASSES_PASSES_H
