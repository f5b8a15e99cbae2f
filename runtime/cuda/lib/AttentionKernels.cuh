//===- AttentionKernels.cuh - Fused attention's GPU kernels ----*- CUDA -*-===//
//
// tfl.attention and its adjoint on the GPU, in the FlashAttention manner:
// no [T, S] matrix is written, each block keeps tiles of 32 query rows and
// 32 keys in shared memory. q [..., T, E], k [..., S, E], v [..., S, F] and
// the results are f32 views of any strides (the leading dims a batch,
// tfl.attention's seq_major layout read in place); E and F are at most
// kMaxHead. A block has 128 threads, four to a row of its tile, each lane
// holding every fourth float4 of the row's accumulators in registers. The
// tiles' rows are padded to whole float4s (zeros) and read a float4 at a
// time, each one loaded once for the eight dot products a lane makes with
// it (with a load per multiply-add, the rate of shared memory loads would
// hold a kernel to a fraction of the FMA rate).
//
//   forward:       per block of query rows, over the key tiles it can see
//                  (causal: keys j <= i), the scores' running maximum and
//                  sum (the online softmax), out = sum p v / sum p;
//   rowStats:      per query row, logsumexp of its scaled scores and D =
//                  rowsum(dy * out), which the two below read;
//   keysBackward:  per block of keys, over the query tiles that see them,
//                  p = e^(scale q k^T - lse), dv += p^T dy, ds = p (dy v^T
//                  - D), dk += scale ds^T q;
//   queriesBackward: per block of query rows, dq += scale ds k over the
//                  key tiles, p and ds computed as above.
//
// Each result element is summed by one thread in a fixed order, so a run
// repeats its numbers bit for bit (no atomics). The kernels use only
// __syncthreads, __shfl_xor_sync among a row's four lanes and dynamic
// shared memory, so that a test runs this very code on the host's threads
// (test/unit/CudaEmulation.h). The launches go through a `launch(kernel,
// gridX, gridY, sharedBytes, args...)` the includer supplies (grid x the
// batch, y the tiles; kBlockThreads threads).
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CUDA_ATTENTIONKERNELS_CUH
#define TFLRT_CUDA_ATTENTIONKERNELS_CUH

#include "View.cuh"

#include <cmath>
#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define TFLRT_SHARED_FLOATS(name) extern __shared__ __align__(128) float name[]
#define TFLRT_UNROLL _Pragma("unroll")
#else
#define TFLRT_UNROLL
#define TFLRT_SHARED_FLOATS(name)                                              \
  float *name = ::tflrt::cuda::emulation::sharedFloats()
#endif

