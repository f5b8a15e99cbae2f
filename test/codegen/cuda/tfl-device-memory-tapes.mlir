// RUN: tfl-opt %s -tfl-device-memory | FileCheck %s
// REQUIRES: cuda

// Tests that every tape call goes to libtflrt_cuda: a push and a read of
// a device tensor, a push of a host (stack) scalar, and the frame and
// cursor calls (enter, size, rewind, release, exit); the tapes live in
// device memory, whichever side a value comes from.
// CHECK-LABEL: func.func @tapes
// CHECK: call @tflrt_cuda_tape_enter() : () -> ()
// CHECK: call @tflrt_cuda_tape_push_f32(%c0_i64, %{{.*}}) : (i64, memref<*xf32>) -> ()
// CHECK: call @tflrt_cuda_tape_push_i64(%c1_i64, %{{.*}}) : (i64, memref<*xi64>) -> ()
// CHECK: %[[N:.*]] = call @tflrt_cuda_tape_size(%c0_i64) : (i64) -> i64
// CHECK: call @tflrt_cuda_tape_rewind(%c0_i64, %[[N]])
// CHECK: call @tflrt_cuda_tape_read_f32(%c0_i64, %c0_i64, %{{.*}}) : (i64, i64, memref<*xf32>) -> ()
// CHECK: call @tflrt_cuda_tape_release(%c0_i64, %c0_i64)
// CHECK: call @tflrt_cuda_tape_exit() : () -> ()
// CHECK-NOT: call @tflrt_tape
module attributes {gpu.container_module} {
  func.func private @tflrt_tape_enter()
  func.func private @tflrt_tape_exit()
  func.func private @tflrt_tape_size(i64) -> i64
  func.func private @tflrt_tape_rewind(i64, i64)
  func.func private @tflrt_tape_release(i64, i64)
  func.func private @tflrt_tape_push_f32(i64, memref<*xf32>)
  func.func private @tflrt_tape_read_f32(i64, i64, memref<*xf32>)
  func.func private @tflrt_tape_push_i64(i64, memref<*xi64>)
  func.func @tapes() {
    %c0 = arith.constant 0 : i64
    %buf = memref.alloc() : memref<3xf32>
    %u = memref.cast %buf : memref<3xf32> to memref<*xf32>
    call @tflrt_tape_enter() : () -> ()
    call @tflrt_tape_push_f32(%c0, %u) : (i64, memref<*xf32>) -> ()
    %c1 = arith.constant 1 : i64
    %s = memref.alloca() : memref<i64>
    memref.store %c1, %s[] : memref<i64>
    %su = memref.cast %s : memref<i64> to memref<*xi64>
    call @tflrt_tape_push_i64(%c1, %su) : (i64, memref<*xi64>) -> ()
    %n = call @tflrt_tape_size(%c0) : (i64) -> i64
    call @tflrt_tape_rewind(%c0, %n) : (i64, i64) -> ()
    call @tflrt_tape_read_f32(%c0, %c0, %u) : (i64, i64, memref<*xf32>) -> ()
    call @tflrt_tape_release(%c0, %c0) : (i64, i64) -> ()
    call @tflrt_tape_exit() : () -> ()
    memref.dealloc %buf : memref<3xf32>
    return
  }
}
