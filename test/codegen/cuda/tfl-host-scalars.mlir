// RUN: tfl-opt %s -split-input-file -tfl-host-scalars | FileCheck %s
// REQUIRES: cuda

#scalar = affine_map<() -> ()>
#vec = affine_map<(d0) -> (d0)>
#red = affine_map<(d0) -> ()>

// Tests the slice of a training loop that computes a batch's start from the
// loop counter and range-checks the indices it gathers, with one scalar
// buffer that bufferization shares among three values (start, smallest
// and largest index): the buffer is split per value; the start (counter
// times 32) is host arithmetic on host buffers (marked tfl.host), the
// smallest index a device reduction into a device buffer; and the shared
// buffer outside the loop is left unused.
// CHECK-LABEL: func.func @batch_start
// CHECK: %[[SHARED:.*]] = memref.alloc() {alignment = 64 : i64, tfl.host} : memref<i64>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK:   %[[COUNTER:.*]] = memref.alloc() {alignment = 64 : i64, tfl.host} : memref<i64>
// CHECK:   memref.store %[[I64]], %[[COUNTER]][]
// CHECK:   %[[START:.*]] = memref.alloc() {alignment = 64 : i64, tfl.host} : memref<i64>
// CHECK:   %[[C:.*]] = memref.load %[[COUNTER]][] : memref<i64>
// CHECK:   %[[TIMES:.*]] = arith.muli %[[C]], %c32_i64 : i64
// CHECK:   memref.store %[[TIMES]], %[[START]][] : memref<i64>
// CHECK:   %[[S:.*]] = memref.load %[[START]][] : memref<i64>
// CHECK:   memref.dealloc %[[START]] : memref<i64>
// CHECK:   func.call @tflrt_check_slice(%[[S]],
// CHECK:   %[[MIN:.*]] = memref.alloc() {alignment = 64 : i64} : memref<i64>
// CHECK:   linalg.fill ins(%{{.*}} : i64) outs(%[[MIN]] : memref<i64>)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : memref<32xi64{{.*}}>) outs(%[[MIN]] : memref<i64>)
// CHECK:   memref.load %[[MIN]][] : memref<i64>
// CHECK:   memref.dealloc %[[MIN]] : memref<i64>
// CHECK: }
// CHECK: memref.dealloc %[[SHARED]] : memref<i64>
func.func private @tflrt_check_slice(i64, i64, i64, i64, !llvm.ptr)
func.func @batch_start(%order: memref<60000xi64>, %n: index, %where: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : i64
  %one = arith.constant 1 : i64
  %dim = arith.constant 60000 : i64
  %big = arith.constant 9223372036854775807 : i64
  %shared = memref.alloc() {alignment = 64 : i64} : memref<i64>
  scf.for %i = %c0 to %n step %c1 {
    %i64 = arith.index_cast %i : index to i64
    %counter = memref.alloc() {alignment = 64 : i64} : memref<i64>
    memref.store %i64, %counter[] : memref<i64>
    linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
        ins(%counter : memref<i64>) outs(%shared : memref<i64>) {
    ^bb0(%in: i64, %out: i64):
      %t = arith.muli %in, %c32 : i64
      linalg.yield %t : i64
    }
    %start = memref.load %shared[] : memref<i64>
    func.call @tflrt_check_slice(%start, %c32, %one, %dim, %where) : (i64, i64, i64, i64, !llvm.ptr) -> ()
    %s = arith.index_cast %start : i64 to index
    %batch = memref.subview %order[%s] [32] [1] : memref<60000xi64> to memref<32xi64, strided<[1], offset: ?>>
    linalg.fill ins(%big : i64) outs(%shared : memref<i64>)
    linalg.generic {indexing_maps = [#vec, #red], iterator_types = ["reduction"]}
        ins(%batch : memref<32xi64, strided<[1], offset: ?>>) outs(%shared : memref<i64>) {
    ^bb0(%in: i64, %out: i64):
      %m = arith.minsi %out, %in : i64
      linalg.yield %m : i64
    }
    %smallest = memref.load %shared[] : memref<i64>
    func.call @tflrt_check_slice(%smallest, %one, %one, %dim, %where) : (i64, i64, i64, i64, !llvm.ptr) -> ()
    memref.dealloc %counter : memref<i64>
  }
  memref.dealloc %shared : memref<i64>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<() -> ()>
#bcast = affine_map<(d0) -> ()>

// Tests an optimizer step: the step count is a host scalar carried by the
// loop, its increment and the learning rate derived from it run on the
// host, and the update of the (device) weights reads that rate by value:
// the host loads it before the op, which no longer has it as an operand.
// CHECK-LABEL: func.func @optimizer_step
// CHECK: %[[T0:.*]] = memref.get_global @step0 : memref<i64> {tfl.host}
// CHECK: scf.for {{.*}} iter_args(%[[T:.*]] = %[[T0]]
// CHECK:   %[[NEXT:.*]] = memref.alloc() {tfl.host} : memref<i64>
// CHECK:   %[[OLD:.*]] = memref.load %[[T]][] : memref<i64>
// CHECK:   arith.addi %[[OLD]], %{{.*}} : i64
// CHECK:   memref.store %{{.*}}, %[[NEXT]][] : memref<i64>
// CHECK:   %[[RATE:.*]] = memref.alloc() {tfl.host} : memref<f32>
// CHECK:   arith.sitofp
// CHECK:   memref.store %{{.*}}, %[[RATE]][] : memref<f32>
// CHECK:   %[[R:.*]] = memref.load %[[RATE]][] : memref<f32>
// CHECK:   linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%{{.*}} : memref<1000xf32>) outs(%{{.*}} : memref<1000xf32>) {
// CHECK:   ^bb0(%[[G:.*]]: f32, %[[W:.*]]: f32):
// CHECK:     %[[STEP:.*]] = arith.mulf %[[G]], %[[R]] : f32
// CHECK:     arith.subf %[[W]], %[[STEP]] : f32
// CHECK:   scf.yield %[[NEXT]] : memref<i64>
memref.global "private" constant @step0 : memref<i64> = dense<0>
func.func @optimizer_step(%w: memref<1000xf32>, %g: memref<1000xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %t0 = memref.get_global @step0 : memref<i64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0) -> (memref<i64>) {
    %next = memref.alloc() : memref<i64>
    linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
        ins(%t : memref<i64>) outs(%next : memref<i64>) {
    ^bb0(%in: i64, %out: i64):
      %s = arith.addi %in, %one : i64
      linalg.yield %s : i64
    }
    %rate = memref.alloc() : memref<f32>
    linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
        ins(%next : memref<i64>) outs(%rate : memref<f32>) {
    ^bb0(%in: i64, %out: f32):
      %f = arith.sitofp %in : i64 to f32
      linalg.yield %f : f32
    }
    linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel"]}
        ins(%g, %rate : memref<1000xf32>, memref<f32>) outs(%w : memref<1000xf32>) {
    ^bb0(%gi: f32, %lr: f32, %wi: f32):
      %step = arith.mulf %gi, %lr : f32
      %new = arith.subf %wi, %step : f32
      linalg.yield %new : f32
    }
    memref.dealloc %rate : memref<f32>
    scf.yield %next : memref<i64>
  }
  return
}

// -----

#vec = affine_map<(d0) -> (d0)>
#red = affine_map<(d0) -> ()>
#scalar = affine_map<() -> ()>

// Tests what stays on the device: a scalar that a device reduction writes
// (a loss), and what host code then computes from it; a scalar printed with
// a device tensor goes to the device too (a runtime call takes buffers of
// one place), while a scalar printed alone is printed from the host.
// CHECK-LABEL: func.func @device_scalars
// CHECK: %[[LOSS:.*]] = memref.alloc() : memref<f32>
// CHECK: linalg.generic {{.*}} outs(%[[LOSS]] : memref<f32>)
// CHECK: %[[HALF:.*]] = memref.alloc() : memref<f32>
// CHECK: linalg.generic {{.*}} ins(%[[LOSS]] : memref<f32>) outs(%[[HALF]] : memref<f32>)
// CHECK: %[[PAIRED:.*]] = memref.alloc() : memref<i64>
// CHECK: %[[ALONE:.*]] = memref.alloc() {tfl.host} : memref<i64>
// CHECK: call @tflrt_pair(%{{.*}}, %[[PAIRED]])
// CHECK: call @tflrt_print_i64(%[[ALONE]])
func.func private @tflrt_pair(memref<1000xf32>, memref<i64>)
func.func private @tflrt_print_i64(memref<i64>)
func.func @device_scalars(%x: memref<1000xf32>) {
  %half = arith.constant 0.5 : f32
  %seven = arith.constant 7 : i64
  %loss = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [#vec, #red], iterator_types = ["reduction"]}
      ins(%x : memref<1000xf32>) outs(%loss : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  %h = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%loss : memref<f32>) outs(%h : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  }
  %paired = memref.alloc() : memref<i64>
  %alone = memref.alloc() : memref<i64>
  linalg.fill ins(%seven : i64) outs(%paired : memref<i64>)
  linalg.fill ins(%seven : i64) outs(%alone : memref<i64>)
  call @tflrt_pair(%x, %paired) : (memref<1000xf32>, memref<i64>) -> ()
  call @tflrt_print_i64(%alone) : (memref<i64>) -> ()
  return
}

// -----

// Tests that a collective's scalar result (a step's loss averaged over the
// ranks) stays in device memory, as NCCL writes it, so the step never
// waits for it; the arithmetic that reads it runs on the device too. A
// scalar the host steers with (the step count) stays on the host.
// CHECK-LABEL: func.func @collective_scalar
// CHECK: %[[LOSS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK: call @tflrt_collective_take_f32(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[TOTAL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[LOSS]] : memref<f32>, memref<f32>) outs(%[[TOTAL]] : memref<f32>)
// CHECK: memref.alloc() {alignment = 64 : i64, tfl.host} : memref<i64>
// CHECK: %[[COUNT:.*]] = memref.alloc() {alignment = 64 : i64, tfl.host} : memref<i64>
// CHECK: arith.addi
// CHECK: memref.load %[[COUNT]][] : memref<i64>
#scalar = affine_map<() -> ()>
func.func private @tflrt_collective_take_f32(i64, i64, memref<*xf32>)
func.func @collective_scalar(%id: i64, %before: memref<f32>, %n: i64) -> (memref<f32>, i64) {
  %c0 = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %loss = memref.alloc() {alignment = 64 : i64} : memref<f32>
  %cast = memref.cast %loss : memref<f32> to memref<*xf32>
  call @tflrt_collective_take_f32(%id, %c0, %cast) : (i64, i64, memref<*xf32>) -> ()
  %total = memref.alloc() {alignment = 64 : i64} : memref<f32>
  linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
      ins(%before, %loss : memref<f32>, memref<f32>) outs(%total : memref<f32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  %step = memref.alloc() {alignment = 64 : i64} : memref<i64>
  memref.store %n, %step[] : memref<i64>
  %count = memref.alloc() {alignment = 64 : i64} : memref<i64>
  linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%step : memref<i64>) outs(%count : memref<i64>) {
  ^bb0(%a: i64, %out: i64):
    %s = arith.addi %a, %one : i64
    linalg.yield %s : i64
  }
  %next = memref.load %count[] : memref<i64>
  return %total, %next : memref<f32>, i64
}

// -----

#vec1 = affine_map<(d0) -> (d0)>
#red1 = affine_map<(d0) -> ()>

// Tests that a device reduction of a one-element host buffer (total +
// sum(b * b) for b of one element, its sum into the device sum of another
// tensor) takes the element by value and loses the loop that only that
// buffer indexed (no operand would size it): a generic with no loops.
// CHECK-LABEL: func.func @sum_of_host_element
// CHECK: %[[ONE:.*]] = memref.alloc() {alignment = 64 : i64, tfl.host} : memref<1xf32>
// CHECK: %[[V:.*]] = memref.load %[[ONE]][%c0{{.*}}] : memref<1xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = []} outs(%{{.*}} : memref<f32>)
// CHECK: arith.addf %{{.*}}, %[[V]] : f32
func.func @sum_of_host_element(%d: memref<2xf32>) -> memref<f32> {
  %zero = arith.constant 0.0 : f32
  %three = arith.constant 3.0 : f32
  %acc = memref.alloc() {alignment = 64 : i64} : memref<f32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<f32>)
  linalg.generic {indexing_maps = [#vec1, #red1], iterator_types = ["reduction"]}
      ins(%d : memref<2xf32>) outs(%acc : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  %one = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
  linalg.generic {indexing_maps = [#vec1], iterator_types = ["parallel"]}
      outs(%one : memref<1xf32>) {
  ^bb0(%out: f32):
    linalg.yield %three : f32
  }
  linalg.generic {indexing_maps = [#vec1, #red1], iterator_types = ["reduction"]}
      ins(%one : memref<1xf32>) outs(%acc : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  memref.dealloc %one : memref<1xf32>
  return %acc : memref<f32>
}

// -----

// Tests that work placed on the CPU (a host function of
// tfl-outline-host-work) runs on the host whole: its buffers marked
// tfl.host, whatever their size, its linalg ops host loops, its copies
// too, and no value passed to a kernel.
// CHECK-LABEL: func.func private @f.host0(
// CHECK-SAME: attributes {tfl.device = "cpu"}
// CHECK: %[[A:.*]] = memref.alloc() {alignment = 64 : i64, tfl.host} : memref<1024xf32>
// CHECK: scf.for
// CHECK: math.tanh
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: %[[B:.*]] = memref.alloc() {tfl.host} : memref<1024xf32>
// CHECK: scf.for
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[B]]
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK: return %[[B]]
#map = affine_map<(d0) -> (d0)>
func.func private @f.host0(%x: memref<1024xf32>) -> memref<1024xf32> attributes {tfl.device = "cpu"} {
  %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  }
  %b = memref.alloc() : memref<1024xf32>
  memref.copy %a, %b : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  return %b : memref<1024xf32>
}
