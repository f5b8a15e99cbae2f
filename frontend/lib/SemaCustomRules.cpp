//===- SemaCustomRules.cpp - @custom_gradient and @custom_jvp ------------===//
//
// A function with a custom derivative returns (value, rule) with the rule a
// nested def: grad_fn(dy) -> one cotangent per argument, or jvp_fn(*tangents)
// -> the value's tangent. The rule is specialized here on the value's type
// (grad_fn) or the arguments' (jvp_fn); callers see the value only.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

LogicalResult SemaImpl::analyzeCustomRule(Specialization *s, Position callPos,
                                          bool tangent) {
  const FuncDef *def = s->def;
  const Scope *scope = defScope.lookup(def);
  const Type &r = s->resultType;
  const char *decorator = tangent ? "@custom_jvp" : "@custom_gradient";
  const char *rule = tangent ? "jvp_fn" : "grad_fn";
  if (r.kind != Type::Kind::Tuple || r.elements.size() != 2 ||
      r.elements[1].kind != Type::Kind::Function || r.elements[1].boundSelf) {
    error(def->namePos, scope->ast)
        << "a " << decorator << " function returns (value, " << rule
        << "), with " << rule << " a nested def; " << def->name << "() returns "
        << r.str();
    return failure();
  }
  s->valueType = r.elements[0].strong();
  if (!s->valueType.isTensor() || !isFloat(s->valueType.dtype)) {
    error(def->namePos, scope->ast)
        << "a " << decorator << " function's value is a float tensor, not "
        << s->valueType.str();
    return failure();
  }
  return tangent ? analyzeTangentRule(s, r.elements[1], callPos)
                 : analyzePullbackRule(s, r.elements[1], callPos);
}

LogicalResult SemaImpl::analyzePullbackRule(Specialization *s,
                                            const Type &gradFn,
                                            Position callPos) {
  const FuncDef *def = s->def;
  const Scope *scope = defScope.lookup(def);
  // grad_fn(dy) gives one cotangent per argument (None for none).
  FailureOr<Specialization *> pullback =
      specialize(gradFn, {s->valueType}, callPos);
  if (failed(pullback))
    return failure();
  const Type &g = (*pullback)->resultType;
  size_t n = s->argTypes.size();
  std::vector<Type> grads =
      n == 1 && g.kind != Type::Kind::Tuple ? std::vector<Type>{g} : g.elements;
  if (grads.size() != n || (n != 1 && g.kind != Type::Kind::Tuple)) {
    error(def->namePos, scope->ast)
        << def->name << "()'s grad_fn returns " << g.str() << ", but it "
        << "must give one cotangent per argument (" << n << ")";
    return failure();
  }
  for (size_t i = 0; i < n; ++i)
    if (grads[i].kind != Type::Kind::None &&
        grads[i].strong() != s->argTypes[i].strong()) {
      error(def->namePos, scope->ast)
          << def->name << "()'s grad_fn gives " << grads[i].str()
          << " for argument '" << def->params[i].name << "', which is "
          << s->argTypes[i].str();
      return failure();
    }
  s->customPullback = *pullback;
  return success();
}

LogicalResult SemaImpl::analyzeTangentRule(Specialization *s, const Type &jvpFn,
                                           Position callPos) {
  const FuncDef *def = s->def;
  const Scope *scope = defScope.lookup(def);
  // jvp_fn(*tangents) gives the value's tangent: one tangent per argument,
  // of the argument's type (an integer argument's is zeros).
  std::vector<Type> tangents;
  for (const Type &t : s->argTypes)
    tangents.push_back(t.strong());
  FailureOr<Specialization *> rule = specialize(jvpFn, tangents, callPos);
  if (failed(rule))
    return failure();
  if ((*rule)->resultType.strong() != s->valueType) {
    error(def->namePos, scope->ast)
        << def->name << "()'s jvp_fn returns " << (*rule)->resultType.str()
        << ", but the value's tangent is " << s->valueType.str();
    return failure();
  }
  s->customTangent = *rule;
  return success();
}
