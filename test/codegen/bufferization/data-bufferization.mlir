// RUN: tfl-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s

// Tests that load_data fills a fresh buffer through the format's and
// dtype's libtflrt function, with the path and the op's location.
// CHECK-DAG: func.func private @tflrt_load_idx_u8(!llvm.ptr, memref<*xi8>, !llvm.ptr)
// CHECK-LABEL: func.func @load_data
func.func @load_data() -> tensor<4x5xi8> {
  // CHECK: %[[B:.*]] = memref.alloc() {{.*}}: memref<4x5xi8>
  // CHECK: %[[U:.*]] = memref.cast %[[B]] : memref<4x5xi8> to memref<*xi8>
  // CHECK: call @tflrt_load_idx_u8(%{{.*}}, %[[U]], %{{.*}})
  // CHECK: return %[[B]]
  %0 = tfl.load_data {format = "idx", path = "a.idx"} : tensor<4x5xi8>
  return %0 : tensor<4x5xi8>
}

// -----

// Tests that encode_text fills a fresh buffer through libtflrt, with the
// text's template.
// CHECK-DAG: func.func private @tflrt_encode_text_u8(!llvm.ptr, memref<*xi8>)
// CHECK-LABEL: func.func @encode_text
func.func @encode_text() -> tensor<8xi8> {
  // CHECK: %[[B:.*]] = memref.alloc() {{.*}}: memref<8xi8>
  // CHECK: %[[U:.*]] = memref.cast %[[B]] : memref<8xi8> to memref<*xi8>
  // CHECK: call @tflrt_encode_text_u8(%{{.*}}, %[[U]])
  // CHECK: return %[[B]]
  %0 = tfl.encode_text {text = "{prompt}!"} : tensor<8xi8>
  return %0 : tensor<8xi8>
}

// -----

// Tests that save queues each tensor under its name, then writes once, and
// that save_npy reads its input's buffer.
// CHECK-LABEL: func.func @save
// CHECK-SAME: (%[[X:.*]]: memref<2xf32{{.*}}>, %[[Y:.*]]: memref<i64{{.*}}>)
func.func @save(%x: tensor<2xf32>, %y: tensor<i64>) {
  // CHECK: %[[UX:.*]] = memref.cast %[[X]]
  // CHECK: call @tflrt_checkpoint_add_f32(%{{.*}}, %[[UX]])
  // CHECK: %[[UY:.*]] = memref.cast %[[Y]]
  // CHECK: call @tflrt_checkpoint_add_i64(%{{.*}}, %[[UY]])
  // CHECK: call @tflrt_checkpoint_write(
  tfl.save %x, %y {names = ["x", "y"], path = "c.st"} : tensor<2xf32>, tensor<i64>
  // CHECK: %[[UX2:.*]] = memref.cast %[[X]]
  // CHECK: call @tflrt_save_npy_f32(%{{.*}}, %[[UX2]], %{{.*}})
  tfl.save_npy %x {path = "x.npy"} : tensor<2xf32>
  return
}

// -----

// Tests that load reads each tensor by name into a fresh buffer.
// CHECK-LABEL: func.func @load
func.func @load() -> (tensor<2xf32>, tensor<i64>) {
  // CHECK: %[[A:.*]] = memref.alloc() {{.*}}: memref<2xf32>
  // CHECK: call @tflrt_checkpoint_read_f32(
  // CHECK: %[[B:.*]] = memref.alloc() {{.*}}: memref<i64>
  // CHECK: call @tflrt_checkpoint_read_i64(
  // CHECK: return %[[A]], %[[B]]
  %0:2 = tfl.load {names = ["x", "y"], path = "c.st"} : tensor<2xf32>, tensor<i64>
  return %0#0, %0#1 : tensor<2xf32>, tensor<i64>
}

// -----

// Tests that the tape ops copy through libtflrt: push, write and add read
// their input's buffer; read and accumulated fill a fresh one; each call
// gets the tape's number (and the position).
// CHECK-LABEL: func.func @tape
func.func @tape(%x: tensor<3xf32>, %p: i64) -> (tensor<3xf32>, tensor<3xf64>) {
  // CHECK: %[[T0:.*]] = arith.constant 0 : i64
  // CHECK: call @tflrt_tape_push_f32(%[[T0]],
  tfl.tape_push %x {tape = 0} : tensor<3xf32>
  // CHECK: %[[T1:.*]] = arith.constant 1 : i64
  // CHECK: call @tflrt_tape_write_f32(%[[T1]], %{{.*}}, %{{.*}})
  tfl.tape_write %p, %x {tape = 1} : tensor<3xf32>
  // CHECK: call @tflrt_tape_add_f32(%{{.*}}, %{{.*}}, %{{.*}})
  tfl.tape_add %p, %x {tape = 2} : tensor<3xf32>
  // CHECK: %[[B:.*]] = memref.alloc() {{.*}}: memref<3xf32>
  // CHECK: call @tflrt_tape_read_f32(%{{.*}}, %{{.*}}, %{{.*}})
  %0 = tfl.tape_read %p {tape = 0} : tensor<3xf32>
  // CHECK: %[[C:.*]] = memref.alloc() {{.*}}: memref<3xf64>
  // CHECK: call @tflrt_tape_accumulated_f64(%{{.*}}, %{{.*}}, %{{.*}})
  // CHECK: return %[[B]], %[[C]]
  %1 = tfl.tape_accumulated %p {tape = 1} : tensor<3xf64>
  return %0, %1 : tensor<3xf32>, tensor<3xf64>
}

// -----

// Tests that scatter_add (gather's adjoint) fills a fresh buffer through
// libtflrt, with the axis.
// CHECK-LABEL: func.func @scatter_add
func.func @scatter_add(%dy: tensor<3x4xf32>, %i: tensor<3xi64>) -> tensor<10x4xf32> {
  // CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<10x4xf32>
  // CHECK: %[[AXIS:.*]] = arith.constant 0 : i64
  // CHECK: call @tflrt_scatter_add_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[AXIS]])
  // CHECK: return %[[OUT]]
  %0 = tfl.scatter_add %dy, %i {axis = 0 : i64} : tensor<3x4xf32>, tensor<3xi64> -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
