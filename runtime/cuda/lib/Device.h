//===- Device.h - libtflrt_cuda's device, stream and memory -----*- C++ -*-===//
//
// Internal to libtflrt_cuda: the one stream every device operation goes on,
// device memory from the caching allocator, copies that cross to the host,
// and errors that stop the program with a message.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CUDA_DEVICE_H
#define TFLRT_CUDA_DEVICE_H

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace tflrt::cuda {

/// Prints "where: error: message" (after the program's pending output),
/// `where` being the .tfl location of the op the host is running
/// (tflrt_where), and exits 1.
[[noreturn]] void fail(const std::string &message);
/// Whether CUDA_LAUNCH_BLOCKING=1: every device operation is waited for
/// where it is issued, so that an error names the op that failed (no
/// step graphs then).
bool launchBlocking();
/// Waits for an operation just issued when launchBlocking().
void waitIfBlocking();
/// The library handles, made at start (tflrt_cuda_start) or first use.
void startCublas();
void startCudnn();
/// Stops the program when a runtime or driver call failed.
void check(cudaError_t err, const char *what);
void checkDriver(CUresult res, const char *what);

/// The program's stream for work issued now, set up (device, context) on
/// first use. Device work a loop step recorded (Graphs.cpp) is issued
/// first, so that whatever the caller queues or waits for comes after it;
/// `why` says what needs it (TFL_CUDA_GRAPHS=trace shows it).
cudaStream_t stream(const char *why = "work issued directly");
/// The stream as it is, without issuing recorded work: for library
/// handles, and for work the recorder itself issues.
cudaStream_t rawStream();
/// Waits for every operation queued so far.
void synchronize(const char *what);

/// Device memory from the caching allocator.
void *allocate(size_t bytes);
void release(void *ptr);

/// Device memory for one call, back to the caching allocator after it (the
/// stream orders its reuse after the call's kernels).
struct Scratch {
  explicit Scratch(size_t bytes) : ptr(bytes ? allocate(bytes) : nullptr) {}
  ~Scratch() { release(ptr); }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  void *ptr;
};

/// Stream-ordered copies across to and from the host; both wait, so the
/// host buffer is ready (or free to reuse) on return.
void copyToHost(void *dst, const void *src, size_t bytes);
void copyToDevice(void *dst, const void *src, size_t bytes);
/// Whether `ptr` points into device memory (not host memory, pinned or
/// not).
bool isDeviceMemory(const void *ptr);

// ---- Device work a loop step may record (Graphs.cpp) ----------------------

/// Whether device work is being recorded for a step graph now.
bool recording();
/// Issues the recorded work (stream() does so), for `why`.
void issueRecorded(const char *why = "work issued directly");
/// With TFL_CUDA_GRAPHS=stats, prints the graphs launched and captured.
void reportStepGraphs();
/// A kernel launch: grid x, y, z, block x, y, z, dynamic shared memory.
void launchKernel(CUfunction function, const unsigned dims[7], void **params,
                  size_t count);
/// Copies the elements of a device memref (`rank`, `desc`, any strides) in
/// row-major order into the dense device block `dst`, on the stream, by a
/// kernel (recorded in a step's graph like any).
void copyDense(void *dst, int64_t rank, void *desc, size_t elemSize);
/// A copy between device buffers, or between a device buffer and a pinned
/// host slot whose contents stay until the host next waits.
void copyAsync(void *dst, const void *src, size_t bytes,
               cudaMemcpyKind direction);
/// A fill of `count` elements of `elemSize` (2 or 4) bytes.
void memsetAsync(void *dst, unsigned value, size_t count, unsigned elemSize);
/// A library call on the stream: `what` names it (the profile's row),
/// `key` holds every argument that the device work depends on (pointers,
/// sizes, scalars, plans); `run` issues it. Allocations the call needs are
/// made before, by the caller.
void libraryCall(const char *what, std::string key, std::function<void()> run);

// ---- TFL_CUDA_PROFILE (Profile.cpp) ----------------------------------------

/// Whether TFL_CUDA_PROFILE is set (not to 0): device work is timed, and
/// loop steps are not recorded as graphs.
bool profiling();
/// Times the device work issued during its life (a kernel `function`, or
/// `what`) when profiling.
class ProfileScope {
public:
  explicit ProfileScope(const char *what, CUfunction function = nullptr);
  ~ProfileScope();
  ProfileScope(const ProfileScope &) = delete;
  ProfileScope &operator=(const ProfileScope &) = delete;

private:
  cudaEvent_t start = nullptr;
  std::string row;
};
/// Reads the times of the work done (after a wait).
void collectProfile();
/// Prints the profile at exit.
void reportProfile();

/// The bytes of values, appended: a library call's key.
class Key {
public:
  template <typename T> Key &add(const T &value) {
    bytes.append(reinterpret_cast<const char *>(&value), sizeof value);
    return *this;
  }
  std::string str() const { return bytes; }

private:
  std::string bytes;
};

} // namespace tflrt::cuda

namespace tflrt::cuda {

/// A ranked MLIR memref descriptor { allocated, aligned, offset, sizes[rank],
/// strides[rank] } as compiled code passes it.
struct MemrefDesc {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t dims[]; // sizes, then strides
};

inline MemrefDesc *descOf(void *desc) {
  return static_cast<MemrefDesc *>(desc);
}

/// Convolutions run by libtflrt on host copies of their tensors (for the
/// windows cuDNN cannot run); the arguments of the tflrt_conv2d* entry
/// points.
#define TFLRT_CUDA_STAGED_CONV(NAME)                                           \
  void staged_##NAME(int64_t rankA, void *a, int64_t rankB, void *b,           \
                     int64_t rankOut, void *out, int64_t strideH,              \
                     int64_t strideW, int64_t padTop, int64_t padBottom,       \
                     int64_t padLeft, int64_t padRight);
TFLRT_CUDA_STAGED_CONV(conv2d_f32)
TFLRT_CUDA_STAGED_CONV(conv2d_backward_input_f32)
TFLRT_CUDA_STAGED_CONV(conv2d_backward_filter_f32)
#undef TFLRT_CUDA_STAGED_CONV

} // namespace tflrt::cuda
#endif // TFLRT_CUDA_DEVICE_H
