// RUN: tfl-opt %s -split-input-file -tfl-fuse-rows | FileCheck %s

// Tests that a layer norm's chain over 1024 rows of 128 (two reductions
// into filled buffers, the elementwise ops between them, a weight read
// whole) becomes one parallel loop over 32 tiles of 32 rows, each op on
// its tile's subviews in order; the deallocation between the ops moves
// after the loop, the allocation and the view stay before it.

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: memref<1024x128xf32>, %[[W:.*]]: memref<128xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1024x128xf32>
// CHECK: %[[SUM:.*]] = memref.alloc() {{.*}} : memref<1024x1xf32>
// CHECK: %[[C:.*]] = memref.alloc() {{.*}} : memref<1024x128xf32>
// CHECK: %[[C3:.*]] = memref.expand_shape %[[C]]
// CHECK: %[[VAR:.*]] = memref.alloc() {{.*}} : memref<1024x1xf32>
// CHECK-NOT: linalg.
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C32:.*]] step
// CHECK: %[[FIRST:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: memref.subview %[[SUM]][%[[FIRST]], 0] [32, 1] [1, 1]
// CHECK: linalg.fill
// CHECK: memref.subview %{{.*}}[%[[FIRST]], 0, 0] [32, 1, 128] [1, 1, 1]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: memref.subview %[[X]][%[[FIRST]], 0] [32, 128] [1, 1]
// CHECK: memref.subview %[[C]][%[[FIRST]], 0] [32, 128] [1, 1]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.subf
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: memref.subview %[[Y]][%[[FIRST]], 0] [32, 128] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[W]] : memref<32x128xf32, strided<[128, 1], offset: ?>>, memref<32x1xf32, strided<[1, 1], offset: ?>>, memref<128xf32>)
// CHECK: math.rsqrt
// CHECK: } {tfl.parallel}
// CHECK-NEXT: memref.dealloc %[[SUM]]
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NEXT: memref.dealloc %[[VAR]]
// CHECK-NEXT: call @use(%[[Y]])
func.func @layer_norm(%x: memref<1024x128xf32>, %w: memref<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1024x128xf32>
  %sum = memref.alloc() {alignment = 64 : i64} : memref<1024x1xf32>
  %x3 = memref.expand_shape %x [[0], [1, 2]] output_shape [1024, 1, 128] : memref<1024x128xf32> into memref<1024x1x128xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<1024x1xf32>)
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x3 : memref<1024x1x128xf32>) outs(%sum : memref<1024x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  %c = memref.alloc() {alignment = 64 : i64} : memref<1024x128xf32>
  linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<1024x128xf32>, memref<1024x1xf32>) outs(%c : memref<1024x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<1024x1xf32>
  %c3 = memref.expand_shape %c [[0], [1, 2]] output_shape [1024, 1, 128] : memref<1024x128xf32> into memref<1024x1x128xf32>
  %var = memref.alloc() {alignment = 64 : i64} : memref<1024x1xf32>
  linalg.fill ins(%zero : f32) outs(%var : memref<1024x1xf32>)
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c3 : memref<1024x1x128xf32>) outs(%var : memref<1024x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #row, #col, #rows], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %w : memref<1024x128xf32>, memref<1024x1xf32>, memref<128xf32>) outs(%y : memref<1024x128xf32>) {
  ^bb0(%in: f32, %v: f32, %g: f32, %out: f32):
    %r = math.rsqrt %v : f32
    %n = arith.mulf %in, %r : f32
    %o = arith.mulf %n, %g : f32
    linalg.yield %o : f32
  }
  memref.dealloc %c : memref<1024x128xf32>
  memref.dealloc %var : memref<1024x1xf32>
  call @use(%y) : (memref<1024x128xf32>) -> ()
  return
}
func.func private @use(memref<1024x128xf32>)

// -----

// Tests that a softmax over [16, 4, 64, 64] (attention's scores) tiles its
// two leading dims: 16 x 4 tiles of one head's 64 rows, the tile's first
// batch and head from the loop's index; and that linalg.index of a row dim
// counts from the tile's first row (a causal mask computed in the body).