namespace tflrt::cuda::attention {

/// Query rows and keys of a tile, threads of a block and of a row.
constexpr int kRows = 32, kKeys = 32, kBlockThreads = 128, kLanes = 4;
/// The most features (E or F) a head may have here.
constexpr int kMaxHead = 128;
/// Accumulators per lane (features kLanes apart), and a tile's rows or keys
/// per lane.
constexpr int kPerLane = kMaxHead / kLanes, kPerTile = kRows / kLanes;
static_assert(kRows == kKeys && kRows * kLanes == kBlockThreads,
              "a tile's rows (or keys) share the block, four threads each");

/// A kernel (internal to its source) of kBlockThreads threads a block.
#define TFLRT_ATTENTION_KERNEL                                                 \
  static __global__ void __launch_bounds__(kBlockThreads)

/// One problem's sizes: T queries, S keys, E features of q and k, F of v.
struct Problem {
  int64_t t, s, e, f;
  int causal;
  float scale;
};

/// One problem's matrix in a view: element (r, c) at data[r * rs + c * cs]
/// (of floats, or of the tensor-core kernels' 16-bit elements).
template <typename T> struct MatrixOf {
  T *data;
  int64_t rs, cs;
};
using Matrix = MatrixOf<float>;

/// Problem `b`'s matrix of `v` (its leading dims the batch, row-major).
template <typename T = float>
__host__ __device__ inline MatrixOf<T> matrixOf(const View &v, int64_t b) {
  int64_t offset = 0;
  for (int64_t dim = v.rank - 3; dim >= 0; --dim) {
    offset += (b % v.sizes[dim]) * v.strides[dim];
    b /= v.sizes[dim];
  }
  return {reinterpret_cast<T *>(v.data) + offset, v.strides[v.rank - 2],
          v.strides[v.rank - 1]};
}

__device__ inline float rowMax(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}

__device__ inline float rowSum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

/// Floats of a tile row of `cols` columns: whole float4s, and 4 more when
/// that makes a multiple of 8, so that rows start 4 banks apart (mod 8)
/// and the float4 loads of 8 rows at once hit distinct banks.
__host__ __device__ inline int widthOf(int cols) { return (cols + 3) / 4 * 4; }
__host__ __device__ inline int pitchOf(int cols) {
  int w = widthOf(cols);
  return w % 8 == 0 ? w + 4 : w;
}

__device__ inline float4 load4(const float *p) {
  return *reinterpret_cast<const float4 *>(p);
}

/// Rows [r0, r0 + kRows) of `m`, `cols` columns, into `tile` (rows of
/// pitchOf(cols) floats, zeros up to widthOf(cols)); zeros for rows from
/// `limit`.
__device__ inline void loadTile(float *tile, Matrix m, int64_t r0,
                                int64_t limit, int cols) {
  const int width = widthOf(cols), pitch = pitchOf(cols);
  for (int i = threadIdx.x; i < kRows * width; i += kBlockThreads) {
    int r = i / width, c = i % width;
    tile[r * pitch + c] =
        r0 + r < limit && c < cols ? m.data[(r0 + r) * m.rs + c * m.cs] : 0.0f;
  }
}

/// s[c] = the dot product of `row` with tile row lane + 4 c of `tile`
/// (kPerTile of them, `width` floats each), summed in column order: each
/// float4 of `row` is loaded once for all of them.
__device__ inline void dots(const float *row, const float *tile, int pitch,
                            int width, int lane, float *s) {
  TFLRT_UNROLL
  for (int c = 0; c < kPerTile; ++c)
    s[c] = 0.0f;
  for (int x = 0; x < width; x += 4) {
    float4 u = load4(row + x);
    TFLRT_UNROLL
    for (int c = 0; c < kPerTile; ++c) {
      float4 v = load4(tile + (lane + kLanes * c) * pitch + x);
      s[c] += u.x * v.x;
      s[c] += u.y * v.y;
      s[c] += u.z * v.z;
      s[c] += u.w * v.w;
    }
  }
}

/// The feature of a lane's accumulator `a`: a row's float4s are dealt to
/// its four lanes in turn (lane l holds features 16 i + 4 l .. 16 i + 4 l
/// + 3), so that the lanes' float4 loads of one tile row hit distinct
/// banks.
__device__ inline int featureOf(int lane, int a) {
  return 16 * (a / 4) + 4 * lane + a % 4;
}

/// acc[a] += w * row[featureOf(lane, a)] over the row's `width` floats.
__device__ inline void addScaled(float *acc, float w, const float *row,
                                 int width, int lane) {
  TFLRT_UNROLL
  for (int i = 0; i < kPerLane / 4; ++i) {
    int x = 16 * i + 4 * lane;
    if (x < width) {
      float4 v = load4(row + x);
      acc[4 * i] += w * v.x;
      acc[4 * i + 1] += w * v.y;
      acc[4 * i + 2] += w * v.z;
      acc[4 * i + 3] += w * v.w;
    }
  }
}

/// Row `row` of `m` (`cols` columns) = acc times `factor`, or divided by
/// `divisor`.
__device__ inline void storeRow(Matrix m, int64_t row, int cols, int lane,
                                const float *acc, float factor, float divisor) {
  TFLRT_UNROLL
  for (int a = 0; a < kPerLane; ++a) {
    int x = featureOf(lane, a);
    if (x < cols)
      m.data[row * m.rs + x * m.cs] = acc[a] * factor / divisor;
  }
}

/// Whether query i sees key j.
__device__ inline bool sees(const Problem &p, int64_t i, int64_t j) {
  return i < p.t && j < p.s && !(p.causal && j > i);
}

/// The keys a tile of queries from i0 reads: all, or causally those before
/// its last row.
__device__ inline int64_t keysSeen(const Problem &p, int64_t i0) {
  int64_t last = i0 + kRows;
  return p.causal && last < p.s ? last : p.s;
}

/// The running maximum `m` and sum `l` of one row's scaled scores, over
/// the key tile in `ks` whose scores this lane computes (keys lane,
/// lane + 4, ...); e^(score - m) goes to `ps` (the row's tile row), and
/// `acc` is rescaled to the new maximum.
__device__ inline void onlineSoftmax(const Problem &p, const float *qRow,
                                     const float *ks, int64_t row, int64_t j0,
                                     int lane, float *ps, float &m, float &l,
                                     float *acc) {
  const int e = static_cast<int>(p.e);
  float s[kPerTile], most = -INFINITY;
  dots(qRow, ks, pitchOf(e), widthOf(e), lane, s);
  TFLRT_UNROLL
  for (int c = 0; c < kPerTile; ++c) {
    s[c] = sees(p, row, j0 + lane + kLanes * c) ? s[c] * p.scale : -INFINITY;
    most = fmaxf(most, s[c]);
  }
  float next = fmaxf(m, rowMax(most)), sum = 0.0f;
  TFLRT_UNROLL
  for (int c = 0; c < kPerTile; ++c) {
    float e = s[c] == -INFINITY ? 0.0f : expf(s[c] - next);
    if (ps)
      ps[lane + kLanes * c] = e;
    sum += e;
  }
  float rescale = m == -INFINITY ? 0.0f : expf(m - next);
  l = l * rescale + rowSum(sum);
  m = next;
  if (acc) {
    TFLRT_UNROLL
    for (int a = 0; a < kPerLane; ++a)
      acc[a] *= rescale;
  }
}

/// out = softmax(scale q k^T) v; block (b, tile) of query rows.
TFLRT_ATTENTION_KERNEL forward(View q, View k, View v, View out, Problem p) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  const int pe = pitchOf(e), pf = pitchOf(f);
  float *qs = shared, *kv = qs + kRows * pe,
        *ps = kv + kKeys * (pe > pf ? pe : pf);
  const int64_t b = blockIdx.x, i0 = int64_t(blockIdx.y) * kRows;
  const int r = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
  const int64_t row = i0 + r;
  loadTile(qs, matrixOf(q, b), i0, p.t, e);
  float m = -INFINITY, l = 0.0f, acc[kPerLane];
  TFLRT_UNROLL
  for (int a = 0; a < kPerLane; ++a)
    acc[a] = 0.0f;
  const Matrix mk = matrixOf(k, b), mv = matrixOf(v, b);
  for (int64_t j0 = 0; j0 < keysSeen(p, i0); j0 += kKeys) {
    __syncthreads(); // the last tile's values and weights are read
    loadTile(kv, mk, j0, p.s, e);
    __syncthreads();
    onlineSoftmax(p, qs + r * pe, kv, row, j0, lane, ps + r * (kKeys + 1), m, l,
                  acc);
    __syncthreads(); // the keys are read, the weights written
    loadTile(kv, mv, j0, p.s, f);
    __syncthreads();
    for (int jj = 0; jj < kKeys; ++jj)
      addScaled(acc, ps[r * (kKeys + 1) + jj], kv + jj * pf, widthOf(f), lane);
  }
  if (row < p.t)
    storeRow(matrixOf(out, b), row, f, lane, acc, 1.0f, l);
}

