// RUN: tfl-opt %s -split-input-file -tfl-error-locations | FileCheck %s

// Tests that tfl-error-locations stores the location text of each host op
// the runtime may fail in (a heap allocation, a runtime call) in
// tflrt_where before it: once per change of location in straight-line
// code, again after a call of a TFL function or a nested region, never in
// a loop that runs on several threads (the loop's own location is stored
// before it instead), and not before stack allocations.

// CHECK-DAG: llvm.mlir.global external thread_local @tflrt_where() {{.*}} : !llvm.ptr
// CHECK-DAG: llvm.mlir.global internal constant @[[L3:.*]]("prog.tfl:3:5\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L4:.*]]("prog.tfl:4:9\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[CALLED:.*]]("prog.tfl:2:12\0Aprog.tfl:7:1: note: called from here\00")
// CHECK-LABEL: func.func @straight
// CHECK: %[[S:.*]] = llvm.mlir.addressof @[[L3]]
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store %[[S]], %[[W]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: memref.alloca()
// CHECK-NEXT: memref.cast
// CHECK-NEXT: call @tflrt_print_f32
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.addressof @[[L4]]
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store %[[S]], %[[W]]
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: call @helper()
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.addressof @[[L4]]
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store %[[S]], %[[W]]
// CHECK-NEXT: call @tflrt_print_f32
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.addressof @[[CALLED]]
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store %[[S]], %[[W]]
// CHECK-NEXT: memref.alloc()
// CHECK-LABEL: func.func @helper
// CHECK-NOT: llvm.store
func.func private @tflrt_print_f32(memref<*xf32>, !llvm.ptr)
func.func @straight(%spec: !llvm.ptr) {
  %a = memref.alloc() : memref<4xf32> loc("prog.tfl":3:5)
  %s = memref.alloca() : memref<4xf32> loc("prog.tfl":3:5)
  %u = memref.cast %a : memref<4xf32> to memref<*xf32>
  call @tflrt_print_f32(%u, %spec) : (memref<*xf32>, !llvm.ptr) -> () loc("prog.tfl":3:5)
  %b = memref.alloc() : memref<4xf32> loc("prog.tfl":4:9)
  call @helper() : () -> () loc("prog.tfl":4:9)
  call @tflrt_print_f32(%u, %spec) : (memref<*xf32>, !llvm.ptr) -> () loc("prog.tfl":4:9)
  %c = memref.alloc() : memref<4xf32> loc(callsite("prog.tfl":2:12 at "prog.tfl":7:1))
  return
}
func.func @helper() {
  return
}

// -----

// A loop body is marked on its own; after the loop, the location is set
// again. A parallel loop is marked at the loop.

// CHECK-DAG: llvm.mlir.global internal constant @[[L5:.*]]("prog.tfl:5:1\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L6:.*]]("prog.tfl:6:3\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L9:.*]]("prog.tfl:9:3\00")
// CHECK-LABEL: func.func @loops
// CHECK: llvm.mlir.addressof @[[L5]]
// CHECK: llvm.store
// CHECK-NEXT: memref.alloc()
// CHECK: scf.for
// CHECK-NEXT: llvm.mlir.addressof @[[L6]]
// CHECK-NEXT: llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store
// CHECK-NEXT: memref.alloc()
// CHECK: llvm.mlir.addressof @[[L5]]
// CHECK-NEXT: llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: llvm.mlir.addressof @[[L9]]
// CHECK-NEXT: llvm.mlir.addressof @tflrt_where
// CHECK-NEXT: llvm.store
// CHECK-NEXT: scf.for
// CHECK-NOT: llvm.store
// CHECK: tfl.parallel
func.func @loops(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32> loc("prog.tfl":5:1)
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.alloc() : memref<4xf32> loc("prog.tfl":6:3)
    memref.dealloc %b : memref<4xf32>
  } loc("prog.tfl":6:3)
  %c = memref.alloc() : memref<4xf32> loc("prog.tfl":5:1)
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.alloc() : memref<4xf32> loc("prog.tfl":10:7)
    memref.dealloc %b : memref<4xf32>
  } {tfl.parallel} loc("prog.tfl":9:3)
  return
}

// -----

// A function with nothing that may fail gets no stores, and the module no
// declaration.

// CHECK-NOT: tflrt_where
// CHECK-LABEL: func.func @nothing
func.func @nothing(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}

// -----

// One op's kernel, compiled for the eager interpreter (tfl.op_kernel):
// nothing is stored, and no thread-local is declared.

// CHECK-NOT: tflrt_where
// CHECK-LABEL: func.func @kernel
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: memref.cast
// CHECK-NEXT: call @tflrt_print_f32
// CHECK-NOT: tflrt_where
module attributes {tfl.op_kernel} {
func.func private @tflrt_print_f32(memref<*xf32>, !llvm.ptr)
func.func @kernel(%spec: !llvm.ptr) {
  %a = memref.alloc() : memref<4xf32> loc("prog.tfl":3:5)
  %u = memref.cast %a : memref<4xf32> to memref<*xf32>
  call @tflrt_print_f32(%u, %spec) : (memref<*xf32>, !llvm.ptr) -> () loc("prog.tfl":3:5)
  return
}
}
