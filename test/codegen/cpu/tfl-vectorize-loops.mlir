// RUN: tfl-opt %s -tfl-vectorize-loops=vector-bits=1024 | FileCheck %s
// RUN: tfl-opt %s -tfl-vectorize-loops=vector-bits=2048 | FileCheck %s --check-prefix=WIDE

// Tests that linalg.generic ops on buffers become vector loops: dims every
// operand indexes together merge, the innermost dim is cut into vectors,
// accumulators and loop-invariant reads leave their loops, a generic that
// loads whole rows of another buffer (a gather) becomes loops around a
// flat generic over the rows, and generics that cannot be vectorized along
// a contiguous dim stay for convert-linalg-to-loops.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
#nc = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// An elementwise op on NHWC buffers is one flat loop of 1024-bit vectors.
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT: tfl.parallel
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<8x6x6x16xf32> into memref<4608xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-2: vector.transfer_read %{{.*}}[%[[I]]]{{.*}} : memref<4608xf32>, vector<32xf32>
// CHECK: arith.cmpf ogt, %{{.*}} : vector<32xf32>
// CHECK: arith.select %{{.*}} : vector<32xi1>, vector<32xf32>
// CHECK: vector.transfer_write %{{.*}}[%[[I]]]{{.*}} : vector<32xf32>, memref<4608xf32>
// CHECK-NOT: linalg.generic

func.func @elementwise(%a: memref<8x6x6x16xf32>, %b: memref<8x6x6x16xf32>, %out: memref<8x6x6x16xf32>) {
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : memref<8x6x6x16xf32>, memref<8x6x6x16xf32>) outs(%out : memref<8x6x6x16xf32>) {
  ^bb0(%x: f32, %g: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    %r = arith.select %p, %g, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// A bias over channels: (N*H*W, C) rows of one vector, the bias read once.
// CHECK-LABEL: func.func @bias_relu
// CHECK: %[[B:.*]] = vector.transfer_read %arg1{{.*}} : memref<16xf32>, vector<16xf32>
// CHECK: scf.for
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} : memref<288x16xf32>, vector<16xf32>
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[B]] : vector<16xf32>
// CHECK: arith.maximumf %[[S]], %{{.*}} : vector<16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, memref<288x16xf32>

func.func @bias_relu(%a: memref<8x6x6x16xf32>, %bias: memref<16xf32>) -> memref<8x6x6x16xf32> {
  %out = memref.alloc() : memref<8x6x6x16xf32>
  linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %bias : memref<8x6x6x16xf32>, memref<16xf32>) outs(%out : memref<8x6x6x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %x, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return %out : memref<8x6x6x16xf32>
}

// A bias gradient sums rows into a loop-carried vector, stored once.
// CHECK-LABEL: func.func @bias_grad
// CHECK: %[[INIT:.*]] = vector.transfer_read %[[ACC:.*]][%{{.*}}]{{.*}} : memref<16xf32>, vector<16xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (vector<16xf32>)
// CHECK: vector.transfer_read {{.*}} : memref<288x16xf32>, vector<16xf32>
// CHECK: arith.addf %[[A]], %{{.*}} : vector<16xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write %[[SUM]], %[[ACC]]

func.func @bias_grad(%dy: memref<8x6x6x16xf32>) -> memref<16xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<16xf32>)
  linalg.generic {indexing_maps = [#id4, #ch], iterator_types = ["reduction", "reduction", "reduction", "parallel"]} ins(%dy : memref<8x6x6x16xf32>) outs(%acc : memref<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  }
  return %acc : memref<16xf32>
}

// A global average pool's sum: per image, a loop-carried vector over pixels.
// CHECK-LABEL: func.func @pool
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[INIT:.*]] = vector.transfer_read %[[ACC:.*]][%[[N]], %{{.*}}]{{.*}} : memref<8x16xf32>, vector<16xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (vector<16xf32>)
// CHECK: vector.transfer_read {{.*}} : memref<8x36x16xf32>, vector<16xf32>
// CHECK: vector.transfer_write %[[SUM]], %[[ACC]][%[[N]], %{{.*}}]

