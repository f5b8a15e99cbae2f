// RUN: tfl-opt %s -split-input-file -tfl-step-graphs | FileCheck %s
// REQUIRES: cuda

// Tests the markers of a training loop: the inner loop, which launches a
// kernel and calls a library, gets them at the start of its body and
// before its yield; the outer loop, whose device work is all in the inner
// loop, gets none. Both markers are declared once.
// CHECK-LABEL: func.func private @tflrt_cuda_step_begin(i64)
// CHECK-LABEL: func.func private @tflrt_cuda_step_end(i64)
// CHECK-LABEL: func.func @train
// CHECK: scf.for
// CHECK-NOT: tflrt_cuda_step_begin
// CHECK: scf.for
// CHECK-NEXT: %[[SITE:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @tflrt_cuda_step_begin(%[[SITE]]) : (i64) -> ()
// CHECK: gpu.launch_func
// CHECK: call @tflrt_cuda_gemm_f32
// CHECK-NEXT: call @tflrt_cuda_step_end(%[[SITE]]) : (i64) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  func.func private @tflrt_cuda_gemm_f32(i64, memref<*xf32>, memref<*xf32>, memref<*xf32>)
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @train(%a: memref<4xf32>, %m: memref<*xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %flags = arith.constant 4 : i64
    scf.for %e = %c0 to %n step %c1 {
      scf.for %i = %c0 to %n step %c1 {
        gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
        func.call @tflrt_cuda_gemm_f32(%flags, %m, %m, %m) : (i64, memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
        scf.yield
      }
      scf.yield
    }
    return
  }
}

// -----

// Tests loops without device work (host arithmetic, a host-only helper
// function) and a while loop whose body calls a program function that
// launches: only the while loop's body (its after region) is marked, and
// sites are numbered in order.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: tflrt_cuda_step_begin
// CHECK-LABEL: func.func @host_only
// CHECK-NOT: tflrt_cuda_step_begin
// CHECK-LABEL: func.func @loops
// CHECK: scf.for
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @tflrt_cuda_step_begin(%[[S0]])
// CHECK: call @launches
// CHECK-NEXT: call @tflrt_cuda_step_end(%[[S0]])
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: ^bb0
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @tflrt_cuda_step_begin(%[[S1]])
// CHECK: call @launches
// CHECK: call @tflrt_cuda_step_end(%[[S1]])
// CHECK-NEXT: scf.yield
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func private @helper(%a: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %f, %a[%i] : memref<4xf32>
    }
    return
  }
  func.func @launches(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  func.func @host_only(%a: memref<4xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      func.call @helper(%a) : (memref<4xf32>) -> ()
    }
    return
  }
  func.func @loops(%a: memref<4xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      func.call @launches(%a) : (memref<4xf32>) -> ()
    }
    %r = scf.while (%i = %c0) : (index) -> index {
      %go = arith.cmpi slt, %i, %n : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%j: index):
      func.call @launches(%a) : (memref<4xf32>) -> ()
      %next = arith.addi %j, %c1 : index
      scf.yield %next : index
    }
    return
  }
}
