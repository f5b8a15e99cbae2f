//===- AttentionKernels.cuh - Fused attention's GPU kernels ----*- CUDA -*-===//
//
// tfl.attention and its adjoint on the GPU, in the FlashAttention manner:
// no [T, S] matrix is written, each block keeps tiles of 32 query rows and
// 32 keys in shared memory. q [..., T, E], k [..., S, E], v [..., S, F] and
// the results are f32 views of any strides (the leading dims a batch,
// tfl.attention's seq_major layout read in place); E and F are at most
// kMaxHead. A block has 128 threads, four to a row of its tile, each lane
// holding every fourth column of the row's accumulators in registers.
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
#define TFLRT_SHARED_FLOATS(name) extern __shared__ float name[]
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

/// One problem's sizes: T queries, S keys, E features of q and k, F of v.
struct Problem {
  int64_t t, s, e, f;
  int causal;
  float scale;
};

/// One problem's matrix in a view: element (r, c) at data[r * rs + c * cs].
struct Matrix {
  float *data;
  int64_t rs, cs;
};

/// Problem `b`'s matrix of `v` (its leading dims the batch, row-major).
__host__ __device__ inline Matrix matrixOf(const View &v, int64_t b) {
  int64_t offset = 0;
  for (int64_t dim = v.rank - 3; dim >= 0; --dim) {
    offset += (b % v.sizes[dim]) * v.strides[dim];
    b /= v.sizes[dim];
  }
  return {reinterpret_cast<float *>(v.data) + offset, v.strides[v.rank - 2],
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

/// Rows [r0, r0 + kRows) of `m`, `cols` columns, into `tile` (a row every
/// cols + 1 floats, against bank conflicts); zeros for rows from `limit`.
__device__ inline void loadTile(float *tile, Matrix m, int64_t r0,
                                int64_t limit, int cols) {
  for (int i = threadIdx.x; i < kRows * cols; i += kBlockThreads) {
    int r = i / cols, c = i % cols;
    tile[r * (cols + 1) + c] =
        r0 + r < limit ? m.data[(r0 + r) * m.rs + c * m.cs] : 0.0f;
  }
}

/// The dot product of tile rows a and b (`n` floats each).
__device__ inline float dot(const float *a, const float *b, int n) {
  float sum = 0.0f;
  for (int x = 0; x < n; ++x)
    sum += a[x] * b[x];
  return sum;
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
  float s[kPerTile], most = -INFINITY;
  TFLRT_UNROLL
  for (int c = 0; c < kPerTile; ++c) {
    int jj = lane + kLanes * c;
    float score = dot(qRow, ks + jj * (p.e + 1), static_cast<int>(p.e));
    s[c] = sees(p, row, j0 + jj) ? score * p.scale : -INFINITY;
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
static __global__ void __launch_bounds__(kBlockThreads)
    forward(View q, View k, View v, View out, Problem p) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  float *qs = shared, *kv = qs + kRows * (e + 1),
        *ps = kv + kKeys * ((e > f ? e : f) + 1);
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
    onlineSoftmax(p, qs + r * (e + 1), kv, row, j0, lane, ps + r * (kKeys + 1),
                  m, l, acc);
    __syncthreads(); // the keys are read, the weights written
    loadTile(kv, mv, j0, p.s, f);
    __syncthreads();
    for (int jj = 0; jj < kKeys; ++jj) {
      float w = ps[r * (kKeys + 1) + jj];
      const float *vRow = kv + jj * (f + 1);
      TFLRT_UNROLL
      for (int a = 0; a < kPerLane; ++a)
        if (lane + kLanes * a < f)
          acc[a] += w * vRow[lane + kLanes * a];
    }
  }
  if (row >= p.t)
    return;
  const Matrix mo = matrixOf(out, b);
  TFLRT_UNROLL
  for (int a = 0; a < kPerLane; ++a)
    if (lane + kLanes * a < f)
      mo.data[row * mo.rs + (lane + kLanes * a) * mo.cs] = acc[a] / l;
}

/// stats[b T + i] = logsumexp over the keys row i sees of its scaled
/// scores, stats[(batch + b) T + i] = sum over F of dy * out.
static __global__ void __launch_bounds__(kBlockThreads)
    rowStats(View q, View k, View out, View dy, float *stats, Problem p,
             int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  float *qs = shared, *ks = qs + kRows * (e + 1);
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
    onlineSoftmax(p, qs + r * (e + 1), ks, row, j0, lane, nullptr, m, l,
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

/// p and ds of query row i (tile row `rr`) and key j (tile row `c`):
/// p = e^(scale q k - lse), ds = p (dy v - D).
__device__ inline void weights(const Problem &p, const float *qRow,
                               const float *dyRow, const float *kRow,
                               const float *vRow, float lse, float d, int64_t i,
                               int64_t j, float &w, float &ds) {
  float score = dot(qRow, kRow, static_cast<int>(p.e));
  float dp = dot(dyRow, vRow, static_cast<int>(p.f));
  w = sees(p, i, j) ? expf(score * p.scale - lse) : 0.0f;
  ds = w * (dp - d);
}

/// dk and dv; block (b, tile) of keys, over the query tiles that see them.
static __global__ void __launch_bounds__(kBlockThreads)
    keysBackward(View q, View k, View v, View dy, View dk, View dv,
                 const float *stats, Problem p, int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  float *ks = shared, *vs = ks + kKeys * (e + 1), *qs = vs + kKeys * (f + 1),
        *dys = qs + kRows * (e + 1), *ps = dys + kRows * (f + 1),
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
    for (int i = threadIdx.x; i < kRows; i += kBlockThreads) {
      bool in = i0 + i < p.t;
      lse[i] = in ? stats[b * p.t + i0 + i] : 0.0f;
      dd[i] = in ? stats[(batch + b) * p.t + i0 + i] : 0.0f;
    }
    __syncthreads();
    TFLRT_UNROLL
    for (int u = 0; u < kPerTile; ++u) {
      int rr = lane + kLanes * u;
      weights(p, qs + rr * (e + 1), dys + rr * (f + 1), ks + c * (e + 1),
              vs + c * (f + 1), lse[rr], dd[rr], i0 + rr, j0 + c,
              ps[rr * (kKeys + 1) + c], dss[rr * (kKeys + 1) + c]);
    }
    __syncthreads();
    for (int rr = 0; rr < kRows; ++rr) {
      float w = ps[rr * (kKeys + 1) + c], g = dss[rr * (kKeys + 1) + c];
      const float *qRow = qs + rr * (e + 1), *dyRow = dys + rr * (f + 1);
      TFLRT_UNROLL
      for (int a = 0; a < kPerLane; ++a) {
        int x = lane + kLanes * a;
        if (x < f)
          dvAcc[a] += w * dyRow[x];
        if (x < e)
          dkAcc[a] += g * qRow[x];
      }
    }
  }
  const int64_t j = j0 + c;
  if (j >= p.s)
    return;
  const Matrix mdk = matrixOf(dk, b), mdv = matrixOf(dv, b);
  TFLRT_UNROLL
  for (int a = 0; a < kPerLane; ++a) {
    int x = lane + kLanes * a;
    if (x < e)
      mdk.data[j * mdk.rs + x * mdk.cs] = dkAcc[a] * p.scale;
    if (x < f)
      mdv.data[j * mdv.rs + x * mdv.cs] = dvAcc[a];
  }
}

/// dq; block (b, tile) of query rows, over the key tiles they see.
static __global__ void __launch_bounds__(kBlockThreads)
    queriesBackward(View q, View k, View v, View dy, View dq,
                    const float *stats, Problem p, int64_t batch) {
  TFLRT_SHARED_FLOATS(shared);
  const int e = static_cast<int>(p.e), f = static_cast<int>(p.f);
  float *qs = shared, *dys = qs + kRows * (e + 1), *ks = dys + kRows * (f + 1),
        *vs = ks + kKeys * (e + 1), *dss = vs + kKeys * (f + 1);
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
    float w;
    TFLRT_UNROLL
    for (int u = 0; u < kPerTile; ++u) {
      int jj = lane + kLanes * u;
      weights(p, qs + r * (e + 1), dys + r * (f + 1), ks + jj * (e + 1),
              vs + jj * (f + 1), lse, d, row, j0 + jj, w,
              dss[r * (kKeys + 1) + jj]);
    }
    __syncthreads();
    for (int jj = 0; jj < kKeys; ++jj) {
      float g = dss[r * (kKeys + 1) + jj];
      const float *kRow = ks + jj * (e + 1);
      TFLRT_UNROLL
      for (int a = 0; a < kPerLane; ++a)
        if (lane + kLanes * a < e)
          acc[a] += g * kRow[lane + kLanes * a];
    }
  }
  if (!in)
    return;
  const Matrix mdq = matrixOf(dq, b);
  TFLRT_UNROLL
  for (int a = 0; a < kPerLane; ++a)
    if (lane + kLanes * a < e)
      mdq.data[row * mdq.rs + (lane + kLanes * a) * mdq.cs] = acc[a] * p.scale;
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
  int64_t widest = p.e > p.f ? p.e : p.f;
  return sizeof(float) *
         (kRows * (p.e + 1) + kKeys * (widest + 1) + kRows * (kKeys + 1));
}
inline size_t statsShared(const Problem &p) {
  return sizeof(float) * (kRows + kKeys) * (p.e + 1);
}
inline size_t keysShared(const Problem &p) {
  return sizeof(float) * ((kRows + kKeys) * (p.e + p.f + 2) +
                          2 * kRows * (kKeys + 1) + 2 * kRows);
}
inline size_t queriesShared(const Problem &p) {
  return sizeof(float) *
         ((kRows + kKeys) * (p.e + p.f + 2) + kRows * (kKeys + 1));
}
/// The most any kernel takes (heads of kMaxHead features).
inline size_t mostShared() {
  Problem widest{1, 1, kMaxHead, kMaxHead, 0, 1.0f};
  return keysShared(widest);
}

/// out = attention(q, k, v).
template <typename Launch>
void runForward(Launch &&launch, const View &q, const View &k, const View &v,
                const View &out, const Problem &p) {
  int64_t batch = batchOf(q);
  if (batch > 0 && p.t > 0)
    launch(forward, batch, tiles(p.t), forwardShared(p), q, k, v, out, p);
}

/// Floats of device scratch runBackward takes.
inline int64_t backwardScratch(const View &q, const Problem &p) {
  return 2 * batchOf(q) * p.t;
}

/// dq, dk and dv, with `stats` backwardScratch floats of device memory.
template <typename Launch>
void runBackward(Launch &&launch, const View &q, const View &k, const View &v,
                 const View &out, const View &dy, const View &dq,
                 const View &dk, const View &dv, const Problem &p,
                 float *stats) {
  int64_t batch = batchOf(q);
  if (batch == 0)
    return;
  if (p.t > 0) {
    launch(rowStats, batch, tiles(p.t), statsShared(p), q, k, out, dy, stats, p,
           batch);
    launch(queriesBackward, batch, tiles(p.t), queriesShared(p), q, k, v, dy,
           dq, static_cast<const float *>(stats), p, batch);
  }
  if (p.s > 0)
    launch(keysBackward, batch, tiles(p.s), keysShared(p), q, k, v, dy, dk, dv,
           static_cast<const float *>(stats), p, batch);
}

} // namespace tflrt::cuda::attention

#endif // TFLRT_CUDA_ATTENTIONKERNELS_CUH
