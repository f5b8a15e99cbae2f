//===- Device.cpp - The GPU, its stream and memory, MLIR's GPU host ABI ---===//
//
// One device (the first), one stream for the whole program, and a caching
// allocator: freed blocks go back to per-size free lists and are handed out
// again without cudaMalloc, which makes a training loop allocate nothing
// after its first step. With a single stream, reusing a block freed by the
// host while kernels that read it are still queued is safe: the stream runs
// them before the new owner's work.
//
// Kernels and modules go through the driver API (MLIR embeds cubins/fatbins
// and asks for functions by name); memory and copies through the runtime
// API, which shares the device's primary context with the driver calls.
// Every failure is a clear error that stops the program; a kernel's own
// fault surfaces at the next wait, which reports it.
//
// Scalars cross without the host waiting where it need not: a store of a
// host scalar into device memory copies it from a pinned slot, and a range
// check of a device scalar (a gather's smallest and largest index) copies
// it into one and is checked at the host's next wait. Slots are handed out
// in order and reclaimed at each wait; libtflrt asks for the pending checks
// before any output and any other error, so errors keep program order.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Libraries.h"
#include "tflrt/CApi.h"
#include "tflrt/CudaApi.h"
#include "tflrt/CudaMemory.h"
#include "tflrt/Memory.h"
#include "tflrt/Output.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tflrt::cuda {
namespace {

struct DeviceState {
  cudaStream_t stream = nullptr;
  int device = 0;
  std::string name;
  int major = 0, minor = 0;
};

DeviceState &state() {
  static DeviceState s;
  return s;
}

/// Blocks of device memory by rounded size; `live` maps each handed-out
/// block to its size. The free block of lowest address is handed out
/// first (as PyTorch's allocator orders its blocks): which block a step's
/// allocation gets depends only on which blocks are free, not on the order
/// they were freed in, so a loop that allocates the same sizes each step
/// settles on the same few blocks (its step graphs repeat). Handing out
/// the block freed last instead let a step's frees, interleaved with its
/// allocations, rotate values through more blocks than a loop keeps graphs
/// for.
class CachingAllocator {
public:
  void *allocate(size_t bytes) {
    size_t size = roundSize(bytes);
    std::lock_guard<std::mutex> lock(mutex);
    auto it = freeBlocks.find(size);
    if (it != freeBlocks.end() && !it->second.empty()) {
      void *ptr = *it->second.begin();
      it->second.erase(it->second.begin());
      hold(ptr, size);
      return ptr;
    }
    void *ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, size);
    if (err == cudaErrorMemoryAllocation) {
      // Give the cache back to the device and try once more.
      (void)cudaGetLastError();
      releaseCachedLocked();
      err = cudaMalloc(&ptr, size);
    }
    if (err != cudaSuccess) {
      size_t freeBytes = 0, totalBytes = 0;
      cudaMemGetInfo(&freeBytes, &totalBytes);
      fail("out of GPU memory: cannot allocate " + formatBytes(bytes) + " (" +
           formatBytes(freeBytes) + " free of " + formatBytes(totalBytes) +
           ")");
    }
    reserved += size;
    peakReserved = std::max(peakReserved, reserved);
    hold(ptr, size);
    return ptr;
  }

  void release(void *ptr) {
    if (!ptr)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = live.find(ptr);
    if (it == live.end())
      fail("internal error: freeing GPU memory that was not allocated");
    freeBlocks[it->second].insert(ptr);
    inUse -= it->second;
    live.erase(it);
  }

  /// "GPU 48.0 MiB (64.0 MiB reserved)": the peak of the blocks handed out,
  /// and of the blocks taken from the device (the cache's too).
  std::string report() {
    std::lock_guard<std::mutex> lock(mutex);
    return "GPU " + formatBytes(peakInUse) + " (" + formatBytes(peakReserved) +
           " reserved)";
  }

private:
  /// Small blocks round to 512 bytes, large ones to 2 MiB, so that sizes
  /// that differ a little share blocks.
  static size_t roundSize(size_t bytes) {
    const size_t small = 512, large = size_t(2) << 20;
    if (bytes <= (size_t(1) << 20))
      return bytes == 0 ? small : (bytes + small - 1) / small * small;
    return (bytes + large - 1) / large * large;
  }

  void hold(void *ptr, size_t size) {
    live[ptr] = size;
    inUse += size;
    peakInUse = std::max(peakInUse, inUse);
  }

