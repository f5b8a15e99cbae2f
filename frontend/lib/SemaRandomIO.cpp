//===- SemaRandomIO.cpp - Types of random and I/O built-ins ---------------===//
//
// The built-ins that touch state outside the program's values: the random
// generator (seed, random_normal, random_uniform, shuffle_indices). Their
// arguments are matched by position or keyword, and the matched argument
// expressions are recorded in `callArgs` for MLIRGen.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;

FailureOr<std::vector<const Expr *>>
SemaImpl::matchBuiltinArgs(const CallExpr *expr, llvm::StringRef name,
                           llvm::ArrayRef<llvm::StringRef> params,
                           size_t required) {
  if (expr->args.size() > params.size()) {
    error(expr->getBegin()) << name << "() takes at most " << params.size()
                            << " arguments, got " << expr->args.size();
    return failure();
  }
  std::vector<const Expr *> args(params.size(), nullptr);
  for (size_t i = 0; i < expr->args.size(); ++i)
    args[i] = expr->args[i].get();
  for (const Keyword &kw : expr->keywords) {
    auto it = llvm::find(params, kw.name);
    if (it == params.end()) {
      error(kw.range.begin) << name << "() got an unexpected keyword argument '"
                            << kw.name << "'";
      return failure();
    }
    size_t i = it - params.begin();
    if (args[i]) {
      error(kw.range.begin)
          << name << "() got multiple values for argument '" << kw.name << "'";
      return failure();
    }
    args[i] = kw.value.get();
  }
  for (size_t i = 0; i < required; ++i)
    if (!args[i]) {
      error(expr->getBegin())
          << name << "() missing argument '" << params[i] << "'";
      return failure();
    }
  frame->spec->callArgs[expr] = args;
  return args;
}

FailureOr<std::vector<int64_t>> SemaImpl::shapeArgument(const Expr *e,
                                                        llvm::StringRef what) {
  std::optional<std::vector<int64_t>> shape = constInts(e);
  if (!shape) {
    error(e->getBegin()) << what
                         << " must be integers known at compile time (a "
                            "tuple of them, or shape(x))";
    return failure();
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; })) {
    error(e->getBegin()) << what << " has a negative dimension";
    return failure();
  }
  return *shape;
}

FailureOr<DType> SemaImpl::dtypeArgument(const Expr *e, llvm::StringRef what,
                                         DType fallback) {
  if (!e)
    return fallback;
  FailureOr<Type> t = analyzeExpr(e);
  if (failed(t))
    return failure();
  if (t->kind != Type::Kind::DType) {
    error(e->getBegin()) << what << " must be a dtype (f32, i64, ...), got "
                         << t->str();
    return failure();
  }
  return t->dtype;
}

FailureOr<Type> SemaImpl::analyzeRandom(const CallExpr *expr,
                                        llvm::StringRef name) {
  if (name == "seed" || name == "shuffle_indices") {
    FailureOr<std::vector<const Expr *>> args =
        matchBuiltinArgs(expr, name, {"n"}, 1);
    if (failed(args))
      return failure();
    const Expr *n = args->front();
    if (name == "shuffle_indices") {
      FailureOr<std::vector<int64_t>> size =
          shapeArgument(n, "shuffle_indices()'s n");
      if (failed(size))
        return failure();
      if (size->size() != 1) {
        error(n->getBegin()) << "shuffle_indices() takes one size";
        return failure();
      }
      return Type::tensor(DType::I64, *size);
    }
    FailureOr<Type> t = analyzeExpr(n);
    if (failed(t))
      return failure();
    if (!t->isScalar() || !isInteger(t->dtype)) {
      error(n->getBegin()) << "seed() takes an integer scalar, got "
                           << t->str();
      return failure();
    }
    coerce(n, t->dtype);
    return Type::none();
  }

  // random_normal(shape, mean=0, stddev=1, dtype=f32) and
  // random_uniform(shape, lo=0, hi=1, dtype=f32).
  bool normal = name == "random_normal";
  llvm::StringRef a = normal ? "mean" : "lo", b = normal ? "stddev" : "hi";
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"shape", a, b, "dtype"}, 1);
  if (failed(args))
    return failure();
  FailureOr<std::vector<int64_t>> shape =
      shapeArgument((*args)[0], (name + "()'s shape").str());
  FailureOr<DType> dtype =
      dtypeArgument((*args)[3], (name + "()'s dtype").str(), DType::F32);
  if (failed(shape) || failed(dtype))
    return failure();
  if (!isFloat(*dtype)) {
    error((*args)[3]->getBegin())
        << name << "() draws f32 or f64, not " << dtypeName(*dtype);
    return failure();
  }
  Type result = Type::tensor(*dtype, *shape);
  for (size_t i : {1, 2}) {
    const Expr *e = (*args)[i];
    if (!e)
      continue;
    FailureOr<Type> t = analyzeExpr(e);
    if (failed(t))
      return failure();
    llvm::StringRef what = i == 1 ? a : b;
    if (!t->isTensor() || (t->dtype != *dtype && !t->weak) ||
        (t->weak && !isFloat(t->dtype) && !isInteger(t->dtype))) {
      error(e->getBegin()) << name << "()'s " << what << " must be "
                           << dtypeName(*dtype) << ", got " << t->str();
      return failure();
    }
    std::optional<std::vector<int64_t>> fits = broadcast(*shape, t->shape);
    if (!fits || *fits != *shape) {
      error(e->getBegin()) << name << "()'s " << what << " is " << t->str()
                           << ", which does not broadcast to the shape "
                           << result.str();
      return failure();
    }
    coerce(e, *dtype);
  }
  return result;
}
