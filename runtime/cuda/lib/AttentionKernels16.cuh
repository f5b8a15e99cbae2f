//===- AttentionKernels16.cuh - Attention on tensor cores ------*- CUDA -*-===//
//
// tfl.attention and its adjoint for bf16 and f16 tensors (T), the products
// on tensor cores through the warp matrix functions (16x16x16 fragments,
// sums in f32), as AttentionKernels.cuh does it in f32: tiles of 64 query
// rows and 64 keys in shared memory, a warp of a 128-thread block taking 16
// of the tile's rows (or keys) through the whole tile; E and F multiples of
// 16, at most kMaxHead. The scores, the softmax and the accumulators are
// f32; the weights p and ds go into the second products as T, rounded once
// (FlashAttention does the same).
//
//   forward16:   S = Q K^T (a warp's 16 rows by the tile's 64 keys) into
//                shared memory, the online softmax by the warp's lanes (two
//                to a row), P as T, O += P V with O in shared memory (its
//                rows rescaled there), out = O / l;
//   rowStats16:  each row's logsumexp and D = rowsum(dy * out);
//   keysBackward16: per 64 keys, over the query tiles that see them, S^T =
//                K Q^T and dP^T = V dY^T, p and ds as T, dV += P^T dY and
//                dK += dS^T Q;
//   queriesBackward16: per 64 queries, over the key tiles they see, S = Q
//                K^T and dP = dY V^T, dQ += dS K.
//
// Every buffer a fragment reads or writes starts 32 bytes apart and its
// rows a multiple of 16 bytes apart, as the warp matrix functions require
// (the host-run test checks). Launched as AttentionKernels.cuh's kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CUDA_ATTENTIONKERNELS16_CUH
#define TFLRT_CUDA_ATTENTIONKERNELS16_CUH

#include "AttentionKernels.cuh"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#endif

namespace tflrt::cuda::attention {

/// Rows and keys of a 16-bit tile, and the rows (or keys) of each warp.
constexpr int kTile16 = 64, kWarpRows = 16, kWarps = kBlockThreads / 32;
static_assert(kWarps * kWarpRows == kTile16, "a warp per 16 rows");
/// Leading dims of the per-warp score tiles (f32) and weight tiles (T).
constexpr int kScorePitch = kTile16 + 4, kWeightPitch = kTile16 + 8;

__device__ inline float widen16(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float widen16(__half x) { return __half2float(x); }
template <typename T> __device__ inline T narrow16(float x);
template <> __device__ inline __nv_bfloat16 narrow16(float x) {
  return __float2bfloat16(x);
}
template <> __device__ inline __half narrow16(float x) {
  return __float2half(x);
}

/// A problem's matrix of 16-bit elements (matrixOf<T>).
template <typename T> using Matrix16 = MatrixOf<T>;

/// A tile's leading dim in elements: `cols` and 8 more (rows 16 bytes
/// apart, not a multiple of 128 bytes).
__host__ __device__ inline int pitch16(int cols) { return cols + 8; }

/// Rows [r0, r0 + kTile16) of `m` into `tile` (pitch16(cols)); zeros for
/// rows from `limit`.
template <typename T>
__device__ inline void loadTile16(T *tile, Matrix16<T> m, int64_t r0,
                                  int64_t limit, int cols) {
  for (int i = threadIdx.x; i < kTile16 * cols; i += kBlockThreads) {
    int r = i / cols, c = i % cols;
    tile[r * pitch16(cols) + c] =
        r0 + r < limit ? m.data[(r0 + r) * m.rs + c * m.cs] : narrow16<T>(0.0f);
  }
}

/// out (16 x 64, f32, pitch kScorePitch) = a (16 rows of `depth`, at `a`
/// with leading dim lda) times the transpose of b's 64 rows (leading dim
/// ldb): a warp's scores against a tile.
template <typename T>
__device__ inline void timesTransposed(float *out, const T *a, int lda,
                                       const T *b, int ldb, int depth) {
  namespace wmma = nvcuda::wmma;
  for (int n = 0; n < kTile16 / 16; ++n) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int kk = 0; kk < depth; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
      wmma::load_matrix_sync(fa, a + kk, lda);
      wmma::load_matrix_sync(fb, b + n * 16 * ldb + kk, ldb);
      wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(out + n * 16, acc, kScorePitch,
                            wmma::mem_row_major);
  }
}

/// acc (16 x cols, f32, leading dim cols + 4) += w (16 x 64, T, pitch
/// kWeightPitch) times b (64 rows of `cols`, leading dim ldb).
template <typename T>
__device__ inline void addProduct(float *acc, const T *w, const T *b, int ldb,
                                  int cols) {
  namespace wmma = nvcuda::wmma;
  for (int n = 0; n < cols; n += 16) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(c, acc + n, cols + 4, wmma::mem_row_major);
    for (int kk = 0; kk < kTile16; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
      wmma::load_matrix_sync(fa, w + kk, kWeightPitch);
      wmma::load_matrix_sync(fb, b + kk * ldb + n, ldb);
      wmma::mma_sync(c, fa, fb, c);
    }
    wmma::store_matrix_sync(acc + n, c, cols + 4, wmma::mem_row_major);
  }
}

