//===- SemaExpr.cpp - Types of expressions --------------------------------===//
//
// Names, literals, operators with promotion and broadcasting, comparisons,
// subscripts (their read plans), f-strings and print(...).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "tfl/Frontend/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

#include <cmath>
#include <cstdio>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

LogicalResult SemaImpl::unsupported(const Expr *expr, llvm::StringRef what) {
  error(expr->getBegin()) << what << " is not supported yet";
  return failure();
}

FailureOr<Type> SemaImpl::analyzeExpr(const Expr *expr) {
  FailureOr<Type> result = failure();
  switch (expr->getKind()) {
  case Expr::Kind::Int:
    result = Type::knownInt(cast<IntExpr>(expr)->value);
    break;
  case Expr::Kind::Float:
    result = Type::tensor(DType::F32, {}, /*weak=*/true);
    break;
  case Expr::Kind::Bool:
    result = Type::tensor(DType::Bool, {});
    break;
  case Expr::Kind::String:
    result = Type::string(cast<StringExpr>(expr)->value);
    break;
  case Expr::Kind::None:
    result = Type::none();
    break;
  case Expr::Kind::Name:
    result = analyzeName(cast<NameExpr>(expr));
    break;
  case Expr::Kind::List:
    result = analyzeList(cast<ListExpr>(expr));
    break;
  case Expr::Kind::Tuple:
    result = analyzeTuple(cast<TupleExpr>(expr));
    break;
  case Expr::Kind::Unary:
    result = analyzeUnary(cast<UnaryExpr>(expr));
    break;
  case Expr::Kind::Binary:
    result = analyzeBinary(cast<BinaryExpr>(expr));
    break;
  case Expr::Kind::Call:
    result = analyzeCall(cast<CallExpr>(expr));
    break;
  case Expr::Kind::FString:
    result = knownFString(cast<FStringExpr>(expr));
    break;
  case Expr::Kind::Ellipsis:
    return unsupported(expr, "'...' outside a subscript");
  case Expr::Kind::Compare:
    result = analyzeCompare(cast<CompareExpr>(expr));
    break;
  case Expr::Kind::Not:
  case Expr::Kind::BoolOp:
    result = analyzeLogical(expr);
    break;
  case Expr::Kind::Cond:
    result = analyzeCond(cast<CondExpr>(expr));
    break;
  case Expr::Kind::Attribute:
    result = analyzeAttribute(cast<AttributeExpr>(expr));
    break;
  case Expr::Kind::Subscript:
    result = analyzeSubscript(cast<SubscriptExpr>(expr));
    break;
  case Expr::Kind::Slice:
    return unsupported(expr, "a slice outside a subscript");
  case Expr::Kind::Lambda:
    result = closureOf(cast<LambdaExpr>(expr)->def.get());
    break;
  case Expr::Kind::Starred:
    error(expr->getBegin()) << "a starred expression is only a target: "
                               "a, *rest = t";
    return failure();
  case Expr::Kind::Comprehension:
    result = analyzeComprehension(cast<ComprehensionExpr>(expr));
    break;
  }
  if (failed(result))
    return failure();
  result = withKnownValue(expr, *result);
  typeOf(expr) = *result;
  return result;
}

FailureOr<Type> SemaImpl::analyzeTuple(const TupleExpr *expr) {
  std::vector<Type> elements;
  for (const ExprPtr &e : expr->elements) {
    FailureOr<Type> t = analyzeExpr(e.get());
    if (failed(t))
      return failure();
    elements.push_back(*t);
  }
  return Type::tuple(std::move(elements));
}

FailureOr<Type> SemaImpl::analyzeLogical(const Expr *expr) {
  if (auto *n = dyn_cast<NotExpr>(expr)) {
    if (failed(requireBoolScalar(n->operand.get(), "the operand of 'not'")))
      return failure();
    return Type::tensor(DType::Bool, {});
  }
  auto *b = cast<BoolOpExpr>(expr);
  llvm::StringRef what =
      b->isAnd ? "an operand of 'and'" : "an operand of 'or'";
  if (failed(requireBoolScalar(b->lhs.get(), what)) ||
      failed(requireBoolScalar(b->rhs.get(), what)))
    return failure();
  return Type::tensor(DType::Bool, {});
}