/// stats[b T + i] = logsumexp over the keys row i sees of its scaled
/// scores, stats[(batch + b) T + i] = sum over F of dy * out.
TFLRT_ATTENTION_KERNEL rowStats(View q, View k, View out, View dy, float *stats,
                                Problem p, int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  float *qs = shared, *ks = qs + kRows * pitchOf(e);
  const int64_t b = blockIdx.x, i0 = int64_t(blockIdx.y) * kRows;
  const int r = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
  const int64_t row = i0 + r;
  loadTile(qs, matrixOf(q, b), i0, p.t, e);
  const Matrix mk = matrixOf(k, b);
  float m = -INFINITY, l = 0.0f;
  for (int64_t j0 = 0; j0 < keysSeen(p, i0); j0 += kKeys) {
    __syncthreads();
    loadTile(ks, mk, j0, p.s, e);
    __syncthreads();
    onlineSoftmax(p, qs + r * pitchOf(e), ks, row, j0, lane, nullptr, m, l,
                  nullptr);
  }
  float d = 0.0f;
  if (row < p.t) {
    const Matrix mo = matrixOf(out, b), mdy = matrixOf(dy, b);
    for (int x = lane; x < f; x += kLanes)
      d += mdy.data[row * mdy.rs + x * mdy.cs] *
           mo.data[row * mo.rs + x * mo.cs];
  }
  d = rowSum(d);
  if (row < p.t && lane == 0) {
    stats[b * p.t + row] = m + logf(l);
    stats[(batch + b) * p.t + row] = d;
  }
}

