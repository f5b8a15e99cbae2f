//===- SemaArrays.cpp - Types of pieces, triangles and gathers ------------===//
//
// The shape family's built-ins that pick parts of a tensor: split() and
// chunk() (a tuple of slices), tril() and triu() (a triangle of the last
// two dims), gather() (rows picked by indices).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"

#include <algorithm>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

FailureOr<Type> SemaImpl::analyzePieces(const CallExpr *expr,
                                        llvm::StringRef name) {
  // PyTorch's: split(x, size, axis=0) into pieces of `size` along the
  // axis (the last one smaller), or of each size of a tuple;
  // chunk(x, n, axis=0) into n pieces of ceil(dim / n) (fewer where
  // that covers the axis sooner). A tuple of tensors, sizes known when
  // compiling.
  const char *second = name == "split" ? "size" : "chunks";
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"x", second, "axis"}, 2);
  if (failed(args))
    return failure();
  const Expr *x = (*args)[0], *by = (*args)[1], *axisExpr = (*args)[2];
  FailureOr<Type> t = analyzeExpr(x);
  if (failed(t))
    return failure();
  if (!t->isTensor() || t->rank() == 0) {
    error(x->getBegin()) << name << "() takes a tensor of 1 or more dims, got "
                         << t->str();
    return failure();
  }
  int64_t rank = t->rank();
  std::optional<int64_t> axis = axisExpr ? knownInt(axisExpr) : 0;
  if (!axis || *axis < -rank || *axis >= rank) {
    error(axisExpr ? axisExpr->getBegin() : expr->getBegin())
        << name << "()'s axis must be an integer known at compile time, "
        << "within " << t->str();
    return failure();
  }
  int64_t a = *axis < 0 ? *axis + rank : *axis;
  int64_t dim = t->shape[a];
  if (llvm::is_contained(t->shape, kDynamicDim)) {
    error(x->getBegin()) << name
                         << "() needs the shape known when compiling (its "
                            "pieces are static slices), got "
                         << t->str();
    return failure();
  }
  FailureOr<std::vector<int64_t>> sizes = pieceSizes(by, name, dim, *t, a);
  if (failed(sizes))
    return failure();
  std::vector<int64_t> piece = {a};
  std::vector<Type> parts;
  for (int64_t s : *sizes) {
    std::vector<int64_t> shape = t->shape;
    shape[a] = s;
    parts.push_back(Type::tensor(t->dtype, shape, t->weak));
    piece.push_back(s);
  }
  planOf(expr).pieces = piece;
  return Type::tuple(std::move(parts));
}

/// The sizes of split()'s or chunk()'s pieces along an axis of `dim`
/// (of tensor `t`, axis `a`), from `by`: the size or count, or split()'s
/// tuple of sizes.
FailureOr<std::vector<int64_t>> SemaImpl::pieceSizes(const Expr *by,
                                                     llvm::StringRef name,
                                                     int64_t dim, const Type &t,
                                                     int64_t a) {
  const char *second = name == "split" ? "size" : "chunks";
  std::optional<std::vector<int64_t>> given = constInts(by, false);
  bool tuple = isa<TupleExpr, ListExpr>(by);
  if (!given || (name == "chunk" && tuple)) {
    error(by->getBegin()) << name << "()'s " << second
                          << (name == "split"
                                  ? " must be an integer or a tuple of them"
                                  : " must be an integer")
                          << ", known at compile time";
    return failure();
  }
  if (tuple) {
    int64_t total = 0;
    for (int64_t s : *given) {
      if (s < 0) {
        error(by->getBegin()) << "split() got a negative size";
        return failure();
      }
      total += s;
    }
    if (total != dim) {
      error(by->getBegin())
          << "split()'s sizes add up to " << total << ", not to the axis's "
          << dim << " (" << t.str() << ", axis " << a << ")";
      return failure();
    }
    return *given;
  }
  int64_t n = given->front();
  if (n <= 0) {
    error(by->getBegin()) << name << "()'s " << second
                          << " must be positive, got " << n;
    return failure();
  }
  int64_t size = name == "split" ? n : (dim + n - 1) / n;
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < dim; start += size)
    sizes.push_back(std::min(size, dim - start));
  if (sizes.empty())
    sizes.push_back(0);
  return sizes;
}

