// RUN: tfl-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tfl-attention-layout))' | FileCheck %s

// Tests a transformer's attention: the heads of q, k and v transposed
// from [B, T, H, E] to [B, H, T, E], the result transposed back, and the
// adjoint with the same transposes on out and dy and after dq, dk, dv.
// Both ops take [B, T, H, E] as they are (seq_major) and no transpose is
// left.
// CHECK-LABEL: func.func @heads
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<2x8x3x4xf32>, %[[K:[a-z0-9]+]]: tensor<2x8x3x4xf32>, %[[V:[a-z0-9]+]]: tensor<2x8x3x5xf32>, %[[DY:[a-z0-9]+]]: tensor<2x8x3x5xf32>)
// CHECK-NOT: tfl.transpose
// CHECK: %[[O:.*]] = tfl.attention %[[Q]], %[[K]], %[[V]] {causal = true, scale = 5.000000e-01 : f64, seq_major} : tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32> -> tensor<2x8x3x5xf32>
// CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tfl.attention_backward %[[Q]], %[[K]], %[[V]], %[[O]], %[[DY]] {causal = true, scale = 5.000000e-01 : f64, seq_major} : {{.*}} -> tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32>
// CHECK-NOT: tfl.transpose
// CHECK: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @heads(%q: tensor<2x8x3x4xf32>, %k: tensor<2x8x3x4xf32>, %v: tensor<2x8x3x5xf32>, %dy: tensor<2x8x3x5xf32>) -> (tensor<2x8x3x5xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32>) {
  %qt = tfl.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x4xf32> -> tensor<2x3x8x4xf32>
  %kt = tfl.transpose %k {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x4xf32> -> tensor<2x3x8x4xf32>
  %vt = tfl.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x5xf32> -> tensor<2x3x8x5xf32>
  %o = tfl.attention %qt, %kt, %vt {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32> -> tensor<2x3x8x5xf32>
  %ot = tfl.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x5xf32> -> tensor<2x8x3x5xf32>
  %dyt = tfl.transpose %dy {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x5xf32> -> tensor<2x3x8x5xf32>
  %dq, %dk, %dv = tfl.attention_backward %qt, %kt, %vt, %o, %dyt {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32> -> tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>
  %dqt = tfl.transpose %dq {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x4xf32> -> tensor<2x8x3x4xf32>
  %dkt = tfl.transpose %dk {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x4xf32> -> tensor<2x8x3x4xf32>
  %dvt = tfl.transpose %dv {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x5xf32> -> tensor<2x8x3x5xf32>
  return %ot, %dqt, %dkt, %dvt : tensor<2x8x3x5xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32>
}

// -----

// Tests that a result nothing transposes back keeps one transpose (of the
// seq_major result, to the layout its users read), and that rank 3 ([T,
// H, E]) folds too.
// CHECK-LABEL: func.func @rank3
// CHECK: %[[O:.*]] = tfl.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = false, scale = 1.000000e+00 : f64, seq_major} : tensor<8x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32> -> tensor<8x2x4xf32>
// CHECK: %[[T:.*]] = tfl.transpose %[[O]] {perm = array<i64: 1, 0, 2>} : tensor<8x2x4xf32> -> tensor<2x8x4xf32>
// CHECK: return %[[T]]
func.func @rank3(%q: tensor<8x2x4xf32>, %k: tensor<6x2x4xf32>, %v: tensor<6x2x4xf32>) -> tensor<2x8x4xf32> {
  %qt = tfl.transpose %q {perm = array<i64: 1, 0, 2>} : tensor<8x2x4xf32> -> tensor<2x8x4xf32>
  %kt = tfl.transpose %k {perm = array<i64: 1, 0, 2>} : tensor<6x2x4xf32> -> tensor<2x6x4xf32>
  %vt = tfl.transpose %v {perm = array<i64: 1, 0, 2>} : tensor<6x2x4xf32> -> tensor<2x6x4xf32>
  %o = tfl.attention %qt, %kt, %vt {causal = false, scale = 1.0 : f64} : tensor<2x8x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x8x4xf32>
  return %o : tensor<2x8x4xf32>
}

// -----

// Tests that nothing folds when an operand is not a head transpose: v
// made in [B, H, S, F] already, or k transposed some other way.
// CHECK-LABEL: func.func @not_all_heads
// CHECK: tfl.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true, scale = 5.000000e-01 : f64} :
// CHECK-NOT: seq_major
// CHECK-LABEL: func.func @other_perm
// CHECK: tfl.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true, scale = 5.000000e-01 : f64} :
// CHECK-NOT: seq_major
func.func @not_all_heads(%q: tensor<2x8x3x4xf32>, %k: tensor<2x8x3x4xf32>, %v: tensor<2x3x8x5xf32>) -> tensor<2x3x8x5xf32> {
  %qt = tfl.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x4xf32> -> tensor<2x3x8x4xf32>
  %kt = tfl.transpose %k {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x4xf32> -> tensor<2x3x8x4xf32>
  %o = tfl.attention %qt, %kt, %v {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32> -> tensor<2x3x8x5xf32>
  return %o : tensor<2x3x8x5xf32>
}
func.func @other_perm(%q: tensor<2x8x3x4xf32>, %k: tensor<3x2x8x4xf32>, %v: tensor<2x8x3x4xf32>) -> tensor<2x3x8x4xf32> {
  %qt = tfl.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x4xf32> -> tensor<2x3x8x4xf32>
  %kt = tfl.transpose %k {perm = array<i64: 1, 0, 2, 3>} : tensor<3x2x8x4xf32> -> tensor<2x3x8x4xf32>
  %vt = tfl.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x4xf32> -> tensor<2x3x8x4xf32>
  %o = tfl.attention %qt, %kt, %vt {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32> -> tensor<2x3x8x4xf32>
  return %o : tensor<2x3x8x4xf32>
}