/// lse[i] and d[i] of the tile's query rows i0 + i, i < n, from rowStats'
/// `stats` (zeros past T), loaded by the block's threads.
__device__ inline void loadRowStats(float *lse, float *d, const float *stats,
                                    const Problem &p, int64_t b, int64_t i0,
                                    int n, int64_t batch) {
  for (int i = threadIdx.x; i < n; i += kBlockThreads) {
    bool in = i0 + i < p.t;
    lse[i] = in ? stats[b * p.t + i0 + i] : 0.0f;
    d[i] = in ? stats[(batch + b) * p.t + i0 + i] : 0.0f;
  }
}

/// p = e^(scale s - lse), the softmax's weight of score s, where query i
/// sees key j (else 0).
__device__ inline float weightOf(const Problem &p, float s, float lse,
                                 int64_t i, int64_t j) {
  return sees(p, i, j) ? expf(s * p.scale - lse) : 0.0f;
}

/// dk and dv; block (b, tile) of keys, over the query tiles that see them.
TFLRT_ATTENTION_KERNEL keysBackward(View q, View k, View v, View dy, View dk,
                                    View dv, const float *stats, Problem p,
                                    int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  const int pe = pitchOf(e), pf = pitchOf(f);
  float *ks = shared, *vs = ks + kKeys * pe, *qs = vs + kKeys * pf,
        *dys = qs + kRows * pe, *ps = dys + kRows * pf,
        *dss = ps + kRows * (kKeys + 1), *lse = dss + kRows * (kKeys + 1),
        *dd = lse + kRows;
  const int64_t b = blockIdx.x, j0 = int64_t(blockIdx.y) * kKeys;
  const int c = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
  loadTile(ks, matrixOf(k, b), j0, p.s, e);
  loadTile(vs, matrixOf(v, b), j0, p.s, f);
  const Matrix mq = matrixOf(q, b), mdy = matrixOf(dy, b);
  float dkAcc[kPerLane], dvAcc[kPerLane];
  TFLRT_UNROLL
  for (int a = 0; a < kPerLane; ++a)
    dkAcc[a] = dvAcc[a] = 0.0f;
  for (int64_t i0 = p.causal ? j0 / kRows * kRows : 0; i0 < p.t; i0 += kRows) {
    __syncthreads(); // the last tile's rows are read
    loadTile(qs, mq, i0, p.t, e);
    loadTile(dys, mdy, i0, p.t, f);
    loadRowStats(lse, dd, stats, p, b, i0, kRows, batch);
    __syncthreads();
    // This key against the tile's rows lane, lane + 4, ...: p and ds =
    // p (dp - D).
    float s[kPerTile], dp[kPerTile];
    dots(ks + c * pe, qs, pe, widthOf(e), lane, s);
    dots(vs + c * pf, dys, pf, widthOf(f), lane, dp);
    TFLRT_UNROLL
    for (int u = 0; u < kPerTile; ++u) {
      int rr = lane + kLanes * u;
      float w = weightOf(p, s[u], lse[rr], i0 + rr, j0 + c);
      ps[rr * (kKeys + 1) + c] = w;
      dss[rr * (kKeys + 1) + c] = w * (dp[u] - dd[rr]);
    }
    __syncthreads();
    for (int rr = 0; rr < kRows; ++rr) {
      addScaled(dvAcc, ps[rr * (kKeys + 1) + c], dys + rr * pf, widthOf(f),
                lane);
      addScaled(dkAcc, dss[rr * (kKeys + 1) + c], qs + rr * pe, widthOf(e),
                lane);
    }
  }
  const int64_t j = j0 + c;
  if (j >= p.s)
    return;
  storeRow(matrixOf(dk, b), j, e, lane, dkAcc, p.scale, 1.0f);
  storeRow(matrixOf(dv, b), j, f, lane, dvAcc, 1.0f, 1.0f);
}

