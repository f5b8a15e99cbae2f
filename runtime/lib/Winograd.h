//===- Winograd.h - 3x3 convolutions by minimal filtering -------*- C++ -*-===//
//
// Stride-1 3x3 convolutions in TensorFlow's layouts by Winograd's minimal
// filtering (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016): each 4x4 block of outputs takes 36 multiplications per
// channel pair instead of 144. The forward pass and the input's gradient
// use F(4x4, 3x3); the filter's gradient uses its adjoint, F(3x3, 4x4),
// whose reduction over the whole batch is one product per transformed
// point, so its output transform runs once. Conv.cpp routes the
// convolutions `applies` accepts here.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_WINOGRAD_H
#define TFLRT_WINOGRAD_H

#include "tflrt/Conv.h"

namespace tflrt::winograd {

/// The pass of a convolution a kernel computes.
enum class Pass { Forward, Input, Filter };

/// Whether these kernels take `pass` of a convolution of `x` (NHWC) by `w`
/// (HWIO) into `y` (NHWC), f32: a 3x3 filter, stride 1, unit channel
/// strides in x and y, 16 to 64 x 64 pairs of input and output channels,
/// and tiles over the pass's result (y, or x for its gradient) that make
/// at most 4 multiply-adds per channel pair for every 10 a direct
/// convolution makes (where they were measured to beat oneDNN). The
/// kernels themselves compute any channel counts and sizes.
bool applies(const TensorView &x, const TensorView &w, const TensorView &y,
             const Window &window, Pass pass);

/// conv2d (plus `bias` when given, then relu when `relu`), as Conv.h
/// describes it.
void forward(const TensorView &x, const TensorView &w, const TensorView *bias,
             const TensorView &out, const Window &window, bool relu = false);

/// conv2dBackwardInput: a forward pass over dy with the filter turned by
/// 180 degrees and its channel dims swapped.
void backwardInput(const TensorView &dy, const TensorView &w,
                   const TensorView &dx, const Window &window);

/// conv2dBackwardFilter, with the bias's gradient when `dbias` is given.
void backwardFilter(const TensorView &x, const TensorView &dy,
                    const TensorView &dw, const Window &window,
                    const TensorView *dbias);

} // namespace tflrt::winograd

#endif // TFLRT_WINOGRAD_H
