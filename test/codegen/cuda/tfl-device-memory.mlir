// RUN: tfl-opt %s -tfl-device-memory | FileCheck %s
// REQUIRES: cuda

// Tests that host code's buffers move to the device: a heap buffer becomes
// gpu.alloc/gpu.dealloc on the stream, a constant a device copy made at
// entry and freed before the return, a launch asynchronous on the stream,
// a host load or store of a device element a runtime read or write of its
// address (offset times element size), a runtime call with tensors and
// now() their tflrt_cuda_ entry points; while a list only host code fills
// and passes to a helper, and a stack buffer, stay on the host.

// CHECK-LABEL: func.func @main
// CHECK: %[[HOSTTABLE:.*]] = memref.get_global @table
// CHECK: %[[W0:.*]] = gpu.wait async
// CHECK: %[[TABLE:.*]], %[[T0:.*]] = gpu.alloc async [%[[W0]]] () : memref<3xf32>
// CHECK: gpu.memcpy async [%[[T0]]] %[[TABLE]], %[[HOSTTABLE]]
// CHECK: %[[BUF:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<3xf32>
// CHECK: %[[W1:.*]] = gpu.wait async
// CHECK: gpu.launch_func async [%[[W1]]] @kernels::@scale {{.*}} args(%[[TABLE]] : memref<3xf32>, %[[BUF]] : memref<3xf32>)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}, %[[STRIDE:.*]] = memref.extract_strided_metadata %[[BUF]]
// CHECK: %[[SCALED:.*]] = arith.muli %c1, %[[STRIDE]] : index
// CHECK: %[[LIN:.*]] = arith.addi %[[OFF]], %[[SCALED]] : index
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: %[[BYTES:.*]] = arith.muli %[[LIN]], %c4 : index
// CHECK: %[[ADDR:.*]] = arith.addi %[[PTR]], %[[BYTES]] : index
// CHECK: %[[A64:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: %[[BITS:.*]] = call @tflrt_cuda_read_scalar(%c4_i64, %[[A64]]) : (i64, i64) -> i64
// CHECK: %[[B32:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CHECK: %[[V:.*]] = arith.bitcast %[[B32]] : i32 to f32
// CHECK: scf.if
// CHECK:   %[[VB:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK:   %[[VX:.*]] = arith.extui %[[VB]] : i32 to i64
// CHECK:   func.call @tflrt_cuda_write_scalar(%{{.*}}, %{{.*}}, %[[VX]])
// CHECK: call @tflrt_cuda_print_f32
// CHECK: %[[LIST:.*]] = memref.alloc() : memref<2xindex>
// CHECK: memref.store %c1, %[[LIST]][%c1] : memref<2xindex>
// CHECK: call @helper
// CHECK: memref.dealloc %[[LIST]] : memref<2xindex>
// CHECK: %[[STACK:.*]] = memref.alloca() : memref<f32>
// CHECK: memref.store %[[V]], %[[STACK]][] : memref<f32>
// CHECK: gpu.dealloc async [%{{.*}}] %[[BUF]]
// CHECK: %[[NOW:.*]] = call @tflrt_cuda_now() : () -> f64
// CHECK: gpu.dealloc async [%{{.*}}] %[[TABLE]]
// CHECK: return %[[NOW]]
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
  func.func private @tflrt_print_f32(memref<*xf32>, !llvm.ptr)
  func.func private @tflrt_now() -> f64
  func.func private @helper(memref<?xindex>)
  gpu.module @kernels {
    gpu.func @scale(%a: memref<3xf32>, %b: memref<3xf32>) kernel {
      gpu.return
    }
  }
  func.func @main(%text: !llvm.ptr) -> f64 {
    %c1 = arith.constant 1 : index
    %t = memref.get_global @table : memref<3xf32>
    %buf = memref.alloc() : memref<3xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%t : memref<3xf32>, %buf : memref<3xf32>)
    %v = memref.load %buf[%c1] : memref<3xf32>
    %cond = arith.cmpf ogt, %v, %v : f32
    scf.if %cond {
      memref.store %v, %buf[%c1] : memref<3xf32>
    }
    %u = memref.cast %buf : memref<3xf32> to memref<*xf32>
    call @tflrt_print_f32(%u, %text) : (memref<*xf32>, !llvm.ptr) -> ()
    %list = memref.alloc() : memref<2xindex>
    memref.store %c1, %list[%c1] : memref<2xindex>
    %dyn = memref.cast %list : memref<2xindex> to memref<?xindex>
    call @helper(%dyn) : (memref<?xindex>) -> ()
    memref.dealloc %list : memref<2xindex>
    %stack = memref.alloca() : memref<f32>
    memref.store %v, %stack[] : memref<f32>
    memref.dealloc %buf : memref<3xf32>
    %now = call @tflrt_now() : () -> f64
    return %now : f64
  }
}
