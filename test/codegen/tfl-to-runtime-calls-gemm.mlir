// RUN: tfl-opt %s -split-input-file -tfl-to-runtime-calls | FileCheck %s

// Tests the products of both pipelines (the CUDA wing calls
// tflrt_cuda_gemm_<type>, on cuBLAS): tflrt_gemm_<type>(flags, A, B, C),
// where flags hold 1 (A transposed), 2 (B transposed) and 4 (C
// overwritten, its zero fill dropped).

// A plain product into a buffer it accumulates into.
// CHECK: func.func private @tflrt_gemm_f32(i64, memref<*xf32>, memref<*xf32>, memref<*xf32>)
// CHECK-LABEL: func.func @plain
func.func @plain(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  // CHECK: %[[FLAGS:.*]] = arith.constant 0 : i64
  // CHECK: %[[A:.*]] = memref.cast %{{.*}} : memref<2x3xf32> to memref<*xf32>
  // CHECK: %[[B:.*]] = memref.cast %{{.*}} : memref<3x4xf32> to memref<*xf32>
  // CHECK: %[[C:.*]] = memref.cast %{{.*}} : memref<2x4xf32> to memref<*xf32>
  // CHECK: call @tflrt_gemm_f32(%[[FLAGS]], %[[A]], %[[B]], %[[C]])
  // CHECK-NOT: linalg.matmul
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

// Each transposed operand sets its flag; a fresh C filled with zeros
// right before the product is overwritten instead.
// CHECK-LABEL: func.func @transposed_into_fresh
func.func @transposed_into_fresh(%a: memref<3x2xf64>, %b: memref<4x3xf64>) -> memref<2x4xf64> {
  %zero = arith.constant 0.0 : f64
  // CHECK: %[[C:.*]] = memref.alloc() : memref<2x4xf64>
  // CHECK-NOT: linalg.fill
  // CHECK: %[[FLAGS:.*]] = arith.constant 7 : i64
  // CHECK: call @tflrt_gemm_f64(%[[FLAGS]],
  %c = memref.alloc() : memref<2x4xf64>
  linalg.fill ins(%zero : f64) outs(%c : memref<2x4xf64>)
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<3x2xf64>, memref<4x3xf64>) outs(%c : memref<2x4xf64>)
  return %c : memref<2x4xf64>
}

// -----

// B transposed, A not; the fill stays where C is not fresh, where another
// op comes between, or where it is not of zeros.
// CHECK-LABEL: func.func @fills_that_stay
func.func @fills_that_stay(%a: memref<2x3xf32>, %b: memref<4x3xf32>, %arg: memref<2x4xf32>, %b2: memref<3x4xf32>) -> (memref<2x4xf32>, memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg2
  // CHECK: %[[F1:.*]] = arith.constant 2 : i64
  // CHECK: call @tflrt_gemm_f32(%[[F1]],
  linalg.fill ins(%zero : f32) outs(%arg : memref<2x4xf32>)
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<2x3xf32>, memref<4x3xf32>) outs(%arg : memref<2x4xf32>)
  // CHECK: %[[C:.*]] = memref.alloc
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]]
  // CHECK: memref.store
  // CHECK: %[[F2:.*]] = arith.constant 0 : i64
  // CHECK: call @tflrt_gemm_f32(%[[F2]],
  %c = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
  %i = arith.constant 0 : index
  memref.store %one, %c[%i, %i] : memref<2x4xf32>
  linalg.matmul ins(%a, %b2 : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  // CHECK: %[[D:.*]] = memref.alloc
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[D]]
  // CHECK: %[[F3:.*]] = arith.constant 0 : i64
  // CHECK: call @tflrt_gemm_f32(%[[F3]],
  %d = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%one : f32) outs(%d : memref<2x4xf32>)
  linalg.matmul ins(%a, %b2 : memref<2x3xf32>, memref<3x4xf32>) outs(%d : memref<2x4xf32>)
  return %c, %d : memref<2x4xf32>, memref<2x4xf32>
}

// -----

// Batched products: A transposed (flag 1) into a fresh, zeroed C (4).
// CHECK: func.func private @tflrt_gemm_f32(i64, memref<*xf32>, memref<*xf32>, memref<*xf32>)
// CHECK-LABEL: func.func @batch
func.func @batch(%a: memref<5x3x2xf32>, %b: memref<5x3x4xf32>) -> memref<5x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  // CHECK-NOT: linalg.fill
  // CHECK: %[[FLAGS:.*]] = arith.constant 5 : i64
  // CHECK: call @tflrt_gemm_f32(%[[FLAGS]],
  // CHECK-NOT: linalg.batch_matmul
  %c = memref.alloc() : memref<5x2x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<5x2x4xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<5x3x2xf32>, memref<5x3x4xf32>) outs(%c : memref<5x2x4xf32>)
  return %c : memref<5x2x4xf32>
}

// -----

// An op's kernel for the eager interpreter (tfl.op_kernel): its result's
// buffer is an argument the interpreter allocated for the call, apart from
// the operands', so a zero fill of it before the product is dropped too
// (flag 4).
// CHECK-LABEL: func.func @tfl_export_op
module attributes {tfl.op_kernel} {
  func.func @tfl_export_op(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
    %zero = arith.constant 0.0 : f32
    // CHECK-NOT: linalg.fill
    // CHECK: %[[FLAGS:.*]] = arith.constant 4 : i64
    // CHECK: call @tflrt_gemm_f32(%[[FLAGS]],
    linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
    linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
    return
  }
}

// -----

// Elsewhere a function's argument may be any buffer, one an operand views
// among them: its zero fill stays, and the product accumulates (flag 0).
// CHECK-LABEL: func.func @into_argument
func.func @into_argument(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  // CHECK: linalg.fill
  // CHECK: %[[FLAGS:.*]] = arith.constant 0 : i64
  // CHECK: call @tflrt_gemm_f32(%[[FLAGS]],
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}
