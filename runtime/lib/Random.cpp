//===- Random.cpp - The counter-based random generator --------------------===//
//
// How draws become numbers (each element from its own counter block, so
// the mapping is the same for any order or parallel split):
//   uniform f32  element i: word i%4 of block i/4, top 24 bits / 2^24.
//   uniform f64  element i: words 2(i%2), 2(i%2)+1 of block i/2, 53 bits.
//   normal       elements 2p, 2p+1: Box-Muller on block p (u1 in (0, 1],
//                u2 in [0, 1)), computed in double: r cos(2 pi u2) and
//                r sin(2 pi u2), r = sqrt(-2 log u1).
//   shuffle      Fisher-Yates from the end; step k (k = 0, 1, ...) swaps
//                position i = n-1-k with j = floor(u * (i+1)), u the 64
//                bits of words 0, 1 of block k.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Random.h"

#include <cmath>
#include <numeric>
#include <utility>

namespace tflrt {

namespace {

struct Generator {
  uint64_t key = 0;
  uint64_t draws = 0;
};

Generator &generator() {
  static Generator g;
  return g;
}

/// Starts a draw: the key and the draw's number.
std::pair<uint64_t, uint64_t> nextDraw() {
  Generator &g = generator();
  return {g.key, g.draws++};
}

uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t &lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  lo = static_cast<uint32_t>(p);
  return static_cast<uint32_t>(p >> 32);
}

double unitOpen(uint64_t bits53) { return (bits53 + 1) * 0x1p-53; }
double unitHalfOpen(uint64_t bits53) { return bits53 * 0x1p-53; }
uint64_t join(uint32_t hi, uint32_t lo) {
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

template <typename T> void fillNormal(T *out, int64_t n) {
  auto [key, draw] = nextDraw();
  const double twoPi = 6.283185307179586476925286766559;
  for (int64_t p = 0; 2 * p < n; ++p) {
    std::array<uint32_t, 4> w = philox(key, draw, p);
    double u1 = unitOpen(join(w[0], w[1]) >> 11);
    double u2 = unitHalfOpen(join(w[2], w[3]) >> 11);
    double r = std::sqrt(-2.0 * std::log(u1));
    out[2 * p] = static_cast<T>(r * std::cos(twoPi * u2));
    if (2 * p + 1 < n)
      out[2 * p + 1] = static_cast<T>(r * std::sin(twoPi * u2));
  }
}

} // namespace

std::array<uint32_t, 4> philox(uint64_t key, uint64_t draw, uint64_t block) {
  const uint32_t m0 = 0xD2511F53, m1 = 0xCD9E8D57;
  const uint32_t w0 = 0x9E3779B9, w1 = 0xBB67AE85;
  uint32_t k0 = static_cast<uint32_t>(key),
           k1 = static_cast<uint32_t>(key >> 32);
  std::array<uint32_t, 4> c = {
      static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
      static_cast<uint32_t>(draw), static_cast<uint32_t>(draw >> 32)};
  for (int round = 0; round < 10; ++round) {
    uint32_t lo0, lo1;
    uint32_t hi0 = mulhilo(m0, c[0], lo0);
    uint32_t hi1 = mulhilo(m1, c[2], lo1);
    c = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
    k0 += w0;
    k1 += w1;
  }
  return c;
}

void seedRandom(int64_t seed) {
  generator().key = static_cast<uint64_t>(seed);
  generator().draws = 0;
}

std::array<uint64_t, 2> randomState() {
  return {generator().key, generator().draws};
}

void setRandomState(uint64_t key, uint64_t draws) {
  generator().key = key;
  generator().draws = draws;
}

void randomUniform(float *out, int64_t n) {
  auto [key, draw] = nextDraw();
  for (int64_t b = 0; 4 * b < n; ++b) {
    std::array<uint32_t, 4> w = philox(key, draw, b);
    for (int64_t k = 0; k < 4 && 4 * b + k < n; ++k)
      out[4 * b + k] = static_cast<float>(w[k] >> 8) * 0x1p-24f;
  }
}

void randomUniform(double *out, int64_t n) {
  auto [key, draw] = nextDraw();
  for (int64_t b = 0; 2 * b < n; ++b) {
    std::array<uint32_t, 4> w = philox(key, draw, b);
    out[2 * b] = unitHalfOpen(join(w[0], w[1]) >> 11);
    if (2 * b + 1 < n)
      out[2 * b + 1] = unitHalfOpen(join(w[2], w[3]) >> 11);
  }
}

void randomNormal(float *out, int64_t n) { fillNormal(out, n); }
void randomNormal(double *out, int64_t n) { fillNormal(out, n); }

void shuffleIndices(int64_t *out, int64_t n) {
  auto [key, draw] = nextDraw();
  std::iota(out, out + n, int64_t{0});
  for (int64_t k = 0; k + 1 < n; ++k) {
    int64_t i = n - 1 - k;
    std::array<uint32_t, 4> w = philox(key, draw, k);
    unsigned __int128 scaled =
        static_cast<unsigned __int128>(join(w[0], w[1])) *
        static_cast<uint64_t>(i + 1);
    std::swap(out[i], out[static_cast<int64_t>(scaled >> 64)]);
  }
}

} // namespace tflrt