func.func @pool(%h: memref<8x6x6x16xf32>) -> memref<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id4, #nc], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%h : memref<8x6x6x16xf32>) outs(%acc : memref<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  }
  return %acc : memref<8x16xf32>
}

// A value broadcast over H and W is read and divided once per image.
// CHECK-LABEL: func.func @broadcast_mask
// CHECK: scf.for %[[N:.*]] =
// CHECK-NEXT: vector.transfer_read %arg1[%[[N]], %{{.*}}, %{{.*}}, %{{.*}}]{{.*}} : memref<8x1x1x16xf32>, vector<16xf32>
// CHECK-NEXT: arith.divf
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: vector.transfer_read %arg0
// CHECK-NOT: arith.divf
// CHECK: vector.transfer_write

func.func @broadcast_mask(%h: memref<8x6x6x16xf32>, %g: memref<8x1x1x16xf32>) -> memref<8x6x6x16xf32> {
  %out = memref.alloc() : memref<8x6x6x16xf32>
  linalg.generic {indexing_maps = [#id4, #bc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%h, %g : memref<8x6x6x16xf32>, memref<8x1x1x16xf32>) outs(%out : memref<8x6x6x16xf32>) {
  ^bb0(%x: f32, %d: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %n = arith.constant 36.0 : f32
    %m = arith.divf %d, %n : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    %r = arith.select %p, %m, %zero : f32
    linalg.yield %r : f32
  }
  return %out : memref<8x6x6x16xf32>
}

// 100 f64s: six vectors of 16 in a loop, then the last 4.
// CHECK-LABEL: func.func @remainder
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C96:.*]] step
// CHECK: vector.transfer_read %arg0[%[[I]]]{{.*}} : memref<100xf64>, vector<16xf64>
// CHECK: arith.mulf %{{.*}} : vector<16xf64>
// CHECK: vector.transfer_read %arg0[%[[C96]]]{{.*}} : memref<100xf64>, vector<4xf64>
// CHECK: vector.transfer_write %{{.*}}, %arg1[%[[C96]]]{{.*}} : vector<4xf64>, memref<100xf64>

// Tiles of 2048 bits (AVX2's default): three vectors of 32 f64s, then 4.
// WIDE-LABEL: func.func @remainder
// WIDE: scf.for %[[I:.*]] = %{{.*}} to %[[C96:.*]] step
// WIDE: vector.transfer_read %arg0[%[[I]]]{{.*}} : memref<100xf64>, vector<32xf64>
// WIDE: vector.transfer_read %arg0[%[[C96]]]{{.*}} : memref<100xf64>, vector<4xf64>

func.func @remainder(%a: memref<100xf64>, %out: memref<100xf64>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : memref<100xf64>) outs(%out : memref<100xf64>) {
  ^bb0(%x: f64, %o: f64):
    %r = arith.mulf %x, %x : f64
    linalg.yield %r : f64
  }
  return
}

// A reduction along the contiguous dim: one horizontal reduction per row.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.for
// CHECK: vector.transfer_read %arg0{{.*}} : memref<4x10xf32>, vector<10xf32>
// CHECK: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<10xf32> into f32

func.func @row_max(%a: memref<4x10xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<4x10xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %o, %x : f32
    linalg.yield %r : f32
  }
  return
}

// A transpose reads its input across the contiguous dim: left alone.
// CHECK-LABEL: func.func @transpose_stays
// CHECK-NOT: vector.
// CHECK: linalg.generic

func.func @transpose_stays(%a: memref<4x8xf32>, %out: memref<8x4xf32>) {
  linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%out : memref<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// Booleans are bytes in memory but bits in vectors: an i1 buffer is read
// and written as its bytes (a view of i8s), truncated where the body reads
// them and widened where it yields them, and the generic vectorizes.
// CHECK-LABEL: func.func @booleans_as_bytes
// CHECK-SAME: (%{{.*}}: memref<4x8xf32>, %[[OUT:.*]]: memref<4x8xi1>)
// CHECK: %[[BYTES:.*]] = builtin.unrealized_conversion_cast %[[OUT]] : memref<4x8xi1> to memref<4x8xi8>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[BYTES]]
// CHECK: %[[P:.*]] = arith.cmpf ogt, %{{.*}} : vector<32xf32>
// CHECK: %[[B:.*]] = arith.extui %[[P]] : vector<32xi1> to vector<32xi8>
// CHECK: vector.transfer_write %[[B]], %[[FLAT]]
// CHECK-NOT: linalg.generic

func.func @booleans_as_bytes(%a: memref<4x8xf32>, %out: memref<4x8xi1>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%out : memref<4x8xi1>) {
  ^bb0(%x: f32, %o: i1):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    linalg.yield %p : i1
  }
  return
}

