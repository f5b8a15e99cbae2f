//===- FewChannels.cpp - 3x3 convolutions of inputs with few channels -----===//
//
// One output pixel's output channels are vectors of L (16 on AVX-512, 8
// on AVX2, 4 on SSE2; ConvVectors.h), each in turn. The forward pass sums
// the input's 9 C scalars of a pixel's window times the filter's 9 C tap
// vectors, held in registers; the filter's gradient sums each input scalar
// times dy's vector into 9 C accumulators, also in registers, over a chunk
// of rows per thread. The input channel count is a template parameter, so
// the taps' loops unroll.
//
//===----------------------------------------------------------------------===//

#include "FewChannels.h"

#include "ConvVectors.h"
#include "Isa.h"

#include <vector>

namespace tflrt::fewchannels {

namespace {

constexpr int64_t kMaxChannels = 4, kMinOutChannels = 16,
                  kMaxForwardOutChannels = 32;

/// What a pass reads and writes.
struct Args {
  Image x; // the input
  Image y; // the result (forward) or dy (the filter's gradient)
  int64_t top, left, outChannels, kPad;
  /// Forward: the filter as [kPad / 16][9 C][16] (zeros past the output
  /// channels; tapIndex) and the bias ([kPad], zeros without one).
  const float *taps, *bias;
  /// Forward: relu after the bias.
  bool relu;

