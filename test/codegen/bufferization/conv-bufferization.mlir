// RUN: tfl-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s

// Tests that conv2d bufferizes to a fresh output buffer and one libtflrt
// (oneDNN) call reading the input and filter buffers, with the strides and
// padding as i64 arguments.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: memref<1x8x8x3xf32{{.*}}>, %[[W:.*]]: memref<3x3x3x4xf32{{.*}}>)
func.func @conv(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<1x4x4x4xf32>
  // CHECK: %[[UX:.*]] = memref.cast %[[X]]
  // CHECK: %[[UW:.*]] = memref.cast %[[W]]
  // CHECK: %[[UO:.*]] = memref.cast %[[OUT]]
  // CHECK: %[[SH:.*]] = arith.constant 2 : i64
  // CHECK: %[[SW:.*]] = arith.constant 2 : i64
  // CHECK: %[[PT:.*]] = arith.constant 0 : i64
  // CHECK: %[[PB:.*]] = arith.constant 1 : i64
  // CHECK: %[[PL:.*]] = arith.constant 0 : i64
  // CHECK: %[[PR:.*]] = arith.constant 1 : i64
  // CHECK: call @tflrt_conv2d_f32(%[[UX]], %[[UW]], %[[UO]], %[[SH]], %[[SW]], %[[PT]], %[[PB]], %[[PL]], %[[PR]])
  // CHECK: return %[[OUT]]
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>} : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Tests that pooling passes its window size before strides and padding.
// CHECK-LABEL: func.func @pool
func.func @pool(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32> {
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<1x4x4x3xf32>
  // CHECK-COUNT-4: arith.constant 2 : i64
  // CHECK-COUNT-4: arith.constant 0 : i64
  // CHECK: call @tflrt_max_pool2d_f32(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) :
  %0 = tfl.max_pool2d %x {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x8x8x3xf32> -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

// Tests that conv2d's adjoints bufferize to oneDNN-backed libtflrt calls
// with the same window arguments as the forward conv.
// CHECK-LABEL: func.func @conv_backward
func.func @conv_backward(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %dy: tensor<1x6x6x4xf32>) -> (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) {
  // CHECK: %[[DX:.*]] = memref.alloc() {{.*}}: memref<1x8x8x3xf32>
  // CHECK: call @tflrt_conv2d_backward_input_f32(
  %0 = tfl.conv2d_backward_input %dy, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x6x6x4xf32>, tensor<3x3x3x4xf32> -> tensor<1x8x8x3xf32>
  // CHECK: %[[DW:.*]] = memref.alloc() {{.*}}: memref<3x3x3x4xf32>
  // CHECK: call @tflrt_conv2d_backward_filter_f32(
  %1 = tfl.conv2d_backward_filter %x, %dy {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x8x3xf32>, tensor<1x6x6x4xf32> -> tensor<3x3x3x4xf32>
  // CHECK: return %[[DX]], %[[DW]]
  return %0, %1 : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>
}

// -----

// Tests that pooling's adjoints bufferize to libtflrt calls taking the
// input, the cotangent and the window.
// CHECK-LABEL: func.func @pool_backward
func.func @pool_backward(%x: tensor<1x8x8x3xf32>, %dy: tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32> {
  // CHECK: %[[DX:.*]] = memref.alloc() {{.*}}: memref<1x8x8x3xf32>
  // CHECK: call @tflrt_max_pool2d_backward_f32(
  // CHECK: return %[[DX]]
  %0 = tfl.max_pool2d_backward %x, %dy {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x8x8x3xf32>, tensor<1x4x4x3xf32> -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

// -----

// Tests that a batch's convolution allocates its output with the batch's
// size, read from the input.
// CHECK-LABEL: func.func @conv_batch
// CHECK-SAME: (%[[X:.*]]: memref<?x8x8x3xf32{{.*}}>, %[[W:.*]]: memref<3x3x3x4xf32{{.*}}>)
func.func @conv_batch(%x: tensor<?x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<?x6x6x4xf32> {
  // CHECK: %[[N:.*]] = memref.dim %[[X]], %{{.*}}
  // CHECK: %[[OUT:.*]] = memref.alloc(%[[N]]) {{.*}}: memref<?x6x6x4xf32>
  // CHECK: call @tflrt_conv2d_f32(
  // CHECK: return %[[OUT]]
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<?x6x6x4xf32>
  return %0 : tensor<?x6x6x4xf32>
}

// -----

// Tests that attention bufferizes to a fresh result buffer and one libtflrt
// call reading q, k and v's buffers, with causal as an i64 and the scale as
// an f64; its adjoint to three fresh buffers and one call.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: memref<2x8x4xf32{{[^>]*}}>>, %[[K:[a-z0-9]+]]: memref<2x8x4xf32{{[^>]*}}>>, %[[V:[a-z0-9]+]]: memref<2x8x5xf32{{[^>]*}}>>,
func.func @attention(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x5xf32>, %dy: tensor<2x8x5xf32>) -> (tensor<2x8x5xf32>, tensor<2x8x4xf32>) {
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<2x8x5xf32>
  // CHECK: %[[UQ:.*]] = memref.cast %[[Q]]
  // CHECK: %[[UK:.*]] = memref.cast %[[K]]
  // CHECK: %[[UV:.*]] = memref.cast %[[V]]
  // CHECK: %[[UO:.*]] = memref.cast %[[OUT]]
  // CHECK: %[[C:.*]] = arith.constant 1 : i64
  // CHECK: %[[S:.*]] = arith.constant 5.000000e-01 : f64
  // CHECK: call @tflrt_attention_f32(%[[UQ]], %[[UK]], %[[UV]], %[[UO]], %[[C]], %[[S]])
  // CHECK: memref.alloc() {{.*}}: memref<2x8x4xf32>
  // CHECK: memref.alloc() {{.*}}: memref<2x8x4xf32>
  // CHECK: memref.alloc() {{.*}}: memref<2x8x5xf32>
  // CHECK: call @tflrt_attention_backward_f32(
  %0 = tfl.attention %q, %k, %v {causal = true, scale = 0.5 : f64} : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  %dq, %dk, %dv = tfl.attention_backward %q, %k, %v, %0, %dy {causal = true, scale = 0.5 : f64} : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x5xf32>, tensor<2x8x5xf32>, tensor<2x8x5xf32> -> tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x5xf32>
  return %0, %dq : tensor<2x8x5xf32>, tensor<2x8x4xf32>
}

// -----

// Tests that a seq_major attention passes each buffer, its own result's
// included, as a transposed view ([B, T, H, E] read as [B, H, T, E]
// through strides, no copy), and its adjoint the same.
// CHECK-LABEL: func.func @attention_seq_major
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: memref<2x8x3x4xf32{{[^>]*}}>>,
func.func @attention_seq_major(%q: tensor<2x8x3x4xf32>, %k: tensor<2x8x3x4xf32>, %v: tensor<2x8x3x5xf32>, %dy: tensor<2x8x3x5xf32>) -> (tensor<2x8x3x5xf32>, tensor<2x8x3x4xf32>) {
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<2x8x3x5xf32>
  // CHECK: %[[TQ:.*]] = memref.transpose %[[Q]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x8x3x4xf32, strided<[?, ?, ?, ?], offset: ?>> to memref<2x3x8x4xf32, strided<[?, ?, ?, ?], offset: ?>>
  // CHECK: %[[UQ:.*]] = memref.cast %[[TQ]]
  // CHECK: memref.transpose
  // CHECK: memref.transpose
  // CHECK: %[[TO:.*]] = memref.transpose %[[OUT]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x8x3x5xf32> to memref<2x3x8x5xf32, strided<[120, 5, 15, 1]>>
  // CHECK: %[[UO:.*]] = memref.cast %[[TO]]
  // CHECK: call @tflrt_attention_f32(%[[UQ]], %{{.*}}, %{{.*}}, %[[UO]],
  // CHECK-COUNT-8: memref.transpose
  // CHECK: call @tflrt_attention_backward_f32(
  %0 = tfl.attention %q, %k, %v {causal = true, scale = 0.5 : f64, seq_major} : tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32> -> tensor<2x8x3x5xf32>
  %dq, %dk, %dv = tfl.attention_backward %q, %k, %v, %0, %dy {causal = true, scale = 0.5 : f64, seq_major} : tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32>, tensor<2x8x3x5xf32>, tensor<2x8x3x5xf32> -> tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32>
  return %0, %dq : tensor<2x8x3x5xf32>, tensor<2x8x3x4xf32>
}
