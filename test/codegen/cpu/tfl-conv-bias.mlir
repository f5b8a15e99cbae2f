// RUN: tfl-opt %s -split-input-file -tfl-conv-bias | FileCheck %s

// Tests that a convolution's bias (and a relu after it) moves into its
// convolution calls: added by
// the forward primitive, its gradient summed by the backward-filter one.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func private @tflrt_conv2d_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64)

// CHECK-LABEL: func.func @forward_bias
// CHECK-SAME: (%[[X:.*]]: memref<2x5x5x2xf32>, %[[W:.*]]: memref<3x3x2x3xf32>, %[[B:.*]]: memref<3xf32>)
// CHECK: %[[RES:.*]] = memref.alloc() : memref<2x3x3x3xf32>
// CHECK: %[[BC:.*]] = memref.cast %[[B]]
// CHECK: %[[RC:.*]] = memref.cast %[[RES]]
// CHECK: call @tflrt_conv2d_bias_f32(%{{.*}}, %{{.*}}, %[[BC]], %[[RC]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK-NOT: call @tflrt_conv2d_f32
// CHECK: return %[[RES]]
func.func @forward_bias(%x: memref<2x5x5x2xf32>, %w: memref<3x3x2x3xf32>, %b: memref<3xf32>) -> memref<2x3x3x3xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %out = memref.alloc() : memref<2x3x3x3xf32>
  %xc = memref.cast %x : memref<2x5x5x2xf32> to memref<*xf32>
  %wc = memref.cast %w : memref<3x3x2x3xf32> to memref<*xf32>
  %oc = memref.cast %out : memref<2x3x3x3xf32> to memref<*xf32>
  call @tflrt_conv2d_f32(%xc, %wc, %oc, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  %res = memref.alloc() : memref<2x3x3x3xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out, %b : memref<2x3x3x3xf32>, memref<3xf32>) outs(%res : memref<2x3x3x3xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %bias, %in : f32
    linalg.yield %s : f32
  }
  memref.dealloc %out : memref<2x3x3x3xf32>
  return %res : memref<2x3x3x3xf32>
}

