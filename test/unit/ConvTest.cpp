//===- ConvTest.cpp - The Winograd convolutions against their definitions -===//
//
// Each pass (forward with and without a bias, the input's gradient, the
// filter's and the bias's), in each ISA's build this CPU runs, against a
// direct evaluation of its definition in double, on shapes that reach every
// edge: output sizes that are not a multiple of the 4x4 tiles, channel counts
// off the 16-float vectors, below and above one vector, asymmetric and negative
// padding, strided views. The error bound scales with the sum of the magnitudes
// of each output's terms, as a direct convolution's rounding does.
//
//===----------------------------------------------------------------------===//

#include "FewChannels.h"
#include "IsaVariants.h"
#include "Winograd.h"

#include "tflrt/Conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace tflrt;

namespace {

/// A float buffer viewed as NHWC (or HWIO) with room to spare: each dim's
/// stride leaves `slack` unused elements, so views are not contiguous.
struct Buffer {
  std::vector<float> data;
  TensorView view;

  Buffer(Shape shape, int64_t slack, std::mt19937 &rng) {
    Shape strides(shape.size());
    int64_t size = 1;
    for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
      strides[i] = size;
      size *= shape[i] + (i == 0 ? 0 : slack);
    }
    std::normal_distribution<float> normal;
    data.resize(size);
    for (float &v : data)
      v = normal(rng);
    view = {DType::F32, shape, strides, data.data()};
  }

  float &at(int64_t a, int64_t b, int64_t c, int64_t d) {
    return data[a * view.strides[0] + b * view.strides[1] +
                c * view.strides[2] + d * view.strides[3]];
  }
};

struct Case {
  int64_t n, h, w, c, k;
  std::array<int64_t, 4> padding; // top, bottom, left, right
  int64_t slack;
};

std::string describe(const Case &c) {
  return "N=" + std::to_string(c.n) + " H=" + std::to_string(c.h) +
         " W=" + std::to_string(c.w) + " C=" + std::to_string(c.c) +
         " K=" + std::to_string(c.k) + " pad=" + std::to_string(c.padding[0]) +
         "," + std::to_string(c.padding[1]) + "," +
         std::to_string(c.padding[2]) + "," + std::to_string(c.padding[3]);
}

/// Each element's scale widened to the largest within 4 rows and columns
/// of it (an NHWC `scale` of n x h x w x c): a Winograd tile's rounding
/// spreads over its 4x4 outputs, so an output with small terms (or none,
/// in padding or a cropped border) next to large ones shares their error.
std::vector<double> widened(const std::vector<double> &scale, int64_t n,
                            int64_t h, int64_t w, int64_t c) {
  std::vector<double> out(scale.size());
  auto index = [&](int64_t a, int64_t i, int64_t j, int64_t k) {
    return ((a * h + i) * w + j) * c + k;
  };
  for (int64_t a = 0; a < n; ++a)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j)
        for (int64_t k = 0; k < c; ++k)
          for (int64_t p = std::max<int64_t>(0, i - 4); p < std::min(h, i + 5);
               ++p)
            for (int64_t q = std::max<int64_t>(0, j - 4);
                 q < std::min(w, j + 5); ++q)
              out[index(a, i, j, k)] =
                  std::max(out[index(a, i, j, k)], scale[index(a, p, q, k)]);
  return out;
}

/// A set of kernels under test, and how close they must come: within
/// `tolerance` of the sum of |terms| (plus 1e-6), those of the outputs
/// within 4 rows and columns with `widen` (Winograd's tiles).
struct Kernels {
  /// With a bias when given, then relu when asked.
  void (*forward)(const TensorView &, const TensorView &, const TensorView *,
                  const TensorView &, const Window &, bool);
  /// Null where the kernels leave the input's gradient to oneDNN.
  void (*input)(const TensorView &, const TensorView &, const TensorView &,
                const Window &);
  void (*filter)(const TensorView &, const TensorView &, const TensorView &,
                 const Window &, const TensorView *);
  double tolerance;
  bool widen;
};

