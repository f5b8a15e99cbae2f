// RUN: tfl-opt %s -split-input-file -tfl-to-linalg | FileCheck %s

// Tests that broadcasting lives in the indexing maps: the stretched size-1
// dim reads index 0, the missing leading dim is dropped.
// CHECK-DAG: #[[STRETCH:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_broadcast
func.func @add_broadcast(%a: tensor<3x1xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  // CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<3x4xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[STRETCH]], #[[TRAIL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
  // CHECK-SAME: outs(%[[EMPTY]] : tensor<3x4xf32>)
  // CHECK: arith.addf
  // CHECK-NOT: tfl.
  %0 = tfl.add %a, %b : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that a scalar operand is read through an empty map.
// CHECK: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @sub_div_scalar
func.func @sub_div_scalar(%a: tensor<4xf64>, %s: tensor<f64>) -> tensor<4xf64> {
  // CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]], #{{.*}}]
  // CHECK: arith.subf
  %0 = tfl.sub %a, %s : tensor<4xf64>, tensor<f64> -> tensor<4xf64>
  // CHECK: linalg.generic
  // CHECK: arith.divf
  %1 = tfl.div %0, %s : tensor<4xf64>, tensor<f64> -> tensor<4xf64>
  return %1 : tensor<4xf64>
}

// -----

// Tests integer multiplication and negation (0 - x).
// CHECK-LABEL: func.func @int_ops
func.func @int_ops(%a: tensor<2xi64>) -> tensor<2xi64> {
  // CHECK: arith.muli
  %0 = tfl.mul %a, %a : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  // CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
  // CHECK: arith.subi %[[ZERO]], %{{.*}} : i64
  %1 = tfl.neg %0 : tensor<2xi64>
  return %1 : tensor<2xi64>
}

// -----

// Tests float negation.
// CHECK-LABEL: func.func @neg_float
func.func @neg_float(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK: arith.negf
  %0 = tfl.neg %a : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Tests that casts follow astype: u8 (i8) and bool (i1) read unsigned,
// anything to bool is x != 0, floats to ints truncate and saturate (NaN
// giving 0).
// CHECK-LABEL: func.func @casts
func.func @casts(%u: tensor<2xi8>, %f: tensor<2xf32>, %i: tensor<2xi64>) {
  // CHECK: arith.uitofp %{{.*}} : i8 to f32
  %0 = tfl.cast %u : tensor<2xi8> -> tensor<2xf32>
  // CHECK: arith.cmpf une
  %1 = tfl.cast %f : tensor<2xf32> -> tensor<2xi1>
  // CHECK: %[[T:.*]] = arith.fptosi %[[X:.*]] : f32 to i64
  // CHECK: %[[LO:.*]] = arith.cmpf ole, %[[X]], %{{.*}} : f32
  // CHECK: %[[HI:.*]] = arith.cmpf oge, %[[X]], %{{.*}} : f32
  // CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
  // CHECK: %[[R1:.*]] = arith.select %[[HI]], %{{.*}}, %[[T]] : i64
  // CHECK: %[[R2:.*]] = arith.select %[[LO]], %{{.*}}, %[[R1]] : i64
  // CHECK: arith.select %[[NAN]], %{{.*}}, %[[R2]] : i64
  %2 = tfl.cast %f : tensor<2xf32> -> tensor<2xi64>
  // CHECK: arith.extf %{{.*}} : f32 to f64
  %3 = tfl.cast %f : tensor<2xf32> -> tensor<2xf64>
  // CHECK: arith.sitofp %{{.*}} : i64 to f32
  %4 = tfl.cast %i : tensor<2xi64> -> tensor<2xf32>
  // CHECK: arith.extui %{{.*}} : i1 to i64
  %5 = tfl.cast %1 : tensor<2xi1> -> tensor<2xi64>
  // CHECK: arith.trunci %{{.*}} : i64 to i32
  %6 = tfl.cast %i : tensor<2xi64> -> tensor<2xi32>
  return
}

// -----

// Tests that constants become arith constants.
// CHECK-LABEL: func.func @constant
func.func @constant() -> tensor<2xf32> {
  // CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = tfl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that matmul is a zero-filled linalg.matmul.
// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x4xf32>
  // CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>)
  // CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[FILL]] : tensor<2x4xf32>)
  %0 = tfl.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that print is left for bufferization (PrintBufferization.cpp).
// CHECK-LABEL: func.func @print
func.func @print(%a: tensor<2xi64>) {
  // CHECK: tfl.print %{{.*}} : tensor<2xi64> {format = "a={}\0A"}
  tfl.print %a : tensor<2xi64> {format = "a={}\n"}
  return
}

// -----

// Tests comparisons: ordered for floats but `ne`, unsigned for u8, and not
// as xor with true.
// CHECK-LABEL: func.func @compare
func.func @compare(%f: tensor<2xf32>, %u: tensor<2xi8>, %i: tensor<2xi64>) {
  // CHECK: arith.cmpf olt
  %0 = tfl.compare lt, %f, %f : tensor<2xf32>, tensor<2xf32> -> tensor<2xi1>
  // CHECK: arith.cmpf une
  %1 = tfl.compare ne, %f, %f : tensor<2xf32>, tensor<2xf32> -> tensor<2xi1>
  // CHECK: arith.cmpi ult
  %2 = tfl.compare lt, %u, %u : tensor<2xi8>, tensor<2xi8> -> tensor<2xi1>
  // CHECK: arith.cmpi sge
  %3 = tfl.compare ge, %i, %i : tensor<2xi64>, tensor<2xi64> -> tensor<2xi1>
  // CHECK: %[[TRUE:.*]] = arith.constant true
  // CHECK: arith.xori %{{.*}}, %[[TRUE]] : i1
  %4 = tfl.not %0 : tensor<2xi1>
  return
}

// -----

// Tests floor division and remainder: floats through floor and remf with
// the sign fix-up, integers guarded against a zero divisor, u8 unsigned.
// CHECK-LABEL: func.func @division
func.func @division(%f: tensor<2xf32>, %i: tensor<2xi64>, %u: tensor<2xi8>) {
  // CHECK: arith.divf
  // CHECK: math.floor
  %0 = tfl.floordiv %f, %f : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  // CHECK: arith.cmpi eq
  // CHECK: arith.select
  // CHECK: arith.floordivsi
  // CHECK: arith.select
  %1 = tfl.floordiv %i, %i : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  // CHECK: arith.divui
  %2 = tfl.floordiv %u, %u : tensor<2xi8>, tensor<2xi8> -> tensor<2xi8>
  // CHECK: arith.remf
  // CHECK: arith.xori
  // CHECK: arith.addf
  %3 = tfl.mod %f, %f : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  // CHECK: arith.remsi
  // CHECK: arith.addi
  %4 = tfl.mod %i, %i : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return
}

// -----

// Tests power: powf for floats, ipowi guarded for 0 ** negative.
// CHECK-LABEL: func.func @power
func.func @power(%f: tensor<2xf32>, %i: tensor<2xi64>) {
  // CHECK: math.powf
  %0 = tfl.pow %f, %f : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  // CHECK: arith.andi
  // CHECK: math.ipowi
  // CHECK: arith.select
  %1 = tfl.pow %i, %i : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return
}

// -----

// Tests the math built-ins' scalar bodies (each matches the eager kernel's
// formula): exp via math, sigmoid as 1 / (1 + exp(-x)), rsqrt as 1 / sqrt,
// round half to even, relu NaN-propagating, integer maximum, where as select.
// CHECK-LABEL: func.func @math
func.func @math(%f: tensor<2xf32>, %i: tensor<2xi64>, %c: tensor<2xi1>) {
  // CHECK: math.exp
  %0 = tfl.exp %f : tensor<2xf32>
  // CHECK: arith.negf
  // CHECK: math.exp
  // CHECK: arith.addf
  // CHECK: arith.divf
  %1 = tfl.sigmoid %f : tensor<2xf32>
  // CHECK: math.sqrt
  // CHECK: arith.divf
  %2 = tfl.rsqrt %f : tensor<2xf32>
  // CHECK: math.roundeven
  %3 = tfl.round %f : tensor<2xf32>
  // CHECK: arith.maximumf
  %4 = tfl.relu %f : tensor<2xf32>
  // CHECK: arith.maxsi
  %5 = tfl.maximum %i, %i : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  // CHECK: linalg.generic
  // CHECK: arith.select
  %6 = tfl.where %c, %f, %f : tensor<2xi1>, tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

// Tests a sum over one axis: a zero-filled output, a reduction iterator,
// and keepdims restored by expand_shape.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum
func.func @reduce_sum(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32)
  // CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
  // CHECK-SAME: outs(%[[FILL]] : tensor<2xf32>)
  // CHECK: arith.addf
  // CHECK: tensor.expand_shape %[[SUM]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
  %0 = tfl.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// Tests max: -inf identity and NaN-propagating maximumf.
// CHECK-LABEL: func.func @reduce_max
func.func @reduce_max(%x: tensor<4xf32>) -> tensor<f32> {
  // CHECK: arith.constant 0xFF800000 : f32
  // CHECK: arith.maximumf
  %0 = tfl.reduce_max %x {axes = array<i64: 0>, keepdims = false} : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests argmax: (value, index) carried through a two-output generic, the
// first NaN winning; over all axes the input is collapsed first.
// CHECK-LABEL: func.func @argmax
func.func @argmax(%x: tensor<2x3xf32>) -> tensor<i64> {
  // CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["reduction"]
  // CHECK: arith.cmpf ogt
  // CHECK: arith.cmpf uno
  // CHECK: linalg.index 0
  // CHECK: arith.select
  %0 = tfl.argmax %x {keepdims = false} : tensor<2x3xf32> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Tests that reshape only collapses and expands (no data moves), transpose
// is a generic with a permuted input map, and concat inserts slices.
// CHECK-DAG: #[[PERM:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<2x3xf32>) {
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  // CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  %0 = tfl.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[PERM]], #{{.*}}]
  %1 = tfl.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<2x6xf32>
  // CHECK: %[[S0:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0] [2, 3] [1, 1]
  // CHECK: tensor.insert_slice %{{.*}} into %[[S0]][0, 3] [2, 3] [1, 1]
  %2 = tfl.concat %x, %x {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  // CHECK: linalg.generic
  // CHECK: linalg.yield
  %3 = tfl.broadcast_to %x : tensor<2x3xf32> -> tensor<4x2x3xf32>
  return
}

// -----

// Tests slices: a dynamic start is checked by libtflrt, then the window is
// an extract_slice; a negative stride gathers through a generic.
// CHECK-DAG: llvm.mlir.global internal constant @[[WHERE:.*]]("{{.*}}where.tfl:3:7\00")
// CHECK-DAG: func.func private @tflrt_check_slice(i64, i64, i64, i64, !llvm.ptr)
// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<10x3xf32>, %s: tensor<i64>) {
  // CHECK: %[[S:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
  // CHECK: call @tflrt_check_slice(%[[S]],
  // CHECK: %[[I:.*]] = arith.index_cast %[[S]] : i64 to index
  // CHECK: tensor.extract_slice %{{.*}}[%[[I]], 0] [4, 3] [1, 1] : tensor<10x3xf32> to tensor<4x3xf32>
  %0 = tfl.slice %x[%s] {static_starts = array<i64: -9223372036854775808, 0>, strides = array<i64: 1, 1>} : tensor<10x3xf32>, tensor<i64> -> tensor<4x3xf32> loc("where.tfl":3:7)
  // CHECK: linalg.generic
  // CHECK: linalg.index 1
  // CHECK: tensor.extract
  %1 = tfl.slice %x[] {static_starts = array<i64: 0, 2>, strides = array<i64: 1, -1>} : tensor<10x3xf32> -> tensor<10x3xf32>
  return
}

// -----

// Tests that a batched matmul is a zero-filled linalg.batch_matmul.
// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  // CHECK: %[[FILL:.*]] = linalg.fill
  // CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%[[FILL]] : tensor<5x2x4xf32>)
  %0 = tfl.matmul %a, %b : tensor<5x2x3xf32>, tensor<5x3x4xf32> -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// Tests gather: the smallest and largest index checked by libtflrt, then a
// generic reading each element from its source row, at the index clamped
// into the axis (a GPU checks later, and must not read outside meanwhile).
// CHECK-LABEL: func.func @gather
func.func @gather(%x: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // CHECK: arith.minsi
  // CHECK: call @tflrt_check_slice
  // CHECK: arith.maxsi
  // CHECK: call @tflrt_check_slice
  // CHECK: linalg.generic
  // CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<3xi64>
  // CHECK: %[[PICK:.*]] = arith.index_cast %{{.*}} : i64 to index
  // CHECK: %[[BELOW:.*]] = arith.minsi %[[PICK]], %c9 : index
  // CHECK: %[[ROW:.*]] = arith.maxsi %[[BELOW]], %c0 : index
  // CHECK: tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<10x4xf32>
  %0 = tfl.gather %x, %i {axis = 0 : i64} : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests check_numerics: a reduction to "all finite" (|x| < inf), passed to
// libtflrt with the message and location; the result is the input.
// CHECK-DAG: func.func private @tflrt_check_numerics(i8, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @check_numerics
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @check_numerics(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : i1) outs(%{{.*}} : tensor<i1>)
  // CHECK: %[[OK:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]{{.*}} ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<i1>)
  // CHECK: math.absf
  // CHECK: arith.cmpf olt
  // CHECK: arith.andi
  // CHECK: %[[FLAG:.*]] = tensor.extract %[[OK]][]
  // CHECK: %[[BYTE:.*]] = arith.extui %[[FLAG]] : i1 to i8
  // CHECK: call @tflrt_check_numerics(%[[BYTE]],
  // CHECK: return %[[X]]
  %0 = tfl.check_numerics %x {message = "x"} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that seed becomes a libtflrt call on the scalar, and that random
// ops stay for bufferization.
// CHECK-LABEL: func.func @seed
func.func @seed(%n: tensor<i64>) -> tensor<3xf32> {
  // CHECK: %[[V:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
  // CHECK: call @tflrt_seed(%[[V]]) : (i64) -> ()
  // CHECK: tfl.random_normal : tensor<3xf32>
  tfl.seed %n : tensor<i64>
  %0 = tfl.random_normal : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that log_scalar becomes a libtflrt call on the two scalars.
// CHECK-LABEL: func.func @log_scalar
func.func @log_scalar(%v: tensor<f64>, %s: tensor<i64>) {
  // CHECK: %[[V:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
  // CHECK: %[[S:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
  // CHECK: call @tflrt_log_scalar(%{{.*}}, %[[V]], %[[S]], %{{.*}})
  tfl.log_scalar %v, %s {name = "loss"} : tensor<f64>, tensor<i64>
  return
}

// -----

// Tests that embed_slice writes its input into zeros with
// tensor.insert_slice at the (dynamic) start.
// CHECK-LABEL: func.func @embed_slice
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>, %[[I:.*]]: tensor<i64>)
func.func @embed_slice(%x: tensor<2xf32>, %i: tensor<i64>) -> tensor<5xf32> {
  // CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5xf32>)
  // CHECK: %[[S:.*]] = tensor.extract %[[I]][]
  // CHECK: %[[O:.*]] = arith.index_cast %[[S]] : i64 to index
  // CHECK: tensor.insert_slice %[[X]] into %[[Z]][%[[O]]] [2] [2]
  %0 = tfl.embed_slice %x[%i] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 2>} : tensor<2xf32>, tensor<i64> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests that stop_gradient is the identity after autodiff.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT: return %[[X]]
func.func @stop_gradient(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tfl.stop_gradient %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that the tape ops without tensors become libtflrt calls with the
// tape's number: the frame, the cursor, rewinding and releasing.
// CHECK-LABEL: func.func @tape_calls
func.func @tape_calls() -> i64 {
  // CHECK: call @tflrt_tape_enter()
  tfl.tape_enter
  // CHECK: %[[T:.*]] = arith.constant 2 : i64
  // CHECK: %[[P:.*]] = call @tflrt_tape_size(%[[T]]) : (i64) -> i64
  %p = tfl.tape_size {tape = 2} : i64
  // CHECK: call @tflrt_tape_rewind(%{{.*}}, %[[P]]) : (i64, i64) -> ()
  tfl.tape_rewind %p {tape = 2} : i64
  // CHECK: call @tflrt_tape_release(%{{.*}}, %[[P]]) : (i64, i64) -> ()
  tfl.tape_rewind %p {release, tape = 2} : i64
  // CHECK: call @tflrt_tape_exit()
  tfl.tape_exit
  // CHECK: return %[[P]]
  return %p : i64
}

// -----

// Tests that rank and world_size are libtflrt's answers, as 0-d tensors,
// and that the collectives stay for bufferization.
// CHECK-DAG: func.func private @tflrt_rank() -> i64
// CHECK-DAG: func.func private @tflrt_world_size() -> i64
// CHECK-LABEL: func.func @world
func.func @world(%x: tensor<3xf32>) -> (tensor<i64>, tensor<i64>, tensor<3xf32>) {
  // CHECK: %[[R:.*]] = call @tflrt_rank() : () -> i64
  // CHECK: tensor.from_elements %[[R]] : tensor<i64>
  %r = tfl.rank : tensor<i64>
  // CHECK: %[[N:.*]] = call @tflrt_world_size() : () -> i64
  // CHECK: tensor.from_elements %[[N]] : tensor<i64>
  %n = tfl.world_size : tensor<i64>
  // CHECK: tfl.all_reduce sum
  %s = tfl.all_reduce sum %x : tensor<3xf32>
  return %r, %n, %s : tensor<i64>, tensor<i64>, tensor<3xf32>
}