  void releaseCachedLocked() {
    // Recorded work may still use free blocks: it goes first.
    issueRecorded();
    cudaStreamSynchronize(state().stream);
    for (auto &sized : freeBlocks)
      for (void *ptr : sized.second) {
        cudaFree(ptr);
        reserved -= sized.first;
      }
    freeBlocks.clear();
  }

  std::mutex mutex;
  std::unordered_map<size_t, std::set<void *>> freeBlocks;
  std::unordered_map<void *, size_t> live;
  size_t inUse = 0, peakInUse = 0, reserved = 0, peakReserved = 0;
};

CachingAllocator &allocator() {
  static CachingAllocator *a = new CachingAllocator(); // outlives atexit
  return *a;
}

void finishAtExit() { tflrt_cuda_finish(); }

/// Pinned host slots that stream-ordered scalar copies go through.
class ScalarSlots {
public:
  static constexpr size_t kSlots = 4096;

  /// A slot no queued copy uses; waits for the stream when all are taken.
  int64_t *take() {
    if (used == kSlots)
      synchronize("a GPU computation failed");
    if (!slots) {
      void *p = nullptr;
      check(cudaHostAlloc(&p, kSlots * sizeof(int64_t), cudaHostAllocDefault),
            "cannot allocate pinned host memory");
      slots = static_cast<int64_t *>(p);
    }
    return &slots[used++];
  }
  /// After a wait: every queued copy is done.
  void reclaim() { used = 0; }

private:
  int64_t *slots = nullptr;
  size_t used = 0;
};

ScalarSlots &scalarSlots() {
  static ScalarSlots s;
  return s;
}

/// A range check of a device scalar, whose value a queued copy brings to
/// `slot`.
struct PendingCheck {
  const int64_t *slot;
  int64_t bytes;
  bool isSigned;
  int64_t size, stride, dim;
  const char *where;
};

std::vector<PendingCheck> &pendingChecks() {
  static std::vector<PendingCheck> checks;
  return checks;
}

/// Runs the pending checks (the stream has been waited for); the first
/// that fails stops the program with its message.
void runPendingChecks() {
  std::vector<PendingCheck> checks;
  checks.swap(pendingChecks());
  for (const PendingCheck &c : checks) {
    int64_t value = *c.slot;
    if (c.bytes < 8) {
      int shift = static_cast<int>(64 - 8 * c.bytes);
      uint64_t bits = static_cast<uint64_t>(value) << shift;
      value = c.isSigned ? static_cast<int64_t>(bits) >> shift
                         : static_cast<int64_t>(bits >> shift);
    }
    tflrt_check_slice(value, c.size, c.stride, c.dim, c.where);
  }
}

/// libtflrt's hook before output and errors.
void reportPendingChecks() {
  if (!pendingChecks().empty())
    synchronize("a GPU computation failed");
}

} // namespace

[[noreturn]] void fail(const std::string &message) {
  // A range check queued before the failure comes first (its copy ran if
  // the stream got that far; an unrun copy leaves an in-range zero).
  if (!pendingChecks().empty()) {
    (void)cudaStreamSynchronize(state().stream);
    runPendingChecks();
  }
  tflrt::failAt(tflrt_where, message);
}

bool launchBlocking() {
  static const bool blocking = [] {
    const char *env = std::getenv("CUDA_LAUNCH_BLOCKING");
    return env && std::strcmp(env, "1") == 0;
  }();
  return blocking;
}

void waitIfBlocking() {
  if (launchBlocking())
    synchronize("a GPU computation failed");
}

void check(cudaError_t err, const char *what) {
  if (err == cudaSuccess)
    return;
  std::string text = std::string(what) + ": " + cudaGetErrorString(err);
  if (err == cudaErrorInsufficientDriver)
    text += " (the NVIDIA driver is older than the CUDA runtime this program "
            "was built with)";
  fail(text);
}

