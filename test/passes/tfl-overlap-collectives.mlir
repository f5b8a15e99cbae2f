// RUN: tfl-opt %s -split-input-file -tfl-overlap-collectives="first-bucket-bytes=64 bucket-bytes=128" | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-overlap-collectives | FileCheck %s --check-prefix=DEFAULT

// Tests that a gradient all_reduce is split into buckets in the order the
// tensors are made (the last made, %b0 here, is bucketed last), each
// bucket starting right after its last tensor and waiting before the
// first use of its results; a 64-byte first bucket, then 128-byte ones.
// CHECK-LABEL: func.func @buckets
// CHECK: %[[G2:.*]] = tfl.exp %{{.*}} : tensor<16xf32>
// CHECK-NEXT: %[[R1:.*]] = tfl.all_reduce_start mean %[[G2]] : tensor<16xf32>
// CHECK-NEXT: %[[G1:.*]] = tfl.exp %{{.*}} : tensor<8xf32>
// CHECK-NEXT: %[[G0:.*]] = tfl.exp %{{.*}} : tensor<24xf32>
// CHECK-NEXT: %[[R2:.*]] = tfl.all_reduce_start mean %[[G1]], %[[G0]] : tensor<8xf32>, tensor<24xf32>
// CHECK-NEXT: %[[B0:.*]] = tfl.exp %{{.*}} : tensor<4xf32>
// CHECK-NEXT: %[[R3:.*]] = tfl.all_reduce_start mean %[[B0]] : tensor<4xf32>
// CHECK-NEXT: tfl.neg
// CHECK-NEXT: %[[W2:[0-9]+]]:2 = tfl.all_reduce_wait %[[R2]] : tensor<8xf32>, tensor<24xf32>
// CHECK-NEXT: tfl.neg %[[W2]]#1
// CHECK-NEXT: %[[W1:.*]] = tfl.all_reduce_wait %[[R1]] : tensor<16xf32>
// CHECK-NEXT: %[[W3:.*]] = tfl.all_reduce_wait %[[R3]] : tensor<4xf32>
// CHECK-NEXT: return %[[W3]], %[[W2]]#0, %[[W1]]
// DEFAULT-LABEL: func.func @buckets
// DEFAULT: tfl.exp %{{.*}} : tensor<4xf32>
// DEFAULT-NEXT: %[[R:.*]] = tfl.all_reduce_start mean %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16xf32>, tensor<8xf32>, tensor<24xf32>, tensor<4xf32>
// DEFAULT: tfl.all_reduce_wait %[[R]]
// DEFAULT-NOT: tfl.all_reduce_start
// DEFAULT-LABEL: func.func @regions
func.func @buckets(%x: tensor<f32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<16xf32>) {
  %c16 = tfl.broadcast_to %x : tensor<f32> -> tensor<16xf32>
  %c8 = tfl.broadcast_to %x : tensor<f32> -> tensor<8xf32>
  %c24 = tfl.broadcast_to %x : tensor<f32> -> tensor<24xf32>
  %c4 = tfl.broadcast_to %x : tensor<f32> -> tensor<4xf32>
  %g2 = tfl.exp %c16 : tensor<16xf32>
  %g1 = tfl.exp %c8 : tensor<8xf32>
  %g0 = tfl.exp %c24 : tensor<24xf32>
  %b0 = tfl.exp %c4 : tensor<4xf32>
  %r:4 = tfl.all_reduce mean %b0, %g1, %g0, %g2 : tensor<4xf32>, tensor<8xf32>, tensor<24xf32>, tensor<16xf32>
  %n = tfl.neg %x : tensor<f32>
  %m = tfl.neg %r#2 : tensor<24xf32>
  return %r#0, %r#1, %r#3 : tensor<4xf32>, tensor<8xf32>, tensor<16xf32>
}

// -----

// Tests that tensors made before the all_reduce's block (an argument) or
// in a nested region (a loop's result) are ready at the block's start and
// after the loop; the all_reduce in the loop body is bucketed there.
// CHECK-LABEL: func.func @regions
// CHECK: scf.for
// CHECK-NEXT: %[[R0:.*]] = tfl.all_reduce_start sum %{{.*}} : tensor<32xf32>
// CHECK-NEXT: %[[E:.*]] = tfl.exp
// CHECK-NEXT: %[[R1:.*]] = tfl.all_reduce_start sum %[[E]] : tensor<32xf32>
// CHECK-NEXT: tfl.all_reduce_wait %[[R0]]
// CHECK-NEXT: tfl.all_reduce_wait %[[R1]]
// CHECK: scf.yield
func.func @regions(%a: tensor<32xf32>, %n: index) -> tensor<32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<32xf32> {
    %e = tfl.exp %acc : tensor<32xf32>
    %s:2 = tfl.all_reduce sum %a, %e : tensor<32xf32>, tensor<32xf32>
    %t = tfl.add %s#0, %s#1 : tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
    scf.yield %t : tensor<32xf32>
  }
  return %r : tensor<32xf32>
}

// -----

// Tests that a collective does not move across what other ranks may
// observe (a file written before it, a print after it): it keeps ordering
// them, as a barrier.
// CHECK-LABEL: func.func @fences
// CHECK: tfl.exp
// CHECK: tfl.save_npy
// CHECK-NEXT: %[[R:.*]] = tfl.all_reduce_start sum
// CHECK-NEXT: %[[W:.*]] = tfl.all_reduce_wait %[[R]]
// CHECK-NEXT: tfl.print
// CHECK-NEXT: tfl.neg %[[W]]
func.func @fences(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tfl.exp %x : tensor<4xf32>
  tfl.save_npy %x {path = "x.npy"} : tensor<4xf32>
  %s = tfl.all_reduce sum %e : tensor<4xf32>
  tfl.print {format = "done\n"}
  %n = tfl.neg %s : tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// Tests that tflc --bucket-mb=0 (the module's tfl.bucket_bytes) keeps each
// all_reduce whole.
// CHECK-LABEL: func.func @whole
// CHECK: tfl.all_reduce sum
// CHECK-NOT: tfl.all_reduce_start
module attributes {tfl.bucket_bytes = 0 : i64} {
  func.func @whole(%x: tensor<4xf32>) -> tensor<4xf32> {
    %s = tfl.all_reduce sum %x : tensor<4xf32>
    return %s : tensor<4xf32>
  }
}
