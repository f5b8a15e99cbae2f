// RUN: tfl-opt %s -tfl-cpu-pipeline | FileCheck %s
// RUN: tfl-opt %s -tfl-stage-simplify -tfl-stage-linalg | FileCheck %s --check-prefix=LINALG

// Tests the whole CPU pipeline of `tflc build`: callees are inlined, the
// elementwise chain is fused into one loop nest, matmul calls the GEMM of libtflrt, and
// everything ends in the LLVM dialect, where heap buffers come from
// libtflrt's allocation functions (which report an allocation the system
// refuses at the op named by tflrt_where).

// LINALG-LABEL: func.func @tfl_main
// LINALG-NOT: call @f
// LINALG: linalg.matmul
// LINALG: linalg.generic
// LINALG: arith.addf
// LINALG: arith.mulf
// LINALG-NOT: linalg.generic
// LINALG: tfl.print
// LINALG-NOT: func.func private @f(

// CHECK-DAG: llvm.func @tflrt_gemm_f32(i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr)
// CHECK-DAG: llvm.func @tflrt_print_f32(i64, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @tfl_main()
// CHECK: llvm.store {{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.call @tflrt_gemm_f32
// CHECK: llvm.fadd
// CHECK: llvm.fmul
// CHECK: llvm.call @tflrt_print_f32
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// CHECK-NOT: func.func
// CHECK-NOT: tfl.

func.func private @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tfl.matmul %a, %a : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

func.func @tfl_main() {
  %a = tfl.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %one = tfl.constant dense<1.0> : tensor<f32>
  %m = func.call @f(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = tfl.add %m, %one : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %p = tfl.mul %s, %m : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  tfl.print %p : tensor<2x2xf32> {format = "{}\n"}
  return
}