/// Expects `got` within `tolerance` of the sum of |terms| (plus 1e-6) of
/// `want`.
void expectClose(const std::vector<double> &want,
                 const std::vector<double> &scale,
                 const std::vector<float> &got, double tolerance,
                 const std::string &what) {
  ASSERT_EQ(want.size(), got.size());
  int failures = 0;
  for (size_t i = 0; i < want.size() && failures < 5; ++i)
    if (!(std::fabs(got[i] - want[i]) <= tolerance * scale[i] + 1e-6)) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", expected " << want[i] << " (terms' scale " << scale[i]
                    << ")";
      ++failures;
    }
}

/// Visits each term of case `cs`'s convolution: out[n, i, j, k] takes
/// x[n, h, v, c] * w[a, b, c, k], h = i + a - top and v = j + b - left,
/// where x is inside, as visit(n, i, j, a, b, h, v, c, k).
template <typename Visit> void forEachTermOf(const Case &cs, Visit visit) {
  int64_t oh = cs.h + cs.padding[0] + cs.padding[1] - 2;
  int64_t ow = cs.w + cs.padding[2] + cs.padding[3] - 2;
  for (int64_t n = 0; n < cs.n; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t a = 0; a < 3; ++a)
          for (int64_t b = 0; b < 3; ++b) {
            int64_t h = i + a - cs.padding[0], v = j + b - cs.padding[2];
            if (h < 0 || h >= cs.h || v < 0 || v >= cs.w)
              continue;
            for (int64_t c = 0; c < cs.c; ++c)
              for (int64_t k = 0; k < cs.k; ++k)
                visit(n, i, j, a, b, h, v, c, k);
          }
}

