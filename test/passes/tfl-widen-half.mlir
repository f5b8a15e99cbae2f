// RUN: tfl-opt %s -split-input-file -tfl-widen-half | FileCheck %s

// bf16 and f16 are storage types: elementwise ops and data movement keep
// them (each elementwise op computes in f32 and rounds once when lowered);
// every other op runs on f32 copies of its 16-bit operands, its 16-bit
// results rounded back.

// Tests that a reduction accumulates in f32 and is rounded once.
// CHECK-LABEL: func.func @sum(
// CHECK: %[[W:.*]] = tfl.cast %arg0 : tensor<4x3xbf16> -> tensor<4x3xf32>
// CHECK: %[[S:.*]] = tfl.reduce_sum %[[W]] {{.*}} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK: tfl.cast %[[S]] : tensor<3xf32> -> tensor<3xbf16>
func.func @sum(%x: tensor<4x3xbf16>) -> tensor<3xbf16> {
  %0 = tfl.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : tensor<4x3xbf16> -> tensor<3xbf16>
  return %0 : tensor<3xbf16>
}

// Tests that a product (matmul) and a convolution in f16 run in f32.
// CHECK-LABEL: func.func @products(
// CHECK: tfl.matmul {{.*}} : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
// CHECK: tfl.cast {{.*}} : tensor<2x2xf32> -> tensor<2x2xf16>
// CHECK: tfl.conv2d {{.*}} : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32> -> tensor<1x2x2x2xf32>
// CHECK: tfl.cast {{.*}} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf16>
func.func @products(%a: tensor<2x3xf16>, %b: tensor<3x2xf16>, %x: tensor<1x4x4x1xf16>, %w: tensor<3x3x1x2xf16>) -> (tensor<2x2xf16>, tensor<1x2x2x2xf16>) {
  %0 = tfl.matmul %a, %b : tensor<2x3xf16>, tensor<3x2xf16> -> tensor<2x2xf16>
  %1 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x1xf16>, tensor<3x3x1x2xf16> -> tensor<1x2x2x2xf16>
  return %0, %1 : tensor<2x2xf16>, tensor<1x2x2x2xf16>
}

// Tests that elementwise ops, data movement and prints keep bf16, and
// that an op with only a 16-bit operand (argmax) widens just that.
// CHECK-LABEL: func.func @native(
// CHECK-NOT: tfl.cast
// CHECK: tfl.mul {{.*}} : tensor<4x3xbf16>, tensor<4x3xbf16> -> tensor<4x3xbf16>
// CHECK: tfl.exp {{.*}} : tensor<4x3xbf16>
// CHECK: tfl.transpose {{.*}} : tensor<4x3xbf16> -> tensor<3x4xbf16>
// CHECK: tfl.print {{.*}} : tensor<3x4xbf16>
// CHECK: %[[W:.*]] = tfl.cast {{.*}} : tensor<3x4xbf16> -> tensor<3x4xf32>
// CHECK: tfl.argmax %[[W]] {{.*}} : tensor<3x4xf32> -> tensor<i64>
func.func @native(%x: tensor<4x3xbf16>) -> tensor<i64> {
  %0 = tfl.mul %x, %x : tensor<4x3xbf16>, tensor<4x3xbf16> -> tensor<4x3xbf16>
  %1 = tfl.exp %0 : tensor<4x3xbf16>
  %2 = tfl.transpose %1 {perm = array<i64: 1, 0>} : tensor<4x3xbf16> -> tensor<3x4xbf16>
  tfl.print %2 : tensor<3x4xbf16> {format = "{}\0A"}
  %3 = tfl.argmax %2 {keepdims = false} : tensor<3x4xbf16> -> tensor<i64>
  return %3 : tensor<i64>
}

// -----

