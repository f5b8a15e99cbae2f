// RUN: tfl-opt %s -tfl-parallelize-loops | FileCheck %s
// RUN: tfl-opt %s -tfl-parallelize-loops -tfl-stage-llvm | FileCheck %s --check-prefix=LLVM
// RUN: tfl-opt %s -tfl-parallelize-loops | FileCheck %s --check-prefix=SHARE

// Tests that a loop marked tfl.parallel becomes an outlined function over
// [begin, end) and a tflrt_parallel_for call: buffers, vectors and indices
// travel in a stack struct allocated once in the caller's entry block
// (memrefs as descriptors), constants are cloned, unmarked loops stay, and
// the casts disappear in the LLVM lowering; loops alike share a function.

// CHECK-LABEL: func.func @scale
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, vector<32xf32>, struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>)>
// CHECK: scf.for
// CHECK: builtin.unrealized_conversion_cast %arg0 : memref<4096xf32> to !llvm.struct
// CHECK: llvm.store
// CHECK: llvm.store %arg2, %{{.*}} : vector<32xf32>, !llvm.ptr
// CHECK: builtin.unrealized_conversion_cast %arg1 : memref<4096xf32> to !llvm.struct
// CHECK: llvm.store
// CHECK: %[[FN:.*]] = func.constant @__tfl_parallel_0 : (!llvm.ptr, i64, i64) -> ()
// CHECK: func.call @tflrt_parallel_for(%[[FN]], %[[CTX]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: vector.transfer_read
// CHECK: return

// CHECK-LABEL: func.func @unmarked
// CHECK: scf.for
// CHECK-NOT: tflrt_parallel_for
// CHECK: return

// CHECK-LABEL: func.func private @__tfl_parallel_0(%arg0: !llvm.ptr, %arg1: i64, %arg2: i64)
// CHECK-DAG: arith.constant 32 : index
// CHECK: %[[P0:.*]] = llvm.getelementptr %arg0[0, 0]
// CHECK: %[[D0:.*]] = llvm.load %[[P0]]
// CHECK: builtin.unrealized_conversion_cast %[[D0]] : !llvm.struct<{{.*}}> to memref<4096xf32>
// CHECK: %[[P1:.*]] = llvm.getelementptr %arg0[0, 1]
// CHECK: llvm.load %[[P1]] : !llvm.ptr -> vector<32xf32>
// CHECK: %[[B:.*]] = arith.index_cast %arg1 : i64 to index
// CHECK: %[[E:.*]] = arith.index_cast %arg2 : i64 to index
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]] step
// CHECK: vector.transfer_read
// CHECK: arith.mulf
// CHECK: vector.transfer_write
// CHECK-NOT: tfl.parallel

// LLVM-LABEL: llvm.func @scale
// LLVM: llvm.mlir.addressof @__tfl_parallel_0
// LLVM: llvm.call @tflrt_parallel_for
// LLVM-LABEL: llvm.func @__tfl_parallel_0
// LLVM-NOT: unrealized_conversion_cast
// LLVM: llvm.intr.masked.load

func.func @scale(%a: memref<4096xf32>, %out: memref<4096xf32>, %s: vector<32xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4096 step %c32 {
      %v = vector.transfer_read %a[%j], %pad : memref<4096xf32>, vector<32xf32>
      %r = arith.mulf %v, %s : vector<32xf32>
      vector.transfer_write %r, %out[%j] {in_bounds = [true]} : vector<32xf32>, memref<4096xf32>
    } {tfl.parallel}
  }
  return
}

func.func @unmarked(%a: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %one = arith.constant 1.0 : f32
  scf.for %j = %c0 to %c4096 step %c1 {
    memref.store %one, %a[%j] : memref<4096xf32>
  }
  return
}

// Loops alike in every op (a model's repeated layers) share one outlined
// function; a loop that differs (another constant) gets its own.
// SHARE-LABEL: func.func @layers
// SHARE: %[[F1:.*]] = {{(func.)?}}constant @[[SHARED:__tfl_parallel_[0-9]+]] :
// SHARE: {{(func.)?}}call @tflrt_parallel_for(%[[F1]],
// SHARE: %[[F2:.*]] = {{(func.)?}}constant @[[SHARED]] :
// SHARE: {{(func.)?}}call @tflrt_parallel_for(%[[F2]],
// SHARE: %[[F3:.*]] = {{(func.)?}}constant @[[OTHER:__tfl_parallel_[0-9]+]] :
// SHARE: {{(func.)?}}call @tflrt_parallel_for(%[[F3]],
// SHARE: return
// SHARE-DAG: func.func private @[[SHARED]](
// SHARE-DAG: func.func private @[[OTHER]](
// SHARE-NOT: func.func private @__tfl_parallel
func.func @layers(%a: memref<4096xf32>, %b: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  scf.for %j = %c0 to %c4096 step %c1 {
    memref.store %one, %a[%j] : memref<4096xf32>
  } {tfl.parallel}
  scf.for %j = %c0 to %c4096 step %c1 {
    memref.store %one, %b[%j] : memref<4096xf32>
  } {tfl.parallel}
  scf.for %j = %c0 to %c4096 step %c1 {
    memref.store %two, %b[%j] : memref<4096xf32>
  } {tfl.parallel}
  return
}
