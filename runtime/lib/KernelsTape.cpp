//===- KernelsTape.cpp - Tapes, numeric checks, range messages ------------===//
//
// Each vjp's loops push their states on tapes, per call frame and thread;
// the reverse pass reads them back and accumulates cotangents there. Also
// check_numerics' test and the messages of checks both modes share.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include "KernelLoops.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tflrt {

namespace {
struct Tape {
  std::vector<Tensor> entries;
  std::vector<Tensor> sums;
  int64_t cursor = 0;
};

std::vector<std::vector<Tape>> &tapeFrames() {
  // Per thread: a library's exported functions run on their callers'
  // threads, each with its own tapes.
  thread_local std::vector<std::vector<Tape>> frames;
  return frames;
}

Tape &tapeNamed(int64_t tape) {
  auto &frames = tapeFrames();
  if (frames.empty() || tape < 0)
    throw std::runtime_error("internal error: a tape used outside a frame");
  std::vector<Tape> &frame = frames.back();
  if (static_cast<size_t>(tape) >= frame.size())
    frame.resize(tape + 1);
  return frame[tape];
}

/// The valid tensor at `position` of `slots`, checked against the type the
/// op expects, or zeros of it.
Tensor slotOrZeros(const std::vector<Tensor> &slots, int64_t position,
                   DType dtype, const Shape &shape) {
  if (position < 0)
    throw std::runtime_error("internal error: a negative tape position");
  if (static_cast<size_t>(position) >= slots.size() ||
      !slots[position].isValid())
    return Tensor(dtype, shape);
  const Tensor &t = slots[position];
  if (t.dtype() != dtype || t.numElements() != numElements(shape))
    throw std::runtime_error("internal error: a tape entry read as another "
                             "type than it was written");
  return t;
}

void store(std::vector<Tensor> &slots, int64_t position, const Tensor &t) {
  if (position < 0)
    throw std::runtime_error("internal error: a negative tape position");
  if (static_cast<size_t>(position) >= slots.size())
    slots.resize(position + 1);
  slots[position] = t;
}

template <typename T> Tensor added(const Tensor &a, const Tensor &b) {
  Tensor out(a.dtype(), a.shape());
  for (int64_t i = 0, n = a.numElements(); i < n; ++i)
    out.data<T>()[i] = a.data<T>()[i] + b.data<T>()[i];
  return out;
}
} // namespace

void tapeEnter() { tapeFrames().emplace_back(); }

void tapeExit() {
  if (tapeFrames().empty())
    throw std::runtime_error("internal error: no tape frame to close");
  tapeFrames().pop_back();
}

void tapePush(int64_t tape, const Tensor &t) {
  Tape &named = tapeNamed(tape);
  store(named.entries, named.cursor++, t);
}

int64_t tapeSize(int64_t tape) { return tapeNamed(tape).cursor; }

void tapeWrite(int64_t tape, int64_t position, const Tensor &t) {
  store(tapeNamed(tape).entries, position, t);
}

Tensor tapeRead(int64_t tape, int64_t position, DType dtype,
                const Shape &shape) {
  return slotOrZeros(tapeNamed(tape).entries, position, dtype, shape);
}

void tapeRewind(int64_t tape, int64_t position, bool release) {
  Tape &named = tapeNamed(tape);
  named.cursor = position;
  if (!release)
    return;
  auto keep = static_cast<size_t>(position);
  if (named.entries.size() > keep)
    named.entries.resize(keep);
  if (named.sums.size() > keep)
    named.sums.resize(keep);
}

void tapeAdd(int64_t tape, int64_t position, const Tensor &t) {
  std::vector<Tensor> &sums = tapeNamed(tape).sums;
  bool held = position >= 0 && static_cast<size_t>(position) < sums.size() &&
              sums[position].isValid();
  if (!held)
    return store(sums, position, t);
  Tensor sum = slotOrZeros(sums, position, t.dtype(), t.shape());
  sums[position] =
      t.dtype() == DType::F64 ? added<double>(sum, t) : added<float>(sum, t);
}

Tensor tapeAccumulated(int64_t tape, int64_t position, DType dtype,
                       const Shape &shape) {
  return slotOrZeros(tapeNamed(tape).sums, position, dtype, shape);
}

bool allFinite(const Tensor &a) {
  int64_t n = a.numElements();
  if (a.dtype() == DType::F32)
    return std::all_of(a.data<float>(), a.data<float>() + n,
                       [](float v) { return std::isfinite(v); });
  if (a.dtype() == DType::F64)
    return std::all_of(a.data<double>(), a.data<double>() + n,
                       [](double v) { return std::isfinite(v); });
  return true;
}

std::string checkNumericsMessage(const std::string &message) {
  return "check_numerics failed" + (message.empty() ? "" : ": " + message) +
         " (the tensor holds a NaN or an infinity)";
}

std::string outOfRangeMessage(int64_t start, int64_t size, int64_t stride,
                              int64_t dim) {
  if (size == 1)
    return "index " + std::to_string(start) +
           " is out of range for an axis of size " + std::to_string(dim);
  return "slice [" + std::to_string(start) + ":" +
         std::to_string(start + size * stride) +
         (stride != 1 ? ":" + std::to_string(stride) : "") +
         "] is out of range for an axis of size " + std::to_string(dim);
}

} // namespace tflrt
