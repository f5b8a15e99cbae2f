// RUN: tfl-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries" -cse | FileCheck %s

// Tests that a collective of one tensor is one libtflrt call in place on
// its buffer (kind, op and root first: all_reduce is kind 0, mean op 1;
// broadcast kind 1, with its root): on a copy where the tensor is read
// again later (the all_reduce's input feeds the broadcast), on the buffer
// itself where it is not.
// CHECK-DAG: func.func private @tflrt_collective_run_f32(i64, i64, i64, memref<*xf32>, memref<*xf32>)
// CHECK-LABEL: func.func @one_tensor
// CHECK-SAME: (%[[X:.*]]: memref<3xf32{{.*}}>)
func.func @one_tensor(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[COPY:.*]] = memref.alloc() {{.*}}: memref<3xf32>
  // CHECK: memref.copy %[[X]], %[[COPY]]
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
  // CHECK-DAG: %[[U:.*]] = memref.cast %[[COPY]] : memref<3xf32> to memref<*xf32>
  // CHECK: call @tflrt_collective_run_f32(%[[C0]], %[[C1]], %[[C0]], %[[U]], %[[U]])
  %0 = tfl.all_reduce mean %x : tensor<3xf32>
  // CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
  // CHECK-DAG: %[[UX:.*]] = memref.cast %[[X]]
  // CHECK: call @tflrt_collective_run_f32(%[[C1]], %[[C0]], %[[C2]], %[[UX]], %[[UX]])
  %1 = tfl.broadcast %x {root = 2 : i64} : tensor<3xf32>
  // CHECK: return %[[COPY]], %[[X]]
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests that a collective of a tree is a request: begun, given a copy of
// each tensor, started, waited for, and each result taken into a fresh
// buffer by its position.
// CHECK-LABEL: func.func @tree
// CHECK-SAME: (%[[X:.*]]: memref<3xf32{{.*}}>, %[[N:.*]]: memref<i64{{.*}}>)
func.func @tree(%x: tensor<3xf32>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
  // CHECK: %[[REQ:.*]] = call @tflrt_collective_begin(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64) -> i64
  // CHECK: call @tflrt_collective_add_f32(%[[REQ]], %{{.*}})
  // CHECK: call @tflrt_collective_add_i64(%[[REQ]], %{{.*}})
  // CHECK: call @tflrt_collective_start(%[[REQ]])
  // CHECK: call @tflrt_collective_wait(%[[REQ]])
  // CHECK: %[[A:.*]] = memref.alloc() {{.*}}: memref<3xf32>
  // CHECK: call @tflrt_collective_take_f32(%[[REQ]], %{{.*}}, %{{.*}})
  // CHECK: %[[B:.*]] = memref.alloc() {{.*}}: memref<i64>
  // CHECK: call @tflrt_collective_take_i64(%[[REQ]], %{{.*}}, %{{.*}})
  // CHECK: return %[[A]], %[[B]]
  %0:2 = tfl.all_reduce sum %x, %n : tensor<3xf32>, tensor<i64>
  return %0#0, %0#1 : tensor<3xf32>, tensor<i64>
}

// -----

// Tests that a split all_reduce starts where its start is and takes its
// results where its wait is, the work between them running meanwhile.
// CHECK-LABEL: func.func @split
func.func @split(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[REQ:.*]] = call @tflrt_collective_begin(
  // CHECK: call @tflrt_collective_add_f32(%[[REQ]], %{{.*}})
  // CHECK: call @tflrt_collective_start(%[[REQ]])
  // CHECK: linalg.
  // CHECK: call @tflrt_collective_wait(%[[REQ]])
  // CHECK: call @tflrt_collective_take_f32(%[[REQ]], %{{.*}}, %{{.*}})
  %req = tfl.all_reduce_start sum %x : tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %m = linalg.mul ins(%x, %x : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %0 = tfl.all_reduce_wait %req : tensor<3xf32>
  %1 = linalg.add ins(%0, %m : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// Tests that all_gather fills a fresh buffer of the world's rows (kind 3).
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: memref<3xf32{{.*}}>)
func.func @gather(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<2x3xf32>
  // CHECK-DAG: %[[K:.*]] = arith.constant 3 : i64
  // CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i64
  // CHECK: call @tflrt_collective_run_f32(%[[K]], %[[Z]], %[[Z]], %{{.*}}, %{{.*}})
  // CHECK: return %[[OUT]]
  %0 = tfl.all_gather %x : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
