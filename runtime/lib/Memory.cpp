//===- Memory.cpp - The peak memory of a run ------------------------------===//

#include "tflrt/Memory.h"
#include "tflrt/CApi.h"
#include "tflrt/Output.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace tflrt {
namespace {

std::atomic<bool> counting{false};
// Signed: a buffer allocated before counting began may be freed after.
std::atomic<int64_t> hostInUse{0}, hostPeak{0};
std::string (*deviceReport)() = nullptr;
std::atomic<size_t> byteLimit{0};

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

void setDeviceMemoryReport(std::string (*report)()) { deviceReport = report; }

} // namespace tflrt

void tflrt_report_memory(void) {
  if (tflrt::counting.exchange(true))
    return;
  std::atexit(tflrt::printReport);
}
