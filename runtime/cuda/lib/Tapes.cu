//===- Tapes.cu - The autodiff tapes of loops, in device memory -----------===//
//
// The reverse pass of a loop reads back what its forward pass pushed on a
// tape (libtflrt's tapes, runtime/lib/Kernels.cpp, say how). On the GPU the
// entries of a device tensor's tape stay in device memory: a push copies
// the tensor (any strides) into a dense block of the caching allocator, a
// read copies it out, and the sums of `tape_add` are added in place, all
// queued on the stream (and recorded in a loop step's graph). Frames,
// cursors and positions follow libtflrt's rules exactly. Every tape call of
// a --device cuda program comes here, host buffers too: a scalar may be
// pushed from device memory and read into a host buffer (or the other way
// round), so a host buffer's elements are copied across (the host waits).
//
//===----------------------------------------------------------------------===//

#include "Launch.cuh"
#include "tflrt/CApi.h"
#include "tflrt/CudaApi.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using tflrt::cuda::count;
using tflrt::cuda::dense;
using tflrt::cuda::launch;
using tflrt::cuda::offsetOf;
using tflrt::cuda::threadIndex;
using tflrt::cuda::View;
using tflrt::cuda::viewOf;

/// dst[i] = src[i] (row-major element order), or dst[i] += src[i].
template <typename T>
__global__ void copyElements(View dst, View src, int64_t n, int add) {
  int64_t i = threadIndex();
  if (i >= n)
    return;
  T value = reinterpret_cast<const T *>(src.data)[offsetOf(src, i)];
  T &out = reinterpret_cast<T *>(dst.data)[offsetOf(dst, i)];
  out = add ? out + value : value;
}

/// Copies `n` elements of `elemSize` bytes between device views.
void copy(const View &dst, const View &src, int64_t n, size_t elemSize) {
  switch (elemSize) {
  case 1:
    return launch(copyElements<uint8_t>, n, dst, src, n, 0);
  case 2:
    return launch(copyElements<uint16_t>, n, dst, src, n, 0);
  case 4:
    return launch(copyElements<uint32_t>, n, dst, src, n, 0);
  default:
    return launch(copyElements<uint64_t>, n, dst, src, n, 0);
  }
}

/// One entry: a dense block of `count` elements of one dtype.
struct Entry {
  void *data = nullptr;
  int64_t count = 0;
  int dtype = -1; // an element type's tag; -1: no entry

  bool valid() const { return dtype >= 0; }
  void release() {
    tflrt::cuda::release(data);
    *this = Entry();
  }
};

struct Tape {
  std::vector<Entry> entries, sums;
  int64_t cursor = 0;
};

std::vector<std::vector<Tape>> &frames() {
  static std::vector<std::vector<Tape>> *f =
      new std::vector<std::vector<Tape>>(); // outlives atexit
  return *f;
}

Tape &tapeNamed(int64_t tape) {
  auto &all = frames();
  if (all.empty() || tape < 0)
    tflrt::cuda::fail("internal error: a tape used outside a frame");
  std::vector<Tape> &frame = all.back();
  if (static_cast<size_t>(tape) >= frame.size())
    frame.resize(tape + 1);
  return frame[tape];
}

void releaseAll(std::vector<Entry> &slots, size_t from) {
  for (size_t i = from; i < slots.size(); ++i)
    if (slots[i].valid())
      slots[i].release();
  if (slots.size() > from)
    slots.resize(from);
}

/// A host view's elements, dense, or written back from dense.
std::vector<char> gather(const View &v, size_t elemSize) {
  int64_t n = count(v);
  std::vector<char> out(n * elemSize);
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(&out[i * elemSize], v.data + offsetOf(v, i) * elemSize,
                elemSize);
  return out;
}

void scatter(const View &v, const std::vector<char> &dense, size_t elemSize) {
  for (int64_t i = 0, n = count(v); i < n; ++i)
    std::memcpy(v.data + offsetOf(v, i) * elemSize, &dense[i * elemSize],
                elemSize);
}

/// A fresh dense device copy of `v` (device or host memory).
Entry copyOf(const View &v, size_t elemSize, int dtype) {
  Entry e;
  e.count = count(v);
  e.dtype = dtype;
  e.data = tflrt::cuda::allocate(std::max<size_t>(1, e.count * elemSize));
  if (tflrt::cuda::isDeviceMemory(v.data)) {
    copy(dense(e.data, e.count), v, e.count, elemSize);
  } else if (e.count > 0) {
    std::vector<char> host = gather(v, elemSize);
    tflrt::cuda::copyToDevice(e.data, host.data(), host.size());
  }
  return e;
}

void store(std::vector<Entry> &slots, int64_t position, Entry e) {
  if (position < 0)
    tflrt::cuda::fail("internal error: a negative tape position");
  if (static_cast<size_t>(position) >= slots.size())
    slots.resize(position + 1);
  if (slots[position].valid())
    slots[position].release();
  slots[position] = e;
}

