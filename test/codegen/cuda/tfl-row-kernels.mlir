// RUN: tfl-opt %s -split-input-file -tfl-fuse-rows=gpu=true -canonicalize -cse | FileCheck %s --check-prefix=FUSE
// RUN: tfl-opt %s -split-input-file -tfl-fuse-rows=gpu=true -tfl-linalg-to-gpu -canonicalize -cse | FileCheck %s
// REQUIRES: cuda

// Tests the GPU's row kernels (tflc --gpu-rows=fused): tfl-fuse-rows with
// `gpu` puts a chain of row-wise ops in one loop over tiles of rows marked
// tfl.row_blocks, and tfl-linalg-to-gpu makes that loop one launch, a block
// per tile, the chain's ops in order, with a block barrier before an op
// that reads what an op since the last barrier wrote (other threads'
// elements) or writes what one read or wrote.

#s4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#r4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A softmax over [16, 4, 64, 64] (attention's scores): its rows are the
// three leading dims, and a tile is 4 rows of 64 (256 elements), 1024
// tiles: the tile's first batch, head and row from the block's index, the
// last dim fastest. Each reduction of a tile has 4 outputs, reduced one
// after the other by the whole block (gpu.all_reduce), with a barrier
// after each before the all-reduce's buffer is written again.
// FUSE-LABEL: func.func @softmax
// FUSE: scf.for %[[I:.*]] = %c0 to %c1024 step %c1 {
// FUSE: %[[R:.*]] = arith.remui %[[I]], %c16 : index
// FUSE: %[[ROW:.*]] = arith.muli %[[R]], %c4 : index
// FUSE: %[[Q:.*]] = arith.divui %[[I]], %c16 : index
// FUSE: %[[HEAD:.*]] = arith.remui %[[Q]], %c4 : index
// FUSE: %[[BATCH:.*]] = arith.divui %[[Q]], %c4 : index
// FUSE: memref.subview %{{.*}}[%[[BATCH]], %[[HEAD]], %[[ROW]]] [1, 1, 4] [1, 1, 1]
// FUSE: linalg.fill
// FUSE: memref.subview %{{.*}}[%[[BATCH]], %[[HEAD]], %[[ROW]], 0] [1, 1, 4, 64] [1, 1, 1, 1]
// FUSE: linalg.generic
// FUSE: } {tfl.row_blocks}
// CHECK-LABEL: func.func @softmax
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c1024, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: arith.remui %[[B]], %c16
// The max's fill: a thread per element.
// CHECK: scf.for %{{.*}} = %[[T]] to %c4 step %c256
// CHECK: memref.store
// CHECK: gpu.barrier
// The max: the 4 rows in turn, each over its 64 elements.
// CHECK: scf.for %[[O:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %{{.*}} = %[[T]] to %c64 step %c256 iter_args
// CHECK: arith.maximumf
// CHECK: %[[MAX:.*]] = gpu.all_reduce maximumf %{{.*}} uniform
// CHECK: scf.if
// CHECK: arith.maximumf %{{.*}}, %[[MAX]]
// CHECK: memref.store
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// The sum's fill writes another buffer than the max's ops touched: no
// barrier before it; the sum reads the max: a barrier before it.
// CHECK-NEXT: memref.subview
// CHECK-NEXT: scf.for %{{.*}} = %[[T]] to %c4 step %c256
// CHECK: gpu.barrier
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: gpu.all_reduce add
// The quotient: a thread per element of the tile.
// CHECK: scf.for %{{.*}} = %[[T]] to %c256 step %c256
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
func.func @softmax(%x: memref<16x4x64x64xf32>, %y: memref<16x4x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<16x4x64xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<16x4x64xf32>)
  linalg.generic {indexing_maps = [#s4, #r4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : memref<16x4x64x64xf32>) outs(%max : memref<16x4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  }
  %sum = memref.alloc() : memref<16x4x64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<16x4x64xf32>)
  linalg.generic {indexing_maps = [#s4, #r4, #r4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %max : memref<16x4x64x64xf32>, memref<16x4x64xf32>) outs(%sum : memref<16x4x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#s4, #r4, #r4, #s4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %max, %sum : memref<16x4x64x64xf32>, memref<16x4x64xf32>, memref<16x4x64xf32>) outs(%y : memref<16x4x64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  }
  memref.dealloc %max : memref<16x4x64xf32>
  memref.dealloc %sum : memref<16x4x64xf32>
  return
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A layer norm's mean and scaling over 8 rows of 512 (too small for the
// CPU's threads, a kernel on the GPU): a tile per row, 8 blocks of 256
// threads; the row's sum by the whole block, thread 0 adding it to the
// filled buffer; the elementwise op's 512 elements two per thread, reading
// the weight (no row dims) whole.
// FUSE-LABEL: func.func @row_of_512
// FUSE: scf.for %[[I:.*]] = %c0 to %c8 step %c1 {
// FUSE: memref.subview %{{.*}}[%[[I]]] [1] [1]
// FUSE: memref.subview %{{.*}}[%[[I]], 0] [1, 512] [1, 1]
// FUSE: } {tfl.row_blocks}
// CHECK-LABEL: func.func @row_of_512
// CHECK-SAME: (%[[X:.*]]: memref<8x512xf32>, %[[W:.*]]: memref<512xf32>)
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %c512 step %c256 iter_args
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK: arith.addf %{{.*}}, %[[TOTAL]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[E:.*]] = %[[T]] to %c512 step %c256 {
// CHECK: memref.load %[[W]][%[[E]]] : memref<512xf32>
// CHECK: arith.mulf
// CHECK: memref.store
// CHECK: gpu.terminator
func.func @row_of_512(%x: memref<8x512xf32>, %w: memref<512xf32>) {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<8x512xf32>
  %sum = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x512xf32>) outs(%sum : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #row, #col, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %w : memref<8x512xf32>, memref<8xf32>, memref<512xf32>) outs(%y : memref<8x512xf32>) {
  ^bb0(%in: f32, %s: f32, %g: f32, %out: f32):
    %d = arith.subf %in, %s : f32
    %p = arith.mulf %d, %g : f32
    linalg.yield %p : f32
  }
  memref.dealloc %sum : memref<8xf32>
  call @use(%y) : (memref<8x512xf32>) -> ()
  return
}
func.func private @use(memref<8x512xf32>)

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A softmax over 10 classes of 1024 rows: a tile is 16 rows (160
// elements, 160 threads), so each reduction has 16 outputs of 10
// elements, a thread's each: its reduced elements a sequential loop from
// the filled value.
// CHECK-LABEL: func.func @classes
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c160,
// CHECK: gpu.barrier
// CHECK: scf.for %[[O:.*]] = %[[T]] to %c16 step %c160 {
// CHECK: %[[OLD:.*]] = memref.load
// CHECK: %[[RED:.*]] = scf.for %{{.*}} = %c0 to %c10 step %c1 iter_args(%{{.*}} = %[[OLD]]) -> (f32) {
// CHECK: arith.maximumf
// CHECK: memref.store %[[RED]]
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.terminator
func.func @classes(%x: memref<1024x10xf32>, %y: memref<1024x10xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<1024xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1024x10xf32>) outs(%max : memref<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %max : memref<1024x10xf32>, memref<1024xf32>) outs(%y : memref<1024x10xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  memref.dealloc %max : memref<1024xf32>
  return
}
