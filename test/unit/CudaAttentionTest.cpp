//===- CudaAttentionTest.cpp - The GPU's fused attention, run on the host -===//
//
// libtflrt_cuda's attention kernels (runtime/cuda/lib/AttentionKernels.cuh,
// the source nvcc compiles) run on the host's threads (CudaEmulation.h) and
// are checked against attention and its adjoint computed here in f64 from
// their definitions: causal and not, more or fewer keys than queries,
// partial tiles, heads of kMaxHead features and of sizes that are not
// whole float4s (the tiles' zero padding), operands in the seq_major
// layout (strided views), and a second run that repeats every bit.
//
//===----------------------------------------------------------------------===//

#include "CudaEmulation.h"

#include "AttentionKernels16.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using tflrt::cuda::View;
namespace att = tflrt::cuda::attention;

/// A tensor of [batch, heads, rows, cols], stored as it is or, with
/// `seqMajor`, as [batch, rows, heads, cols] and viewed heads-first.
struct Tensor {
  std::vector<float> data;
  int64_t batch, heads, rows, cols;
  bool seqMajor;

  Tensor(int64_t b, int64_t h, int64_t r, int64_t c, bool seq, float fill)
      : data(static_cast<size_t>(b * h * r * c), fill), batch(b), heads(h),
        rows(r), cols(c), seqMajor(seq) {}

  size_t index(int64_t b, int64_t h, int64_t r, int64_t c) const {
    int64_t i = seqMajor ? ((b * rows + r) * heads + h) * cols + c
                         : ((b * heads + h) * rows + r) * cols + c;
    return static_cast<size_t>(i);
  }
  float at(int64_t b, int64_t h, int64_t r, int64_t c) const {
    return data[index(b, h, r, c)];
  }

  View view() {
    View v{};
    v.data = reinterpret_cast<char *>(data.data());
    v.rank = 4;
    int64_t sizes[4] = {batch, heads, rows, cols};
    int64_t strides[4] = {heads * rows * cols, rows * cols, cols, 1};
    if (seqMajor) {
      strides[1] = cols;
      strides[2] = heads * cols;
    }
    for (int i = 0; i < 4; ++i) {
      v.sizes[i] = sizes[i];
      v.strides[i] = strides[i];
    }
    return v;
  }
};

struct Case {
  int64_t batch, heads, t, s, e, f;
  bool causal, seqMajor;
};

Tensor random(const Case &c, int64_t rows, int64_t cols, std::mt19937 &gen) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Tensor x(c.batch, c.heads, rows, cols, c.seqMajor, 0.0f);
  for (float &value : x.data)
    value = normal(gen);
  return x;
}

/// The reference: out, and dq, dk, dv for the cotangent dy, in f64.
struct Reference {
  std::vector<double> out, dq, dk, dv;
};

Reference reference(const Case &c, const Tensor &q, const Tensor &k,
                    const Tensor &v, const Tensor &dy, double scale) {
  Reference ref;
  auto at = [](std::vector<double> &x, int64_t problem, int64_t rows,
               int64_t cols, int64_t r, int64_t col) -> double & {
    return x[static_cast<size_t>((problem * rows + r) * cols + col)];
  };
  int64_t problems = c.batch * c.heads;
  ref.out.assign(static_cast<size_t>(problems * c.t * c.f), 0.0);
  ref.dq.assign(static_cast<size_t>(problems * c.t * c.e), 0.0);
  ref.dk.assign(static_cast<size_t>(problems * c.s * c.e), 0.0);
  ref.dv.assign(static_cast<size_t>(problems * c.s * c.f), 0.0);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h) {
      int64_t n = b * c.heads + h;
      for (int64_t i = 0; i < c.t; ++i) {
        std::vector<double> p(static_cast<size_t>(c.s), 0.0);
        double most = -INFINITY, sum = 0.0;
        int64_t seen = c.causal ? std::min(c.s, i + 1) : c.s;
        for (int64_t j = 0; j < seen; ++j) {
          double score = 0.0;
          for (int64_t x = 0; x < c.e; ++x)
            score += double(q.at(b, h, i, x)) * k.at(b, h, j, x);
          p[j] = score * scale;
          most = std::max(most, p[j]);
        }
        for (int64_t j = 0; j < seen; ++j)
          sum += p[j] = std::exp(p[j] - most);
        for (int64_t j = 0; j < seen; ++j)
          p[j] /= sum;
        for (int64_t x = 0; x < c.f; ++x)
          for (int64_t j = 0; j < seen; ++j)
            at(ref.out, n, c.t, c.f, i, x) += p[j] * v.at(b, h, j, x);
        // ds = p (dy v^T - rowsum(dy * out)).
        double d = 0.0;
        for (int64_t x = 0; x < c.f; ++x)
          d += dy.at(b, h, i, x) * at(ref.out, n, c.t, c.f, i, x);
        for (int64_t j = 0; j < seen; ++j) {
          double dp = 0.0;
          for (int64_t x = 0; x < c.f; ++x)
            dp += double(dy.at(b, h, i, x)) * v.at(b, h, j, x);
          double ds = p[j] * (dp - d);
          for (int64_t x = 0; x < c.f; ++x)
            at(ref.dv, n, c.s, c.f, j, x) += p[j] * dy.at(b, h, i, x);
          for (int64_t x = 0; x < c.e; ++x) {
            at(ref.dq, n, c.t, c.e, i, x) += scale * ds * k.at(b, h, j, x);
            at(ref.dk, n, c.s, c.e, j, x) += scale * ds * q.at(b, h, i, x);
          }
        }
      }
    }
  return ref;
}