/// Copies the entry at `position` of `slots` into `out` (device or host
/// memory), or zeros.
void readInto(const std::vector<Entry> &slots, int64_t position,
              const View &out, size_t elemSize, int dtype) {
  int64_t n = count(out);
  if (position < 0)
    tflrt::cuda::fail("internal error: a negative tape position");
  bool held =
      static_cast<size_t>(position) < slots.size() && slots[position].valid();
  if (held && (slots[position].dtype != dtype || slots[position].count != n))
    tflrt::cuda::fail("internal error: a tape entry read as another type "
                      "than it was written");
  if (!tflrt::cuda::isDeviceMemory(out.data)) {
    std::vector<char> host(n * elemSize, 0);
    if (held && n > 0)
      tflrt::cuda::copyToHost(host.data(), slots[position].data, host.size());
    return scatter(out, host, elemSize);
  }
  if (held)
    return copy(out, dense(slots[position].data, n), n, elemSize);
  tflrt::cuda::zeroFill(out, elemSize);
}

} // namespace

void tflrt::cuda::copyDense(void *dst, int64_t rank, void *desc,
                            size_t elemSize) {
  View src = viewOf(rank, desc, elemSize);
  int64_t n = count(src);
  if (n > 0)
    copy(dense(dst, n), src, n, elemSize);
}

extern "C" {

void tflrt_cuda_tape_enter(void) { frames().emplace_back(); }

void tflrt_cuda_tape_exit(void) {
  if (frames().empty())
    tflrt::cuda::fail("internal error: no tape frame to close");
  for (Tape &t : frames().back()) {
    releaseAll(t.entries, 0);
    releaseAll(t.sums, 0);
  }
  frames().pop_back();
}

int64_t tflrt_cuda_tape_size(int64_t tape) { return tapeNamed(tape).cursor; }

void tflrt_cuda_tape_rewind(int64_t tape, int64_t position) {
  tapeNamed(tape).cursor = position;
}

void tflrt_cuda_tape_release(int64_t tape, int64_t position) {
  Tape &t = tapeNamed(tape);
  t.cursor = position;
  releaseAll(t.entries, static_cast<size_t>(position));
  releaseAll(t.sums, static_cast<size_t>(position));
}

#define TFLRT_CUDA_TAPE(T, SIZE, TAG)                                          \
  void tflrt_cuda_tape_push_##T(int64_t tape, int64_t rank, void *desc) {      \
    Tape &t = tapeNamed(tape);                                                 \
    store(t.entries, t.cursor++, copyOf(viewOf(rank, desc, SIZE), SIZE, TAG)); \
  }                                                                            \
  void tflrt_cuda_tape_write_##T(int64_t tape, int64_t position, int64_t rank, \
                                 void *desc) {                                 \
    store(tapeNamed(tape).entries, position,                                   \
          copyOf(viewOf(rank, desc, SIZE), SIZE, TAG));                        \
  }                                                                            \
  void tflrt_cuda_tape_read_##T(int64_t tape, int64_t position, int64_t rank,  \
                                void *desc) {                                  \
    readInto(tapeNamed(tape).entries, position, viewOf(rank, desc, SIZE),      \
             SIZE, TAG);                                                       \
  }
TFLRT_CUDA_TAPE(f32, 4, 0)
TFLRT_CUDA_TAPE(f64, 8, 1)
TFLRT_CUDA_TAPE(i32, 4, 2)
TFLRT_CUDA_TAPE(i64, 8, 3)
TFLRT_CUDA_TAPE(u8, 1, 4)
TFLRT_CUDA_TAPE(bool, 1, 5)
#undef TFLRT_CUDA_TAPE

#define TFLRT_CUDA_TAPE_SUM(T, CTYPE, TAG)                                     \
  void tflrt_cuda_tape_add_##T(int64_t tape, int64_t position, int64_t rank,   \
                               void *desc) {                                   \
    std::vector<Entry> &sums = tapeNamed(tape).sums;                           \
    View v = viewOf(rank, desc, sizeof(CTYPE));                                \
    bool held = position >= 0 &&                                               \
                static_cast<size_t>(position) < sums.size() &&                 \
                sums[position].valid();                                        \
    if (!held)                                                                 \
      return store(sums, position, copyOf(v, sizeof(CTYPE), TAG));             \
    Entry &sum = sums[position];                                               \
    if (sum.dtype != TAG || sum.count != count(v))                             \
      tflrt::cuda::fail("internal error: a tape sum of another type");         \
    Entry addend = copyOf(v, sizeof(CTYPE), TAG);                              \
    launch(copyElements<CTYPE>, sum.count, dense(sum.data, sum.count),         \
           dense(addend.data, addend.count), sum.count, 1);                    \
    addend.release();                                                          \
  }                                                                            \
  void tflrt_cuda_tape_accumulated_##T(int64_t tape, int64_t position,         \
                                       int64_t rank, void *desc) {             \
    readInto(tapeNamed(tape).sums, position,                                   \
             viewOf(rank, desc, sizeof(CTYPE)), sizeof(CTYPE), TAG);           \
  }
TFLRT_CUDA_TAPE_SUM(f32, float, 0)
TFLRT_CUDA_TAPE_SUM(f64, double, 1)
#undef TFLRT_CUDA_TAPE_SUM

} // extern "C"
