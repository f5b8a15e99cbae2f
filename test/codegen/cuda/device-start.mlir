// RUN: tfl-opt %s -split-input-file -tfl-device-memory | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-device-memory=allow-tf32=true | FileCheck %s --check-prefix=TF32
// REQUIRES: cuda

// Tests that the program's entry, and only it, first calls
// tflrt_cuda_start with the libraries its host code calls (2: cuBLAS, 4:
// cuDNN), so that their handles are made before the first step, and with
// 1 only when built with --allow-tf32 (TF32 products).

// CHECK-LABEL: func.func @tfl_main
// CHECK-NEXT: %[[FLAGS:.*]] = arith.constant 2 : i64
// CHECK-NEXT: call @tflrt_cuda_start(%[[FLAGS]]) : (i64) -> ()
// CHECK: call @tflrt_cuda_gemm_f32
// CHECK-LABEL: func.func @helper
// CHECK-NOT: call @tflrt_cuda_start
// TF32-LABEL: func.func @tfl_main
// TF32-NEXT: %[[FLAGS:.*]] = arith.constant 3 : i64
// TF32-NEXT: call @tflrt_cuda_start(%[[FLAGS]]) : (i64) -> ()
// TF32-LABEL: func.func @helper
// TF32-NOT: call @tflrt_cuda_start
func.func private @tflrt_gemm_f32(i64, memref<*xf32>, memref<*xf32>, memref<*xf32>)
func.func @tfl_main() {
  %a = memref.alloc() : memref<2x2xf32>
  %u = memref.cast %a : memref<2x2xf32> to memref<*xf32>
  %f = arith.constant 4 : i64
  call @tflrt_gemm_f32(%f, %u, %u, %u) : (i64, memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
  memref.dealloc %a : memref<2x2xf32>
  return
}
func.func @helper() {
  return
}

// -----

// A convolution in a helper function counts: cuDNN (4) and cuBLAS (2).

// CHECK-LABEL: func.func @tfl_main
// CHECK-NEXT: %[[FLAGS:.*]] = arith.constant 6 : i64
// CHECK-NEXT: call @tflrt_cuda_start(%[[FLAGS]]) : (i64) -> ()
// TF32-LABEL: func.func @tfl_main
// TF32-NEXT: %[[FLAGS:.*]] = arith.constant 7 : i64
func.func private @tflrt_gemm_f32(i64, memref<*xf32>, memref<*xf32>, memref<*xf32>)
func.func private @tflrt_conv2d_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64)
func.func @tfl_main() {
  %a = memref.alloc() : memref<2x2xf32>
  %u = memref.cast %a : memref<2x2xf32> to memref<*xf32>
  %f = arith.constant 4 : i64
  call @tflrt_gemm_f32(%f, %u, %u, %u) : (i64, memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
  memref.dealloc %a : memref<2x2xf32>
  call @helper() : () -> ()
  return
}
func.func @helper() {
  %c = arith.constant 1 : i64
  %a = memref.alloc() : memref<1x4x4x1xf32>
  %u = memref.cast %a : memref<1x4x4x1xf32> to memref<*xf32>
  call @tflrt_conv2d_f32(%u, %u, %u, %c, %c, %c, %c, %c, %c) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  memref.dealloc %a : memref<1x4x4x1xf32>
  return
}

// -----

// A program that calls neither library starts only the device.

// CHECK-LABEL: func.func @tfl_main
// CHECK-NEXT: %[[FLAGS:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @tflrt_cuda_start(%[[FLAGS]]) : (i64) -> ()
func.func @tfl_main() {
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
