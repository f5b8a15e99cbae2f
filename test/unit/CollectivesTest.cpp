//===- CollectivesTest.cpp - libtflrt's collectives on every rank ---------===//
//
// Run alone (a world of one) and under mpirun with 2 and 3 processes
// (test/CMakeLists.txt): rank r's inputs are functions of r, so each rank
// knows every result in closed form.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Collectives.h"
#include "tflrt/Output.h"
#include "tflrt/Tensor.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace tflrt;
using namespace tflrt::dist;

namespace {

/// A tensor of `n` floats, element k = (rank + 1) * (k + 1).
Tensor ramp(int64_t n, int64_t rank) {
  Tensor t(DType::F32, {n});
  for (int64_t k = 0; k < n; ++k)
    t.data<float>()[k] = static_cast<float>((rank + 1) * (k + 1));
  return t;
}

/// 1 + 2 + ... + size: the sum over ranks of (rank + 1).
double rankSum() { return worldSize() * (worldSize() + 1) / 2.0; }

TEST(CollectivesTest, TheWorldIsConsistent) {
  EXPECT_GE(worldSize(), 1);
  EXPECT_GE(rank(), 0);
  EXPECT_LT(rank(), worldSize());
  EXPECT_EQ(usesMpi(), std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr);
}

TEST(CollectivesTest, AllReduceSumsAndAveragesEveryDtype) {
  Tensor f = ramp(5, rank());
  Tensor i(DType::I64, {3});
  for (int64_t k = 0; k < 3; ++k)
    i.data<int64_t>()[k] = (rank() + 1) * 1000000000000LL + k;
  std::vector<Tensor> sum = run(Kind::AllReduce, Reduction::Sum, 0, {f, i});
  for (int64_t k = 0; k < 5; ++k)
    EXPECT_FLOAT_EQ(sum[0].data<float>()[k], rankSum() * (k + 1));
  for (int64_t k = 0; k < 3; ++k)
    EXPECT_EQ(sum[1].data<int64_t>()[k],
              static_cast<int64_t>(rankSum()) * 1000000000000LL +
                  k * worldSize());
  std::vector<Tensor> mean = run(Kind::AllReduce, Reduction::Mean, 0, {f});
  for (int64_t k = 0; k < 5; ++k)
    EXPECT_FLOAT_EQ(mean[0].data<float>()[k],
                    rankSum() * (k + 1) / worldSize());
}

TEST(CollectivesTest, AllReduceReadsStridedViews) {
  // The transpose of a 2x3 matrix: a view with strides (1, 3).
  Tensor m(DType::F64, {2, 3});
  for (int k = 0; k < 6; ++k)
    m.data<double>()[k] = (rank() + 1) * k;
  TensorView t = m.view();
  t.shape = {3, 2};
  t.strides = {1, 3};
  std::vector<double> out(6);
  run(Kind::AllReduce, Reduction::Sum, 0, {t}, {out.data()});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_DOUBLE_EQ(out[i * 2 + j], rankSum() * (j * 3 + i));
}

TEST(CollectivesTest, BroadcastGivesEveryRankTheRoots) {
  int64_t root = worldSize() - 1;
  std::vector<Tensor> out =
      run(Kind::Broadcast, Reduction::Sum, root, {ramp(4, rank())});
  for (int64_t k = 0; k < 4; ++k)
    EXPECT_FLOAT_EQ(out[0].data<float>()[k], (root + 1) * (k + 1));
}

TEST(CollectivesTest, ReduceToRootSumsOnTheRootOnly) {
  std::vector<Tensor> out =
      run(Kind::ReduceToRoot, Reduction::Sum, 0, {ramp(4, rank())});
  for (int64_t k = 0; k < 4; ++k)
    EXPECT_FLOAT_EQ(out[0].data<float>()[k],
                    rank() == 0 ? rankSum() * (k + 1) : 0.0);
}

TEST(CollectivesTest, AllGatherStacksInRankOrder) {
  std::vector<Tensor> out =
      run(Kind::AllGather, Reduction::Sum, 0, {ramp(3, rank())});
  ASSERT_EQ(out[0].shape(), (Shape{worldSize(), 3}));
  for (int64_t s = 0; s < worldSize(); ++s)
    for (int64_t k = 0; k < 3; ++k)
      EXPECT_FLOAT_EQ(out[0].data<float>()[s * 3 + k], (s + 1) * (k + 1));
}

TEST(CollectivesTest, StagedRequestsOverlapAndKeepTheirOrder) {
  // Two buckets in flight at once, taken out after other work; the inputs
  // are gone before the requests complete (they were copied).
  int64_t first = begin(Kind::AllReduce, Reduction::Mean, 0);
  {
    Tensor a = ramp(1000, rank()), b = ramp(7, rank());
    add(first, a.view());
    add(first, b.view());
  }
  start(first);
  int64_t second = begin(Kind::AllReduce, Reduction::Sum, 0);
  Tensor c(DType::I32, {2});
  c.data<int32_t>()[0] = static_cast<int32_t>(rank());
  c.data<int32_t>()[1] = 1;
  add(second, c.view());
  start(second);
  wait(first);
  std::vector<float> a(1000), b(7);
  take(first, 0, a.data());
  take(first, 1, b.data());
  EXPECT_FLOAT_EQ(a[999], rankSum() * 1000 / worldSize());
  EXPECT_FLOAT_EQ(b[6], rankSum() * 7 / worldSize());
  wait(second);
  int32_t sums[2];
  take(second, 0, sums);
  EXPECT_EQ(sums[0], worldSize() * (worldSize() - 1) / 2);
  EXPECT_EQ(sums[1], worldSize());
}

TEST(CollectivesTest, LargeBuffersGoWhole) {
  const int64_t n = 3 << 20; // 12 MiB of f32
  Tensor t(DType::F32, {n});
  std::iota(t.data<float>(), t.data<float>() + n, 0.0f);
  std::vector<Tensor> out = run(Kind::AllReduce, Reduction::Sum, 0, {t});
  EXPECT_FLOAT_EQ(out[0].data<float>()[n - 1], worldSize() * float(n - 1));
  EXPECT_FLOAT_EQ(out[0].data<float>()[12345], worldSize() * 12345.0f);
}

TEST(CollectivesTest, ErrorsNameTheProblem) {
  try {
    run(Kind::Broadcast, Reduction::Sum, worldSize(), {ramp(1, 0)});
    FAIL() << "a root past the last rank was accepted";
  } catch (const CollectiveError &e) {
    EXPECT_NE(std::string(e.what()).find("broadcast's root " +
                                         std::to_string(worldSize()) +
                                         " is not a rank of this run"),
              std::string::npos)
        << e.what();
  }
  Tensor i(DType::I32, {1});
  EXPECT_THROW(run(Kind::AllReduce, Reduction::Mean, 0, {i}), CollectiveError);
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int rc = RUN_ALL_TESTS();
  if (rc == 0)
    finishRun(); // finalizes MPI
  return rc;
}