/// The keys a tile of 64 queries from i0 reads.
__device__ inline int64_t keysSeen16(const Problem &p, int64_t i0) {
  int64_t last = i0 + kTile16;
  return p.causal && last < p.s ? last : p.s;
}

/// Carves a block's dynamic shared memory into buffers in order.
struct Carver {
  char *at;
  template <typename U> __device__ U *take(int64_t count) {
    U *p = reinterpret_cast<U *>(at);
    at += count * static_cast<int64_t>(sizeof(U));
    return p;
  }
  /// A tile of kTile16 rows of `cols` elements (pitch16).
  template <typename U> __device__ U *tile(int cols) {
    return take<U>(int64_t(kTile16) * pitch16(cols));
  }
  /// A buffer of kWarpRows rows of `pitch` elements for every warp: this
  /// warp's rows.
  template <typename U> __device__ U *warpRows(int pitch, int warp) {
    return take<U>(int64_t(kWarps) * kWarpRows * pitch) +
           warp * kWarpRows * pitch;
  }
};

/// The online softmax over one tile of a warp's scores `sw` (16 x 64): the
/// lane's row rr = lane / 2, keys half * 32 .. + 32; weights into `pw`
/// (T), the row's running max `m` and sum `l`; returns the rescale of the
/// row's earlier sums.
template <typename T>
__device__ inline float softmaxTile(const Problem &p, const float *sw, T *pw,
                                    int64_t row, int64_t j0, int lane, float &m,
                                    float &l) {
  const int rr = lane / 2, half = lane % 2;
  float most = -INFINITY;
  for (int c = half * 32; c < half * 32 + 32; ++c)
    if (sees(p, row, j0 + c))
      most = fmaxf(most, sw[rr * kScorePitch + c] * p.scale);
  most = fmaxf(most, __shfl_xor_sync(0xffffffffu, most, 1));
  float next = fmaxf(m, most), sum = 0.0f;
  for (int c = half * 32; c < half * 32 + 32; ++c) {
    float w = sees(p, row, j0 + c)
                  ? expf(sw[rr * kScorePitch + c] * p.scale - next)
                  : 0.0f;
    pw[rr * kWeightPitch + c] = narrow16<T>(w);
    sum += w;
  }
  sum += __shfl_xor_sync(0xffffffffu, sum, 1);
  float rescale = m == -INFINITY ? 0.0f : expf(m - next);
  l = l * rescale + sum;
  m = next;
  return rescale;
}

/// Zeros a warp's kWarpRows rows of `width` floats at `rows`, each lane
/// every 32nd float.
__device__ inline void zeroWarpRows(float *rows, int width, int lane) {
  for (int i = lane; i < kWarpRows * width; i += 32)
    rows[i] = 0.0f;
}

