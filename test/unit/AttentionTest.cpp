//===- AttentionTest.cpp - The fused attention kernels --------------------===//
//
// tflrt::attention and attentionBackward on each ISA build against the
// definition computed in doubles: the scores, their softmax, the product,
// and the adjoint by the chain rule written out, for causal and full masks,
// odd sizes (tails of every vector width), more queries than keys and
// fewer, rank 4, and operands read through strides (a transposed view).
//
//===----------------------------------------------------------------------===//

#include "IsaVariants.h"

#include "tflrt/Attention.h"
#include "tflrt/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace tflrt;

namespace {

struct Case {
  Shape lead;
  int64_t t, s, e, f;
  bool causal;
};

/// A problem's operands as doubles, [batch][rows][cols].
using Batch = std::vector<std::vector<std::vector<double>>>;

Tensor random(Shape shape, std::mt19937 &gen) {
  Tensor t(DType::F32, shape);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  float *p = t.data<float>();
  for (int64_t i = 0; i < t.numElements(); ++i)
    p[i] = normal(gen);
  return t;
}

Batch asBatch(const TensorView &v) {
  int64_t r = v.rank(), rows = v.shape[r - 2], cols = v.shape[r - 1];
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < r; ++d)
    batch *= v.shape[d];
  Batch out(batch,
            std::vector<std::vector<double>>(rows, std::vector<double>(cols)));
  std::vector<int64_t> index(r, 0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t rest = b;
    for (int64_t d = r - 3; d >= 0; --d) {
      index[d] = rest % v.shape[d];
      rest /= v.shape[d];
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        index[r - 2] = i;
        index[r - 1] = j;
        out[b][i][j] = v.getAsDouble(index.data());
      }
  }
  return out;
}

/// The softmax of one problem's scaled, masked scores, [t][s].
std::vector<std::vector<double>>
probabilities(const Case &c, double scale,
              const std::vector<std::vector<double>> &q,
              const std::vector<std::vector<double>> &k) {
  std::vector<std::vector<double>> p(c.t, std::vector<double>(c.s, 0.0));
  for (int64_t i = 0; i < c.t; ++i) {
    int64_t seen = c.causal ? std::min(i + 1, c.s) : c.s;
    double top = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < seen; ++j) {
      double d = 0.0;
      for (int64_t e = 0; e < c.e; ++e)
        d += q[i][e] * k[j][e];
      p[i][j] = scale * d;
      top = std::max(top, p[i][j]);
    }
    for (int64_t j = 0; j < seen; ++j)
      sum += p[i][j] = std::exp(p[i][j] - top);
    for (int64_t j = 0; j < seen; ++j)
      p[i][j] /= sum;
  }
  return p;
}

void expectNear(const Tensor &got, const Batch &want, const char *what) {
  Batch g = asBatch(got.view());
  for (size_t b = 0; b < want.size(); ++b)
    for (size_t i = 0; i < want[b].size(); ++i)
      for (size_t j = 0; j < want[b][i].size(); ++j)
        ASSERT_NEAR(g[b][i][j], want[b][i][j],
                    2e-5 + 2e-5 * std::fabs(want[b][i][j]))
            << what << " at " << b << ", " << i << ", " << j;
}

Shape withLast(Shape lead, int64_t rows, int64_t cols) {
  lead.push_back(rows);
  lead.push_back(cols);
  return lead;
}

