// RUN: tfl-opt %s -split-input-file -tfl-donate-loop-inits | FileCheck %s

// Tests that a loop gets the ownership of an initial buffer its block
// allocated and uses no more after it (read before the loop through a
// cast, then only the loop's initial value and the block's dealloc): the
// loop's ownership operand becomes true and the dealloc's condition
// false. A buffer read after the loop stays the block's.
// CHECK-LABEL: func.func @train
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: %[[W:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[KEPT:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[READ:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[W]], %{{.*}} = %[[KEPT]], %{{.*}} = %[[TRUE]], %{{.*}} = %[[FALSE]])
// CHECK: %[[NO:.*]] = arith.constant false
// CHECK: bufferization.dealloc (%[[W]], %[[KEPT]], %[[READ]] : {{.*}}) if (%[[NO]], %true, %true)
#id = affine_map<(d0) -> (d0)>
func.func @train(%n: index, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %true = arith.constant true
  %cst = arith.constant 1.0 : f32
  %w = memref.alloc() : memref<16xf32>
  %cast = memref.cast %w : memref<16xf32> to memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%cast : memref<?xf32>)
  %kept = memref.alloc() : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%kept : memref<16xf32>)
  %read = memref.alloc() : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%read : memref<16xf32>)
  %r:4 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %w, %b = %kept, %oa = %false, %ob = %false) -> (memref<16xf32>, memref<16xf32>, i1, i1) {
    %na = memref.alloc() : memref<16xf32>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %read : memref<16xf32>, memref<16xf32>) outs(%na : memref<16xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
    %base, %off, %size, %stride = memref.extract_strided_metadata %a : memref<16xf32> -> memref<f32>, index, index, index
    %d:2 = bufferization.dealloc (%base : memref<f32>) if (%oa) retain (%na, %b : memref<16xf32>, memref<16xf32>)
    scf.yield %na, %b, %true, %ob : memref<16xf32>, memref<16xf32>, i1, i1
  }
  memref.copy %r#0, %out : memref<16xf32> to memref<16xf32>
  memref.copy %kept, %out : memref<16xf32> to memref<16xf32>
  %rb, %ro, %rs, %rst = memref.extract_strided_metadata %r#0 : memref<16xf32> -> memref<f32>, index, index, index
  bufferization.dealloc (%w, %kept, %read : memref<16xf32>, memref<16xf32>, memref<16xf32>) if (%true, %true, %true)
  bufferization.dealloc (%rb : memref<f32>) if (%r#2)
  return
}

// -----

// Tests that a buffer the loop's body reads directly, besides starting
// from it, stays the block's: freeing it after the first iteration would
// free what later ones read.
// CHECK-LABEL: func.func @read_inside
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: %[[W:.*]] = memref.alloc() : memref<16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[W]], %{{.*}} = %[[FALSE]])
// CHECK: bufferization.dealloc (%[[W]] : memref<16xf32>) if (%true)
#id = affine_map<(d0) -> (d0)>
func.func @read_inside(%n: index, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %true = arith.constant true
  %w = memref.alloc() : memref<16xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %w, %oa = %false) -> (memref<16xf32>, i1) {
    %na = memref.alloc() : memref<16xf32>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %w : memref<16xf32>, memref<16xf32>) outs(%na : memref<16xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
    %base, %off, %size, %stride = memref.extract_strided_metadata %a : memref<16xf32> -> memref<f32>, index, index, index
    %d = bufferization.dealloc (%base : memref<f32>) if (%oa) retain (%na : memref<16xf32>)
    scf.yield %na, %true : memref<16xf32>, i1
  }
  memref.copy %r#0, %out : memref<16xf32> to memref<16xf32>
  %rb, %ro, %rs, %rst = memref.extract_strided_metadata %r#0 : memref<16xf32> -> memref<f32>, index, index, index
  bufferization.dealloc (%w : memref<16xf32>) if (%true)
  bufferization.dealloc (%rb : memref<f32>) if (%r#1)
  return
}
