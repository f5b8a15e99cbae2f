//===- MemoryTest.cpp - Sizes in errors, and the peak memory count --------===//

#include "tflrt/Memory.h"
#include "tflrt/CApi.h"
#include "tflrt/Output.h"
#include "tflrt/Tensor.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

using namespace tflrt;

namespace {

TEST(MemoryTest, SizesUseTheLargestBinaryUnitTheyReach) {
  EXPECT_EQ(formatBytes(0), "0 bytes");
  EXPECT_EQ(formatBytes(1023), "1023 bytes");
  EXPECT_EQ(formatBytes(1024), "1.0 KiB");
  EXPECT_EQ(formatBytes(3 * 1024 * 1024 / 2), "1.5 MiB");
  EXPECT_EQ(formatBytes(size_t(5) << 30), "5.0 GiB");
  // A request with alignment padding reads as the request itself.
  EXPECT_EQ(formatBytes(400000000000000), "363.8 TiB");
  EXPECT_EQ(formatBytes(400000000000064), "363.8 TiB");
  EXPECT_EQ(formatBytes(size_t(3) << 50), "3072.0 TiB");
  EXPECT_EQ(outOfMemoryMessage(size_t(2) << 20),
            "out of memory: cannot allocate 2.0 MiB");
  EXPECT_EQ(formatBytes(size_t(16) << 20), "16.0 MiB"); // report-memory's
}

TEST(MemoryTest, TensorsAreCountedWhileCounting) {
  tflrt_report_memory(); // counts from here on (and reports at exit)
  ASSERT_TRUE(countingMemory());
  // A refused allocation is an error naming its size, not a crash.
  EXPECT_THROW(Tensor(DType::F32, {1000000, 1000000, 100}), std::runtime_error);
  const int64_t mib = 1 << 20;
  int64_t before = hostMemoryInUse();
  {
    Tensor big(DType::F32, {1024, 1024}); // 4 MiB
    Tensor other(DType::F32, {1024, 1024});
    EXPECT_EQ(hostMemoryInUse(), before + 8 * mib);
  }
  EXPECT_EQ(hostMemoryInUse(), before);
  Tensor again(DType::F32, {1024, 1024});
  EXPECT_EQ(hostMemoryInUse(), before + 4 * mib);
  EXPECT_EQ(hostMemoryPeak(), before + 8 * mib); // freed memory is reused
}

TEST(MemoryTest, TheTensorByteLimitRefusesLargerTensors) {
  setTensorByteLimit(4096);
  EXPECT_NO_THROW(Tensor(DType::F32, {1024})); // 4096 bytes: at the limit
  try {
    Tensor(DType::F32, {1025});
    ADD_FAILURE() << "a tensor past the limit was allocated";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "out of memory: cannot allocate 4.0 KiB");
  }
  setTensorByteLimit(0); // no limit again
  EXPECT_NO_THROW(Tensor(DType::F32, {1025}));
}

TEST(MemoryTest, FreedLargeBuffersAreReusedForTheirSize) {
  EXPECT_EQ(allocateHostBuffer(0), nullptr);
  if (!cachingHostBuffers())
    GTEST_SKIP() << "AddressSanitizer: every buffer is malloc's";
  releaseCachedHostBuffers(); // what other tests left
  EXPECT_EQ(cachedHostBytes(), 0u);
  const size_t size = size_t(1) << 20;
  void *a = allocateHostBuffer(size);
  void *b = allocateHostBuffer(size);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::memset(a, 1, size);
  freeHostBuffer(a);
  freeHostBuffer(b);
  // Another size does not take them; the same size takes both back.
  void *other = allocateHostBuffer(size + 64);
  EXPECT_NE(other, a);
  EXPECT_NE(other, b);
  size_t cached = cachedHostBytes();
  void *c = allocateHostBuffer(size);
  void *d = allocateHostBuffer(size);
  EXPECT_EQ(std::set<void *>({c, d}), std::set<void *>({a, b}));
  EXPECT_EQ(cachedHostBytes(), cached - 2 * size);
  for (void *p : {other, c, d})
    freeHostBuffer(p);
  freeHostBuffer(nullptr);
}

