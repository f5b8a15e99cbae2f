//===- SemaForward.cpp - jvp(f, primals, tangents), as JAX's --------------===//
//
// A jvp call specializes f on its primals' types (f may be a def, a lambda,
// a closure or a grad of one) and makes a generated specialization whose
// body is `tfl.jvp` of f: it takes the primals, their tangents and f's
// captures, and gives (f(*primals), tangent). The autodiff pass builds the
// forward-mode function.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

/// Whether `tangent` may be the tangent of `primal`: the same tree, each
/// leaf of the same shape and of the same dtype (a literal takes the
/// primal's, as a weak type does).
static bool tangentFits(const Type &primal, const Type &tangent) {
  if (primal.isTensor())
    return tangent.isTensor() && tangent.shape == primal.shape &&
           (tangent.dtype == primal.dtype ||
            (tangent.weak && isFloat(primal.dtype)));
  if (!primal.isTree() || primal.kind != tangent.kind ||
      primal.cls != tangent.cls ||
      primal.elements.size() != tangent.elements.size())
    return false;
  for (size_t i = 0; i < primal.elements.size(); ++i)
    if (!tangentFits(primal.elements[i], tangent.elements[i]))
      return false;
  return true;
}

FailureOr<Specialization *> SemaImpl::specializeOn(const Type &callee,
                                                   std::vector<Type> argTypes,
                                                   Position at,
                                                   llvm::StringRef what) {
  if (callee.kind == Type::Kind::Grad) {
    FailureOr<Specialization *> inner =
        specializeOn(callee.elements.front(), argTypes, at, what);
    if (failed(inner))
      return failure();
    return gradSpecOf(callee, *inner, at, [&](size_t) { return at; });
  }
  if (callee.kind == Type::Kind::Vmap)
    return vmapSpecOf(callee, std::move(argTypes), at,
                      [&](size_t) { return at; });
  if (callee.kind == Type::Kind::Checkpoint)
    return checkpointSpecOf(
        specializeOn(callee.elements.front(), std::move(argTypes), at, what));
  if (callee.kind == Type::Kind::Linear)
    return linearSpecOf(callee, argTypes, at, [&](size_t) { return at; });
  if (callee.kind != Type::Kind::Function || callee.boundSelf) {
    error(at) << what << " differentiates a function (a def, a lambda or a "
              << "grad of one), got " << callee.str();
    return failure();
  }
  const FuncDef *def = callee.func;
  if (def->params.size() != argTypes.size()) {
    error(at) << what << " calls " << def->name << "() with " << argTypes.size()
              << " argument" << (argTypes.size() == 1 ? "" : "s")
              << ", but it takes " << def->params.size();
    return failure();
  }
  DimBindings dims;
  for (size_t i = 0; i < argTypes.size(); ++i)
    if (const ExprPtr &ann = def->params[i].annotation) {
      Type adjusted;
      if (failed(checkAnnotation(ann.get(), argTypes[i], dims,
                                 "argument '" + def->params[i].name + "' of " +
                                     def->name + "()",
                                 at, adjusted, defScope.lookup(def))))
        return failure();
      argTypes[i] = adjusted;
    }
  return checkpointIfDecorated(def,
                               specialize(callee, std::move(argTypes), at));
}

