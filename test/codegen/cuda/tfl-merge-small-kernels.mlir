// RUN: tfl-opt %s -split-input-file -tfl-merge-small-kernels | FileCheck %s
// REQUIRES: cuda

// Tests a run of three small launches (two blocks of 256 threads, one
// thread, a block reduction of 256 threads) with an allocation and a
// deallocation between them: one launch of one block of 256 threads,
// where the last one was; the two-block body in a loop over its block ids,
// the one-thread body on thread 0, barriers between the bodies, and the
// deallocation after the merged launch.
// CHECK-LABEL: func.func @run
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<f32>
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:   scf.for %[[B:.*]] = %{{.*}} to %c2{{.*}} step %{{.*}} {
// CHECK:     %[[BASE:.*]] = arith.muli %[[B]], %c256
// CHECK:     %[[I:.*]] = arith.addi %[[BASE]], %[[T]] : index
// CHECK:     memref.store %{{.*}}, %arg0[%[[I]]] : memref<512xf32>
// CHECK:   }
// CHECK:   gpu.barrier
// CHECK:   %[[FIRST:.*]] = arith.cmpi ult, %[[T]], %c1{{.*}} : index
// CHECK:   scf.if %[[FIRST]] {
// CHECK:     memref.store %{{.*}}, %[[BUF]][] : memref<f32>
// CHECK:   }
// CHECK:   gpu.barrier
// CHECK:   gpu.all_reduce add
// CHECK:   gpu.terminator
// CHECK: }
// CHECK-NOT: gpu.launch
// CHECK: memref.dealloc %[[BUF]] : memref<f32>
// CHECK: return
func.func @run(%a: memref<512xf32>, %out: memref<f32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    memref.store %one, %a[%i] : memref<512xf32>
    gpu.terminator
  }
  %buf = memref.alloc() : memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %buf[] : memref<f32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<512xf32>
    %s = gpu.all_reduce add %x uniform {} : (f32) -> f32
    memref.store %s, %out[] : memref<f32>
    gpu.terminator
  }
  memref.dealloc %buf : memref<f32>
  return
}

// -----

// Tests what ends a run: a launch of more blocks than max-blocks, and a
// call; a single small launch stays as it is.
// CHECK-LABEL: func.func @breaks
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c100
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256
// CHECK: call @f()
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256
// CHECK-NOT: gpu.launch
func.func private @f()
func.func @breaks(%a: memref<25600xf32>) {
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %one, %a[%tx] : memref<25600xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c100, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %one, %a[%tx] : memref<25600xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %one, %a[%tx] : memref<25600xf32>
    gpu.terminator
  }
  call @f() : () -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %one, %a[%tx] : memref<25600xf32>
    gpu.terminator
  }
  return
}
