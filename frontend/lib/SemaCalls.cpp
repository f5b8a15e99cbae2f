//===- SemaCalls.cpp - Calls, annotations, specializations ----------------===//
//
// Resolving a call to its callee, matching arguments to parameters,
// checking annotations, and analyzing one specialization per tuple of
// argument types (monomorphization), with recursion as an error.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

FailureOr<Type> SemaImpl::analyzeCall(const CallExpr *expr) {
  if (auto *attr = dyn_cast<AttributeExpr>(expr->callee.get());
      attr && tensorMethods().contains(attr->attr)) {
    FailureOr<Type> receiver = analyzeExpr(attr->value.get());
    if (failed(receiver))
      return failure();
    if (receiver->isTensor())
      return analyzeTensorMethod(expr, attr);
  }
  FailureOr<Type> callee = analyzeExpr(expr->callee.get());
  if (failed(callee))
    return failure();
  std::optional<Builtin> builtin = callee->kind == Type::Kind::Builtin
                                       ? Builtin::named(callee->name)
                                       : std::nullopt;
  if (builtin && builtin->is(StatementBuiltin::Print))
    return analyzePrint(expr);
  if (builtin && builtin->is(StatementBuiltin::Breakpoint))
    return analyzeBreakpoint(expr);
  if (builtin && builtin->is(StatementBuiltin::Export))
    return analyzeExportCall(expr);
  if (callee->kind == Type::Kind::Builtin && callee->name == "replace") {
    auto *attr = dyn_cast<AttributeExpr>(expr->callee.get());
    if (!attr) {
      error(expr->getBegin()) << "call replace() on its record: p.replace(...)";
      return failure();
    }
    return analyzeReplace(expr, typeOf(attr->value.get()));
  }
  if (builtin) {
    frame->spec->builtinCalls.insert_or_assign(expr, BuiltinPlan(*builtin));
    return analyzeBuiltin(expr, *builtin);
  }
  if (callee->isCallableValue())
    return analyzeUserCall(expr, *callee);
  if (callee->kind == Type::Kind::Class)
    return analyzeConstruct(expr, callee->cls);

  if (callee->kind == Type::Kind::Record) {
    // A record with __call__ is callable: `model(x)`.
    if (const FuncDef *call = ast::methodOf(*callee->cls, "__call__"))
      return analyzeUserCall(expr, Type::boundMethod(call, *callee));
    error(expr->getBegin()) << "a " << callee->cls->name
                            << " record is not callable: its class defines "
                               "no __call__ method";
    return failure();
  }
  // x.size is NumPy's element count; PyTorch's x.size(d) is a method.
  if (auto *attr = dyn_cast<AttributeExpr>(expr->callee.get());
      attr && attr->attr == "size" && typeOf(attr->value.get()).isTensor()) {
    error(expr->getBegin())
        << "x.size is the number of elements (NumPy's), an integer, not a "
           "method: PyTorch's x.size() is x.shape in TFL, and x.size(d) is "
           "x.shape[d]";
    return failure();
  }
  error(expr->getBegin()) << "'" << callee->str() << "' is not callable";
  return failure();
}

TensorAnnotation tfl::sema::tensorAnnotation(const Expr *ann) {
  const Expr *dtypeExpr = ann;
  const std::vector<ExprPtr> *dims = nullptr;
  if (auto *sub = dyn_cast<SubscriptExpr>(ann)) {
    dtypeExpr = sub->value.get();
    dims = &sub->indices;
  }
  auto *name = dyn_cast<NameExpr>(dtypeExpr);
  return {name, name ? dtypeNamed(name->name) : std::nullopt, dims};
}

