// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-autodiff -canonicalize -cse | FileCheck %s

// The reverse rule of each op family, as the autodiff pass emits it for
// sum(op(x, ...)) (the raw pullback, and after canonicalization and CSE).
// Numbers are checked against finite differences by test/e2e/grad-*.tfl.

// Tests that tanh's rule (1 - y^2) * dy reads the result.
// CHECK-LABEL: func.func private @tanh.vjp(
// CHECK: tfl.tanh
// CHECK: tfl.mul %[[Y:.*]], %[[Y]]
// CHECK: tfl.sub
// CHECK: tfl.mul
func.func private @tanh(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.tanh %x : tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_tanh(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = tfl.grad @tanh(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Tests that sqrt's rule dy / (2 y) reads the result.
// CHECK-LABEL: func.func private @sqrt.vjp(
// CHECK: tfl.sqrt
// CHECK: tfl.mul
// CHECK: tfl.div %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
func.func private @sqrt(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.sqrt %x : tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_sqrt(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = tfl.grad @sqrt(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Tests that div's rules, the divisor's cotangent summed back over the broadcast dim.
// CHECK-LABEL: func.func private @div.vjp(
// CHECK: %[[Q:.*]] = tfl.div
// CHECK: tfl.div %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK: tfl.mul %{{.*}}, %[[Q]]
// CHECK: tfl.div
// CHECK: tfl.neg
// CHECK: tfl.reduce_sum %{{.*}} {axes = array<i64: 0>, keepdims = false} : tensor<2x3xf32> -> tensor<3xf32>
func.func private @div(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.div %x, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_div(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %g:2 = tfl.grad @div(%x, %y) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Tests that maximum routes the cotangent by comparison, ties split (winMask).
// CHECK-LABEL: func.func private @maximum.vjp(
// CHECK: tfl.maximum
// CHECK: tfl.compare eq
// CHECK: tfl.where
// CHECK: tfl.compare gt
// CHECK: tfl.where
// CHECK: tfl.mul
func.func private @maximum(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.maximum %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_maximum(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g:2 = tfl.grad @maximum(%x, %y) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests that where selects the cotangent (never multiplies by a mask); the condition takes none.
// CHECK-LABEL: func.func private @where.vjp(
// CHECK: tfl.where %[[C:.*]], %{{.*}}, %{{.*}} : tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
// CHECK: tfl.where %[[C]], %{{.*}}, %{{.*}} : tensor<3xi1>, tensor<3xf32>, tensor<f32>
// CHECK: tfl.where %[[C]], %{{.*}}, %{{.*}} : tensor<3xi1>, tensor<f32>, tensor<3xf32>
func.func private @where(%x: tensor<3xf32>, %y: tensor<3xf32>, %c: tensor<3xi1>) -> tensor<f32> {
  %0 = tfl.where %c, %x, %y : tensor<3xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_where(%x: tensor<3xf32>, %y: tensor<3xf32>, %c: tensor<3xi1>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g:2 = tfl.grad @where(%x, %y, %c) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<3xf32>, tensor<3xf32>, tensor<3xi1>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests that transpose's rule is the inverse permutation.
// CHECK-LABEL: func.func private @transpose.vjp(
// CHECK: tfl.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: tfl.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
func.func private @transpose(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = tfl.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1>, keepdims = false} : tensor<3x2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_transpose(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %g = tfl.grad @transpose(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Tests that reduce_max spreads the cotangent over the maxima, split among ties.
// CHECK-LABEL: func.func private @reduce_max.vjp(
// CHECK: %[[M:.*]] = tfl.reduce_max
// CHECK: tfl.reshape %[[M]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: tfl.compare eq
// CHECK: tfl.where
// CHECK: tfl.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = false}
// CHECK: tfl.div
// CHECK: tfl.mul
func.func private @reduce_max(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = tfl.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_reduce_max(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %g = tfl.grad @reduce_max(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Tests that matmul's rules: dA = dC @ B^T, dB = A^T @ dC.
// CHECK-LABEL: func.func private @matmul.vjp(
// CHECK: tfl.matmul %[[A:[^,]*]], %[[B:[^ ]*]] :
// CHECK: %[[BT:.*]] = tfl.transpose %[[B]]
// CHECK: tfl.matmul %{{.*}}, %[[BT]] : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK: %[[AT:.*]] = tfl.transpose %[[A]]
// CHECK: tfl.matmul %[[AT]], %{{.*}} : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
func.func private @matmul(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>) -> tensor<f32> {
  %0 = tfl.matmul %x, %y : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x4xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_matmul(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>) -> (tensor<2x3xf32>, tensor<3x4xf32>) {
  %g:2 = tfl.grad @matmul(%x, %y) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<2x3xf32>, tensor<3x4xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<3x4xf32>
}

// -----

// Tests that concat's rule slices the cotangent back into the inputs.
// CHECK-LABEL: func.func private @concat.vjp(
// CHECK: tfl.concat
// CHECK: tfl.slice %{{.*}}[] {static_starts = array<i64: 0>, strides = array<i64: 1>} : tensor<5xf32> -> tensor<2xf32>
// CHECK: tfl.slice %{{.*}}[] {static_starts = array<i64: 2>, strides = array<i64: 1>} : tensor<5xf32> -> tensor<3xf32>
func.func private @concat(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.concat %x, %y {axis = 0 : i64} : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<5xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_concat(%x: tensor<2xf32>, %y: tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %g:2 = tfl.grad @concat(%x, %y) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<2xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<2xf32>, tensor<3xf32>
}

// -----

// Tests that slice's rule embeds the cotangent at the same (dynamic) start.
// CHECK-LABEL: func.func private @slice.vjp(
// CHECK: tfl.slice %{{.*}}[%[[I:.*]]]
// CHECK: tfl.embed_slice %{{.*}}[%[[I]]] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 1>} : tensor<2xf32>, tensor<i64> -> tensor<5xf32>
func.func private @slice(%x: tensor<5xf32>, %i: tensor<i64>) -> tensor<f32> {
  %0 = tfl.slice %x[%i] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 1>} : tensor<5xf32>, tensor<i64> -> tensor<2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_slice(%x: tensor<5xf32>, %i: tensor<i64>) -> tensor<5xf32> {
  %g = tfl.grad @slice(%x, %i) {argnums = array<i64: 0>, with_value = false} : (tensor<5xf32>, tensor<i64>) -> tensor<5xf32>
  return %g : tensor<5xf32>
}

// -----

// Tests that gather's rule scatter-adds the cotangent at the indices.
// CHECK-LABEL: func.func private @gather.vjp(
// CHECK: tfl.gather %{{.*}}, %[[I:.*]] {axis = 0 : i64}
// CHECK: tfl.scatter_add %{{.*}}, %[[I]] {axis = 0 : i64} : tensor<3x2xf32>, tensor<3xi64> -> tensor<5x2xf32>
func.func private @gather(%x: tensor<5x2xf32>, %i: tensor<3xi64>) -> tensor<f32> {
  %0 = tfl.gather %x, %i {axis = 0 : i64} : tensor<5x2xf32>, tensor<3xi64> -> tensor<3x2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1>, keepdims = false} : tensor<3x2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_gather(%x: tensor<5x2xf32>, %i: tensor<3xi64>) -> tensor<5x2xf32> {
  %g = tfl.grad @gather(%x, %i) {argnums = array<i64: 0>, with_value = false} : (tensor<5x2xf32>, tensor<3xi64>) -> tensor<5x2xf32>
  return %g : tensor<5x2xf32>
}

// -----

// Tests that conv2d's rules are its backward-input and backward-filter ops.
// CHECK-LABEL: func.func private @conv2d.vjp(
// CHECK: tfl.conv2d %[[X:[^,]*]], %[[W:[^ ]*]] {
// CHECK: tfl.conv2d_backward_input %{{.*}}, %[[W]] {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x2x3xf32>, tensor<3x3x2x3xf32> -> tensor<1x4x4x2xf32>
// CHECK: tfl.conv2d_backward_filter %[[X]], %{{.*}} {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
func.func private @conv2d(%x: tensor<1x4x4x2xf32>, %y: tensor<3x3x2x3xf32>) -> tensor<f32> {
  %0 = tfl.conv2d %x, %y {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32> -> tensor<1x2x2x3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<1x2x2x3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_conv2d(%x: tensor<1x4x4x2xf32>, %y: tensor<3x3x2x3xf32>) -> (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) {
  %g:2 = tfl.grad @conv2d(%x, %y) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>)
  return %g#0, %g#1 : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>
}

// -----

// Tests that max_pool2d's rule is its backward op on the input.
// CHECK-LABEL: func.func private @max_pool2d.vjp(
// CHECK: tfl.max_pool2d %[[X:[^ ]*]] {
// CHECK: tfl.max_pool2d_backward %[[X]], %{{.*}} {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
func.func private @max_pool2d(%x: tensor<1x4x4x2xf32>) -> tensor<f32> {
  %0 = tfl.max_pool2d %x {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<1x2x2x2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_max_pool2d(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %g = tfl.grad @max_pool2d(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %g : tensor<1x4x4x2xf32>
}

// -----

// Tests that a float cast's rule casts the cotangent back.
// CHECK-LABEL: func.func private @cast.vjp(
// CHECK: tfl.cast %{{.*}} : tensor<3xf64> -> tensor<3xf32>
// CHECK: tfl.cast %{{.*}} : tensor<3xf32> -> tensor<3xf64>
func.func private @cast(%x: tensor<3xf64>) -> tensor<f32> {
  %0 = tfl.cast %x : tensor<3xf64> -> tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_cast(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = tfl.grad @cast(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}

// -----

// Tests that stop_gradient's operand takes no cotangent: only the direct use counts.
// CHECK-LABEL: func.func private @stop_gradient.vjp(
// CHECK: %[[S:.*]] = tfl.stop_gradient %[[X:.*]] :
// CHECK: tfl.mul %{{.*}}, %[[S]]
// CHECK: return
func.func private @stop_gradient(%x: tensor<3xf32>) -> tensor<f32> {
  %s = tfl.stop_gradient %x : tensor<3xf32>
  %0 = tfl.mul %s, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_stop_gradient(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = tfl.grad @stop_gradient(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Tests that conv2d's adjoint ops have rules (for second derivatives):
// backward-input's are a conv2d of the cotangent with the filter and a
// backward-filter of the cotangent and dy; backward-filter's are a
// backward-input of dy and the cotangent and a conv2d of the input with it.
// CHECK-LABEL: func.func private @conv_backward_input.vjp(
// CHECK: tfl.conv2d_backward_input %[[DY:[^,]*]], %[[W:[^ ]*]] {
// CHECK-DAG: tfl.conv2d %{{.*}}, %[[W]] {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32> -> tensor<1x2x2x3xf32>
// CHECK-DAG: tfl.conv2d_backward_filter %{{.*}}, %[[DY]] {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x2xf32>, tensor<1x2x2x3xf32> -> tensor<3x3x2x3xf32>
// CHECK-LABEL: func.func private @conv_backward_filter.vjp(
// CHECK: tfl.conv2d_backward_filter %[[X:[^,]*]], %[[DY:[^ ]*]] {
// CHECK-DAG: tfl.conv2d_backward_input %[[DY]], %{{.*}} {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x2x3xf32>, tensor<3x3x2x3xf32> -> tensor<1x4x4x2xf32>
// CHECK-DAG: tfl.conv2d %[[X]], %{{.*}} {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32> -> tensor<1x2x2x3xf32>
func.func private @conv_backward_input(%dy: tensor<1x2x2x3xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<f32> {
  %0 = tfl.conv2d_backward_input %dy, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x2x3xf32>, tensor<3x3x2x3xf32> -> tensor<1x4x4x2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<1x4x4x2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func private @conv_backward_filter(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x2x2x3xf32>) -> tensor<f32> {
  %0 = tfl.conv2d_backward_filter %x, %dy {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x2xf32>, tensor<1x2x2x3xf32> -> tensor<3x3x2x3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<3x3x2x3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_conv_adjoints(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x2x2x3xf32>, %w: tensor<3x3x2x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3x3x2x3xf32>, tensor<1x4x4x2xf32>, tensor<1x2x2x3xf32>) {
  %a:2 = tfl.grad @conv_backward_input(%dy, %w) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<1x2x2x3xf32>, tensor<3x3x2x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3x3x2x3xf32>)
  %b:2 = tfl.grad @conv_backward_filter(%x, %dy) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<1x4x4x2xf32>, tensor<1x2x2x3xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x2x2x3xf32>)
  return %a#0, %a#1, %b#0, %b#1 : tensor<1x2x2x3xf32>, tensor<3x3x2x3xf32>, tensor<1x4x4x2xf32>, tensor<1x2x2x3xf32>
}

// -----

// Tests the rules of pooling's adjoint ops, with respect to dy (none for
// the input): max's backward reads the cotangent at the maxima
// (max_pool2d_gather, whose own rule is max's backward again); average's
// backward averages it.
// CHECK-LABEL: func.func private @max_backward.vjp.01(
// CHECK: tfl.max_pool2d_backward %[[X:[^,]*]], %{{.*}} {
// CHECK: tfl.max_pool2d_gather %[[X]], %{{.*}} {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
// CHECK-LABEL: func.func private @avg_backward.vjp.01(
// CHECK: tfl.avg_pool2d_backward
// CHECK: tfl.avg_pool2d %{{.*}} {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
// CHECK-LABEL: func.func private @max_gather.vjp.01(
// CHECK: tfl.max_pool2d_gather %[[X:[^,]*]], %{{.*}} {
// CHECK: tfl.max_pool2d_backward %[[X]], %{{.*}} {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32> -> tensor<1x4x4x2xf32>
func.func private @max_backward(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x2x2x2xf32>) -> tensor<f32> {
  %0 = tfl.max_pool2d_backward %x, %dy {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32> -> tensor<1x4x4x2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<1x4x4x2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func private @avg_backward(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x2x2x2xf32>) -> tensor<f32> {
  %0 = tfl.avg_pool2d_backward %x, %dy {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32> -> tensor<1x4x4x2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<1x4x4x2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func private @max_gather(%x: tensor<1x4x4x2xf32>, %g: tensor<1x4x4x2xf32>) -> tensor<f32> {
  %0 = tfl.max_pool2d_gather %x, %g {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<1x2x2x2xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_pool_adjoints(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x4x4x2xf32>) {
  %a = tfl.grad @max_backward(%x, %dy) {argnums = array<i64: 1>, with_value = false} : (tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %b = tfl.grad @avg_backward(%x, %dy) {argnums = array<i64: 1>, with_value = false} : (tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = tfl.grad @max_gather(%x, %x) {argnums = array<i64: 1>, with_value = false} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %a, %b, %c : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x4x4x2xf32>
}

// -----

// Tests that relu's rule masks dy by its result (y > 0), not its input, so
// the input has one use and fuses into the op that makes it.
// CHECK-LABEL: func.func private @relu.vjp(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3xf32>
// CHECK: %[[Y:.*]] = tfl.relu %[[X]]
// CHECK: tfl.compare {{.*}}%[[Y]], %{{.*}} : tensor<3xf32>
// CHECK-NOT: tfl.compare {{.*}}%[[X]]
// CHECK: tfl.where
func.func private @relu(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.relu %x : tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_relu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = tfl.grad @relu(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Tests that all_reduce's rule is an all_reduce of the cotangents with the
// same op, for the float leaves only (the i64 leaf takes no cotangent).
// CHECK-LABEL: func.func private @all_reduce.vjp(
// CHECK: tfl.all_reduce sum %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<i64>
// CHECK: tfl.all_reduce mean %{{.*}} : tensor<3xf32>
// CHECK: tfl.all_reduce mean %{{.*}} : tensor<3xf32>
// CHECK: tfl.all_reduce sum %{{.*}} : tensor<3xf32>
// CHECK-NOT: tfl.all_reduce
// CHECK: return
func.func private @all_reduce(%x: tensor<3xf32>, %n: tensor<i64>) -> tensor<f32> {
  %0:2 = tfl.all_reduce sum %x, %n : tensor<3xf32>, tensor<i64>
  %m = tfl.all_reduce mean %0#0 : tensor<3xf32>
  %1 = tfl.mul %m, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %r = tfl.reduce_sum %1 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_all_reduce(%x: tensor<3xf32>, %n: tensor<i64>) -> tensor<3xf32> {
  %g = tfl.grad @all_reduce(%x, %n) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>, tensor<i64>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Tests that broadcast's rule reduces the cotangent to the same root, and
// reduce_to_root's broadcasts it back from there.
// CHECK-LABEL: func.func private @broadcast.vjp(
// CHECK: tfl.broadcast %{{.*}} {root = 2 : i64} : tensor<3xf32>
// CHECK: tfl.reduce_to_root %{{.*}} {root = 2 : i64} : tensor<3xf32>
// CHECK-LABEL: func.func private @reduce_to_root.vjp(
// CHECK: tfl.reduce_to_root %{{.*}} {root = 1 : i64} : tensor<3xf32>
// CHECK: tfl.broadcast %{{.*}} {root = 1 : i64} : tensor<3xf32>
func.func private @broadcast(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.broadcast %x {root = 2 : i64} : tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func private @reduce_to_root(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.reduce_to_root %x {root = 1 : i64} : tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_broadcast(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g = tfl.grad @broadcast(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  %h = tfl.grad @reduce_to_root(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %g, %h : tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests that all_gather's rule takes this rank's row of the cotangents
// summed over the ranks.
// CHECK-LABEL: func.func private @all_gather.vjp(
// CHECK: %[[SUM:.*]] = tfl.all_reduce sum %{{.*}} : tensor<2x3xf32>
// CHECK: %[[RANK:.*]] = tfl.rank : tensor<i64>
// CHECK: %[[ROW:.*]] = tfl.slice %[[SUM]][%[[RANK]]] {static_starts = array<i64: -9223372036854775808, 0>, strides = array<i64: 1, 1>} : tensor<2x3xf32>, tensor<i64> -> tensor<1x3xf32>
// CHECK: tfl.reshape %[[ROW]] : tensor<1x3xf32> -> tensor<3xf32>
func.func private @all_gather(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.all_gather %x : tensor<3xf32> -> tensor<2x3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_all_gather(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = tfl.grad @all_gather(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Tests that erf's rule dy * 2/sqrt(pi) * exp(-x^2) reads the input.
// CHECK-LABEL: func.func private @erf.vjp(
// CHECK: tfl.mul %[[X:.*]], %[[X]]
// CHECK: tfl.neg
// CHECK: tfl.exp
// CHECK: tfl.mul
// CHECK: tfl.mul
func.func private @erf(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.erf %x : tensor<3xf32>
  %r = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @use_erf(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = tfl.grad @erf(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
