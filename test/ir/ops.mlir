// RUN: tfl-opt %s -split-input-file | tfl-opt -split-input-file | FileCheck %s

// Tests that constants of every element type round-trip.
// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK: tfl.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
  %0 = tfl.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  // CHECK: tfl.constant dense<3.000000e+00> : tensor<f64>
  %1 = tfl.constant dense<3.0> : tensor<f64>
  // CHECK: tfl.constant dense<[1, 2]> : tensor<2xi32>
  %2 = tfl.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK: tfl.constant dense<7> : tensor<i64>
  %3 = tfl.constant dense<7> : tensor<i64>
  // CHECK: tfl.constant dense<-1> : tensor<3xi8>
  %4 = tfl.constant dense<255> : tensor<3xi8>
  // CHECK: tfl.constant dense<[true, false]> : tensor<2xi1>
  %5 = tfl.constant dense<[true, false]> : tensor<2xi1>
  return
}

// -----

// Tests that the broadcasting binary ops round-trip with mixed shapes.
// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<3x1xf32>, %b: tensor<4xf32>, %s: tensor<f32>,
                  %i: tensor<2x2xi64>) {
  // CHECK: tfl.add %{{.*}}, %{{.*}} : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
  %0 = tfl.add %a, %b : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
  // CHECK: tfl.sub %{{.*}}, %{{.*}} : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>
  %1 = tfl.sub %a, %s : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>
  // CHECK: tfl.mul %{{.*}}, %{{.*}} : tensor<2x2xi64>, tensor<2x2xi64> -> tensor<2x2xi64>
  %2 = tfl.mul %i, %i : tensor<2x2xi64>, tensor<2x2xi64> -> tensor<2x2xi64>
  // CHECK: tfl.div %{{.*}}, %{{.*}} : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %3 = tfl.div %s, %b : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfl.add %{{.*}}, %{{.*}} : tensor<?x1xf32>, tensor<4xf32> -> tensor<?x4xf32>
  %d = tensor.cast %a : tensor<3x1xf32> to tensor<?x1xf32>
  %4 = tfl.add %d, %b : tensor<?x1xf32>, tensor<4xf32> -> tensor<?x4xf32>
  return
}

// -----

// Tests neg and cast.
// CHECK-LABEL: func.func @unary
func.func @unary(%a: tensor<2x3xf32>, %i: tensor<3xi64>) {
  // CHECK: tfl.neg %{{.*}} : tensor<2x3xf32>
  %0 = tfl.neg %a : tensor<2x3xf32>
  // CHECK: tfl.cast %{{.*}} : tensor<3xi64> -> tensor<3xf32>
  %1 = tfl.cast %i : tensor<3xi64> -> tensor<3xf32>
  // CHECK: tfl.cast %{{.*}} : tensor<2x3xf32> -> tensor<2x3xi1>
  %2 = tfl.cast %a : tensor<2x3xf32> -> tensor<2x3xi1>
  return
}

// -----

// Tests matmul, plain and batched.
// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3xf32>, %d: tensor<5x3x4xf32>) -> tensor<2x4xf32> {
  // CHECK: tfl.matmul %{{.*}}, %{{.*}} : tensor<5x2x3xf32>, tensor<5x3x4xf32> -> tensor<5x2x4xf32>
  %1 = tfl.matmul %c, %d : tensor<5x2x3xf32>, tensor<5x3x4xf32> -> tensor<5x2x4xf32>
  // CHECK: tfl.matmul %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %0 = tfl.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests print with and without inputs, escaped braces, and bytes as text.
// CHECK-LABEL: func.func @print
func.func @print(%a: tensor<2x2xf32>, %n: tensor<i64>, %t: tensor<5xi8>) {
  // CHECK: tfl.print %{{.*}} : tensor<5xi8> {format = "{:s}"}
  tfl.print %t : tensor<5xi8> {format = "{:s}"}
  // CHECK: tfl.print %{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<i64> {format = "x = {}, n = {}\0A"}
  tfl.print %a, %n : tensor<2x2xf32>, tensor<i64> {format = "x = {}, n = {}\n"}
  // CHECK: tfl.print {format = "{{[{][{]}}literal{{[}][}]}}\0A"}
  tfl.print {format = "{{literal}}\n"}
  // CHECK: tfl.print %{{.*}} : tensor<i64> {format = "step {:03d}\0A"}
  tfl.print %n : tensor<i64> {format = "step {:03d}\n"}
  // CHECK: tfl.print_template {text = "{data_dir}{{[{][{]}}x{{[}][}]}}"}
  tfl.print_template {text = "{data_dir}{{x}}"}
  return
}

