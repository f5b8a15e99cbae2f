// RUN: tfl-opt %s -split-input-file -tfl-linalg-to-gpu | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-linalg-to-gpu -gpu-map-parallel-loops -convert-parallel-loops-to-gpu | FileCheck %s --check-prefix=LAUNCH
// REQUIRES: cuda

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that an elementwise generic becomes one parallel loop over its
// collapsed dims, tiled by 256 with a bounds check (no partial tile), and
// then one launch of 256-thread blocks.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c300
// CHECK: scf.parallel (%[[TILE:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:   scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:     %[[I:.*]] = arith.addi %[[T]], %[[TILE]] : index
// CHECK:     arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:     scf.if
// CHECK:       arith.remsi %[[I]]
// CHECK:       arith.divsi %[[I]]
// CHECK:       math.exp
// CHECK:       memref.store
// CHECK-NOT: linalg.generic
// LAUNCH-LABEL: func.func @elementwise
// LAUNCH: gpu.launch blocks
// LAUNCH: math.exp
// LAUNCH: gpu.terminator
func.func @elementwise(%a: memref<100x300xf32>, %out: memref<100x300xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<100x300xf32>) outs(%out : memref<100x300xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Tests that a reduction over at least 32 elements per output becomes a
// block reduction (reduction dims first in the generic: the loops are
// interchanged): one block per output, threads striding over the reduced
// dim from their thread id, gpu.all_reduce, and thread 0 adding the total
// to the output.
// CHECK-LABEL: func.func @column_sum
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[PART:.*]] = scf.for %{{.*}} = %[[T]] to %{{.*}} step %c256 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK:     %[[X:.*]] = memref.load %arg0
// CHECK:     %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK:     scf.yield %[[SUM]] : f32
// CHECK:   %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK:   scf.if %[[FIRST]] {
// CHECK:     %[[OLD:.*]] = memref.load %arg1
// CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]] : f32
// CHECK:     memref.store %[[NEW]], %arg1
// CHECK:   gpu.terminator
func.func @column_sum(%a: memref<100x300xf32>, %out: memref<300xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<100x300xf32>) outs(%out : memref<300xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %o, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>

// Tests that a maximum over everything becomes one block whose threads
// stride over the collapsed dims (delinearized), starting from -inf.
// CHECK-LABEL: func.func @total_max
// CHECK: gpu.launch
// CHECK:   arith.constant 0xFF800000 : f32
// CHECK:   scf.for
// CHECK:     arith.remui
// CHECK:     arith.divui
// CHECK:     arith.maxnumf
// CHECK:   gpu.all_reduce maxnumf
func.func @total_max(%a: memref<100x300xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<100x300xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.maxnumf %o, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Tests that a short reduction (10 elements per output, a softmax's row)
// runs one thread per output element with a sequential loop, and so does
// an f64 reduction (gpu.all_reduce's shuffles move 32-bit values).
// CHECK-LABEL: func.func @short_rows
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     scf.for %{{.*}} = %{{.*}} to %c10
// CHECK:       arith.addf
// CHECK-NOT: gpu.all_reduce
func.func @short_rows(%a: memref<64x10xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x10xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %o, %in : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @f64_rows
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1000
// CHECK-NOT: gpu.all_reduce
func.func @f64_rows(%a: memref<64x1000xf64>, %out: memref<64xf64>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x1000xf64>) outs(%out : memref<64xf64>) {
  ^bb0(%in: f64, %o: f64):
    %s = arith.addf %o, %in : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Tests that a scalar op (no loop at all) runs in a parallel loop of one
// iteration (one thread), and that a copy between buffers becomes a
// kernel too.
// CHECK-LABEL: func.func @scalar
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// CHECK:   memref.load %arg0[]
// CHECK:   arith.cmpf ogt
// CHECK:   memref.store
// LAUNCH-LABEL: func.func @scalar
// LAUNCH: gpu.launch blocks
// LAUNCH: arith.cmpf ogt
#s = affine_map<() -> ()>
func.func @scalar(%a: memref<f32>, %out: memref<i1>) {
  %c = arith.constant 10.0 : f32
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%a : memref<f32>) outs(%out : memref<i1>) {
  ^bb0(%in: f32, %o: i1):
    %r = arith.cmpf ogt, %in, %c : f32
    linalg.yield %r : i1
  }
  return
}

// CHECK-LABEL: func.func @copy
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     %[[V:.*]] = memref.load %arg0
// CHECK:     memref.store %[[V]], %arg1
// CHECK-NOT: memref.copy
func.func @copy(%a: memref<7xi64>, %out: memref<7xi64>) {
  memref.copy %a, %out : memref<7xi64> to memref<7xi64>
  return
}

// -----

// Tests that a product into a fresh buffer filled with zeros overwrites
// it (the fill goes, the call becomes its _overwrite entry point), while a
// product into a buffer filled with another value, or into a buffer it
// also reads, keeps the fill (as a kernel) and accumulates.
// CHECK-LABEL: func.func @products
// CHECK: %[[C:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK-NOT: scf.parallel
// CHECK: call @tflrt_cuda_matmul_overwrite_f32(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[D:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK: scf.parallel
// CHECK: call @tflrt_matmul_f32(
// CHECK: scf.parallel
// CHECK: call @tflrt_matmul_f32(
func.func private @tflrt_matmul_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>)
func.func @products(%a: memref<4x4xf32>, %b: memref<4x4xf32>) -> (memref<4x4xf32>, memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  %ua = memref.cast %a : memref<4x4xf32> to memref<*xf32>
  %ub = memref.cast %b : memref<4x4xf32> to memref<*xf32>
  %uc = memref.cast %c : memref<4x4xf32> to memref<*xf32>
  func.call @tflrt_matmul_f32(%ua, %ub, %uc) : (memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
  %d = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%one : f32) outs(%d : memref<4x4xf32>)
  %ud = memref.cast %d : memref<4x4xf32> to memref<*xf32>
  func.call @tflrt_matmul_f32(%ua, %ub, %ud) : (memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
  linalg.fill ins(%zero : f32) outs(%d : memref<4x4xf32>)
  func.call @tflrt_matmul_f32(%ud, %ub, %ud) : (memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
  return %c, %d : memref<4x4xf32>, memref<4x4xf32>
}
