// RUN: tfl-opt %s -split-input-file -tfl-to-runtime-calls | FileCheck %s

// Tests that a float matmul on buffers becomes a BLAS call on unranked
// memrefs (flags 0: no transpose, C accumulated).
// CHECK: func.func private @tflrt_gemm_f32(i64, memref<*xf32>, memref<*xf32>, memref<*xf32>)
// CHECK-LABEL: func.func @matmul_f32
func.func @matmul_f32(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  // CHECK: %[[A:.*]] = memref.cast %{{.*}} : memref<2x3xf32> to memref<*xf32>
  // CHECK: %[[B:.*]] = memref.cast %{{.*}} : memref<3x4xf32> to memref<*xf32>
  // CHECK: %[[C:.*]] = memref.cast %{{.*}} : memref<2x4xf32> to memref<*xf32>
  // CHECK: call @tflrt_gemm_f32(%{{.*}}, %[[A]], %[[B]], %[[C]])
  // CHECK-NOT: linalg.matmul
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

// Tests the f64 entry point.
// CHECK-LABEL: func.func @matmul_f64
func.func @matmul_f64(%a: memref<2x3xf64>, %b: memref<3x4xf64>, %c: memref<2x4xf64>) {
  // CHECK: call @tflrt_gemm_f64
  linalg.matmul ins(%a, %b : memref<2x3xf64>, memref<3x4xf64>) outs(%c : memref<2x4xf64>)
  return
}

// -----

// Tests that integer matmuls stay for the loop lowering.
// CHECK-LABEL: func.func @matmul_i64
func.func @matmul_i64(%a: memref<2x3xi64>, %b: memref<3x4xi64>, %c: memref<2x4xi64>) {
  // CHECK: linalg.matmul
  // CHECK-NOT: call
  linalg.matmul ins(%a, %b : memref<2x3xi64>, memref<3x4xi64>) outs(%c : memref<2x4xi64>)
  return
}

// -----

// Tests that a column-strided operand (no unit inner stride) stays.
// CHECK-LABEL: func.func @matmul_strided
func.func @matmul_strided(%a: memref<2x3xf32, strided<[1, 2]>>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  // CHECK: linalg.matmul
  // CHECK-NOT: call
  linalg.matmul ins(%a, %b : memref<2x3xf32, strided<[1, 2]>>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

// Tests that matmuls on tensors are left alone.
// CHECK-LABEL: func.func @matmul_tensor
func.func @matmul_tensor(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: linalg.matmul
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a print without tensors (which bufferization never visits)
// becomes its text call.
// CHECK: llvm.mlir.global internal constant @[[HI:.*]]("hi\0A\00")
// CHECK-LABEL: func.func @print_text
func.func @print_text() {
  // CHECK: %[[P:.*]] = llvm.mlir.addressof @[[HI]]
  // CHECK: call @tflrt_print_text(%[[P]])
  // CHECK-NOT: tfl.print
  tfl.print {format = "hi\n"}
  return
}

// -----

// Tests that text holding a string flag's value becomes a call of
// libtflrt's tflrt_print_template, which fills in the flag's value.
// CHECK: llvm.mlir.global internal constant @[[T:.*]]("{data_dir}train.gz\00")
// CHECK-LABEL: func.func @print_template
func.func @print_template() {
  // CHECK: %[[P:.*]] = llvm.mlir.addressof @[[T]]
  // CHECK: call @tflrt_print_template(%[[P]])
  // CHECK-NOT: tfl.print_template
  tfl.print_template {text = "{data_dir}train.gz"}
  return
}

// -----

// Tests a batched product (the same entry point, on 3-D memrefs).
// CHECK: func.func private @tflrt_gemm_f32(i64, memref<*xf32>, memref<*xf32>, memref<*xf32>)
// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%a: memref<5x2x3xf32>, %b: memref<5x3x4xf32>, %c: memref<5x2x4xf32>) {
  // CHECK: call @tflrt_gemm_f32
  // CHECK-NOT: linalg.batch_matmul
  linalg.batch_matmul ins(%a, %b : memref<5x2x3xf32>, memref<5x3x4xf32>) outs(%c : memref<5x2x4xf32>)
  return
}