/// dq; block (b, tile) of query rows, over the key tiles they see.
TFLRT_ATTENTION_KERNEL queriesBackward(View q, View k, View v, View dy, View dq,
                                       const float *stats, Problem p,
                                       int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  const int pe = pitchOf(e), pf = pitchOf(f);
  float *qs = shared, *dys = qs + kRows * pe, *ks = dys + kRows * pf,
        *vs = ks + kKeys * pe, *dss = vs + kKeys * pf;
  const int64_t b = blockIdx.x, i0 = int64_t(blockIdx.y) * kRows;
  const int r = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
  const int64_t row = i0 + r;
  loadTile(qs, matrixOf(q, b), i0, p.t, e);
  loadTile(dys, matrixOf(dy, b), i0, p.t, f);
  const bool in = row < p.t;
  const float lse = in ? stats[b * p.t + row] : 0.0f;
  const float d = in ? stats[(batch + b) * p.t + row] : 0.0f;
  const Matrix mk = matrixOf(k, b), mv = matrixOf(v, b);
  float acc[kPerLane];
  TFLRT_UNROLL
  for (int a = 0; a < kPerLane; ++a)
    acc[a] = 0.0f;
  for (int64_t j0 = 0; j0 < keysSeen(p, i0); j0 += kKeys) {
    __syncthreads(); // the last tile's keys and gradients are read
    loadTile(ks, mk, j0, p.s, e);
    loadTile(vs, mv, j0, p.s, f);
    __syncthreads();
    // This row against the tile's keys lane, lane + 4, ...: ds.
    float s[kPerTile], dp[kPerTile];
    dots(qs + r * pe, ks, pe, widthOf(e), lane, s);
    dots(dys + r * pf, vs, pf, widthOf(f), lane, dp);
    TFLRT_UNROLL
    for (int u = 0; u < kPerTile; ++u) {
      int jj = lane + kLanes * u;
      dss[r * (kKeys + 1) + jj] =
          weightOf(p, s[u], lse, row, j0 + jj) * (dp[u] - d);
    }
    __syncthreads();
    for (int jj = 0; jj < kKeys; ++jj)
      addScaled(acc, dss[r * (kKeys + 1) + jj], ks + jj * pe, widthOf(e), lane);
  }
  if (in)
    storeRow(matrixOf(dq, b), row, e, lane, acc, p.scale, 1.0f);
}

// ---- Host side: the launches ----------------------------------------------

/// The problems of a batch: the product of q's leading dims.
inline int64_t batchOf(const View &q) {
  int64_t n = 1;
  for (int64_t dim = 0; dim + 2 < q.rank; ++dim)
    n *= q.sizes[dim];
  return n;
}

inline Problem problemOf(const View &q, const View &k, const View &v,
                         bool causal, double scale) {
  int64_t r = q.rank;
  return {q.sizes[r - 2], k.sizes[r - 2], q.sizes[r - 1],
          v.sizes[r - 1], causal ? 1 : 0, static_cast<float>(scale)};
}

