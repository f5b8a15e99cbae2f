//===- ConvVectors.h - Vectors for the convolution kernels ------*- C++ -*-===//
//
// What the Winograd and few-channel kernels share: vectors of L floats as
// GCC/Clang vector extensions, one register of each ISA's build (16 lanes
// on AVX-512, 8 on AVX2, 4 on the baseline's SSE2), their loads and stores
// at any float's address, NHWC images as plain numbers, and their work
// split among threads. The kernels' inner functions are templates on L,
// built for each ISA with its own width (TFL_ISA_LANE_VARIANTS, Isa.h), and
// each call runs kernelIsa()'s build.
//
// The layouts the kernels share between their steps (transformed tiles and
// filters, the few-channel taps) pad channels to kStepChannels (16), a
// multiple of every width, so that they do not depend on the ISA: a build
// covers a step's channels with 16 / L vectors.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CONVVECTORS_H
#define TFLRT_CONVVECTORS_H

#include "Isa.h"

#include "tflrt/CApi.h"
#include "tflrt/Tensor.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

extern "C" int omp_get_max_threads(void);

namespace tflrt {
namespace {

/// Channels a layout pads to: one AVX-512 vector, two AVX2 ones, four
/// SSE2 ones.
constexpr int64_t kStepChannels = 16;

/// The vectors of L floats: one register of the build for L (a wider
/// vector than the build's registers is lowered through the stack by GCC,
/// which made the AVX2 kernels 5-8 times slower than the AVX-512 ones).
template <int L> struct Lanes {
  static_assert(kStepChannels % L == 0, "a step is whole vectors");
  typedef float Vec __attribute__((vector_size(L * sizeof(float))));
  /// A vector at any float's address.
  typedef float Unaligned
      __attribute__((vector_size(L * sizeof(float)), aligned(4), may_alias));
  /// A vector's bits, for relu and flagNonFinite.
  typedef int32_t Bits __attribute__((vector_size(L * sizeof(float))));
  /// Half as many doubles, in one register too.
  typedef double VecD __attribute__((vector_size(L * sizeof(float))));
  /// Vectors in a step of channels.
  static constexpr int kPerStep = kStepChannels / L;
};

template <int L> using Vec = typename Lanes<L>::Vec;
template <int L> using Bits = typename Lanes<L>::Bits;

/// The floats in a vector of type V.
template <typename V> constexpr int lanesOf() {
  return sizeof(V) / sizeof(float);
}

// Helpers take and return vectors by reference and are always inlined
// (TFL_INLINE, Isa.h): Clang rejects passing a vector wider than the
// baseline's registers by value where the AVX2 and AVX-512 builds call
// them, and an out-of-line call would run the baseline's code.

template <int L>
TFL_INLINE const typename Lanes<L>::Unaligned &load(const float *p) {
  return *reinterpret_cast<const typename Lanes<L>::Unaligned *>(p);
}

template <typename V> TFL_INLINE void store(float *p, const V &v) {
  *reinterpret_cast<typename Lanes<lanesOf<V>()>::Unaligned *>(p) = v;
}

/// relu as compiled code's arith.maximumf(v, +0.0) computes it: NaN stays
/// NaN, negatives and -0.0 become +0.0. In integer arithmetic on the
/// floats' bits: GCC lowers a vector comparison in an inlined helper lane
/// by lane before it knows the clone's ISA (the kernels ran 2-5x slower),
/// where it keeps shifts and masks whole. A float's bits u keep when its
/// sign is clear (u >> 31 is 0) or it is NaN (|u| above infinity's bits,
/// so that infinity minus |u| is negative).
template <typename V> TFL_INLINE void relu(V &v) {
  typedef Bits<lanesOf<V>()> B;
  B u = reinterpret_cast<B>(v);
  B nan = (0x7f800000 - (u & 0x7fffffff)) >> 31;
  v = reinterpret_cast<V>(u & (~(u >> 31) | nan));
}

/// Sets the sign bit of each lane of `flags` where `v` is infinite or NaN
/// (its exponent bits all ones, which adding one to the exponent carries
/// into the sign), in integer arithmetic as relu is.
template <typename V, typename B>
TFL_INLINE void flagNonFinite(const V &v, B &flags) {
  flags |= (reinterpret_cast<B>(v) & 0x7f800000) + 0x00800000;
}

/// Whether flagNonFinite flagged a lane of `flags`.
template <typename B> TFL_INLINE bool anyFlagged(const B &flags) {
  int32_t all = 0;
  for (int l = 0; l < lanesOf<B>(); ++l)
    all |= flags[l];
  return all < 0;
}

/// The first `n` floats at `p`, zeros after them (lane by lane: a
/// memcpy of a variable size would be a library call).
template <typename V>
TFL_INLINE void loadFirst(V &v, const float *p, int64_t n) {
  constexpr int L = lanesOf<V>();
  if (n >= L) {
    v = load<L>(p);
    return;
  }
  v = V{};
  for (int64_t i = 0; i < n; ++i)
    v[i] = p[i];
}

template <typename V>
TFL_INLINE void storeFirst(float *p, const V &v, int64_t n) {
  if (n >= lanesOf<V>())
    return store(p, v);
  for (int64_t i = 0; i < n; ++i)
    p[i] = v[i];
}

inline int64_t roundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/// Whether the elements of a column of rows `ld` floats apart fall in a few
/// sets of the L1 cache (64 sets of 64-byte lines): rows a multiple of 128
/// floats (512 bytes) apart map a column into 8 sets or fewer, and 4 KB
/// apart into one, so that a kernel walking down it waits on L2.
inline bool columnInFewL1Sets(int64_t ld) { return ld % 128 == 0; }

TFL_INLINE int64_t lesser(int64_t a, int64_t b) { return a < b ? a : b; }

/// An NHWC tensor of f32 with a unit channel stride, as plain numbers: the
/// kernels' inner functions are built three times (TFL_ISA_LANE_VARIANTS), and
/// Clang leaves out the library templates (std::vector's members) such
/// clones would call, so they see no std:: types.
struct Image {
  float *data;
  int64_t n, height, width, channels;
  int64_t sn, sh, sw; // strides of the first three dims, in floats