void checkDriver(CUresult res, const char *what) {
  if (res == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *message = nullptr;
  driver().cuGetErrorName(res, &name);
  driver().cuGetErrorString(res, &message);
  std::string text = std::string(what) + ": " + (name ? name : "?") + " (" +
                     (message ? message : "unknown") + ")";
  if (res == CUDA_ERROR_NO_BINARY_FOR_GPU ||
      res == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    text += "; this program's kernels were built for sm_90 (and PTX "
            "8.0), GPU is " +
            state().name + " (sm_" + std::to_string(state().major) +
            std::to_string(state().minor) +
            "): the driver may be too old for the embedded code";
  fail(text);
}

cudaStream_t stream(const char *why) {
  cudaStream_t s = rawStream();
  issueRecorded(why);
  return s;
}

cudaStream_t rawStream() {
  DeviceState &s = state();
  if (s.stream)
    return s.stream;
  // The driver first: without it, TFL's error, not the CUDA runtime's
  // (which loads the driver itself and reports only an old one).
  driver();
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
    fail(std::string("this program was built with --device cuda and needs a "
                     "GPU: none is visible") +
         (visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")"
                  : ""));
  }
  check(err, "cannot use the GPU");
  // One GPU per rank when an MPI launcher started several processes on
  // this machine (Open MPI's and MPICH's local rank).
  const char *local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!local)
    local = std::getenv("MPI_LOCALRANKID");
  if (local)
    s.device = std::atoi(local) % count;
  check(cudaSetDevice(s.device), "cannot use the GPU");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, s.device), "cannot query the GPU");
  s.name = prop.name;
  s.major = prop.major;
  s.minor = prop.minor;
  check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking),
        "cannot create a GPU stream");
  std::atexit(finishAtExit);
  tflrt::setPendingErrorsHook(reportPendingChecks);
  tflrt::setDeviceMemoryReport([] { return allocator().report(); });
  return s.stream;
}

void synchronize(const char *what) {
  cudaError_t err = cudaStreamSynchronize(stream("a wait for the GPU"));
  // The checks queued before a failure have their values: they come first.
  runPendingChecks();
  scalarSlots().reclaim();
  if (err == cudaSuccess)
    return collectProfile();
  std::string text = what;
  if (!launchBlocking())
    text += " (the GPU runs behind the host: the failing operation may be an "
            "earlier one; with CUDA_LAUNCH_BLOCKING=1 each waits, and the "
            "error names it)";
  check(err, text.c_str());
}

void *allocate(size_t bytes) {
  rawStream();
  return allocator().allocate(bytes);
}

void release(void *ptr) { allocator().release(ptr); }

void copyToHost(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return;
  {
    ProfileScope timed("copy to the host");
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost,
                          stream("a copy to the host")),
          "a copy from the GPU failed");
  }
  synchronize("a GPU computation failed");
}

void copyToDevice(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return;
  {
    ProfileScope timed("copy from the host");
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                          stream("a copy from the host")),
          "a copy to the GPU failed");
  }
  // The source is pageable host memory the caller may free on return.
  synchronize("a GPU computation failed");
}

bool isDeviceMemory(const void *ptr) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice;
}

const DeviceMemory &deviceMemory() {
  static const DeviceMemory memory{
      [](size_t bytes) { return allocate(bytes); },
      [](void *pointer) { release(pointer); },
      [](void *host, const void *device, size_t bytes) {
        copyToHost(host, device, bytes);
      },
      [](void *device, const void *host, size_t bytes) {
        copyToDevice(device, host, bytes);
      }};
  return memory;
}

void startDevice(int64_t flags) { tflrt_cuda_start(flags); }

} // namespace tflrt::cuda

using namespace tflrt::cuda;

extern "C" {

void *mgpuModuleLoad(void *data, size_t sizeBytes) {
  rawStream();
  CUmodule module = nullptr;
  checkDriver(driver().cuModuleLoadData(&module, data),
              "cannot load this program's GPU kernels");
  return module;
}

void *mgpuModuleLoadJIT(void *ptx, int optLevel) {
  rawStream();
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUmodule module = nullptr;
  checkDriver(driver().cuModuleLoadDataEx(&module, ptx, 1, options, values),
              "cannot compile this program's GPU kernels (PTX)");
  return module;
}

void mgpuModuleUnload(void *module) {
  // At exit the driver may already be shutting down: ignore its answer.
  (void)driver().cuModuleUnload(static_cast<CUmodule>(module));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  // Each launch asks again: the answers are kept, by module and by the
  // address of the name (a constant of the program).
  static std::map<std::pair<void *, const char *>, CUfunction> functions;
  CUfunction &function = functions[{module, name}];
  if (function)
    return function;
  checkDriver(driver().cuModuleGetFunction(&function,
                                           static_cast<CUmodule>(module), name),
              ("cannot find GPU kernel " + std::string(name)).c_str());
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *streamArg,
                      void **params, void **extra, size_t paramsCount) {
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return; // an empty tensor: nothing to compute
  if (extra)
    fail("internal error: a GPU kernel launched with extra options");
  const unsigned dims[7] = {
      static_cast<unsigned>(gridX),  static_cast<unsigned>(gridY),
      static_cast<unsigned>(gridZ),  static_cast<unsigned>(blockX),
      static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
      static_cast<unsigned>(smem)};
  launchKernel(static_cast<CUfunction>(function), dims, params, paramsCount);
}

// The program has one stream: "creating" one hands it out, destroying it
// does nothing, and synchronizing waits for it.
void *mgpuStreamCreate(void) { return rawStream(); }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) { synchronize("a GPU computation failed"); }