LogicalResult SemaImpl::checkAnnotation(const Expr *ann, const Type &actual,
                                        DimBindings &dims, llvm::StringRef what,
                                        Position at, Type &adjusted,
                                        const Scope *scope,
                                        const Module *atFile) {
  if (!scope)
    scope = frame->scope;
  if (!atFile)
    atFile = frame->scope->ast;
  adjusted = actual;
  auto mismatch = [&](llvm::StringRef detail) {
    mlir::InFlightDiagnostic diag = error(at, atFile);
    diag << what << " is " << actual.str()
         << ", but its annotation says otherwise: " << detail;
    Position annAt = ann->getBegin();
    if (scope->ast != atFile || annAt.line != at.line)
      note(diag, annAt, scope->ast) << "annotated here";
    return failure();
  };
  if (auto *tuple = dyn_cast<TupleExpr>(ann)) {
    if (actual.kind != Type::Kind::Tuple ||
        actual.elements.size() != tuple->elements.size())
      return mismatch("a tuple of " + std::to_string(tuple->elements.size()));
    for (size_t i = 0; i < tuple->elements.size(); ++i)
      if (failed(checkAnnotation(tuple->elements[i].get(), actual.elements[i],
                                 dims, what, at, adjusted.elements[i], scope,
                                 atFile)))
        return failure();
    return success();
  }
  if (isa<NoneExpr>(ann))
    return actual.kind == Type::Kind::None ? success() : mismatch("None");
  // A class name (`Dense`, `nn.Dense`): a record of that class.
  if (const ClassDef *cls = annotatedClass(ann, *scope)) {
    if (actual.kind != Type::Kind::Record || actual.cls != cls)
      return mismatch("a " + cls->name + " record");
    return success();
  }
  // `Any`, as in Python's typing: a value of any type (an optimizer's
  // state holds a tree shaped like the parameters, whatever they are).
  if (auto *name = dyn_cast<NameExpr>(ann); name && name->name == "Any")
    return success();
  auto [dtypeName, dtype, dimExprs] = tensorAnnotation(ann);
  if (!dtype) {
    error(ann->getBegin(), scope->ast)
        << "invalid type annotation: write a dtype (f32, "
           "i64, ...), optionally with dims (f32[N, 28, ?]), a class, "
           "Any, or a tuple of these";
    return failure();
  }
  if (!actual.isTensor())
    return mismatch(dtypeName->name);
  bool widened = options.f64PassesF32 && *dtype == DType::F32 &&
                 actual.dtype == DType::F64;
  if (actual.dtype != *dtype && !widened) {
    bool literalFits =
        actual.weak && (isFloat(*dtype) || !isFloat(actual.dtype));
    if (!literalFits)
      return mismatch("dtype " + dtypeName->name);
    adjusted.dtype = *dtype;
    adjusted.weak = false;
  }
  size_t rank = dimExprs ? dimExprs->size() : 0;
  if (actual.rank() != static_cast<int64_t>(rank))
    return mismatch(std::to_string(rank) + " dims");
  for (size_t i = 0; i < rank; ++i) {
    const Expr *d = (*dimExprs)[i].get();
    int64_t size = actual.shape[i];
    if (std::optional<int64_t> v = intLiteral(d)) {
      if (*v != size)
        return mismatch("dim " + std::to_string(i) + " is " +
                        std::to_string(*v));
      continue;
    }
    auto *name = dyn_cast<NameExpr>(d);
    if (!name) {
      error(d->getBegin(), scope->ast)
          << "a dim in a type annotation is an integer, '?' or a name";
      return failure();
    }
    if (name->name == "?")
      continue;
    auto [it, inserted] =
        dims.try_emplace(name->name, DimBinding{size, at, atFile});
    if (!inserted && it->second.size != size) {
      mlir::InFlightDiagnostic diag = error(at, atFile);
      diag << what << " is " << actual.str() << ", but its dim " << name->name
           << " is " << it->second.size << " elsewhere in the signature";
      note(diag, it->second.at, it->second.file)
          << name->name << " is " << it->second.size << " here";
      return failure();
    }
  }
  return success();
}

FailureOr<Type> SemaImpl::analyzeUserCall(const CallExpr *expr,
                                          const Type &callee) {
  std::vector<const Expr *> args;
  FailureOr<Specialization *> spec = resolveUserCall(expr, callee, args);
  if (failed(spec))
    return failure();
  frame->spec->callees[expr] = *spec;
  frame->spec->callArgs[expr] = std::move(args);
  return (*spec)->callType();
}

