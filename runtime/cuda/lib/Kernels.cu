//===- Kernels.cu - libtflrt's own GPU kernels ----------------------------===//
//
// The runtime functions that the code generator does not express as loops
// run here on device tensors, each element computed as libtflrt's host code
// computes it, so that the GPU prints what the CPU prints:
//
//  - random_uniform and random_normal: the counter-based Philox generator
//    of runtime/lib/Random.cpp, one thread per counter block; the same seed
//    draws the same numbers on both (uniform bit for bit; normal through
//    the device's double log, sqrt, sin and cos, within an ulp of glibc's);
//  - scatter_add (gather's adjoint): one thread per output column (outer
//    and inner position), adding the picked rows in index order, as the
//    host does, so sums are bit for bit the host's and need no atomics;
//  - max and average pooling, their adjoints and max pooling's tangent
//    gather (padding excluded, each window's first maximum), one thread
//    per output element; an adjoint sums the windows over an element in
//    the host's order.
//
// Tensors arrive as memref descriptors (any strides); kernels go through
// libtflrt_cuda's launch (Launch.cuh).
//
//===----------------------------------------------------------------------===//

#include "Launch.cuh"
#include "tflrt/CudaApi.h"
#include "tflrt/Philox.h"
#include "tflrt/Random.h"

#include <cstdint>