// A relu after the bias (max with +0.0, in either order, its zero
// defined anywhere) folds in as well.
// CHECK-LABEL: func.func @forward_bias_relu
// CHECK: call @tflrt_conv2d_bias_relu_f32
// CHECK: call @tflrt_conv2d_bias_relu_f32
// CHECK-NOT: linalg.generic
// CHECK-NOT: call @tflrt_conv2d_f32
// CHECK: return
func.func @forward_bias_relu(%x: memref<2x5x5x2xf32>, %w: memref<3x3x2x3xf32>, %b: memref<3xf32>) -> (memref<2x3x3x3xf32>, memref<2x3x3x3xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = arith.constant 0.0 : f32
  %xc = memref.cast %x : memref<2x5x5x2xf32> to memref<*xf32>
  %wc = memref.cast %w : memref<3x3x2x3xf32> to memref<*xf32>
  %out = memref.alloc() : memref<2x3x3x3xf32>
  %oc = memref.cast %out : memref<2x3x3x3xf32> to memref<*xf32>
  call @tflrt_conv2d_f32(%xc, %wc, %oc, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  %res = memref.alloc() : memref<2x3x3x3xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out, %b : memref<2x3x3x3xf32>, memref<3xf32>) outs(%res : memref<2x3x3x3xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %out : memref<2x3x3x3xf32>
  %out2 = memref.alloc() : memref<2x3x3x3xf32>
  %oc2 = memref.cast %out2 : memref<2x3x3x3xf32> to memref<*xf32>
  call @tflrt_conv2d_f32(%xc, %wc, %oc2, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  %res2 = memref.alloc() : memref<2x3x3x3xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out2, %b : memref<2x3x3x3xf32>, memref<3xf32>) outs(%res2 : memref<2x3x3x3xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.addf %bias, %in : f32
    %r = arith.maximumf %z, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %out2 : memref<2x3x3x3xf32>
  return %res, %res2 : memref<2x3x3x3xf32>, memref<2x3x3x3xf32>
}

// A max with -0.0 is not relu (it keeps -0.0) and stays a loop, as does a
// bias add when the filter is freed before it, or when the result has
// another reader.
// CHECK-LABEL: func.func @forward_kept
// CHECK-NOT: tflrt_conv2d_bias
// CHECK: call @tflrt_conv2d_f32
// CHECK: arith.maximumf
// CHECK: call @tflrt_conv2d_f32
// CHECK: memref.dealloc
// CHECK: linalg.generic
// CHECK: call @tflrt_conv2d_f32
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: tflrt_conv2d_bias
func.func @forward_kept(%x: memref<2x5x5x2xf32>, %w: memref<3x3x2x3xf32>, %b: memref<3xf32>, %w2: memref<3x3x2x3xf32>) -> (memref<2x3x3x3xf32>, memref<2x3x3x3xf32>, memref<2x3x3x3xf32>, memref<2x3x3x3xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = arith.constant -0.0 : f32
  %xc = memref.cast %x : memref<2x5x5x2xf32> to memref<*xf32>
  %wc = memref.cast %w : memref<3x3x2x3xf32> to memref<*xf32>
  %out = memref.alloc() : memref<2x3x3x3xf32>
  %oc = memref.cast %out : memref<2x3x3x3xf32> to memref<*xf32>
  call @tflrt_conv2d_f32(%xc, %wc, %oc, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  %res = memref.alloc() : memref<2x3x3x3xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out, %b : memref<2x3x3x3xf32>, memref<3xf32>) outs(%res : memref<2x3x3x3xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %out : memref<2x3x3x3xf32>
  %w2c = memref.cast %w2 : memref<3x3x2x3xf32> to memref<*xf32>
  %out2 = memref.alloc() : memref<2x3x3x3xf32>
  %oc2 = memref.cast %out2 : memref<2x3x3x3xf32> to memref<*xf32>
  call @tflrt_conv2d_f32(%xc, %w2c, %oc2, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  memref.dealloc %w2 : memref<3x3x2x3xf32>
  %res2 = memref.alloc() : memref<2x3x3x3xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out2, %b : memref<2x3x3x3xf32>, memref<3xf32>) outs(%res2 : memref<2x3x3x3xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  }
  memref.dealloc %out2 : memref<2x3x3x3xf32>
  %out3 = memref.alloc() : memref<2x3x3x3xf32>
  %oc3 = memref.cast %out3 : memref<2x3x3x3xf32> to memref<*xf32>
  call @tflrt_conv2d_f32(%xc, %wc, %oc3, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  %res3 = memref.alloc() : memref<2x3x3x3xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out3, %b : memref<2x3x3x3xf32>, memref<3xf32>) outs(%res3 : memref<2x3x3x3xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  }
  %twice = memref.alloc() : memref<2x3x3x3xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out3 : memref<2x3x3x3xf32>) outs(%twice : memref<2x3x3x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  }
  return %res, %res2, %res3, %twice : memref<2x3x3x3xf32>, memref<2x3x3x3xf32>, memref<2x3x3x3xf32>, memref<2x3x3x3xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func private @tflrt_conv2d_backward_input_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64)
func.func private @tflrt_conv2d_backward_filter_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64)

// The bias's gradient (dy summed over N, H, W into %db), with the
// backward-data convolution between it and the filter's gradient, comes
// from the filter gradient's call and is added to %db.
// CHECK-LABEL: func.func @backward_bias
// CHECK-SAME: %[[DB:[a-z0-9]*]]: memref<3xf32>)
// CHECK-NOT: iterator_types = ["reduction"
// CHECK: call @tflrt_conv2d_backward_input_f32
// CHECK: %[[T:.*]] = memref.alloc() : memref<3xf32>
// CHECK: %[[TC:.*]] = memref.cast %[[T]]
// CHECK: call @tflrt_conv2d_backward_filter_bias_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[TC]],
// CHECK: linalg.generic {{.*}} ins(%[[T]] : memref<3xf32>) outs(%[[DB]] : memref<3xf32>)
// CHECK: arith.addf
// CHECK: memref.dealloc %[[T]]
// CHECK-NOT: call @tflrt_conv2d_backward_filter_f32
func.func @backward_bias(%x: memref<2x5x5x2xf32>, %w: memref<3x3x2x3xf32>, %dy: memref<2x3x3x3xf32>, %db: memref<3xf32>) -> (memref<2x5x5x2xf32>, memref<3x3x2x3xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  linalg.generic {indexing_maps = [#id, #ch], iterator_types = ["reduction", "reduction", "reduction", "parallel"]} ins(%dy : memref<2x3x3x3xf32>) outs(%db : memref<3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %o, %in : f32
    linalg.yield %s : f32
  }
  %dyc = memref.cast %dy : memref<2x3x3x3xf32> to memref<*xf32>
  %wc = memref.cast %w : memref<3x3x2x3xf32> to memref<*xf32>
  %dx = memref.alloc() : memref<2x5x5x2xf32>
  %dxc = memref.cast %dx : memref<2x5x5x2xf32> to memref<*xf32>
  call @tflrt_conv2d_backward_input_f32(%dyc, %wc, %dxc, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  %xc = memref.cast %x : memref<2x5x5x2xf32> to memref<*xf32>
  %dw = memref.alloc() : memref<3x3x2x3xf32>
  %dwc = memref.cast %dw : memref<3x3x2x3xf32> to memref<*xf32>
  call @tflrt_conv2d_backward_filter_f32(%xc, %dyc, %dwc, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  return %dx, %dw : memref<2x5x5x2xf32>, memref<3x3x2x3xf32>
}

// The sum stays a loop when %db is read between it and the call.
// CHECK-LABEL: func.func @backward_kept
// CHECK: iterator_types = ["reduction", "reduction", "reduction", "parallel"]
// CHECK: memref.copy
// CHECK: call @tflrt_conv2d_backward_filter_f32
// CHECK-NOT: tflrt_conv2d_backward_filter_bias_f32
func.func @backward_kept(%x: memref<2x5x5x2xf32>, %dy: memref<2x3x3x3xf32>, %db: memref<3xf32>, %copy: memref<3xf32>) -> memref<3x3x2x3xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  linalg.generic {indexing_maps = [#id, #ch], iterator_types = ["reduction", "reduction", "reduction", "parallel"]} ins(%dy : memref<2x3x3x3xf32>) outs(%db : memref<3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %o, %in : f32
    linalg.yield %s : f32
  }
  memref.copy %db, %copy : memref<3xf32> to memref<3xf32>
  %dyc = memref.cast %dy : memref<2x3x3x3xf32> to memref<*xf32>
  %xc = memref.cast %x : memref<2x5x5x2xf32> to memref<*xf32>
  %dw = memref.alloc() : memref<3x3x2x3xf32>
  %dwc = memref.cast %dw : memref<3x3x2x3xf32> to memref<*xf32>
  call @tflrt_conv2d_backward_filter_f32(%xc, %dyc, %dwc, %c1, %c1, %c0, %c0, %c0, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64) -> ()
  return %dw : memref<3x3x2x3xf32>
}
