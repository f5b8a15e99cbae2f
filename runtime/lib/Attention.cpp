//===- Attention.cpp - Fused scaled dot-product attention -----------------===//
//
// Each problem of the batch (one head of one sequence) runs on one thread.
// The products below read and write whole vectors of any ISA's width: an
// operand whose rows are contiguous and a multiple of 16 floats long (W8's
// heads, 32 floats inside the QKV projection's output) is read, and a
// gradient written, where it lies; any other is packed once into a
// contiguous matrix whose rows are padded to 16 floats (zeros). k (and v
// backward) are packed transposed in any case, their rows of S keys 16
// floats longer where the padding is a multiple of 128 (keyStride). The scale
// multiplies the scores inside the softmax and ds (a positive scale; else a
// packed q). Then, block by block of kRows query rows:
//   forward:  scores = q_blk k^T (only the keys a causal block can see),
//             e^(scale (score - the row's max)) in place, out_blk = p v
//             divided by each row's sum (F columns divided, not the row's
//             keys);
//   backward: p again, dp = dy_blk v^T, ds = scale p (dp - rowsum(dy *
//             out)), dq_blk = ds k, dk += ds^T q_blk, dv += p^T dy.
// The [kRows, S] blocks stay in the cache; no [T, S] matrix is written.
// The products are one kernel (rowsTimes): a few rows of c at a time, two
// vectors of columns, the row block's scalars broadcast over them; the
// transposed packs move L x L tiles in registers.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Attention.h"

#include "ConvVectors.h"

