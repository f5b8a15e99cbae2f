// RUN: tfl-opt %s -split-input-file -tfl-linalg-to-gpu | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-linalg-to-gpu -gpu-map-parallel-loops -convert-parallel-loops-to-gpu | FileCheck %s --check-prefix=LAUNCH
// REQUIRES: cuda

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that an elementwise generic becomes one parallel loop over its
// dims, folded into one (the operands are contiguous: collapse_shape
// views, no index arithmetic per element), tiled by 256 with a bounds
// check (no partial tile), and then one launch of 256-thread blocks.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[A:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<100x300xf32> into memref<30000xf32>
// CHECK: %[[OUT:.*]] = memref.collapse_shape %arg1
// CHECK: scf.parallel (%[[TILE:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:   scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:     %[[I:.*]] = arith.addi %[[T]], %[[TILE]] : index
// CHECK:     arith.cmpi ult, %{{.*}}, %c30000
// CHECK:     scf.if
// CHECK-NOT:   arith.remsi
// CHECK:       memref.load %[[A]][%{{.*}}] : memref<30000xf32>
// CHECK:       math.exp
// CHECK:       memref.store %{{.*}}, %[[OUT]]
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

#t = affine_map<(d0, d1) -> (d1, d0)>

// Tests that dims an operand does not store contiguously (a transpose)
// stay separate: the loop over both is collapsed and its index divided
// back into the two.
// CHECK-LABEL: func.func @transpose
// CHECK-NOT: memref.collapse_shape
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c300
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:     arith.remsi
// CHECK:     arith.divsi
// CHECK:     memref.store
func.func @transpose(%a: memref<300x100xf32>, %out: memref<100x300xf32>) {
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<300x100xf32>) outs(%out : memref<100x300xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
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

// Tests that a maximum over everything (of fewer than 4096 elements)
// becomes one block whose threads stride over the folded dims, starting
// from -inf.
// CHECK-LABEL: func.func @total_max
// CHECK-NOT: memref.alloc
// CHECK: %[[A:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<10x300xf32> into memref<3000xf32>
// CHECK: gpu.launch
// CHECK:   arith.constant 0xFF800000 : f32
// CHECK:   scf.for
// CHECK:     memref.load %[[A]]
// CHECK:     arith.maxnumf
// CHECK:   gpu.all_reduce maxnumf
func.func @total_max(%a: memref<10x300xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<10x300xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.maxnumf %o, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d3)>

// Tests that a large reduction into few outputs (an NHWC bias gradient:
// 16 sums of 173056 elements) is split: 4096 partial results per output
// in a buffer (65536 threads, the channel fastest so that a warp reads
// contiguous memory, each thread striding over the pixels by 4096), then
// one block reduction per output over its partials, and the buffer freed.
// CHECK-LABEL: func.func @bias_grad
// CHECK: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : memref<256x26x26x16xf32> into memref<173056x16xf32>
// CHECK: %[[PART:.*]] = memref.alloc() : memref<4096x16xf32>
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     %[[C:.*]] = arith.remui %{{.*}}, %c16
// CHECK:     %[[P:.*]] = arith.divui %{{.*}}, %c16
// CHECK:     %[[ACC:.*]] = scf.for %{{.*}} = %[[P]] to %c173056{{.*}} step %c4096
// CHECK-NOT:   arith.divui
// CHECK:       memref.load %[[X]]
// CHECK:       arith.addf
// CHECK:     memref.store %[[ACC]], %[[PART]][%[[P]], %[[C]]]
// CHECK: gpu.launch
// CHECK:   scf.for
// CHECK:     memref.load %[[PART]]
// CHECK:   gpu.all_reduce add
// CHECK:     memref.store %{{.*}}, %arg1
// CHECK: memref.dealloc %[[PART]]
// LAUNCH-LABEL: func.func @bias_grad
// LAUNCH: gpu.launch
// LAUNCH:   memref.store %{{.*}}, %alloc
// LAUNCH: gpu.launch
// LAUNCH:   gpu.all_reduce add
// LAUNCH: memref.dealloc %alloc
func.func @bias_grad(%a: memref<256x26x26x16xf32>, %out: memref<16xf32>) {
  linalg.generic {indexing_maps = [#x, #c], iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%a : memref<256x26x26x16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %o, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>

// Tests that a sum of everything in a large tensor is split too, the
// partial index fastest (the reduced dims are innermost in memory): 65536
// partials, then one block over them.
// CHECK-LABEL: func.func @total_sum
// CHECK: %[[PART:.*]] = memref.alloc() : memref<65536xf32>
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     %[[P:.*]] = arith.remui %{{.*}}, %c65536
// CHECK:     %[[ACC:.*]] = scf.for %{{.*}} = %[[P]] to %c16777216{{.*}} step %c65536
// CHECK:     memref.store %[[ACC]], %[[PART]][%[[P]]]
// CHECK: gpu.launch
// CHECK:   gpu.all_reduce add
// CHECK: memref.dealloc %[[PART]]
func.func @total_sum(%a: memref<4096x4096xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<4096x4096xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %o, %in : f32
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

#b = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Tests that a broadcast (a constant index in a map) is not folded: its
// loops stay separate and the index is divided back into them.
// CHECK-LABEL: func.func @broadcast
// CHECK-NOT: memref.collapse_shape
// CHECK: arith.remsi
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x3x1xf32>
func.func @broadcast(%a: memref<1x3x1xf32>, %out: memref<2x3x4xf32>) {
  linalg.generic {indexing_maps = [#b, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<1x3x1xf32>) outs(%out : memref<2x3x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