template <typename T>
TFLRT_ATTENTION_KERNEL forward16(View q, View k, View v, View out, Problem p) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  Carver carve{reinterpret_cast<char *>(shared)};
  T *qs = carve.tile<T>(e);
  T *ks = carve.tile<T>(e);
  T *vs = carve.tile<T>(f);
  float *sw = carve.warpRows<float>(kScorePitch, warp);
  T *pw = carve.warpRows<T>(kWeightPitch, warp);
  float *ow = carve.warpRows<float>(f + 4, warp);
  const int64_t b = blockIdx.x, i0 = int64_t(blockIdx.y) * kTile16;
  const int rr = lane / 2, half = lane % 2;
  const int64_t row = i0 + warp * kWarpRows + rr;
  loadTile16(qs, matrixOf<T>(q, b), i0, p.t, e);
  zeroWarpRows(ow, f + 4, lane);
  __syncthreads(); // (the zeros seen by every lane, even with no key tile)
  const Matrix16<T> mk = matrixOf<T>(k, b), mv = matrixOf<T>(v, b);
  float m = -INFINITY, l = 0.0f;
  for (int64_t j0 = 0; j0 < keysSeen16(p, i0); j0 += kTile16) {
    __syncthreads(); // the last tiles are read
    loadTile16(ks, mk, j0, p.s, e);
    loadTile16(vs, mv, j0, p.s, f);
    __syncthreads();
    timesTransposed(sw, qs + warp * kWarpRows * pitch16(e), pitch16(e), ks,
                    pitch16(e), e);
    __syncwarp();
    float rescale = softmaxTile(p, sw, pw, row, j0, lane, m, l);
    for (int x = half; x < f; x += 2)
      ow[rr * (f + 4) + x] *= rescale;
    __syncwarp();
    addProduct(ow, pw, vs, pitch16(f), f);
    __syncwarp();
  }
  if (row >= p.t)
    return;
  const Matrix16<T> mo = matrixOf<T>(out, b);
  for (int x = half; x < f; x += 2)
    mo.data[row * mo.rs + x * mo.cs] = narrow16<T>(ow[rr * (f + 4) + x] / l);
}

template <typename T>
TFLRT_ATTENTION_KERNEL rowStats16(View q, View k, View out, View dy,
                                  float *stats, Problem p, int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  Carver carve{reinterpret_cast<char *>(shared)};
  T *qs = carve.tile<T>(e);
  T *ks = carve.tile<T>(e);
  float *sw = carve.warpRows<float>(kScorePitch, warp);
  T *pw = carve.warpRows<T>(kWeightPitch, warp);
  const int64_t b = blockIdx.x, i0 = int64_t(blockIdx.y) * kTile16;
  const int rr = lane / 2, half = lane % 2;
  const int64_t row = i0 + warp * kWarpRows + rr;
  loadTile16(qs, matrixOf<T>(q, b), i0, p.t, e);
  const Matrix16<T> mk = matrixOf<T>(k, b);
  float m = -INFINITY, l = 0.0f;
  for (int64_t j0 = 0; j0 < keysSeen16(p, i0); j0 += kTile16) {
    __syncthreads();
    loadTile16(ks, mk, j0, p.s, e);
    __syncthreads();
    timesTransposed(sw, qs + warp * kWarpRows * pitch16(e), pitch16(e), ks,
                    pitch16(e), e);
    __syncwarp();
    softmaxTile(p, sw, pw, row, j0, lane, m, l);
    __syncwarp();
  }
  float d = 0.0f;
  if (row < p.t) {
    const Matrix16<T> mo = matrixOf<T>(out, b), mdy = matrixOf<T>(dy, b);
    for (int x = half; x < f; x += 2)
      d += widen16(mdy.data[row * mdy.rs + x * mdy.cs]) *
           widen16(mo.data[row * mo.rs + x * mo.cs]);
  }
  d += __shfl_xor_sync(0xffffffffu, d, 1);
  if (row < p.t && half == 0) {
    stats[b * p.t + row] = m + logf(l);
    stats[(batch + b) * p.t + row] = d;
  }
}

/// p = e^(scale s - lse) where query i sees key j, ds = p (dp - d): the
/// lane's half of its row of a warp's 16 x 64 tiles `sw` (scores) and
/// `dpw` (dP), into `pw` and `dsw` (T). `transposed`: the rows are keys
/// and the columns queries (lse and d per column), else the reverse.
template <typename T>
__device__ inline void
weights16(const Problem &p, const float *sw, const float *dpw, T *pw, T *dsw,
          const float *lse, const float *d, int64_t rowIndex, int64_t colBase,
          int lane, bool transposed) {
  const int rr = lane / 2, half = lane % 2;
  for (int c = half * 32; c < half * 32 + 32; ++c) {
    int64_t i = transposed ? colBase + c : rowIndex;
    int64_t j = transposed ? rowIndex : colBase + c;
    float rl = lse[transposed ? c : 0], rd = d[transposed ? c : 0];
    float w = weightOf(p, sw[rr * kScorePitch + c], rl, i, j);
    if (pw)
      pw[rr * kWeightPitch + c] = narrow16<T>(w);
    dsw[rr * kWeightPitch + c] =
        narrow16<T>(w * (dpw[rr * kScorePitch + c] - rd));
  }
}