#include "tflrt/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tflrt {
namespace {

/// Query rows a block holds.
constexpr int64_t kRows = 32;

/// A matrix of a packed problem, row-major, rows padded to 16 floats.
inline int64_t padded(int64_t n) { return roundUp(n, kStepChannels); }

/// The row stride of a packed matrix with rows of n keys, which the
/// products read down its columns: padded, and 16 floats more where a
/// column's elements would fall in a few sets of the L1 cache. At 1,024
/// keys (4 KB rows) they all fell in one, and the scores' product waited
/// on L2 for each.
inline int64_t keyStride(int64_t n) {
  int64_t ld = padded(n);
  return columnInFewL1Sets(ld) ? ld + kStepChannels : ld;
}

/// One problem's sizes: T queries, S keys, E features of q and k, F of v.
struct Dims {
  int64_t t, s, e, f;
  bool causal;
  float scale;
};

/// One problem's matrix in a view: element (r, c) at data[r * rs + c * cs].
struct Matrix {
  float *data;
  int64_t rs, cs;
};

/// c[r, j] (or += when `add`) = sum over from <= k < depth of a(r, k) b[k, j]
/// for r < R and j < n, a(r, k) at a[r * ars + k * acs]; b and c row-major with
/// rows of ldb and ldc floats, both at least n rounded up to L (whole
/// vectors are read and written past n).
template <int L, int R>
TFL_INLINE void rowsTimes(const float *a, int64_t ars, int64_t acs,
                          const float *b, int64_t ldb, float *c, int64_t ldc,
                          int64_t from, int64_t depth, int64_t n, bool add) {
  typedef Vec<L> V;
  int64_t end = roundUp(n, L), j = 0;
  for (; j + 2 * L <= end; j += 2 * L) {
    V acc0[R], acc1[R];
    for (int r = 0; r < R; ++r) {
      acc0[r] = add ? V(load<L>(c + r * ldc + j)) : V{};
      acc1[r] = add ? V(load<L>(c + r * ldc + j + L)) : V{};
    }
    for (int64_t k = from; k < depth; ++k) {
      V b0 = load<L>(b + k * ldb + j), b1 = load<L>(b + k * ldb + j + L);
      for (int r = 0; r < R; ++r) {
        float s = a[r * ars + k * acs];
        acc0[r] += s * b0;
        acc1[r] += s * b1;
      }
    }
    for (int r = 0; r < R; ++r) {
      store(c + r * ldc + j, acc0[r]);
      store(c + r * ldc + j + L, acc1[r]);
    }
  }
  if (j < end) {
    V acc[R];
    for (int r = 0; r < R; ++r)
      acc[r] = add ? V(load<L>(c + r * ldc + j)) : V{};
    for (int64_t k = from; k < depth; ++k) {
      V b0 = load<L>(b + k * ldb + j);
      for (int r = 0; r < R; ++r)
        acc[r] += a[r * ars + k * acs] * b0;
    }
    for (int r = 0; r < R; ++r)
      store(c + r * ldc + j, acc[r]);
  }
}

/// Which terms of a product a causal mask makes zero, for the rows r of c
/// (query i0 + r, or key r for KeyRows): none (Full); the columns, keys
/// past each row's query (KeyColumns); the depth, keys past each row's
/// query (KeyDepth); the depth, the block's queries before key r
/// (KeyRows, depth over queries i0 ..).
enum class Causal { Full, KeyColumns, KeyDepth, KeyRows };

/// rowsTimes over `rows` rows, four at a time, each group skipping the
/// terms `causal` says are zero.
template <int L>
TFL_INLINE void times(const float *a, int64_t ars, int64_t acs, const float *b,
                      int64_t ldb, float *c, int64_t ldc, int64_t rows,
                      int64_t depth, int64_t n, bool add, Causal causal,
                      int64_t i0) {
  auto group = [&](int64_t r, int64_t last, int64_t &from, int64_t &upTo,
                   int64_t &cols) {
    from = 0, upTo = depth, cols = n;
    if (causal == Causal::KeyColumns)
      cols = lesser(n, i0 + last + 1);
    else if (causal == Causal::KeyDepth)
      upTo = lesser(depth, i0 + last + 1);
    else if (causal == Causal::KeyRows)
      from = r > i0 ? lesser(r - i0, depth) : 0;
  };
  int64_t r = 0, from, upTo, cols;
  for (; r + 4 <= rows; r += 4) {
    group(r, r + 3, from, upTo, cols);
    rowsTimes<L, 4>(a + r * ars, ars, acs, b, ldb, c + r * ldc, ldc, from, upTo,
                    cols, add);
  }
  for (; r < rows; ++r) {
    group(r, r, from, upTo, cols);
    rowsTimes<L, 1>(a + r * ars, ars, acs, b, ldb, c + r * ldc, ldc, from, upTo,
                    cols, add);
  }
}

/// Lanes a and b of two vectors taken in turns, from the first halves
/// (Hi 0) or the second ones (Hi 1): a[o], b[o], a[o + 1], b[o + 1], ...
template <int L, int Hi, size_t... I>
TFL_INLINE void interleave(Vec<L> &out, const Vec<L> &a, const Vec<L> &b,
                           std::index_sequence<I...>) {
  out = __builtin_shufflevector(a, b, ((I % 2) * L + Hi * L / 2 + I / 2)...);
}

/// Transposes the L x L tile in rows[0..L): log2(L) rounds of interleaving
/// row i with row i + L/2, each of which moves a bit of a lane's column
/// index into its row index (L log2(L) shuffles where a lane at a time
/// was L^2 scalar loads and stores).
template <int L> TFL_INLINE void transposeTile(Vec<L> *rows) {
  for (int round = 1; round < L; round *= 2) {
    Vec<L> next[L];
    for (int i = 0; i < L / 2; ++i) {
      interleave<L, 0>(next[2 * i], rows[i], rows[i + L / 2],
                       std::make_index_sequence<L>());
      interleave<L, 1>(next[2 * i + 1], rows[i], rows[i + L / 2],
                       std::make_index_sequence<L>());
    }
    for (int i = 0; i < L; ++i)
      rows[i] = next[i];
  }
}

/// dst (rows x cols, rows of ld floats, zeros past cols) = m, times `by`.
TFL_INLINE void pack(float *dst, int64_t ld, Matrix m, int64_t rows,
                     int64_t cols, float by) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *src = m.data + r * m.rs;
    float *row = dst + r * ld;
    if (m.cs == 1)
      for (int64_t c = 0; c < cols; ++c)
        row[c] = by * src[c];
    else
      for (int64_t c = 0; c < cols; ++c)
        row[c] = by * src[c * m.cs];
    for (int64_t c = cols; c < ld; ++c)
      row[c] = 0.0f;
  }
}

