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

void expectNear(const TensorView &got, const Batch &want, const char *what) {
  Batch g = asBatch(got);
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

/// How the operands lie in memory: contiguous; k read through strides
/// (the transpose of a [.., E, S] tensor); every operand the first columns
/// of wider rows (heads in a QKV projection's output, which the kernels
/// read and write in place); contiguous with a negative scale (which the
/// kernels do not fold into the softmax); dq written over dy's memory
/// (which the kernels must read in full first); the forward's output written
/// over v's memory (likewise).
enum class Layout {
  Contiguous,
  TransposedK,
  WideRows,
  NegativeScale,
  DqInDy,
  OutInV
};

/// A tensor of rows x cols matrices (random, or zeros without `gen`) and
/// its view; with `wide`, rows of 16 floats more in memory, the view
/// taking the first cols.
struct Operand {
  Tensor store;
  TensorView view;
};

Operand operand(const Shape &lead, int64_t rows, int64_t cols, bool wide,
                std::mt19937 *gen) {
  Shape shape = withLast(lead, rows, cols + (wide ? 16 : 0));
  Operand o{gen ? random(shape, *gen) : Tensor(DType::F32, shape), {}};
  o.view = o.store.view();
  o.view.shape.back() = cols;
  return o;
}

/// The attention's output and gradients by their definition, in doubles.
struct Wants {
  Batch out, dq, dk, dv;
};

Wants definition(const Case &c, double scale, const Batch &bq, const Batch &bk,
                 const Batch &bv, const Batch &bdy) {
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
  return {wantOut, wantDq, wantDk, wantDv};
}

void check(const Case &c, Layout layout) {
  std::mt19937 gen(7);
  double scale = (layout == Layout::NegativeScale ? -1.0 : 1.0) /
                 std::sqrt(static_cast<double>(c.e));
  bool wide = layout == Layout::WideRows;
  bool transposedK = layout == Layout::TransposedK;
  Operand q = operand(c.lead, c.t, c.e, wide, &gen);
  Operand k = operand(c.lead, transposedK ? c.e : c.s, transposedK ? c.s : c.e,
                      wide, &gen);
  if (transposedK) {
    int64_t r = k.view.rank();
    std::swap(k.view.shape[r - 2], k.view.shape[r - 1]);
    std::swap(k.view.strides[r - 2], k.view.strides[r - 1]);
  }
  Operand v = operand(c.lead, c.s, c.f, wide, &gen);
  Operand dy = operand(c.lead, c.t, c.f, wide, &gen);
  Operand out =
      layout == Layout::OutInV ? v : operand(c.lead, c.t, c.f, wide, nullptr);
  Operand dq =
      layout == Layout::DqInDy ? dy : operand(c.lead, c.t, c.e, wide, nullptr);
  Operand dk = operand(c.lead, c.s, c.e, wide, nullptr);
  Operand dv = operand(c.lead, c.s, c.f, wide, nullptr);
  Batch bq = asBatch(q.view), bk = asBatch(k.view), bv = asBatch(v.view);
  Batch bdy = asBatch(dy.view);
  AttentionShape shape{c.causal, scale};
  attention(q.view, k.view, v.view, out.view, shape);
  Wants want = definition(c, scale, bq, bk, bv, bdy);
  expectNear(out.view, want.out, "out");
  if (layout == Layout::OutInV)
    return; // v is gone: the backward's inputs are not the forward's.
  attentionBackward(q.view, k.view, v.view, out.view, dy.view, dq.view, dk.view,
                    dv.view, shape);

  expectNear(dq.view, want.dq, "dq");
  expectNear(dk.view, want.dk, "dk");
  expectNear(dv.view, want.dv, "dv");
  // The columns past a wide output's are not written.
  if (wide)
    for (const Operand *o : {&out, &dq, &dk, &dv}) {
      const float *p = o->store.data<float>();
      int64_t cols = o->view.shape.back(), ld = cols + 16;
      for (int64_t i = 0; i < o->store.numElements(); ++i)
        ASSERT_EQ(i % ld < cols ? 0.0f : p[i], 0.0f) << "past column " << i;
    }
}

TEST(AttentionTest, MatchesTheDefinitionOnEveryIsa) {
  const Case cases[] = {
      {{2, 2}, 64, 64, 32, 32, true},  // W8's heads
      {{3}, 37, 37, 19, 23, true},     // tails of every width
      {{2}, 33, 45, 8, 5, false},      // more keys than queries
      {{2}, 45, 20, 16, 17, true},     // more queries than keys
      {{}, 1, 1, 3, 2, true},          // one of each
      {{1, 3}, 70, 70, 40, 24, false}, // blocks of 32 and a remainder
      {{1}, 40, 128, 16, 8, false},    // keys' rows padded past 512 bytes
      {{1}, 128, 128, 16, 16, true},   // the same, causal
  };
  forEachIsa([&] {
    for (const Case &c : cases)
      for (Layout layout :
           {Layout::Contiguous, Layout::TransposedK, Layout::WideRows,
            Layout::NegativeScale, Layout::DqInDy, Layout::OutInV}) {
        if ((layout == Layout::DqInDy && c.e != c.f) ||
            (layout == Layout::OutInV && c.t != c.s))
          continue;
        SCOPED_TRACE(::testing::Message()
                     << "t " << c.t << " s " << c.s << " e " << c.e << " f "
                     << c.f << (c.causal ? " causal" : "") << " layout "
                     << static_cast<int>(layout));
        check(c, layout);
      }
  });
}

} // namespace
