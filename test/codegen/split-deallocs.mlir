// RUN: tfl-opt %s -split-input-file -tfl-split-deallocs | FileCheck %s

// Tests that tfl-split-deallocs gives a buffer allocated in a dealloc's
// block a dealloc of its own when nothing else in the list can be that
// buffer (block arguments, globals, other allocations, through views,
// selects and ifs), and keeps it in the list when something may be (a
// view of it, a value it cannot trace made after it); a retained view of
// the buffer stays retained, with the ownership or-ed in.

// A loop body's shape: the previous step's buffer (a block argument), a
// temporary, the buffer yielded, and an `or` that yields a global in one
// branch. MLIR's simplification leaves these in one dealloc. The yielded
// buffer, made in the block and none of the list's, is retained by none:
// no dealloc owns it (false), and none compares its pointer.
// CHECK-LABEL: func.func @body
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[OWN:.*]]: i1, %[[C:.*]]: i1)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[BX:[^,]*]], {{.*}} = memref.extract_strided_metadata %[[X]]
// CHECK: %[[BS:[^,]*]], {{.*}} = memref.extract_strided_metadata
// CHECK-NEXT: bufferization.dealloc (%[[T]] : memref<16xf32>) if (%[[TRUE]]){{$}}
// CHECK-NEXT: bufferization.dealloc (%[[BX]], %[[BS]] : memref<f32>, memref<i1>) if (%[[OWN]], %{{.*}}){{$}}
// CHECK-NEXT: %[[NO:.*]] = arith.constant false
// CHECK-NEXT: return %[[Y]], %[[NO]]
memref.global "private" constant @yes : memref<i1> = dense<true>
func.func @body(%x: memref<16xf32>, %own: i1, %c: i1) -> (memref<16xf32>, i1) {
  %true = arith.constant true
  %false = arith.constant false
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  %y = memref.alloc() : memref<16xf32>
  memref.copy %t, %y : memref<16xf32> to memref<16xf32>
  %s:2 = scf.if %c -> (memref<i1>, i1) {
    %g = memref.get_global @yes : memref<i1>
    scf.yield %g, %false : memref<i1>, i1
  } else {
    %a = memref.alloc() : memref<i1>
    scf.yield %a, %true : memref<i1>, i1
  }
  %bx, %ox, %sx, %tx = memref.extract_strided_metadata %x : memref<16xf32> -> memref<f32>, index, index, index
  %bs, %os = memref.extract_strided_metadata %s#0 : memref<i1> -> memref<i1>, index
  %r = bufferization.dealloc (%bx, %t, %bs : memref<f32>, memref<16xf32>, memref<i1>) if (%own, %true, %s#1) retain (%y : memref<16xf32>)
  return %y, %r : memref<16xf32>, i1
}

// -----

// Two fresh buffers and a select between a global and a third: each
// buffer gets a dealloc of its own.
// CHECK-LABEL: func.func @fresh
// CHECK: bufferization.dealloc (%{{.*}} : memref<4xf32>) if
// CHECK-NEXT: bufferization.dealloc (%{{.*}} : memref<8xf32>) if
// CHECK-NEXT: bufferization.dealloc (%{{.*}} : memref<i1>) if
// CHECK-NEXT: return
memref.global "private" constant @yes : memref<i1> = dense<true>
func.func @fresh(%c: i1, %own: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %g = memref.get_global @yes : memref<i1>
  %e = memref.alloc() : memref<i1>
  %s = arith.select %c, %g, %e : memref<i1>
  bufferization.dealloc (%a, %b, %s : memref<4xf32>, memref<8xf32>, memref<i1>) if (%true, %true, %own)
  return
}

// -----

// A view of the buffer, and a memref made after it by an op the pass
// cannot trace, keep it in the list; a memref made before it does not.
// CHECK-LABEL: func.func @kept
// CHECK: %[[A:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[BV:[^,]*]], {{.*}} = memref.extract_strided_metadata %{{.*}} : memref<4xf32,
// CHECK: bufferization.dealloc (%[[A]], %[[BV]] : memref<16xf32>, memref<f32>)
// CHECK: %[[B:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[U:.*]] = call @make()
// CHECK: bufferization.dealloc (%[[B]], %[[U]] : memref<16xf32>, memref<16xf32>)
// CHECK: %[[P:.*]] = call @make()
// CHECK: %[[D:.*]] = memref.alloc() : memref<16xf32>
// CHECK: bufferization.dealloc (%[[D]] : memref<16xf32>) if
// CHECK-NEXT: bufferization.dealloc (%[[P]] : memref<16xf32>) if
func.func private @make() -> memref<16xf32>
func.func @kept(%own: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<16xf32>
  %v = memref.subview %a[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
  %bv, %ov, %sv, %tv = memref.extract_strided_metadata %v : memref<4xf32, strided<[1], offset: 4>> -> memref<f32>, index, index, index
  bufferization.dealloc (%a, %bv : memref<16xf32>, memref<f32>) if (%true, %own)
  %b = memref.alloc() : memref<16xf32>
  %u = call @make() : () -> memref<16xf32>
  bufferization.dealloc (%b, %u : memref<16xf32>, memref<16xf32>) if (%true, %own)
  %p = call @make() : () -> memref<16xf32>
  %d = memref.alloc() : memref<16xf32>
  bufferization.dealloc (%d, %p : memref<16xf32>, memref<16xf32>) if (%true, %own)
  return
}

// -----

// A retained view of the buffer: the buffer's own dealloc retains it,
// and the ownership it returns is or-ed into the old dealloc's; another
// retained buffer, made in the block and none of the list's, is owned
// through neither (false).
// CHECK-LABEL: func.func @retained
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[OWN:.*]]: i1)
// CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[V:.*]] = memref.cast %[[T]]
// CHECK: %[[Y:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[O:.*]] = bufferization.dealloc (%[[T]] : memref<16xf32>) if (%{{.*}}) retain (%[[V]] : memref<?xf32>)
// CHECK-NEXT: %[[R:.*]] = bufferization.dealloc (%[[X]] : memref<16xf32>) if (%[[OWN]]) retain (%[[V]] : memref<?xf32>)
// CHECK-NEXT: %[[OR:.*]] = arith.ori %[[R]], %[[O]]
// CHECK-NEXT: %[[NO:.*]] = arith.constant false
// CHECK-NEXT: return %[[V]], %[[Y]], %[[OR]], %[[NO]]
func.func @retained(%x: memref<16xf32>, %own: i1) -> (memref<?xf32>, memref<4xf32>, i1, i1) {
  %true = arith.constant true
  %t = memref.alloc() : memref<16xf32>
  %v = memref.cast %t : memref<16xf32> to memref<?xf32>
  %y = memref.alloc() : memref<4xf32>
  %r:2 = bufferization.dealloc (%x, %t : memref<16xf32>, memref<16xf32>) if (%own, %true) retain (%v, %y : memref<?xf32>, memref<4xf32>)
  return %v, %y, %r#0, %r#1 : memref<?xf32>, memref<4xf32>, i1, i1
}

