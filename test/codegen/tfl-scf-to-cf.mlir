// RUN: tfl-opt --tfl-scf-to-cf %s | FileCheck %s
// The same CFG as upstream's pass makes, block for block:
// RUN: tfl-opt --tfl-scf-to-cf %s > %t.tfl
// RUN: tfl-opt --convert-scf-to-cf %s > %t.upstream
// RUN: diff %t.tfl %t.upstream

// A step's body: conditional frees of loop-carried buffers, one after the
// other, then the yield.
// CHECK-LABEL: func.func @conditional_frees
// CHECK-NOT: scf.
// CHECK: ^[[COND:bb[0-9]+]](%[[IV:.*]]: index, %{{.*}}: memref<4xf32>, %[[OWN:.*]]: i1):
// CHECK: arith.cmpi slt, %[[IV]]
// CHECK: cf.cond_br
// CHECK: cf.cond_br %[[OWN]], ^[[FREE:bb[0-9]+]], ^[[NEXT:bb[0-9]+]]
// CHECK: ^[[FREE]]:
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: cf.br ^[[NEXT]]
// CHECK: ^[[NEXT]]:
// CHECK: cf.cond_br
// CHECK: memref.dealloc
// CHECK: cf.br ^[[COND]]
// CHECK: return
func.func @conditional_frees(%n: index, %a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %own = %true) -> (memref<4xf32>, i1) {
    %new = memref.alloc() : memref<4xf32>
    memref.copy %x, %new : memref<4xf32> to memref<4xf32>
    scf.if %own {
      memref.dealloc %x : memref<4xf32>
    }
    %other = memref.alloc() : memref<4xf32>
    %own2 = arith.cmpi ult, %i, %n : index
    scf.if %own2 {
      memref.dealloc %other : memref<4xf32>
    }
    scf.yield %new, %true : memref<4xf32>, i1
  }
  return %r#0 : memref<4xf32>
}

// Ifs with results nested in ifs, in a while loop.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: scf.
// CHECK: cf.br ^[[BEFORE:bb[0-9]+]]
// CHECK: ^[[BEFORE]](%{{.*}}: i32):
// CHECK: cf.cond_br
// CHECK: cf.br ^[[BEFORE]]
// CHECK: return
func.func @nested(%init: i32, %limit: i32, %flag: i1) -> i32 {
  %one = arith.constant 1 : i32
  %r = scf.while (%v = %init) : (i32) -> i32 {
    %go = arith.cmpi slt, %v, %limit : i32
    scf.condition(%go) %v : i32
  } do {
  ^bb0(%v: i32):
    %next = scf.if %flag -> i32 {
      %inner = scf.if %flag -> i32 {
        %s = arith.addi %v, %one : i32
        scf.yield %s : i32
      } else {
        scf.yield %v : i32
      }
      scf.yield %inner : i32
    } else {
      %t = arith.addi %v, %one : i32
      scf.yield %t : i32
    }
    scf.yield %next : i32
  }
  return %r : i32
}

// An scf.parallel (lowered to scf.fors first) with an if in its body, and
// an execute_region.
// CHECK-LABEL: func.func @parallel
// CHECK-NOT: scf.
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi slt
// CHECK: memref.store
// CHECK: return
func.func @parallel(%m: memref<?x?xf32>, %n: index, %flag: i1) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    scf.if %flag {
      memref.store %zero, %m[%i, %j] : memref<?x?xf32>
    }
    scf.reduce
  }
  %r = scf.execute_region -> i32 {
    %k = arith.constant 7 : i32
    scf.yield %k : i32
  }
  return %r : i32
}
