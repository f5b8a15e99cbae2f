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