FailureOr<std::vector<const Expr *>>
SemaImpl::matchUserArgs(const CallExpr *expr, const FuncDef *def,
                        llvm::ArrayRef<Param> params) {
  size_t numParams = params.size();
  std::vector<const Expr *> args(numParams, nullptr);
  if (expr->args.size() > numParams) {
    error(expr->getBegin())
        << def->name << "() takes " << numParams << " positional argument"
        << (numParams == 1 ? "" : "s") << " but " << expr->args.size()
        << " were given";
    return failure();
  }
  for (size_t i = 0; i < expr->args.size(); ++i)
    args[i] = expr->args[i].get();
  for (const Keyword &kw : expr->keywords) {
    auto it = llvm::find_if(params,
                            [&](const Param &p) { return p.name == kw.name; });
    if (it == params.end()) {
      error(kw.range.begin)
          << def->name << "() got an unexpected keyword argument '" << kw.name
          << "'";
      return failure();
    }
    size_t index = it - params.begin();
    if (args[index]) {
      error(kw.range.begin)
          << def->name << "() got multiple values for argument '" << kw.name
          << "'";
      return failure();
    }
    args[index] = kw.value.get();
  }
  for (size_t i = 0; i < numParams; ++i) {
    if (args[i])
      continue;
    if (params[i].defaultValue) {
      args[i] = params[i].defaultValue.get();
      continue;
    }
    error(expr->getBegin()) << def->name << "() missing required argument '"
                            << params[i].name << "'";
    return failure();
  }
  return args;
}

FailureOr<Specialization *>
SemaImpl::resolveUserCall(const CallExpr *expr, const Type &callee,
                          std::vector<const Expr *> &resolved) {
  if (callee.kind == Type::Kind::Grad)
    return resolveGradCall(expr, callee, resolved);
  if (callee.kind == Type::Kind::Vmap)
    return resolveVmapCall(expr, callee, resolved);
  if (callee.kind == Type::Kind::Checkpoint)
    return checkpointSpecOf(
        resolveUserCall(expr, callee.elements.front(), resolved));
  if (callee.kind == Type::Kind::Linear)
    return resolveLinearCall(expr, callee, resolved);
  const FuncDef *def = callee.func;
  // Arguments to parameters; a bound method's receiver is the first one.
  size_t self = callee.boundSelf ? 1 : 0;
  llvm::ArrayRef<Param> params = llvm::ArrayRef(def->params).drop_front(self);
  size_t numParams = params.size();
  FailureOr<std::vector<const Expr *>> matched =
      matchUserArgs(expr, def, params);
  if (failed(matched))
    return failure();
  std::vector<const Expr *> &args = *matched;

  // A top-level function's (or method's) defaults read its own file's
  // names, as Python evaluates them where the def is; a nested def's read
  // the enclosing function's, which is where it is called from.
  const Scope *home = defScope.lookup(def);
  bool topLevel =
      methodClass.count(def) || home->functions.lookup(def->name) == def;
  auto analyzeArg = [&](size_t i) -> FailureOr<Type> {
    if (!topLevel || args[i] != params[i].defaultValue.get())
      return analyzeExpr(args[i]);
    Frame defaults{frame->spec, {}, std::nullopt, false};
    defaults.scope = home;
    Frame *caller = frame;
    frame = &defaults;
    FailureOr<Type> t = analyzeExpr(args[i]);
    frame = caller;
    return t;
  };
  std::vector<Type> argTypes;
  for (size_t i = 0; i < numParams; ++i) {
    FailureOr<Type> t = analyzeArg(i);
    if (failed(t))
      return failure();
    // Strings, like functions, are compile-time values: the callee
    // specializes on them.
    if (!t->hasValues() && !t->isCallableValue() &&
        t->kind != Type::Kind::String && t->kind != Type::Kind::RuntimeString) {
      error(args[i]->getBegin())
          << "argument '" << params[i].name << "' of " << def->name << "() is "
          << t->str() << "; passing non-tensor values is not supported yet";
      return failure();
    }
    // A literal argument stays weak inside the callee (as JAX's Python
    // scalars do), so `scale(x, factor=2)` keeps x's dtype.
    argTypes.push_back(*t);
  }
  // Annotated parameters are checked (named dims agree across them).
  DimBindings dims;
  for (size_t i = 0; i < numParams; ++i) {
    const ExprPtr &ann = params[i].annotation;
    if (!ann)
      continue;
    Type adjusted;
    if (failed(checkAnnotation(
            ann.get(), argTypes[i], dims,
            "argument '" + params[i].name + "' of " + def->name + "()",
            args[i]->getBegin(), adjusted, defScope.lookup(def))))
      return failure();
    argTypes[i] = adjusted;
  }
  Type target = callee;
  if (callee.boundSelf) {
    argTypes.insert(argTypes.begin(), callee.elements.front());
    target = Type::function(def);
  }
  resolved = std::move(args);
  return checkpointIfDecorated(
      def, specialize(target, std::move(argTypes), expr->getBegin()));
}