  int64_t rows() const { return y.n * y.height; }
  /// The filter's gradient's sums: [kPad / 16][9 C][16], then kPad sums of
  /// dy.
  int64_t sumsSize() const { return kPad * 9 * x.channels + kPad; }
};

/// Where tap t (kh * 3 + kw), input channel c and output channel k are in
/// the forward pass's taps and the filter gradient's sums (their layout,
/// [kPad / 16][9 C][16], the same in every build: a vector of L lanes from
/// output channel k, a multiple of L, is at tapIndex(channels, t, c, k)).
TFL_INLINE int64_t tapIndex(int64_t channels, int64_t t, int64_t c, int64_t k) {
  return ((k / kStepChannels) * 9 * channels + t * channels + c) *
             kStepChannels +
         k % kStepChannels;
}

/// The pixels of a forward step: independent sums, so that the FMAs of
/// several pixels overlap (one pixel's 9 C form a chain), each a step of
/// 16 output channels (kPerStep vectors), next to the 9 C taps in
/// registers: 8 or 4 vectors of sums on AVX-512 (of 32 registers), 8 on
/// AVX2 and SSE2 (of 16, where the taps come from the cache).
template <int L, int C>
constexpr int kPixels = L == 16 ? (C <= 2 ? 8 : 4) : 8 / Lanes<L>::kPerStep;

/// Vector j of output pixel (n, oh, ow)'s step k, with relu if asked.
template <int L>
TFL_INLINE void storeSum(const Args &p, Vec<L> &sum, int64_t n, int64_t oh,
                         int64_t ow, int64_t k, int j) {
  if (p.relu)
    relu(sum);
  storeFirst(p.y.at(n, oh, ow) + k + j * L, sum, p.outChannels - k - j * L);
}

/// Output pixels [ow, ow + P) of row (n, oh), whose windows are inside the
/// input: no bounds to check. `taps` holds the step's 9 C x kPerStep
/// vectors, `bias` its kPerStep.
///
/// Where a step is several vectors (AVX2, SSE2), every loop over the sums
/// is unrolled: GCC left those builds' loops rolled, their sums on the
/// stack (1.6x slower with one input channel), while the same unrolling of
/// the AVX-512 build's made it 1.7x slower (bench/conv.sh,
/// docs/performance.md).
template <int L, int C, int P>
TFL_INLINE void forwardInside(const Args &p, const Vec<L> *taps,
                              const Vec<L> *bias, int64_t n, int64_t oh,
                              int64_t ow, int64_t k) {
  constexpr int V = Lanes<L>::kPerStep;
  const Image &x = p.x;
  Vec<L> acc[P][V];
  const float *corner = x.at(n, oh - p.top, ow - p.left);
  if constexpr (V == 1) {
    for (int i = 0; i < P; ++i)
      acc[i][0] = bias[0];
    for (int kh = 0; kh < 3; ++kh)
      for (int kw = 0; kw < 3; ++kw)
        for (int c = 0; c < C; ++c) {
          const float *first = corner + kh * x.sh + kw * x.sw + c;
          const Vec<L> &tap = taps[(kh * 3 + kw) * C + c];
          for (int i = 0; i < P; ++i)
            acc[i][0] += first[i * x.sw] * tap;
        }
    for (int i = 0; i < P; ++i)
      storeSum<L>(p, acc[i][0], n, oh, ow + i, k, 0);
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 4
      for (int j = 0; j < V; ++j)
        acc[i][j] = bias[j];
    for (int kh = 0; kh < 3; ++kh)
      for (int kw = 0; kw < 3; ++kw)
        for (int c = 0; c < C; ++c) {
          const float *first = corner + kh * x.sh + kw * x.sw + c;
          const Vec<L> *tap = taps + ((kh * 3 + kw) * C + c) * V;
#pragma GCC unroll 8
          for (int i = 0; i < P; ++i) {
            float value = first[i * x.sw];
#pragma GCC unroll 4
            for (int j = 0; j < V; ++j)
              acc[i][j] += value * tap[j];
          }
        }
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 4
      for (int j = 0; j < V; ++j)
        storeSum<L>(p, acc[i][j], n, oh, ow + i, k, j);
  }
}

/// The 9 C input values of the window of output pixel (n, oh, ow), zeros
/// outside the input (a fixed-size copy, so that the sums below index
/// their vectors by constants and keep them in registers).
template <int C>
TFL_INLINE void window(const Args &p, int64_t n, int64_t oh, int64_t ow,
                       float *values) {
  const Image &x = p.x;
  for (int kh = 0; kh < 3; ++kh)
    for (int kw = 0; kw < 3; ++kw) {
      int64_t ih = oh + kh - p.top, iw = ow + kw - p.left;
      bool in = ih >= 0 && ih < x.height && iw >= 0 && iw < x.width;
      for (int c = 0; c < C; ++c)
        values[(kh * 3 + kw) * C + c] = in ? x.at(n, ih, iw)[c] : 0.0f;
    }
}

/// Output pixel (n, oh, ow), whose window may reach past the input.
template <int L, int C>
TFL_INLINE void forwardEdge(const Args &p, const Vec<L> *taps,
                            const Vec<L> *bias, int64_t n, int64_t oh,
                            int64_t ow, int64_t k) {
  constexpr int V = Lanes<L>::kPerStep;
  float values[9 * C];
  window<C>(p, n, oh, ow, values);
  for (int j = 0; j < V; ++j) {
    Vec<L> acc = bias[j];
    for (int t = 0; t < 9 * C; ++t)
      acc += values[t] * taps[t * V + j];
    if (p.relu)
      relu(acc);
    storeFirst(p.y.at(n, oh, ow) + k + j * L, acc, p.outChannels - k - j * L);
  }
}

/// The output columns [lo, hi) whose windows are inside the input's
/// columns: w - left >= 0 and w - left + 3 <= width.
inline void insideColumns(const Args &p, int64_t &lo, int64_t &hi) {
  lo = p.left > 0 ? p.left : 0;
  hi = p.x.width - 3 + p.left + 1;
  if (hi > p.y.width)
    hi = p.y.width;
  if (hi < lo)
    hi = lo;
}

/// Rows [firstRow, lastRow) of the result (row = n * height + oh).
template <int L, int C>
TFL_INLINE void forwardRows(const Args &p, int64_t firstRow, int64_t lastRow) {
  constexpr int P = kPixels<L, C>, V = Lanes<L>::kPerStep;
  const Image &x = p.x, &y = p.y;
  int64_t lo, hi;
  insideColumns(p, lo, hi);
  for (int64_t row = firstRow; row < lastRow; ++row) {
    int64_t n = row / y.height, oh = row % y.height;
    int64_t ih = oh - p.top;
    bool rowInside = ih >= 0 && ih + 3 <= x.height;
    // Each step of output channels in turn, over the row (in cache).
    for (int64_t k = 0; k < p.kPad; k += kStepChannels) {
      Vec<L> taps[9 * C * V], bias[V];
      for (int i = 0; i < 9 * C; ++i)
        for (int j = 0; j < V; ++j)
          taps[i * V + j] =
              load<L>(p.taps + tapIndex(C, i / C, i % C, k) + j * L);
      for (int j = 0; j < V; ++j)
        bias[j] = load<L>(p.bias + k + j * L);
      int64_t ow = 0;
      if (rowInside) {
        for (; ow < lo; ++ow)
          forwardEdge<L, C>(p, taps, bias, n, oh, ow, k);
        for (; ow + P <= hi; ow += P)
          forwardInside<L, C, P>(p, taps, bias, n, oh, ow, k);
        // The inside pixels left over, without a window's bounds checks.
        if (P > 2 && ow + 2 <= hi) {
          forwardInside<L, C, 2>(p, taps, bias, n, oh, ow, k);
          ow += 2;
        }
        for (; ow < hi; ++ow)
          forwardInside<L, C, 1>(p, taps, bias, n, oh, ow, k);
      }
      for (; ow < y.width; ++ow)
        forwardEdge<L, C>(p, taps, bias, n, oh, ow, k);
    }
  }
}

/// Adds dy's pixel (n, oh, ow) (its vector `g`) times its window of the
/// input into the 9 C sums.
template <int C, typename V>
TFL_INLINE void filterPixel(const Args &p, V *acc, const V &g, int64_t n,
                            int64_t oh, int64_t ow, bool inside) {
  const Image &x = p.x;
  if (inside) {
    const float *corner = x.at(n, oh - p.top, ow - p.left);
#pragma GCC unroll 3
    for (int kh = 0; kh < 3; ++kh)
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw)
#pragma GCC unroll 4
        for (int c = 0; c < C; ++c)
          acc[(kh * 3 + kw) * C + c] += corner[kh * x.sh + kw * x.sw + c] * g;
    return;
  }
  float values[9 * C];
  window<C>(p, n, oh, ow, values);
#pragma GCC unroll 36
  for (int t = 0; t < 9 * C; ++t)
    acc[t] += values[t] * g;
}

/// Chunk `chunk` of `chunks` of dy's rows, into `sums` (sumsSize floats).
template <int L, int C>
TFL_INLINE void filterRows(const Args &p, int64_t chunk, int64_t chunks,
                           float *sums) {
  const Image &x = p.x, &dy = p.y;
  int64_t firstRow = p.rows() * chunk / chunks;
  int64_t lastRow = p.rows() * (chunk + 1) / chunks;
  int64_t lo, hi;
  insideColumns(p, lo, hi);
  for (int64_t k = 0; k < p.kPad; k += L) {
    Vec<L> acc[9 * C] = {}, bias = {};
    int64_t valid = p.outChannels - k;
    for (int64_t row = firstRow; row < lastRow; ++row) {
      int64_t n = row / dy.height, oh = row % dy.height;
      int64_t ih = oh - p.top;
      bool rowInside = ih >= 0 && ih + 3 <= x.height;
      for (int64_t ow = 0; ow < dy.width; ++ow) {
        Vec<L> g;
        loadFirst(g, dy.at(n, oh, ow) + k, valid);
        bias += g;
        filterPixel<C>(p, acc, g, n, oh, ow, rowInside && ow >= lo && ow < hi);
      }
    }
    for (int i = 0; i < 9 * C; ++i)
      store(sums + tapIndex(C, i / C, i % C, k), acc[i]);
    store(sums + p.kPad * 9 * C + k, bias);
  }
}

template <int L>
TFL_INLINE void forwardPartBody(const Args &p, int64_t firstRow,
                                int64_t lastRow) {
  switch (p.x.channels) {
  case 1:
    return forwardRows<L, 1>(p, firstRow, lastRow);
  case 2:
    return forwardRows<L, 2>(p, firstRow, lastRow);
  case 3:
    return forwardRows<L, 3>(p, firstRow, lastRow);
  default:
    return forwardRows<L, 4>(p, firstRow, lastRow);
  }
}

TFL_ISA_LANE_VARIANTS(forwardPart,
                      (const Args &p, int64_t firstRow, int64_t lastRow),
                      (p, firstRow, lastRow))

template <int L>
TFL_INLINE void filterPartBody(const Args &p, int64_t chunk, int64_t chunks,
                               float *sums) {
  switch (p.x.channels) {
  case 1:
    return filterRows<L, 1>(p, chunk, chunks, sums);
  case 2:
    return filterRows<L, 2>(p, chunk, chunks, sums);
  case 3:
    return filterRows<L, 3>(p, chunk, chunks, sums);
  default:
    return filterRows<L, 4>(p, chunk, chunks, sums);
  }
}

TFL_ISA_LANE_VARIANTS(filterPart,
                      (const Args &p, int64_t chunk, int64_t chunks,
                       float *sums),
                      (p, chunk, chunks, sums))

Args argsOf(const TensorView &x, const TensorView &y, const Window &window) {
  Args p{};
  p.x = Image::of(x);
  p.y = Image::of(y);
  p.top = window.padding[0];
  p.left = window.padding[2];
  p.outChannels = y.shape[3];
  p.kPad = roundUp(p.outChannels, kStepChannels);
  return p;
}

} // namespace

