//===- ConvVectors.h - Vectors for the convolution kernels ------*- C++ -*-===//
//
// What the Winograd and few-channel kernels share: 16-float vectors as
// GCC/Clang vector extensions (one AVX-512 register, two AVX2 ones), their
// loads and stores at any float's address, NHWC images as plain numbers,
// and their work split among threads. The kernels' inner functions are built
// for AVX-512, AVX2 and the baseline (TFL_ISA_VARIANTS, Isa.h), and each
// call runs kernelIsa()'s build.
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

/// Floats in a vector.
constexpr int64_t kLanes = 16;

typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
/// Doubles in a vector, and the vector.
constexpr int64_t kDoubles = 8;
typedef double VecD __attribute__((vector_size(kDoubles * sizeof(double))));
/// A vector at any float's address.
typedef float Unaligned
    __attribute__((vector_size(kLanes * sizeof(float)), aligned(4), may_alias));

// Helpers take and return vectors by reference and are always inlined
// (TFL_INLINE, Isa.h): Clang rejects passing a 64-byte vector by value where
// the AVX2 and baseline builds call them, and an out-of-line call would run
// the baseline's code.

TFL_INLINE const Unaligned &load(const float *p) {
  return *reinterpret_cast<const Unaligned *>(p);
}

TFL_INLINE void store(float *p, const Vec &v) {
  *reinterpret_cast<Unaligned *>(p) = v;
}

/// relu as compiled code's arith.maximumf(v, +0.0) computes it: NaN stays
/// NaN, negatives and -0.0 become +0.0. In integer arithmetic on the
/// floats' bits: GCC lowers a vector comparison in an inlined helper lane
/// by lane before it knows the clone's ISA (the kernels ran 2-5x slower),
/// where it keeps shifts and masks whole. A float's bits u keep when its
/// sign is clear (u >> 31 is 0) or it is NaN (|u| above infinity's bits,
/// so that infinity minus |u| is negative).
typedef int32_t Bits __attribute__((vector_size(kLanes * sizeof(float))));

TFL_INLINE void relu(Vec &v) {
  Bits u = reinterpret_cast<Bits>(v);
  Bits nan = (0x7f800000 - (u & 0x7fffffff)) >> 31;
  v = reinterpret_cast<Vec>(u & (~(u >> 31) | nan));
}

/// Sets the sign bit of each lane of `flags` where `v` is infinite or NaN
/// (its exponent bits all ones, which adding one to the exponent carries
/// into the sign), in integer arithmetic as relu is.
TFL_INLINE void flagNonFinite(const Vec &v, Bits &flags) {
  flags |= (reinterpret_cast<Bits>(v) & 0x7f800000) + 0x00800000;
}

/// Whether flagNonFinite flagged a lane of `flags`.
TFL_INLINE bool anyFlagged(const Bits &flags) {
  int32_t all = 0;
  for (int l = 0; l < kLanes; ++l)
    all |= flags[l];
  return all < 0;
}

/// The first `n` floats at `p`, zeros after them (lane by lane: a
/// memcpy of a variable size would be a library call).
TFL_INLINE void loadFirst(Vec &v, const float *p, int64_t n) {
  if (n >= kLanes) {
    v = load(p);
    return;
  }
  v = Vec{};
  for (int64_t i = 0; i < n; ++i)
    v[i] = p[i];
}

TFL_INLINE void storeFirst(float *p, const Vec &v, int64_t n) {
  if (n >= kLanes)
    return store(p, v);
  for (int64_t i = 0; i < n; ++i)
    p[i] = v[i];
}

inline int64_t roundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

TFL_INLINE int64_t lesser(int64_t a, int64_t b) { return a < b ? a : b; }

/// An NHWC tensor of f32 with a unit channel stride, as plain numbers: the
/// kernels' inner functions are built three times (TFL_ISA_VARIANTS), and
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

/// An uninitialized array of floats aligned to a cache line (a vector's
/// size), so that the kernels' vector loads and stores of it never split
/// across two lines (the kernels write their scratch before they read it).
class Scratch {
public:
  Scratch() = default;
  explicit Scratch(int64_t size)
      : data_(static_cast<float *>(std::aligned_alloc(
            sizeof(Vec),
            roundUp(std::max<int64_t>(size, 1), kLanes) * sizeof(float)))) {
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