/// True when every leaf of `t` is a float tensor.
static bool allFloat(const Type &t) {
  if (t.isTensor())
    return isFloat(t.dtype);
  return t.isTree() && llvm::all_of(t.elements, allFloat);
}

/// True when `a` and `b` are trees of one structure (same tuple lengths,
/// same classes) whose leaves are all tensors.
static bool sameStructure(const Type &a, const Type &b) {
  if (a.isTensor() || b.isTensor())
    return a.isTensor() && b.isTensor();
  if (a.kind != b.kind || !a.isTree() || a.cls != b.cls ||
      a.elements.size() != b.elements.size())
    return false;
  for (size_t i = 0; i < a.elements.size(); ++i)
    if (!sameStructure(a.elements[i], b.elements[i]))
      return false;
  return true;
}

/// Appends the tensor leaves of `t`, in flattened order; false when `t`
/// holds a value that is neither a tensor nor a tree.
static bool collectLeaves(const Type &t, std::vector<Type> &out) {
  if (t.isTensor()) {
    out.push_back(t);
    return true;
  }
  if (!t.isTree())
    return false;
  return llvm::all_of(t.elements,
                      [&](const Type &e) { return collectLeaves(e, out); });
}

/// `t` with its leaves replaced, in order, by `leaves` from `next` on.
static Type rebuildTree(const Type &t, llvm::ArrayRef<Type> leaves,
                        size_t &next) {
  if (t.isTensor())
    return leaves[next++];
  Type out = t;
  for (Type &e : out.elements)
    e = rebuildTree(e, leaves, next);
  return out;
}

FailureOr<Type> SemaImpl::analyzeTreeLeaves(const CallExpr *expr) {
  if (expr->args.size() != 1 || !expr->keywords.empty()) {
    error(expr->getBegin()) << "tree_leaves(tree) takes one tree";
    return failure();
  }
  FailureOr<Type> tree = analyzeExpr(expr->args[0].get());
  if (failed(tree))
    return failure();
  std::vector<Type> leaves;
  if (!collectLeaves(*tree, leaves)) {
    error(expr->args[0]->getBegin())
        << "tree_leaves() takes a tree of tensors, got " << tree->str();
    return failure();
  }
  return Type::tuple(std::move(leaves));
}

FailureOr<Type> SemaImpl::analyzeTreeMap(const CallExpr *expr) {
  if (expr->args.size() < 2 || !expr->keywords.empty()) {
    error(expr->getBegin()) << "tree_map(fn, tree, *rest) takes a function "
                               "and one or more trees, by position";
    return failure();
  }
  FailureOr<Type> fn = analyzeExpr(expr->args[0].get());
  if (failed(fn))
    return failure();
  Type callee = *fn;
  if (callee.kind == Type::Kind::Record)
    if (const FuncDef *call = ast::methodOf(*callee.cls, "__call__"))
      callee = Type::boundMethod(call, callee);
  if (callee.kind != Type::Kind::Function) {
    error(expr->args[0]->getBegin())
        << "tree_map()'s first argument must be a function (a def, a "
           "lambda or a callable record), got "
        << fn->str();
    return failure();
  }
  std::vector<std::vector<Type>> leaves;
  FailureOr<Type> first = treeMapLeaves(expr, leaves);
  if (failed(first))
    return failure();
  const FuncDef *def = callee.func;
  size_t self = callee.boundSelf ? 1 : 0;
  size_t numTrees = leaves.size();
  if (def->params.size() - self != numTrees) {
    error(expr->args[0]->getBegin())
        << "tree_map() calls " << def->name << "() with one leaf of each of "
        << numTrees << " tree" << (numTrees == 1 ? "" : "s")
        << ", but it takes " << def->params.size() - self << " argument"
        << (def->params.size() - self == 1 ? "" : "s");
    return failure();
  }
  std::vector<Specialization *> specs;
  std::vector<Type> results;
  for (size_t i = 0; i < leaves.front().size(); ++i) {
    FailureOr<Specialization *> s = treeMapLeafCall(expr, callee, leaves, i);
    if (failed(s))
      return failure();
    specs.push_back(*s);
    results.push_back((*s)->callType());
  }
  planOf(expr).treeMap = std::move(specs);
  size_t next = 0;
  return rebuildTree(*first, results, next);
}