void mgpuStreamWaitEvent(void *streamArg, void *event) {
  // Events are recorded on this stream too, so the wait orders nothing
  // that the stream does not; it is kept for the ABI's sake.
  check(cudaStreamWaitEvent(stream(), static_cast<cudaEvent_t>(event), 0),
        "a GPU event wait failed");
}

void *mgpuEventCreate(void) {
  rawStream();
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
        "cannot create a GPU event");
  return event;
}

void mgpuEventDestroy(void *event) {
  check(cudaEventDestroy(static_cast<cudaEvent_t>(event)),
        "cannot destroy a GPU event");
}

void mgpuEventSynchronize(void *event) {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)),
        "a GPU computation failed");
}

void mgpuEventRecord(void *event, void *) {
  check(cudaEventRecord(static_cast<cudaEvent_t>(event), stream()),
        "cannot record a GPU event");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool isHostShared) {
  if (isHostShared)
    fail("internal error: host-shared GPU memory is not used by TFL");
  return allocate(sizeBytes);
}

void mgpuMemFree(void *ptr, void *) { release(ptr); }

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *) {
  if (sizeBytes == 0)
    return;
  // Between device buffers it may be recorded; from or to pageable host
  // memory it is issued now (the host may change or read the buffer right
  // after).
  if (recording() && isDeviceMemory(dst) && isDeviceMemory(src))
    return copyAsync(dst, src, sizeBytes, cudaMemcpyDeviceToDevice);
  {
    ProfileScope timed("copy to or from the host");
    check(cudaMemcpyAsync(dst, src, sizeBytes, cudaMemcpyDefault,
                          stream("a copy to or from pageable host memory")),
          "a GPU copy failed");
  }
  waitIfBlocking();
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *) {
  memsetAsync(dst, value, count, 4);
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *) {
  memsetAsync(dst, value, count, 2);
}

int64_t tflrt_cuda_read_scalar(int64_t elemSize, int64_t address) {
  int64_t bits = 0; // little-endian: the element lands in the low bytes
  copyToHost(&bits, reinterpret_cast<const void *>(address),
             static_cast<size_t>(elemSize));
  return bits;
}

void tflrt_cuda_write_scalar(int64_t elemSize, int64_t address, int64_t bits) {
  int64_t *slot = scalarSlots().take();
  *slot = bits;
  copyAsync(reinterpret_cast<void *>(address), slot,
            static_cast<size_t>(elemSize), cudaMemcpyHostToDevice);
}

void tflrt_cuda_copy_to_host(int64_t hostAddress, int64_t deviceAddress,
                             int64_t bytes) {
  copyToHost(reinterpret_cast<void *>(hostAddress),
             reinterpret_cast<const void *>(deviceAddress),
             static_cast<size_t>(bytes));
}

void tflrt_cuda_copy_to_device(int64_t deviceAddress, int64_t hostAddress,
                               int64_t bytes) {
  copyToDevice(reinterpret_cast<void *>(deviceAddress),
               reinterpret_cast<const void *>(hostAddress),
               static_cast<size_t>(bytes));
}

void tflrt_cuda_check_slice_async(int64_t elemSize, int64_t address,
                                  int64_t isSigned, int64_t size,
                                  int64_t stride, int64_t dim,
                                  const char *where) {
  int64_t *slot = scalarSlots().take();
  *slot = 0; // in range, should the copy never run (a fault before it)
  copyAsync(slot, reinterpret_cast<const void *>(address),
            static_cast<size_t>(elemSize), cudaMemcpyDeviceToHost);
  pendingChecks().push_back(
      {slot, elemSize, isSigned != 0, size, stride, dim, where});
}

static int tf32 = 0;
void tflrt_cuda_start(int64_t flags) {
  tf32 = (flags & TFLRT_CUDA_START_TF32) != 0;
  rawStream();
  if (flags & TFLRT_CUDA_START_CUBLAS)
    startCublas();
  if (flags & TFLRT_CUDA_START_CUDNN)
    startCudnn();
}
int tflrt_cuda_tf32_allowed(void) { return tf32; }

double tflrt_cuda_now(void) {
  if (state().stream)
    synchronize("a GPU computation failed");
  return tflrt_now();
}

void tflrt_cuda_finish(void) {
  DeviceState &s = state();
  if (!s.stream)
    return;
  synchronize("a GPU computation failed");
  reportStepGraphs();
  reportProfile();
}

} // extern "C"