/// Rows `row` of m = acc (leading dim cols + 4) times `factor`, the lane's
/// half of the columns.
template <typename T>
__device__ inline void storeRow16(Matrix16<T> m, int64_t row, const float *acc,
                                  int cols, int half, float factor) {
  for (int x = half; x < cols; x += 2)
    m.data[row * m.rs + x * m.cs] = narrow16<T>(acc[x] * factor);
}

template <typename T>
TFLRT_ATTENTION_KERNEL keysBackward16(View q, View k, View v, View dy, View dk,
                                      View dv, const float *stats, Problem p,
                                      int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int at = warp * kWarpRows;
  Carver carve{reinterpret_cast<char *>(shared)};
  T *ks = carve.tile<T>(e);
  T *vs = carve.tile<T>(f);
  T *qs = carve.tile<T>(e);
  T *dys = carve.tile<T>(f);
  float *sw = carve.warpRows<float>(kScorePitch, warp);
  float *dpw = carve.warpRows<float>(kScorePitch, warp);
  T *pw = carve.warpRows<T>(kWeightPitch, warp);
  T *dsw = carve.warpRows<T>(kWeightPitch, warp);
  float *dkw = carve.warpRows<float>(e + 4, warp);
  float *dvw = carve.warpRows<float>(f + 4, warp);
  float *lse = carve.take<float>(kTile16), *dd = carve.take<float>(kTile16);
  const int64_t b = blockIdx.x, j0 = int64_t(blockIdx.y) * kTile16;
  const int rr = lane / 2, half = lane % 2;
  const int64_t key = j0 + at + rr;
  loadTile16(ks, matrixOf<T>(k, b), j0, p.s, e);
  loadTile16(vs, matrixOf<T>(v, b), j0, p.s, f);
  zeroWarpRows(dkw, e + 4, lane);
  zeroWarpRows(dvw, f + 4, lane);
  __syncthreads(); // (the zeros seen by every lane, even with no query tile)
  const Matrix16<T> mq = matrixOf<T>(q, b), mdy = matrixOf<T>(dy, b);
  for (int64_t i0 = p.causal ? j0 : 0; i0 < p.t; i0 += kTile16) {
    __syncthreads(); // the last query tile is read
    loadTile16(qs, mq, i0, p.t, e);
    loadTile16(dys, mdy, i0, p.t, f);
    loadRowStats(lse, dd, stats, p, b, i0, kTile16, batch);
    __syncthreads();
    timesTransposed(sw, ks + at * pitch16(e), pitch16(e), qs, pitch16(e), e);
    timesTransposed(dpw, vs + at * pitch16(f), pitch16(f), dys, pitch16(f), f);
    __syncwarp();
    weights16(p, sw, dpw, pw, dsw, lse, dd, key, i0, lane, true);
    __syncwarp();
    addProduct(dvw, pw, dys, pitch16(f), f);
    addProduct(dkw, dsw, qs, pitch16(e), e);
    __syncwarp();
  }
  if (key >= p.s)
    return;
  storeRow16(matrixOf<T>(dk, b), key, dkw + rr * (e + 4), e, half, p.scale);
  storeRow16(matrixOf<T>(dv, b), key, dvw + rr * (f + 4), f, half, 1.0f);
}