FailureOr<Type>
SemaImpl::treeMapLeaves(const CallExpr *expr,
                        std::vector<std::vector<Type>> &leaves) {
  std::optional<Type> first;
  for (size_t k = 1; k < expr->args.size(); ++k) {
    const Expr *arg = expr->args[k].get();
    FailureOr<Type> tree = analyzeExpr(arg);
    if (failed(tree))
      return failure();
    leaves.emplace_back();
    if (!collectLeaves(*tree, leaves.back())) {
      error(arg->getBegin())
          << "tree_map() maps over trees of tensors, got " << tree->str();
      return failure();
    }
    if (!first) {
      first = *tree;
      continue;
    }
    if (!sameStructure(*first, *tree)) {
      error(arg->getBegin())
          << "tree_map()'s trees must have one structure, but " << first->str()
          << " and " << tree->str() << " differ";
      return failure();
    }
  }
  return *first;
}

FailureOr<Specialization *>
SemaImpl::treeMapLeafCall(const CallExpr *expr, const Type &callee,
                          const std::vector<std::vector<Type>> &leaves,
                          size_t i) {
  const FuncDef *def = callee.func;
  size_t self = callee.boundSelf ? 1 : 0;
  std::vector<Type> argTypes;
  DimBindings dims;
  for (size_t k = 0; k < leaves.size(); ++k) {
    Type t = leaves[k][i];
    if (const ExprPtr &ann = def->params[k + self].annotation) {
      Type adjusted;
      if (failed(checkAnnotation(
              ann.get(), t, dims,
              "argument '" + def->params[k + self].name + "' of " + def->name +
                  "() (a leaf of tree_map()'s tree " + std::to_string(k + 1) +
                  ")",
              expr->args[k + 1]->getBegin(), adjusted, defScope.lookup(def))))
        return failure();
      t = adjusted;
    }
    argTypes.push_back(t);
  }
  if (callee.boundSelf)
    argTypes.insert(argTypes.begin(), callee.elements.front());
  Type target = callee.boundSelf ? Type::function(def) : callee;
  FailureOr<Specialization *> s =
      specialize(target, std::move(argTypes), expr->getBegin());
  if (failed(s))
    return failure();
  if (!(*s)->callType().hasValues()) {
    error(expr->args[0]->getBegin())
        << "tree_map() needs " << def->name
        << "() to return a tensor or a tree, but it returns "
        << (*s)->callType().str();
    return failure();
  }
  return s;
}

FailureOr<Specialization *>
SemaImpl::resolveGradCall(const CallExpr *expr, const Type &grad,
                          std::vector<const Expr *> &resolved) {
  const Type &inner = grad.elements.front();
  if (inner.boundSelf) {
    error(expr->getBegin()) << "grad() of a bound method is not supported "
                               "yet; differentiate a function of the record";
    return failure();
  }
  FailureOr<Specialization *> innerSpec =
      resolveUserCall(expr, inner, resolved);
  if (failed(innerSpec))
    return failure();
  return gradSpecOf(grad, *innerSpec, expr->getBegin(),
                    [&](size_t a) { return resolved[a]->getBegin(); });
}

