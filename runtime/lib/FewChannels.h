//===- FewChannels.h - 3x3 convolutions of few channels ---------*- C++ -*-===//
//
// A network's first layer reads an image of one to four channels (grey,
// RGB, RGBA). oneDNN's direct kernels block the input channels by 16 and
// waste most of each vector on such inputs; these kernels vectorize over
// the output channels instead, with every filter tap of one output-channel
// vector held in registers. Forward (with its bias) and the filter's
// gradient (with the bias's); the input's gradient, which a first layer
// does not need, stays on oneDNN.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_FEWCHANNELS_H
#define TFLRT_FEWCHANNELS_H

#include "tflrt/Conv.h"

namespace tflrt::fewchannels {

/// Whether these kernels take a convolution of `x` (NHWC) by `w` (HWIO)
/// into `y` (NHWC), f32: a 3x3 filter, stride 1, unit channel strides in
/// x and y, one to four input channels and 16 or more output channels;
/// for the forward pass (`forwardPass`), at most 32 output channels. That
/// is where they beat oneDNN's direct kernels (measured: the filter's
/// gradient 1.2-4.6x at every count, the forward pass 1.0-1.4x up to 32
/// output channels and 0.9x at 64).
bool applies(const TensorView &x, const TensorView &w, const TensorView &y,
             const Window &window, bool forwardPass);

/// conv2d (plus `bias` when given, then relu when `relu`), as Conv.h
/// describes it.
void forward(const TensorView &x, const TensorView &w, const TensorView *bias,
             const TensorView &out, const Window &window, bool relu = false);

/// conv2dBackwardFilter, with the bias's gradient when `dbias` is given.
void backwardFilter(const TensorView &x, const TensorView &dy,
                    const TensorView &dw, const Window &window,
                    const TensorView *dbias);

} // namespace tflrt::fewchannels

#endif // TFLRT_FEWCHANNELS_H