/// Python's floor division and modulo of ints (a zero divisor gives 0, as
/// TFL's integer `//` and `%` do).
static int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Type SemaImpl::withKnownValue(const Expr *expr, Type t) {
  // Values pass through names, tuples, their elements and attributes;
  // arithmetic on known ints folds; anything else is a run-time value.
  if (isa<IntExpr, NameExpr, TupleExpr, AttributeExpr, ComprehensionExpr>(expr))
    return t;
  if (auto *sub = dyn_cast<SubscriptExpr>(expr))
    if (frame->spec->tupleIndices.count(sub) ||
        frame->spec->tupleSlices.count(sub))
      return t;
  // Tuples made by `+` and `*` keep their elements' values.
  if (isa<BinaryExpr>(expr) && t.kind == Type::Kind::Tuple)
    return t;
  if (auto *call = dyn_cast<CallExpr>(expr)) {
    auto plan = frame->spec->builtinCalls.find(call);
    if (plan != frame->spec->builtinCalls.end() &&
        plan->second.builtin.givesKnownValues())
      return t;
  }
  std::function<void(Type &)> forget = [&](Type &x) {
    x.known.reset();
    x.batch = false;
    for (Type &e : x.elements)
      forget(e);
  };
  forget(t);
  if (!t.isScalar() || t.dtype != DType::I64)
    return t;
  auto valueOf = [&](const Expr *e) { return typeOf(e).known; };
  if (auto *u = dyn_cast<UnaryExpr>(expr)) {
    if (std::optional<int64_t> v = valueOf(u->operand.get()))
      t.known = u->op == UnaryOp::Minus ? 0 - static_cast<uint64_t>(*v) : *v;
    return t;
  }
  auto *b = dyn_cast<BinaryExpr>(expr);
  if (!b)
    return t;
  std::optional<int64_t> l = valueOf(b->lhs.get()), r = valueOf(b->rhs.get());
  if (!l || !r)
    return t;
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  switch (b->op) {
  case BinaryOp::Add:
    t.known = wrap(static_cast<uint64_t>(*l) + static_cast<uint64_t>(*r));
    break;
  case BinaryOp::Sub:
    t.known = wrap(static_cast<uint64_t>(*l) - static_cast<uint64_t>(*r));
    break;
  case BinaryOp::Mul:
    t.known = wrap(static_cast<uint64_t>(*l) * static_cast<uint64_t>(*r));
    break;
  case BinaryOp::FloorDiv:
    if (!(*l == INT64_MIN && *r == -1))
      t.known = floorDiv(*l, *r);
    break;
  case BinaryOp::Mod:
    if (!(*l == INT64_MIN && *r == -1))
      t.known = *r == 0 ? 0 : *l - floorDiv(*l, *r) * *r;
    break;
  default:
    break;
  }
  return t;
}