// Large generics get their outermost loop marked for tfl-parallelize-loops
// when it runs over a parallel dim; small ones and reductions do not.
// CHECK-LABEL: func.func @large
// CHECK: scf.for
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>, memref<65536xf32>
// CHECK: } {tfl.parallel}
// CHECK-LABEL: func.func @large_column_sums
// CHECK: scf.for
// CHECK-NOT: tfl.parallel
// CHECK: return

// WIDE-LABEL: func.func @large
// WIDE: scf.for
// WIDE: vector.transfer_write {{.*}} : vector<64xf32>, memref<65536xf32>
// WIDE: } {tfl.parallel}

func.func @large(%a: memref<64x32x32xf32>, %out: memref<64x32x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<64x32x32xf32>) outs(%out : memref<64x32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  }
  return
}

func.func @large_column_sums(%a: memref<4096x16xf32>, %out: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : memref<4096x16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %o, %x : f32
    linalg.yield %r : f32
  }
  return
}

// Rows of 96 floats and a bias: tiles of 2048 bits (64 floats) would leave
// a masked rest of 32 in each row, so the tile halves to 32, which divides
// the row; tiles of 1024 bits are 32 floats already.
// CHECK-LABEL: func.func @rows_of_96
// CHECK: vector.transfer_read {{.*}} : memref<8x96xf32>, vector<32xf32>
// CHECK-NOT: vector.mask
// CHECK: return
// WIDE-LABEL: func.func @rows_of_96
// WIDE-NOT: vector<64xf32>
// WIDE: vector.transfer_read {{.*}} : memref<8x96xf32>, vector<32xf32>
// WIDE-NOT: vector<64xf32>
// WIDE: return

func.func @rows_of_96(%a: memref<8x96xf32>, %bias: memref<96xf32>, %out: memref<8x96xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %bias : memref<8x96xf32>, memref<96xf32>) outs(%out : memref<8x96xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %r = arith.addf %x, %b : f32
    linalg.yield %r : f32
  }
  return
}

// Columns wider than a vector (a linear layer's bias gradient): the loop
// over the columns' vectors goes outermost, runs on the threads when the
// sum is large, and each vector's sum is loop-carried over the rows.
// CHECK-LABEL: func.func @wide_column_sums
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %c128 step %c32 {
// CHECK: %[[INIT:.*]] = vector.transfer_read %{{.*}}[%[[C]]]{{.*}} : memref<128xf32>, vector<32xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[R:.*]] = %{{.*}} to %c1024 step %c1 iter_args(%[[A:.*]] = %[[INIT]]) -> (vector<32xf32>)
// CHECK: vector.transfer_read %{{.*}}[%[[R]], %[[C]]]{{.*}} : memref<1024x128xf32>, vector<32xf32>
// CHECK: arith.addf %[[A]]
// CHECK: vector.transfer_write %[[SUM]], %{{.*}}[%[[C]]]
// CHECK: } {tfl.parallel}
// CHECK-LABEL: func.func @small_column_sums
// CHECK: scf.for {{.*}} to %c128 step %c32 {
// CHECK: scf.for {{.*}} to %c8 step %c1 iter_args
// CHECK-NOT: tfl.parallel
// CHECK: return

func.func @wide_column_sums(%a: memref<16x64x128xf32>) -> memref<128xf32> {
  %out = memref.alloc() : memref<128xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>], iterator_types = ["reduction", "reduction", "parallel"]} ins(%a : memref<16x64x128xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %o, %x : f32
    linalg.yield %r : f32
  }
  return %out : memref<128xf32>
}