template <typename T>
TFLRT_ATTENTION_KERNEL queriesBackward16(View q, View k, View v, View dy,
                                         View dq, const float *stats, Problem p,
                                         int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int at = warp * kWarpRows;
  Carver carve{reinterpret_cast<char *>(shared)};
  T *qs = carve.tile<T>(e);
  T *dys = carve.tile<T>(f);
  T *ks = carve.tile<T>(e);
  T *vs = carve.tile<T>(f);
  float *sw = carve.warpRows<float>(kScorePitch, warp);
  float *dpw = carve.warpRows<float>(kScorePitch, warp);
  T *dsw = carve.warpRows<T>(kWeightPitch, warp);
  float *dqw = carve.warpRows<float>(e + 4, warp);
  const int64_t b = blockIdx.x, i0 = int64_t(blockIdx.y) * kTile16;
  const int rr = lane / 2, half = lane % 2;
  const int64_t row = i0 + at + rr;
  loadTile16(qs, matrixOf<T>(q, b), i0, p.t, e);
  loadTile16(dys, matrixOf<T>(dy, b), i0, p.t, f);
  zeroWarpRows(dqw, e + 4, lane);
  __syncthreads(); // (the zeros seen by every lane, even with no key tile)
  const bool in = row < p.t;
  const float lse = in ? stats[b * p.t + row] : 0.0f;
  const float d = in ? stats[(batch + b) * p.t + row] : 0.0f;
  const Matrix16<T> mk = matrixOf<T>(k, b), mv = matrixOf<T>(v, b);
  for (int64_t j0 = 0; j0 < keysSeen16(p, i0); j0 += kTile16) {
    __syncthreads(); // the last key tile is read
    loadTile16(ks, mk, j0, p.s, e);
    loadTile16(vs, mv, j0, p.s, f);
    __syncthreads();
    timesTransposed(sw, qs + at * pitch16(e), pitch16(e), ks, pitch16(e), e);
    timesTransposed(dpw, dys + at * pitch16(f), pitch16(f), vs, pitch16(f), f);
    __syncwarp();
    weights16<T>(p, sw, dpw, nullptr, dsw, &lse, &d, row, j0, lane, false);
    __syncwarp();
    addProduct(dqw, dsw, ks, pitch16(e), e);
    __syncwarp();
  }
  if (in)
    storeRow16(matrixOf<T>(dq, b), row, dqw + rr * (e + 4), e, half, p.scale);
}

// ---- Host side --------------------------------------------------------------

/// Whether the 16-bit kernels take heads of e and f features.
inline bool takes16(int64_t e, int64_t f) {
  return e % 16 == 0 && f % 16 == 0 && e > 0 && f > 0 && e <= kMaxHead &&
         f <= kMaxHead;
}

inline int64_t tiles16(int64_t n) { return (n + kTile16 - 1) / kTile16; }

/// Bytes of shared memory each 16-bit kernel takes (elements of 2 bytes).
inline size_t forward16Shared(const Problem &p) {
  int64_t e = p.e, f = p.f, rows = kWarps * kWarpRows;
  return 2 * kTile16 * (2 * pitch16(int(e)) + pitch16(int(f))) +
         4 * rows * kScorePitch + 2 * rows * kWeightPitch + 4 * rows * (f + 4);
}
inline size_t stats16Shared(const Problem &p) {
  int64_t rows = kWarps * kWarpRows;
  return 2 * kTile16 * 2 * pitch16(int(p.e)) + 4 * rows * kScorePitch +
         2 * rows * kWeightPitch;
}
inline size_t keys16Shared(const Problem &p) {
  int64_t e = p.e, f = p.f, rows = kWarps * kWarpRows;
  return 2 * kTile16 * 2 * (pitch16(int(e)) + pitch16(int(f))) +
         2 * 4 * rows * kScorePitch + 2 * 2 * rows * kWeightPitch +
         4 * rows * (e + 4 + f + 4) + 2 * 4 * kTile16;
}
inline size_t queries16Shared(const Problem &p) {
  int64_t e = p.e, f = p.f, rows = kWarps * kWarpRows;
  return 2 * kTile16 * 2 * (pitch16(int(e)) + pitch16(int(f))) +
         2 * 4 * rows * kScorePitch + 2 * rows * kWeightPitch +
         4 * rows * (e + 4);
}
/// The most any 16-bit kernel takes (heads of kMaxHead features).
inline size_t mostShared16() {
  Problem widest{1, 1, kMaxHead, kMaxHead, 0, 1.0f};
  return keys16Shared(widest);
}

/// The tensor-core kernels of T (bf16 or f16), for runForward and
/// runBackward (AttentionKernels.cuh).
template <typename T> struct Kernels {
  static constexpr auto forward = forward16<T>;
  static constexpr auto rowStats = rowStats16<T>;
  static constexpr auto queriesBackward = queriesBackward16<T>;
  static constexpr auto keysBackward = keysBackward16<T>;
  static int64_t tiles(int64_t n) { return tiles16(n); }
  static size_t forwardShared(const Problem &p) { return forward16Shared(p); }
  static size_t statsShared(const Problem &p) { return stats16Shared(p); }
  static size_t queriesShared(const Problem &p) { return queries16Shared(p); }
  static size_t keysShared(const Problem &p) { return keys16Shared(p); }
};

} // namespace tflrt::cuda::attention

#endif // TFLRT_CUDA_ATTENTIONKERNELS16_CUH