/// dst (cols x rows, rows of ld floats, zeros past rows) = m^T: whole L x L
/// tiles transposed in registers where m's rows are contiguous, the other
/// elements one by one.
template <int L>
TFL_INLINE void packTransposed(float *dst, int64_t ld, Matrix m, int64_t rows,
                               int64_t cols) {
  int64_t tileRows = m.cs == 1 ? rows / L * L : 0, tileCols = cols / L * L;
  for (int64_t r0 = 0; r0 < tileRows; r0 += L)
    for (int64_t c0 = 0; c0 < tileCols; c0 += L) {
      Vec<L> tile[L];
      for (int i = 0; i < L; ++i)
        tile[i] = load<L>(m.data + (r0 + i) * m.rs + c0);
      transposeTile<L>(tile);
      for (int i = 0; i < L; ++i)
        store(dst + (c0 + i) * ld + r0, tile[i]);
    }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = r < tileRows ? tileCols : 0; c < cols; ++c)
      dst[c * ld + r] = m.data[r * m.rs + c * m.cs];
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = rows; r < ld; ++r)
      dst[c * ld + r] = 0.0f;
}

/// The keys query row `i` sees.
TFL_INLINE int64_t keysOf(const Dims &d, int64_t i) {
  return d.causal ? lesser(i + 1, d.s) : d.s;
}

