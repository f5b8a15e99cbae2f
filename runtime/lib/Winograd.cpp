//===- Winograd.cpp - 3x3 convolutions by minimal filtering ---------------===//
//
// Every pass works on blocks of tiles, so that a block's transformed tiles
// stay in cache between its three steps:
//
//   1. transform: each tile's 6x6 values, a vector of channels at a time,
//      become 36 transformed points;
//   2. products: for each point, the block's tiles times the transformed
//      filter, a [tiles x C] by [C x K] product, 16 output channels by
//      8 tiles (AVX-512), 4 (AVX2) or 2 (SSE2) per step held in registers;
//   3. the output transform, bias included, straight into the result.
//
// The filter's gradient reverses the roles: the input and dy are both
// transformed, and each point's product sums over all tiles into a
// [C x K] accumulator per thread, transformed back once at the end.
//
// The vectors and their builds for each ISA are ConvVectors.h's: the
// kernels are templates on L, the floats in one of the build's vectors, and
// their scratch and filters are laid out in steps of 16 channels whatever
// the build.
//
//===----------------------------------------------------------------------===//

#include "Winograd.h"

#include "ConvVectors.h"
#include "Isa.h"

#include <vector>

namespace tflrt::winograd {

namespace {

/// Each tile's 6x6 transformed points.
constexpr int kSide = 6, kPoints = kSide * kSide;
/// The outputs of a forward tile per dim (and dy's per dim in the filter's
/// gradient); tiles start this far apart.
constexpr int kStep = 4;
/// Tiles per block (forward passes and the filter's gradient): a block's
/// transformed tiles, 36 x 8 x 16 floats per vector of channels, stay in
/// L1 and L2 between its steps (blocks of 16 and 32 tiles were measured
/// slower: 0.31 and 0.38 against 0.24 ms for the seed CNN's filter
/// gradient).
constexpr int64_t kBlock = 8;
/// Rows a block's products are padded to (tiles in the forward passes,
/// input channels in the filter's gradient).
constexpr int64_t kRows = 8;
/// The rows of a product step, each a step of 16 channels (kPerStep
/// vectors), held in registers: 8 sums of one vector on AVX-512 (of 32
/// registers), of 4 rows by 2 vectors on AVX2 and 2 by 4 on SSE2 (of 16),
/// with room for the filter's vectors and a broadcast row value.
template <int L> constexpr int kStepRows = L / 2;
static_assert(kRows % kStepRows<16> == 0 && kRows % kStepRows<8> == 0 &&
                  kRows % kStepRows<4> == 0,
              "whole steps in a block's rows");
/// The channel counts these kernels take, where they beat oneDNN's direct
/// kernels in every pass on an AVX-512 machine (measured; see
/// docs/performance.md): with fewer than 16 input or output channels the
/// transforms outweigh the products saved. Up to 64 x 64 channel pairs
/// the transformed filter (36 C K floats, 590 KB there) stays in a core's
/// L2 next to a block's tiles; past it the products stream it from L3, and
/// wait on it when other processes share that cache (96 x 96 ran 1.6-1.8x
/// oneDNN's speed in some runs and even with it in others).
constexpr int64_t kMinChannels = 16, kMaxChannelPairs = 64 * 64;
/// The most multiply-adds per channel pair that a pass's tiles (36 each)
/// may take for every 10 that a direct convolution takes (one for each
/// output and filter tap inside the input): small images waste most of
/// their tiles past the edges, where the direct kernels skip the
/// padding's taps. At 4 in 10 the kernels were still faster in every pass
/// measured, and at 4.4 in 10 the input's gradient of 8x8 images with 16
/// channels took 1.3 times oneDNN's time.
constexpr int64_t kMaxTileShare = 4;

/// The tiles of one pass: tilesH x tilesW per image; tile (i, j) reads
/// `size` x `size` values of `in` from row 4i - top, column 4j - left
/// (zeros outside it).
struct Tiling {
  Image in;
  int64_t tilesH, tilesW, top, left;

  int64_t count() const { return in.n * tilesH * tilesW; }

  /// Tile `t`'s image and first row and column.
  TFL_INLINE void locate(int64_t t, int64_t &n, int64_t &h, int64_t &w) const {
    int64_t j = t % tilesW, i = (t / tilesW) % tilesH;
    n = t / (tilesW * tilesH);
    h = kStep * i - top;
    w = kStep * j - left;
  }

