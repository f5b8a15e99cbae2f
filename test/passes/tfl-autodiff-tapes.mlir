// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s

// Tests differentiating the tape ops (what a vjp of a vjp with a loop
// does). The function uses tape 0, so its vjp's loops use tape 1 and the
// cotangents of tape 0's entries go to tape 2. The forward copy keeps the
// function's entries (no release of tape 0) and pushes, with each
// iteration's state, the cursor of tape 0; the reverse of the read adds
// its cotangent at the read's position on tape 2; each reverse iteration
// moves tape 0's cursor back, pushes the entry again (a replay), and takes
// the sum at that position as the pushed state's cotangent.
// CHECK-LABEL: func.func private @stash.vjp
// CHECK: tfl.tape_enter
// CHECK-NOT: tfl.tape_enter
// CHECK: %[[START:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK: %[[OWN:.*]] = tfl.tape_size {tape = 1 : i64} : i64
// CHECK: scf.for %{{.*}} iter_args(%[[S:[a-z0-9_]+]] = %{{[a-z0-9_]+}})
// CHECK:   %[[C:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK:   %[[CT:.*]] = tensor.from_elements %[[C]] : tensor<i64>
// CHECK:   tfl.tape_push %[[CT]] {tape = 1 : i64} : tensor<i64>
// CHECK:   tfl.tape_push %[[S]] {tape = 1 : i64} : tensor<f32>
// CHECK:   tfl.tape_push %[[S]] {tape = 0 : i64} : tensor<f32>
// CHECK: tfl.tape_read %[[START]] {tape = 0 : i64} : tensor<f32>
// CHECK: tfl.tape_add %[[START]], %{{.*}} {tape = 2 : i64} : tensor<f32>
// CHECK: scf.for
// CHECK:   %[[SAVED:.*]] = tfl.tape_read %{{.*}} {tape = 1 : i64} : tensor<i64>
// CHECK:   %[[CURSOR:.*]] = tensor.extract %[[SAVED]][] : tensor<i64>
// CHECK:   tfl.tape_rewind %[[CURSOR]] {tape = 0 : i64} : i64
// CHECK:   %[[STATE:.*]] = tfl.tape_read %{{.*}} {tape = 1 : i64} : tensor<f32>
// CHECK:   %[[AT:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK:   tfl.tape_push %[[STATE]] {replay, tape = 0 : i64} : tensor<f32>
// CHECK:   %[[SUM:.*]] = tfl.tape_accumulated %[[AT]] {tape = 2 : i64} : tensor<f32>
// CHECK:   tfl.add %{{.*}}, %[[SUM]]
// CHECK:   scf.yield
// CHECK: tfl.tape_rewind %[[OWN]] {release, tape = 1 : i64} : i64
// CHECK-NOT: tfl.tape_rewind %[[START]] {release
// CHECK: tfl.tape_exit
// CHECK-NEXT: return
func.func private @stash(%x: tensor<f32>) -> tensor<f32> {
  tfl.tape_enter
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %start = tfl.tape_size {tape = 0} : i64
  %y = scf.for %i = %c0 to %c2 step %c1 iter_args(%s = %x) -> (tensor<f32>) {
    tfl.tape_push %s {tape = 0} : tensor<f32>
    %m = tfl.mul %s, %s : tensor<f32>, tensor<f32> -> tensor<f32>
    scf.yield %m : tensor<f32>
  }
  %r = tfl.tape_read %start {tape = 0} : tensor<f32>
  %z = tfl.mul %y, %r : tensor<f32>, tensor<f32> -> tensor<f32>
  tfl.tape_rewind %start {release, tape = 0} : i64
  tfl.tape_exit
  return %z : tensor<f32>
}
func.func @use_stash(%x: tensor<f32>) -> tensor<f32> {
  %0 = tfl.grad @stash(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests differentiating the accumulator ops (what a third derivative
// through a loop does): the reverse of tape_accumulated writes its
// cotangent at the position on the adjoint tape, and the reverse of
// tape_add reads it back as the added value's cotangent.
// CHECK-LABEL: func.func private @sums.vjp
// CHECK: %[[P:.*]] = tensor.extract
// CHECK: tfl.tape_add %[[P]], %{{.*}} {tape = 0 : i64} : tensor<f32>
// CHECK: tfl.tape_accumulated %[[P]] {tape = 0 : i64} : tensor<f32>
// CHECK: %[[D:.*]] = tfl.add
// CHECK: tfl.tape_write %[[P]], %[[D]] {tape = 2 : i64} : tensor<f32>
// CHECK: %[[DX:.*]] = tfl.tape_read %[[P]] {tape = 2 : i64} : tensor<f32>
// CHECK: return %{{.*}}, %[[DX]], %{{.*}}
func.func private @sums(%x: tensor<f32>, %pt: tensor<i64>) -> tensor<f32> {
  tfl.tape_enter
  %p = tensor.extract %pt[] : tensor<i64>
  tfl.tape_add %p, %x {tape = 0} : tensor<f32>
  %a = tfl.tape_accumulated %p {tape = 0} : tensor<f32>
  %y = tfl.mul %a, %a : tensor<f32>, tensor<f32> -> tensor<f32>
  tfl.tape_exit
  return %y : tensor<f32>
}
func.func @use_sums(%x: tensor<f32>, %p: tensor<i64>) -> tensor<f32> {
  %0 = tfl.grad @sums(%x, %p) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}
