//===- Memory.cpp - The peak memory of a run ------------------------------===//

#include "tflrt/Memory.h"
#include "tflrt/CApi.h"
#include "tflrt/Output.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <malloc.h>

#if defined(__SANITIZE_ADDRESS__)
#define TFLRT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFLRT_ASAN 1
#endif
#endif

namespace tflrt {
namespace {

std::atomic<bool> counting{false};
// Signed: a buffer allocated before counting began may be freed after.
std::atomic<int64_t> hostInUse{0}, hostPeak{0};
std::string (*deviceReport)() = nullptr;
std::atomic<size_t> byteLimit{0};

// Under AddressSanitizer every buffer is malloc's, so that it sees each
// use after free.
#ifdef TFLRT_ASAN
constexpr bool kCaching = false;
#else
constexpr bool kCaching = true;
#endif
constexpr size_t kCachedMinBytes = size_t(64) << 10;
constexpr size_t kCacheCapBytes = size_t(1) << 30;

/// Free buffers by their requested size, and the size of each cached-size
/// buffer in use (free() is told only the pointer).
struct BufferCache {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> free;
  std::unordered_map<void *, size_t> inUse;
  size_t freeBytes = 0;

  /// Gives every free buffer back to the system.
  void release() {
    for (auto &[bytes, buffers] : free)
      for (void *p : buffers)
        std::free(p);
    free.clear();
    freeBytes = 0;
  }
};

BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache; // outlives static destructors
  return *cache;
}

void printReport() {
  std::string text =
      "peak memory: host " + formatBytes(static_cast<size_t>(hostPeak.load()));
  if (deviceReport)
    text += ", " + deviceReport();
  std::fprintf(stderr, "%s\n", text.c_str());
}

} // namespace

bool countingMemory() { return counting.load(std::memory_order_relaxed); }

void noteHostAllocated(size_t bytes) {
  int64_t add = static_cast<int64_t>(bytes);
  int64_t now = hostInUse.fetch_add(add, std::memory_order_relaxed) + add;
  int64_t peak = hostPeak.load(std::memory_order_relaxed);
  while (now > peak &&
         !hostPeak.compare_exchange_weak(peak, now, std::memory_order_relaxed))
    ;
}

void noteHostFreed(size_t bytes) {
  hostInUse.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

int64_t hostMemoryInUse() { return hostInUse.load(); }
int64_t hostMemoryPeak() { return hostPeak.load(); }

void setTensorByteLimit(size_t bytes) { byteLimit.store(bytes); }
size_t tensorByteLimit() { return byteLimit.load(std::memory_order_relaxed); }

void *allocateHostBuffer(size_t bytes) {
  if (!kCaching || bytes < kCachedMinBytes)
    return bytes ? std::malloc(bytes) : nullptr;
  BufferCache &cache = bufferCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  void *ptr = nullptr;
  auto it = cache.free.find(bytes);
  if (it != cache.free.end() && !it->second.empty()) {
    ptr = it->second.back();
    it->second.pop_back();
    cache.freeBytes -= bytes;
  } else {
    ptr = std::malloc(bytes);
    if (!ptr && cache.freeBytes) {
      cache.release();
      ptr = std::malloc(bytes);
    }
    if (!ptr)
      return nullptr;
  }
  cache.inUse.emplace(ptr, bytes);
  return ptr;
}

void freeHostBuffer(void *ptr) {
  if (kCaching && ptr && malloc_usable_size(ptr) >= kCachedMinBytes) {
    BufferCache &cache = bufferCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.inUse.find(ptr);
    if (it != cache.inUse.end()) {
      size_t bytes = it->second;
      cache.inUse.erase(it);
      if (cache.freeBytes + bytes <= kCacheCapBytes) {
        cache.free[bytes].push_back(ptr);
        cache.freeBytes += bytes;
        return;
      }
    }
  }
  std::free(ptr);
}

bool cachingHostBuffers() { return kCaching; }

void releaseCachedHostBuffers() {
  BufferCache &cache = bufferCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.release();
}

size_t cachedHostBytes() {
  BufferCache &cache = bufferCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.freeBytes;
}

void setDeviceMemoryReport(std::string (*report)()) { deviceReport = report; }

} // namespace tflrt

void tflrt_report_memory(void) {
  if (tflrt::counting.exchange(true))
    return;
  std::atexit(tflrt::printReport);
}