void check(const Case &c, bool transposedK) {
  std::mt19937 gen(7);
  double scale = 1.0 / std::sqrt(static_cast<double>(c.e));
  Tensor q = random(withLast(c.lead, c.t, c.e), gen);
  // k read through strides: the transpose of a [.., E, S] tensor.
  Tensor kStore = random(
      withLast(c.lead, transposedK ? c.e : c.s, transposedK ? c.s : c.e), gen);
  TensorView kView = kStore.view();
  if (transposedK) {
    int64_t r = kView.rank();
    std::swap(kView.shape[r - 2], kView.shape[r - 1]);
    std::swap(kView.strides[r - 2], kView.strides[r - 1]);
  }
  Tensor v = random(withLast(c.lead, c.s, c.f), gen);
  Tensor dy = random(withLast(c.lead, c.t, c.f), gen);
  Tensor out(DType::F32, withLast(c.lead, c.t, c.f));
  Tensor dq(DType::F32, q.shape()), dk(DType::F32, withLast(c.lead, c.s, c.e));
  Tensor dv(DType::F32, v.shape());
  AttentionShape shape{c.causal, scale};
  attention(q.view(), kView, v.view(), out.view(), shape);
  attentionBackward(q.view(), kView, v.view(), out.view(), dy.view(), dq.view(),
                    dk.view(), dv.view(), shape);

  Batch bq = asBatch(q.view()), bk = asBatch(kView), bv = asBatch(v.view());
  Batch bdy = asBatch(dy.view());
  Batch wantOut = bdy, wantDq = bq, wantDk = bk, wantDv = bv;
  for (size_t b = 0; b < bq.size(); ++b) {
    auto p = probabilities(c, scale, bq[b], bk[b]);
    for (int64_t i = 0; i < c.t; ++i)
      for (int64_t f = 0; f < c.f; ++f) {
        double sum = 0.0;
        for (int64_t j = 0; j < c.s; ++j)
          sum += p[i][j] * bv[b][j][f];
        wantOut[b][i][f] = sum;
      }
    // dp = dy v^T; ds = p (dp - rowsum(dp p)); dq = scale ds k,
    // dk = scale ds^T q, dv = p^T dy.
    std::vector<std::vector<double>> ds(c.t, std::vector<double>(c.s));
    for (int64_t i = 0; i < c.t; ++i) {
      double row = 0.0;
      for (int64_t j = 0; j < c.s; ++j) {
        double dp = 0.0;
        for (int64_t f = 0; f < c.f; ++f)
          dp += bdy[b][i][f] * bv[b][j][f];
        ds[i][j] = dp;
        row += dp * p[i][j];
      }
      for (int64_t j = 0; j < c.s; ++j)
        ds[i][j] = p[i][j] * (ds[i][j] - row);
    }
    for (int64_t i = 0; i < c.t; ++i)
      for (int64_t e = 0; e < c.e; ++e) {
        double sum = 0.0;
        for (int64_t j = 0; j < c.s; ++j)
          sum += ds[i][j] * bk[b][j][e];
        wantDq[b][i][e] = scale * sum;
      }
    for (int64_t j = 0; j < c.s; ++j) {
      for (int64_t e = 0; e < c.e; ++e) {
        double sum = 0.0;
        for (int64_t i = 0; i < c.t; ++i)
          sum += ds[i][j] * bq[b][i][e];
        wantDk[b][j][e] = scale * sum;
      }
      for (int64_t f = 0; f < c.f; ++f) {
        double sum = 0.0;
        for (int64_t i = 0; i < c.t; ++i)
          sum += p[i][j] * bdy[b][i][f];
        wantDv[b][j][f] = sum;
      }
    }
  }
  expectNear(out, wantOut, "out");
  expectNear(dq, wantDq, "dq");
  expectNear(dk, wantDk, "dk");
  expectNear(dv, wantDv, "dv");
}

TEST(AttentionTest, MatchesTheDefinitionOnEveryIsa) {
  const Case cases[] = {
      {{2, 2}, 64, 64, 32, 32, true},  // W8's heads
      {{3}, 37, 37, 19, 23, true},     // tails of every width
      {{2}, 33, 45, 8, 5, false},      // more keys than queries
      {{2}, 45, 20, 16, 17, true},     // more queries than keys
      {{}, 1, 1, 3, 2, true},          // one of each
      {{1, 3}, 70, 70, 40, 24, false}, // blocks of 32 and a remainder
  };
  forEachIsa([&] {
    for (const Case &c : cases)
      for (bool transposedK : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << "t " << c.t << " s " << c.s << " e " << c.e << " f "
                     << c.f << (c.causal ? " causal" : "")
                     << (transposedK ? " k strided" : ""));
        check(c, transposedK);
      }
  });
}

} // namespace