/// x = e^x for the vector x <= 0 (or NaN): Cephes' expf, 2^n times a degree-7
/// polynomial of the remainder, within 2 ulp; +0 below -87.3 (where 2^n
/// would leave the normal floats), so that e^-inf is 0.
template <typename V> TFL_INLINE void expNonPositive(V &x) {
  typedef Bits<lanesOf<V>()> B;
  V under = x < -87.3f ? V{} + 1.0f : V{};
  x = x < -87.3f ? V{} - 87.3f : x;
  const float magic = 12582912.0f; // 1.5 * 2^23: rounds to an integer
  V n = (x * 1.44269504088896341f + magic) - magic;
  V r = x - n * 0.693359375f + n * 2.12194440e-4f;
  V p = V{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  B exponent = (__builtin_convertvector(n, B) + 127) << 23;
  V e = p * reinterpret_cast<V>(exponent);
  x = under != 0.0f ? V{} : e;
}

/// The largest (`max`) or the sum of a vector's lanes, by halves: four
/// steps for 16 lanes where one lane after another is fifteen dependent
/// ones.
template <int L> TFL_INLINE float foldLanes(const Vec<L> &v, bool max) {
  if constexpr (L == 2) {
    return max ? (v[1] > v[0] ? v[1] : v[0]) : v[0] + v[1];
  } else {
    Vec<L / 2> lo, hi;
    std::memcpy(&lo, &v, sizeof(lo));
    std::memcpy(&hi, reinterpret_cast<const char *>(&v) + sizeof(lo),
                sizeof(hi));
    Vec<L / 2> both = max ? (hi > lo ? hi : lo) : lo + hi;
    return foldLanes<L / 2>(both, max);
  }
}

/// Rows i0.. of `p` (rows of ld floats, n columns computed): each row's
/// softmax over the keys it sees, zeros after them up to n, the scores
/// first multiplied by `by` (> 0: the scale, where q was not scaled before
/// the product; else 1). With `sums`,
/// the rows are left unnormalized (e^(x - max)) and sums[r] is what row r
/// is to be divided by: the forward pass divides its output's F columns
/// instead of the row's keys.
template <int L>
TFL_INLINE void softmaxRows(const Dims &d, float *p, int64_t ld, int64_t i0,
                            int64_t rows, int64_t n, float by,
                            float *sums = nullptr) {
  typedef Vec<L> V;
  // Three passes over the rows, so that one row's folds of its lanes (a
  // chain of dependent shuffles) overlap the next rows' work instead of
  // holding up its own next step.
  float tops[kRows], totals[kRows];
  for (int64_t r = 0; r < rows; ++r) {
    float *row = p + r * ld;
    int64_t seen = keysOf(d, i0 + r), end = roundUp(seen, L);
    // Whole vectors: the lanes past the row's keys are -inf, e^-inf 0.
    for (int64_t j = seen; j < end; ++j)
      row[j] = -INFINITY;
    V top = load<L>(row);
    for (int64_t j = L; j < end; j += L) {
      V v = load<L>(row + j);
      top = v > top ? v : top;
    }
    // (A NaN score the maximum skips makes its row's sum NaN all the same.)
    tops[r] = foldLanes<L>(top, true);
  }
  for (int64_t r = 0; r < rows; ++r) {
    float *row = p + r * ld;
    int64_t end = roundUp(keysOf(d, i0 + r), L);
    float m = tops[r];
    V sum{};
    for (int64_t j = 0; j < end; j += L) {
      V e = (V(load<L>(row + j)) - m) * by;
      expNonPositive(e);
      store(row + j, e);
      sum += e;
    }
    for (int64_t j = end; j < n; ++j)
      row[j] = 0.0f;
    totals[r] = foldLanes<L>(sum, false);
  }
  if (sums) {
    std::copy_n(totals, rows, sums);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float *row = p + r * ld, inv = 1.0f / totals[r];
    int64_t end = roundUp(keysOf(d, i0 + r), L);
    for (int64_t j = 0; j < end; j += L)
      store(row + j, V(load<L>(row + j)) * inv);
  }
}

/// The first block's keys and a block's: a causal block of rows i0.. sees
/// keys up to its last row's.
TFL_INLINE int64_t blockKeys(const Dims &d, int64_t i0, int64_t rows) {
  return keysOf(d, i0 + rows - 1);
}

TFL_INLINE void unpack(Matrix m, const float *src, int64_t ld, int64_t rows,
                       int64_t cols, float by) {
  for (int64_t i = 0; i < rows; ++i) {
    float *row = m.data + i * m.rs;
    if (m.cs == 1)
      for (int64_t j = 0; j < cols; ++j)
        row[j] = by * src[i * ld + j];
    else
      for (int64_t j = 0; j < cols; ++j)
        row[j * m.cs] = by * src[i * ld + j];
  }
}

/// Zeros the first `cols` floats of `rows` rows of m (contiguous rows):
/// in vector stores where cols is whole vectors, since a short row's
/// memset is a library call (a head's gradient rows are 32 floats; W8's
/// backward made 32,768 such calls a step).
template <int L>
TFL_INLINE void zeroRows(Matrix m, int64_t rows, int64_t cols) {
  // GCC turns a loop storing a known zero back into memset calls; a zero
  // it cannot see through stays a loop of stores.
  float z = 0.0f;
  asm("" : "+x"(z));
  Vec<L> zero = Vec<L>{} + z;
  for (int64_t i = 0; i < rows; ++i) {
    float *row = m.data + i * m.rs;
    int64_t j = 0;
    for (; j + L <= cols; j += L)
      store(row + j, zero);
    for (; j < cols; ++j)
      row[j] = z;
  }
}

/// Whether the kernels read `m`'s `cols` columns where they are: rows of
/// contiguous floats that are whole vectors of every width (the products
/// read and write whole vectors; W8's heads, E = 32, in the QKV
/// projection's output), so that no packed copy is needed.
TFL_INLINE bool inPlace(Matrix m, int64_t cols) {
  return m.cs == 1 && cols % kStepChannels == 0;
}

/// Whether d's scale is folded into the softmax and the gradient of the
/// scores (s = q k^T unscaled, p = softmax(scale s), ds = scale p (dp -
/// rowdot)), so that q is read in place; a scale that is not positive
/// scales a packed q instead, as it flips which score is the largest.
TFL_INLINE bool foldsScale(const Dims &d) { return d.scale > 0.0f; }

/// A rows x cols matrix of a view.
struct Region {
  Matrix m;
  int64_t rows, cols;
};

/// The first and one past the last float `r` spans.
TFL_INLINE std::pair<const float *, const float *> extent(Region r) {
  int64_t lo = 0, hi = 0;
  for (int64_t step : {(r.rows - 1) * r.m.rs, (r.cols - 1) * r.m.cs})
    (step < 0 ? lo : hi) += step;
  return {r.m.data + lo, r.m.data + hi + 1};
}

/// Whether the output `out` shares no memory with any of `inputs`: then the
/// kernels may read the inputs in place while they write it.
TFL_INLINE bool apart(Region out, std::initializer_list<Region> inputs) {
  auto [lo, hi] = extent(out);
  for (Region input : inputs) {
    auto [ilo, ihi] = extent(input);
    if (lo < ihi && ilo < hi)
      return false;
  }
  return true;
}

/// `m` itself when `keep`, else its rows x cols times `by` packed into
/// `dst` (rows of ld floats, zeros past cols).
TFL_INLINE Matrix readable(bool keep, float *dst, int64_t ld, Matrix m,
                           int64_t rows, int64_t cols, float by) {
  if (keep)
    return m;
  pack(dst, ld, m, rows, cols, by);
  return {dst, ld, 1};
}

/// Floats of scratch forwardOneBody needs.
int64_t forwardScratch(const Dims &d) {
  return d.t * padded(d.e) + d.e * keyStride(d.s) + d.s * padded(d.f) +
         kRows * keyStride(d.s) + kRows * padded(d.f) + kRows;
}

template <int L>
TFL_INLINE void forwardOneBody(const Dims &d, Matrix q, Matrix k, Matrix v,
                               Matrix out, float *scratch) {
  int64_t ep = padded(d.e), sp = keyStride(d.s), fp = padded(d.f);
  float *qs = scratch, *kt = qs + d.t * ep, *vv = kt + d.e * sp;
  float *p = vv + d.s * fp, *o = p + kRows * sp, *sums = o + kRows * fp;
  // Where out shares no memory with the inputs (its rows are written block
  // by block), q is read in place as the scores' left operand (a scalar at
  // a time, any strides) with the scale folded into the softmax, and v as
  // the right operand of p v where its rows are whole vectors.
  bool direct =
      apart({out, d.t, d.f}, {{q, d.t, d.e}, {k, d.s, d.e}, {v, d.s, d.f}});
  bool fold = direct && foldsScale(d);
  Matrix qa = readable(fold, qs, ep, q, d.t, d.e, d.scale);
  packTransposed<L>(kt, sp, k, d.s, d.e);
  Matrix vb = readable(direct && inPlace(v, d.f), vv, fp, v, d.s, d.f, 1.0f);
  Causal cols = d.causal ? Causal::KeyColumns : Causal::Full;
  Causal depth = d.causal ? Causal::KeyDepth : Causal::Full;
  for (int64_t i0 = 0; i0 < d.t; i0 += kRows) {
    int64_t rows = lesser(kRows, d.t - i0), n = blockKeys(d, i0, rows);
    times<L>(qa.data + i0 * qa.rs, qa.rs, qa.cs, kt, sp, p, sp, rows, d.e, n,
             false, cols, i0);
    softmaxRows<L>(d, p, sp, i0, rows, n, fold ? d.scale : 1.0f, sums);
    times<L>(p, sp, 1, vb.data, vb.rs, o, fp, rows, n, d.f, false, depth, i0);
    for (int64_t r = 0; r < rows; ++r)
      unpack({out.data + (i0 + r) * out.rs, out.rs, out.cs}, o + r * fp, fp, 1,
             d.f, 1.0f / sums[r]);
  }
}

/// Floats of scratch backwardOneBody needs.
int64_t backwardScratch(const Dims &d) {
  int64_t ep = padded(d.e), sp = keyStride(d.s), fp = padded(d.f);
  return d.t * ep + d.s * ep + d.e * sp + d.f * sp + d.t * fp + d.t +
         2 * kRows * sp + kRows * ep + d.s * ep + d.s * fp;
}

/// A backward problem's operands as its products read and write them.
/// Where no gradient overlaps an input (bufferization gives them buffers of
/// their own), the inputs are read in place and the gradients written in
/// place wherever their rows are whole vectors (inPlace), and the scale is
/// folded into the softmax and into ds: s = q k^T, p = softmax(scale s),
/// ds = scale p (dp - rowdot), dq = ds k, dk = ds^T q. Else everything is
/// packed first, q scaled: dq = scale ds k, dk = ds^T (scale q). dk and dv
/// sum over the blocks of queries: in place (zeroed here) or in scratch
/// (dkAll, dvAll) copied out at the end.
struct BackwardOperands {
  Matrix qa, qb, kb, g, dk, dv;
  bool fold, dqInPlace;
};

template <int L>
TFL_INLINE BackwardOperands backwardOperands(const Dims &d, Matrix q, Matrix k,
                                             Matrix v, Matrix out, Matrix dy,
                                             Matrix dq, Matrix dk, Matrix dv,
                                             float *qs, float *kk, float *g,
                                             float *dkAll, float *dvAll) {
  int64_t ep = padded(d.e), fp = padded(d.f);
  std::initializer_list<Region> inputs = {{q, d.t, d.e},
                                          {k, d.s, d.e},
                                          {v, d.s, d.f},
                                          {out, d.t, d.f},
                                          {dy, d.t, d.f}};
  bool direct = apart({dq, d.t, d.e}, inputs) &&
                apart({dk, d.s, d.e}, inputs) && apart({dv, d.s, d.f}, inputs);
  BackwardOperands o;
  o.fold = direct && foldsScale(d);
  o.qb = readable(o.fold && inPlace(q, d.e), qs, ep, q, d.t, d.e,
                  o.fold ? 1.0f : d.scale);
  o.qa = o.fold ? q : o.qb;
  o.kb = readable(direct && inPlace(k, d.e), kk, ep, k, d.s, d.e, 1.0f);
  o.g = readable(direct && inPlace(dy, d.f), g, fp, dy, d.t, d.f, 1.0f);
  o.dqInPlace = o.fold && inPlace(dq, d.e);
  o.dk = direct && inPlace(dk, d.e) ? dk : Matrix{dkAll, ep, 1};
  o.dv = direct && inPlace(dv, d.f) ? dv : Matrix{dvAll, fp, 1};
  zeroRows<L>(o.dk, d.s, o.dk.data == dkAll ? ep : d.e);
  zeroRows<L>(o.dv, d.s, o.dv.data == dvAll ? fp : d.f);
  return o;
}

/// rowDot[i] = the dot product of row i of g (contiguous rows) and of out.
template <int L>
TFL_INLINE void rowDots(const Dims &d, Matrix g, Matrix out, float *rowDot) {
  for (int64_t i = 0; i < d.t; ++i) {
    const float *gi = g.data + i * g.rs, *oi = out.data + i * out.rs;
    float sum = 0.0f;
    int64_t j = 0;
    if (out.cs == 1) {
      Vec<L> acc{};
      for (; j + L <= d.f; j += L)
        acc += Vec<L>(load<L>(gi + j)) * Vec<L>(load<L>(oi + j));
      sum = foldLanes<L>(acc, false);
    }
    for (; j < d.f; ++j)
      sum += gi[j] * oi[j * out.cs];
    rowDot[i] = sum;
  }
}

template <int L>
TFL_INLINE void backwardOneBody(const Dims &d, Matrix q, Matrix k, Matrix v,
                                Matrix out, Matrix dy, Matrix dq, Matrix dk,
                                Matrix dv, float *scratch) {
  int64_t ep = padded(d.e), sp = keyStride(d.s), fp = padded(d.f);
  float *qs = scratch, *kk = qs + d.t * ep, *kt = kk + d.s * ep;
  float *vt = kt + d.e * sp, *g = vt + d.f * sp, *rowDot = g + d.t * fp;
  float *p = rowDot + d.t, *dp = p + kRows * sp, *dqb = dp + kRows * sp;
  float *dkAll = dqb + kRows * ep, *dvAll = dkAll + d.s * ep;
  BackwardOperands o = backwardOperands<L>(d, q, k, v, out, dy, dq, dk, dv, qs,
                                           kk, g, dkAll, dvAll);
  packTransposed<L>(kt, sp, k, d.s, d.e);
  packTransposed<L>(vt, sp, v, d.s, d.f);
  rowDots<L>(d, o.g, out, rowDot);
  float by = o.fold ? d.scale : 1.0f;
  Causal cols = d.causal ? Causal::KeyColumns : Causal::Full;
  Causal depth = d.causal ? Causal::KeyDepth : Causal::Full;
  Causal keyRows = d.causal ? Causal::KeyRows : Causal::Full;
  for (int64_t i0 = 0; i0 < d.t; i0 += kRows) {
    int64_t rows = lesser(kRows, d.t - i0), n = blockKeys(d, i0, rows);
    times<L>(o.qa.data + i0 * o.qa.rs, o.qa.rs, o.qa.cs, kt, sp, p, sp, rows,
             d.e, n, false, cols, i0);
    softmaxRows<L>(d, p, sp, i0, rows, n, by);
    times<L>(o.g.data + i0 * o.g.rs, o.g.rs, 1, vt, sp, dp, sp, rows, d.f, n,
             false, cols, i0);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t seen = keysOf(d, i0 + r);
      float *dpr = dp + r * sp;
      const float *pr = p + r * sp;
      float dot = rowDot[i0 + r];
      for (int64_t j = 0; j < seen; ++j)
        dpr[j] = by * (pr[j] * (dpr[j] - dot));
      for (int64_t j = seen; j < n; ++j)
        dpr[j] = 0.0f;
    }
    Matrix dqc = o.dqInPlace ? Matrix{dq.data + i0 * dq.rs, dq.rs, 1}
                             : Matrix{dqb, ep, 1};
    times<L>(dp, sp, 1, o.kb.data, o.kb.rs, dqc.data, dqc.rs, rows, n, d.e,
             false, depth, i0);
    if (!o.dqInPlace)
      unpack({dq.data + i0 * dq.rs, dq.rs, dq.cs}, dqb, ep, rows, d.e,
             o.fold ? 1.0f : d.scale);
    times<L>(dp, 1, sp, o.qb.data + i0 * o.qb.rs, o.qb.rs, o.dk.data, o.dk.rs,
             n, rows, d.e, true, keyRows, i0);
    times<L>(p, 1, sp, o.g.data + i0 * o.g.rs, o.g.rs, o.dv.data, o.dv.rs, n,
             rows, d.f, true, keyRows, i0);
  }
  if (o.dk.data == dkAll)
    unpack(dk, dkAll, ep, d.s, d.e, 1.0f);
  if (o.dv.data == dvAll)
    unpack(dv, dvAll, fp, d.s, d.f, 1.0f);
}

