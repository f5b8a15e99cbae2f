//===- SemaCheckpoint.cpp - checkpoint(f) and remat(f), as JAX's ----------===//
//
// `checkpoint(f)` (alias `remat`, or `@checkpoint` on a def) is a function
// value computing what f computes. A call of it specializes f and makes a
// generated specialization whose body calls f's, marked `tfl.checkpoint`:
// the reverse sweep of a gradient through that call recomputes f's
// intermediates from its arguments instead of keeping them from the
// forward sweep (passes/lib/Autodiff/ReverseSweep.cpp).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

FailureOr<Type> SemaImpl::analyzeCheckpoint(const CallExpr *expr,
                                            llvm::StringRef name) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"f"}, 1);
  if (failed(args))
    return failure();
  FailureOr<Type> f = analyzeExpr((*args)[0]);
  if (failed(f))
    return failure();
  // A layer (a record with __call__) is its __call__, bound to it.
  if (f->kind == Type::Kind::Record)
    if (const FuncDef *call = ast::methodOf(*f->cls, "__call__"))
      f = Type::boundMethod(call, *f);
  if (!f->isCallableValue()) {
    error((*args)[0]->getBegin())
        << name << "() takes a function (a def, a lambda, a callable record "
        << "or a transform of one), got " << f->str();
    return failure();
  }
  return Type::checkpoint(*f);
}

FailureOr<Specialization *>
SemaImpl::checkpointSpecOf(FailureOr<Specialization *> f) {
  if (failed(f))
    return failure();
  Specialization &inner = **f;
  if (inner.checkpointOf) // a checkpoint of a checkpoint is one checkpoint
    return &inner;
  std::string key = "checkpoint:" + inner.symbol;
  auto cached = gradCache.find(key);
  if (cached != gradCache.end())
    return cached->second;
  Specialization *s = generatedSpec(inner, key, inner.symbol + ".checkpoint");
  s->resultType = inner.callType();
  s->checkpointOf = &inner;
  return s;
}

FailureOr<Specialization *>
SemaImpl::checkpointIfDecorated(const FuncDef *def,
                                FailureOr<Specialization *> f) {
  if (failed(f) || !def ||
      llvm::none_of(def->decorators, [](const Decorator &d) {
        return d.name == "checkpoint" || d.name == "remat";
      }))
    return f;
  return checkpointSpecOf(f);
}
