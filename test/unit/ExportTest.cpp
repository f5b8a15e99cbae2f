//===- ExportTest.cpp - The boundary of a library's exports ---------------===//

#include "tflrt/CApi.h"
#include "tflrt/Output.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

namespace {

// An export of one f32[2, 3] argument and an f32[3] result: the column
// sums. Descriptors are { allocated, aligned, offset, sizes, strides }.
void columnSums(void **descriptors) {
  const int64_t *in = static_cast<const int64_t *>(descriptors[0]);
  const int64_t *out = static_cast<const int64_t *>(descriptors[1]);
  const float *x;
  float *y;
  std::memcpy(&x, &in[1], sizeof x);
  std::memcpy(&y, &out[1], sizeof y);
  EXPECT_EQ(in[3], 2);
  EXPECT_EQ(in[4], 3);
  EXPECT_EQ(in[5], 3); // row-major strides
  EXPECT_EQ(in[6], 1);
  for (int j = 0; j < 3; ++j)
    y[j] = x[j] + x[3 + j];
}

const int64_t kInShape[] = {2, 3}, kOutShape[] = {3};
const tflrt_export_leaf kLeaves[] = {{"x", 0, 0, 2, kInShape},
                                     {"result", 0, 1, 1, kOutShape}};
const tflrt_export kColumnSums = {"column_sums", 2, kLeaves, columnSums};

TEST(ExportTest, RunsOnTheCallersTensors) {
  float x[6] = {1, 2, 3, 10, 20, 30}, y[3] = {};
  tfl_tensor in = {x, 2, kInShape}, out = {y, 1, kOutShape};
  const tfl_tensor *tensors[] = {&in, &out};
  ASSERT_EQ(tflrt_export_call(&kColumnSums, tensors), 0)
      << tflrt_export_last_error();
  EXPECT_EQ(y[0], 11);
  EXPECT_EQ(y[1], 22);
  EXPECT_EQ(y[2], 33);
}

TEST(ExportTest, RefusesABadShapeWithAMessage) {
  float x[6] = {}, y[3] = {};
  const int64_t bad[] = {3, 2};
  tfl_tensor in = {x, 2, bad}, out = {y, 1, kOutShape};
  const tfl_tensor *tensors[] = {&in, &out};
  EXPECT_EQ(tflrt_export_call(&kColumnSums, tensors), 1);
  EXPECT_STREQ(tflrt_export_last_error(),
               "column_sums(): argument 'x' has shape (3, 2), but it is "
               "f32[2, 3]");
  const tfl_tensor *missing[] = {&in, nullptr};
  in.shape = kInShape;
  EXPECT_EQ(tflrt_export_call(&kColumnSums, missing), 1);
  EXPECT_STREQ(tflrt_export_last_error(),
               "column_sums(): result 'result' is missing (a null tensor)");
}

// A run-time error inside an export is the export's: an error code and its
// message, the process going on.
void failing(void **) {
  tflrt::failAt("prog.tfl:3:5\nprog.tfl:9:1: note: called from here",
                "index 9 is out of range");
}

TEST(ExportTest, ARunTimeErrorIsAnErrorCode) {
  const tflrt_export e = {"failing", 0, nullptr, failing};
  EXPECT_EQ(tflrt_export_call(&e, nullptr), 1);
  EXPECT_STREQ(tflrt_export_last_error(),
               "prog.tfl:3:5: error: index 9 is out of range\n"
               "prog.tfl:9:1: note: called from here");
  EXPECT_FALSE(tflrt::insideExport());
}

// An error on one of the pool's threads, in a loop compiled code runs in
// parallel inside an export, reaches the export's caller.
std::atomic<int> chunks{0};
void failingChunk(void *, int64_t begin, int64_t end) {
  ++chunks;
  if (begin <= 500 && 500 < end)
    tflrt::failAt("prog.tfl:4:7", "out of memory");
}
void parallelFailing(void **) {
  tflrt_parallel_for(failingChunk, nullptr, 0, 1000, 1);
}

TEST(ExportTest, AnErrorInAParallelLoopIsTheExports) {
  const tflrt_export e = {"parallel", 0, nullptr, parallelFailing};
  EXPECT_EQ(tflrt_export_call(&e, nullptr), 1);
  EXPECT_STREQ(tflrt_export_last_error(), "prog.tfl:4:7: error: out of memory");
  EXPECT_GE(chunks.load(), 1);
}

} // namespace
