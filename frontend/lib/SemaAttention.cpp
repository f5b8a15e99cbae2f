//===- SemaAttention.cpp - Types of scaled_dot_product_attention ----------===//
//
// scaled_dot_product_attention(q, k, v, attn_mask=None, is_causal=False,
// scale=None), as PyTorch's: q [..., T, E], k [..., S, E], v [..., S, F]
// of one float dtype and the same leading dims give [..., T, F]; the mask
// (bool: keep where True; float: added to the scores) broadcasts to [...,
// T, S]; is_causal is a literal; scale a number known at compile time
// (1 / sqrt(E) when None). MLIRGen emits the fused tfl.attention, or, with
// a mask or in f64, the ops that define it.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include <cmath>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

} // namespace

/// q, k and v: float tensors of one dtype and rank (at least 2) whose
/// shapes agree as attention needs; their types in `types`.
LogicalResult SemaImpl::attentionOperands(const CallExpr *expr,
                                          llvm::ArrayRef<const Expr *> args,
                                          std::vector<Type> &types) {
  const char *names[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    FailureOr<Type> t = analyzeExpr(args[i]);
    if (failed(t))
      return failure();
    if (!t->isTensor() || t->rank() < 2 || !isFloat(t->dtype)) {
      error(args[i]->getBegin())
          << "scaled_dot_product_attention()'s " << names[i]
          << " must be a float tensor of 2 dims or more, got " << t->str();
      return failure();
    }
    if (i && (t->dtype != types[0].dtype || t->rank() != types[0].rank())) {
      error(args[i]->getBegin())
          << "scaled_dot_product_attention()'s " << names[i] << " " << t->str()
          << " must have q's dtype and rank (q is " << types[0].str() << ")";
      return failure();
    }
    types.push_back(*t);
  }
  const std::vector<int64_t> &q = types[0].shape, &k = types[1].shape,
                             &v = types[2].shape;
  size_t r = q.size();
  bool ok = std::equal(q.begin(), q.end() - 2, k.begin()) &&
            std::equal(q.begin(), q.end() - 2, v.begin()) &&
            k[r - 1] == q[r - 1] && v[r - 2] == k[r - 2];
  if (!ok) {
    error(expr->getBegin())
        << "scaled_dot_product_attention() needs q [..., T, E], k [..., S, "
           "E] and v [..., S, F] with the same leading dims, got q "
        << shapeText(q) << ", k " << shapeText(k) << ", v " << shapeText(v);
    return failure();
  }
  return success();
}

FailureOr<Type> SemaImpl::analyzeAttention(const CallExpr *expr) {
  llvm::StringRef name = "scaled_dot_product_attention";
  FailureOr<std::vector<const Expr *>> args = matchBuiltinArgs(
      expr, name, {"q", "k", "v", "attn_mask", "is_causal", "scale"}, 3);
  if (failed(args))
    return failure();
  std::vector<Type> types;
  if (failed(attentionOperands(expr, *args, types)))
    return failure();
  const std::vector<int64_t> &q = types[0].shape;
  AttentionInfo info;
  if (const Expr *m = (*args)[3]; m && !isa<NoneExpr>(m)) {
    FailureOr<Type> mask = analyzeExpr(m);
    if (failed(mask))
      return failure();
    std::vector<int64_t> scores(q.begin(), q.end() - 1);
    scores.push_back(types[1].shape[q.size() - 2]);
    std::optional<std::vector<int64_t>> shape =
        mask->isTensor() ? broadcast(mask->shape, scores) : std::nullopt;
    if (!mask->isTensor() ||
        !(mask->dtype == DType::Bool || isFloat(mask->dtype)) || !shape ||
        *shape != scores) {
      error(m->getBegin())
          << "scaled_dot_product_attention()'s attn_mask must be a bool or "
             "float tensor that broadcasts to the scores' shape "
          << shapeText(scores) << ", got " << mask->str();
      return failure();
    }
    info.masked = true;
  }
  if (const Expr *c = (*args)[4]) {
    auto *b = dyn_cast<BoolExpr>(c);
    if (!b) {
      error(c->getBegin())
          << "scaled_dot_product_attention()'s is_causal must be True or "
             "False";
      return failure();
    }
    info.causal = b->value;
  }
  info.scale = 1.0 / std::sqrt(static_cast<double>(q.back()));
  if (const Expr *s = (*args)[5]; s && !isa<NoneExpr>(s)) {
    if (failed(analyzeExpr(s)))
      return failure();
    std::optional<double> v = knownNumber(s);
    if (!v) {
      error(s->getBegin()) << "scaled_dot_product_attention()'s scale must "
                              "be a number known at compile time, or None";
      return failure();
    }
    info.scale = *v;
  }
  planOf(expr).attention = info;
  std::vector<int64_t> shape(q.begin(), q.end() - 1);
  shape.push_back(types[2].shape.back());
  return Type::tensor(types[0].dtype, shape);
}