FailureOr<Type> SemaImpl::analyzeTriangle(const CallExpr *expr,
                                          llvm::StringRef name) {
  // NumPy's tril(x, k=0) / triu(x, k=0) (PyTorch names k `diagonal`):
  // the last two dims' lower (upper) triangle from diagonal k, zeros
  // elsewhere; k an integer known at compile time.
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"x", "k|diagonal"}, 1);
  if (failed(args))
    return failure();
  const Expr *x = (*args)[0], *k = (*args)[1];
  FailureOr<Type> t = analyzeExpr(x);
  if (failed(t))
    return failure();
  if (!t->isTensor() || t->rank() < 2) {
    error(x->getBegin()) << name << "() takes a tensor of 2 or more dims, got "
                         << t->str();
    return failure();
  }
  int64_t rows = t->shape[t->rank() - 2], cols = t->shape.back();
  if (rows == kDynamicDim || cols == kDynamicDim) {
    error(x->getBegin()) << name
                         << "() needs the last two dims known when "
                            "compiling, got "
                         << t->str();
    return failure();
  }
  std::optional<int64_t> diagonal = 0;
  if (k) {
    if (failed(analyzeExpr(k)))
      return failure();
    diagonal = knownInt(k);
    if (!diagonal) {
      error(k->getBegin()) << name
                           << "()'s k must be an integer known at compile time";
      return failure();
    }
  }
  planOf(expr).diagonal = *diagonal;
  return *t;
}

FailureOr<Type> SemaImpl::analyzeGather(const CallExpr *expr) {
  const Expr *xArg = argument(expr, 0, "x");
  const Expr *idxArg = argument(expr, 1, "indices");
  const Expr *axisArg = argument(expr, 2, "axis");
  if (!xArg || !idxArg || expr->args.size() > 3) {
    error(expr->getBegin()) << "gather() takes (x, indices, axis=0)";
    return failure();
  }
  FailureOr<Type> x = analyzeExpr(xArg);
  if (failed(x))
    return failure();
  FailureOr<Type> idx = analyzeExpr(idxArg);
  if (failed(idx))
    return failure();
  if (!x->isTensor() || x->rank() == 0) {
    error(xArg->getBegin()) << "gather() takes a tensor of at least 1 dim, "
                               "got "
                            << x->str();
    return failure();
  }
  if (!idx->isTensor() ||
      (idx->dtype != DType::I64 && idx->dtype != DType::I32)) {
    error(idxArg->getBegin())
        << "gather() takes i64 or i32 indices, got " << idx->str();
    return failure();
  }
  coerce(idxArg, idx->dtype);
  std::optional<int64_t> axis = axisArg ? knownInt(axisArg) : 0;
  int64_t a = axis && *axis < 0 ? *axis + x->rank() : axis.value_or(-1);
  if (!axis || a < 0 || a >= x->rank()) {
    error(axisArg ? axisArg->getBegin() : expr->getBegin())
        << "gather()'s axis must be an integer known at compile time within "
           "the rank of "
        << x->str();
    return failure();
  }
  if (x->shape[a] == kDynamicDim) {
    error(xArg->getBegin()) << "gather() picks along a static axis, not the "
                               "batch (a '?' dim) of "
                            << x->str();
    return failure();
  }
  if (llvm::is_contained(x->shape, kDynamicDim) &&
      llvm::is_contained(idx->shape, kDynamicDim)) {
    error(idxArg->getBegin()) << "gather() of a batch takes indices of "
                                 "static shape, got "
                              << idx->str();
    return failure();
  }
  planOf(expr).axis = a;
  std::vector<int64_t> shape(x->shape.begin(), x->shape.begin() + a);
  shape.insert(shape.end(), idx->shape.begin(), idx->shape.end());
  shape.insert(shape.end(), x->shape.begin() + a + 1, x->shape.end());
  return Type::tensor(x->dtype, shape, x->weak);
}
