// RUN: tfl-opt %s -split-input-file -tfl-place-devices | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-place-devices=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: tfl-opt %s -split-input-file -tfl-place-devices -canonicalize | FileCheck %s --check-prefix=CANON

// Placement: an op runs where its tfl.device (or an enclosing op's or
// function's) says, else on the module's tfl.target; a value used on
// another device than the one it was made on is copied there once, right
// after it is made. On the CPU target every device is the CPU.

// Tests the copies into and out of a CPU op on the GPU target, one copy per
// value and device however many users, and that a copy the program asked
// for to where its value already is goes (canonicalization).
// CHECK-LABEL: func.func @crossing(
// CHECK-NEXT: %[[C:.*]] = tfl.to_device %arg0 to "cpu" : tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = tfl.exp %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = tfl.mul %[[C]], %[[C]] {tfl.device = "cpu"}
// CHECK-NEXT: %[[B:.*]] = tfl.to_device %[[M]] to "cuda" : tensor<4xf32>
// CHECK: tfl.add %[[B]]
// CANON-LABEL: func.func @crossing(
// CANON: %[[E:.*]] = tfl.exp %arg0 : tensor<4xf32>
// CANON: %[[B:.*]] = tfl.to_device {{.*}} to "cuda" : tensor<4xf32>
// CANON-NEXT: %[[A:.*]] = tfl.add %[[B]], %[[E]] : tensor<4xf32>
// CANON-NEXT: return %[[A]]
// CPU-LABEL: func.func @crossing(
// CPU-NOT: tfl.to_device
// CPU-NOT: tfl.device
// CPU: tfl.add
module attributes {tfl.target = "cuda"} {
  func.func @crossing(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = tfl.exp %x : tensor<4xf32>
    %m = tfl.mul %x, %x {tfl.device = "cpu"} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %c = tfl.to_device %e to "cuda" : tensor<4xf32>
    %a = tfl.add %m, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
}

// -----

// Tests that a call on the CPU runs a clone of its callee marked for the
// CPU (the GPU callers keep the original), that the clone's ops name their
// device (so inlining keeps it), and that arguments and results cross.
// CHECK-LABEL: func.func @caller(
// CHECK: %[[C:.*]] = tfl.to_device %arg0 to "cpu"
// CHECK: %[[R:.*]] = call @square_on_cpu(%[[C]]) {tfl.device = "cpu"}
// CHECK: tfl.to_device %[[R]] to "cuda"
// CHECK: call @square(%arg0) :
// CHECK-LABEL: func.func private @square(
// CHECK-NOT: tfl.device
// CHECK: return
// CHECK-LABEL: func.func private @square_on_cpu(
// CHECK-SAME: attributes {tfl.device = "cpu"}
// CHECK: tfl.mul %arg0, %arg0 {tfl.device = "cpu"}
module attributes {tfl.target = "cuda"} {
  func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @square(%x) {tfl.device = "cpu"} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = tfl.add %0, %1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @square(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfl.mul %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// Tests a loop on the host CPU; its body's ops inherit the device and name it,
// a GPU op inside names the GPU, the values it reads from outside are
// copied before the loop (not in each iteration), and what the GPU op
// makes is copied back for the CPU's yield.
// CHECK-LABEL: func.func @loop(
// CHECK: %[[C:.*]] = tfl.to_device %arg0 to "cpu"
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %[[C]])
// CHECK-NEXT: %[[T:.*]] = tfl.tanh %[[S]] {tfl.device = "cpu"}
// CHECK-NEXT: %[[G:.*]] = tfl.to_device %[[T]] to "cuda"
// CHECK-NEXT: %[[E:.*]] = tfl.exp %[[G]] {tfl.device = "cuda"}
// CHECK-NEXT: %[[H:.*]] = tfl.to_device %[[E]] to "cpu"
// CHECK-NEXT: scf.yield {tfl.device = "cpu"} %[[H]]
// CHECK: } {tfl.device = "cpu"}
// CHECK: tfl.to_device {{.*}} to "cuda"
// CHECK-NEXT: return
module attributes {tfl.target = "cuda"} {
  func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
    %lb = arith.constant 0 : index
    %ub = arith.constant 3 : index
    %st = arith.constant 1 : index
    %r = scf.for %i = %lb to %ub step %st iter_args(%s = %x) -> tensor<4xf32> {
      %t = tfl.tanh %s : tensor<4xf32>
      %e = tfl.exp %t {tfl.device = "cuda"} : tensor<4xf32>
      scf.yield %e : tensor<4xf32>
    } {tfl.device = "cpu"}
    return %r : tensor<4xf32>
  }
}

// -----

// Tests that a copy of a copy goes from the first one's source, and a copy
// back to where the value was made goes, after canonicalization.
// CANON-LABEL: func.func @round_trip(
// CANON-NEXT: tfl.print %arg0
// CANON-NEXT: return
module attributes {tfl.target = "cuda"} {
  func.func @round_trip(%x: tensor<4xf32>) {
    %0 = tfl.to_device %x to "cpu" : tensor<4xf32>
    %1 = tfl.to_device %0 to "cuda" : tensor<4xf32>
    tfl.print %1 : tensor<4xf32> {format = "{}\0A"}
    return
  }
}