FailureOr<Type> SemaImpl::analyzeJvp(const CallExpr *expr) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, "jvp", {"f", "primals", "tangents"}, 3);
  if (failed(args))
    return failure();
  FailureOr<Type> f = analyzeExpr((*args)[0]);
  FailureOr<Type> primals = analyzeExpr((*args)[1]);
  FailureOr<Type> tangents = analyzeExpr((*args)[2]);
  if (failed(f) || failed(primals) || failed(tangents))
    return failure();
  for (auto [k, t] : {std::make_pair(1, &*primals), {2, &*tangents}})
    if (t->kind != Type::Kind::Tuple) {
      error((*args)[k]->getBegin())
          << "jvp()'s " << (k == 1 ? "primals" : "tangents")
          << " are a tuple, one value per argument of the function (`(x,)` "
             "for one), got "
          << t->str();
      return failure();
    }
  if (primals->elements.size() != tangents->elements.size()) {
    error((*args)[2]->getBegin())
        << "jvp() takes one tangent per primal: " << primals->elements.size()
        << " primals, " << tangents->elements.size() << " tangents";
    return failure();
  }
  for (size_t i = 0; i < primals->elements.size(); ++i)
    if (!tangentFits(primals->elements[i], tangents->elements[i])) {
      error((*args)[2]->getBegin())
          << "jvp()'s tangent " << i << " is " << tangents->elements[i].str()
          << ", but its primal is " << primals->elements[i].str()
          << ": a tangent has its primal's type";
      return failure();
    }
  FailureOr<Specialization *> inner =
      specializeOn(*f, primals->elements, expr->getBegin(), "jvp()");
  if (failed(inner))
    return failure();
  const Type &value = (*inner)->callType();
  if (!value.hasValues()) {
    error(expr->getBegin())
        << "jvp() needs a function returning tensors, but it returns "
        << value.str();
    return failure();
  }
  // One generated specialization per specialization of f.
  std::string key = "jvp:" + (*inner)->symbol;
  auto cached = gradCache.find(key);
  Specialization *s =
      cached != gradCache.end()
          ? cached->second
          : generatedSpec(**inner, key, (*inner)->symbol + ".jvp_call");
  s->argTypes = {*primals, primals->strong()};
  s->resultType = Type::tuple({value.strong(), value.strong()});
  s->jvpOf = *inner;
  planOf(expr).jvp = s;
  return s->resultType;
}

/// `t` (a tensor or a tree of them) with each leaf replaced by `leaf(it)`;
/// false when a leaf is not a float tensor.
static bool mapFloatLeaves(const Type &t,
                           llvm::function_ref<Type(const Type &)> leaf,
                           Type &out) {
  if (t.isTensor()) {
    if (!isFloat(t.dtype))
      return false;
    out = leaf(t);
    return true;
  }
  if (!t.isTree())
    return false;
  out = t.strong();
  for (Type &e : out.elements)
    if (!mapFloatLeaves(Type(e), leaf, e))
      return false;
  return true;
}

/// The Jacobian of a function returning `value` with respect to
/// `inputs` (one, or a tuple of them when `tuple`), in JAX's layout: a
/// tree of the value's structure whose every leaf is a tree of the
/// inputs' structure, of the value leaf's dims then the input leaf's.
static bool jacobianOf(const Type &value, const std::vector<Type> &inputs,
                       bool tuple, Type &out) {
  bool floats = true;
  bool ok = mapFloatLeaves(
      value,
      [&](const Type &y) {
        std::vector<Type> perInput;
        for (const Type &x : inputs) {
          Type j;
          floats &= mapFloatLeaves(
              x,
              [&](const Type &leaf) {
                std::vector<int64_t> shape = y.shape;
                shape.insert(shape.end(), leaf.shape.begin(), leaf.shape.end());
                return Type::tensor(y.dtype, std::move(shape));
              },
              j);
          perInput.push_back(std::move(j));
        }
        return tuple ? Type::tuple(std::move(perInput)) : perInput.front();
      },
      out);
  return ok && floats;
}

LogicalResult SemaImpl::checkArgnum(llvm::StringRef name, int64_t a,
                                    const Specialization &f, Position at) {
  if (a >= 0 && a < static_cast<int64_t>(f.argTypes.size()))
    return success();
  error(at) << name << "()'s argnum " << a
            << " is out of range for a call with " << f.argTypes.size()
            << " arguments";
  return failure();
}