  /// The first of tile `t`'s values from channel c on when the tile lies
  /// inside the input with `lanes` channels from c, or null.
  TFL_INLINE const float *inside(int64_t t, int64_t c, int size,
                                 int64_t lanes) const {
    int64_t n, h0, w0;
    locate(t, n, h0, w0);
    if (h0 >= 0 && h0 + size <= in.height && w0 >= 0 && w0 + size <= in.width &&
        in.channels - c >= lanes)
      return in.at(n, h0, w0) + c;
    return nullptr;
  }

  /// Channels [c, c + L) of tile `t`, row-major into `d` (size^2 vectors);
  /// channels past the input's are zero.
  template <int L>
  TFL_INLINE void gather(int64_t t, int64_t c, int size, Vec<L> *d) const {
    if (const float *corner = inside(t, c, size, L)) {
      for (int i = 0; i < size; ++i)
        for (int j = 0; j < size; ++j)
          d[i * size + j] = load<L>(corner + i * in.sh + j * in.sw);
      return;
    }
    // At an edge, or with fewer than L channels left: the columns
    // [jlo, jhi) are inside.
    int64_t n, h0, w0;
    locate(t, n, h0, w0);
    int64_t channels = in.channels - c;
    int64_t jlo = w0 < 0 ? -w0 : 0, jhi = lesser(size, in.width - w0);
    for (int i = 0; i < size; ++i) {
      int64_t h = h0 + i;
      Vec<L> *line = d + i * size;
      for (int j = 0; j < size; ++j)
        line[j] = Vec<L>{};
      if (h < 0 || h >= in.height)
        continue;
      const float *row = in.at(n, h, 0) + c;
      if (channels >= L)
        for (int64_t j = jlo; j < jhi; ++j)
          line[j] = load<L>(row + (w0 + j) * in.sw);
      else
        for (int64_t j = jlo; j < jhi; ++j)
          loadFirst(line[j], row + (w0 + j) * in.sw, channels);
    }
  }
};

// The transforms of F(4, 3) (Lavin and Gray's, points 0, +-1, +-2 and
// infinity), each on one line of a tile. The forward passes compute
// A^T [(G g G^T) . (B^T d B)] A; the filter's gradient, its adjoint in g:
// G^T [sum over tiles of (B^T d B) . (A dy A^T)] G.

/// B^T d (6 values to 6 points).
struct InputLine {
  static constexpr int kIn = 6, kOut = 6;
  template <typename T> TFL_INLINE void operator()(const T *d, T *out) const {
    T a = d[4] - 4.0f * d[2], b = d[3] - 4.0f * d[1];
    T c = d[4] - d[2], e = 2.0f * (d[3] - d[1]);
    out[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
    out[1] = a + b;
    out[2] = a - b;
    out[3] = c + e;
    out[4] = c - e;
    out[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
  }
};

/// A^T m (6 points to 4 outputs; the forward pass's own loop applies it).
struct OutputLine {
  template <typename T> TFL_INLINE void operator()(const T *m, T *out) const {
    T s12 = m[1] + m[2], d12 = m[1] - m[2];
    T s34 = m[3] + m[4], d34 = m[3] - m[4];
    out[0] = m[0] + s12 + s34;
    out[1] = d12 + 2.0f * d34;
    out[2] = s12 + 4.0f * s34;
    out[3] = d12 + 8.0f * d34 + m[5];
  }
};

/// G g (3 filter taps to 6 points).
struct FilterLine {
  static constexpr int kIn = 3, kOut = 6;
  template <typename T> TFL_INLINE void operator()(const T *g, T *out) const {
    out[0] = g[0] / 4.0f;
    out[1] = -(g[0] + g[1] + g[2]) / 6.0f;
    out[2] = -(g[0] - g[1] + g[2]) / 6.0f;
    out[3] = g[0] / 24.0f + g[1] / 12.0f + g[2] / 6.0f;
    out[4] = g[0] / 24.0f - g[1] / 12.0f + g[2] / 6.0f;
    out[5] = g[2];
  }
};

/// A dy (4 values of dy to 6 points).
struct DyLine {
  static constexpr int kIn = 4, kOut = 6;
  template <typename T> TFL_INLINE void operator()(const T *g, T *out) const {
    T e = g[0] + g[2], o = g[1] + g[3];
    T e4 = g[0] + 4.0f * g[2], o4 = 2.0f * g[1] + 8.0f * g[3];
    out[0] = g[0];
    out[1] = e + o;
    out[2] = e - o;
    out[3] = e4 + o4;
    out[4] = e4 - o4;
    out[5] = g[3];
  }
};

/// G^T m (6 points to 3 filter taps), in double (filterTaps): by the
/// reciprocals of 4, 6, 12 and 24 (each product within an ulp of a double
/// of the division), so that a tap moves by a few ulps of a double of its
/// terms, and its float only where the double lies that close to a
/// rounding boundary. The divisions, 63 vector ones a step of channels,
/// took 7 us of the seed CNN's step on one thread while the other waited.
struct FilterGradLine {
  static constexpr int kIn = 6, kOut = 3;
  template <typename T> TFL_INLINE void operator()(const T *m, T *out) const {
    constexpr double k4 = 1.0 / 4, k6 = 1.0 / 6, k12 = 1.0 / 12, k24 = 1.0 / 24;
    T s12 = m[1] + m[2], s34 = m[3] + m[4];
    out[0] = m[0] * k4 - s12 * k6 + s34 * k24;
    out[1] = (m[2] - m[1]) * k6 + (m[3] - m[4]) * k12;
    out[2] = (s34 - s12) * k6 + m[5];
  }
};

/// A 2-D transform L t L^T of the n x n tile `in` (row-major), where the
/// 1-D `Line` L takes n values to m: on each column, then on each row of
/// the result, whose m values go to `row(i, values)` as they come (always
/// inlined: the caller stores them where they go, with no m x m copy).
template <typename Line, typename T, typename In, typename Row>
TFL_INLINE void separableOf(In in, Row row) {
  constexpr int n = Line::kIn, m = Line::kOut;
  T cols[m * n];
  for (int j = 0; j < n; ++j) {
    T line[n], result[m];
    for (int i = 0; i < n; ++i)
      in(i, j, line[i]);
    Line{}(line, result);
    for (int i = 0; i < m; ++i)
      cols[i * n + j] = result[i];
  }
  for (int i = 0; i < m; ++i) {
    T result[m];
    Line{}(&cols[i * n], result);
    row(i, result);
  }
}

template <typename Line, typename T, typename Row>
TFL_INLINE void separable(const T *in, Row row) {
  separableOf<Line, T>([in](int i, int j, T &value) __attribute__((
                           always_inline)) { value = in[i * Line::kIn + j]; },
                       row);
}

/// The m x m result of separable<Line> into `out`, row-major.
template <typename Line, typename T>
TFL_INLINE void separable(const T *in, T *out) {
  separable<Line>(in,
                  [out](int i, const T *values) __attribute__((always_inline)) {
                    for (int j = 0; j < Line::kOut; ++j)
                      out[i * Line::kOut + j] = values[j];
                  });
}

/// B^T d B of a 6x6 tile `d`, stored as its 36 points at `v`, point `xi`
/// at v + xi * pointStride.
template <int L>
TFL_INLINE void transformInput(const Vec<L> *d, float *v, int64_t pointStride) {
  separable<InputLine>(d, [v, pointStride](int i, const Vec<L> *values)
                              __attribute__((always_inline)) {
                                for (int j = 0; j < kSide; ++j)
                                  store(v + (i * kSide + j) * pointStride,
                                        values[j]);
                              });
}

/// B^T d B of channels [c, c + L) of tile `t` of `tiling` (6x6 values),
/// stored as transformInput stores them. A tile inside the input is
/// transformed as it is loaded, column by column, with no copy of it.
template <int L>
TFL_INLINE void transformTile(const Tiling &tiling, int64_t t, int64_t c,
                              float *v, int64_t pointStride) {
  if (const float *corner = tiling.inside(t, c, kSide, L)) {
    const int64_t sh = tiling.in.sh, sw = tiling.in.sw;
    separableOf<InputLine, Vec<L>>(
        [corner, sh, sw](int i, int j, Vec<L> &value) __attribute__((
            always_inline)) { value = load<L>(corner + i * sh + j * sw); },
        [v, pointStride](int i, const Vec<L> *values)
            __attribute__((always_inline)) {
              for (int j = 0; j < kSide; ++j)
                store(v + (i * kSide + j) * pointStride, values[j]);
            });
    return;
  }
  Vec<L> d[kPoints];
  tiling.gather<L>(t, c, kSide, d);
  transformInput<L>(d, v, pointStride);
}

// ---- Forward (and the input's gradient): F(4x4, 3x3) ----------------------

/// What the forward blocks read and write.
struct ForwardArgs {
  Tiling tiling;
  Image out;
  int64_t inChannels, outChannels, cPad, kPad;
  /// The transformed filter, [36][inChannels][kPad], the filter's taps,
  /// [9][inChannels][kPad], and the bias, zero-padded to kPad (zeros
  /// without one).
  const float *u, *taps, *bias;
  /// relu after the bias.
  bool relu;
};

struct ForwardPlan {
  ForwardArgs args;
  Scratch u, taps;
  std::vector<float> bias;
};

/// G g G^T for each channel pair into `u` ([36][inChannels][kPad], zeros
/// past outChannels), where g[kh][kw] is at filter + kh * sh + kw * sw +
/// c * sc + k * sk: a vector of output channels at a time, so that the
/// transform's divisions are vector ones. g itself goes to `taps` ([9]
/// [inChannels][kPad]), for the tiles computed directly.
template <int L>
TFL_INLINE void
transformFilterIntoBody(float *u, float *taps, const float *filter, int64_t sh,
                        int64_t sw, int64_t sc, int64_t sk, int64_t inChannels,
                        int64_t outChannels, int64_t kPad) {
  for (int64_t c = 0; c < inChannels; ++c)
    for (int64_t k = 0; k < kPad; k += L) {
      int64_t lanes = lesser(L, outChannels - k);
      Vec<L> g[9], points[kPoints];
      for (int t = 0; t < 9; ++t) {
        const float *tap = filter + (t / 3) * sh + (t % 3) * sw + c * sc;
        if (sk == 1 && lanes == L) { // (HWIO: the output channels in a row)
          g[t] = load<L>(tap + k);
          continue;
        }
        g[t] = Vec<L>{};
        for (int64_t l = 0; l < lanes; ++l)
          g[t][l] = tap[(k + l) * sk];
      }
      separable<FilterLine>(g, points);
      for (int xi = 0; xi < kPoints; ++xi)
        store(u + (xi * inChannels + c) * kPad + k, points[xi]);
      for (int t = 0; t < 9; ++t)
        store(taps + (t * inChannels + c) * kPad + k, g[t]);
    }
}

TFL_ISA_LANE_VARIANTS(transformFilterInto,
                      (float *u, float *taps, const float *filter, int64_t sh,
                       int64_t sw, int64_t sc, int64_t sk, int64_t inChannels,
                       int64_t outChannels, int64_t kPad),
                      (u, taps, filter, sh, sw, sc, sk, inChannels, outChannels,
                       kPad))

/// The plan's transformed filter (see transformFilterInto).
void transformFilter(ForwardPlan &p, const float *filter, int64_t sh,
                     int64_t sw, int64_t sc, int64_t sk) {
  const ForwardArgs &a = p.args;
  p.u = Scratch(kPoints * a.inChannels * a.kPad);
  p.taps = Scratch(9 * a.inChannels * a.kPad);
  transformFilterInto(p.u.data(), p.taps.data(), filter, sh, sw, sc, sk,
                      a.inChannels, a.outChannels, a.kPad);
  p.args.u = p.u.data();
  p.args.taps = p.taps.data();
}

/// Tile `t`'s outputs of a forward pass by a direct convolution, bias and
/// relu included, over what the transforms wrote there: an infinity or
/// NaN in a tile's input spreads over all of its transformed points, so
/// that the transforms would make NaN of outputs whose windows do not
/// hold it, and NaN where a direct convolution gives an infinity.
template <int L> TFL_INLINE void directTile(const ForwardArgs &p, int64_t t) {
  int64_t n, h0, w0;
  p.tiling.locate(t, n, h0, w0);
  const Image &out = p.out;
  int64_t oh = h0 + p.tiling.top, ow = w0 + p.tiling.left;
  int64_t outRows = lesser(kStep, out.height - oh);
  int64_t outCols = lesser(kStep, out.width - ow);
  for (int64_t k = 0; k < p.kPad; k += L) {
    Vec<L> acc[kStep][kStep] = {};
    for (int64_t c0 = 0; c0 < p.inChannels; c0 += L) {
      Vec<L> d[kPoints];
      p.tiling.gather<L>(t, c0, kSide, d);
      for (int64_t l = 0; l < lesser(L, p.inChannels - c0); ++l)
        for (int tap = 0; tap < 9; ++tap) {
          Vec<L> w =
              load<L>(p.taps + (tap * p.inChannels + c0 + l) * p.kPad + k);
          for (int64_t a = 0; a < outRows; ++a)
            for (int64_t e = 0; e < outCols; ++e)
              acc[a][e] += d[(a + tap / 3) * kSide + e + tap % 3][l] * w;
        }
    }
    Vec<L> bias = load<L>(p.bias + k);
    for (int64_t a = 0; a < outRows; ++a) {
      float *row = out.at(n, oh + a, ow) + k;
      for (int64_t e = 0; e < outCols; ++e) {
        Vec<L> result = acc[a][e] + bias;
        if (p.relu)
          relu(result);
        storeFirst(row + e * out.sw, result, p.outChannels - k);
      }
    }
  }
}

/// Step 2 of forwardBody: for each of the 36 points, the block's `rows`
/// transformed tiles in `v` times the transformed filter into `m`, a step
/// of R rows by 16 output channels at a time (C and K as forwardBody's).
template <int L, int64_t C, int64_t K>
TFL_INLINE void forwardProducts(const ForwardArgs &p, int64_t rows,
                                const float *v, float *m) {
  constexpr int R = kStepRows<L>, V = Lanes<L>::kPerStep;
  const int64_t cPad = C ? C : p.cPad, kPad = K ? K : p.kPad;
  const int64_t channels = C ? C : p.inChannels;
  for (int xi = 0; xi < kPoints; ++xi)
    for (int64_t k = 0; k < kPad; k += kStepChannels)
      for (int64_t r = 0; r < rows; r += R) {
        Vec<L> acc[R][V] = {};
        const float *vr = v + (xi * kBlock + r) * cPad;
        const float *ur = p.u + xi * channels * kPad + k;
        for (int64_t c = 0; c < channels; ++c) {
          Vec<L> w[V];
          for (int j = 0; j < V; ++j)
            w[j] = load<L>(ur + c * kPad + j * L);
          for (int i = 0; i < R; ++i) {
            float x = vr[i * cPad + c];
            for (int j = 0; j < V; ++j)
              acc[i][j] += x * w[j];
          }
        }
        for (int i = 0; i < R; ++i)
          for (int j = 0; j < V; ++j)
            store(m + (xi * kBlock + r + i) * kPad + k + j * L, acc[i][j]);
      }
}

/// Blocks [firstBlock, lastBlock) of a forward pass, with scratch `v`
/// (36 x kBlock x cPad floats) and `m` (36 x kBlock x kPad). C and K, when
/// not 0, are the input channels and kPad as compile-time constants (see
/// forwardBlocks).
template <int L, int64_t C, int64_t K>
TFL_INLINE void forwardBody(const ForwardArgs &p, int64_t firstBlock,
                            int64_t lastBlock, float *v, float *m) {
  const int64_t tiles = p.tiling.count(), cPad = C ? C : p.cPad,
                kPad = K ? K : p.kPad;
  const Image &out = p.out;
  for (int64_t b = firstBlock; b < lastBlock; ++b) {
    int64_t first = b * kBlock, count = lesser(kBlock, tiles - first);
    int64_t rows = roundUp(count, kRows);
    // 1. The input's tiles.
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cPad; c += L) {
        float *dst = v + r * cPad + c;
        if (r >= count) {
          for (int xi = 0; xi < kPoints; ++xi)
            store(dst + xi * kBlock * cPad, Vec<L>{});
          continue;
        }
        transformTile<L>(p.tiling, first + r, c, dst, kBlock * cPad);
      }
    // 2. One product per point.
    forwardProducts<L, C, K>(p, rows, v, m);
    // 3. A^T M A, plus the bias, into the result. A block with a sum that
    // is not finite (before the bias) is computed again directly (see
    // directTile).
    Bits<L> nonFinite = {};
    for (int64_t r = 0; r < count; ++r) {
      int64_t n, h0, w0;
      p.tiling.locate(first + r, n, h0, w0);
      int64_t oh = h0 + p.tiling.top, ow = w0 + p.tiling.left;
      int64_t outRows = lesser(kStep, out.height - oh);
      int64_t outCols = lesser(kStep, out.width - ow);
      for (int64_t k = 0; k < kPad; k += L) {
        Vec<L> s[kStep][kSide];
        for (int j = 0; j < kSide; ++j) {
          Vec<L> line[kSide], y[kStep];
          for (int i = 0; i < kSide; ++i)
            line[i] = load<L>(m + ((i * kSide + j) * kBlock + r) * kPad + k);
          OutputLine{}(line, y);
          for (int a = 0; a < kStep; ++a)
            s[a][j] = y[a];
        }
        Vec<L> bias = load<L>(p.bias + k);
        for (int64_t a = 0; a < outRows; ++a) {
          Vec<L> y[kStep];
          OutputLine{}(s[a], y);
          float *row = out.at(n, oh + a, ow) + k;
          for (int64_t e = 0; e < outCols; ++e) {
            flagNonFinite(y[e], nonFinite);
            Vec<L> result = y[e] + bias;
            if (p.relu)
              relu(result);
            storeFirst(row + e * out.sw, result, p.outChannels - k);
          }
        }
      }
    }
    if (anyFlagged(nonFinite))
      for (int64_t r = 0; r < count; ++r)
        directTile<L>(p, first + r);
  }
}

/// forwardBody, with one step of input and output channels compiled in:
/// its products' loops then unroll and its strides are constants (the seed
/// CNN's second layer took 0.19 against 0.23 ms forward).
template <int L>
TFL_INLINE void forwardBlocksBody(const ForwardArgs &p, int64_t firstBlock,
                                  int64_t lastBlock, float *v, float *m) {
  if (p.inChannels == kStepChannels && p.kPad == kStepChannels)
    forwardBody<L, kStepChannels, kStepChannels>(p, firstBlock, lastBlock, v,
                                                 m);
  else
    forwardBody<L, 0, 0>(p, firstBlock, lastBlock, v, m);
}

TFL_ISA_LANE_VARIANTS(forwardBlocks,
                      (const ForwardArgs &p, int64_t firstBlock,
                       int64_t lastBlock, float *v, float *m),
                      (p, firstBlock, lastBlock, v, m))

void runForward(const ForwardPlan &p) {
  const ForwardArgs &a = p.args;
  inParallel(
      (a.tiling.count() + kBlock - 1) / kBlock, [&a](int64_t lb, int64_t ub) {
        Scratch v(kPoints * kBlock * a.cPad), m(kPoints * kBlock * a.kPad);
        forwardBlocks(a, lb, ub, v.data(), m.data());
      });
}

/// A forward pass's plan, without its filter: `in` read with the given
/// padding into `out`.
ForwardPlan plan(const TensorView &in, const TensorView &out, int64_t top,
                 int64_t left, const TensorView *bias) {
  ForwardPlan p;
  ForwardArgs &a = p.args;
  a.tiling = {Image::of(in), (out.shape[1] + kStep - 1) / kStep,
              (out.shape[2] + kStep - 1) / kStep, top, left};
  a.out = Image::of(out);
  a.inChannels = in.shape[3];
  a.outChannels = out.shape[3];
  a.relu = false;
  a.cPad = roundUp(a.inChannels, kStepChannels);
  a.kPad = roundUp(a.outChannels, kStepChannels);
  p.bias.assign(a.kPad, 0.0f);
  if (bias)
    for (int64_t k = 0; k < a.outChannels; ++k)
      p.bias[k] = static_cast<const float *>(bias->data)[k * bias->strides[0]];
  a.bias = p.bias.data();
  return p;
}

// ---- The filter's gradient: F(3x3, 4x4) -----------------------------------

/// What the filter's gradient's blocks read and write.
struct FilterArgs {
  Tiling x;  // 6x6 tiles of the input
  Tiling dy; // 4x4 tiles of dy, at the same tile positions
  int64_t inChannels, outChannels, cPad, kPad, cRows, blocks;

