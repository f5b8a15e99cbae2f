// RUN: tfl-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s

// Tests that tfl.print bufferizes to runtime calls on its buffers, in order.
// CHECK-DAG: llvm.mlir.global internal constant @[[A:.*]]("a=\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[NL:.*]]("\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[NOSPEC:.*]]("\00")
// CHECK-DAG: func.func private @tflrt_print_i64(memref<*xi64>, !llvm.ptr)
// CHECK-LABEL: func.func @print
// CHECK-SAME: (%[[ARG:.*]]: memref<2xi64
func.func @print(%a: tensor<2xi64>) {
  // CHECK: %[[PA:.*]] = llvm.mlir.addressof @[[A]]
  // CHECK: call @tflrt_print_text(%[[PA]])
  // CHECK: %[[U:.*]] = memref.cast %[[ARG]] : memref<2xi64{{.*}}> to memref<*xi64>
  // CHECK: %[[S:.*]] = llvm.mlir.addressof @[[NOSPEC]]
  // CHECK: call @tflrt_print_i64(%[[U]], %[[S]])
  // CHECK: %[[PNL:.*]] = llvm.mlir.addressof @[[NL]]
  // CHECK: call @tflrt_print_text(%[[PNL]])
  // CHECK-NOT: tfl.print
  tfl.print %a : tensor<2xi64> {format = "a={}\n"}
  return
}

// -----

// Tests that a value printed again later keeps its buffer: the elementwise
// op between the prints may not overwrite it in place (print reads it).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @print_twice
func.func @print_twice(%a: tensor<2xf32>) {
  %e = tensor.empty() : tensor<2xf32>
  // CHECK: %[[X:.*]] = memref.alloc() {{.*}} : memref<2xf32>
  // CHECK: linalg.generic {{.*}} outs(%[[X]] : memref<2xf32>)
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  // CHECK: call @tflrt_print_f32
  tfl.print %x : tensor<2xf32> {format = "{}"}
  // CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<2xf32>
  // CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<2xf32>) outs(%[[Y]] : memref<2xf32>)
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<2xf32>) outs(%x : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  // CHECK: %[[UY:.*]] = memref.cast %[[Y]]
  // CHECK: call @tflrt_print_f32(%[[UY]], %{{.*}})
  tfl.print %y : tensor<2xf32> {format = "{}"}
  // CHECK: %[[UX:.*]] = memref.cast %[[X]]
  // CHECK: call @tflrt_print_f32(%[[UX]], %{{.*}})
  tfl.print %x : tensor<2xf32> {format = "{}"}
  return
}

// -----

// Tests that a placeholder's format spec is passed as a string.
// CHECK: llvm.mlir.global internal constant @[[SPEC:.*]](".3f\00")
// CHECK-LABEL: func.func @print_spec
func.func @print_spec(%a: tensor<f32>) {
  // CHECK: %[[U:.*]] = memref.cast
  // CHECK: %[[S:.*]] = llvm.mlir.addressof @[[SPEC]]
  // CHECK: call @tflrt_print_f32(%[[U]], %[[S]])
  tfl.print %a : tensor<f32> {format = "{:.3f}"}
  return
}
