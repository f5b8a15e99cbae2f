//===- PackedGemm.cpp - TFL's own AVX2 GEMM for weights' gradients --------===//
//
// c (+)= op(a) op(b) as BLIS computes it: for each block of kKc of the sum
// and kNc columns of c, op(b)'s block is copied into panels of 16 columns
// (each panel kKc rows of 16 floats, read in order); for each block of kMc
// rows, op(a)'s block into panels of 6 rows (kKc columns of 6 floats);
// then each 6 x 16 tile of c is the sum over the block of a panel's
// column times a panel's row, in 12 AVX2 registers, added to c (or
// stored, for the first block of an overwrite). A tile at c's edge is
// computed whole on the panels' zero padding and stored in part. The
// packing reads each operand along its rows, a few rows ahead prefetched
// (down columns whose rows are a multiple of 128 floats apart, the reads
// would fall in a few sets of the L1 cache, columnInFewL1Sets, as
// oneDNN's seem to). Each thread takes a block of c's rows (or columns,
// where c is wider than it is tall) and packs its own panels.
//
//===----------------------------------------------------------------------===//

#include "PackedGemm.h"

#include "ConvVectors.h"

#include "tflrt/Parallel.h"

namespace tflrt {
namespace {

/// A tile of c: kMr rows by kNr columns (two AVX2 vectors).
constexpr int64_t kMr = 6, kNr = 16;
/// The sum's block (a panel of b, kKc x 16 floats, is 16 KB: half the L1
/// cache), rows of a per block (a's block, 96 KB, in L2), columns of b per
/// block (b's block at most 2 MB).
constexpr int64_t kKc = 256, kMc = 96, kNc = 2048;

/// An operand as stored (row-major, rows `ld` floats apart), and whether
/// the product takes its transpose.
struct Operand {
  const float *data;
  int64_t ld;
  bool trans;
};

#define TFL_AVX2 __attribute__((target("arch=x86-64-v3")))

/// A panel of W lanes from rows of a matrix that run along the sum: lane r
/// (of `count`; zeros past it) is the row at src + r ld, and the panel
/// holds, for each p of kc, the W lanes' elements p.
template <int64_t W>
TFL_AVX2 void interleaveRows(const float *src, int64_t ld, int64_t count,
                             int64_t kc, float *dst) {
  for (int64_t r = 0; r < W; ++r) {
    if (r >= count) {
      for (int64_t p = 0; p < kc; ++p)
        dst[p * W + r] = 0.0f;
      continue;
    }
    const float *row = src + r * ld;
    for (int64_t p = 0; p < kc; ++p)
      dst[p * W + r] = row[p];
  }
}

/// Panels of W lanes from rows of a matrix that run across them: for each
/// p of kc, the row at src + p ld holds element p of each of the `count`
/// lanes (zeros past it); panel q holds lanes q W .. q W + W - 1. The rows
/// are read along, 8 rows ahead prefetched (a walk down their columns,
/// rows a multiple of 128 floats apart, would fall in a few sets of the L1
/// cache).
template <int64_t W>
TFL_AVX2 void splitRows(const float *src, int64_t ld, int64_t count, int64_t kc,
                        float *dst) {
  int64_t whole = count / W * W;
  for (int64_t p = 0; p < kc; ++p) {
    const float *row = src + p * ld;
    float *to = dst + p * W;
    if (p + 8 < kc)
      for (int64_t i = 0; i < count; i += 16)
        __builtin_prefetch(row + 8 * ld + i);
    for (int64_t q = 0; q < whole; q += W, to += W * kc) {
      if constexpr (W % 8 == 0) {
        for (int64_t r = 0; r < W; r += 8) {
          Vec<8> v = load<8>(row + q + r);
          store(to + r, v);
        }
      } else {
        static_assert(W == 6, "lanes of whole vectors or of 6");
        // Six floats as a vector of 8 where the row has 8 from q and the
        // two past the panel's row land on the next (written after this
        // one), else as 4 and 2 (AVX2's masked stores are slow on AMD's).
        if (q + 8 <= count && p + 1 < kc) {
          Vec<8> v = load<8>(row + q);
          store(to, v);
        } else {
          Vec<4> v = load<4>(row + q);
          store(to, v);
          to[4] = row[q + 4];
          to[5] = row[q + 5];
        }
      }
    }
    if (whole < count)
      for (int64_t r = 0; r < W; ++r)
        to[r] = whole + r < count ? row[whole + r] : 0.0f;
  }
}

/// Lanes [l0, l0 + count) of an operand over the sum's [p0, p0 + kc), as
/// panels of W lanes (zeros past count): op(a)'s rows (W = kMr) or op(b)'s
/// columns (W = kNr). `across` when the stored matrix's rows run across
/// the lanes (a transposed a, an untransposed b), else along the sum.
template <int64_t W>
TFL_AVX2 void pack(const Operand &x, bool across, int64_t l0, int64_t count,
                   int64_t p0, int64_t kc, float *dst) {
  if (across)
    return splitRows<W>(x.data + p0 * x.ld + l0, x.ld, count, kc, dst);
  for (int64_t q = 0; q < count; q += W, dst += W * kc)
    interleaveRows<W>(x.data + (l0 + q) * x.ld + p0, x.ld, count - q, kc, dst);
}

/// c's tile (mr x nr of kMr x kNr at c) (+)= panel a times panel b over kc.
TFL_AVX2 void tile(int64_t kc, const float *a, const float *b, float *c,
                   int64_t ldc, int64_t mr, int64_t nr, bool add) {
  typedef Vec<8> V;
  V sum[kMr][2];
#pragma GCC unroll 6
  for (int64_t r = 0; r < kMr; ++r)
    sum[r][0] = sum[r][1] = V{};
  for (int64_t p = 0; p < kc; ++p, a += kMr, b += kNr) {
    V b0 = load<8>(b), b1 = load<8>(b + 8);
#pragma GCC unroll 6
    for (int64_t r = 0; r < kMr; ++r) {
      sum[r][0] += b0 * a[r];
      sum[r][1] += b1 * a[r];
    }
  }
#pragma GCC unroll 6
  for (int64_t r = 0; r < mr; ++r) {
    float *row = c + r * ldc;
    if (nr == kNr) {
      if (add) {
        sum[r][0] += load<8>(row);
        sum[r][1] += load<8>(row + 8);
      }
      store(row, sum[r][0]);
      store(row + 8, sum[r][1]);
      continue;
    }
    for (int64_t j = 0; j < nr; ++j) {
      float v = sum[r][j / 8][j % 8];
      row[j] = add ? row[j] + v : v;
    }
  }
}

/// c's rows [i0, i1) and columns [j0, j1) on this thread, with its packing
/// buffers pa (kMc x kKc floats) and pb (kNc x kKc).
TFL_AVX2 void block(const Operand &a, const Operand &b, float *c, int64_t ldc,
                    int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t k,
                    bool accumulate, float *pa, float *pb) {
  for (int64_t jc = j0; jc < j1; jc += kNc) {
    int64_t nc = lesser(kNc, j1 - jc);
    for (int64_t pc = 0; pc < k; pc += kKc) {
      int64_t kc = lesser(kKc, k - pc);
      bool add = accumulate || pc > 0;
      pack<kNr>(b, !b.trans, jc, nc, pc, kc, pb);
      for (int64_t ic = i0; ic < i1; ic += kMc) {
        int64_t mc = lesser(kMc, i1 - ic);
        pack<kMr>(a, a.trans, ic, mc, pc, kc, pa);
        for (int64_t jr = 0; jr < nc; jr += kNr)
          for (int64_t ir = 0; ir < mc; ir += kMr)
            tile(kc, pa + ir * kc, pb + jr * kc, c + (ic + ir) * ldc + jc + jr,
                 ldc, lesser(kMr, mc - ir), lesser(kNr, nc - jr), add);
      }
    }
  }
}

/// A thread's packing buffers (aligned to a cache line, as Scratch is).
struct PackBuffers {
  Scratch a{kMc * kKc}, b{kNc * kKc};
};

/// The outputs below which a product stays on oneDNN's sgemm.
constexpr int64_t kMinOutputs = 32768;

/// The first condition of takesPackedProduct's rule a product fails.
enum class Unmet { None, Isa, Form, Stride, Outputs, Sum };

Unmet unmet(int64_t m, int64_t n, int64_t k, int64_t ldb, bool transA,
            bool transB) {
  if (!transA || transB)
    return Unmet::Form;
  if (kernelIsa() != Isa::Avx2)
    return Unmet::Isa;
  if (!columnInFewL1Sets(ldb))
    return Unmet::Stride;
  if (m * n < kMinOutputs)
    return Unmet::Outputs;
  return k > 0 ? Unmet::None : Unmet::Sum;
}

} // namespace

bool takesPackedProduct(int64_t m, int64_t n, int64_t k, int64_t ldb,
                        bool transA, bool transB) {
  return unmet(m, n, k, ldb, transA, transB) == Unmet::None;
}

std::string packedProductReason(int64_t m, int64_t n, int64_t k, int64_t ldb,
                                bool transA, bool transB) {
  std::string rows = std::to_string(ldb), outputs = std::to_string(m * n);
  switch (unmet(m, n, k, ldb, transA, transB)) {
  case Unmet::None:
    return "AVX2, a^T b with b's rows " + rows +
           " floats apart, a multiple of 128, and " + outputs +
           " outputs: oneDNN's sgemm is slow there";
  case Unmet::Isa:
    return kernelIsa() == Isa::Avx512
               ? "AVX-512: oneDNN's sgemm runs a^T b at full speed there"
               : "kernels for the baseline ISA: TFL's packed kernel needs AVX2";
  case Unmet::Form:
    return "not a^T b: oneDNN's sgemm runs that form at full speed";
  case Unmet::Stride:
    return "b's rows " + rows +
           " floats apart, not a multiple of 128: oneDNN's sgemm runs it at "
           "full speed";
  case Unmet::Outputs:
    return outputs + " outputs, fewer than " + std::to_string(kMinOutputs) +
           ": packing would cost what TFL's kernel saves";
  case Unmet::Sum:
    break;
  }
  return "an empty sum";
}

void packedProduct(const float *a, const float *b, float *c, int64_t m,
                   int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                   bool accumulate, bool transA, bool transB) {
  Operand opA{a, lda, transA}, opB{b, ldb, transB};
  // One block of c per thread, cut across its longer side in whole tiles.
  int64_t threads = omp_get_max_threads();
  bool byRows = m / kMr >= n / kNr;
  int64_t unit = byRows ? kMr : kNr, extent = byRows ? m : n;
  int64_t share = roundUp((extent + threads - 1) / threads, unit);
  int64_t parts = (extent + share - 1) / share;
  parallelFor(parts, 2, [&](int64_t begin, int64_t end) {
    static thread_local PackBuffers buffers;
    for (int64_t part = begin; part < end; ++part) {
      int64_t lo = part * share, hi = std::min(extent, lo + share);
      block(opA, opB, c, ldc, byRows ? lo : 0, byRows ? hi : m, byRows ? 0 : lo,
            byRows ? n : hi, k, accumulate, buffers.a.data(), buffers.b.data());
    }
  });
}

} // namespace tflrt
