//===- ApproximateMath.cpp - f32 transcendentals as vector polynomials ----===//
//
// LLVM scalarizes a vector `llvm.exp` into one libm call per lane; MLIR's
// polynomial approximations compute the same functions in vector
// arithmetic. Applied after tfl-vectorize-loops, to f32 only (exp, expm1,
// log, log1p, log2, tanh; erf by a rational function of TFL's own). A
// vector erf of f64 becomes one libm call per lane here (LLVM has no erf
// intrinsic to scalarize).
//
// MLIR's exp and log work on normal numbers: exp's results below 2^-126
// flush to zero (and those above 2^127 lose accuracy, 5 ulp), and log
// reads a subnormal input as 2^-126. So each f32 exp and log is first
// guarded, with exact scalings: exp(x) = exp(x / 2)^2 where exp(x) is
// subnormal or above 2^127, and log(x) = log(x * 2^24) - 24 ln 2 for a
// subnormal x.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::tfl {

#define GEN_PASS_DEF_APPROXIMATEMATH
#include "tfl/Codegen/Passes.h.inc"

namespace {

bool isF32(Type type) { return getElementTypeOrSelf(type).isF32(); }

/// A constant f32 `value` of `type` (f32, or a vector of it).
Value f32Constant(OpBuilder &b, Location loc, Type type, float value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, value));
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

/// exp(x), with exp(x / 2)^2 where the result is below 2^-126 or above
/// 2^127.
void guardExp(math::ExpOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getOperand();
  Type type = x.getType();
  // exp(-87.33654) is 2^-126, the smallest normal f32; exp(88.02969) 2^127.
  Value tiny = arith::OrIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                            f32Constant(b, loc, type, -87.33654f)),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                            f32Constant(b, loc, type, 88.02969f)));
  Value half =
      arith::MulFOp::create(b, loc, x, f32Constant(b, loc, type, 0.5f));
  Value in = arith::SelectOp::create(b, loc, tiny, half, x);
  Value e = math::ExpOp::create(b, loc, in);
  Value squared = arith::MulFOp::create(b, loc, e, e);
  op.getResult().replaceAllUsesWith(
      arith::SelectOp::create(b, loc, tiny, squared, e).getResult());
  op.erase();
}

/// log(x), with log(x * 2^24) - 24 ln 2 for a subnormal x.
void guardLog(math::LogOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getOperand();
  Type type = x.getType();
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                         f32Constant(b, loc, type, 0.0f));
  Value belowNormal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                            f32Constant(b, loc, type, 0x1p-126f));
  Value subnormal = arith::AndIOp::create(b, loc, positive, belowNormal);
  Value scaled =
      arith::MulFOp::create(b, loc, x, f32Constant(b, loc, type, 0x1p24f));
  Value in = arith::SelectOp::create(b, loc, subnormal, scaled, x);
  Value l = math::LogOp::create(b, loc, in);
  Value shifted = arith::SubFOp::create(
      b, loc, l,
      f32Constant(b, loc, type, static_cast<float>(24.0 * std::log(2.0))));
  op.getResult().replaceAllUsesWith(
      arith::SelectOp::create(b, loc, subnormal, shifted, l).getResult());
  op.erase();
}

/// erf(x) of f32 as x P(x^2) / Q(x^2) on x clamped to +-3.9192059 (above
/// which erf rounds to 1), the result clamped to [-1, 1]: a rational
/// function fitted to erf's relative error (1.8e-9 in exact arithmetic) by
/// scripts/fit_vector_math.py; 6 ulp at most in f32, as XLA's erf. One
/// division and ten multiply-adds, where MLIR's approximation picks its
/// coefficients among three intervals (twice the vector operations). The
/// division stays exact: with arcp, LLVM divides vectors by a refined
/// reciprocal estimate but scalars exactly, so an element's erf would
/// depend on whether it falls in a loop's vector body or its remainder
/// (a checkpointed block's recomputation then differed from the block).
void rationalErf(math::ErfOp op) {
  static constexpr float p[] = {1.128379225730896f,      0.18513421714305878f,
                                0.05424300208687782f,    0.003838470671325922f,
                                0.0003767212328966707f,  4.608235940395389e-06f,
                                -1.2794449943953623e-08f};
  static constexpr float q[] = {1.0f,
                                0.4974043369293213f,
                                0.11387257277965546f,
                                0.015429611317813396f,
                                0.0013014435535296798f,
                                6.238978676265106e-05f};
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type type = op.getType();
  auto k = [&](float v) { return f32Constant(b, loc, type, v); };
  auto clamp = [&](Value v, float bound) {
    return arith::MaximumFOp::create(
        b, loc, arith::MinimumFOp::create(b, loc, v, k(bound)), k(-bound));
  };
  Value x = clamp(op.getOperand(), 3.9192059f);
  Value t = arith::MulFOp::create(b, loc, x, x);
  auto horner = [&](ArrayRef<float> c) {
    Value acc = k(c.back());
    for (float v : llvm::reverse(c.drop_back()))
      acc = math::FmaOp::create(b, loc, t, acc, k(v));
    return acc;
  };
  Value num = arith::MulFOp::create(b, loc, x, horner(p));
  Value r = arith::DivFOp::create(b, loc, num, horner(q));
  op.getResult().replaceAllUsesWith(clamp(r, 1.0f));
  op.erase();
}

struct ApproximateMath : impl::ApproximateMathBase<ApproximateMath> {
  void runOnOperation() override {
    SmallVector<math::ExpOp> exps;
    SmallVector<math::LogOp> logs;
    SmallVector<math::ErfOp> f32Erfs;
    getOperation()->walk([&](Operation *op) {
      if (auto erf = dyn_cast<math::ErfOp>(op); erf && isF32(erf.getType()))
        f32Erfs.push_back(erf);
      if (auto exp = dyn_cast<math::ExpOp>(op); exp && isF32(exp.getType()))
        exps.push_back(exp);
      if (auto log = dyn_cast<math::LogOp>(op); log && isF32(log.getType()))
        logs.push_back(log);
    });
    for (math::ExpOp op : exps)
      guardExp(op);
    for (math::LogOp op : logs)
      guardLog(op);
    for (math::ErfOp op : f32Erfs)
      rationalErf(op);
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      return llvm::is_contained(
          {"exp", "expm1", "log", "log1p", "log2", "tanh"}, name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // A vector erf of another type (f64) has no LLVM intrinsic to lower
    // to: one libm call per lane, made here, while vector ops still lower.
    SmallVector<Operation *> erfs;
    getOperation()->walk([&](math::ErfOp op) {
      if (isa<VectorType>(op.getType()))
        erfs.push_back(op);
    });
    if (erfs.empty())
      return;
    RewritePatternSet libm(&getContext());
    populateMathToLibmConversionPatterns(libm);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(erfs, std::move(libm), config)))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
