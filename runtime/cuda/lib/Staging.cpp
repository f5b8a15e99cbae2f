//===- Staging.cpp - libtflrt's host functions on device tensors ----------===//
//
// The runtime functions that have no device implementation (printing,
// files, checkpoints, shuffle_indices, and convolutions whose padding cuDNN
// cannot express) run libtflrt's host code on a host
// copy of their tensors:
// inputs are copied from the device before the call, outputs back after it.
// Each wrapper keeps libtflrt's name with a `tflrt_cuda_` prefix and its
// arguments, so the compiler only renames the call.
//
// A strided view is copied as the whole span of memory it addresses, and an
// output that is not dense is first copied in, so the gaps between its
// elements come back unchanged.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "tflrt/CApi.h"
#include "tflrt/CudaApi.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace {

using tflrt::cuda::descOf;
using tflrt::cuda::MemrefDesc;

enum class Dir { In, Out, InOut };

/// A host copy of a device memref for the length of one call.
class Staged {
public:
  Staged(int64_t rank, void *deviceDesc, size_t elemSize, Dir dir)
      : rank(rank), elemSize(elemSize), dir(dir) {
    MemrefDesc *d = descOf(deviceDesc);
    const int64_t *sizes = d->dims, *strides = d->dims + rank;
    int64_t lo = d->offset, hi = d->offset, count = 1;
    for (int64_t i = 0; i < rank; ++i) {
      count *= sizes[i];
      int64_t reach = (sizes[i] - 1) * strides[i];
      (reach < 0 ? lo : hi) += reach;
    }
    empty = count == 0;
    // The host descriptor: same sizes and strides, offset into the copy.
    storage.assign(3 + 2 * rank, 0);
    auto *h = reinterpret_cast<MemrefDesc *>(storage.data());
    std::copy(d->dims, d->dims + 2 * rank, h->dims);
    if (empty)
      return;
    bytes = static_cast<size_t>(hi - lo + 1) * elemSize;
    device = d->aligned + lo * static_cast<int64_t>(elemSize);
    host.reset(new char[bytes]);
    h->allocated = h->aligned = host.get();
    h->offset = d->offset - lo;
    bool dense = hi - lo + 1 == count;
    if (dir != Dir::Out || !dense)
      tflrt::cuda::copyToHost(host.get(), device, bytes);
  }

  ~Staged() {
    if (!empty && dir != Dir::In)
      tflrt::cuda::copyToDevice(device, host.get(), bytes);
  }

  Staged(const Staged &) = delete;
  Staged &operator=(const Staged &) = delete;

  /// The descriptor of the host copy, for libtflrt's function.
  void *desc() { return storage.data(); }

private:
  int64_t rank;
  size_t elemSize;
  Dir dir;
  bool empty = false;
  size_t bytes = 0;
  char *device = nullptr;
  std::unique_ptr<char[]> host;
  std::vector<int64_t> storage;
};

} // namespace

extern "C" {

// ---- One wrapper per host function, by element type ----------------------

#define TFLRT_CUDA_TYPED(T, SIZE)                                              \
  void tflrt_cuda_print_##T(int64_t rank, void *desc, const char *spec) {      \
    Staged s(rank, desc, SIZE, Dir::In);                                       \
    tflrt_print_##T(rank, s.desc(), spec);                                     \
  }                                                                            \
  void tflrt_cuda_load_idx_##T(const char *path, int64_t rank, void *desc,     \
                               const char *where) {                            \
    Staged s(rank, desc, SIZE, Dir::Out);                                      \
    tflrt_load_idx_##T(path, rank, s.desc(), where);                           \
  }                                                                            \
  void tflrt_cuda_load_npy_##T(const char *path, int64_t rank, void *desc,     \
                               const char *where) {                            \
    Staged s(rank, desc, SIZE, Dir::Out);                                      \
    tflrt_load_npy_##T(path, rank, s.desc(), where);                           \
  }                                                                            \
  void tflrt_cuda_save_npy_##T(const char *path, int64_t rank, void *desc,     \
                               const char *where) {                            \
    Staged s(rank, desc, SIZE, Dir::In);                                       \
    tflrt_save_npy_##T(path, rank, s.desc(), where);                           \
  }                                                                            \
  void tflrt_cuda_checkpoint_add_##T(const char *name, int64_t rank,           \
                                     void *desc) {                             \
    /* libtflrt copies what a checkpoint holds until it is written. */         \
    Staged s(rank, desc, SIZE, Dir::In);                                       \
    tflrt_checkpoint_add_##T(name, rank, s.desc());                            \
  }                                                                            \
  void tflrt_cuda_checkpoint_read_##T(const char *path, const char *name,      \
                                      int64_t rank, void *desc,                \
                                      const char *where) {                     \
    Staged s(rank, desc, SIZE, Dir::Out);                                      \
    tflrt_checkpoint_read_##T(path, name, rank, s.desc(), where);              \
  }
