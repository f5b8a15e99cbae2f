// RUN: tfl-opt %s -tfl-stage-linalg | FileCheck %s

// Tests that the linalg stage merges the work a gradient repeats: a vjp of
// a call re-runs its callee's forward, and once both are inlined next to
// the primal call, CSE keeps one convolution (the forward runs once per
// training step, as it does in a hand-written backward pass).

// CHECK-LABEL: func.func @tfl_main
// CHECK-NOT: call @
// CHECK-COUNT-1: tfl.conv2d %
// CHECK-NOT: tfl.conv2d %
// CHECK: tfl.conv2d_backward_filter
// CHECK: tfl.print

func.func private @f(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32> {
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32> -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

func.func private @f.vjp(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %dy: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<3x3x1x2xf32>) {
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32> -> tensor<1x2x2x2xf32>
  %1 = tfl.conv2d_backward_filter %x, %dy {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x1xf32>, tensor<1x2x2x2xf32> -> tensor<3x3x1x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<3x3x1x2xf32>
}

func.func @tfl_main() {
  %x = tfl.constant dense<1.0> : tensor<1x4x4x1xf32>
  %w = tfl.constant dense<0.5> : tensor<3x3x1x2xf32>
  %y = func.call @f(%x, %w) : (tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32>
  %v:2 = func.call @f.vjp(%x, %w, %y) : (tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<3x3x1x2xf32>)
  tfl.print %v#0, %v#1 : tensor<1x2x2x2xf32>, tensor<3x3x1x2xf32> {format = "{} {}\n"}
  return
}