TEST(MemoryTest, TheCacheOfFreeBuffersHoldsAtMostOneGiB) {
  if (!cachingHostBuffers())
    GTEST_SKIP() << "AddressSanitizer: every buffer is malloc's";
  releaseCachedHostBuffers();
  // 17 buffers of 64 MiB (never touched: no memory is committed).
  const size_t size = size_t(64) << 20;
  std::set<void *> first, second;
  for (int i = 0; i < 17; ++i)
    first.insert(allocateHostBuffer(size));
  ASSERT_EQ(first.size(), 17u);
  ASSERT_EQ(first.count(nullptr), 0u);
  for (void *p : first)
    freeHostBuffer(p); // the last ones go back to the system
  const size_t cap = size_t(1) << 30;
  EXPECT_LE(cachedHostBytes(), cap);
  EXPECT_GT(cachedHostBytes(), cap - size);
  EXPECT_EQ(cachedHostBytes(), 16 * size); // the cache was empty
  int reused = 0;
  for (int i = 0; i < 17; ++i) {
    void *p = allocateHostBuffer(size);
    ASSERT_NE(p, nullptr);
    second.insert(p);
  }
  for (void *p : second) {
    reused += first.count(p);
    freeHostBuffer(p);
  }
  releaseCachedHostBuffers();
  EXPECT_EQ(cachedHostBytes(), 0u);
  // The 16 cached (the system may hand the 17th's address out again).
  EXPECT_GE(reused, 16);
  // Small buffers are malloc's: freeing one does not touch the cache.
  void *small = allocateHostBuffer(1024);
  ASSERT_NE(small, nullptr);
  freeHostBuffer(small);
}

/// A device memory of host buffers whose uses are counted and whose
/// copies can be told apart from the host's.
struct CountedDevice {
  static inline int allocated = 0, released = 0, toHost = 0, toDevice = 0;
  static const DeviceMemory memory;
};
const DeviceMemory CountedDevice::memory{
    [](size_t bytes) {
      ++allocated;
      return std::malloc(bytes);
    },
    [](void *p) {
      ++released;
      std::free(p);
    },
    [](void *host, const void *device, size_t bytes) {
      ++toHost;
      std::memcpy(host, device, bytes);
    },
    [](void *device, const void *host, size_t bytes) {
      ++toDevice;
      std::memcpy(device, host, bytes);
    }};

TEST(MemoryTest, ATensorIsCopiedBetweenHostAndDeviceOnceEachWay) {
  CountedDevice::allocated = CountedDevice::released = 0;
  CountedDevice::toHost = CountedDevice::toDevice = 0;
  {
    // Made on the device (a kernel's result): no host copy until read.
    Tensor t =
        Tensor::uninitializedOn(CountedDevice::memory, DType::F32, {2, 3});
    EXPECT_FALSE(t.onHost());
    auto *d = static_cast<float *>(t.deviceData(CountedDevice::memory));
    for (int i = 0; i < 6; ++i)
      d[i] = static_cast<float>(i) + 0.5f;
    EXPECT_EQ(CountedDevice::toDevice, 0);
    // Read on the host: copied once, shared by views (reshapes).
    Tensor r = t.reshaped({3, 2});
    EXPECT_EQ(r.data<float>()[5], 5.5f);
    EXPECT_EQ(t.data<float>()[1], 1.5f);
    EXPECT_TRUE(t.onHost());
    EXPECT_EQ(CountedDevice::toHost, 1);
    EXPECT_EQ(r.deviceData(CountedDevice::memory), d);

    // Made on the host: copied to the device once, when a kernel takes it.
    Tensor h(DType::I32, {4});
    h.data<int32_t>()[2] = 7;
    auto *hd = static_cast<int32_t *>(h.deviceData(CountedDevice::memory));
    EXPECT_EQ(hd[2], 7);
    EXPECT_EQ(h.deviceData(CountedDevice::memory), hd);
    EXPECT_EQ(CountedDevice::toDevice, 1);
    EXPECT_EQ(CountedDevice::toHost, 1);
    // Threads asking for a device tensor's host copy together get one.
    Tensor shared =
        Tensor::uninitializedOn(CountedDevice::memory, DType::F32, {1024});
    std::vector<const void *> seen(4);
    std::vector<std::thread> threads;
    for (size_t k = 0; k < seen.size(); ++k)
      threads.emplace_back([&, k] { seen[k] = shared.data(); });
    for (std::thread &t : threads)
      t.join();
    EXPECT_EQ(std::set<const void *>(seen.begin(), seen.end()).size(), 1u);
    EXPECT_EQ(CountedDevice::toHost, 2);

    // No elements: a buffer all the same, and nothing to copy.
    Tensor empty =
        Tensor::uninitializedOn(CountedDevice::memory, DType::F64, {0, 3});
    EXPECT_NE(empty.data(), nullptr);
    EXPECT_EQ(CountedDevice::toHost, 2);
  }
  // Every device buffer is released with its tensor.
  EXPECT_EQ(CountedDevice::allocated, 4);
  EXPECT_EQ(CountedDevice::released, 4);
}

} // namespace
