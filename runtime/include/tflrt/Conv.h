//===- Conv.h - Convolution and pooling through oneDNN ----------*- C++ -*-===//
//
// 2-D convolution and pooling in TensorFlow's layouts (NHWC inputs and
// outputs, HWIO filters), run by oneDNN, for the eager kernels and compiled
// code alike. Views may be strided; padding is explicit (top, bottom, left,
// right), as the compiler computes it from "valid"/"same".
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CONV_H
#define TFLRT_CONV_H

#include "tflrt/Tensor.h"

#include <array>

namespace tflrt {

/// Window geometry: strides (h, w) and padding (top, bottom, left, right).
struct Window {
  std::array<int64_t, 2> strides;
  std::array<int64_t, 4> padding;
};

/// out[n, oh, ow, o] = sum over kh, kw, c of
///   x[n, oh*sh + kh - top, ow*sw + kw - left, c] * w[kh, kw, c, o]
/// (zero outside x). All f32; `out` has the convolution's shape.
void conv2d(const TensorView &x, const TensorView &w, const TensorView &out,
            const Window &window);

/// conv2d plus a bias over the output channels, in one pass (oneDNN adds
/// `bias`, of shape [O], to each output): what compiled code makes of a
/// convolution whose result only gets a bias added.
void conv2dBias(const TensorView &x, const TensorView &w,
                const TensorView &bias, const TensorView &out,
                const Window &window);
/// conv2dBias, then relu as compiled code computes it (max(v, +0.0), NaN
/// kept): a convolution whose result only gets a bias added and a relu.
void conv2dBiasRelu(const TensorView &x, const TensorView &w,
                    const TensorView &bias, const TensorView &out,
                    const Window &window);

/// conv2d's adjoints: the input's cotangent `dx` from the result's `dy`
/// and the filter, and the filter's `dw` from the input and `dy`.
void conv2dBackwardInput(const TensorView &dy, const TensorView &w,
                         const TensorView &dx, const Window &window);
/// With `dbias`, the gradient of a bias added to the result too ([O]: dy
/// summed over N, H and W), which oneDNN computes as it reads dy.
void conv2dBackwardFilter(const TensorView &x, const TensorView &dy,
                          const TensorView &dw, const Window &window,
                          const TensorView *dbias = nullptr);

enum class PoolKind { Max, Avg };

/// Max or average over `size` windows; padding is excluded from both (as
/// TensorFlow's "same" pooling).
void pool2d(PoolKind kind, const TensorView &x, const TensorView &out,
            std::array<int64_t, 2> size, const Window &window);

/// Pooling's adjoint: `dy` routed back to `dx` (x's shape) through the
/// windows: each to the first maximum of its window (max), or spread evenly
/// over its unpadded elements (avg). Plain loops, the same in both modes.
void pool2dBackward(PoolKind kind, const TensorView &x, const TensorView &dy,
                    const TensorView &dx, std::array<int64_t, 2> size,
                    const Window &window);

/// `g` (shaped as max pooling's input `x`) at each window's first maximum
/// of `x`, into `out` (shaped as the pooling's result): max pooling's
/// tangent map, the adjoint of its backward.
void maxPool2dGather(const TensorView &x, const TensorView &g,
                     const TensorView &out, std::array<int64_t, 2> size,
                     const Window &window);

} // namespace tflrt

#endif // TFLRT_CONV_H
