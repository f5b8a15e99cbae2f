//===- SemaExports.cpp - Exported functions of a library ------------------===//
//
// `tflc build --shared`: each function marked `@export` (or named by
// --export) is specialized for the argument types its annotations give,
// as callers from C or Python will pass them; the script's statements do
// not run.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

/// True when a value of type `t` is made of tensors only (what a caller
/// from C or Python passes and gets back).
static bool tensorsOnly(const Type &t) {
  if (t.isTensor())
    return true;
  return t.isTree() && llvm::all_of(t.elements, tensorsOnly);
}

/// Whether annotation dim `d` is `?`: in an export, a batch whose size is
/// given when it is called (the leading dim only).
static bool isBatchDim(const Expr *d) {
  auto *name = dyn_cast<NameExpr>(d);
  return name && name->name == "?";
}

FailureOr<Type> SemaImpl::annotatedType(const Expr *ann, const Scope &scope) {
  if (auto *tuple = dyn_cast<TupleExpr>(ann)) {
    std::vector<Type> elements;
    for (const ExprPtr &e : tuple->elements) {
      FailureOr<Type> t = annotatedType(e.get(), scope);
      if (failed(t))
        return failure();
      elements.push_back(*t);
    }
    return Type::tuple(std::move(elements));
  }
  if (const ClassDef *cls = annotatedClass(ann, scope)) {
    const Scope &clsScope = *classScope.lookup(cls);
    std::vector<Type> fields;
    for (const AnnAssignStmt *field : fieldsOf(*cls)) {
      FailureOr<Type> t = annotatedType(field->annotation.get(), clsScope);
      if (failed(t))
        return failure();
      fields.push_back(*t);
    }
    return Type::record(cls, std::move(fields));
  }
  auto [dtypeName, dtype, dimExprs] = tensorAnnotation(ann);
  if (!dtype) {
    error(ann->getBegin(), scope.ast)
        << "an exported function's parameters are annotated with a dtype "
           "and dims (f32[64, 784]), a class or a tuple of these";
    return failure();
  }
  std::vector<int64_t> shape;
  if (dimExprs)
    for (const ExprPtr &d : *dimExprs) {
      if (isBatchDim(d.get()) && shape.empty()) {
        shape.push_back(kDynamicDim);
        continue;
      }
      std::optional<int64_t> size = intLiteral(d.get());
      // A module constant (`f32[BATCH, 784]`).
      if (auto *name = dyn_cast<NameExpr>(d.get()); name && !size)
        if (const Expr *constant = scope.constants.lookup(name->name))
          size = intLiteral(constant);
      if (!size || *size < 0) {
        error(d->getBegin(), scope.ast)
            << "a dim of an exported function's parameter is an integer or "
               "a module constant"
            << (isBatchDim(d.get())
                    ? "; a size given when it is called ('?') is the "
                      "leading (batch) dim only"
                    : "");
        return failure();
      }
      shape.push_back(*size);
    }
  return Type::tensor(*dtype, std::move(shape));
}

/// The types export(f, ...) exports `def` for: its arguments', a leading
/// `?` of a parameter's annotation making that dim a batch of any size.
FailureOr<std::vector<Type>> SemaImpl::exportArgTypes(const CallExpr *expr,
                                                      const ast::FuncDef *def) {
  std::vector<Type> types;
  for (size_t i = 1; i < expr->args.size(); ++i) {
    FailureOr<Type> t = analyzeExpr(expr->args[i].get());
    if (failed(t))
      return failure();
    if (!tensorsOnly(*t)) {
      error(expr->args[i]->getBegin())
          << "an export's arguments are tensors (or tuples and records of "
             "them), got "
          << t->str();
      return failure();
    }
    types.push_back(t->strong());
    // A parameter annotated with a leading `?` (`images: u8[?, 28, 28, 1]`)
    // takes a batch of any size: its value's leading dim becomes `?`.
    const ast::Param &param = def->params[i - 1];
    if (!param.annotation)
      continue;
    auto [dtypeName, dtype, dimExprs] =
        tensorAnnotation(param.annotation.get());
    if (!dimExprs || dimExprs->empty() ||
        !isBatchDim(dimExprs->front().get()) || !types.back().isTensor() ||
        types.back().rank() == 0)
      continue;
    types.back().shape[0] = kDynamicDim;
    types.back().known.reset();
  }
  return types;
}

