//===- SemaReductions.cpp - Types of reductions ---------------------------===//
//
// sum, mean, max, min, prod, argmax, argmin, logsumexp, var and std: x,
// the axes (an integer, a tuple of them, or None for all), keepdims, and
// var's and std's ddof, all known at compile time; the result's dtype
// (sums of booleans count in i64, means of integers are f32, arg
// reductions give i64 indices). MLIRGen reads the axes from the
// specialization's `reductions`.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

/// A reduction's x, axis, keepdims and (var, std) ddof, positional or by
/// keyword.
LogicalResult SemaImpl::reductionArguments(const CallExpr *expr,
                                           llvm::StringRef name,
                                           const Expr *&axisExpr,
                                           const Expr *&keepExpr,
                                           const Expr *&ddofExpr) {
  // name(x, axis=None, keepdims=False), axis and keepdims as literals.
  axisExpr = expr->args.size() > 1 ? expr->args[1].get() : nullptr;
  keepExpr = expr->args.size() > 2 ? expr->args[2].get() : nullptr;
  if (expr->args.empty() || expr->args.size() > 3) {
    error(expr->getBegin()) << name
                            << "() takes 1 to 3 arguments (x, axis, "
                               "keepdims), got "
                            << expr->args.size();
    return failure();
  }
  ddofExpr = nullptr;
  bool spread = name == "var" || name == "std";
  for (const Keyword &kw : expr->keywords) {
    const Expr **slot = namesParameter(kw.name, "axis")             ? &axisExpr
                        : namesParameter(kw.name, "keepdims")       ? &keepExpr
                        : namesParameter(kw.name, "ddof") && spread ? &ddofExpr
                                                                    : nullptr;
    if (!slot) {
      auto diag = error(kw.range.begin)
                  << name << "() got an unexpected keyword argument '"
                  << kw.name << "'";
      if (spread && kw.name == "unbiased")
        diag << ": TFL's is ddof= (PyTorch's unbiased=True is ddof=1, "
                "False ddof=0)";
      return failure();
    }
    if (*slot) {
      error(kw.range.begin)
          << name << "() got multiple values for '" << kw.name << "'";
      return failure();
    }
    *slot = kw.value.get();
  }
  return success();
}

/// keepdims and ddof, into `info`.
LogicalResult SemaImpl::reductionFlags(llvm::StringRef name,
                                       const Expr *keepExpr,
                                       const Expr *ddofExpr,
                                       ReductionInfo &info) {
  if (ddofExpr) {
    // NumPy's ddof: an integer (or float) known at compile time.
    if (failed(analyzeExpr(ddofExpr)))
      return failure();
    std::optional<int64_t> n = knownInt(ddofExpr);
    auto *f = dyn_cast<FloatExpr>(ddofExpr);
    if (!n && !f) {
      error(ddofExpr->getBegin())
          << name << "()'s ddof must be a number known at compile time";
      return failure();
    }
    info.ddof = n ? double(*n) : f->value;
  }
  if (keepExpr) {
    auto *b = dyn_cast<BoolExpr>(keepExpr);
    if (!b) {
      error(keepExpr->getBegin())
          << name << "()'s keepdims must be True or False";
      return failure();
    }
    info.keepdims = b->value;
  }
  return success();
}

/// The axes `axisExpr` names in `x` (all of them for None), sorted, into
/// `info`.
LogicalResult SemaImpl::reductionAxes(llvm::StringRef name,
                                      const Expr *axisExpr, const Type &x,
                                      ReductionInfo &info) {
  std::vector<const Expr *> axisItems;
  if (!axisExpr || isa<NoneExpr>(axisExpr))
    info.allAxes = true;
  else if (auto *t = dyn_cast<TupleExpr>(axisExpr))
    for (const ExprPtr &e : t->elements)
      axisItems.push_back(e.get());
  else
    axisItems.push_back(axisExpr);
  int64_t rank = x.rank();
  for (const Expr *item : axisItems) {
    std::optional<int64_t> axis = knownInt(item);
    if (!axis) {
      error(item->getBegin()) << name
                              << "()'s axis must be an integer known at "
                                 "compile time, a tuple of them, or None";
      return failure();
    }
    int64_t a = *axis < 0 ? *axis + rank : *axis;
    if (a < 0 || a >= rank) {
      error(item->getBegin())
          << "axis " << *axis << " is out of range for " << x.str();
      return failure();
    }
    if (llvm::is_contained(info.axes, a)) {
      error(item->getBegin()) << "axis " << *axis << " is repeated";
      return failure();
    }
    info.axes.push_back(a);
  }
  if (info.allAxes)
    for (int64_t d = 0; d < rank; ++d)
      info.axes.push_back(d);
  llvm::sort(info.axes);

  return success();
}

FailureOr<Type> SemaImpl::analyzeReduction(const CallExpr *expr,
                                           llvm::StringRef name) {
  const Expr *axisExpr, *keepExpr, *ddofExpr;
  if (failed(reductionArguments(expr, name, axisExpr, keepExpr, ddofExpr)))
    return failure();
  bool spread = name == "var" || name == "std";
  FailureOr<Type> x = analyzeExpr(expr->args[0].get());
  if (failed(x))
    return failure();
  if (!x->isTensor()) {
    error(expr->args[0]->getBegin())
        << name << "() takes a tensor, got " << x->str();
    return failure();
  }

  ReductionInfo info;
  if (failed(reductionFlags(name, keepExpr, ddofExpr, info)) ||
      failed(reductionAxes(name, axisExpr, *x, info)))
    return failure();
  int64_t rank = x->rank();
  bool isArg = name == "argmax" || name == "argmin";
  if (isArg && !info.allAxes && info.axes.size() != 1) {
    error(axisExpr->getBegin()) << name << "() takes one axis or None";
    return failure();
  }
  if (x->dtype == DType::Bool && name != "sum" && name != "mean" &&
      name != "prod") {
    error(expr->args[0]->getBegin())
        << name << "() takes numbers, got " << x->str();
    return failure();
  }
  if (name == "max" || name == "min" || isArg) {
    for (int64_t a : info.axes)
      if (x->shape[a] == 0) {
        error(expr->getBegin())
            << name << "() of an empty axis has no identity (" << x->str()
            << ", axis " << a << ")";
        return failure();
      }
  }
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(info.axes, d))
      shape.push_back(x->shape[d]);
    else if (info.keepdims)
      shape.push_back(1);
  }
  DType dtype = x->dtype;
  if (name == "sum" || name == "prod")
    dtype = dtype == DType::Bool ? DType::I64 : dtype;
  else if (name == "mean" || spread)
    dtype = isFloat(dtype) ? dtype : DType::F32;
  else if (isArg)
    dtype = DType::I64;
  else if (name == "logsumexp" && !isFloat(dtype)) {
    if (!x->weak) {
      error(expr->args[0]->getBegin())
          << "logsumexp() takes a float tensor, got " << x->str()
          << " (use cast(x, f32))";
      return failure();
    }
    dtype = DType::F32;
  }
  if (x->weak)
    coerce(expr->args[0].get(), isArg ? x->dtype : dtype);
  planOf(expr).reduction = std::move(info);
  return Type::tensor(dtype, shape);
}