/// Runs each pass of `kernels` on case `cs` and checks it against its
/// definition.
void checkPasses(const Case &cs, const Kernels &kernels) {
  std::mt19937 rng(17);
  int64_t oh = cs.h + cs.padding[0] + cs.padding[1] - 2;
  int64_t ow = cs.w + cs.padding[2] + cs.padding[3] - 2;
  Buffer x({cs.n, cs.h, cs.w, cs.c}, cs.slack, rng);
  Buffer w({3, 3, cs.c, cs.k}, cs.slack, rng);
  Buffer bias({cs.k}, 0, rng);
  Buffer dy({cs.n, oh, ow, cs.k}, cs.slack, rng);
  Buffer y({cs.n, oh, ow, cs.k}, cs.slack, rng);
  Buffer dx({cs.n, cs.h, cs.w, cs.c}, cs.slack, rng);
  Buffer dw({3, 3, cs.c, cs.k}, cs.slack, rng);
  Buffer dbias({cs.k}, 0, rng);
  Window window{{1, 1}, cs.padding};
  std::string name = describe(cs);

  auto forEachTerm = [&](auto visit) { forEachTermOf(cs, visit); };

  // Forward, without the bias, with it, and with it and relu.
  for (int mode = 0; mode < 3; ++mode) {
    bool withBias = mode >= 1, withRelu = mode == 2;
    std::vector<double> want(cs.n * oh * ow * cs.k), scale(want.size());
    auto index = [&](int64_t n, int64_t i, int64_t j, int64_t k) {
      return ((n * oh + i) * ow + j) * cs.k + k;
    };
    forEachTerm([&](int64_t n, int64_t i, int64_t j, int64_t a, int64_t b,
                    int64_t h, int64_t v, int64_t c, int64_t k) {
      double term = double(x.at(n, h, v, c)) * w.at(a, b, c, k);
      want[index(n, i, j, k)] += term;
      scale[index(n, i, j, k)] += std::fabs(term);
    });
    if (withBias)
      for (size_t i = 0; i < want.size(); ++i) {
        want[i] += bias.data[i % cs.k];
        scale[i] += std::fabs(bias.data[i % cs.k]);
      }
    if (withRelu)
      for (double &v : want)
        v = std::max(v, 0.0);
    kernels.forward(x.view, w.view, withBias ? &bias.view : nullptr, y.view,
                    window, withRelu);
    std::vector<float> got(want.size());
    for (int64_t n = 0; n < cs.n; ++n)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j)
          for (int64_t k = 0; k < cs.k; ++k)
            got[index(n, i, j, k)] = y.at(n, i, j, k);
    std::string what = name + (withRelu   ? " forward with bias and relu"
                               : withBias ? " forward with bias"
                                          : " forward");
    expectClose(want,
                kernels.widen ? widened(scale, cs.n, oh, ow, cs.k) : scale, got,
                kernels.tolerance, what);
    // relu's zeros are +0.0, as max(v, +0.0) gives them.
    if (withRelu)
      for (size_t i = 0; i < got.size(); ++i)
        if (!(got[i] > 0.0f || (got[i] == 0.0f && !std::signbit(got[i])))) {
          ADD_FAILURE() << what << ": element " << i << " is " << got[i];
          break;
        }
  }
  // relu keeps NaN: a NaN bias makes its channel NaN.
  {
    Buffer nanBias({cs.k}, 0, rng);
    nanBias.data[cs.k - 1] = std::nanf("");
    kernels.forward(x.view, w.view, &nanBias.view, y.view, window, true);
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        if (!std::isnan(y.at(cs.n - 1, i, j, cs.k - 1))) {
          ADD_FAILURE() << name << ": relu of a NaN bias at (" << i << ", " << j
                        << ") is " << y.at(cs.n - 1, i, j, cs.k - 1);
          i = oh;
          break;
        }
  }

  // The input's gradient: dx[n, h, v, c] sums dy[n, i, j, k] * w[a, b, c,
  // k] over the terms that read x[n, h, v, c].
  if (kernels.input) {
    std::vector<double> want(cs.n * cs.h * cs.w * cs.c), scale(want.size());
    auto index = [&](int64_t n, int64_t h, int64_t v, int64_t c) {
      return ((n * cs.h + h) * cs.w + v) * cs.c + c;
    };
    forEachTerm([&](int64_t n, int64_t i, int64_t j, int64_t a, int64_t b,
                    int64_t h, int64_t v, int64_t c, int64_t k) {
      double term = double(dy.at(n, i, j, k)) * w.at(a, b, c, k);
      want[index(n, h, v, c)] += term;
      scale[index(n, h, v, c)] += std::fabs(term);
    });
    kernels.input(dy.view, w.view, dx.view, window);
    std::vector<float> got(want.size());
    for (int64_t n = 0; n < cs.n; ++n)
      for (int64_t h = 0; h < cs.h; ++h)
        for (int64_t v = 0; v < cs.w; ++v)
          for (int64_t c = 0; c < cs.c; ++c)
            got[index(n, h, v, c)] = dx.at(n, h, v, c);
    expectClose(want,
                kernels.widen ? widened(scale, cs.n, cs.h, cs.w, cs.c) : scale,
                got, kernels.tolerance, name + " input's gradient");
  }

  // The filter's gradient and the bias's.
  {
    std::vector<double> want(9 * cs.c * cs.k), scale(want.size());
    std::vector<double> wantBias(cs.k), scaleBias(cs.k);
    auto index = [&](int64_t a, int64_t b, int64_t c, int64_t k) {
      return ((a * 3 + b) * cs.c + c) * cs.k + k;
    };
    forEachTerm([&](int64_t n, int64_t i, int64_t j, int64_t a, int64_t b,
                    int64_t h, int64_t v, int64_t c, int64_t k) {
      double term = double(x.at(n, h, v, c)) * dy.at(n, i, j, k);
      want[index(a, b, c, k)] += term;
      scale[index(a, b, c, k)] += std::fabs(term);
    });
    for (int64_t n = 0; n < cs.n; ++n)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j)
          for (int64_t k = 0; k < cs.k; ++k) {
            wantBias[k] += dy.at(n, i, j, k);
            scaleBias[k] += std::fabs(dy.at(n, i, j, k));
          }
    kernels.filter(x.view, dy.view, dw.view, window, &dbias.view);
    std::vector<float> got(want.size());
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = 0; b < 3; ++b)
        for (int64_t c = 0; c < cs.c; ++c)
          for (int64_t k = 0; k < cs.k; ++k)
            got[index(a, b, c, k)] = dw.at(a, b, c, k);
    expectClose(want, scale, got, kernels.tolerance,
                name + " filter's gradient");
    expectClose(wantBias, scaleBias, dbias.data, kernels.tolerance,
                name + " bias's gradient");
  }
}

