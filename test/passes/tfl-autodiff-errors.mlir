// RUN: tfl-opt %s -split-input-file -tfl-autodiff -verify-diagnostics

// Every float op of the tfl dialect has a reverse rule; an op without one
// (here from another dialect) is an error naming it at its location.
func.func private @no_rule(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{no gradient rule for 'arith.addf'; it cannot be differentiated}}
  %0 = arith.addf %x, %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @use_no_rule(%x: tensor<f32>) -> tensor<f32> {
  %0 = tfl.grad @no_rule(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Forward mode's rules are the reverse rules transposed: an op without a
// reverse rule has no forward rule either, an error naming it.
func.func private @no_forward_rule(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{no forward rule for 'arith.addf': its pullback is not linear in tfl ops}}
  %0 = arith.addf %x, %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @use_no_forward_rule(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0, %1 = tfl.jvp @no_forward_rule(%x, %t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// A seeded grad (vjp_fn's) takes one cotangent of each result's type.
func.func private @two_results(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %0 = tfl.exp %x : tensor<3xf32>
  %1 = tfl.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %0, %1 : tensor<3xf32>, tensor<f32>
}
func.func @use_two_results(%x: tensor<3xf32>, %dy: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{cotangent 0 does not have the type of the callee's result 0}}
  %0 = tfl.grad @two_results(%x, %dy) {argnums = array<i64: 0>, seeded, with_value = false} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