FailureOr<Type> SemaImpl::analyzeName(const NameExpr *expr) {
  auto it = frame->vars.find(expr->name);
  if (it != frame->vars.end()) {
    if (frame->conditional.contains(expr->name)) {
      mlir::InFlightDiagnostic diag = error(expr->getBegin());
      diag << "name '" << expr->name
           << "' may be unbound here: it is assigned only in one branch of an "
              "'if' or inside a loop";
      if (auto at = frame->bound.find(expr->name); at != frame->bound.end())
        note(diag, at->second) << "'" << expr->name << "' is assigned here";
      return failure();
    }
    return it->second;
  }
  // Functions see their file's definitions and constants; the script body
  // binds its own defs and classes as statements run.
  if (std::optional<FailureOr<Type>> global =
          lookupGlobal(*frame->scope, expr->name, expr, !frame->isScript))
    return *global;
  if (Builtin::named(expr->name))
    return Type::builtin(expr->name);
  if (std::optional<DType> dtype = dtypeNamed(expr->name))
    return Type::dtypeValue(*dtype);
  if (!frame->isScript && frame->scope->topLevelNames.contains(expr->name)) {
    error(expr->getBegin())
        << "name '" << expr->name
        << "' is not defined in this function: functions see module "
           "constants (top-level names bound once to a literal), not "
           "script variables; pass it as an argument";
    return failure();
  }
  // A lone Python keyword (`raise`, `del(x)`) parses as a name.
  if (const char *what = unsupportedPythonKeyword(expr->name)) {
    error(expr->getBegin()) << what;
    return failure();
  }
  error(expr->getBegin()) << "name '" << expr->name << "' is not defined";
  return failure();
}

/// The literal number of a list leaf (`1`, `-2.5`, `True`), if it is one.
static const Expr *literalLeaf(const Expr *e) {
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return isa<IntExpr, FloatExpr>(u->operand.get()) ? u->operand.get()
                                                     : nullptr;
  return isa<IntExpr, FloatExpr, BoolExpr>(e) ? e : nullptr;
}

FailureOr<Type> SemaImpl::analyzeList(const ListExpr *expr) {
  // A nested list of number literals: find its shape and dtype.
  std::vector<int64_t> shape;
  bool anyFloat = false, anyInt = false, anyBool = false;
  std::function<LogicalResult(const Expr *, size_t)> visit =
      [&](const Expr *e, size_t depth) -> LogicalResult {
    if (auto *list = dyn_cast<ListExpr>(e)) {
      int64_t n = list->elements.size();
      if (depth == shape.size())
        shape.push_back(n);
      else if (depth > shape.size() || shape[depth] != n) {
        error(e->getBegin()) << "ragged list literal: this list has " << n
                             << " elements where its siblings have "
                             << (depth < shape.size() ? shape[depth] : 0);
        return failure();
      }
      for (const ExprPtr &child : list->elements)
        if (failed(visit(child.get(), depth + 1)))
          return failure();
      return success();
    }
    if (depth != shape.size()) {
      error(e->getBegin()) << "ragged list literal: a number where a list "
                              "is expected";
      return failure();
    }
    const Expr *leaf = literalLeaf(e);
    if (!leaf) {
      error(e->getBegin()) << "a list literal holds only number literals "
                              "(build tensors from values with stack(...))";
      return failure();
    }
    anyFloat |= isa<FloatExpr>(leaf);
    anyInt |= isa<IntExpr>(leaf);
    anyBool |= isa<BoolExpr>(leaf);
    return success();
  };
  if (failed(visit(expr, 0)))
    return failure();
  if (anyBool && (anyFloat || anyInt)) {
    error(expr->getBegin()) << "a list literal mixes booleans and numbers";
    return failure();
  }
  // A list literal is a tensor (as jnp.array is): only scalar literals are
  // weak (LANGUAGE.md section 3).
  // An empty list is a float tensor, as NumPy's np.array([]).
  bool anyLeaf = anyFloat || anyInt || anyBool;
  DType dtype = (anyFloat || !anyLeaf) ? DType::F32
                : anyBool              ? DType::Bool
                                       : DType::I64;
  return Type::tensor(dtype, shape);
}

/// The value of a number literal, negated or not (`-3`, `2.5`).
static std::optional<double> literalValue(const Expr *e) {
  double sign = 1;
  if (auto *u = dyn_cast<UnaryExpr>(e)) {
    sign = u->op == UnaryOp::Minus ? -1 : 1;
    e = u->operand.get();
  }
  if (auto *i = dyn_cast<IntExpr>(e))
    return sign * static_cast<double>(i->value);
  if (auto *f = dyn_cast<FloatExpr>(e))
    return sign * f->value;
  return std::nullopt;
}

