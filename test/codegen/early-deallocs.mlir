// RUN: tfl-opt %s -split-input-file -tfl-early-deallocs | FileCheck %s

// Tests that tfl-early-deallocs moves the dealloc of a buffer allocated in
// the same block to just after the buffer's last use there: a use through
// a view counts, a use inside a loop counts as the loop, and a buffer that
// may escape (yielded from a loop) keeps its dealloc; a transpose is a
// view too.

// CHECK-LABEL: func.func @top_level
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[V:.*]] = memref.cast %[[A]]
// CHECK-NEXT: call @use(%[[V]])
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: call @other()
// CHECK-NEXT: return
func.func private @use(memref<*xf32>)
func.func private @other()
func.func @top_level(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %v = memref.cast %a : memref<4xf32> to memref<*xf32>
  call @use(%v) : (memref<*xf32>) -> ()
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %b[%c0] : memref<4xf32>
  }
  call @other() : () -> ()
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A buffer yielded by a loop may be the loop's result: its dealloc stays.
// So does one whose address leaves as an index.

// CHECK-LABEL: func.func @escapes
// CHECK: call @other()
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func private @other()
func.func @escapes(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %a) -> (memref<4xf32>) {
    scf.yield %a : memref<4xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %b : memref<4xf32> -> index
  call @other() : () -> ()
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %p : index
}

// -----

// A transpose is a view (without ViewLikeOpInterface): a buffer read
// through one, as attention reads the heads of a product's result, is
// freed after that read, not at the end of the block.

// CHECK-LABEL: func.func @transposed
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: %[[T:.*]] = memref.transpose %[[A]]
// CHECK-NEXT: %[[V:.*]] = memref.cast %[[T]]
// CHECK-NEXT: call @use(%[[V]])
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: call @other()
// CHECK-NEXT: return
func.func private @use(memref<*xf32>)
func.func private @other()
func.func @transposed() {
  %a = memref.alloc() : memref<2x3xf32>
  %t = memref.transpose %a (d0, d1) -> (d1, d0) : memref<2x3xf32> to memref<3x2xf32, strided<[1, 3]>>
  %v = memref.cast %t : memref<3x2xf32, strided<[1, 3]>> to memref<*xf32>
  call @use(%v) : (memref<*xf32>) -> ()
  call @other() : () -> ()
  memref.dealloc %a : memref<2x3xf32>
  return
}
