//===- KernelLoops.h - What libtflrt's kernel files share -------*- C++ -*-===//
//
// The walk over an elementwise op's places with its dims merged, the
// grain of parallel work, moves by machine word, and dispatch on a numeric
// dtype: Kernels.cpp (elementwise), KernelsReduce.cpp (reductions),
// KernelsData.cpp (data movement), KernelsTape.cpp and KernelsMatmul.cpp
// share them.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_KERNELLOOPS_H
#define TFLRT_KERNELLOOPS_H

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tflrt {

/// Strides of `shape` read as if broadcast to `outShape` (0 on broadcast
/// dims), in elements.
inline Shape broadcastStrides(const Shape &shape, const Shape &outShape) {
  Shape strides = contiguousStrides(shape);
  Shape out(outShape.size(), 0);
  size_t lead = outShape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    out[lead + i] = shape[i] == 1 ? 0 : strides[i];
  return out;
}

/// A walk over an elementwise op's output (contiguous, row-major) whose
/// N operands are read through element strides (0 where broadcast). Dims
/// are merged where every operand continues across them as one stride (or
/// stays broadcast), so that the innermost dim, which the kernels' inner
/// loops run along, is as long as it can be; dims of size 1 drop out.
template <size_t N> struct Walk {
  Shape shape; // the merged dims, innermost last (at least one)
  std::array<Shape, N> strides;

  Walk(const Shape &outShape, const std::array<const Shape *, N> &in) {
    for (size_t d = 0; d < outShape.size(); ++d) {
      if (outShape[d] == 1)
        continue;
      bool merge = !shape.empty();
      for (size_t k = 0; k < N && merge; ++k)
        merge = strides[k].back() == (*in[k])[d] * outShape[d];
      if (merge)
        shape.back() *= outShape[d];
      else
        shape.push_back(outShape[d]);
      for (size_t k = 0; k < N; ++k) {
        if (merge)
          strides[k].back() = (*in[k])[d];
        else
          strides[k].push_back((*in[k])[d]);
      }
    }
    if (shape.empty()) {
      shape.push_back(1);
      for (Shape &st : strides)
        st.push_back(0);
    }
  }

  /// The innermost stride of operand k.
  int64_t step(size_t k) const { return strides[k].back(); }

  /// Calls span(offsets, at, len) for the output elements [begin, end),
  /// one call per run along the innermost dim: the operands' element
  /// offsets where the run starts, its first output element and length.
  template <typename Span>
  void run(int64_t begin, int64_t end, Span &&span) const {
    int64_t inner = shape.back();
    int64_t row = begin / inner, col = begin % inner;
    std::array<int64_t, N> off;
    while (begin < end) {
      off.fill(0);
      int64_t r = row;
      for (size_t d = shape.size() - 1; d-- > 0;) {
        int64_t i = r % shape[d];
        r /= shape[d];
        for (size_t k = 0; k < N; ++k)
          off[k] += i * strides[k][d];
      }
      for (size_t k = 0; k < N; ++k)
        off[k] += col * step(k);
      int64_t len = std::min(inner - col, end - begin);
      span(off, begin, len);
      begin += len;
      ++row;
      col = 0;
    }
  }
};

/// Elementwise work below this many elements stays on the calling thread.
constexpr int64_t kParallelGrain = int64_t(1) << 15;

/// fn(W()) with W the unsigned word of `elem` bytes (1, 2, 4 or 8): the
/// kernels that only move elements move them as words.
template <typename Fn> void byWord(size_t elem, Fn &&fn) {
  switch (elem) {
  case 1:
    return fn(uint8_t());
  case 2:
    return fn(uint16_t());
  case 4:
    return fn(uint32_t());
  default:
    return fn(uint64_t());
  }
}

/// fn(T()) for the C++ type of a numeric dtype.
template <typename Fn> void dispatchNumeric(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(float());
  case DType::F64:
    return fn(double());
  case DType::I32:
    return fn(int32_t());
  case DType::I64:
    return fn(int64_t());
  case DType::U8:
  case DType::Bool:
    return fn(uint8_t());
  case DType::BF16:
  case DType::F16:
    // The 16-bit floats compute in f32: callers widen them first.
    throw std::logic_error(std::string("no kernel computes in ") +
                           dtypeName(dtype));
  }
}

/// NumPy's maximum and minimum (a NaN wins; +0 above -0).
template <typename T> T maximumOf(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(ieeeMaximum(x, y));
  else
    return x > y ? x : y;
}

template <typename T> T minimumOf(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(ieeeMinimum(x, y));
  else
    return x < y ? x : y;
}

/// Python's `//`, `%` and `**` on one element type.
} // namespace tflrt

#endif // TFLRT_KERNELLOOPS_H