TFLRT_CUDA_TYPED(f32, 4)
TFLRT_CUDA_TYPED(f64, 8)
TFLRT_CUDA_TYPED(i32, 4)
TFLRT_CUDA_TYPED(i64, 8)
TFLRT_CUDA_TYPED(u8, 1)

void tflrt_cuda_load_bytes_u8(const char *path, int64_t rank, void *desc,
                              const char *where) {
  Staged s(rank, desc, 1, Dir::Out);
  tflrt_load_bytes_u8(path, rank, s.desc(), where);
}
void tflrt_cuda_encode_text_u8(const char *text, int64_t rank, void *desc) {
  Staged s(rank, desc, 1, Dir::Out);
  tflrt_encode_text_u8(text, rank, s.desc());
}
TFLRT_CUDA_TYPED(bool, 1)
#undef TFLRT_CUDA_TYPED

// The 16-bit floats reach the host only to be printed: every other host
// function runs on f32 copies (tfl-widen-half).
void tflrt_cuda_print_bf16(int64_t rank, void *desc, const char *spec) {
  Staged s(rank, desc, 2, Dir::In);
  tflrt_print_bf16(rank, s.desc(), spec);
}
void tflrt_cuda_print_f16(int64_t rank, void *desc, const char *spec) {
  Staged s(rank, desc, 2, Dir::In);
  tflrt_print_f16(rank, s.desc(), spec);
}

void tflrt_cuda_shuffle_indices(int64_t rank, void *desc) {
  Staged s(rank, desc, 8, Dir::Out);
  tflrt_shuffle_indices(rank, s.desc());
}

} // extern "C"

namespace tflrt::cuda {

// Convolution on the host (oneDNN), for the windows cuDNN does not take:
// two tensors in, one out, then the window's strides and padding.
#define TFLRT_CUDA_STAGE3                                                      \
  Staged sA(rankA, a, 4, Dir::In);                                             \
  Staged sB(rankB, b, 4, Dir::In);                                             \
  Staged sOut(rankOut, out, 4, Dir::InOut);
#define TFLRT_CUDA_WINDOW6(NAME)                                               \
  void staged_##NAME(int64_t rankA, void *a, int64_t rankB, void *b,           \
                     int64_t rankOut, void *out, int64_t p0, int64_t p1,       \
                     int64_t p2, int64_t p3, int64_t p4, int64_t p5) {         \
    TFLRT_CUDA_STAGE3                                                          \
    tflrt_##NAME(rankA, sA.desc(), rankB, sB.desc(), rankOut, sOut.desc(), p0, \
                 p1, p2, p3, p4, p5);                                          \
  }
TFLRT_CUDA_WINDOW6(conv2d_f32)
TFLRT_CUDA_WINDOW6(conv2d_backward_input_f32)
TFLRT_CUDA_WINDOW6(conv2d_backward_filter_f32)
#undef TFLRT_CUDA_WINDOW6
#undef TFLRT_CUDA_STAGE3

} // namespace tflrt::cuda