func.func @small_column_sums(%a: memref<8x128xf32>) -> memref<128xf32> {
  %out = memref.alloc() : memref<128xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : memref<8x128xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %o, %x : f32
    linalg.yield %r : f32
  }
  return %out : memref<128xf32>
}

// A batch (a dynamic dim): the flattened loop runs whole vectors, in
// parallel, up to the last multiple of 32 elements; the rest stays a
// generic (scalar loops).
// CHECK-LABEL: func.func @batch
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<?x16xf32> into memref<?xf32>
// CHECK: %[[N:.*]] = memref.dim %{{.*}} : memref<?xf32>
// CHECK: %[[MAIN:.*]] = affine.apply #{{.*}}()[%[[N]]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %{{.*}} {
// CHECK: arith.maximumf %{{.*}} : vector<32xf32>
// CHECK: } {tfl.parallel}
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %[[N]]
// CHECK: linalg.generic
// CHECK: arith.maximumf %{{.*}} : f32
func.func @batch(%a: memref<?x16xf32>, %out: memref<?x16xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<?x16xf32>) outs(%out : memref<?x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// u8 images to floats: bytes load as vectors of 32 (the widest element's
// 1024 bits), and convert lane by lane.
// CHECK-LABEL: func.func @bytes_to_floats
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : memref<1568xi8>, vector<32xi8>
// CHECK: arith.uitofp %{{.*}} : vector<32xi8> to vector<32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>, memref<1568xf32>
// CHECK-NOT: linalg.generic
func.func @bytes_to_floats(%a: memref<2x28x28x1xi8>, %out: memref<2x28x28x1xf32>) {
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<2x28x28x1xi8>) outs(%out : memref<2x28x28x1xf32>) {
  ^bb0(%x: i8, %o: f32):
    %f = arith.uitofp %x : i8 to f32
    linalg.yield %f : f32
  }
  return
}

// gather's generic with elementwise work fused into it: each output row
// reads row clamp(idx[i]) of the source. The index and the row's view move
// out to a loop over the rows; the flat generic over a row (784 elements
// of a size-1 trailing dim, indexed by 0) is vectorized: 24 vectors and a
// remainder of 16.
// CHECK-LABEL: func.func @gather_rows
// CHECK-NOT: tfl.parallel
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[IDX:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<4xi64>
// CHECK: %[[CAST:.*]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK: %[[LOW:.*]] = arith.minsi %[[CAST]]
// CHECK: %[[PICK:.*]] = arith.maxsi %[[LOW]]
// CHECK: memref.subview %{{.*}}[%[[PICK]], 0, 0, 0] [1, 28, 28, 1] [1, 1, 1, 1] : memref<100x28x28x1xi8> to
// CHECK: memref.subview %{{.*}}[%[[ROW]], 0, 0, 0] [1, 28, 28, 1] [1, 1, 1, 1] : memref<4x28x28x1xf32> to
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : memref<784xi8, strided<[1], offset: ?>>, vector<32xi8>
// CHECK: arith.uitofp %{{.*}} : vector<32xi8> to vector<32xf32>
// CHECK: arith.divf %{{.*}} : vector<32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>, memref<784xf32, strided<[1], offset: ?>>
// CHECK: vector.transfer_read {{.*}} : memref<784xi8, strided<[1], offset: ?>>, vector<16xi8>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @gather_rows(%src: memref<100x28x28x1xi8>, %idx: memref<4xi64>) -> memref<4x28x28x1xf32> {
  %out = memref.alloc() : memref<4x28x28x1xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%out : memref<4x28x28x1xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %c99 = arith.constant 99 : index
    %scale = arith.constant 255.0 : f32
    %raw = memref.load %idx[%i] : memref<4xi64>
    %at = arith.index_cast %raw : i64 to index
    %low = arith.minsi %at, %c99 : index
    %pick = arith.maxsi %low, %c0 : index
    %x = memref.load %src[%pick, %h, %w, %c0] : memref<100x28x28x1xi8>
    %f = arith.uitofp %x : i8 to f32
    %r = arith.divf %f, %scale : f32
    linalg.yield %r : f32
  }
  return %out : memref<4x28x28x1xf32>
}

