// RUN: tfl-opt %s -split-input-file -tfl-outline-host-work | FileCheck %s

// tfl-outline-host-work: on the "cuda" target, each run of consecutive ops
// placed on the CPU becomes a host function (tfl.device = "cpu") and a call
// where the run was; constants are cloned into it, copies between devices
// stay outside it, and its arguments are not written.

// Tests one run between two copies: the copy into the CPU before the call,
// the copy out of it after, the constant cloned in, the run's value used
// after it as the function's result.
// CHECK-LABEL: func.func private @simple.host0(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32> {bufferization.writable = false})
// CHECK-SAME: -> tensor<4xf32> attributes {tfl.device = "cpu"}
// CHECK: %[[K:.*]] = tfl.constant {{.*}}dense<2.000000e+00>
// CHECK: %[[M:.*]] = tfl.mul %[[A]], %[[K]] {tfl.device = "cpu"}
// CHECK: %[[T:.*]] = tfl.tanh %[[M]] {tfl.device = "cpu"}
// CHECK: return %[[T]]
// CHECK-LABEL: func.func @simple(
// CHECK: %[[C:.*]] = tfl.to_device %arg0 to "cpu"
// CHECK-NEXT: %[[R:.*]] = call @simple.host0(%[[C]])
// CHECK-NEXT: %[[B:.*]] = tfl.to_device %[[R]] to "cuda"
// CHECK-NEXT: %[[E:.*]] = tfl.exp %[[B]]
// CHECK-NEXT: return %[[E]]
module attributes {tfl.target = "cuda"} {
  func.func @simple(%x: tensor<4xf32>) -> tensor<4xf32> {
    %k = tfl.constant {tfl.device = "cpu"} dense<2.0> : tensor<4xf32>
    %c = tfl.to_device %x to "cpu" : tensor<4xf32>
    %m = tfl.mul %c, %k {tfl.device = "cpu"} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %t = tfl.tanh %m {tfl.device = "cpu"} : tensor<4xf32>
    %b = tfl.to_device %t to "cuda" : tensor<4xf32>
    %e = tfl.exp %b : tensor<4xf32>
    return %e : tensor<4xf32>
  }
}

// -----

// Tests that an op on the GPU splits two runs (two functions, the first
// one's value passed to the second through the caller), that copies
// between the runs' ops move before or after the call by what they read,
// and that a run with no value used after it has no result (a print).
// CHECK-LABEL: func.func private @split.host0(
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: tfl.tanh
// CHECK: tfl.neg
// CHECK: return
// CHECK-LABEL: func.func private @split.host1(
// CHECK-SAME: %{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: tensor<4xf32> {bufferization.writable = false})
// CHECK-NOT: -> 
// CHECK: tfl.add
// CHECK: tfl.print
// CHECK: return
// CHECK-LABEL: func.func @split(
// CHECK: %[[C:.*]] = tfl.to_device %arg0 to "cpu"
// CHECK-NEXT: %[[D:.*]] = tfl.to_device %arg1 to "cpu"
// CHECK-NEXT: %[[R:.*]]:2 = call @split.host0(%[[C]], %[[D]])
// CHECK-NEXT: %[[G:.*]] = tfl.to_device %[[R]]#0 to "cuda"
// CHECK-NEXT: %[[E:.*]] = tfl.exp %[[G]]
// CHECK-NEXT: %[[H:.*]] = tfl.to_device %[[E]] to "cpu"
// CHECK-NEXT: call @split.host1(%[[R]]#1, %[[H]])
// CHECK-NEXT: return %[[E]]
module attributes {tfl.target = "cuda"} {
  func.func @split(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %c = tfl.to_device %x to "cpu" : tensor<4xf32>
    %t = tfl.tanh %c {tfl.device = "cpu"} : tensor<4xf32>
    %g = tfl.to_device %t to "cuda" : tensor<4xf32>
    %d = tfl.to_device %y to "cpu" : tensor<4xf32>
    %n = tfl.neg %d {tfl.device = "cpu"} : tensor<4xf32>
    %e = tfl.exp %g : tensor<4xf32>
    %h = tfl.to_device %e to "cpu" : tensor<4xf32>
    %s = tfl.add %n, %h {tfl.device = "cpu"} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    tfl.print %s : tensor<4xf32> {tfl.device = "cpu", format = "{}\0A"}
    return %e : tensor<4xf32>
  }
}