// Tests that for the CUDA target a product or a convolution whose
// operands and result share one 16-bit type keeps it (cuBLAS and cuDNN on
// tensor cores, f32 accumulation), while a convolution padded unevenly
// (which cuDNN cannot pad) and one of mixed types do not.
// CHECK-LABEL: func.func @cuda_products(
// CHECK: tfl.matmul {{.*}} : tensor<2x3xbf16>, tensor<3x2xbf16> -> tensor<2x2xbf16>
// CHECK: tfl.matmul {{.*}} : tensor<2x3xf16>, tensor<3x2xf16> -> tensor<2x2xf16>
// CHECK: tfl.conv2d {{.*}} : tensor<1x4x4x1xf16>, tensor<3x3x1x2xf16> -> tensor<1x2x2x2xf16>
// CHECK: tfl.conv2d {{.*}} : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32> -> tensor<1x2x2x2xf32>
// CHECK: tfl.conv2d_backward_filter {{.*}} : tensor<1x4x4x1xbf16>, tensor<1x2x2x2xbf16> -> tensor<3x3x1x2xbf16>
// CHECK: tfl.conv2d_backward_input {{.*}} : tensor<1x2x2x2xf32>, tensor<3x3x1x2xf32> -> tensor<1x4x4x1xf32>
module attributes {tfl.target = "cuda"} {
func.func @cuda_products(%a: tensor<2x3xbf16>, %b: tensor<3x2xbf16>, %c: tensor<2x3xf16>, %d: tensor<3x2xf16>, %x: tensor<1x4x4x1xf16>, %w: tensor<3x3x1x2xf16>, %xb: tensor<1x4x4x1xbf16>, %dy: tensor<1x2x2x2xbf16>, %dyh: tensor<1x2x2x2xf16>, %wb: tensor<3x3x1x2xbf16>) -> (tensor<2x2xbf16>, tensor<2x2xf16>, tensor<1x2x2x2xf16>, tensor<1x2x2x2xf16>, tensor<3x3x1x2xbf16>, tensor<1x4x4x1xf16>) {
  %0 = tfl.matmul %a, %b : tensor<2x3xbf16>, tensor<3x2xbf16> -> tensor<2x2xbf16>
  %1 = tfl.matmul %c, %d : tensor<2x3xf16>, tensor<3x2xf16> -> tensor<2x2xf16>
  %2 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x1xf16>, tensor<3x3x1x2xf16> -> tensor<1x2x2x2xf16>
  %3 = tfl.conv2d %x, %w {padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>} : tensor<1x4x4x1xf16>, tensor<3x3x1x2xf16> -> tensor<1x2x2x2xf16>
  %4 = tfl.conv2d_backward_filter %xb, %dy {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x1xbf16>, tensor<1x2x2x2xbf16> -> tensor<3x3x1x2xbf16>
  %5 = tfl.conv2d_backward_input %dyh, %wb {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x2x2xf16>, tensor<3x3x1x2xbf16> -> tensor<1x4x4x1xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xbf16>, tensor<2x2xf16>, tensor<1x2x2x2xf16>, tensor<1x2x2x2xf16>, tensor<3x3x1x2xbf16>, tensor<1x4x4x1xf16>
}
}

// -----

// Tests that a bf16 attention and its adjoint stay 16-bit for the CUDA
// target with tfl.gpu_attention "fused" (libtflrt_cuda's tensor-core
// kernels), and are computed on f32 copies without it.
// CHECK-LABEL: func.func @fused_attention(
// CHECK: tfl.attention {{.*}} : tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16> -> tensor<1x4x16xbf16>
// CHECK: tfl.attention_backward {{.*}} -> tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16>
module attributes {tfl.target = "cuda", tfl.gpu_attention = "fused"} {
func.func @fused_attention(%q: tensor<1x4x16xbf16>) -> (tensor<1x4x16xbf16>, tensor<1x4x16xbf16>) {
  %0 = tfl.attention %q, %q, %q {causal = true, scale = 0.25 : f64} : tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16> -> tensor<1x4x16xbf16>
  %dq, %dk, %dv = tfl.attention_backward %q, %q, %q, %0, %q {causal = true, scale = 0.25 : f64} : tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16> -> tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16>
  return %0, %dq : tensor<1x4x16xbf16>, tensor<1x4x16xbf16>
}
}

// -----

// CHECK-LABEL: func.func @attention_products(
// CHECK: tfl.attention {{.*}} : tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32> -> tensor<1x4x16xf32>
module attributes {tfl.target = "cuda"} {
func.func @attention_products(%q: tensor<1x4x16xbf16>) -> tensor<1x4x16xbf16> {
  %0 = tfl.attention %q, %q, %q {causal = true, scale = 0.25 : f64} : tensor<1x4x16xbf16>, tensor<1x4x16xbf16>, tensor<1x4x16xbf16> -> tensor<1x4x16xbf16>
  return %0 : tensor<1x4x16xbf16>
}
}