TFL_ISA_LANE_VARIANTS(forwardOne,
                      (const Dims &d, Matrix q, Matrix k, Matrix v, Matrix out,
                       float *scratch),
                      (d, q, k, v, out, scratch))
TFL_ISA_LANE_VARIANTS(backwardOne,
                      (const Dims &d, Matrix q, Matrix k, Matrix v, Matrix out,
                       Matrix dy, Matrix dq, Matrix dk, Matrix dv,
                       float *scratch),
                      (d, q, k, v, out, dy, dq, dk, dv, scratch))

/// Problem `b`'s matrix in `view` (its leading dims flattened, row-major).
Matrix matrixOf(const TensorView &view, int64_t b) {
  int64_t rank = view.rank(), offset = 0;
  for (int64_t dim = rank - 3; dim >= 0; --dim) {
    offset += (b % view.shape[dim]) * view.strides[dim];
    b /= view.shape[dim];
  }
  float *data = static_cast<float *>(const_cast<void *>(view.data)) + offset;
  return {data, view.strides[rank - 2], view.strides[rank - 1]};
}

Dims dimsOf(const TensorView &q, const TensorView &k, const TensorView &v,
            AttentionShape shape) {
  for (const TensorView *t : {&q, &k, &v})
    if (t->dtype != DType::F32)
      throw std::runtime_error("attention: the fused kernels take f32 "
                               "tensors, not " +
                               std::string(dtypeName(t->dtype)));
  int64_t r = q.rank();
  return {q.shape[r - 2], k.shape[r - 2], q.shape[r - 1],
          v.shape[r - 1], shape.causal,   static_cast<float>(shape.scale)};
}