// -----

// Tests comparisons and not.
// CHECK-LABEL: func.func @compare
func.func @compare(%a: tensor<3xf32>, %s: tensor<f32>, %b: tensor<i1>) {
  // CHECK: tfl.compare lt, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
  %0 = tfl.compare lt, %a, %s : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
  // CHECK: tfl.compare ne, %{{.*}}, %{{.*}} : tensor<i1>, tensor<i1> -> tensor<i1>
  %1 = tfl.compare ne, %b, %b : tensor<i1>, tensor<i1> -> tensor<i1>
  // CHECK: tfl.not %{{.*}} : tensor<i1>
  %2 = tfl.not %b : tensor<i1>
  return
}

// -----

// Tests floor division, remainder and power.
// CHECK-LABEL: func.func @division_power
func.func @division_power(%i: tensor<3xi64>, %f: tensor<f32>) {
  // CHECK: tfl.floordiv %{{.*}}, %{{.*}} : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %0 = tfl.floordiv %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  // CHECK: tfl.mod %{{.*}}, %{{.*}} : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %1 = tfl.mod %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  // CHECK: tfl.pow %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32> -> tensor<f32>
  %2 = tfl.pow %f, %f : tensor<f32>, tensor<f32> -> tensor<f32>
  return
}

// -----

// Tests the elementwise math built-ins, maximum/minimum and where.
// CHECK-LABEL: func.func @math
func.func @math(%f: tensor<3xf32>, %i: tensor<3xi64>, %c: tensor<3xi1>) {
  // CHECK: tfl.exp %{{.*}} : tensor<3xf32>
  %0 = tfl.exp %f : tensor<3xf32>
  // CHECK: tfl.log1p %{{.*}} : tensor<3xf32>
  %1 = tfl.log1p %f : tensor<3xf32>
  // CHECK: tfl.sigmoid %{{.*}} : tensor<3xf32>
  %2 = tfl.sigmoid %f : tensor<3xf32>
  // CHECK: tfl.round %{{.*}} : tensor<3xf32>
  %3 = tfl.round %f : tensor<3xf32>
  // CHECK: tfl.abs %{{.*}} : tensor<3xi64>
  %4 = tfl.abs %i : tensor<3xi64>
  // CHECK: tfl.relu %{{.*}} : tensor<3xf32>
  %5 = tfl.relu %f : tensor<3xf32>
  // CHECK: tfl.maximum %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %6 = tfl.maximum %f, %f : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  // CHECK: tfl.minimum %{{.*}}, %{{.*}} : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %7 = tfl.minimum %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  // CHECK: tfl.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %8 = tfl.where %c, %f, %f : tensor<3xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

// Tests reductions and arg-reductions.
// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3xf32>) {
  // CHECK: tfl.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  %0 = tfl.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK: tfl.reduce_max %{{.*}} {axes = array<i64: 0, 1>, keepdims = true} : tensor<2x3xf32> -> tensor<1x1xf32>
  %1 = tfl.reduce_max %x {axes = array<i64: 0, 1>, keepdims = true} : tensor<2x3xf32> -> tensor<1x1xf32>
  // CHECK: tfl.argmax %{{.*}} {axis = 0 : i64, keepdims = false} : tensor<2x3xf32> -> tensor<3xi64>
  %2 = tfl.argmax %x {axis = 0 : i64, keepdims = false} : tensor<2x3xf32> -> tensor<3xi64>
  // CHECK: tfl.argmin %{{.*}} {keepdims = false} : tensor<2x3xf32> -> tensor<i64>
  %3 = tfl.argmin %x {keepdims = false} : tensor<2x3xf32> -> tensor<i64>
  return
}

// -----