FailureOr<Specialization *>
SemaImpl::gradSpecOf(const Type &grad, Specialization *f, Position at,
                     llvm::function_ref<Position(size_t)> argAt) {
  if (grad.jacobian != Type::Jacobian::None)
    return jacobianSpecOf(grad, f, at, argAt);
  const Type &value = f->callType();
  std::string name = grad.withValue ? "value_and_grad" : "grad";
  if (!value.isScalar() || !isFloat(value.dtype)) {
    error(at) << name << "() needs a function returning a float "
              << "scalar, but it returns " << value.str();
    return failure();
  }
  // The flattened operands of each argument.
  std::vector<size_t> firstLeaf;
  size_t next = 0;
  for (const Type &t : f->argTypes) {
    firstLeaf.push_back(next);
    next += t.leafCount();
  }
  std::vector<int64_t> flat;
  std::vector<Type> grads;
  for (int64_t a : grad.argnums) {
    if (failed(checkArgnum(name, a, *f, at)))
      return failure();
    const Type &t = f->argTypes[a];
    if (!allFloat(t)) {
      error(argAt(static_cast<size_t>(a)))
          << name << "() with respect to an argument of type " << t.str()
          << ": gradients are taken with respect to float tensors only";
      return failure();
    }
    for (size_t k = 0; k < t.leafCount(); ++k)
      flat.push_back(static_cast<int64_t>(firstLeaf[a] + k));
    grads.push_back(t.strong());
  }
  Type result = grad.argnumsTuple ? Type::tuple(grads) : grads.front();
  if (grad.withValue)
    result = Type::tuple({value.strong(), result});

  std::string key = "grad:" + f->symbol + ":" + (grad.withValue ? "v" : "") +
                    (grad.argnumsTuple ? "t" : "");
  for (int64_t a : grad.argnums)
    key += "_" + std::to_string(a);
  auto cached = gradCache.find(key);
  if (cached != gradCache.end())
    return cached->second;
  std::string symbol =
      f->symbol + (grad.withValue ? ".value_and_grad" : ".grad");
  for (int64_t a : grad.argnums)
    symbol += "_" + std::to_string(a);
  Specialization *s = generatedSpec(*f, key, std::move(symbol));
  s->gradOf = f;
  s->resultType = result;
  s->gradArgnums = std::move(flat);
  s->gradWithValue = grad.withValue;
  return s;
}

std::string SemaImpl::symbolOf(const Specialization &sp) {
  const Specialization *s = &sp;
  const FuncDef *def = s->def;
  const std::vector<Type> &argTypes = s->argTypes;
  // Symbols are unique per file and class: `nn.Dense.__call___f32x3`.
  std::string symbol = def->name == "<lambda>" ? "lambda" : def->name;
  if (const ClassDef *cls = methodClass.lookup(def))
    symbol = cls->name + "." + symbol;
  if (!s->module->name.empty())
    symbol = s->module->name + "." + symbol;
  for (const Type &t : argTypes)
    symbol += "_" + t.mangle();
  if (!s->captureTypes.empty()) {
    symbol += "_closure";
    for (const Type &t : s->captureTypes)
      symbol += "_" + t.mangle();
  }
  // Two lambdas, or nested defs of one name in different functions, may
  // specialize on the same types: the later ones are told apart by where
  // they are defined.
  auto [owner, fresh] = symbolOwners.try_emplace(symbol, def);
  if (!fresh && owner->second != def)
    symbol += "_L" + std::to_string(def->namePos.line) + "C" +
              std::to_string(def->namePos.col);
  return symbol;
}

LogicalResult SemaImpl::checkResultAnnotation(const Specialization &s,
                                              Position callPos,
                                              const Scope *scope) {
  const FuncDef *def = s.def;
  DimBindings dims;
  for (size_t i = 0; i < s.argTypes.size(); ++i)
    if (def->params[i].annotation) {
      Type ignored;
      (void)checkAnnotation(def->params[i].annotation.get(), s.argTypes[i],
                            dims, "", callPos, ignored, scope);
    }
  Type adjusted;
  if (failed(checkAnnotation(def->returns.get(), s.resultType, dims,
                             "the result of " + def->name + "()",
                             def->returns->getBegin(), adjusted, scope,
                             scope->ast)))
    return failure();
  return success();
}