/// Every element of `got` (a [batch, heads, rows, cols] tensor) against the
/// reference's (problem, row, col) order: within atol + rtol |want|, atol
/// `tol` times the largest |want| when `relativeToLargest`.
void expectNear(const Tensor &got, const std::vector<double> &want,
                const char *what, double tol = 2e-5,
                bool relativeToLargest = false) {
  double largest = 0.0;
  for (double w : want)
    largest = std::max(largest, std::fabs(w));
  double atol = relativeToLargest ? tol * largest : tol;
  double rtol = relativeToLargest ? 0.0 : tol;
  int64_t bad = 0;
  for (int64_t b = 0; b < got.batch; ++b)
    for (int64_t h = 0; h < got.heads; ++h)
      for (int64_t r = 0; r < got.rows; ++r)
        for (int64_t c = 0; c < got.cols; ++c) {
          double w = want[static_cast<size_t>(
              ((b * got.heads + h) * got.rows + r) * got.cols + c)];
          double g = got.at(b, h, r, c);
          if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)) && bad++ < 5)
            ADD_FAILURE() << what << "[" << b << ", " << h << ", " << r << ", "
                          << c << "] = " << g << ", want " << w;
        }
  EXPECT_EQ(bad, 0) << what << ": elements off";
}

/// Launches a kernel on the host's threads, its shared memory at most
/// `most` bytes.
auto launcher(size_t most) {
  return [most](auto kernel, int64_t gridX, int64_t gridY, size_t shared,
                auto... args) {
    EXPECT_LE(shared, most);
    tflrt::cuda::emulation::launch(kernel, gridX, gridY, att::kBlockThreads,
                                   shared, args...);
  };
}

struct Results {
  Tensor out, dq, dk, dv;
};

Results run(const Case &c, Tensor &q, Tensor &k, Tensor &v, Tensor &dy,
            double scale) {
  const float nan = std::nanf("");
  Results r{Tensor(c.batch, c.heads, c.t, c.f, c.seqMajor, nan),
            Tensor(c.batch, c.heads, c.t, c.e, c.seqMajor, nan),
            Tensor(c.batch, c.heads, c.s, c.e, c.seqMajor, nan),
            Tensor(c.batch, c.heads, c.s, c.f, c.seqMajor, nan)};
  View vq = q.view(), vk = k.view(), vv = v.view(), out = r.out.view();
  att::Problem p = att::problemOf(vq, vk, vv, c.causal, scale);
  att::runForward<float>(launcher(att::mostShared()), vq, vk, vv, out, p);
  std::vector<float> stats(static_cast<size_t>(att::backwardScratch(vq, p)),
                           nan);
  att::runBackward<float>(launcher(att::mostShared()), vq, vk, vv, out,
                          dy.view(), r.dq.view(), r.dk.view(), r.dv.view(), p,
                          stats.data());
  return r;
}

void check(const Case &c) {
  std::mt19937 gen(static_cast<unsigned>(c.t * 131 + c.s * 7 + c.e));
  Tensor q = random(c, c.t, c.e, gen), k = random(c, c.s, c.e, gen),
         v = random(c, c.s, c.f, gen), dy = random(c, c.t, c.f, gen);
  double scale = 1.0 / std::sqrt(static_cast<double>(c.e));
  Reference want = reference(c, q, k, v, dy, scale);
  Results got = run(c, q, k, v, dy, scale);
  expectNear(got.out, want.out, "out");
  expectNear(got.dq, want.dq, "dq");
  expectNear(got.dk, want.dk, "dk");
  expectNear(got.dv, want.dv, "dv");
  // No atomics: a second run gives the same bits.
  Results again = run(c, q, k, v, dy, scale);
  EXPECT_EQ(again.out.data, got.out.data);
  EXPECT_EQ(again.dq.data, got.dq.data);
  EXPECT_EQ(again.dk.data, got.dk.data);
  EXPECT_EQ(again.dv.data, got.dv.data);
}

TEST(CudaAttention, CausalWithPartialTiles) {
  check({1, 2, 70, 70, 24, 20, true, false});
}

TEST(CudaAttention, NotCausal) { check({2, 1, 45, 45, 16, 16, false, false}); }

TEST(CudaAttention, MoreKeysThanQueries) {
  check({1, 2, 40, 70, 8, 12, true, false});
}

TEST(CudaAttention, FewerKeysThanQueries) {
  check({1, 2, 70, 33, 8, 12, true, false});
}