// Tests the data-movement ops.
// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<2x3xf32>, %c: tensor<3x1xf32>) {
  // CHECK: tfl.broadcast_to %{{.*}} : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %0 = tfl.broadcast_to %c : tensor<3x1xf32> -> tensor<2x3x4xf32>
  // CHECK: tfl.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
  %1 = tfl.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK: tfl.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = tfl.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: tfl.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %3 = tfl.concat %x, %x {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

// Tests slice with static and dynamic starts.
// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<10x3xf32>, %s: tensor<i64>) {
  // CHECK: tfl.slice %{{.*}}[] {static_starts = array<i64: 2, 2>, strides = array<i64: 2, -1>} : tensor<10x3xf32> -> tensor<4x3xf32>
  %0 = tfl.slice %x[] {static_starts = array<i64: 2, 2>, strides = array<i64: 2, -1>} : tensor<10x3xf32> -> tensor<4x3xf32>
  // CHECK: tfl.slice %{{.*}}[%{{.*}}] {static_starts = array<i64: -9223372036854775808, 0>, strides = array<i64: 1, 1>} : tensor<10x3xf32>, tensor<i64> -> tensor<4x3xf32>
  %1 = tfl.slice %x[%s] {static_starts = array<i64: -9223372036854775808, 0>, strides = array<i64: 1, 1>} : tensor<10x3xf32>, tensor<i64> -> tensor<4x3xf32>
  return
}

// -----

// Tests the effectful ops: flag, now, assert.
// CHECK-LABEL: func.func @effects
func.func @effects(%c: tensor<i1>) {
  // CHECK: tfl.flag {name = "epochs"} : tensor<i64>
  %0 = tfl.flag {name = "epochs"} : tensor<i64>
  // CHECK: tfl.now : tensor<f64>
  %1 = tfl.now : tensor<f64>
  // CHECK: tfl.assert %{{.*}} {message = "ok"} : tensor<i1>
  tfl.assert %c {message = "ok"} : tensor<i1>
  return
}

// -----

// Tests gather.
// CHECK-LABEL: func.func @gather
func.func @gather(%x: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // CHECK: tfl.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  %0 = tfl.gather %x, %i {axis = 0 : i64} : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  return
}

// -----

