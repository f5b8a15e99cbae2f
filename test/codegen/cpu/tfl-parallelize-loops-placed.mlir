// RUN: tfl-opt %s -tfl-parallelize-loops | FileCheck %s

// Tests that a loop of work placed on the CPU in a GPU program (a host
// function, tfl-outline-host-work, marked tfl.device = "cpu") becomes an
// outlined body marked as its function is, so that the CUDA wing keeps it
// host code.
// CHECK-LABEL: func.func private @placed.host0(
// CHECK: call @tflrt_parallel_for(
// CHECK-LABEL: func.func private @__tfl_parallel_{{[0-9]+}}(
// CHECK-SAME: attributes {tfl.device = "cpu"}
// CHECK: memref.store
func.func private @placed.host0(%a: memref<4096xf32>) attributes {tfl.device = "cpu"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %three = arith.constant 3.0 : f32
  scf.for %j = %c0 to %c4096 step %c1 {
    memref.store %three, %a[%j] : memref<4096xf32>
  } {tfl.parallel}
  return
}