TEST(CudaAttention, SeqMajorOperandsInPlace) {
  check({2, 3, 37, 37, 32, 32, true, true});
}

TEST(CudaAttention, WidestHeads) {
  check({1, 1, 33, 35, att::kMaxHead, att::kMaxHead, false, false});
}

TEST(CudaAttention, HeadsNotWholeFloat4s) {
  check({1, 2, 40, 37, 5, 7, true, false});
}

TEST(CudaAttention, OneQueryOneKey) { check({1, 1, 1, 1, 3, 5, true, false}); }

// ---- bf16 and f16 on the warp matrix functions -----------------------------

/// A tensor's elements as T, stored as `x` stores its floats (rounded).
template <typename T> std::vector<T> narrowed(const Tensor &x) {
  std::vector<T> out(x.data.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = att::narrow16<T>(x.data[i]);
  return out;
}

/// `x` with its floats replaced by the values of `elems` (widened).
template <typename T> Tensor widened(Tensor x, const std::vector<T> &elems) {
  for (size_t i = 0; i < elems.size(); ++i)
    x.data[i] = att::widen16(elems[i]);
  return x;
}

template <typename T> View viewOf(Tensor &shape, std::vector<T> &elems) {
  View v = shape.view();
  v.data = reinterpret_cast<char *>(elems.data());
  return v;
}

/// The 16-bit kernels on inputs rounded to T, against the f64 reference
/// of the rounded inputs, within `tol` of each result's largest element;
/// a second run gives the same bits.
template <typename T> void check16(const Case &c, double tol) {
  std::mt19937 gen(static_cast<unsigned>(c.t * 17 + c.s * 5 + c.e));
  Tensor q = random(c, c.t, c.e, gen), k = random(c, c.s, c.e, gen),
         v = random(c, c.s, c.f, gen), dy = random(c, c.t, c.f, gen);
  std::vector<T> q16 = narrowed<T>(q), k16 = narrowed<T>(k),
                 v16 = narrowed<T>(v), dy16 = narrowed<T>(dy);
  q = widened(q, q16), k = widened(k, k16), v = widened(v, v16);
  dy = widened(dy, dy16);
  double scale = 1.0 / std::sqrt(static_cast<double>(c.e));
  Reference want = reference(c, q, k, v, dy, scale);
  auto run16 = [&] {
    Results r{Tensor(c.batch, c.heads, c.t, c.f, c.seqMajor, 0.0f),
              Tensor(c.batch, c.heads, c.t, c.e, c.seqMajor, 0.0f),
              Tensor(c.batch, c.heads, c.s, c.e, c.seqMajor, 0.0f),
              Tensor(c.batch, c.heads, c.s, c.f, c.seqMajor, 0.0f)};
    const T nan = att::narrow16<T>(std::nanf(""));
    std::vector<T> out(r.out.data.size(), nan), dq(r.dq.data.size(), nan),
        dk(r.dk.data.size(), nan), dv(r.dv.data.size(), nan);
    View vq = viewOf(q, q16), vk = viewOf(k, k16), vv = viewOf(v, v16),
         vout = viewOf(r.out, out);
    att::Problem p = att::problemOf(vq, vk, vv, c.causal, scale);
    att::runForward<T>(launcher(att::mostShared16()), vq, vk, vv, vout, p);
    std::vector<float> stats(static_cast<size_t>(att::backwardScratch(vq, p)),
                             std::nanf(""));
    att::runBackward<T>(launcher(att::mostShared16()), vq, vk, vv, vout,
                        viewOf(dy, dy16), viewOf(r.dq, dq), viewOf(r.dk, dk),
                        viewOf(r.dv, dv), p, stats.data());
    return Results{widened(r.out, out), widened(r.dq, dq), widened(r.dk, dk),
                   widened(r.dv, dv)};
  };
  Results got = run16();
  expectNear(got.out, want.out, "out", tol, true);
  expectNear(got.dq, want.dq, "dq", tol, true);
  expectNear(got.dk, want.dk, "dk", tol, true);
  expectNear(got.dv, want.dv, "dv", tol, true);
  Results again = run16();
  EXPECT_EQ(again.out.data, got.out.data);
  EXPECT_EQ(again.dq.data, got.dq.data);
  EXPECT_EQ(again.dk.data, got.dk.data);
  EXPECT_EQ(again.dv.data, got.dv.data);
}

TEST(CudaAttention16, Bf16CausalWithPartialTiles) {
  check16<__nv_bfloat16>({1, 2, 100, 100, 32, 16, true, false}, 2e-2);
}

TEST(CudaAttention16, F16MoreKeysThanQueries) {
  check16<__half>({1, 1, 40, 90, 16, 32, true, false}, 4e-3);
}

TEST(CudaAttention16, F16FewerKeysNotCausal) {
  check16<__half>({2, 1, 70, 30, 16, 16, false, false}, 4e-3);
}

TEST(CudaAttention16, Bf16SeqMajorWidestHeads) {
  check16<__nv_bfloat16>({1, 2, 20, 20, 128, 128, true, true}, 2e-2);
}

} // namespace