// Tests the random ops.
// CHECK-LABEL: func.func @random
func.func @random(%n: tensor<i64>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: tfl.seed %{{.*}} : tensor<i64>
  tfl.seed %n : tensor<i64>
  // CHECK: tfl.random_normal : tensor<2x3xf32>
  %0 = tfl.random_normal : tensor<2x3xf32>
  %1 = tfl.random_normal : tensor<2x3xf32>
  // CHECK: tfl.random_uniform : tensor<4xf64>
  %2 = tfl.random_uniform : tensor<4xf64>
  // CHECK: tfl.shuffle_indices : tensor<10xi64>
  %3 = tfl.shuffle_indices : tensor<10xi64>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Tests check_numerics.
// CHECK-LABEL: func.func @check_numerics
func.func @check_numerics(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: tfl.check_numerics %{{.*}} {message = "x"} : tensor<2xf32>
  %0 = tfl.check_numerics %x {message = "x"} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests the file ops.
// CHECK-LABEL: func.func @files
func.func @files(%x: tensor<2x3xf32>, %v: tensor<f64>, %s: tensor<i64>) {
  // CHECK: tfl.load_data {format = "idx", path = "a.idx"} : tensor<4x28x28xi8>
  %0 = tfl.load_data {format = "idx", path = "a.idx"} : tensor<4x28x28xi8>
  // CHECK: tfl.encode_text {text = "Q: {prompt}"} : tensor<64xi8>
  %e = tfl.encode_text {text = "Q: {prompt}"} : tensor<64xi8>
  // CHECK: tfl.save_npy %{{.*}} {path = "x.npy"} : tensor<2x3xf32>
  tfl.save_npy %x {path = "x.npy"} : tensor<2x3xf32>
  // CHECK: tfl.save %{{.*}}, %{{.*}} {names = ["w", "b"], path = "c.st"} : tensor<2x3xf32>, tensor<f64>
  tfl.save %x, %v {names = ["w", "b"], path = "c.st"} : tensor<2x3xf32>, tensor<f64>
  // CHECK: tfl.load {names = ["w", "b"], path = "c.st"} : tensor<2x3xf32>, tensor<f64>
  %1:2 = tfl.load {names = ["w", "b"], path = "c.st"} : tensor<2x3xf32>, tensor<f64>
  // CHECK: tfl.log_scalar %{{.*}}, %{{.*}} {name = "loss"} : tensor<f64>, tensor<i64>
  tfl.log_scalar %v, %s {name = "loss"} : tensor<f64>, tensor<i64>
  return
}

// -----

// Tests conv2d and pooling.
// CHECK-LABEL: func.func @windows
func.func @windows(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // CHECK: tfl.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<2x8x8x4xf32>
  %0 = tfl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<2x8x8x4xf32>
  // CHECK: tfl.max_pool2d %{{.*}} {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xf32> -> tensor<2x4x4x3xf32>
  %1 = tfl.max_pool2d %x {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xf32> -> tensor<2x4x4x3xf32>
  // CHECK: tfl.avg_pool2d %{{.*}} {padding = array<i64: 0, 1, 0, 1>, size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xf32> -> tensor<2x4x4x3xf32>
  %2 = tfl.avg_pool2d %x {padding = array<i64: 0, 1, 0, 1>, size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<2x8x8x3xf32> -> tensor<2x4x4x3xf32>
  return
}

// -----

// Tests the autodiff ops: grad, jvp, jacobian, stop_gradient, the tape,
// embed_slice.
// CHECK-LABEL: func.func @autodiff_ops
func.func @autodiff_ops(%x: tensor<3xf32>, %i: tensor<i64>) -> tensor<3xf32> {
  // CHECK: tfl.grad @autodiff_ops(%{{.*}}, %{{.*}}) {argnums = array<i64: 0>, with_value = false}
  %g = tfl.grad @autodiff_ops(%x, %i) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>, tensor<i64>) -> tensor<3xf32>
  // CHECK: tfl.jvp @autodiff_ops(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<3xf32>, tensor<i64>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>)
  %y, %ty = tfl.jvp @autodiff_ops(%x, %i, %g, %i) : (tensor<3xf32>, tensor<i64>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>)
  // CHECK: tfl.jacobian @autodiff_ops(%{{.*}}, %{{.*}}) {argnums = array<i64: 0>, forward = true} : (tensor<3xf32>, tensor<i64>) -> tensor<3x3xf32>
  %j = tfl.jacobian @autodiff_ops(%x, %i) {argnums = array<i64: 0>, forward = true} : (tensor<3xf32>, tensor<i64>) -> tensor<3x3xf32>
  // CHECK: tfl.stop_gradient %{{.*}} : tensor<3xf32>
  %0 = tfl.stop_gradient %x : tensor<3xf32>
  // CHECK: tfl.tape_push %{{.*}} {tape = 0 : i64} : tensor<3xf32>
  tfl.tape_push %0 {tape = 0} : tensor<3xf32>
  // CHECK: tfl.tape_push %{{.*}} {replay, tape = 0 : i64} : tensor<3xf32>
  tfl.tape_push %0 {replay, tape = 0} : tensor<3xf32>
  // CHECK: %[[P:.*]] = tfl.tape_size {tape = 0 : i64} : i64
  %p = tfl.tape_size {tape = 0} : i64
  // CHECK: tfl.tape_read %[[P]] {tape = 0 : i64} : tensor<3xf32>
  %1 = tfl.tape_read %p {tape = 0} : tensor<3xf32>
  // CHECK: tfl.tape_write %[[P]], %{{.*}} {tape = 1 : i64} : tensor<3xf32>
  tfl.tape_write %p, %1 {tape = 1} : tensor<3xf32>
  // CHECK: tfl.tape_add %[[P]], %{{.*}} {tape = 1 : i64} : tensor<3xf32>
  tfl.tape_add %p, %1 {tape = 1} : tensor<3xf32>
  // CHECK: tfl.tape_accumulated %[[P]] {tape = 1 : i64} : tensor<3xf32>
  %a = tfl.tape_accumulated %p {tape = 1} : tensor<3xf32>
  // CHECK: tfl.tape_rewind %[[P]] {tape = 0 : i64} : i64
  tfl.tape_rewind %p {tape = 0} : i64
  // CHECK: tfl.tape_rewind %[[P]] {release, tape = 0 : i64} : i64
  tfl.tape_rewind %p {release, tape = 0} : i64
  // CHECK: tfl.embed_slice %{{.*}}[%{{.*}}] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 2>} : tensor<2xf32>, tensor<i64> -> tensor<5xf32>
  %s = tfl.slice %1[] {static_starts = array<i64: 0>, strides = array<i64: 1>} : tensor<3xf32> -> tensor<2xf32>
  %2 = tfl.embed_slice %s[%i] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 2>} : tensor<2xf32>, tensor<i64> -> tensor<5xf32>
  return %1 : tensor<3xf32>
}

// -----

// Tests a function's frame of tapes.
// CHECK-LABEL: func.func @tape_frame
func.func @tape_frame() {
  // CHECK: tfl.tape_enter
  tfl.tape_enter
  // CHECK: tfl.tape_exit
  tfl.tape_exit
  return
}

// -----

// Tests conv2d's adjoint ops.
// CHECK-LABEL: func.func @conv_adjoints
func.func @conv_adjoints(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %dy: tensor<1x6x6x4xf32>) {
  // CHECK: tfl.conv2d_backward_input
  %0 = tfl.conv2d_backward_input %dy, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x6x6x4xf32>, tensor<3x3x3x4xf32> -> tensor<1x8x8x3xf32>
  // CHECK: tfl.conv2d_backward_filter
  %1 = tfl.conv2d_backward_filter %x, %dy {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x8x3xf32>, tensor<1x6x6x4xf32> -> tensor<3x3x3x4xf32>
  return
}

// -----

// Tests scatter_add and pooling's adjoints.
// CHECK-LABEL: func.func @adjoint_ops
func.func @adjoint_ops(%dy: tensor<3x4xf32>, %i: tensor<3xi64>, %x: tensor<1x4x4x2xf32>, %dp: tensor<1x2x2x2xf32>) {
  // CHECK: tfl.scatter_add %{{.*}}, %{{.*}} {axis = 0 : i64}
  %0 = tfl.scatter_add %dy, %i {axis = 0 : i64} : tensor<3x4xf32>, tensor<3xi64> -> tensor<10x4xf32>
  // CHECK: tfl.avg_pool2d_backward
  %1 = tfl.avg_pool2d_backward %x, %dp {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32> -> tensor<1x4x4x2xf32>
  return
}

// -----

// Tests max pooling's gather (the adjoint of its backward) and the random
// generator's state ops.
// CHECK-LABEL: func.func @pool_gather_and_random_state
func.func @pool_gather_and_random_state(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: tfl.max_pool2d_gather %{{.*}}, %{{.*}} {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  %0 = tfl.max_pool2d_gather %x, %x {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  // CHECK: %[[S:.*]] = tfl.random_state : tensor<2xi64>
  // CHECK: tfl.set_random_state %[[S]] : tensor<2xi64>
  %s = tfl.random_state : tensor<2xi64>
  tfl.set_random_state %s : tensor<2xi64>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Tests the collectives: the world's size and this rank, all_reduce (sum
// and mean, over a tree's leaves of mixed dtypes), broadcast and its
// adjoint, and an all_reduce split into start and wait.
// CHECK-LABEL: func.func @collectives
func.func @collectives(%w: tensor<3x2xf32>, %n: tensor<i64>) -> tensor<3x2xf32> {
  // CHECK: tfl.rank : tensor<i64>
  // CHECK: tfl.world_size : tensor<i64>
  %r = tfl.rank : tensor<i64>
  %s = tfl.world_size : tensor<i64>
  // CHECK: %{{.*}}:2 = tfl.all_reduce sum %{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<i64>
  %0:2 = tfl.all_reduce sum %w, %n : tensor<3x2xf32>, tensor<i64>
  // CHECK: tfl.all_reduce mean %{{.*}} : tensor<3x2xf32>
  %1 = tfl.all_reduce mean %0#0 : tensor<3x2xf32>
  // CHECK: tfl.broadcast %{{.*}} {root = 1 : i64} : tensor<3x2xf32>
  %2 = tfl.broadcast %1 {root = 1 : i64} : tensor<3x2xf32>
  // CHECK: tfl.reduce_to_root %{{.*}} {root = 0 : i64} : tensor<3x2xf32>
  %3 = tfl.reduce_to_root %2 {root = 0 : i64} : tensor<3x2xf32>
  // CHECK: %[[REQ:.*]] = tfl.all_reduce_start mean %{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xf32>
  // CHECK: tfl.all_reduce_wait %[[REQ]] : tensor<3x2xf32>, tensor<3x2xf32>
  %req = tfl.all_reduce_start mean %3, %2 : tensor<3x2xf32>, tensor<3x2xf32>
  %4:2 = tfl.all_reduce_wait %req : tensor<3x2xf32>, tensor<3x2xf32>
  return %4#0 : tensor<3x2xf32>
}

// -----

// Tests all_gather: a row per rank on a new leading axis.
// CHECK-LABEL: func.func @all_gather
func.func @all_gather(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: tfl.all_gather %{{.*}} : tensor<3xf32> -> tensor<2x3xf32>
  %0 = tfl.all_gather %x : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests the ops of the prompt and the eager debugger: a session variable's
// leaves read and stored, and debug points (one a breakpoint).
// CHECK-LABEL: func.func @session
func.func @session() {
  // CHECK: %[[W:.*]] = tfl.session_value {leaf = 0 : i64, name = "p"} : tensor<3x2xf32>
  // CHECK: %[[B:.*]] = tfl.session_value {leaf = 1 : i64, name = "p"} : tensor<2xf32>
  %w = tfl.session_value {leaf = 0 : i64, name = "p"} : tensor<3x2xf32>
  %b = tfl.session_value {leaf = 1 : i64, name = "p"} : tensor<2xf32>
  // CHECK: tfl.debug_point %[[W]], %[[B]] {names = ["p"], scope = 0 : i64} : tensor<3x2xf32>, tensor<2xf32>
  tfl.debug_point %w, %b {names = ["p"], scope = 0 : i64} : tensor<3x2xf32>, tensor<2xf32>
  // CHECK: tfl.debug_point {names = [], scope = 1 : i64, stop}
  tfl.debug_point {names = [], scope = 1 : i64, stop}
  // CHECK: tfl.session_store %[[W]], %[[B]] {name = "p"} : tensor<3x2xf32>, tensor<2xf32>
  tfl.session_store %w, %b {name = "p"} : tensor<3x2xf32>, tensor<2xf32>
  return
}

// -----

// Tests a batch (a dynamic dim): its size as a value, and a convolution
// and pooling whose batch is given when the program runs.
// CHECK-LABEL: func.func @batch
func.func @batch(%x: tensor<?x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // CHECK: tfl.dim %{{.*}} {axis = 0 : i64} : tensor<?x8x8x3xf32> -> tensor<i64>
  %0 = tfl.dim %x {axis = 0 : i64} : tensor<?x8x8x3xf32> -> tensor<i64>
  // CHECK: tfl.conv2d {{.*}} : tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<?x6x6x4xf32>
  %1 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<?x6x6x4xf32>
  // CHECK: tfl.max_pool2d {{.*}} : tensor<?x6x6x4xf32> -> tensor<?x3x3x4xf32>
  %2 = tfl.max_pool2d %1 {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x6x6x4xf32> -> tensor<?x3x3x4xf32>
  return
}

// -----

// Tests attention and its adjoint.
// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x3x8x4xf32>, %k: tensor<2x3x6x4xf32>, %v: tensor<2x3x6x5xf32>, %dy: tensor<2x3x8x5xf32>) -> (tensor<2x3x8x5xf32>, tensor<2x3x6x4xf32>) {
  // CHECK: %[[O:.*]] = tfl.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true, scale = 5.000000e-01 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x6x4xf32>, tensor<2x3x6x5xf32> -> tensor<2x3x8x5xf32>
  %0 = tfl.attention %q, %k, %v {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x6x4xf32>, tensor<2x3x6x5xf32> -> tensor<2x3x8x5xf32>
  // CHECK: tfl.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %{{.*}} {causal = true
  %dq, %dk, %dv = tfl.attention_backward %q, %k, %v, %0, %dy {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x6x4xf32>, tensor<2x3x6x5xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32> -> tensor<2x3x8x4xf32>, tensor<2x3x6x4xf32>, tensor<2x3x6x5xf32>
  return %0, %dk : tensor<2x3x8x5xf32>, tensor<2x3x6x4xf32>
}
