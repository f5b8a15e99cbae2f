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
#include "tflrt/Philox.h"

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
  thread_local Generator g; // a library's exports each draw their own
  return g;
}

template <typename T> void fillNormal(T *out, int64_t n) {
  auto [key, draw] = nextRandomDraw();
  for (int64_t p = 0; 2 * p < n; ++p) {
    double first, second;
    philoxNormalPair(philoxBlock(key, draw, p), first, second);
    out[2 * p] = static_cast<T>(first);
    if (2 * p + 1 < n)
      out[2 * p + 1] = static_cast<T>(second);
  }
}

} // namespace

std::pair<uint64_t, uint64_t> nextRandomDraw() {
  Generator &g = generator();
  return {g.key, g.draws++};
}

std::array<uint32_t, 4> philox(uint64_t key, uint64_t draw, uint64_t block) {
  PhiloxWords w = philoxBlock(key, draw, block);
  return {w.w[0], w.w[1], w.w[2], w.w[3]};
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
  auto [key, draw] = nextRandomDraw();
  for (int64_t b = 0; 4 * b < n; ++b) {
    PhiloxWords w = philoxBlock(key, draw, b);
    for (int64_t k = 0; k < 4 && 4 * b + k < n; ++k)
      out[4 * b + k] = philoxUniformF32(w.w[k]);
  }
}

void randomUniform(double *out, int64_t n) {
  auto [key, draw] = nextRandomDraw();
  for (int64_t b = 0; 2 * b < n; ++b) {
    PhiloxWords w = philoxBlock(key, draw, b);
    out[2 * b] = philoxUniformF64(w.w[0], w.w[1]);
    if (2 * b + 1 < n)
      out[2 * b + 1] = philoxUniformF64(w.w[2], w.w[3]);
  }
}

void randomNormal(float *out, int64_t n) { fillNormal(out, n); }
void randomNormal(double *out, int64_t n) { fillNormal(out, n); }

void shuffleIndices(int64_t *out, int64_t n) {
  auto [key, draw] = nextRandomDraw();
  std::iota(out, out + n, int64_t{0});
  for (int64_t k = 0; k + 1 < n; ++k) {
    int64_t i = n - 1 - k;
    PhiloxWords w = philoxBlock(key, draw, k);
    unsigned __int128 scaled =
        static_cast<unsigned __int128>(philoxJoin(w.w[0], w.w[1])) *
        static_cast<uint64_t>(i + 1);
    std::swap(out[i], out[static_cast<int64_t>(scaled >> 64)]);
  }
}

} // namespace tflrt
