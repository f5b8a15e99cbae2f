// RUN: tfl-opt %s -split-input-file -verify-diagnostics -tfl-device-memory | FileCheck %s
// REQUIRES: cuda

// Tests the host's part after tfl-host-scalars: a step count carried by a
// loop in buffers marked tfl.host stays in host memory (host loads and
// stores, host deallocation, libtflrt's own print), while a device scalar
// that is only range-checked is checked asynchronously, where it is loaded
// (its address and the check's operands, no read that waits).
// CHECK-LABEL: func.func @main
// CHECK: %[[M:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<i64>
// CHECK: gpu.launch_func async [%{{.*}}] @kernels::@smallest
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[M]]
// CHECK: %[[ADDR:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: call @tflrt_cuda_check_slice_async(%c8_i64, %[[ADDR]], %c1_i64{{.*}}, %c1_i64, %c1_i64, %c100_i64, %arg0)
// CHECK-NOT: tflrt_cuda_read_scalar
// CHECK-NOT: call @tflrt_check_slice
// CHECK: %[[T0:.*]] = memref.alloc() {tfl.host} : memref<i64>
// CHECK: memref.store %c0_i64, %[[T0]][] : memref<i64>
// CHECK: scf.for {{.*}} iter_args(%[[T:.*]] = %[[T0]]) -> (memref<i64>) {
// CHECK:   %[[NEXT:.*]] = memref.alloc() {tfl.host} : memref<i64>
// CHECK:   %[[OLD:.*]] = memref.load %[[T]][] : memref<i64>
// CHECK:   memref.store %{{.*}}, %[[NEXT]][] : memref<i64>
// CHECK:   %[[F:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK:   gpu.launch_func async [%{{.*}}] @kernels::@scale {{.*}} args(%{{.*}} : memref<4xf32>, %[[F]] : f32)
// CHECK:   memref.dealloc %[[T]] : memref<i64>
// CHECK:   scf.yield %[[NEXT]] : memref<i64>
// CHECK: call @tflrt_print_i64(%{{.*}}, %arg0) : (memref<*xi64>, !llvm.ptr) -> ()
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @smallest(%a: memref<32xi64>, %m: memref<i64>) kernel {
      gpu.return
    }
    gpu.func @scale(%a: memref<4xf32>, %s: f32) kernel {
      gpu.return
    }
  }
  func.func private @tflrt_check_slice(i64, i64, i64, i64, !llvm.ptr)
  func.func private @tflrt_print_i64(memref<*xi64>, !llvm.ptr)
  func.func @main(%where: !llvm.ptr, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c100_i64 = arith.constant 100 : i64
    %idx = memref.alloc() : memref<32xi64>
    %m = memref.alloc() : memref<i64>
    gpu.launch_func @kernels::@smallest blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%idx : memref<32xi64>, %m : memref<i64>)
    %v = memref.load %m[] : memref<i64>
    func.call @tflrt_check_slice(%v, %c1_i64, %c1_i64, %c100_i64, %where) : (i64, i64, i64, i64, !llvm.ptr) -> ()
    %buf = memref.alloc() : memref<4xf32>
    %t0 = memref.alloc() {tfl.host} : memref<i64>
    memref.store %c0_i64, %t0[] : memref<i64>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0) -> (memref<i64>) {
      %next = memref.alloc() {tfl.host} : memref<i64>
      %old = memref.load %t[] : memref<i64>
      %new = arith.addi %old, %c1_i64 : i64
      memref.store %new, %next[] : memref<i64>
      %f = arith.sitofp %new : i64 to f32
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xf32>, %f : f32)
      memref.dealloc %t : memref<i64>
      scf.yield %next : memref<i64>
    }
    %u = memref.cast %r : memref<i64> to memref<*xi64>
    func.call @tflrt_print_i64(%u, %where) : (memref<*xi64>, !llvm.ptr) -> ()
    memref.dealloc %r : memref<i64>
    memref.dealloc %idx : memref<32xi64>
    memref.dealloc %m : memref<i64>
    memref.dealloc %buf : memref<4xf32>
    return
  }
}

// -----

// Tests that a kernel given a host buffer is refused (tfl-host-scalars
// passes host scalars by value; a host buffer reaching a kernel is a bug).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @use(%s: memref<i64>) kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %s = memref.alloc() {tfl.host} : memref<i64>
    // expected-error @+1 {{would read a host buffer on the device}}
    gpu.launch_func @kernels::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%s : memref<i64>)
    memref.dealloc %s : memref<i64>
    return
  }
}

// -----

// Tests a call of work placed on the CPU (a host function): the host
// function is left as it is (host buffers, libtflrt's host print); the
// caller copies its device operand into a host buffer first
// (tflrt_cuda_copy_to_host, the buffer's bytes), passes a host scalar
// buffer as it is, frees the copy after the call, and copies the result
// into a device buffer that its uses (a kernel, the deallocation) take,
// freeing the host's result.
// CHECK-LABEL: func.func private @f.host0(
// CHECK: memref.alloc(%{{.*}}) {tfl.host} : memref<?xf32>
// CHECK-NOT: gpu.
// CHECK: call @tflrt_print_f32(
// CHECK: return
// CHECK-LABEL: func.func @caller(
// CHECK: %[[D:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%arg0) : memref<?xf32>
// CHECK: gpu.launch_func async [%{{.*}}] @kernels::@scale {{.*}} args(%[[D]] : memref<?xf32>)
// CHECK: %[[S:.*]] = memref.alloc() {tfl.host} : memref<i64>
// CHECK: %[[H:.*]] = memref.alloc(%{{.*}}) {tfl.host} : memref<?xf32>
// CHECK: %[[HP:.*]] = memref.extract_aligned_pointer_as_index %[[H]]
// CHECK: %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
// CHECK: %[[N:.*]] = memref.dim %[[D]], %{{.*}}
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %[[N]]
// CHECK: call @tflrt_cuda_copy_to_host(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[R:.*]] = call @f.host0(%[[H]], %[[S]])
// CHECK: %[[RD:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xf32>
// CHECK: call @tflrt_cuda_copy_to_device(
// CHECK: memref.dealloc %[[R]] : memref<?xf32>
// CHECK: memref.dealloc %[[H]] : memref<?xf32>
// CHECK: gpu.launch_func async [%{{.*}}] @kernels::@scale {{.*}} args(%[[RD]] : memref<?xf32>)
// CHECK: gpu.dealloc async [%{{.*}}] %[[RD]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[D]]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func private @tflrt_print_f32(memref<*xf32>, !llvm.ptr)
  func.func private @f.host0(%x: memref<?xf32>, %s: memref<i64>) -> memref<?xf32> attributes {tfl.device = "cpu"} {
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %y = memref.alloc(%n) {tfl.host} : memref<?xf32>
    %u = memref.cast %y : memref<?xf32> to memref<*xf32>
    %p = llvm.mlir.zero : !llvm.ptr
    func.call @tflrt_print_f32(%u, %p) : (memref<*xf32>, !llvm.ptr) -> ()
    return %y : memref<?xf32>
  }
  func.func @caller(%n: index) {
    %c1 = arith.constant 1 : index
    %d = memref.alloc(%n) : memref<?xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<?xf32>)
    %s = memref.alloc() {tfl.host} : memref<i64>
    %r = func.call @f.host0(%d, %s) : (memref<?xf32>, memref<i64>) -> memref<?xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%r : memref<?xf32>)
    memref.dealloc %r : memref<?xf32>
    memref.dealloc %s : memref<i64>
    memref.dealloc %d : memref<?xf32>
    return
  }
}