bool SemaImpl::checkLiteralFits(const Expr *expr, DType dtype) {
  std::optional<double> value = literalValue(expr);
  if (!value || dtype == DType::F64 || dtype == DType::I64 ||
      dtype == DType::Bool)
    return true;
  // A literal meeting a narrower tensor must fit its dtype: NumPy 2 and JAX
  // refuse such integers, PyTorch's fill refuses such floats; a silent
  // wrap or inf would be a bug in the program.
  double lo, hi;
  switch (dtype) {
  case DType::I32:
    lo = -2147483648.0, hi = 2147483647.0;
    break;
  case DType::U8:
    lo = 0, hi = 255;
    break;
  case DType::F16:
    lo = -65504.0, hi = 65504.0;
    break;
  case DType::BF16:
    lo = -3.3895313892515355e38, hi = 3.3895313892515355e38;
    break;
  default: // F32
    lo = -3.4028234663852886e38, hi = 3.4028234663852886e38;
    break;
  }
  if (*value >= lo && *value <= hi)
    return true;
  auto show = [](double v) {
    char buf[32];
    if (std::abs(v) < 1e15 && v == std::trunc(v))
      std::snprintf(buf, sizeof(buf), "%.0f", v);
    else
      std::snprintf(buf, sizeof(buf), "%.8g", v);
    return std::string(buf);
  };
  error(expr->getBegin()) << "literal " << show(*value) << " does not fit in "
                          << dtypeName(dtype)
                          << ", the dtype of the tensor it meets (its range is "
                          << show(lo) << " to " << show(hi) << ")";
  literalOutOfRange = true;
  return false;
}

void SemaImpl::coerce(const Expr *expr, DType dtype) {
  Type &t = typeOf(expr);
  if (!t.isTensor() || !t.weak)
    return;
  if (literalOutOfRange || !checkLiteralFits(expr, dtype))
    return;
  // A module constant read here is emitted in the dtype this use needs.
  auto constant = frame->spec->constantUses.find(expr);
  if (constant != frame->spec->constantUses.end())
    coerce(constant->second, dtype);
  t.dtype = dtype;
  t.weak = false;
  if (auto *u = dyn_cast<UnaryExpr>(expr)) {
    if (literalValue(expr)) {
      // The literal as a whole fits; its digits alone need not.
      Type &operand = typeOf(u->operand.get());
      operand.dtype = dtype;
      operand.weak = false;
    } else {
      coerce(u->operand.get(), dtype);
    }
  } else if (auto *b = dyn_cast<BinaryExpr>(expr)) {
    if (b->op == BinaryOp::Div && isFloat(dtype)) {
      coerce(b->lhs.get(), dtype);
      coerce(b->rhs.get(), dtype);
    } else if (b->op != BinaryOp::Div) {
      coerce(b->lhs.get(), dtype);
      coerce(b->rhs.get(), dtype);
    }
  }
}

FailureOr<Type> SemaImpl::analyzeUnary(const UnaryExpr *expr) {
  FailureOr<Type> t = analyzeExpr(expr->operand.get());
  if (failed(t))
    return failure();
  if (!t->isTensor() || t->dtype == DType::Bool) {
    error(expr->getBegin()) << "bad operand type for unary "
                            << spelling(expr->op) << ": " << t->str();
    return failure();
  }
  return *t;
}

FailureOr<Type> SemaImpl::analyzeBinary(const BinaryExpr *expr) {
  FailureOr<Type> lhs = analyzeExpr(expr->lhs.get());
  if (failed(lhs))
    return failure();
  FailureOr<Type> rhs = analyzeExpr(expr->rhs.get());
  if (failed(rhs))
    return failure();
  return binaryType(expr->op, expr->lhs.get(), *lhs, expr->rhs.get(), *rhs,
                    expr->opPos);
}

