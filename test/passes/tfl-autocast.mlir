// RUN: tfl-opt %s -split-input-file -tfl-autocast | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-autocast=precision=f16 | FileCheck %s --check-prefix=F16
// RUN: tfl-opt %s -split-input-file -tfl-autocast=precision=f32 | FileCheck %s --check-prefix=NONE

// Mixed precision as PyTorch's autocast: each f32 matmul and convolution
// (gradients included) takes low-precision copies of its operands and its
// result is cast back to f32; everything else stays f32. The module's
// tfl.precision (set by `tflc --precision` or set_precision) picks the
// type unless the pass option does.

// Tests that a matmul's operands and result are cast around it, and that
// the elementwise op after it stays f32.
// CHECK-LABEL: func.func @dense(
// CHECK: %[[X:.*]] = tfl.cast %arg0 : tensor<4x3xf32> -> tensor<4x3xbf16>
// CHECK: %[[W:.*]] = tfl.cast %arg1 : tensor<3x2xf32> -> tensor<3x2xbf16>
// CHECK: %[[P:.*]] = tfl.matmul %[[X]], %[[W]] : tensor<4x3xbf16>, tensor<3x2xbf16> -> tensor<4x2xbf16>
// CHECK: %[[Y:.*]] = tfl.cast %[[P]] : tensor<4x2xbf16> -> tensor<4x2xf32>
// CHECK: tfl.relu %[[Y]] : tensor<4x2xf32>
// F16-LABEL: func.func @dense(
// F16: tfl.matmul {{.*}} : tensor<4x3xf16>, tensor<3x2xf16> -> tensor<4x2xf16>
// NONE-LABEL: func.func @dense(
// NONE-NOT: tfl.cast
// NONE: tfl.matmul {{.*}} : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
module attributes {tfl.precision = "bf16"} {
  func.func @dense(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> tensor<4x2xf32> {
    %0 = tfl.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = tfl.relu %0 : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}

// -----

// Tests that a transposed operand (a pullback's B^T) is cast before its
// transpose, so that the product still reads a transpose (a GEMM's flag)
// and the cast is the untransposed tensor's, as the forward product's.
// CHECK-LABEL: func.func @transposed(
// CHECK: %[[W:.*]] = tfl.cast %arg1 : tensor<3x2xf32> -> tensor<3x2xbf16>
// CHECK: %[[T:.*]] = tfl.transpose %[[W]] {perm = array<i64: 1, 0>} : tensor<3x2xbf16> -> tensor<2x3xbf16>
// CHECK: tfl.matmul %{{.*}}, %[[T]] : tensor<4x2xbf16>, tensor<2x3xbf16> -> tensor<4x3xbf16>
// F16-LABEL: func.func @transposed(
// NONE-LABEL: func.func @transposed(
module attributes {tfl.precision = "bf16"} {
  func.func @transposed(%dy: tensor<4x2xf32>, %w: tensor<3x2xf32>) -> tensor<4x3xf32> {
    %t = tfl.transpose %w {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
    %0 = tfl.matmul %dy, %t : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}

// -----

// Tests that the convolution and both of its gradients run in bf16, and
// that an f64 matmul is left alone (autocast changes only f32 work).
// CHECK-LABEL: func.func @conv(
// CHECK: tfl.conv2d {{.*}} : tensor<1x6x6x3xbf16>, tensor<3x3x3x4xbf16> -> tensor<1x4x4x4xbf16>
// CHECK: tfl.conv2d_backward_input {{.*}} : tensor<1x4x4x4xbf16>, tensor<3x3x3x4xbf16> -> tensor<1x6x6x3xbf16>
// CHECK: tfl.conv2d_backward_filter {{.*}} : tensor<1x6x6x3xbf16>, tensor<1x4x4x4xbf16> -> tensor<3x3x3x4xbf16>
// CHECK: tfl.matmul {{.*}} : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
// NONE-LABEL: func.func @conv(
// NONE-NOT: bf16
module attributes {tfl.precision = "bf16"} {
  func.func @conv(%x: tensor<1x6x6x3xf32>, %w: tensor<3x3x3x4xf32>, %dy: tensor<1x4x4x4xf32>, %d: tensor<2x2xf64>) -> (tensor<1x4x4x4xf32>, tensor<1x6x6x3xf32>, tensor<3x3x3x4xf32>, tensor<2x2xf64>) {
    %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x6x6x3xf32>, tensor<3x3x3x4xf32> -> tensor<1x4x4x4xf32>
    %1 = tfl.conv2d_backward_input %dy, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<3x3x3x4xf32> -> tensor<1x6x6x3xf32>
    %2 = tfl.conv2d_backward_filter %x, %dy {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x6x6x3xf32>, tensor<1x4x4x4xf32> -> tensor<3x3x3x4xf32>
    %3 = tfl.matmul %d, %d : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
    return %0, %1, %2, %3 : tensor<1x4x4x4xf32>, tensor<1x6x6x3xf32>, tensor<3x3x3x4xf32>, tensor<2x2xf64>
  }
}

// -----

// Tests that a module without tfl.precision is left alone.
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: tfl.cast
// CHECK: tfl.matmul {{.*}} -> tensor<2x2xf32>
func.func @plain(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tfl.matmul %x, %x : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
