//===- SemaSubscripts.cpp - Types and read plans of tensor subscripts -----===//
//
// NumPy's basic indexing of a tensor, `x[i, a:b:s, None, ...]`: integers
// (known or computed) drop an axis, slices with bounds known at compile
// time keep a static part of one (Python's slice.indices), `x[s : s + K]`
// a part of static length K at a computed start, None adds an axis of 1
// and '...' stands for the axes no item names. Each axis's item becomes a
// dim of the SubscriptPlan MLIRGen reads it by. A batch axis (`?`) is
// taken whole.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

FailureOr<Type> SemaImpl::analyzeSubscript(const SubscriptExpr *expr) {
  FailureOr<Type> value = analyzeExpr(expr->value.get());
  if (failed(value))
    return failure();
  // A tuple's element (`shape(x)[0]`) or slice, a string's character or
  // slice, by integers known at compile time.
  if (value->kind == Type::Kind::Tuple || value->kind == Type::Kind::String)
    return analyzeSequenceSubscript(expr, *value);
  if (!value->isTensor() || value->rank() == 0) {
    error(expr->getBegin()) << "cannot index " << value->str();
    return failure();
  }
  int64_t rank = value->rank();
  int64_t consuming = 0, ellipses = 0;
  for (const ExprPtr &item : expr->indices) {
    if (isa<EllipsisExpr>(item.get()))
      ++ellipses;
    else if (!isa<NoneExpr>(item.get()))
      ++consuming;
  }
  if (ellipses > 1 || consuming > rank) {
    error(expr->getBegin())
        << (ellipses > 1 ? "an index can have one '...' only"
                         : "too many indices for " + value->str());
    return failure();
  }
  SubscriptPlan plan;
  std::vector<int64_t> resultShape;
  int64_t dim = 0;
  auto fullSlice = [&] {
    plan.dims.push_back(
        {SubscriptPlan::Slice, 0, nullptr, false, value->shape[dim], 1});
    resultShape.push_back(value->shape[dim]);
    ++dim;
  };
  for (const ExprPtr &itemPtr : expr->indices) {
    const Expr *item = itemPtr.get();
    if (isa<EllipsisExpr>(item)) {
      for (int64_t k = 0; k < rank - consuming; ++k)
        fullSlice();
      continue;
    }
    if (isa<NoneExpr>(item)) {
      resultShape.push_back(1);
      continue;
    }
    auto *s = dyn_cast<SliceExpr>(item);
    if (value->shape[dim] == kDynamicDim) { // a batch: taken whole
      if (s && !s->lo && !s->hi && !s->step) {
        fullSlice();
        continue;
      }
      error(item->getBegin())
          << "axis " << dim << " of " << value->str()
          << " is a batch whose size is given when the function is called: "
             "it is taken whole (':'), not indexed or sliced";
      return failure();
    }
    FailureOr<SubscriptPlan::Dim> d = s ? subscriptSlice(s, value->shape[dim])
                                        : subscriptIndex(item, dim, *value);
    if (failed(d))
      return failure();
    if (d->kind == SubscriptPlan::Slice)
      resultShape.push_back(d->size);
    plan.dims.push_back(*d);
    ++dim;
  }
  while (dim < rank)
    fullSlice();
  frame->spec->subscripts[expr] = std::move(plan);
  return Type::tensor(value->dtype, resultShape, value->weak);
}

FailureOr<SubscriptPlan::Dim> SemaImpl::subscriptSlice(const SliceExpr *s,
                                                       int64_t n) {
  // Bounds known at compile time (literals, module constants, `n // 2` of a
  // known n) give a static slice.
  std::optional<int64_t> step = s->step ? knownInt(s->step.get()) : 1;
  if (!step || *step == 0) {
    error(s->getBegin()) << "a slice step must be a nonzero integer "
                            "known at compile time";
    return failure();
  }
  std::optional<int64_t> lo = s->lo ? knownInt(s->lo.get()) : std::nullopt;
  std::optional<int64_t> hi = s->hi ? knownInt(s->hi.get()) : std::nullopt;
  if ((!s->lo || lo) && (!s->hi || hi)) {
    // Python's slice.indices(n).
    auto clampIndex = [&](std::optional<int64_t> v, bool isLo) -> int64_t {
      if (!v)
        return *step > 0 ? (isLo ? 0 : n) : (isLo ? n - 1 : -1);
      int64_t x = *v < 0 ? *v + n : *v;
      if (*step > 0)
        return std::clamp<int64_t>(x, 0, n);
      return std::clamp<int64_t>(x, -1, n - 1);
    };
    int64_t start = clampIndex(lo, true), stop = clampIndex(hi, false);
    int64_t size =
        *step > 0 ? std::max<int64_t>(0, (stop - start + *step - 1) / *step)
                  : std::max<int64_t>(0, (start - stop - *step - 1) / -*step);
    return SubscriptPlan::Dim{
        SubscriptPlan::Slice, size ? start : 0, nullptr, false, size, *step};
  }
  // x[s : s + K]: a dynamic start with a static length.
  auto *sum = s->hi ? dyn_cast<BinaryExpr>(s->hi.get()) : nullptr;
  auto *loName = s->lo ? dyn_cast<NameExpr>(s->lo.get()) : nullptr;
  auto *sumName = sum ? dyn_cast<NameExpr>(sum->lhs.get()) : nullptr;
  int64_t length = -1; // K, when the bound is a sum with one known
  if (sum && sum->op == BinaryOp::Add)
    if (std::optional<int64_t> k = knownInt(sum->rhs.get()))
      length = *k;
  if (!loName || !sumName || loName->name != sumName->name || length < 0 ||
      *step != 1) {
    error(s->getBegin())
        << "a slice with a computed bound needs a static length: write "
           "x[s : s + K] with K an integer known at compile time (and no "
           "step)";
    return failure();
  }
  FailureOr<Type> st = analyzeExpr(s->lo.get());
  if (failed(st))
    return failure();
  if (!st->isScalar() || !isInteger(st->dtype)) {
    error(s->getBegin()) << "a slice start must be an integer scalar, got "
                         << st->str();
    return failure();
  }
  (void)analyzeExpr(s->hi.get()); // records the bound's types
  return SubscriptPlan::Dim{
      SubscriptPlan::Slice, 0, s->lo.get(), false, length, 1};
}

FailureOr<SubscriptPlan::Dim>
SemaImpl::subscriptIndex(const Expr *item, int64_t dim, const Type &value) {
  int64_t n = value.shape[dim];
  if (std::optional<int64_t> i = intLiteral(item)) {
    int64_t x = *i < 0 ? *i + n : *i;
    if (x < 0 || x >= n) {
      error(item->getBegin()) << "index " << *i << " is out of range for "
                              << "axis " << dim << " of " << value.str();
      return failure();
    }
    return SubscriptPlan::Dim{SubscriptPlan::Index, x, nullptr, false, 1, 1};
  }
  FailureOr<Type> it = analyzeExpr(item);
  if (failed(it))
    return failure();
  if (!it->isScalar() || !isInteger(it->dtype)) {
    error(item->getBegin())
        << "an index must be an integer scalar, a slice, None or '...', "
           "got "
        << it->str();
    return failure();
  }
  return SubscriptPlan::Dim{SubscriptPlan::Index, 0, item, true, 1, 1};
}