FailureOr<Type> SemaImpl::binaryType(BinaryOp binOp, const Expr *lhsExpr,
                                     Type lhs, const Expr *rhsExpr, Type rhs,
                                     Position opPos) {
  llvm::StringRef op = spelling(binOp);
  for (const Type *t : {&lhs, &rhs})
    if (t->kind == Type::Kind::String || t->kind == Type::Kind::Tuple ||
        t->kind == Type::Kind::RuntimeString)
      return sequenceBinary(binOp, lhs, rhs, opPos);
  if (!lhs.isTensor() || !rhs.isTensor() || lhs.dtype == DType::Bool ||
      rhs.dtype == DType::Bool) {
    error(opPos) << "unsupported operand types for " << op << ": " << lhs.str()
                 << " and " << rhs.str();
    return failure();
  }
  std::optional<Type> common = unifyOperands(lhs, rhs);
  if (!common) {
    error(opPos) << "operands of " << op
                 << " have different dtypes: " << lhs.str() << " and "
                 << rhs.str() << " (use cast(x, dtype) to convert one)";
    return failure();
  }
  DType dtype = common->dtype;
  bool weak = lhs.weak && rhs.weak;
  if (!weak) {
    coerce(lhsExpr, dtype);
    coerce(rhsExpr, dtype);
  }

  if (binOp == BinaryOp::MatMul) {
    // NumPy's matmul: a 1-D operand is promoted (and its dim dropped from
    // the result), leading batch dims broadcast.
    if (lhs.rank() == 0 || rhs.rank() == 0) {
      error(opPos) << "matmul needs operands of at least 1 dim, got "
                   << lhs.str() << " @ " << rhs.str();
      return failure();
    }
    std::vector<int64_t> a = lhs.shape, b = rhs.shape;
    if (a.size() == 1)
      a.insert(a.begin(), 1);
    if (b.size() == 1)
      b.push_back(1);
    int64_t k1 = a.back(), k2 = b[b.size() - 2];
    if (k1 != k2) { // (a batch, `?`, contracts only with itself)
      auto dim = [](int64_t k) {
        return k == kDynamicDim ? std::string("?") : std::to_string(k);
      };
      error(opPos) << "matmul shape mismatch: " << lhs.str() << " @ "
                   << rhs.str() << " (inner dimensions " << dim(k1) << " and "
                   << dim(k2) << " differ)";
      return failure();
    }
    std::optional<std::vector<int64_t>> batch =
        broadcast(std::vector<int64_t>(a.begin(), a.end() - 2),
                  std::vector<int64_t>(b.begin(), b.end() - 2));
    if (!batch) {
      error(opPos) << "matmul batch dimensions do not broadcast: " << lhs.str()
                   << " @ " << rhs.str();
      return failure();
    }
    std::vector<int64_t> shape = *batch;
    if (lhs.rank() > 1)
      shape.push_back(a[a.size() - 2]);
    if (rhs.rank() > 1)
      shape.push_back(b.back());
    return Type::tensor(dtype, shape, weak);
  }

  // Elementwise: NumPy broadcasting of the two shapes.
  std::optional<std::vector<int64_t>> shape = broadcast(lhs.shape, rhs.shape);
  if (!shape) {
    error(opPos) << "shapes do not broadcast for " << op << ": " << lhs.str()
                 << " and " << rhs.str();
    return failure();
  }
  // True division of integers gives f32 (LANGUAGE.md section 3).
  if (binOp == BinaryOp::Div && !isFloat(dtype))
    dtype = DType::F32;
  return Type::tensor(dtype, *shape, weak);
}

FailureOr<Type> SemaImpl::requireBoolScalar(const Expr *expr,
                                            llvm::StringRef what) {
  FailureOr<Type> t = analyzeExpr(expr);
  if (failed(t))
    return failure();
  if (!t->isScalar() || t->dtype != DType::Bool) {
    error(expr->getBegin())
        << what << " must be a bool scalar, got " << t->str();
    return failure();
  }
  return t;
}