inline int64_t tiles(int64_t n) { return (n + kRows - 1) / kRows; }

/// Bytes of shared memory each kernel takes for problem `p`.
inline size_t forwardShared(const Problem &p) {
  int pe = pitchOf(static_cast<int>(p.e)), pf = pitchOf(static_cast<int>(p.f));
  return sizeof(float) *
         (kRows * pe + kKeys * (pe > pf ? pe : pf) + kRows * (kKeys + 1));
}
inline size_t statsShared(const Problem &p) {
  return sizeof(float) * (kRows + kKeys) * pitchOf(static_cast<int>(p.e));
}
inline size_t keysShared(const Problem &p) {
  int pe = pitchOf(static_cast<int>(p.e)), pf = pitchOf(static_cast<int>(p.f));
  return sizeof(float) *
         ((kRows + kKeys) * (pe + pf) + 2 * kRows * (kKeys + 1) + 2 * kRows);
}
inline size_t queriesShared(const Problem &p) {
  int pe = pitchOf(static_cast<int>(p.e)), pf = pitchOf(static_cast<int>(p.f));
  return sizeof(float) * ((kRows + kKeys) * (pe + pf) + kRows * (kKeys + 1));
}
/// The most any kernel takes (heads of kMaxHead features).
inline size_t mostShared() {
  Problem widest{1, 1, kMaxHead, kMaxHead, 0, 1.0f};
  return keysShared(widest);
}

/// The kernels of one element type, their tiles and shared memory: f32
/// here, bf16 and f16 in AttentionKernels16.cuh.
template <typename T> struct Kernels;

template <> struct Kernels<float> {
  static constexpr auto forward = attention::forward;
  static constexpr auto rowStats = attention::rowStats;
  static constexpr auto queriesBackward = attention::queriesBackward;
  static constexpr auto keysBackward = attention::keysBackward;
  static int64_t tiles(int64_t n) { return attention::tiles(n); }
  static size_t forwardShared(const Problem &p) {
    return attention::forwardShared(p);
  }
  static size_t statsShared(const Problem &p) {
    return attention::statsShared(p);
  }
  static size_t queriesShared(const Problem &p) {
    return attention::queriesShared(p);
  }
  static size_t keysShared(const Problem &p) {
    return attention::keysShared(p);
  }
};

/// out = attention(q, k, v), on the kernels of T.
template <typename T, typename Launch>
void runForward(Launch &&launch, const View &q, const View &k, const View &v,
                const View &out, const Problem &p) {
  using K = Kernels<T>;
  int64_t batch = batchOf(q);
  if (batch > 0 && p.t > 0)
    launch(K::forward, batch, K::tiles(p.t), K::forwardShared(p), q, k, v, out,
           p);
}

/// Floats of device scratch runBackward takes.
inline int64_t backwardScratch(const View &q, const Problem &p) {
  return 2 * batchOf(q) * p.t;
}

/// dq, dk and dv on the kernels of T, with `stats` backwardScratch floats
/// of device memory.
template <typename T, typename Launch>
void runBackward(Launch &&launch, const View &q, const View &k, const View &v,
                 const View &out, const View &dy, const View &dq,
                 const View &dk, const View &dv, const Problem &p,
                 float *stats) {
  using K = Kernels<T>;
  int64_t batch = batchOf(q);
  if (batch == 0)
    return;
  const float *rows = stats;
  if (p.t > 0) {
    launch(K::rowStats, batch, K::tiles(p.t), K::statsShared(p), q, k, out, dy,
           stats, p, batch);
    launch(K::queriesBackward, batch, K::tiles(p.t), K::queriesShared(p), q, k,
           v, dy, dq, rows, p, batch);
  }
  if (p.s > 0)
    launch(K::keysBackward, batch, K::tiles(p.s), K::keysShared(p), q, k, v, dy,
           dk, dv, rows, p, batch);
}

} // namespace tflrt::cuda::attention

#endif // TFLRT_CUDA_ATTENTIONKERNELS_CUH