/// Runs fn(b, scratch) for each problem b, on the pool's threads, with
/// `floats` of scratch per thread.
template <typename Fn>
void eachProblem(const TensorView &q, int64_t floats, Fn &&fn) {
  int64_t batch = 1;
  for (int64_t dim = 0; dim + 2 < q.rank(); ++dim)
    batch *= q.shape[dim];
  parallelFor(batch, 2, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(static_cast<size_t>(floats));
    for (int64_t b = begin; b < end; ++b)
      fn(b, scratch.data());
  });
}

} // namespace

void attention(const TensorView &q, const TensorView &k, const TensorView &v,
               const TensorView &out, AttentionShape shape) {
  Dims d = dimsOf(q, k, v, shape);
  eachProblem(q, forwardScratch(d), [&](int64_t b, float *scratch) {
    forwardOne(d, matrixOf(q, b), matrixOf(k, b), matrixOf(v, b),
               matrixOf(out, b), scratch);
  });
}

void attentionBackward(const TensorView &q, const TensorView &k,
                       const TensorView &v, const TensorView &out,
                       const TensorView &dy, const TensorView &dq,
                       const TensorView &dk, const TensorView &dv,
                       AttentionShape shape) {
  Dims d = dimsOf(q, k, v, shape);
  eachProblem(q, backwardScratch(d), [&](int64_t b, float *scratch) {
    backwardOne(d, matrixOf(q, b), matrixOf(k, b), matrixOf(v, b),
                matrixOf(out, b), matrixOf(dy, b), matrixOf(dq, b),
                matrixOf(dk, b), matrixOf(dv, b), scratch);
  });
}

} // namespace tflrt