  /// The sums: [36][cRows][kPad] sums of products, then kPad sums of dy.
  int64_t sumsSize() const { return kPoints * cRows * kPad + kPad; }
};

/// Chunk `chunk` of `chunks` of the blocks, into `acc` (sumsSize floats),
/// with scratch `xs` (36 x kBlock x cPad floats) and `ds` (36 x kBlock x
/// kPad). C and K, when not 0, are the input channels and kPad as
/// compile-time constants (see forwardBlocks).
template <int L, int64_t C, int64_t K>
TFL_INLINE void filterBody(const FilterArgs &p, int64_t chunk, int64_t chunks,
                           float *acc, float *xs, float *ds) {
  const int64_t tiles = p.x.count(), cPad = C ? C : p.cPad,
                kPad = K ? K : p.kPad;
  const int64_t cRows = C ? C : p.cRows;
  constexpr int R = kStepRows<L>, V = Lanes<L>::kPerStep;
  float *biasSum = acc + kPoints * cRows * kPad;
  int64_t firstBlock = p.blocks * chunk / chunks;
  int64_t lastBlock = p.blocks * (chunk + 1) / chunks;
  for (int64_t b = firstBlock; b < lastBlock; ++b) {
    int64_t first = b * kBlock;
    int64_t count = lesser(kBlock, tiles - first);
    // 1. The input's tiles (B^T d B) and dy's (A dy A^T).
    for (int64_t r = 0; r < count; ++r) {
      for (int64_t c = 0; c < cPad; c += L) {
        transformTile<L>(p.x, first + r, c, xs + r * cPad + c, kBlock * cPad);
      }
      for (int64_t k = 0; k < kPad; k += L) {
        Vec<L> g[kStep * kStep];
        p.dy.gather<L>(first + r, k, kStep, g);
        Vec<L> sum = load<L>(biasSum + k);
        for (int64_t i = 0; i < kStep * kStep; ++i)
          sum += g[i];
        store(biasSum + k, sum);
        separable<DyLine>(g, [&](int i, const Vec<L> *values) __attribute__((
                                 always_inline)) {
          for (int j = 0; j < kSide; ++j)
            store(ds + ((i * kSide + j) * kBlock + r) * kPad + k, values[j]);
        });
      }
    }
    // 2. Each point's product, summed over the block's tiles: a step of R
    // input channels by 16 output channels at a time.
    for (int xi = 0; xi < kPoints; ++xi)
      for (int64_t c = 0; c < cRows; c += R)
        for (int64_t k = 0; k < kPad; k += kStepChannels) {
          float *ar = acc + (xi * cRows + c) * kPad + k;
          Vec<L> a[R][V];
          for (int i = 0; i < R; ++i)
            for (int j = 0; j < V; ++j)
              a[i][j] = load<L>(ar + i * kPad + j * L);
          for (int64_t r = 0; r < count; ++r) {
            Vec<L> dv[V];
            for (int j = 0; j < V; ++j)
              dv[j] = load<L>(ds + (xi * kBlock + r) * kPad + k + j * L);
            const float *xr = xs + (xi * kBlock + r) * cPad + c;
            for (int i = 0; i < R; ++i) {
              float x = xr[i];
              for (int j = 0; j < V; ++j)
                a[i][j] += x * dv[j];
            }
          }
          for (int i = 0; i < R; ++i)
            for (int j = 0; j < V; ++j)
              store(ar + i * kPad + j * L, a[i][j]);
        }
  }
}

/// filterBody, with one step of input and output channels compiled in
/// (0.21 against 0.25 ms for the seed CNN's second layer).
template <int L>
TFL_INLINE void filterBlocksBody(const FilterArgs &p, int64_t chunk,
                                 int64_t chunks, float *acc, float *xs,
                                 float *ds) {
  if (p.inChannels == kStepChannels && p.kPad == kStepChannels)
    filterBody<L, kStepChannels, kStepChannels>(p, chunk, chunks, acc, xs, ds);
  else
    filterBody<L, 0, 0>(p, chunk, chunks, acc, xs, ds);
}

TFL_ISA_LANE_VARIANTS(filterBlocks,
                      (const FilterArgs &p, int64_t chunk, int64_t chunks,
                       float *acc, float *xs, float *ds),
                      (p, chunk, chunks, acc, xs, ds))

/// G^T M G of the sums `total` (FilterArgs::sumsSize) for each channel
/// pair, into the filter's gradient `out` with the given strides: in double
/// (once per filter element), a vector of L / 2 output channels at a time,
/// so that the transform's divisions are vector ones.
template <int L>
TFL_INLINE void filterTapsBody(const float *total, const FilterArgs &p,
                               float *out, int64_t s0, int64_t s1, int64_t s2,
                               int64_t s3) {
  typedef typename Lanes<L>::VecD VecD;
  constexpr int64_t kDoubles = L / 2;
  typedef float Floats __attribute__((vector_size(kDoubles * sizeof(float)),
                                      aligned(4), may_alias));
  for (int64_t c = 0; c < p.inChannels; ++c)
    for (int64_t k = 0; k < p.outChannels; k += kDoubles) {
      VecD points[kPoints], taps[9];
      for (int xi = 0; xi < kPoints; ++xi) // (within kPad)
        points[xi] = __builtin_convertvector(
            *reinterpret_cast<const Floats *>(total +
                                              (xi * p.cRows + c) * p.kPad + k),
            VecD);
      separable<FilterGradLine>(points, taps);
      int64_t lanes = lesser(kDoubles, p.outChannels - k);
      for (int t = 0; t < 9; ++t) {
        float *tap = out + (t / 3) * s0 + (t % 3) * s1 + c * s2 + k * s3;
        if (s3 == 1 && lanes == kDoubles) {
          *reinterpret_cast<Floats *>(tap) =
              __builtin_convertvector(taps[t], Floats);
          continue;
        }
        for (int64_t l = 0; l < lanes; ++l)
          tap[l * s3] = static_cast<float>(taps[t][l]);
      }
    }
}

TFL_ISA_LANE_VARIANTS(filterTaps,
                      (const float *total, const FilterArgs &p, float *out,
                       int64_t s0, int64_t s1, int64_t s2, int64_t s3),
                      (total, p, out, s0, s1, s2, s3))

/// Of the outputs 0..outputs-1 of one dim of a 3x3 convolution whose
/// input starts `pad` before them and has `inputs` values, the taps that
/// fall inside the input.
int64_t tapsInside(int64_t outputs, int64_t inputs, int64_t pad) {
  int64_t taps = 0;
  for (int64_t o = 0; o < outputs; ++o)
    for (int64_t t = 0; t < 3; ++t)
      taps += o + t - pad >= 0 && o + t - pad < inputs;
  return taps;
}

} // namespace

bool applies(const TensorView &x, const TensorView &w, const TensorView &y,
             const Window &window, Pass pass) {
  if (!(x.dtype == DType::F32 && w.dtype == DType::F32 &&
        y.dtype == DType::F32 && x.rank() == 4 && y.rank() == 4 &&
        w.rank() == 4 && w.shape[0] == 3 && w.shape[1] == 3 &&
        window.strides[0] == 1 && window.strides[1] == 1 && x.strides[3] == 1 &&
        y.strides[3] == 1 && x.shape[3] >= kMinChannels &&
        y.shape[3] >= kMinChannels &&
        x.shape[3] * y.shape[3] <= kMaxChannelPairs))
    return false;
  // The tiles cover the result of the pass: y, or x for its gradient.
  const TensorView &tiled = pass == Pass::Input ? x : y;
  auto tiles = [](int64_t n) { return (n + kStep - 1) / kStep; };
  int64_t tileTerms = kPoints * tiles(tiled.shape[1]) * tiles(tiled.shape[2]);
  int64_t directTerms = tapsInside(y.shape[1], x.shape[1], window.padding[0]) *
                        tapsInside(y.shape[2], x.shape[2], window.padding[2]);
  return 10 * tileTerms <= kMaxTileShare * directTerms;
}

void forward(const TensorView &x, const TensorView &w, const TensorView *bias,
             const TensorView &out, const Window &window, bool relu) {
  ForwardPlan p = plan(x, out, window.padding[0], window.padding[2], bias);
  p.args.relu = relu;
  transformFilter(p, static_cast<const float *>(w.data), w.strides[0],
                  w.strides[1], w.strides[2], w.strides[3]);
  runForward(p);
}

void backwardInput(const TensorView &dy, const TensorView &w,
                   const TensorView &dx, const Window &window) {
  // dx[h, w, c] = sum of dy[h + kh - (2 - top), ..., k] *
  //   filter[2 - kh, 2 - kw, c, k]: a forward pass with padding 2 - top
  // and 2 - left, and the filter turned and its channel dims swapped.
  ForwardPlan p =
      plan(dy, dx, 2 - window.padding[0], 2 - window.padding[2], nullptr);
  const float *corner =
      static_cast<const float *>(w.data) + 2 * w.strides[0] + 2 * w.strides[1];
  transformFilter(p, corner, -w.strides[0], -w.strides[1], w.strides[3],
                  w.strides[2]);
  runForward(p);
}

void backwardFilter(const TensorView &x, const TensorView &dy,
                    const TensorView &dw, const Window &window,
                    const TensorView *dbias) {
  FilterArgs p;
  int64_t tilesH = (dy.shape[1] + kStep - 1) / kStep;
  int64_t tilesW = (dy.shape[2] + kStep - 1) / kStep;
  p.x = {Image::of(x), tilesH, tilesW, window.padding[0], window.padding[2]};
  p.dy = {Image::of(dy), tilesH, tilesW, 0, 0};
  p.inChannels = x.shape[3];
  p.outChannels = dy.shape[3];
  p.cPad = roundUp(p.inChannels, kStepChannels);
  p.kPad = roundUp(p.outChannels, kStepChannels);
  p.cRows = roundUp(p.inChannels, kRows);
  p.blocks = (p.x.count() + kBlock - 1) / kBlock;
  Scratch sums = sumInChunks(
      p.blocks, p.sumsSize(), [&p](int64_t chunk, int64_t chunks, float *acc) {
        Scratch xs(kPoints * kBlock * p.cPad), ds(kPoints * kBlock * p.kPad);
        filterBlocks(p, chunk, chunks, acc, xs.data(), ds.data());
      });
  const float *total = sums.data();
  filterTaps(total, p, static_cast<float *>(const_cast<void *>(dw.data)),
             dw.strides[0], dw.strides[1], dw.strides[2], dw.strides[3]);
  if (dbias) {
    const float *biasSum = total + kPoints * p.cRows * p.kPad;
    float *db = static_cast<float *>(const_cast<void *>(dbias->data));
    for (int64_t k = 0; k < p.outChannels; ++k)
      db[k * dbias->strides[0]] = biasSum[k];
  }
}

} // namespace tflrt::winograd