namespace {

using tflrt::cuda::at;
using tflrt::cuda::count;
using tflrt::cuda::launch;
using tflrt::cuda::offsetOf;
using tflrt::cuda::threadIndex;
using tflrt::cuda::View;
using tflrt::cuda::viewOf;

// ---- Philox-4x32-10 (tflrt/Philox.h, shared with the host) ----------------

__global__ void uniformF32(View out, int64_t n, uint64_t key, uint64_t draw) {
  int64_t b = threadIndex();
  if (4 * b >= n)
    return;
  tflrt::PhiloxWords w = tflrt::philoxBlock(key, draw, b);
  for (int64_t k = 0; k < 4 && 4 * b + k < n; ++k)
    at<float>(out, 4 * b + k) = tflrt::philoxUniformF32(w.w[k]);
}

__global__ void uniformF64(View out, int64_t n, uint64_t key, uint64_t draw) {
  int64_t b = threadIndex();
  if (2 * b >= n)
    return;
  tflrt::PhiloxWords w = tflrt::philoxBlock(key, draw, b);
  at<double>(out, 2 * b) = tflrt::philoxUniformF64(w.w[0], w.w[1]);
  if (2 * b + 1 < n)
    at<double>(out, 2 * b + 1) = tflrt::philoxUniformF64(w.w[2], w.w[3]);
}

template <typename T>
__global__ void normal(View out, int64_t n, uint64_t key, uint64_t draw) {
  int64_t p = threadIndex();
  if (2 * p >= n)
    return;
  double first, second;
  tflrt::philoxNormalPair(tflrt::philoxBlock(key, draw, p), first, second);
  at<T>(out, 2 * p) = static_cast<T>(first);
  if (2 * p + 1 < n)
    at<T>(out, 2 * p + 1) = static_cast<T>(second);
}

// ---- scatter_add -----------------------------------------------------------

/// out[o, idx[k], i] += dy[o, k, i] for k in order; thread (o, i).
template <typename T>
__global__ void scatterAdd(View dy, View idx, View out, int64_t outer,
                           int64_t n, int64_t inner, int64_t picks) {
  int64_t t = threadIndex();
  if (t >= outer * inner)
    return;
  int64_t o = t / inner, i = t % inner;
  T *dst = reinterpret_cast<T *>(out.data);
  for (int64_t k = 0; k < picks; ++k) {
    int64_t p = at<int64_t>(idx, k);
    p = p < 0 ? 0 : (p >= n ? n - 1 : p); // gather checked them
    dst[offsetOf(out, (o * n + p) * inner + i)] +=
        at<T>(dy, (o * picks + k) * inner + i);
  }
}

// ---- Pooling (NHWC) --------------------------------------------------------

struct Pool {
  int64_t sizeH, sizeW, strideH, strideW, padTop, padLeft;
};

__device__ float &at4(const View &v, int64_t n, int64_t h, int64_t w,
                      int64_t c) {
  return reinterpret_cast<float *>(v.data)[n * v.strides[0] + h * v.strides[1] +
                                           w * v.strides[2] + c * v.strides[3]];
}

/// Window (i, j)'s unpadded rows [h0, h1) and columns [w0, w1) over `x`.
struct Span {
  int64_t h0, h1, w0, w1;
};

__device__ Span span(const View &x, const Pool &p, int64_t i, int64_t j) {
  int64_t h0 = i * p.strideH - p.padTop, w0 = j * p.strideW - p.padLeft;
  int64_t h1 = min(h0 + p.sizeH, x.sizes[1]),
          w1 = min(w0 + p.sizeW, x.sizes[2]);
  return {max(h0, int64_t(0)), h1, max(w0, int64_t(0)), w1};
}

/// The first maximum of `x` in a window, as (row, column).
__device__ void firstMax(const View &x, int64_t n, int64_t c, const Span &s,
                         int64_t &bh, int64_t &bw) {
  bh = s.h0;
  bw = s.w0;
  for (int64_t h = s.h0; h < s.h1; ++h)
    for (int64_t w = s.w0; w < s.w1; ++w)
      if (at4(x, n, h, w, c) > at4(x, n, bh, bw, c)) {
        bh = h;
        bw = w;
      }
}

/// The output element `t`'s (n, i, j, c).
__device__ void unravel(const View &v, int64_t t, int64_t &n, int64_t &i,
                        int64_t &j, int64_t &c) {
  c = t % v.sizes[3];
  t /= v.sizes[3];
  j = t % v.sizes[2];
  t /= v.sizes[2];
  i = t % v.sizes[1];
  n = t / v.sizes[1];
}

__global__ void poolForward(View x, View out, Pool p, int isMax) {
  int64_t t = threadIndex(), n, i, j, c;
  if (t >= out.sizes[0] * out.sizes[1] * out.sizes[2] * out.sizes[3])
    return;
  unravel(out, t, n, i, j, c);
  Span s = span(x, p, i, j);
  if (isMax) {
    int64_t bh, bw;
    firstMax(x, n, c, s, bh, bw);
    at4(out, n, i, j, c) = s.h0 < s.h1 && s.w0 < s.w1
                               ? at4(x, n, bh, bw, c)
                               : -__int_as_float(0x7f800000);
    return;
  }
  float sum = 0.0f;
  for (int64_t h = s.h0; h < s.h1; ++h)
    for (int64_t w = s.w0; w < s.w1; ++w)
      sum += at4(x, n, h, w, c);
  at4(out, n, i, j, c) =
      sum / static_cast<float>((s.h1 - s.h0) * (s.w1 - s.w0));
}

/// dx[n, h, w, c]: the windows over (h, w) in the host's order (i, then
/// j), each adding its share (avg) or its gradient if (h, w) is its first
/// maximum (max).
__global__ void poolBackward(View x, View dy, View dx, Pool p, int isMax) {
  int64_t t = threadIndex(), n, h, w, c;
  if (t >= dx.sizes[0] * dx.sizes[1] * dx.sizes[2] * dx.sizes[3])
    return;
  unravel(dx, t, n, h, w, c);
  // Windows i with i * stride - pad <= h < i * stride - pad + size.
  auto first = [](int64_t pos, int64_t pad, int64_t size, int64_t stride) {
    int64_t lo = pos + pad - size + 1;
    return lo <= 0 ? int64_t(0) : (lo + stride - 1) / stride;
  };
  int64_t i0 = first(h, p.padTop, p.sizeH, p.strideH),
          i1 = min((h + p.padTop) / p.strideH, dy.sizes[1] - 1);
  int64_t j0 = first(w, p.padLeft, p.sizeW, p.strideW),
          j1 = min((w + p.padLeft) / p.strideW, dy.sizes[2] - 1);
  float sum = 0.0f;
  for (int64_t i = i0; i <= i1; ++i)
    for (int64_t j = j0; j <= j1; ++j) {
      Span s = span(x, p, i, j);
      float g = at4(dy, n, i, j, c);
      if (isMax) {
        int64_t bh, bw;
        firstMax(x, n, c, s, bh, bw);
        if (bh == h && bw == w)
          sum += g;
      } else {
        sum += g / static_cast<float>((s.h1 - s.h0) * (s.w1 - s.w0));
      }
    }
  at4(dx, n, h, w, c) = sum;
}

__global__ void maxPoolGather(View x, View g, View out, Pool p) {
  int64_t t = threadIndex(), n, i, j, c;
  if (t >= out.sizes[0] * out.sizes[1] * out.sizes[2] * out.sizes[3])
    return;
  unravel(out, t, n, i, j, c);
  int64_t bh, bw;
  firstMax(x, n, c, span(x, p, i, j), bh, bw);
  at4(out, n, i, j, c) = at4(g, n, bh, bw, c);
}

template <typename T> __global__ void zeroElements(View out, int64_t n) {
  int64_t i = threadIndex();
  if (i < n)
    at<T>(out, i) = T(0);
}

} // namespace

void tflrt::cuda::zeroFill(const View &v, size_t elemSize) {
  int64_t n = count(v);
  switch (elemSize) {
  case 1:
    return launch(zeroElements<uint8_t>, n, v, n);
  case 2:
    return launch(zeroElements<uint16_t>, n, v, n);
  case 4:
    return launch(zeroElements<uint32_t>, n, v, n);
  default:
    return launch(zeroElements<uint64_t>, n, v, n);
  }
}

