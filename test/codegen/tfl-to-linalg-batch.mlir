// RUN: tfl-opt %s -split-input-file -tfl-to-linalg | FileCheck %s

// Tests the lowering of a batch: a dynamic (`?`) dim, the size of a batch
// given when an exported function is called, which every dynamic dim of a
// module shares. Its size is read from the function's argument (so that a
// dim of an op's result does not keep linalg from fusing it), or else from
// an operand.

// An elementwise op sizes its output by the argument's batch.
// CHECK-LABEL: func.func @add_bias
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4xf32>)
func.func @add_bias(%x: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
  // CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[X]], %[[B]] : tensor<?x4xf32>, tensor<4xf32>) outs(%[[EMPTY]] : tensor<?x4xf32>)
  // CHECK: arith.addf
  %0 = tfl.add %x, %b : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A scalar broadcast to a batch (a gradient's zeros) has no operand with
// the batch: its size comes from the function's argument.
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[S:.*]]: tensor<f32>)
func.func @broadcast_scalar(%x: tensor<?x3xf32>, %s: tensor<f32>) -> tensor<?x3xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %[[X]]
  // CHECK: tensor.empty(%[[N]]) : tensor<?x3xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[S]] : tensor<f32>)
  %0 = tfl.broadcast_to %s : tensor<f32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A matmul of a batch: a zero-filled output of the batch's rows.
// CHECK-LABEL: func.func @matmul
func.func @matmul(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>) -> tensor<?x3xf32> {
  // CHECK: %[[N:.*]] = tensor.dim
  // CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
  // CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} outs(%[[EMPTY]] : tensor<?x3xf32>)
  // CHECK: linalg.matmul ins({{.*}} : tensor<?x4xf32>, tensor<4x3xf32>) outs(%[[ZERO]] : tensor<?x3xf32>)
  %0 = tfl.matmul %x, %w : tensor<?x4xf32>, tensor<4x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Reductions: over the batch to a static shape, and along a row of it.
// The batch's size is read at the function's start.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
func.func @reduce(%x: tensor<?x4xf32>) -> (tensor<4xf32>, tensor<?xf32>, tensor<?x1xi64>) {
  // CHECK: %[[N:.*]] = tensor.dim %[[X]]
  // CHECK: tensor.empty() : tensor<4xf32>
  // CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
  %0 = tfl.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : tensor<?x4xf32> -> tensor<4xf32>
  // CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.maximumf
  %1 = tfl.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<?x4xf32> -> tensor<?xf32>
  // CHECK: tensor.empty(%{{.*}}) : tensor<?xi64>
  // CHECK: tensor.expand_shape {{.*}} : tensor<?xi64> into tensor<?x1xi64>
  %2 = tfl.argmax %x {axis = 1 : i64, keepdims = true} : tensor<?x4xf32> -> tensor<?x1xi64>
  return %0, %1, %2 : tensor<4xf32>, tensor<?xf32>, tensor<?x1xi64>
}

// -----

// The batch's size as a value (what `mean` over a batch divides by).
// CHECK-LABEL: func.func @dim
func.func @dim(%x: tensor<?x4xf32>) -> tensor<i64> {
  // CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
  // CHECK: %[[I:.*]] = arith.index_cast %[[N]] : index to i64
  // CHECK: tensor.from_elements %[[I]] : tensor<i64>
  %0 = tfl.dim %x {axis = 0 : i64} : tensor<?x4xf32> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A reshape keeps the batch: flattened, then expanded with its size.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x3xf32>)
func.func @flatten(%x: tensor<?x2x3xf32>) -> tensor<?x6xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %[[X]]
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<?x2x3xf32> into tensor<?xf32>
  // CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [%[[N]], 6] : tensor<?xf32> into tensor<?x6xf32>
  %0 = tfl.reshape %x : tensor<?x2x3xf32> -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// A slice takes the batch whole: its size is the input's.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
func.func @slice(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %[[X]]
  // CHECK: tensor.extract_slice %[[X]][0, 1] [%[[N]], 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
  %0 = tfl.slice %x[] {static_starts = array<i64: 0, 1>, strides = array<i64: 1, 1>} : tensor<?x4xf32> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// A batch of indices: the range check's count is 0 for an empty batch.
// CHECK-LABEL: func.func @gather
func.func @gather(%t: tensor<10x3xf32>, %i: tensor<?xi64>) -> tensor<?x3xf32> {
  // CHECK: %[[N:.*]] = tensor.dim
  // CHECK: %[[NONEMPTY:.*]] = arith.cmpi sgt
  // CHECK: %[[COUNT:.*]] = arith.select %[[NONEMPTY]]
  // CHECK: call @tflrt_check_slice(%{{.*}}, %[[COUNT]],
  // CHECK: call @tflrt_check_slice(%{{.*}}, %[[COUNT]],
  // CHECK: tensor.empty(%{{.*}}) : tensor<?x3xf32>
  %0 = tfl.gather %t, %i {axis = 0 : i64} : tensor<10x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Concatenation off the batch axis: each piece's rows are the batch's.
// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<?x2xf32>, %b: tensor<?x3xf32>) -> tensor<?x5xf32> {
  // CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x5xf32>
  // CHECK: %[[NA:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x2xf32>
  // CHECK: %[[R:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0] [%[[NA]], 2] [1, 1]
  // CHECK: tensor.insert_slice %{{.*}} into %[[R]][0, 2] [%{{.*}}, 3] [1, 1]
  %0 = tfl.concat %a, %b {axis = 1 : i64} : tensor<?x2xf32>, tensor<?x3xf32> -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}
