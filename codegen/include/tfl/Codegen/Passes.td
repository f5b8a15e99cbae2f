//===- Passes.td - Conversions of tfl to native code -------*- tablegen -*-===//

#ifndef TFL_CODEGEN_PASSES_TD
#define TFL_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTflToLinalg : Pass<"tfl-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tfl ops to linalg, tensor, arith and runtime calls";
  let description = [{
    Elementwise ops become `linalg.generic`s whose indexing maps carry NumPy
    broadcasting (a size-1 dim reads index 0), so linalg's elementwise fusion
    can merge chains of them. `tfl.matmul` becomes `linalg.fill` +
    `linalg.matmul` (turned into a BLAS call after bufferization by
    `tfl-linalg-to-runtime`). `tfl.print` becomes calls of libtflrt's C ABI
    on unranked memrefs, with its text in LLVM globals.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect", "mlir::linalg::LinalgDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def LowerLinalgToRuntimeCalls
    : Pass<"tfl-linalg-to-runtime", "mlir::ModuleOp"> {
  let summary = "Replace bufferized linalg.matmul with libtflrt BLAS calls";
  let description = [{
    After bufferization, each `linalg.matmul` on f32/f64 memrefs whose rows
    are contiguous becomes a call of `tflrt_matmul_f32`/`_f64` (C += A @ B,
    linalg.matmul's semantics), so compiled code and the eager interpreter
    multiply matrices with the same tuned library.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

#endif // TFL_CODEGEN_PASSES_TD