#s4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#r4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @softmax
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: arith.remui %[[I]], %[[C4:.*]] : index
// CHECK: arith.divui %[[I]], %[[C4]] : index
// CHECK: memref.subview %{{.*}}[%{{.*}}, %{{.*}}, 0] [1, 1, 64] [1, 1, 1]
// CHECK: linalg.fill
// CHECK: %[[D1:.*]] = linalg.index 1 : index
// CHECK: %[[HEAD:.*]] = arith.addi %[[D1]], %{{.*}} : index
// CHECK: arith.index_cast %[[HEAD]]
// CHECK: arith.maximumf
// CHECK: linalg.fill
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: } {tfl.parallel}
func.func @softmax(%x: memref<16x4x64x64xf32>, %y: memref<16x4x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<16x4x64xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<16x4x64xf32>)
  linalg.generic {indexing_maps = [#s4, #r4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : memref<16x4x64x64xf32>) outs(%max : memref<16x4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %h = linalg.index 1 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %v = arith.addf %in, %hf : f32
    %m = arith.maximumf %out, %v : f32
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

// Tests that chains stay as they are where a tile would read other rows:
// an operand transposed in the row dims, a buffer the chain writes read
// whole as a broadcast, and an op whose rows are a reduction (a bias's
// gradient) end the chain; so does a call between two ops, and a chain of
// one generic (with its fill) stays as it is.

#rows = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @not_row_local
// CHECK-NOT: scf.for
// CHECK-COUNT-8: linalg.
// CHECK-NOT: scf.for
func.func @not_row_local(%x: memref<512x512xf32>, %y: memref<512x512xf32>,
                         %z: memref<512xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<512xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<512xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<512x512xf32>) outs(%sum : memref<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  // Reads the rows transposed.
  linalg.generic {indexing_maps = [#swap, #row, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<512x512xf32>, memref<512xf32>) outs(%y : memref<512x512xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  %t = memref.alloc() : memref<512xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<512xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<512x512xf32>) outs(%t : memref<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %out, %in : f32
    linalg.yield %s : f32
  }
  // Reads every row of %t, which the chain writes.
  linalg.generic {indexing_maps = [#rows, #col, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %t : memref<512x512xf32>, memref<512xf32>) outs(%y : memref<512x512xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  // The rows reduced.
  linalg.fill ins(%zero : f32) outs(%z : memref<512xf32>)
  call @opaque(%z) : (memref<512xf32>) -> ()
  linalg.generic {indexing_maps = [#rows, #col], iterator_types = ["reduction", "parallel"]} ins(%y : memref<512x512xf32>) outs(%z : memref<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  memref.dealloc %sum : memref<512xf32>
  memref.dealloc %t : memref<512xf32>
  return
}
func.func private @opaque(memref<512xf32>)

// -----

// Tests that a chain too small for threads (64 rows of 128) and a single
// reduction with no other op stay as they are.

#in3 = affine_map<(d0, d1) -> (d0, d1)>
#out3 = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.for
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK-NOT: scf.for
func.func @small(%x: memref<64x128xf32>, %s: memref<64xf32>,
                 %big: memref<4096x128xf32>, %t: memref<4096xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<64xf32>)
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x128xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  call @use(%s) : (memref<64xf32>) -> ()
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction"]} ins(%big : memref<4096x128xf32>) outs(%t : memref<4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}
func.func private @use(memref<64xf32>)

// -----

// Tests that a weight read whole by every tile joins the chain only where
// it cannot be a buffer the chain writes: a loop's carried weight beside
// buffers allocated in the loop's body joins, an argument beside another
// argument written by the chain does not.

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @weights
// CHECK: scf.for
// CHECK: scf.for
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<8x512xf32, strided<[512, 1], offset: ?>>, memref<8xf32, strided<[1], offset: ?>>, memref<512xf32>)
// CHECK: } {tfl.parallel}
// CHECK: scf.yield
// CHECK: linalg.fill
// CHECK-NEXT: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: scf.for
// CHECK: return
func.func @weights(%x: memref<512x512xf32>, %w0: memref<512xf32>,
                   %y: memref<512x512xf32>) -> memref<512xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %w = scf.for %i = %c0 to %c2 step %c1 iter_args(%wi = %w0) -> (memref<512xf32>) {
    %sum = memref.alloc() : memref<512xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<512xf32>)
    linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<512x512xf32>) outs(%sum : memref<512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %out, %in : f32
      linalg.yield %s : f32
    }
    %o = memref.alloc() : memref<512x512xf32>
    linalg.generic {indexing_maps = [#rows, #row, #col, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %wi : memref<512x512xf32>, memref<512xf32>, memref<512xf32>) outs(%o : memref<512x512xf32>) {
    ^bb0(%in: f32, %m: f32, %g: f32, %out: f32):
      %d = arith.subf %in, %m : f32
      %e = arith.mulf %d, %g : f32
      linalg.yield %e : f32
    }
    func.call @use512(%o) : (memref<512x512xf32>) -> ()
    scf.yield %sum : memref<512xf32>
  }
  %t = memref.alloc() : memref<512xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<512xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<512x512xf32>) outs(%t : memref<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #row, #col, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %t, %w0 : memref<512x512xf32>, memref<512xf32>, memref<512xf32>) outs(%y : memref<512x512xf32>) {
  ^bb0(%in: f32, %m: f32, %g: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = arith.mulf %d, %g : f32
    linalg.yield %e : f32
  }
  return %t : memref<512xf32>
}
func.func private @use512(memref<512x512xf32>)

// -----

// Tests that an operand reading a row dim at a position of its own (a
// causal mask [128, 128] of scores [4, 128, 128], indexed by the rows' T)
// lets the rows be both leading dims: tiles of 32 rows of one sequence,
// the mask's view the tile's 32 rows of it; and that a mask read with its
// dims swapped as well keeps the chain to the first dim (its two views
// would differ).

#s3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#m3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#t3 = affine_map<(d0, d1, d2) -> (d2, d1)>

// CHECK-LABEL: func.func @masked
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[T:.*]] = arith.remui %[[I]], %[[C4:.*]] : index
// CHECK: %[[ROW:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK: %[[B:.*]] = arith.divui %[[I]], %[[C4]] : index
// CHECK: memref.subview %{{.*}}[%{{.*}}, %[[ROW]], 0] [1, 32, 128] [1, 1, 1]
// CHECK: memref.subview %{{.*}}[%[[ROW]], 0] [32, 128] [1, 1] : memref<128x128xi1> to memref<32x128xi1
// CHECK: } {tfl.parallel}
func.func @masked(%x: memref<4x128x128xf32>, %mask: memref<128x128xi1>,
                  %y: memref<4x128x128xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<4x128xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<4x128xf32>)
  linalg.generic {indexing_maps = [#s3, #m3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %mask : memref<4x128x128xf32>, memref<128x128xi1>) outs(%max : memref<4x128xf32>) {
  ^bb0(%in: f32, %keep: i1, %out: f32):
    %v = arith.select %keep, %in, %ninf : f32
    %m = arith.maximumf %out, %v : f32
    linalg.yield %m : f32
  }
  %t = memref.alloc() : memref<4x128x128xf32>
  linalg.generic {indexing_maps = [#s3, #m3, #r3, #s3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mask, %max : memref<4x128x128xf32>, memref<128x128xi1>, memref<4x128xf32>) outs(%t : memref<4x128x128xf32>) {
  ^bb0(%in: f32, %keep: i1, %m: f32, %out: f32):
    %v = arith.select %keep, %in, %ninf : f32
    %d = arith.subf %v, %m : f32
    linalg.yield %d : f32
  }
  memref.dealloc %max : memref<4x128xf32>
  call @use3(%t) : (memref<4x128x128xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @masked_both_ways
// CHECK: scf.for
// CHECK: memref.subview %{{.*}}[%{{.*}}, 0, 0] [1, 128, 128] [1, 1, 1]
// CHECK: } {tfl.parallel}
func.func @masked_both_ways(%x: memref<4x128x128xf32>, %mask: memref<128x128xi1>,
                            %y: memref<4x128x128xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<4x128xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<4x128xf32>)
  linalg.generic {indexing_maps = [#s3, #m3, #t3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %mask, %mask : memref<4x128x128xf32>, memref<128x128xi1>, memref<128x128xi1>) outs(%max : memref<4x128xf32>) {
  ^bb0(%in: f32, %keep: i1, %keep2: i1, %out: f32):
    %k = arith.andi %keep, %keep2 : i1
    %v = arith.select %k, %in, %ninf : f32
    %m = arith.maximumf %out, %v : f32
    linalg.yield %m : f32
  }
  %t = memref.alloc() : memref<4x128x128xf32>
  linalg.generic {indexing_maps = [#s3, #r3, #s3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %max : memref<4x128x128xf32>, memref<4x128xf32>) outs(%t : memref<4x128x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  memref.dealloc %max : memref<4x128xf32>
  call @use3(%t) : (memref<4x128x128xf32>) -> ()
  return
}
func.func private @use3(memref<4x128x128xf32>)
