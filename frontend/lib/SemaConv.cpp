//===- SemaConv.cpp - Types of convolution and pooling --------------------===//
//
// conv2d(x, w, strides=1, padding="valid") with NHWC `x` and HWIO `w`, and
// max_pool2d / avg_pool2d(x, size, strides=size, padding="valid"), as in
// TensorFlow: "valid" uses whole windows only; "same" gives ceil(in /
// stride) outputs, padding the total (out - 1) * stride + size - in with
// the smaller half before. The window geometry is recorded for MLIRGen.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/StringExtras.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

/// One or two positive ints known at compile time (`2` or `(2, 3)`).
FailureOr<std::array<int64_t, 2>> SemaImpl::pairArgument(const Expr *e,
                                                         llvm::StringRef what) {
  std::optional<std::vector<int64_t>> v = constInts(e);
  if (!v || v->empty() || v->size() > 2 ||
      llvm::any_of(*v, [](int64_t x) { return x < 1; })) {
    error(e->getBegin()) << what
                         << " must be a positive integer known at compile "
                            "time, or a pair of them";
    return failure();
  }
  return std::array<int64_t, 2>{v->front(), v->back()};
}

/// conv2d()'s x or w, or a pooling's x: an f32, bf16 or f16 tensor of 4
/// dims.
FailureOr<Type> SemaImpl::windowTensor(const Expr *e, llvm::StringRef name,
                                       llvm::StringRef what) {
  FailureOr<Type> t = analyzeExpr(e);
  if (failed(t))
    return failure();
  if (!t->isTensor() || t->rank() != 4 ||
      !(t->dtype == DType::F32 || isHalf(t->dtype))) {
    error(e->getBegin()) << name << "()'s " << what
                         << " must be an f32, bf16 or f16 "
                         << (what == "w" ? "HWIO" : "NHWC")
                         << " tensor (4 dims), got " << t->str();
    return failure();
  }
  return t;
}

FailureOr<Type> SemaImpl::analyzeConv(const CallExpr *expr,
                                      llvm::StringRef name) {
  bool conv = name == "conv2d";
  FailureOr<std::vector<const Expr *>> args =
      conv ? matchBuiltinArgs(expr, name, {"x", "w", "strides", "padding"}, 2)
           : matchBuiltinArgs(expr, name, {"x", "size", "strides", "padding"},
                              2);
  if (failed(args))
    return failure();
  FailureOr<Type> x = windowTensor((*args)[0], name, "x");
  if (failed(x))
    return failure();
  WindowInfo info;
  int64_t channels = x->shape[3];
  if (conv) {
    FailureOr<Type> w = windowTensor((*args)[1], name, "w");
    if (failed(w))
      return failure();
    if (w->dtype != x->dtype) {
      error((*args)[1]->getBegin())
          << "conv2d()'s filter " << w->str() << " and x " << x->str()
          << " must have one dtype";
      return failure();
    }
    if (w->shape[2] != x->shape[3]) {
      error((*args)[1]->getBegin())
          << "conv2d()'s filter " << w->str() << " takes " << w->shape[2]
          << " input channels, but x " << x->str() << " has " << x->shape[3];
      return failure();
    }
    if (w->shape[0] < 1 || w->shape[1] < 1) {
      error((*args)[1]->getBegin())
          << "conv2d()'s filter " << w->str() << " has a window of "
          << w->shape[0] << " x " << w->shape[1]
          << ": its height and width must be positive";
      return failure();
    }
    info.size = {w->shape[0], w->shape[1]};
    channels = w->shape[3];
    info.strides = {1, 1};
  } else {
    FailureOr<std::array<int64_t, 2>> size =
        pairArgument((*args)[1], (name + "()'s size").str());
    if (failed(size))
      return failure();
    info.size = *size;
    info.strides = *size;
  }
  if (const Expr *s = (*args)[2]) {
    FailureOr<std::array<int64_t, 2>> strides =
        pairArgument(s, (name + "()'s strides").str());
    if (failed(strides))
      return failure();
    info.strides = *strides;
  }
  FailureOr<bool> same = samePadding((*args)[3], name);
  if (failed(same))
    return failure();
  std::vector<int64_t> shape = {x->shape[0], 0, 0, channels};
  for (int d = 0; d < 2; ++d) {
    FailureOr<int64_t> out =
        windowOutput(expr, name, d, x->shape[1 + d], *same, info);
    if (failed(out))
      return failure();
    shape[1 + d] = *out;
  }
  planOf(expr).window = info;
  return Type::tensor(x->dtype, shape);
}

/// Whether padding= (`p`, null when not given) is "same" rather than
/// "valid".
FailureOr<bool> SemaImpl::samePadding(const Expr *p, llvm::StringRef name) {
  if (!p)
    return false;
  FailureOr<std::string> padding =
      stringArgument(p, (name + "()'s padding").str());
  if (failed(padding))
    return failure();
  std::string lower = llvm::StringRef(*padding).lower();
  if (lower != "valid" && lower != "same") {
    error(p->getBegin()) << name << "()'s padding is \"valid\" or \"same\", "
                         << "got \"" << *padding << "\"";
    return failure();
  }
  return lower == "same";
}

/// The output's size along spatial dim `d` (0 the height, 1 the width) of
/// an input of `in`, and the padding before and after it in `info`.
FailureOr<int64_t> SemaImpl::windowOutput(const CallExpr *expr,
                                          llvm::StringRef name, int d,
                                          int64_t in, bool same,
                                          WindowInfo &info) {
  int64_t k = info.size[d], s = info.strides[d];
  if (same) {
    int64_t out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>((out - 1) * s + k - in, 0);
    info.padding[2 * d] = total / 2;
    info.padding[2 * d + 1] = total - total / 2;
    return out;
  }
  if (in < k) {
    error(expr->getBegin())
        << name << "()'s window of " << k << " is larger than the input's "
        << (d == 0 ? "height" : "width") << " of " << in
        << " (with padding=\"valid\")";
    return failure();
  }
  info.padding[2 * d] = info.padding[2 * d + 1] = 0;
  return (in - k) / s + 1;
}