// -----

// The end of a training loop's function: buffers made before the loop, two
// of them its initial parameters, and the loop's results (the trained
// parameters: the initial buffer or one the body made). A buffer that no
// loop carries (%c) gets a dealloc of its own; each initial parameter and
// the result it may be share one; nothing else is compared.
// CHECK-LABEL: func.func @trained
// CHECK-DAG: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-DAG: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK-DAG: %[[C:.*]] = memref.alloc() : memref<2xf32>
// CHECK: %[[R:.*]]:2 = scf.for
// CHECK: bufferization.dealloc (%[[C]] : memref<2xf32>) if (%{{.*}}){{$}}
// CHECK-DAG: bufferization.dealloc (%[[A]], %[[R]]#0 : memref<4xf32>, memref<4xf32>) if (%{{.*}}, %{{.*}}){{$}}
// CHECK-DAG: bufferization.dealloc (%[[B]], %[[R]]#1 : memref<8xf32>, memref<8xf32>) if (%{{.*}}, %{{.*}}){{$}}
// CHECK-NOT: bufferization.dealloc
// CHECK: return
func.func @trained(%n: index) {
  %true = arith.constant true
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %c = memref.alloc() : memref<2xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %b) -> (memref<4xf32>, memref<8xf32>) {
    %p2 = memref.alloc() : memref<4xf32>
    memref.copy %p, %p2 : memref<4xf32> to memref<4xf32>
    scf.yield %p2, %q : memref<4xf32>, memref<8xf32>
  }
  bufferization.dealloc (%a, %b, %c, %r#0, %r#1 : memref<4xf32>, memref<8xf32>, memref<2xf32>, memref<4xf32>, memref<8xf32>) if (%true, %true, %true, %true, %true)
  return
}

// -----

// A memref of unknown origin (a call's result) may be any buffer the
// function made before: the dealloc is not grouped.
// CHECK-LABEL: func.func @unknown
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>, memref<4xf32>)
// CHECK-NOT: bufferization.dealloc
func.func private @make() -> memref<4xf32>
func.func @unknown(%n: index) {
  %true = arith.constant true
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a) -> (memref<4xf32>) {
    scf.yield %p : memref<4xf32>
  }
  %u = call @make() : () -> memref<4xf32>
  bufferization.dealloc (%a, %r, %u : memref<4xf32>, memref<4xf32>, memref<4xf32>) if (%true, %true, %true)
  return
}
