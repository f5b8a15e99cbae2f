//===- MemoryTest.cpp - Sizes in errors, and the peak memory count --------===//

#include "tflrt/Memory.h"
#include "tflrt/CApi.h"
#include "tflrt/Output.h"
#include "tflrt/Tensor.h"

#include <gtest/gtest.h>

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

} // namespace
