//===- Copies.h - Copies between buffers as linalg ops ----------*- C++ -*-===//
//
// Internal to the CUDA wing: tfl-host-scalars and tfl-linalg-to-gpu both
// place and run copies between buffers as the linalg ops they are.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_CUDA_COPIES_H
#define TFL_CODEGEN_CUDA_COPIES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfl {

/// Every memref.copy in `fn` becomes a linalg.copy.
inline void copiesToLinalg(RewriterBase &rewriter, func::FuncOp fn) {
  SmallVector<memref::CopyOp> copies;
  fn.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    rewriter.setInsertionPoint(copy);
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                copy.getTarget());
  }
}

} // namespace mlir::tfl

#endif // TFL_CODEGEN_CUDA_COPIES_H