FailureOr<Type> SemaImpl::analyzeCompare(const CompareExpr *expr) {
  std::vector<Type> types;
  for (const ExprPtr &operand : expr->operands) {
    FailureOr<Type> t = analyzeExpr(operand.get());
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  if (llvm::any_of(
          types, [](const Type &t) { return t.kind == Type::Kind::String; }) ||
      llvm::is_contained(expr->ops, CompareOp::In) ||
      llvm::is_contained(expr->ops, CompareOp::NotIn))
    return analyzeStringCompare(expr, types);
  if (llvm::any_of(types,
                   [](const Type &t) { return t.kind == Type::Kind::DType; }))
    return analyzeDTypeCompare(expr, types);
  types.clear();
  for (const ExprPtr &operand : expr->operands) {
    const Type &t = typeOf(operand.get());
    if (!t.isTensor()) {
      error(operand->getBegin()) << "cannot compare " << t.str();
      return failure();
    }
    types.push_back(t);
  }
  if (expr->ops.size() > 1) {
    for (size_t i = 0; i < types.size(); ++i)
      if (!types[i].isScalar()) {
        error(expr->operands[i]->getBegin())
            << "a chained comparison needs scalars, got " << types[i].str();
        return failure();
      }
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < expr->ops.size(); ++i) {
    const Type &a = types[i], &b = types[i + 1];
    std::optional<Type> common = unifyOperands(a, b);
    bool boolEquality =
        a.dtype == DType::Bool && b.dtype == DType::Bool &&
        (expr->ops[i] == CompareOp::Eq || expr->ops[i] == CompareOp::Ne);
    if (!common || (common->dtype == DType::Bool && !boolEquality)) {
      error(expr->operands[i]->getBegin())
          << "cannot compare " << a.str() << " " << spelling(expr->ops[i])
          << " " << b.str() << " (use cast(x, dtype) to convert one)";
      return failure();
    }
    coerce(expr->operands[i].get(), common->dtype);
    coerce(expr->operands[i + 1].get(), common->dtype);
    std::optional<std::vector<int64_t>> s = broadcast(a.shape, b.shape);
    if (!s) {
      error(expr->operands[i]->getBegin())
          << "shapes do not broadcast for " << spelling(expr->ops[i]) << ": "
          << a.str() << " and " << b.str();
      return failure();
    }
    shape = *s;
  }
  return Type::tensor(DType::Bool, shape);
}

FailureOr<Type> SemaImpl::analyzeDTypeCompare(const CompareExpr *expr,
                                              llvm::ArrayRef<Type> types) {
  // Dtypes compare for equality, at compile time (`x.dtype == bf16`).
  bool result = true;
  for (size_t i = 0; i < expr->ops.size(); ++i) {
    const Type &a = types[i], &b = types[i + 1];
    CompareOp op = expr->ops[i];
    if (a.kind != b.kind) {
      const Type &other = a.kind == Type::Kind::DType ? b : a;
      error(expr->operands[i]->getBegin())
          << "cannot compare a dtype with " << other.str()
          << " (a dtype compares with a dtype: x.dtype == bf16)";
      return failure();
    }
    if (op != CompareOp::Eq && op != CompareOp::Ne) {
      error(expr->operands[i]->getBegin())
          << "cannot compare " << a.str() << " " << spelling(op) << " "
          << b.str() << " (dtypes compare with == and !=)";
      return failure();
    }
    result &= (a.dtype == b.dtype) == (op == CompareOp::Eq);
  }
  frame->spec->knownBools[expr] = result;
  return Type::tensor(DType::Bool, {});
}

FailureOr<Type> SemaImpl::analyzeCond(const CondExpr *expr) {
  if (failed(requireBoolScalar(expr->cond.get(),
                               "the condition of a conditional expression")))
    return failure();
  FailureOr<Type> a = analyzeExpr(expr->thenExpr.get());
  if (failed(a))
    return failure();
  FailureOr<Type> b = analyzeExpr(expr->elseExpr.get());
  if (failed(b))
    return failure();
  std::optional<Type> common;
  if (a->isTensor() && b->isTensor() && a->shape == b->shape)
    common = unifyOperands(*a, *b);
  if (!common) {
    error(expr->getBegin())
        << "the two values of a conditional expression differ in type: "
        << a->str() << " and " << b->str();
    return failure();
  }
  coerce(expr->thenExpr.get(), common->dtype);
  coerce(expr->elseExpr.get(), common->dtype);
  return Type::tensor(common->dtype, a->shape, a->weak && b->weak);
}

LogicalResult SemaImpl::analyzeFString(const FStringExpr *expr) {
  // Python's format-spec mini-language (types TFL supports).
  static const llvm::Regex specGrammar(
      "^(.?[<>=^])?[-+ ]?#?0?[0-9]*[,_]?(\\.[0-9]+)?[bdeEfFgGoxX%]?$");
  for (const FStringExpr::Part &part : expr->parts) {
    if (!part.expr)
      continue;
    FailureOr<Type> t = analyzeExpr(part.expr.get());
    if (failed(t))
      return failure();
    const Position at = part.expr->getBegin();
    if (t->kind == Type::Kind::String || t->kind == Type::Kind::RuntimeString) {
      if (!part.spec.empty()) {
        error(at) << "a format spec on a string field is not supported yet";
        return failure();
      }
      continue;
    }
    if (!t->isTensor()) {
      error(at) << "an f-string cannot show a value of type " << t->str();
      return failure();
    }
    if (t->weak)
      coerce(part.expr.get(), t->dtype);
    if (part.spec.empty())
      continue;
    if (!t->isScalar()) {
      error(at) << "a format spec applies to scalars, not " << t->str()
                << " (as for NumPy arrays)";
      return failure();
    }
    if (llvm::StringRef(part.spec).contains('{') ||
        !specGrammar.match(part.spec)) {
      error(at) << "invalid format spec '" << part.spec << "'";
      return failure();
    }
    char type = part.spec.back();
    if (isFloat(t->dtype) && llvm::StringRef("bdoxX").contains(type)) {
      error(at) << "format code '" << type << "' is for integers, but this "
                << "value is " << t->str();
      return failure();
    }
  }
  return success();
}

FailureOr<Type> SemaImpl::analyzePrint(const CallExpr *expr) {
  for (const ExprPtr &arg : expr->args) {
    if (auto *f = dyn_cast<FStringExpr>(arg.get())) {
      if (failed(analyzeFString(f)))
        return failure();
      continue;
    }
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    if (t->kind == Type::Kind::RuntimeString) // a string flag's value
      continue;
    std::function<bool(const Type &)> printable = [&](const Type &x) {
      // A dtype shows as TFL names it (`f32`), None as `None`.
      return x.isTensor() || x.kind == Type::Kind::String ||
             x.kind == Type::Kind::RuntimeString ||
             x.kind == Type::Kind::DType || x.kind == Type::Kind::None ||
             (x.isTree() && llvm::all_of(x.elements, printable));
    };
    if (!printable(*t)) {
      error(arg->getBegin())
          << "print(...) cannot show a value of type " << t->str();
      return failure();
    }
    if (t->weak)
      coerce(arg.get(), t->dtype);
  }
  for (const Keyword &kw : expr->keywords) {
    if (kw.name != "sep" && kw.name != "end") {
      error(kw.range.begin)
          << "print() got an unexpected keyword argument '" << kw.name << "'";
      return failure();
    }
    FailureOr<Type> t = analyzeExpr(kw.value.get());
    if (failed(t))
      return failure();
    if (t->kind != Type::Kind::String) {
      error(kw.value->getBegin())
          << "print()'s " << kw.name << "= must be a string, got " << t->str();
      return failure();
    }
  }
  return Type::none();
}
