// RUN: tfl-opt %s -tfl-host-loops | FileCheck %s
// REQUIRES: cuda

// Tests that a host function (work placed on the CPU) gets the CPU
// pipeline's loops, a vector loop for its generic and exp as the CPU's
// polynomial, while a device function keeps its generic (and its exp) for
// the GPU's kernels.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func private @f.host0(
// CHECK-NOT: linalg.generic
// CHECK: vector.transfer_read {{.*}} : memref<64xf32>, vector<64xf32>
// CHECK: math.fma {{.*}} : vector<64xf32>
// CHECK-NOT: math.exp
// CHECK: vector.transfer_write {{.*}} : vector<64xf32>, memref<64xf32>
func.func private @f.host0(%x: memref<64xf32>, %y: memref<64xf32>) attributes {tfl.device = "cpu"} {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// CHECK-LABEL: func.func @f(
// CHECK: linalg.generic
// CHECK: math.exp {{.*}} : f32
// CHECK-NOT: vector.
func.func @f(%x: memref<64xf32>, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}
