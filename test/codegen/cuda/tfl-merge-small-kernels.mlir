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

// -----

// Tests that a run ends before its kernel's parameters would pass 4096
// bytes: 70 one-thread launches, each writing a buffer of its own (a
// rank-3 descriptor: 72 bytes), become a launch of the first 56 (4032
// bytes) and one of the other 14.
// CHECK-LABEL: func.func @many_buffers
// CHECK: gpu.launch
// CHECK-COUNT-56: memref.store
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK-COUNT-14: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @many_buffers(%m0: memref<2x2x2xf32>, %m1: memref<2x2x2xf32>, %m2: memref<2x2x2xf32>, %m3: memref<2x2x2xf32>, %m4: memref<2x2x2xf32>, %m5: memref<2x2x2xf32>, %m6: memref<2x2x2xf32>, %m7: memref<2x2x2xf32>, %m8: memref<2x2x2xf32>, %m9: memref<2x2x2xf32>, %m10: memref<2x2x2xf32>, %m11: memref<2x2x2xf32>, %m12: memref<2x2x2xf32>, %m13: memref<2x2x2xf32>, %m14: memref<2x2x2xf32>, %m15: memref<2x2x2xf32>, %m16: memref<2x2x2xf32>, %m17: memref<2x2x2xf32>, %m18: memref<2x2x2xf32>, %m19: memref<2x2x2xf32>, %m20: memref<2x2x2xf32>, %m21: memref<2x2x2xf32>, %m22: memref<2x2x2xf32>, %m23: memref<2x2x2xf32>, %m24: memref<2x2x2xf32>, %m25: memref<2x2x2xf32>, %m26: memref<2x2x2xf32>, %m27: memref<2x2x2xf32>, %m28: memref<2x2x2xf32>, %m29: memref<2x2x2xf32>, %m30: memref<2x2x2xf32>, %m31: memref<2x2x2xf32>, %m32: memref<2x2x2xf32>, %m33: memref<2x2x2xf32>, %m34: memref<2x2x2xf32>, %m35: memref<2x2x2xf32>, %m36: memref<2x2x2xf32>, %m37: memref<2x2x2xf32>, %m38: memref<2x2x2xf32>, %m39: memref<2x2x2xf32>, %m40: memref<2x2x2xf32>, %m41: memref<2x2x2xf32>, %m42: memref<2x2x2xf32>, %m43: memref<2x2x2xf32>, %m44: memref<2x2x2xf32>, %m45: memref<2x2x2xf32>, %m46: memref<2x2x2xf32>, %m47: memref<2x2x2xf32>, %m48: memref<2x2x2xf32>, %m49: memref<2x2x2xf32>, %m50: memref<2x2x2xf32>, %m51: memref<2x2x2xf32>, %m52: memref<2x2x2xf32>, %m53: memref<2x2x2xf32>, %m54: memref<2x2x2xf32>, %m55: memref<2x2x2xf32>, %m56: memref<2x2x2xf32>, %m57: memref<2x2x2xf32>, %m58: memref<2x2x2xf32>, %m59: memref<2x2x2xf32>, %m60: memref<2x2x2xf32>, %m61: memref<2x2x2xf32>, %m62: memref<2x2x2xf32>, %m63: memref<2x2x2xf32>, %m64: memref<2x2x2xf32>, %m65: memref<2x2x2xf32>, %m66: memref<2x2x2xf32>, %m67: memref<2x2x2xf32>, %m68: memref<2x2x2xf32>, %m69: memref<2x2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m0[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m1[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m2[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m3[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m4[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m5[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m6[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m7[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m8[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m9[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m10[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m11[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m12[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m13[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m14[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m15[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m16[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m17[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m18[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m19[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m20[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m21[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m22[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m23[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m24[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m25[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m26[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m27[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m28[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m29[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m30[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m31[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m32[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m33[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m34[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m35[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m36[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m37[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m38[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m39[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m40[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m41[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m42[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m43[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m44[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m45[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m46[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m47[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m48[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m49[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m50[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m51[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m52[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m53[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m54[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m55[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m56[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m57[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m58[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m59[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m60[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m61[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m62[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m63[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m64[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m65[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m66[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m67[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m68[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %m69[%c0, %c0, %c0] : memref<2x2x2xf32>
    gpu.terminator
  }
  return
}