FailureOr<Type> SemaImpl::analyzeExportCall(const CallExpr *expr) {
  if (!frame->isScript || frame->controlDepth > 0 ||
      frame->scope->ast != &source.main()) {
    error(expr->getBegin()) << "export() belongs at the top level of the "
                               "program's file";
    return failure();
  }
  if (expr->args.empty()) {
    error(expr->getBegin())
        << "export() takes a function and the arguments whose types it is "
           "exported for: export(f, params, x)";
    return failure();
  }
  std::string name;
  for (const ast::Keyword &kw : expr->keywords) {
    FailureOr<Type> t = analyzeExpr(kw.value.get());
    if (failed(t))
      return failure();
    if (kw.name != "name" || t->kind != Type::Kind::String) {
      error(kw.range.begin) << "export() takes one keyword, name=\"...\" (the "
                               "name callers use)";
      return failure();
    }
    name = t->name;
  }
  FailureOr<Type> fn = analyzeExpr(expr->args[0].get());
  if (failed(fn))
    return failure();
  if (fn->kind != Type::Kind::Function || !fn->captureNames.empty() ||
      fn->boundSelf ||
      scopes[&source.main()].functions.lookup(fn->func->name) != fn->func) {
    error(expr->args[0]->getBegin())
        << "export() exports a function defined at the top level of this "
           "file, got "
        << fn->str();
    return failure();
  }
  const FuncDef *def = fn->func;
  if (expr->args.size() - 1 != def->params.size()) {
    error(expr->getBegin())
        << "export() of " << def->name << " takes " << def->params.size()
        << " arguments after it, got " << expr->args.size() - 1;
    return failure();
  }
  FailureOr<std::vector<Type>> argTypes = exportArgTypes(expr, def);
  if (failed(argTypes))
    return failure();
  if (!options.library)
    return Type::none(); // a program's run: nothing to do
  FailureOr<Specialization *> s =
      specialize(*fn, std::move(*argTypes), expr->getBegin());
  if (failed(s))
    return failure();
  if (!tensorsOnly((*s)->callType())) {
    error(expr->getBegin()) << "exported function " << def->name << " returns "
                            << (*s)->callType().str()
                            << ": an export returns tensors (or tuples and "
                               "records of them)";
    return failure();
  }
  if (name.empty())
    name = def->name;
  for (const Program::Export &e : program->exports)
    if (e.name == name) {
      error(expr->getBegin())
          << "'" << name << "' is exported twice: give one a name=\"...\"";
      return failure();
    }
  std::vector<std::string> params;
  for (const ast::Param &p : def->params)
    params.push_back(p.name);
  program->exports.push_back({name, *s, std::move(params)});
  return Type::none();
}

/// Adds the classes of the records in `t` to `out`, once each, each after
/// those its fields hold.
static void collectClasses(const Type &t, std::vector<const ClassDef *> &out) {
  for (const Type &e : t.elements)
    collectClasses(e, out);
  if (t.kind == Type::Kind::Record && !llvm::is_contained(out, t.cls))
    out.push_back(t.cls);
}

std::vector<const ClassDef *> Program::exportedClasses() const {
  std::vector<const ClassDef *> classes;
  for (const Export &e : exports) {
    for (const Type &t : e.spec->argTypes)
      collectClasses(t, classes);
    collectClasses(e.spec->callType(), classes);
  }
  return classes;
}

LogicalResult SemaImpl::checkExportedClassNames() {
  // The C header's structs and the Python module's loaders are named by
  // class: two classes of one name (from two modules) would clash there.
  std::vector<const ClassDef *> classes = program->exportedClasses();
  for (size_t i = 0; i < classes.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      if (classes[i]->name != classes[j]->name)
        continue;
      const Module *first = classScope.lookup(classes[j])->ast;
      const Module *second = classScope.lookup(classes[i])->ast;
      auto diag = error(classes[i]->getBegin(), second)
                  << "the exports take or return records of two classes "
                     "named '"
                  << classes[i]->name
                  << "': a library's C and Python APIs name a record by its "
                     "class, so rename one of them";
      note(diag, classes[j]->getBegin(), first) << "the other class";
      return failure();
    }
  return success();
}

LogicalResult SemaImpl::analyzeExports() {
  const Scope &main = scopes[&source.main()];
  std::vector<const FuncDef *> defs;
  for (const StmtPtr &s : source.main().body)
    if (auto *def = dyn_cast<FuncDef>(s.get()))
      if (llvm::any_of(def->decorators, [](const ast::Decorator &d) {
            return d.name == "export";
          }))
        defs.push_back(def);
  for (const std::string &name : options.exportNames) {
    const FuncDef *def = main.functions.lookup(name);
    if (!def) {
      mlir::emitError(
          mlir::FileLineColLoc::get(ctx, source.main().fileName, 1, 1))
          << "--export names '" << name
          << "', which is not a function defined in this file";
      return failure();
    }
    if (!llvm::is_contained(defs, def))
      defs.push_back(def);
  }
  if (defs.empty() && program->exports.empty()) {
    mlir::emitError(
        mlir::FileLineColLoc::get(ctx, source.main().fileName, 1, 1))
        << "a library exports functions: mark them with @export (or name "
           "them with --export f,g), or export(f, args...) them for the "
           "types of values";
    return failure();
  }
  for (const FuncDef *def : defs) {
    std::vector<Type> argTypes;
    std::vector<std::string> params;
    for (const ast::Param &p : def->params) {
      if (!p.annotation) {
        error(p.range.begin)
            << "parameter '" << p.name << "' of exported function " << def->name
            << " needs a type annotation: its callers pass tensors of the "
               "types it gives (f32[64, 784])";
        return failure();
      }
      FailureOr<Type> t = annotatedType(p.annotation.get(), main);
      if (failed(t))
        return failure();
      argTypes.push_back(*t);
      params.push_back(p.name);
    }
    FailureOr<Specialization *> s =
        specialize(Type::function(def), std::move(argTypes), def->namePos);
    if (failed(s))
      return failure();
    for (const Program::Export &e : program->exports)
      if (e.name == def->name) {
        error(def->namePos) << "'" << def->name << "' is exported twice";
        return failure();
      }
    const Type &result = (*s)->callType();
    if (!tensorsOnly(result)) {
      error(def->namePos) << "exported function " << def->name << " returns "
                          << result.str()
                          << ": an export returns tensors (or tuples and "
                             "records of them)";
      return failure();
    }
    program->exports.push_back({def->name, *s, std::move(params)});
  }
  return checkExportedClassNames();
}
