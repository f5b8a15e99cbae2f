// RUN: tfl-opt %s -tfl-error-locations | FileCheck %s
// REQUIRES: cuda

// Tests that tfl-error-locations names the .tfl line of each GPU op on the
// host (the stream wait, allocation, launch, copy; libtflrt_cuda reports
// their failures at tflrt_where) and stores nothing in the kernels.

// CHECK-DAG: llvm.mlir.global internal constant @[[L3:.*]]("prog.tfl:3:5\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L4:.*]]("prog.tfl:4:1\00")
// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT: llvm.store
// CHECK-LABEL: func.func @tfl_main
// CHECK: llvm.mlir.addressof @[[L3]]
// CHECK-NEXT: llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store
// CHECK-NEXT: gpu.wait async
// CHECK-NEXT: gpu.alloc async
// CHECK-NEXT: llvm.mlir.addressof @[[L4]]
// CHECK-NEXT: llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store
// CHECK-NEXT: gpu.launch_func async
// CHECK-NEXT: gpu.memcpy async
// CHECK-NOT: llvm.store
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      %b = memref.alloca() : memref<4xf32>
      gpu.return
    }
  }
  func.func @tfl_main(%host: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async loc("prog.tfl":3:5)
    %a, %t1 = gpu.alloc async [%t0] () : memref<4xf32> loc("prog.tfl":3:5)
    %t2 = gpu.launch_func async [%t1] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>) loc("prog.tfl":4:1)
    %t3 = gpu.memcpy async [%t2] %host, %a : memref<4xf32>, memref<4xf32> loc("prog.tfl":4:1)
    gpu.wait [%t3] loc("prog.tfl":4:1)
    return
  }
}
