//===- Passes.h - The CUDA wing of code generation --------------*- C++ -*-===//

#ifndef TFL_CODEGEN_CUDA_PASSES_H
#define TFL_CODEGEN_CUDA_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfl {

#define GEN_PASS_DECL
#include "tfl/Codegen/Cuda/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfl/Codegen/Cuda/Passes.h.inc"

} // namespace mlir::tfl

#endif // TFL_CODEGEN_CUDA_PASSES_H