bool applies(const TensorView &x, const TensorView &w, const TensorView &y,
             const Window &window, bool forwardPass) {
  if (forwardPass && y.rank() == 4 && y.shape[3] > kMaxForwardOutChannels)
    return false;
  return x.dtype == DType::F32 && w.dtype == DType::F32 &&
         y.dtype == DType::F32 && x.rank() == 4 && y.rank() == 4 &&
         w.rank() == 4 && w.shape[0] == 3 && w.shape[1] == 3 &&
         window.strides[0] == 1 && window.strides[1] == 1 &&
         x.strides[3] == 1 && y.strides[3] == 1 && x.shape[3] >= 1 &&
         x.shape[3] <= kMaxChannels && y.shape[3] >= kMinOutChannels;
}

void forward(const TensorView &x, const TensorView &w, const TensorView *bias,
             const TensorView &out, const Window &window, bool relu) {
  Args p = argsOf(x, out, window);
  p.relu = relu;
  int64_t channels = x.shape[3];
  std::vector<float> taps(p.kPad * 9 * channels, 0.0f), biases(p.kPad, 0.0f);
  const float *filter = static_cast<const float *>(w.data);
  for (int64_t t = 0; t < 9; ++t)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t k = 0; k < p.outChannels; ++k)
        taps[tapIndex(channels, t, c, k)] =
            filter[(t / 3) * w.strides[0] + (t % 3) * w.strides[1] +
                   c * w.strides[2] + k * w.strides[3]];
  if (bias)
    for (int64_t k = 0; k < p.outChannels; ++k)
      biases[k] = static_cast<const float *>(bias->data)[k * bias->strides[0]];
  p.taps = taps.data();
  p.bias = biases.data();
  inParallel(p.rows(),
             [&p](int64_t lb, int64_t ub) { forwardPart(p, lb, ub); });
}

void backwardFilter(const TensorView &x, const TensorView &dy,
                    const TensorView &dw, const Window &window,
                    const TensorView *dbias) {
  Args p = argsOf(x, dy, window);
  Scratch sums = sumInChunks(p.rows(), p.sumsSize(),
                             [&p](int64_t chunk, int64_t chunks, float *acc) {
                               filterPart(p, chunk, chunks, acc);
                             });
  int64_t channels = x.shape[3];
  float *out = static_cast<float *>(const_cast<void *>(dw.data));
  for (int64_t t = 0; t < 9; ++t)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t k = 0; k < p.outChannels; ++k)
        out[(t / 3) * dw.strides[0] + (t % 3) * dw.strides[1] +
            c * dw.strides[2] + k * dw.strides[3]] =
            sums.data()[tapIndex(channels, t, c, k)];
  if (dbias) {
    const float *biasSums = sums.data() + p.kPad * 9 * channels;
    float *db = static_cast<float *>(const_cast<void *>(dbias->data));
    for (int64_t k = 0; k < p.outChannels; ++k)
      db[k * dbias->strides[0]] = biasSums[k];
  }
}

} // namespace tflrt::fewchannels
