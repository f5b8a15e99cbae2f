//===- EagerAttentionTest.cpp - seq_major attention's eager kernels -------===//
//
// The eager kernels of tfl.attention and tfl.attention_backward with
// `seq_major` ([B, T, H, E] operands and results) give the heads-first
// ops' values on the same numbers transposed ([B, H, T, E]): the two
// layouts of one attention, read through strides against copies made
// here.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/Eager/Interpreter.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;
using tflrt::Tensor;

namespace {

constexpr int64_t kB = 2, kH = 3, kT = 5, kS = 6, kE = 4, kF = 7;

/// A [B, X, Y, C] tensor of normal draws.
Tensor random(tflrt::Shape shape, std::mt19937 &gen) {
  Tensor t(tflrt::DType::F32, shape);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data<float>()[i] = normal(gen);
  return t;
}

/// `t` [A, X, Y, C] copied as [A, Y, X, C].
Tensor swapMiddle(const Tensor &t) {
  const tflrt::Shape &s = t.shape();
  Tensor out(tflrt::DType::F32, {s[0], s[2], s[1], s[3]});
  const float *in = t.data<float>();
  float *o = out.data<float>();
  for (int64_t a = 0; a < s[0]; ++a)
    for (int64_t x = 0; x < s[1]; ++x)
      for (int64_t y = 0; y < s[2]; ++y)
        for (int64_t c = 0; c < s[3]; ++c)
          o[((a * s[2] + y) * s[1] + x) * s[3] + c] =
              in[((a * s[1] + x) * s[2] + y) * s[3] + c];
  return out;
}

void expectSame(const Tensor &a, const Tensor &b) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numElements(); ++i)
    ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-5) << "at " << i;
}

struct EagerAttention : ::testing::Test {
  void SetUp() override {
    DialectRegistry dialects;
    mlir::tfl::registerCompilerDialects(dialects);
    ctx.appendDialectRegistry(dialects);
    ctx.loadAllAvailableDialects();
    ::tfl::eager::registerTflKernels(kernels);
  }

  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&ctx));
  }

  /// Runs `op`'s kernel on `in`.
  SmallVector<Tensor> run(Operation *op, ArrayRef<Tensor> in) {
    const ::tfl::eager::Kernel *kernel =
        kernels.lookup(op->getName().getStringRef());
    EXPECT_NE(kernel, nullptr);
    SmallVector<Tensor> out;
    (*kernel)(op, in, out);
    return out;
  }

  MLIRContext ctx;
  ::tfl::eager::KernelRegistry kernels;
};

TEST_F(EagerAttention, SeqMajorIsTheHeadsFirstOneTransposed) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  // One function whose arguments are both layouts' operands.
  SmallVector<Type> args = {type({kB, kT, kH, kE}), type({kB, kS, kH, kE}),
                            type({kB, kS, kH, kF}), type({kB, kT, kH, kF}),
                            type({kB, kH, kT, kE}), type({kB, kH, kS, kE}),
                            type({kB, kH, kS, kF}), type({kB, kH, kT, kF})};
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, loc, "f", b.getFunctionType(args, {}));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  auto a = [&](int i) { return body->getArgument(i); };
  auto causal = b.getBoolAttr(true);
  auto scale = b.getF64FloatAttr(0.4);
  auto seq = mlir::tfl::AttentionOp::create(b, loc, args[3], a(0), a(1), a(2),
                                            causal, scale, b.getUnitAttr());
  auto heads = mlir::tfl::AttentionOp::create(b, loc, args[7], a(4), a(5), a(6),
                                              causal, scale, nullptr);
  auto seqBack = mlir::tfl::AttentionBackwardOp::create(
      b, loc, TypeRange{args[0], args[1], args[2]}, a(0), a(1), a(2),
      seq.getResult(), a(3), causal, scale, b.getUnitAttr());
  auto headsBack = mlir::tfl::AttentionBackwardOp::create(
      b, loc, TypeRange{args[4], args[5], args[6]}, a(4), a(5), a(6),
      heads.getResult(), a(7), causal, scale, nullptr);
  ASSERT_TRUE(succeeded(seq.verify()) && succeeded(heads.verify()) &&
              succeeded(seqBack.verify()) && succeeded(headsBack.verify()));

  std::mt19937 gen(7);
  Tensor q = random({kB, kT, kH, kE}, gen), k = random({kB, kS, kH, kE}, gen),
         v = random({kB, kS, kH, kF}, gen), dy = random({kB, kT, kH, kF}, gen);
  Tensor out = run(seq, {q, k, v})[0];
  Tensor outHeads =
      run(heads, {swapMiddle(q), swapMiddle(k), swapMiddle(v)})[0];
  expectSame(swapMiddle(out), outHeads);

  SmallVector<Tensor> grads = run(seqBack, {q, k, v, out, dy});
  SmallVector<Tensor> gradsHeads =
      run(headsBack, {swapMiddle(q), swapMiddle(k), swapMiddle(v), outHeads,
                      swapMiddle(dy)});
  ASSERT_EQ(grads.size(), 3u);
  for (int i = 0; i < 3; ++i)
    expectSame(swapMiddle(grads[i]), gradsHeads[i]);
}

} // namespace