FailureOr<Specialization *>
SemaImpl::jacobianSpecOf(const Type &grad, Specialization *f, Position at,
                         llvm::function_ref<Position(size_t)> argAt) {
  bool forward = grad.jacobian == Type::Jacobian::Forward;
  std::string name = forward ? "jacfwd" : "jacrev";
  const Type &value = f->callType();
  std::vector<Type> inputs;
  for (int64_t a : grad.argnums) {
    if (failed(checkArgnum(name, a, *f, at)))
      return failure();
    const Type &t = f->argTypes[a];
    Type unused;
    if (!mapFloatLeaves(t, [](const Type &x) { return x; }, unused)) {
      error(argAt(static_cast<size_t>(a)))
          << name << "() with respect to an argument of type " << t.str()
          << ": Jacobians are taken with respect to float tensors (or "
             "trees of them)";
      return failure();
    }
    inputs.push_back(t);
  }
  Type jacobian;
  if (!jacobianOf(value, inputs, grad.argnumsTuple, jacobian)) {
    error(at) << name << "() needs a function returning float tensors "
              << "(or trees of them), but it returns " << value.str();
    return failure();
  }
  std::string key =
      "jacobian:" + name + ":" + f->symbol + (grad.argnumsTuple ? "t" : "");
  std::string symbol = f->symbol + "." + name;
  for (int64_t a : grad.argnums) {
    key += "_" + std::to_string(a);
    symbol += "_" + std::to_string(a);
  }
  auto cached = gradCache.find(key);
  if (cached != gradCache.end())
    return cached->second;
  Specialization *s = generatedSpec(*f, key, symbol);
  s->gradOf = f;
  s->resultType = jacobian;
  // The flattened operands of each argument (its leaves).
  for (int64_t a : grad.argnums) {
    size_t leaf = 0;
    for (int64_t i = 0; i < a; ++i)
      leaf += f->argTypes[i].leafCount();
    for (size_t k = 0; k < f->argTypes[a].leafCount(); ++k)
      s->gradArgnums.push_back(static_cast<int64_t>(leaf + k));
  }
  s->gradJacobian = grad.jacobian;
  return s;
}

Specialization *SemaImpl::generatedSpec(Specialization &f,
                                        const std::string &key,
                                        std::string symbol) {
  auto spec = std::make_unique<Specialization>();
  Specialization *s = spec.get();
  s->module = f.module;
  s->symbol = std::move(symbol);
  s->argTypes = f.argTypes;
  s->captureNames = f.captureNames;
  s->captureTypes = f.captureTypes;
  program->specializations.push_back(std::move(spec));
  gradCache[key] = s;
  return s;
}

FailureOr<Type> SemaImpl::analyzeLinearize(const CallExpr *expr, bool reverse) {
  llvm::StringRef name = reverse ? "vjp" : "linearize";
  if (expr->args.empty()) {
    error(expr->getBegin()) << name << "() missing argument 'f'";
    return failure();
  }
  if (!expr->keywords.empty()) {
    error(expr->keywords.front().range.begin)
        << name << "() takes the function and its primals by position (" << name
        << "(f, x, y)), got the keyword '" << expr->keywords.front().name
        << "'";
    return failure();
  }
  std::string what = (name + "()").str();
  std::vector<const Expr *> args;
  FailureOr<std::vector<Type>> types = positionalArgs(expr, what, args);
  if (failed(types))
    return failure();
  const Type &f = types->front();
  std::vector<Type> primals(types->begin() + 1, types->end());
  for (size_t i = 0; i < primals.size(); ++i)
    if (!primals[i].hasValues()) {
      error(args[i + 1]->getBegin())
          << name << "()'s primals are tensors or trees of them, got "
          << primals[i].str();
      return failure();
    }
  FailureOr<Specialization *> inner =
      specializeOn(f, primals, expr->getBegin(), what);
  if (failed(inner))
    return failure();
  const Type &value = (*inner)->callType();
  if (!value.hasValues()) {
    error(expr->getBegin()) << name
                            << "() needs a function returning tensors, but it "
                               "returns "
                            << value.str();
    return failure();
  }
  frame->spec->callArgs[expr] = args;
  planOf(expr).primal = *inner;
  return Type::tuple(
      {value.strong(), Type::linear(f, Type::tuple(primals),
                                    reverse ? Type::Jacobian::Reverse
                                            : Type::Jacobian::Forward)});
}

