// RUN: tfl-opt %s -tfl-stage-bufferize | FileCheck %s

// Tests that the bufferize stage frees a loop body's temporary right
// after its last use when the body also has an `if` that yields a
// constant in one branch (as a Python `or` does): tfl-split-deallocs
// gives the temporary a dealloc of its own, which tfl-early-deallocs
// moves up, instead of a run-time alias check at the end of the body.

// CHECK-LABEL: func.func @step
// CHECK: scf.for
// CHECK: %[[T:.*]] = memref.alloc() {{.*}} : memref<64xf32>
// CHECK: scf.if
// CHECK: memref.get_global
// CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[T]], %{{.*}} : memref<64xf32>, memref<i1>) outs(%[[Y]] : memref<64xf32>)
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[T]] : memref<64xf32>
// CHECK-NOT: extract_aligned_pointer_as_index %[[T]] :
// CHECK: scf.yield %[[Y]]
#map = affine_map<(d0) -> (d0)>
#map0 = affine_map<(d0) -> ()>
func.func @step(%n: index, %x0: tensor<64xf32>, %c: i1) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %x0) -> (tensor<64xf32>) {
    %e = tensor.empty() : tensor<64xf32>
    %t = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %a : f32
      linalg.yield %m : f32
    } -> tensor<64xf32>
    %s = scf.if %c -> (tensor<i1>) {
      %k = arith.constant dense<true> : tensor<i1>
      scf.yield %k : tensor<i1>
    } else {
      %eb = tensor.empty() : tensor<i1>
      %b = linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%eb : tensor<i1>) {
      ^bb0(%o: i1):
        %f = arith.constant false
        linalg.yield %f : i1
      } -> tensor<i1>
      scf.yield %b : tensor<i1>
    }
    %e2 = tensor.empty() : tensor<64xf32>
    %y = linalg.generic {indexing_maps = [#map, #map0, #map], iterator_types = ["parallel"]} ins(%t, %s : tensor<64xf32>, tensor<i1>) outs(%e2 : tensor<64xf32>) {
    ^bb0(%a: f32, %b: i1, %o: f32):
      %one = arith.constant 1.0 : f32
      %p = arith.addf %a, %one : f32
      %q = arith.select %b, %p, %a : f32
      linalg.yield %q : f32
    } -> tensor<64xf32>
    scf.yield %y : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
