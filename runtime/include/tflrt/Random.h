//===- Random.h - The counter-based random generator ------------*- C++ -*-===//
//
// One generator per process, shared by eager kernels and compiled code:
// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11) keyed by the seed. Draw `d` of the program (each random op run
// is one draw) reads counter blocks (d, j), so every element is a pure
// function of (seed, d, its index): a GPU kernel computes the same numbers
// element-parallel, and eager and compiled runs agree bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_RANDOM_H
#define TFLRT_RANDOM_H

#include <array>
#include <cstdint>
#include <utility>

namespace tflrt {

/// Philox-4x32-10 of the 128-bit counter (block, draw) under `key`.
std::array<uint32_t, 4> philox(uint64_t key, uint64_t draw, uint64_t block);

/// Restarts the generator: key `seed`, draw count 0. A program that never
/// seeds runs as if it began with seed(0).
void seedRandom(int64_t seed);
/// The generator's state: its key and how many draws it has made. Setting
/// a state read before makes the draws after it again (the autodiff pass
/// replays the draws of a computation it runs a second time).
std::array<uint64_t, 2> randomState();
void setRandomState(uint64_t key, uint64_t draws);
/// Starts the next draw: the key and the draw's number (a GPU kernel then
/// fills its tensor from them).
std::pair<uint64_t, uint64_t> nextRandomDraw();
/// Fills `out` with the next draw.
void randomUniform(float *out, int64_t n);
void randomUniform(double *out, int64_t n);
void randomNormal(float *out, int64_t n);
void randomNormal(double *out, int64_t n);
void shuffleIndices(int64_t *out, int64_t n);

} // namespace tflrt

#endif // TFLRT_RANDOM_H
