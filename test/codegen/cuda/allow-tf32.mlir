// RUN: tfl-opt %s -tfl-device-memory | FileCheck %s
// RUN: tfl-opt %s -tfl-device-memory=allow-tf32=true | FileCheck %s --check-prefix=TF32
// REQUIRES: cuda

// Tests that only a program built with --allow-tf32 lets the libraries
// multiply in tf32, by calling tflrt_cuda_allow_tf32 first thing in its
// entry (and nowhere else).

// CHECK-NOT: tflrt_cuda_allow_tf32
// TF32-LABEL: func.func @tfl_main
// TF32-NEXT: call @tflrt_cuda_allow_tf32() : () -> ()
// TF32: call @tflrt_cuda_matmul_f32
// TF32-LABEL: func.func @helper
// TF32-NOT: tflrt_cuda_allow_tf32
func.func private @tflrt_matmul_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>)
func.func @tfl_main() {
  %a = memref.alloc() : memref<2x2xf32>
  %u = memref.cast %a : memref<2x2xf32> to memref<*xf32>
  call @tflrt_matmul_f32(%u, %u, %u) : (memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
  memref.dealloc %a : memref<2x2xf32>
  return
}
func.func @helper() {
  return
}