/// A test's name for a case ("N_2_H_9_..._pad_1_1_1_1").
std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string name;
  for (char ch : describe(info.param))
    name += ch == '-'                                      ? 'm'
            : std::isalnum(static_cast<unsigned char>(ch)) ? ch
                                                           : '_';
  return name;
}

class WinogradTest : public ::testing::TestWithParam<Case> {};

// Winograd's rounding follows a tile's largest terms (a few parts in a
// million measured; 2e-5 leaves room).
TEST_P(WinogradTest, EveryPassMatchesItsDefinition) {
  forEachIsa([] {
    checkPasses(GetParam(), {winograd::forward, winograd::backwardInput,
                             winograd::backwardFilter, 2e-5, true});
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, WinogradTest,
    ::testing::Values(
        // The seed CNN's second layer, one image: whole tiles, one vector.
        Case{1, 26, 26, 16, 16, {0, 0, 0, 0}, 0},
        // One vector of input channels (the kernels' compiled-in case) at
        // the edges of "same" padding, in a strided view, and with a partial
        // vector of output channels.
        Case{2, 9, 7, 16, 16, {1, 1, 1, 1}, 3},
        Case{1, 7, 10, 16, 11, {1, 1, 1, 1}, 0},
        // "same" padding, sizes off the tiles, channels off the vectors.
        Case{2, 9, 7, 5, 18, {1, 1, 1, 1}, 0},
        Case{3, 6, 11, 4, 4, {0, 0, 0, 0}, 2},
        // Two vectors of input channels and a partial one; more output
        // channels than rows of a product step.
        Case{1, 10, 6, 37, 33, {1, 1, 1, 1}, 1},
        // Asymmetric padding, and padding past the filter's reach (rows of
        // zeros in the result).
        Case{2, 5, 8, 6, 7, {2, 0, 0, 2}, 0},
        Case{1, 4, 4, 8, 9, {3, 3, 1, 2}, 0},
        // Negative padding crops the input.
        Case{1, 9, 9, 8, 8, {-1, 0, 0, -2}, 3},
        // The most channel pairs the kernels take, 64 x 64.
        Case{1, 10, 9, 64, 64, {1, 1, 1, 1}, 0}),
    caseName);

class FewChannelsTest : public ::testing::TestWithParam<Case> {};

// Direct sums of at most 36 terms per output (per thread's share of the
// filter's).
TEST_P(FewChannelsTest, ForwardAndFilterMatchTheirDefinitions) {
  forEachIsa([] {
    checkPasses(GetParam(), {fewchannels::forward, nullptr,
                             fewchannels::backwardFilter, 2e-6, false});
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FewChannelsTest,
    ::testing::Values(
        // The seed CNN's first layer, one image; whole steps of 8 pixels.
        Case{1, 28, 28, 1, 16, {0, 0, 0, 0}, 0},
        // "same" padding, RGB, output channels off the vectors.
        Case{2, 9, 13, 3, 17, {1, 1, 1, 1}, 0},
        Case{1, 7, 6, 2, 40, {0, 0, 0, 0}, 2},
        Case{3, 5, 11, 4, 16, {2, 0, 0, 2}, 1},
        // Padding past the filter's reach, and negative padding.
        Case{1, 4, 4, 1, 20, {3, 3, 1, 2}, 0},
        Case{1, 9, 12, 3, 16, {-1, 0, 0, -2}, 3}),
    caseName);

// Where neither TFL kernel applies (8 channels), conv2dBiasRelu is
// oneDNN's convolution with its bias, then relu as compiled code computes
// it: max(v, +0.0) with NaN kept, where oneDNN's own relu would make it 0.
TEST(ConvTest, BiasReluOnOneDnnKeepsNaN) {
  // A dense result, and one in a strided view (slack between its rows).
  for (int64_t slack : {0, 2}) {
    std::mt19937 rng(3);
    Buffer x({2, 7, 6, 8}, 0, rng), w({3, 3, 8, 8}, 0, rng), bias({8}, 0, rng);
    Buffer plain({2, 5, 4, 8}, slack, rng), fused({2, 5, 4, 8}, slack, rng);
    bias.data[2] = std::nanf("");
    Window window{{1, 1}, {0, 0, 0, 0}};
    ASSERT_FALSE(winograd::applies(x.view, w.view, plain.view, window,
                                   winograd::Pass::Forward));
    ASSERT_FALSE(
        fewchannels::applies(x.view, w.view, plain.view, window, true));
    conv2dBias(x.view, w.view, bias.view, plain.view, window);
    conv2dBiasRelu(x.view, w.view, bias.view, fused.view, window);
    int negatives = 0;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t h = 0; h < 5; ++h)
        for (int64_t v = 0; v < 4; ++v)
          for (int64_t k = 0; k < 8; ++k) {
            float want = plain.at(n, h, v, k), got = fused.at(n, h, v, k);
            if (std::isnan(want)) {
              EXPECT_TRUE(std::isnan(got)) << n << h << v << k;
            } else if (want > 0.0f) {
              EXPECT_EQ(got, want) << n << h << v << k;
            } else {
              ++negatives;
              EXPECT_TRUE(got == 0.0f && !std::signbit(got))
                  << got << " for " << want << " at " << n << h << v << k;
            }
          }
    EXPECT_GT(negatives, 0);
  }
}

TEST(WinogradTest, TakesStrideOne3x3ConvolutionsOfMeasuredChannelCounts) {
  std::mt19937 rng(5);
  using winograd::Pass;
  auto applies = [&](Shape x, Shape w, Shape y, Window window) {
    Buffer bx(x, 0, rng), bw(w, 0, rng), by(y, 0, rng);
    bool all = true;
    for (Pass pass : {Pass::Forward, Pass::Input, Pass::Filter})
      all &= winograd::applies(bx.view, bw.view, by.view, window, pass);
    return all;
  };
  Window unit{{1, 1}, {0, 0, 0, 0}};
  // The seed CNN's second layer, and the channel bounds.
  EXPECT_TRUE(applies({1, 12, 12, 16}, {3, 3, 16, 16}, {1, 10, 10, 16}, unit));
  EXPECT_TRUE(
      applies({1, 12, 12, 16}, {3, 3, 16, 128}, {1, 10, 10, 128}, unit));
  EXPECT_TRUE(applies({1, 12, 12, 64}, {3, 3, 64, 64}, {1, 10, 10, 64}, unit));
  EXPECT_FALSE(applies({1, 12, 12, 64}, {3, 3, 64, 65}, {1, 10, 10, 65}, unit));
  EXPECT_FALSE(applies({1, 12, 12, 96}, {3, 3, 96, 96}, {1, 10, 10, 96}, unit));
  EXPECT_FALSE(applies({1, 12, 12, 8}, {3, 3, 8, 16}, {1, 10, 10, 16}, unit));
  EXPECT_FALSE(applies({1, 12, 12, 16}, {3, 3, 16, 15}, {1, 10, 10, 15}, unit));
  // The seed CNN's first layer (one input channel) is the few-channel
  // kernels'.
  EXPECT_FALSE(applies({1, 12, 12, 1}, {3, 3, 1, 16}, {1, 10, 10, 16}, unit));
  // Strides and other filter sizes.
  EXPECT_FALSE(
      applies({1, 12, 12, 16}, {3, 3, 16, 16}, {1, 5, 10, 16}, {{2, 1}, {}}));
  EXPECT_FALSE(applies({1, 12, 12, 16}, {5, 3, 16, 16}, {1, 8, 10, 16}, unit));
  // Channels that are not contiguous, and f64.
  Buffer x({1, 12, 12, 32}, 0, rng), w({3, 3, 16, 16}, 0, rng);
  Buffer y({1, 10, 10, 16}, 0, rng);
  TensorView strided = x.view;
  strided.shape[3] = 16;
  strided.strides[3] = 2;
  EXPECT_FALSE(winograd::applies(strided, w.view, y.view, unit, Pass::Forward));
  TensorView f64 = y.view;
  f64.dtype = DType::F64;
  EXPECT_FALSE(winograd::applies(x.view, w.view, f64, unit, Pass::Forward));
}

// Small images: each pass takes the kernels while its tiles make at most
// 4 multiply-adds for every 10 of a direct convolution's (taps inside the
// input). 36 per tile: a 6x6 result's 4 tiles make 144, its 36 outputs'
// 9 taps 324 (4.4 in 10); a 4x4 result's one tile 36, its 16 outputs 144;
// the input's gradient of a 6x6 input, 4 tiles, for the 144 taps of a 4x4
// result (10 in 10); "same" padding's 8x8 result, 4 tiles, for 22 x 22
// taps inside.
TEST(WinogradTest, TakesThePassesWhoseTilesSaveWork) {
  std::mt19937 rng(5);
  using winograd::Pass;
  auto passes = [&](Shape x, Shape y, Window window) {
    Buffer bx(x, 0, rng), bw({3, 3, x[3], y[3]}, 0, rng), by(y, 0, rng);
    std::string taken;
    for (Pass pass : {Pass::Forward, Pass::Input, Pass::Filter})
      taken += winograd::applies(bx.view, bw.view, by.view, window, pass) ? "1"
                                                                          : "0";
    return taken;
  };
  Window unit{{1, 1}, {0, 0, 0, 0}}, same{{1, 1}, {1, 1, 1, 1}};
  EXPECT_EQ(passes({64, 8, 8, 16}, {64, 6, 6, 16}, unit), "000");
  EXPECT_EQ(passes({64, 6, 6, 32}, {64, 4, 4, 32}, unit), "101");
  EXPECT_EQ(passes({64, 4, 4, 32}, {64, 2, 2, 32}, unit), "000");
  EXPECT_EQ(passes({64, 8, 8, 32}, {64, 8, 8, 32}, same), "111");
  EXPECT_EQ(passes({32, 26, 26, 16}, {32, 24, 24, 16}, unit), "111");
  // The input's gradient of a 10x10 input: 9 tiles, 4 of them mostly past
  // the edges (5.6 in 10); the forward's 8x8 result, 4 tiles (2.5 in 10).
  EXPECT_EQ(passes({64, 10, 10, 16}, {64, 8, 8, 16}, unit), "101");
}

/// Expects `got` to be `want` where that is not finite (NaN for NaN, the
/// same infinity), and within 1e-4 of it (relative, above 1) elsewhere.
void expectDirect(const std::vector<double> &want,
                  const std::vector<float> &got, const std::string &what) {
  ASSERT_EQ(want.size(), got.size());
  int failures = 0, nonFinite = 0;
  for (size_t i = 0; i < want.size() && failures < 5; ++i) {
    bool ok = std::isnan(want[i]) ? std::isnan(got[i])
              : std::isinf(want[i])
                  ? got[i] == want[i]
                  : std::fabs(got[i] - want[i]) <=
                        1e-4 * std::max(1.0, std::fabs(want[i]));
    nonFinite += !std::isfinite(want[i]);
    if (!ok) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", expected " << want[i];
      ++failures;
    }
  }
  EXPECT_GT(nonFinite, 0) << what;
}

// An infinity or NaN in a tile's input spreads over all of its transformed
// points; the forward pass and the input's gradient compute such tiles
// directly, so that each output is what a direct convolution gives: NaN or
// an infinity where its window holds one, its finite value elsewhere (the
// compiled-in case of 16 and 16 channels and the general one, edges of
// "same" padding, a relu after the bias).
TEST(WinogradTest, NonFiniteInputsGiveDirectConvolutionsResults) {
  for (std::pair<int64_t, int64_t> channels :
       {std::pair<int64_t, int64_t>{16, 16}, {20, 17}})
    for (int64_t pad : {0, 1}) {
      const int64_t c = channels.first, k = channels.second;
      std::mt19937 rng(11);
      const int64_t h = 14, w = 13, o = h + 2 * pad - 2, ow = w + 2 * pad - 2;
      Buffer x({1, h, w, c}, 0, rng), f({3, 3, c, k}, 0, rng),
          bias({k}, 0, rng), y({1, o, ow, k}, 0, rng),
          dy({1, o, ow, k}, 0, rng), dx({1, h, w, c}, 0, rng);
      x.at(0, 5, 6, 3) = INFINITY;
      x.at(0, 9, 0, c - 1) = -INFINITY;
      x.at(0, 1, 11, 7) = NAN;
      dy.at(0, 4, 4, 2) = INFINITY;
      dy.at(0, o - 1, 1, k - 1) = NAN;
      Window window{{1, 1}, {pad, pad, pad, pad}};
      std::string name = "C=" + std::to_string(c) + " K=" + std::to_string(k) +
                         " pad=" + std::to_string(pad);
      // y = relu(conv + bias), and dx from dy, in double.
      std::vector<double> wantY(o * ow * k), wantDx(h * w * c);
      forEachTermOf(Case{1, h, w, c, k, {pad, pad, pad, pad}, 0},
                    [&](int64_t, int64_t i, int64_t j, int64_t a, int64_t b,
                        int64_t r, int64_t s, int64_t ci, int64_t ki) {
                      wantY[(i * ow + j) * k + ki] +=
                          double(x.at(0, r, s, ci)) * f.at(a, b, ci, ki);
                      wantDx[(r * w + s) * c + ci] +=
                          double(dy.at(0, i, j, ki)) * f.at(a, b, ci, ki);
                    });
      for (size_t i = 0; i < wantY.size(); ++i) {
        double v = wantY[i] + bias.data[i % k];
        wantY[i] = std::isnan(v) ? v : std::max(v, 0.0);
      }
      forEachIsa([&] {
        winograd::forward(x.view, f.view, &bias.view, y.view, window, true);
        winograd::backwardInput(dy.view, f.view, dx.view, window);
        expectDirect(wantY, y.data, name + " forward");
        expectDirect(wantDx, dx.data, name + " input's gradient");
      });
    }
}

TEST(FewChannelsTest, TakesStrideOne3x3ConvolutionsOfOneToFourChannels) {
  std::mt19937 rng(5);
  auto applies = [&](Shape x, Shape w, Shape y, Window window, bool forward) {
    Buffer bx(x, 0, rng), bw(w, 0, rng), by(y, 0, rng);
    return fewchannels::applies(bx.view, bw.view, by.view, window, forward);
  };
  Window unit{{1, 1}, {0, 0, 0, 0}};
  for (bool forward : {true, false}) {
    EXPECT_TRUE(
        applies({1, 8, 8, 1}, {3, 3, 1, 16}, {1, 6, 6, 16}, unit, forward));
    EXPECT_TRUE(
        applies({1, 8, 8, 4}, {3, 3, 4, 32}, {1, 6, 6, 32}, unit, forward));
    EXPECT_FALSE(
        applies({1, 8, 8, 5}, {3, 3, 5, 16}, {1, 6, 6, 16}, unit, forward));
    EXPECT_FALSE(
        applies({1, 8, 8, 3}, {3, 3, 3, 8}, {1, 6, 6, 8}, unit, forward));
    EXPECT_FALSE(applies({1, 8, 8, 3}, {3, 3, 3, 16}, {1, 3, 6, 16},
                         {{2, 1}, {}}, forward));
    EXPECT_FALSE(
        applies({1, 8, 8, 3}, {5, 5, 3, 16}, {1, 4, 4, 16}, unit, forward));
  }
  // More than 32 output channels: oneDNN's forward pass is faster, the
  // filter's gradient is not.
  EXPECT_FALSE(applies({1, 8, 8, 3}, {3, 3, 3, 64}, {1, 6, 6, 64}, unit, true));
  EXPECT_TRUE(applies({1, 8, 8, 3}, {3, 3, 3, 64}, {1, 6, 6, 64}, unit, false));
}

} // namespace