  static Image of(const TensorView &v) {
    return {static_cast<float *>(const_cast<void *>(v.data)),
            v.shape[0],
            v.shape[1],
            v.shape[2],
            v.shape[3],
            v.strides[0],
            v.strides[1],
            v.strides[2]};
  }

  TFL_INLINE float *at(int64_t b, int64_t h, int64_t w) const {
    return data + b * sn + h * sh + w * sw;
  }
};

/// An uninitialized array of floats aligned to a cache line (a step of
/// channels, 64 bytes), so that the kernels' vector loads and stores of it
/// never split across two lines (the kernels write their scratch before they
/// read it).
class Scratch {
public:
  Scratch() = default;
  explicit Scratch(int64_t size)
      : data_(static_cast<float *>(std::aligned_alloc(
            kStepChannels * sizeof(float),
            roundUp(std::max<int64_t>(size, 1), kStepChannels) *
                sizeof(float)))) {
    if (!data_)
      throw std::bad_alloc();
  }
  float *data() const { return data_.get(); }

private:
  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
};

/// Runs `part(lb, ub)` over [0, n) split among OpenMP's threads
/// (tflrt_parallel_for).
template <typename Part> void inParallel(int64_t n, const Part &part) {
  tflrt_parallel_for(
      [](void *ctx, int64_t lb, int64_t ub) {
        (*static_cast<const Part *>(ctx))(lb, ub);
      },
      const_cast<Part *>(&part), 0, n, 1);
}

/// A reduction over `units` units of work as sums of `size` floats: one
/// chunk per thread (at most `units`), `sumChunk(chunk, chunks, sums)` adding
/// its share into its own zeroed `sums` (aligned like Scratch when `size` is
/// a multiple of 16); the chunks' sums are then added in chunk order, so
/// that the result does not depend on the threads' timing. The result is
/// the first `size` floats.
template <typename SumChunk>
Scratch sumInChunks(int64_t units, int64_t size, const SumChunk &sumChunk) {
  int64_t chunks =
      std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), units));
  Scratch sums(chunks * size);
  float *all = sums.data();
  inParallel(chunks, [&](int64_t lb, int64_t ub) {
    for (int64_t chunk = lb; chunk < ub; ++chunk) {
      // Zeroed by the thread that sums into it: in its own cache.
      std::fill(all + chunk * size, all + (chunk + 1) * size, 0.0f);
      sumChunk(chunk, chunks, all + chunk * size);
    }
  });
  for (int64_t chunk = 1; chunk < chunks; ++chunk)
    for (int64_t i = 0; i < size; ++i)
      all[i] += all[chunk * size + i];
  return sums;
}

} // namespace
} // namespace tflrt

#endif // TFLRT_CONVVECTORS_H