// Enough rows to share among threads: the loop over them is marked; an
// input operand of the generic (an elementwise addend) is cut into rows as
// well.
// CHECK-LABEL: func.func @gather_rows_large
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<64xi64>
// CHECK: vector.transfer_read {{.*}} : memref<1024xf32, strided<[1], offset: ?>>, vector<32xf32>
// CHECK: vector.transfer_read {{.*}} : memref<1024xf32, strided<[1], offset: ?>>, vector<32xf32>
// CHECK: arith.addf %{{.*}} : vector<32xf32>
// CHECK: } {tfl.parallel}
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @gather_rows_large(%src: memref<500x32x32xf32>, %idx: memref<64xi64>, %b: memref<64x32x32xf32>) -> memref<64x32x32xf32> {
  %out = memref.alloc() : memref<64x32x32xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : memref<64x32x32xf32>) outs(%out : memref<64x32x32xf32>) {
  ^bb0(%y: f32, %o: f32):
    %i = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %raw = memref.load %idx[%i] : memref<64xi64>
    %at = arith.index_cast %raw : i64 to index
    %x = memref.load %src[%at, %h, %w] : memref<500x32x32xf32>
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }
  return %out : memref<64x32x32xf32>
}

// A gather's iteration counts four times toward the threads' threshold
// (its rows come from memory): a batch of 32 picked images of 28x28,
// 25,088 elements, goes on the threads, where an elementwise loop of the
// same size stays on one.
// CHECK-LABEL: func.func @gather_rows_batch
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<32xi64>
// CHECK: arith.uitofp %{{.*}} : vector<32xi8> to vector<32xf32>
// CHECK: } {tfl.parallel}
// CHECK: return
// CHECK-LABEL: func.func @elementwise_batch
// CHECK-NOT: tfl.parallel
// CHECK: return
func.func @gather_rows_batch(%src: memref<60000x28x28x1xi8>, %idx: memref<32xi64>) -> memref<32x28x28x1xf32> {
  %out = memref.alloc() : memref<32x28x28x1xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%out : memref<32x28x28x1xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %raw = memref.load %idx[%i] : memref<32xi64>
    %at = arith.index_cast %raw : i64 to index
    %x = memref.load %src[%at, %h, %w, %c0] : memref<60000x28x28x1xi8>
    %f = arith.uitofp %x : i8 to f32
    linalg.yield %f : f32
  }
  return %out : memref<32x28x28x1xf32>
}
func.func @elementwise_batch(%src: memref<32x28x28x1xi8>) -> memref<32x28x28x1xf32> {
  %out = memref.alloc() : memref<32x28x28x1xf32>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%src : memref<32x28x28x1xi8>) outs(%out : memref<32x28x28x1xf32>) {
  ^bb0(%x: i8, %o: f32):
    %f = arith.uitofp %x : i8 to f32
    linalg.yield %f : f32
  }
  return %out : memref<32x28x28x1xf32>
}

// What stays a generic: a gather of columns (the picked index is the
// innermost), a row whose inner index also feeds the arithmetic, and a
// row of the buffer the generic writes.
// CHECK-LABEL: func.func @gather_columns_stays
// CHECK-NOT: vector.
// CHECK: linalg.generic
// CHECK-LABEL: func.func @inner_index_used_stays
// CHECK-NOT: vector.
// CHECK: linalg.generic
// CHECK-LABEL: func.func @row_of_output_stays
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @gather_columns_stays(%src: memref<8x100xf32>, %idx: memref<16xi64>) -> memref<8x16xf32> {
  %out = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%out : memref<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %raw = memref.load %idx[%j] : memref<16xi64>
    %at = arith.index_cast %raw : i64 to index
    %x = memref.load %src[%i, %at] : memref<8x100xf32>
    linalg.yield %x : f32
  }
  return %out : memref<8x16xf32>
}

