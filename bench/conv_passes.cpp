//===- conv_passes.cpp - A convolution's three passes, timed --------------===//
//
// The three passes of a stride-1 3x3 "valid" convolution (forward, the
// input's gradient, the filter's with the bias's), timed through libtflrt's
// public entry points: bench/conv.sh runs it with TFL's kernels (Winograd's
// or the few-channel ones where they apply) and with TFL_CONV=onednn
// (oneDNN's direct kernels) and prints both.
//
// Usage: conv_passes N H C K   (batch, input height = width, in and out
// channels); prints "forward MS input MS filter MS", each the best of 7
// means over 30 calls.
#include "tflrt/Conv.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

using namespace tflrt;

namespace {

TensorView view(std::vector<float> &data, Shape shape) {
  Shape strides(shape.size());
  int64_t size = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = size;
    size *= shape[i];
  }
  data.resize(size);
  return {DType::F32, shape, strides, data.data()};
}

double bestMs(const std::function<void()> &pass) {
  pass(); // primitives, caches and pages
  double best = 1e30;
  for (int repeat = 0; repeat < 7; ++repeat) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 30; ++i)
      pass();
    std::chrono::duration<double, std::milli> took =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / 30);
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: conv_passes N H C K\n");
    return 2;
  }
  int64_t n = std::atoll(argv[1]), h = std::atoll(argv[2]);
  int64_t c = std::atoll(argv[3]), k = std::atoll(argv[4]), oh = h - 2;
  std::vector<float> xs, ws, ys, dys, dxs, dws, dbs;
  TensorView x = view(xs, {n, h, h, c}), w = view(ws, {3, 3, c, k});
  TensorView y = view(ys, {n, oh, oh, k}), dy = view(dys, {n, oh, oh, k});
  TensorView dx = view(dxs, {n, h, h, c}), dw = view(dws, {3, 3, c, k});
  TensorView db = view(dbs, {k});
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (auto *v : {&xs, &ws, &dys})
    for (float &e : *v)
      e = normal(rng);
  Window window{{1, 1}, {0, 0, 0, 0}};
  double forward = bestMs([&] { conv2d(x, w, y, window); });
  double input = bestMs([&] { conv2dBackwardInput(dy, w, dx, window); });
  double filter = bestMs([&] { conv2dBackwardFilter(x, dy, dw, window, &db); });
  std::printf("forward %.4f input %.4f filter %.4f\n", forward, input, filter);
}