FailureOr<Specialization *> SemaImpl::specialize(const Type &calleeType,
                                                 std::vector<Type> argTypes,
                                                 Position callPos) {
  const FuncDef *def = calleeType.func;
  std::string key;
  for (const Type &t : argTypes)
    key += t.mangle() + (t.weak ? "~weak;" : ";");
  for (const Type &t : calleeType.elements)
    key += "capture:" + t.mangle() + (t.weak ? "~weak;" : ";");
  auto cached = cache.find({def, key});
  if (cached != cache.end()) {
    if (llvm::is_contained(inProgress, cached->second)) {
      std::string cycle;
      auto start = llvm::find(inProgress, cached->second);
      for (auto it = start; it != inProgress.end(); ++it)
        cycle += (*it)->def->name + " -> ";
      error(callPos) << "recursion is not supported: " << cycle << def->name;
      return failure();
    }
    return cached->second;
  }
  // A call of a function from itself with other types each time (an
  // integer known at compile time counting down) would specialize
  // without end: both branches of an `if` are analyzed, even one whose
  // condition is known.
  constexpr int64_t kMaxNesting = 64;
  if (llvm::count_if(inProgress, [&](Specialization *p) {
        return p->def == def;
      }) >= kMaxNesting) {
    error(callPos) << "recursion is not supported: " << def->name
                   << " calls itself " << kMaxNesting
                   << " deep with other argument types each time (both "
                      "branches of an 'if' are analyzed, even one whose "
                      "condition is known at compile time)";
    return failure();
  }

  auto spec = std::make_unique<Specialization>();
  Specialization *s = spec.get();
  s->def = def;
  s->argTypes = argTypes;
  s->captureNames = calleeType.captureNames;
  s->captureTypes = calleeType.elements;
  s->module = defScope.lookup(def)->ast;
  s->symbol = symbolOf(*s);
  program->specializations.push_back(std::move(spec));
  cache[{def, key}] = s;

  Frame callee{s, {}, std::nullopt, false};
  callee.scope = defScope.lookup(def);
  for (size_t i = 0; i < s->captureNames.size(); ++i)
    callee.vars[s->captureNames[i]] = s->captureTypes[i];
  for (size_t i = 0; i < argTypes.size(); ++i)
    callee.vars[def->params[i].name] = argTypes[i];
  Frame *caller = frame;
  // Errors in the callee, its result's annotation included, note the call.
  callStack.push_back({s, callPos, caller->scope->ast});
  llvm::scope_exit popCall([&] { callStack.pop_back(); });
  frame = &callee;
  inProgress.push_back(s);
  LogicalResult result = analyzeBlock(def->body);
  inProgress.pop_back();
  frame = caller;
  if (failed(result))
    return failure();
  s->resultType = callee.returnType.value_or(Type::none());
  for (const ast::Decorator &d : def->decorators)
    if ((d.name == "custom_gradient" || d.name == "custom_jvp") &&
        failed(analyzeCustomRule(s, def->namePos, d.name == "custom_jvp")))
      return failure();
  if (def->returns && failed(checkResultAnnotation(*s, callPos, callee.scope)))
    return failure();
  return s;
}

FailureOr<Type> SemaImpl::analyzeGradBuiltin(const CallExpr *expr,
                                             llvm::StringRef name) {
  if (name == "stop_gradient") {
    FailureOr<std::vector<const Expr *>> args =
        matchBuiltinArgs(expr, name, {"x"}, 1);
    if (failed(args))
      return failure();
    FailureOr<Type> x = analyzeExpr(args->front());
    if (failed(x))
      return failure();
    if (!x->isTensor()) {
      error(args->front()->getBegin())
          << "stop_gradient() takes a tensor, got " << x->str();
      return failure();
    }
    coerce(args->front(), x->dtype);
    return x->strong();
  }
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"f", "argnums"}, 1);
  if (failed(args))
    return failure();
  FailureOr<Type> f = analyzeExpr(args->front());
  if (failed(f))
    return failure();
  if (!f->isCallableValue()) {
    error(args->front()->getBegin())
        << name << "() differentiates a function, got " << f->str();
    return failure();
  }
  std::vector<int64_t> argnums = {0};
  bool tuple = false;
  if (const Expr *a = (*args)[1]) {
    tuple = isa<TupleExpr, ListExpr>(a);
    std::optional<std::vector<int64_t>> v = constInts(a);
    if (!v || v->empty()) {
      error(a->getBegin()) << name << "()'s argnums must be an integer known "
                           << "at compile time, or a tuple of them";
      return failure();
    }
    argnums = *v;
  }
  using Jacobian = Type::Jacobian;
  if (name == "hessian") // jacfwd(jacrev(f)), as JAX's
    return Type::grad(Type::grad(*f, argnums, tuple, false, Jacobian::Reverse),
                      argnums, tuple, false, Jacobian::Forward);
  Jacobian jacobian = name == "jacfwd"   ? Jacobian::Forward
                      : name == "jacrev" ? Jacobian::Reverse
                                         : Jacobian::None;
  return Type::grad(*f, argnums, tuple, name == "value_and_grad", jacobian);
}
