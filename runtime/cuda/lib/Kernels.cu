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
//  - scatter_add (gather's adjoint): the picks sorted by row (a stable
//    radix sort, so a row's picks keep their order), then one thread per
//    output element adds its row's picks in index order, as the host does:
//    sums bit for bit the host's, without atomics, in parallel over rows
//    and columns (an embedding's gradient, where many picks share few
//    rows, had only its columns to run in parallel);
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
using tflrt::cuda::kThreads;
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

// The picks' rows are sorted 4 bits a pass, least significant first, each
// pass stable: a tile of kThreads picks counts its digits, one block scans
// the counts (digit-major, so a digit's picks in earlier tiles come first),
// and each pick moves to its digit's offset plus its rank in its tile.
constexpr int kDigitBits = 4;
constexpr int kDigits = 1 << kDigitBits;

/// keys[k]: pick k's row (clamped: gather checked them); order[k] = k.
__global__ void pickRows(View idx, int64_t *keys, int64_t *order, int64_t picks,
                         int64_t n) {
  int64_t k = threadIndex();
  if (k >= picks)
    return;
  int64_t p = at<int64_t>(idx, k);
  keys[k] = p < 0 ? 0 : (p >= n ? n - 1 : p);
  order[k] = k;
}

/// counts[d * tiles + tile]: the tile's keys whose digit at `shift` is d.
__global__ void digitCounts(const int64_t *keys, int64_t picks, int shift,
                            int64_t *counts, int64_t tiles) {
  __shared__ int tile[kDigits];
  if (threadIdx.x < kDigits)
    tile[threadIdx.x] = 0;
  __syncthreads();
  int64_t k = threadIndex();
  if (k < picks)
    atomicAdd(&tile[(keys[k] >> shift) & (kDigits - 1)], 1);
  __syncthreads();
  if (threadIdx.x < kDigits)
    counts[threadIdx.x * tiles + blockIdx.x] = tile[threadIdx.x];
}

/// counts' `size` entries replaced by their exclusive prefix sums; one
/// block, each thread a contiguous run of entries.
__global__ void exclusiveScan(int64_t *counts, int64_t size) {
  __shared__ int64_t runs[kThreads];
  int64_t per = (size + kThreads - 1) / kThreads;
  int64_t begin = threadIdx.x * per, end = min(begin + per, size);
  int64_t total = 0;
  for (int64_t i = begin; i < end; ++i)
    total += counts[i];
  runs[threadIdx.x] = total;
  __syncthreads();
  if (threadIdx.x == 0) {
    int64_t sum = 0;
    for (unsigned t = 0; t < kThreads; ++t) {
      int64_t run = runs[t];
      runs[t] = sum;
      sum += run;
    }
  }
  __syncthreads();
  int64_t sum = runs[threadIdx.x];
  for (int64_t i = begin; i < end; ++i) {
    int64_t c = counts[i];
    counts[i] = sum;
    sum += c;
  }
}

/// Pick k (key and order) to its place by the digit at `shift`: its
/// digit's offset for its tile (exclusiveScan's) plus the picks of that
/// digit before it in the tile.
__global__ void moveByDigit(const int64_t *keys, const int64_t *order,
                            int64_t picks, int shift, const int64_t *offsets,
                            int64_t tiles, int64_t *keysOut,
                            int64_t *orderOut) {
  __shared__ int digits[kThreads];
  int64_t k = threadIndex();
  int d = k < picks ? static_cast<int>((keys[k] >> shift) & (kDigits - 1)) : -1;
  digits[threadIdx.x] = d;
  __syncthreads();
  if (k >= picks)
    return;
  int64_t pos = offsets[d * tiles + blockIdx.x];
  for (unsigned t = 0; t < threadIdx.x; ++t)
    pos += digits[t] == d;
  keysOut[pos] = keys[k];
  orderOut[pos] = order[k];
}

/// [first[r], last[r]): row r's picks in the sorted keys (0 and 0, zeroed
/// before, when it has none).
__global__ void rowRanges(const int64_t *keys, int64_t picks, int64_t *first,
                          int64_t *last) {
  int64_t j = threadIndex();
  if (j >= picks)
    return;
  int64_t r = keys[j];
  if (j == 0 || keys[j - 1] != r)
    first[r] = j;
  if (j == picks - 1 || keys[j + 1] != r)
    last[r] = j + 1;
}

/// out[o, r, i] = the sum of dy[o, k, i] over row r's picks k in index
/// order, from zero (the host's sum); thread (o, r, i).
template <typename T>
__global__ void sumPicks(View dy, View out, const int64_t *order,
                         const int64_t *first, const int64_t *last,
                         int64_t outer, int64_t n, int64_t inner,
                         int64_t picks) {
  int64_t t = threadIndex();
  if (t >= outer * n * inner)
    return;
  int64_t i = t % inner, r = t / inner % n, o = t / (inner * n);
  T sum = 0;
  for (int64_t j = first[r]; j < last[r]; ++j)
    sum += at<T>(dy, (o * picks + order[j]) * inner + i);
  at<T>(out, t) = sum;
}

/// out[o, idx[k], i] = the sum of dy[o, k, i] over k; `out` is [outer, n,
/// inner] and dy [outer, picks, inner] in row-major order.
template <typename T>
void scatterAdd(const View &dy, const View &idx, const View &out, int64_t outer,
                int64_t n, int64_t inner) {
  int64_t picks = count(idx);
  if (picks == 0 || n == 0) {
    tflrt::cuda::zeroFill(out, sizeof(T));
    return;
  }
  int64_t tiles = (picks + kThreads - 1) / kThreads;
  // Two key and order buffers (a pass reads one and writes the other),
  // the digit counts, and the rows' ranges.
  int64_t words = 4 * picks + kDigits * tiles + 2 * n;
  tflrt::cuda::Scratch scratch(static_cast<size_t>(words) * sizeof(int64_t));
  auto *base = static_cast<int64_t *>(scratch.ptr);
  int64_t *keys[2] = {base, base + picks};
  int64_t *order[2] = {base + 2 * picks, base + 3 * picks};
  int64_t *counts = base + 4 * picks;
  int64_t *first = counts + kDigits * tiles, *last = first + n;
  launch(pickRows, picks, idx, keys[0], order[0], picks, n);
  int cur = 0;
  for (int shift = 0; (n - 1) >> shift != 0; shift += kDigitBits) {
    launch(digitCounts, tiles * kThreads, keys[cur], picks, shift, counts,
           tiles);
    launch(exclusiveScan, kThreads, counts, kDigits * tiles);
    launch(moveByDigit, tiles * kThreads, keys[cur], order[cur], picks, shift,
           counts, tiles, keys[1 - cur], order[1 - cur]);
    cur = 1 - cur;
  }
  tflrt::cuda::memsetAsync(first, 0, 4 * n, 4);
  launch(rowRanges, picks, keys[cur], picks, first, last);
  launch(sumPicks<T>, outer * n * inner, dy, out, order[cur], first, last,
         outer, n, inner, picks);
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
    scatterAdd<CTYPE>(dy, idx, out, outer, n, inner);                          \
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