FailureOr<Specialization *>
SemaImpl::linearSpecOf(const Type &linear, const std::vector<Type> &argTypes,
                       Position at,
                       llvm::function_ref<Position(size_t)> argAt) {
  bool reverse = linear.jacobian == Type::Jacobian::Reverse;
  const std::vector<Type> &primals = linear.elements[1].elements;
  std::string what = reverse ? "the vjp function" : "the linearized function";
  FailureOr<Specialization *> inner =
      specializeOn(linear.elements[0], primals, at, what);
  if (failed(inner))
    return failure();
  const Type &value = (*inner)->callType();
  // vjp_fn takes a cotangent of the value; the jvp function a tangent per
  // primal.
  std::vector<Type> expected =
      reverse ? std::vector<Type>{value} : (*inner)->argTypes;
  if (argTypes.size() != expected.size()) {
    error(at) << what << " takes " << expected.size()
              << (reverse ? " cotangent (of the value's type), got "
                          : " tangents (one per primal), got ")
              << argTypes.size();
    return failure();
  }
  for (size_t i = 0; i < expected.size(); ++i)
    if (!tangentFits(expected[i], argTypes[i])) {
      error(argAt(i)) << what << "'s " << (reverse ? "cotangent" : "tangent ")
                      << (reverse ? "" : std::to_string(i)) << " is "
                      << argTypes[i].str() << ", but "
                      << (reverse ? "the value" : "its primal") << " is "
                      << expected[i].str() << ": it takes that type";
      return failure();
    }
  std::string key = (reverse ? "vjp_fn:" : "linearized:") + (*inner)->symbol;
  auto cached = gradCache.find(key);
  if (cached != gradCache.end())
    return cached->second;
  Specialization *s = generatedSpec(
      **inner, key, (*inner)->symbol + (reverse ? ".vjp_fn" : ".linearized"));
  std::vector<Type> strongArgs;
  for (const Type &t : (*inner)->argTypes)
    strongArgs.push_back(t.strong());
  s->argTypes = reverse ? std::vector<Type>{value.strong()} : strongArgs;
  s->resultType = reverse ? Type::tuple(strongArgs) : value.strong();
  // After f's captures: the primals, as f's specialization takes them,
  // and the generator's state.
  s->captureNames.push_back("$primals");
  s->captureTypes.push_back(linear.elements[1]);
  s->captureNames.push_back("$rng_state");
  s->captureTypes.push_back(linear.elements[2]);
  s->linearOf = *inner;
  s->linearReverse = reverse;
  return s;
}

FailureOr<std::vector<Type>>
SemaImpl::positionalArgs(const CallExpr *expr, llvm::StringRef what,
                         std::vector<const Expr *> &resolved) {
  if (!expr->keywords.empty()) {
    error(expr->keywords.front().range.begin)
        << what << " takes its arguments by position";
    return failure();
  }
  std::vector<Type> argTypes;
  for (const ExprPtr &arg : expr->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    argTypes.push_back(*t);
    resolved.push_back(arg.get());
  }
  return argTypes;
}

FailureOr<Specialization *>
SemaImpl::resolveLinearCall(const CallExpr *expr, const Type &linear,
                            std::vector<const Expr *> &resolved) {
  FailureOr<std::vector<Type>> argTypes = positionalArgs(
      expr,
      linear.jacobian == Type::Jacobian::Reverse ? "the vjp function"
                                                 : "the linearized function",
      resolved);
  if (failed(argTypes))
    return failure();
  return linearSpecOf(linear, *argTypes, expr->getBegin(),
                      [&](size_t i) { return expr->args[i]->getBegin(); });
}
