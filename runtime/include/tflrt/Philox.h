//===- Philox.h - Philox-4x32-10 and its number mappings --------*- C++ -*-===//
//
// The generator's arithmetic, in one place for the host (Random.cpp) and
// for libtflrt_cuda's kernels (nvcc compiles these as host and device
// functions): a counter block's four words, and how words become uniform
// and normal numbers. See Random.h for the counter layout.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_PHILOX_H
#define TFLRT_PHILOX_H

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define TFLRT_HOST_DEVICE __host__ __device__
#else
#define TFLRT_HOST_DEVICE
#endif

namespace tflrt {

struct PhiloxWords {
  uint32_t w[4];
};

/// Philox-4x32-10 of the 128-bit counter (block, draw) under `key`.
TFLRT_HOST_DEVICE inline PhiloxWords philoxBlock(uint64_t key, uint64_t draw,
                                                 uint64_t block) {
  const uint32_t m0 = 0xD2511F53, m1 = 0xCD9E8D57;
  const uint32_t w0 = 0x9E3779B9, w1 = 0xBB67AE85;
  uint32_t k0 = static_cast<uint32_t>(key),
           k1 = static_cast<uint32_t>(key >> 32);
  uint32_t c0 = static_cast<uint32_t>(block),
           c1 = static_cast<uint32_t>(block >> 32),
           c2 = static_cast<uint32_t>(draw),
           c3 = static_cast<uint32_t>(draw >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(m0) * c0;
    uint64_t p1 = static_cast<uint64_t>(m1) * c2;
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += w0;
    k1 += w1;
  }
  return {{c0, c1, c2, c3}};
}

TFLRT_HOST_DEVICE inline uint64_t philoxJoin(uint32_t hi, uint32_t lo) {
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

/// An f32 in [0, 1) from a word's top 24 bits.
TFLRT_HOST_DEVICE inline float philoxUniformF32(uint32_t word) {
  return static_cast<float>(word >> 8) * 0x1p-24f;
}

/// An f64 in [0, 1) from the top 53 bits of two words.
TFLRT_HOST_DEVICE inline double philoxUniformF64(uint32_t hi, uint32_t lo) {
  return static_cast<double>(philoxJoin(hi, lo) >> 11) * 0x1p-53;
}

/// Two standard normals from one block by Box-Muller, in double: u1 in
/// (0, 1] from words 0, 1, u2 in [0, 1) from words 2, 3; r cos(2 pi u2)
/// and r sin(2 pi u2), r = sqrt(-2 log u1).
TFLRT_HOST_DEVICE inline void philoxNormalPair(const PhiloxWords &b,
                                               double &first, double &second) {
  const double twoPi = 6.283185307179586476925286766559;
  double u1 =
      static_cast<double>((philoxJoin(b.w[0], b.w[1]) >> 11) + 1) * 0x1p-53;
  double u2 = philoxUniformF64(b.w[2], b.w[3]);
  double r = sqrt(-2.0 * log(u1));
  first = r * cos(twoPi * u2);
  second = r * sin(twoPi * u2);
}

} // namespace tflrt

#endif // TFLRT_PHILOX_H