func.func @inner_index_used_stays(%src: memref<100x16xf32>, %idx: memref<8xi64>) -> memref<8x16xf32> {
  %out = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%out : memref<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %raw = memref.load %idx[%i] : memref<8xi64>
    %at = arith.index_cast %raw : i64 to index
    %x = memref.load %src[%at, %j] : memref<100x16xf32>
    %jj = arith.index_cast %j : index to i64
    %jf = arith.sitofp %jj : i64 to f32
    %r = arith.addf %x, %jf : f32
    linalg.yield %r : f32
  }
  return %out : memref<8x16xf32>
}

func.func @row_of_output_stays(%idx: memref<8xi64>) -> memref<8x16xf32> {
  %out = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%out : memref<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %raw = memref.load %idx[%i] : memref<8xi64>
    %at = arith.index_cast %raw : i64 to index
    %x = memref.load %out[%at, %j] : memref<8x16xf32>
    linalg.yield %x : f32
  }
  return %out : memref<8x16xf32>
}

// What no vector step takes stays scalar, but a large one runs on every
// thread: its outermost parallel dim becomes a loop marked for
// tfl-parallelize-loops around the generic on each slice (a transpose of
// attention heads). Small ones and those whose outermost dim reduces stay
// whole. A causal mask of i1 (read as bytes) vectorizes, its dims merged
// and its outermost loop marked.
// CHECK-LABEL: func.func @large_transpose
// CHECK-NOT: vector.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64 step
// CHECK: memref.subview %{{.*}} : memref<64x512xf32> to memref<1x512xf32
// CHECK: linalg.generic
// CHECK: } {tfl.parallel}
// CHECK-LABEL: func.func @large_mask
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64 step
// CHECK: vector.transfer_read %{{.*}} : memref<4096xi8>, vector<32xi8>
// CHECK: arith.trunci %{{.*}} : vector<32xi8> to vector<32xi1>
// CHECK: arith.select %{{.*}} : vector<32xi1>, vector<32xf32>
// CHECK: } {tfl.parallel}
// CHECK-LABEL: func.func @small_transpose_stays
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK-LABEL: func.func @outer_reduction_stays
// CHECK-NOT: scf.for
// CHECK: linalg.generic
#t2 = affine_map<(d0, d1) -> (d1, d0)>
#i2 = affine_map<(d0, d1) -> (d0, d1)>
#r2 = affine_map<(d0, d1) -> (d1)>
#m4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#i4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @large_transpose(%a: memref<512x64xf32>, %out: memref<64x512xf32>) {
  linalg.generic {indexing_maps = [#t2, #i2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<512x64xf32>) outs(%out : memref<64x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

func.func @large_mask(%mask: memref<64x64xi1>, %s: memref<16x4x64x64xf32>, %out: memref<16x4x64x64xf32>) {
  linalg.generic {indexing_maps = [#m4, #i4, #i4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask, %s : memref<64x64xi1>, memref<16x4x64x64xf32>) outs(%out : memref<16x4x64x64xf32>) {
  ^bb0(%m: i1, %x: f32, %o: f32):
    %low = arith.constant -1.0e30 : f32
    %y = arith.select %m, %x, %low : f32
    linalg.yield %y : f32
  }
  return
}

func.func @small_transpose_stays(%a: memref<4x8xf32>, %out: memref<8x4xf32>) {
  linalg.generic {indexing_maps = [#t2, #i2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%out : memref<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

func.func @outer_reduction_stays(%a: memref<512x64xf32>, %out: memref<512xf32>) {
  linalg.generic {indexing_maps = [#t2, #r2], iterator_types = ["reduction", "parallel"]} ins(%a : memref<512x64xf32>) outs(%out : memref<512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  }
  return
}

// A large generic whose body writes memory (here, a store through an
// index it computes) is left whole: its iterations may not run on
// several threads.
// CHECK-LABEL: func.func @large_writer_stays
// CHECK-NOT: tfl.parallel
// CHECK: linalg.generic
// CHECK: memref.store
func.func @large_writer_stays(%a: memref<512x64xf32>, %out: memref<64x512xf32>, %log: memref<64xf32>) {
  linalg.generic {indexing_maps = [#t2, #i2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<512x64xf32>) outs(%out : memref<64x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    memref.store %x, %log[%i] : memref<64xf32>
    linalg.yield %x : f32
  }
  return
}