// -----

// Tests that a loop placed on the CPU with everything in it moves into the
// host function whole (its bounds passed in), and that a loop with an op
// on the GPU inside stays, its CPU ops outlined within its body.
// (The loop's body is outlined first: host0 and host1; a terminator placed
// on the CPU stays where it is.)
// CHECK-LABEL: func.func private @loops.host0(
// CHECK: tfl.sin
// CHECK-LABEL: func.func private @loops.host1(
// CHECK: tfl.neg
// CHECK-LABEL: func.func private @loops.host2(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: tensor<4xf32> {bufferization.writable = false})
// CHECK: scf.for
// CHECK: tfl.tanh
// CHECK: } {tfl.device = "cpu"}
// CHECK-LABEL: func.func @loops(
// CHECK: %[[L:.*]] = call @loops.host2(
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %[[L]])
// CHECK: %[[C:.*]] = func.call @loops.host0(%[[S]])
// CHECK: tfl.to_device %[[C]] to "cuda"
// CHECK: tfl.exp
// CHECK: %[[N:.*]] = func.call @loops.host1(
// CHECK-NEXT: scf.yield {tfl.device = "cpu"} %[[N]]
module attributes {tfl.target = "cuda"} {
  func.func @loops(%x: tensor<4xf32>, %lb: index, %ub: index, %st: index) -> tensor<4xf32> {
    %c = tfl.to_device %x to "cpu" : tensor<4xf32>
    %r = scf.for %i = %lb to %ub step %st iter_args(%s = %c) -> tensor<4xf32> {
      %t = tfl.tanh %s {tfl.device = "cpu"} : tensor<4xf32>
      scf.yield %t : tensor<4xf32>
    } {tfl.device = "cpu"}
    %q = scf.for %i = %lb to %ub step %st iter_args(%s = %r) -> tensor<4xf32> {
      %t = tfl.sin %s {tfl.device = "cpu"} : tensor<4xf32>
      %g = tfl.to_device %t to "cuda" : tensor<4xf32>
      %e = tfl.exp %g : tensor<4xf32>
      %h = tfl.to_device %e to "cpu" : tensor<4xf32>
      %n = tfl.neg %h {tfl.device = "cpu"} : tensor<4xf32>
      scf.yield {tfl.device = "cpu"} %n : tensor<4xf32>
    } {tfl.device = "cpu"}
    %b = tfl.to_device %q to "cuda" : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}

// -----

// Tests that a collective placed on the CPU stays where it is (NCCL's
// buffers live on the device), splitting the run around it.
// CHECK-LABEL: func.func private @collective.host0(
// CHECK: tfl.tanh
// CHECK-NOT: tfl.all_reduce
// CHECK: return
// CHECK-LABEL: func.func private @collective.host1(
// CHECK: tfl.exp
// CHECK-LABEL: func.func @collective(
// CHECK: call @collective.host0
// CHECK-NEXT: tfl.all_reduce sum
// CHECK-NEXT: call @collective.host1
module attributes {tfl.target = "cuda"} {
  func.func @collective(%x: tensor<3xf32>) -> tensor<3xf32> {
    %c = tfl.to_device %x to "cpu" : tensor<3xf32>
    %t = tfl.tanh %c {tfl.device = "cpu"} : tensor<3xf32>
    %r = tfl.all_reduce sum %t {tfl.device = "cpu"} : tensor<3xf32>
    %e = tfl.exp %r {tfl.device = "cpu"} : tensor<3xf32>
    %b = tfl.to_device %e to "cuda" : tensor<3xf32>
    return %b : tensor<3xf32>
  }
}

// -----

// Tests that nothing changes on the CPU target.
// CHECK-LABEL: func.func @on_cpu(
// CHECK-NOT: call
// CHECK: tfl.tanh
module attributes {tfl.target = "cpu"} {
  func.func @on_cpu(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = tfl.tanh %x {tfl.device = "cpu"} : tensor<4xf32>
    return %t : tensor<4xf32>
  }
}