extern "C" {

// Each random entry point fills a tensor with the next draw, `perThread`
// elements (one Philox block) per thread.
#define TFLRT_CUDA_RANDOM(NAME, ELEM_SIZE, KERNEL, PER_THREAD)                 \
  void tflrt_cuda_##NAME(int64_t rank, void *desc) {                           \
    View out = viewOf(rank, desc, ELEM_SIZE);                                  \
    auto [key, draw] = tflrt::nextRandomDraw();                                \
    int64_t n = count(out);                                                    \
    launch(KERNEL, (n + PER_THREAD - 1) / PER_THREAD, out, n, key, draw);      \
  }
TFLRT_CUDA_RANDOM(random_uniform_f32, 4, uniformF32, 4)
TFLRT_CUDA_RANDOM(random_uniform_f64, 8, uniformF64, 2)
TFLRT_CUDA_RANDOM(random_normal_f32, 4, normal<float>, 2)
TFLRT_CUDA_RANDOM(random_normal_f64, 8, normal<double>, 2)
#undef TFLRT_CUDA_RANDOM

#define TFLRT_CUDA_SCATTER_ADD(T, CTYPE)                                       \
  void tflrt_cuda_scatter_add_##T(                                             \
      int64_t rankDy, void *dyDesc, int64_t rankIdx, void *idxDesc,            \
      int64_t rankOut, void *outDesc, int64_t axis) {                          \
    View dy = viewOf(rankDy, dyDesc, sizeof(CTYPE));                           \
    View idx = viewOf(rankIdx, idxDesc, 8);                                    \
    View out = viewOf(rankOut, outDesc, sizeof(CTYPE));                        \
    int64_t outer = 1, inner = 1, n = out.sizes[axis];                         \
    for (int64_t d = 0; d < axis; ++d)                                         \
      outer *= out.sizes[d];                                                   \
    for (int64_t d = axis + 1; d < rankOut; ++d)                               \
      inner *= out.sizes[d];                                                   \
    tflrt::cuda::zeroFill(out, sizeof(CTYPE));                                 \
    if (n > 0)                                                                 \
      launch(scatterAdd<CTYPE>, outer * inner, dy, idx, out, outer, n, inner,  \
             count(idx));                                                      \
  }
TFLRT_CUDA_SCATTER_ADD(f32, float)
TFLRT_CUDA_SCATTER_ADD(f64, double)
#undef TFLRT_CUDA_SCATTER_ADD

#define TFLRT_CUDA_POOL(NAME, IS_MAX)                                          \
  void tflrt_cuda_##NAME##_f32(                                                \
      int64_t rankX, void *x, int64_t rankOut, void *out, int64_t sizeH,       \
      int64_t sizeW, int64_t strideH, int64_t strideW, int64_t padTop,         \
      int64_t, int64_t padLeft, int64_t) {                                     \
    View vo = viewOf(rankOut, out, 4);                                         \
    launch(poolForward, count(vo), viewOf(rankX, x, 4), vo,                    \
           Pool{sizeH, sizeW, strideH, strideW, padTop, padLeft}, IS_MAX);     \
  }
TFLRT_CUDA_POOL(max_pool2d, 1)
TFLRT_CUDA_POOL(avg_pool2d, 0)
#undef TFLRT_CUDA_POOL

#define TFLRT_CUDA_POOL_BACKWARD(NAME, IS_MAX)                                 \
  void tflrt_cuda_##NAME##_backward_f32(                                       \
      int64_t rankX, void *x, int64_t rankDy, void *dy, int64_t rankDx,        \
      void *dx, int64_t sizeH, int64_t sizeW, int64_t strideH,                 \
      int64_t strideW, int64_t padTop, int64_t, int64_t padLeft, int64_t) {    \
    View vdx = viewOf(rankDx, dx, 4);                                          \
    launch(poolBackward, count(vdx), viewOf(rankX, x, 4),                      \
           viewOf(rankDy, dy, 4), vdx,                                         \
           Pool{sizeH, sizeW, strideH, strideW, padTop, padLeft}, IS_MAX);     \
  }
TFLRT_CUDA_POOL_BACKWARD(max_pool2d, 1)
TFLRT_CUDA_POOL_BACKWARD(avg_pool2d, 0)
#undef TFLRT_CUDA_POOL_BACKWARD

void tflrt_cuda_max_pool2d_gather_f32(int64_t rankX, void *x, int64_t rankG,
                                      void *g, int64_t rankOut, void *out,
                                      int64_t sizeH, int64_t sizeW,
                                      int64_t strideH, int64_t strideW,
                                      int64_t padTop, int64_t, int64_t padLeft,
                                      int64_t) {
  View vo = viewOf(rankOut, out, 4);
  launch(maxPoolGather, count(vo), viewOf(rankX, x, 4), viewOf(rankG, g, 4), vo,
         Pool{sizeH, sizeW, strideH, strideW, padTop, padLeft});
}

} // extern "C"
