//===- SemaModules.cpp - Scopes of files, imports and classes -------------===//
//
// Every file of a program gets a Scope: its top-level functions, classes
// and constants, and the names its imports bind. Functions see their own
// file's scope (as Python functions see their module's globals); the main
// file's body sees a def or class from its statement on. An imported file
// only defines things: its top level holds defs, classes, imports and
// constants, and no statement runs when it is imported.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

void SemaImpl::collectMainConstants(Scope &scope) {
  llvm::StringMap<int> bindings;
  llvm::StringSet<> &all = scope.topLevelNames;
  collectAssigned(scope.ast->body, all);
  for (const StmtPtr &s : scope.ast->body)
    if (auto *a = dyn_cast<AssignStmt>(s.get()))
      for (const ExprPtr &t : a->targets)
        if (auto *n = dyn_cast<NameExpr>(t.get())) {
          ++bindings[n->name];
          if (isLiteral(a->value.get()))
            scope.constants[n->name] = a->value.get();
        }
  // A name rebound anywhere at top level is a variable, not a constant.
  for (const auto &entry : all)
    if (bindings.lookup(entry.getKey()) != 1)
      scope.constants.erase(entry.getKey());
}

LogicalResult SemaImpl::buildScopes() {
  for (const auto &m : source.modules)
    scopes[m.get()].ast = m.get();
  for (const auto &m : source.modules)
    if (failed(buildScope(scopes[m.get()])))
      return failure();
  // Imports resolve once every file's definitions are known.
  for (const auto &m : source.modules)
    if (failed(bindImports(scopes[m.get()])))
      return failure();
  return success();
}

LogicalResult SemaImpl::bindImports(Scope &scope) {
  const Module &m = *scope.ast;
  auto define = [&](llvm::StringRef name, Position at) -> LogicalResult {
    if (scope.functions.count(name) || scope.classes.count(name) ||
        scope.imports.count(name) || scope.constants.count(name)) {
      error(at, &m) << "'" << name << "' is defined twice in this file";
      return failure();
    }
    return success();
  };
  for (const StmtPtr &s : m.body) {
    if (auto *imp = dyn_cast<ImportStmt>(s.get())) {
      const std::vector<const Module *> &targets = source.imports.lookup(imp);
      for (size_t i = 0; i < imp->names.size(); ++i) {
        const ImportName &n = imp->names[i];
        std::string bound = n.alias.empty() ? n.name : n.alias;
        if (failed(define(bound, n.range.begin)))
          return failure();
        scope.imports[bound] = {&scopes[targets[i]], ""};
      }
      continue;
    }
    auto *from = dyn_cast<FromImportStmt>(s.get());
    if (!from)
      continue;
    const Scope &target = scopes[source.imports.lookup(from).front()];
    for (const ImportName &n : from->names) {
      if (!target.functions.count(n.name) && !target.classes.count(n.name) &&
          !target.constants.count(n.name)) {
        error(n.range.begin, &m)
            << "cannot import '" << n.name << "' from '" << from->module
            << "': it defines no such function, class or constant";
        return failure();
      }
      std::string bound = n.alias.empty() ? n.name : n.alias;
      if (failed(define(bound, n.range.begin)))
        return failure();
      scope.imports[bound] = {&target, n.name};
    }
  }
  return success();
}

LogicalResult SemaImpl::buildScope(Scope &scope) {
  const Module &m = *scope.ast;
  bool imported = &m != &source.main();
  auto define = [&](llvm::StringRef name, Position at) -> LogicalResult {
    if (scope.functions.count(name) || scope.classes.count(name) ||
        (imported && scope.constants.count(name))) {
      error(at, &m) << "'" << name << "' is defined twice in this file";
      return failure();
    }
    return success();
  };
  if (!imported)
    collectMainConstants(scope);
  for (const StmtPtr &s : m.body) {
    if (auto *def = dyn_cast<FuncDef>(s.get())) {
      if (failed(define(def->name, def->namePos)) ||
          failed(checkDecorators(def, &m)))
        return failure();
      scope.functions[def->name] = def;
      defScope[def] = &scope;
      continue;
    }
    if (auto *cls = dyn_cast<ClassDef>(s.get())) {
      if (failed(define(cls->name, cls->getBegin())) ||
          failed(checkClass(cls, &m)))
        return failure();
      scope.classes[cls->name] = cls;
      classScope[cls] = &scope;
      for (const StmtPtr &member : cls->body)
        if (auto *method = dyn_cast<FuncDef>(member.get())) {
          defScope[method] = &scope;
          methodClass[method] = cls;
        }
      continue;
    }
    if (isa<ImportStmt, FromImportStmt>(s.get()))
      continue; // bound by bindImports
    if (!imported)
      continue;
    // An imported file only defines: constants, docstrings, `pass`.
    if (auto *a = dyn_cast<AssignStmt>(s.get())) {
      auto *name = a->targets.size() == 1
                       ? dyn_cast<NameExpr>(a->targets.front().get())
                       : nullptr;
      if (name && isLiteral(a->value.get())) {
        if (failed(define(name->name, name->getBegin())))
          return failure();
        scope.constants[name->name] = a->value.get();
        continue;
      }
    }
    auto *e = dyn_cast<ExprStmt>(s.get());
    if (isa<PassStmt>(s.get()) || (e && isa<StringExpr>(e->value.get())))
      continue;
    error(s->getBegin(), &m)
        << "an imported file only defines names: its top level holds def, "
           "class, import and constants (NAME = literal), and this statement "
           "would never run";
    return failure();
  }
  return success();
}

LogicalResult SemaImpl::checkClass(const ClassDef *cls, const Module *file) {
  if (!cls->decorators.empty()) {
    error(cls->decorators.front().range.begin, file)
        << "decorator '@" << cls->decorators.front().name
        << "' is not supported on a class (a class is already a record)";
    return failure();
  }
  llvm::StringSet<> names;
  bool sawDefault = false;
  for (const StmtPtr &s : cls->body) {
    if (auto *field = dyn_cast<AnnAssignStmt>(s.get())) {
      auto *name = dyn_cast<NameExpr>(field->target.get());
      if (!name) {
        error(field->getBegin(), file) << "a field is a plain name";
        return failure();
      }
      if (!names.insert(name->name).second) {
        error(field->getBegin(), file)
            << "field '" << name->name << "' is declared twice";
        return failure();
      }
      if (field->value && !isLiteral(field->value.get())) {
        error(field->value->getBegin(), file)
            << "a field's default is a literal (a number, a string, a list "
               "of numbers)";
        return failure();
      }
      if (!field->value && sawDefault) {
        error(field->getBegin(), file)
            << "field '" << name->name
            << "' without a default follows a field with one";
        return failure();
      }
      sawDefault |= field->value != nullptr;
      continue;
    }
    if (auto *def = dyn_cast<FuncDef>(s.get())) {
      if (def->name == "__init__") {
        error(def->namePos, file)
            << "a class has no __init__ in TFL: a record's fields are "
               "declared in its body (name: type = default), and "
            << cls->name << "(field=...) builds one";
        return failure();
      }
      if (def->params.empty()) {
        error(def->namePos, file)
            << "method '" << def->name
            << "' needs a first parameter for the record (self)";
        return failure();
      }
      if (def->name == "replace") {
        error(def->namePos, file)
            << "'replace' is the built-in copy-with-changes of every record; "
               "name this method otherwise";
        return failure();
      }
      if (!names.insert(def->name).second) {
        error(def->namePos, file)
            << "'" << def->name << "' is declared twice in class " << cls->name;
        return failure();
      }
      continue;
    }
    auto *e = dyn_cast<ExprStmt>(s.get());
    if (isa<PassStmt>(s.get()) || (e && isa<StringExpr>(e->value.get())))
      continue;
    if (auto *a = dyn_cast<AssignStmt>(s.get())) {
      error(a->getBegin(), file)
          << "a field needs a type annotation (name: type = default)";
      return failure();
    }
    error(s->getBegin(), file)
        << "a class body holds annotated fields and methods";
    return failure();
  }
  return success();
}

std::optional<FailureOr<Type>> SemaImpl::lookupGlobal(const Scope &scope,
                                                      llvm::StringRef name,
                                                      const Expr *use,
                                                      bool ownDefinitions) {
  if (ownDefinitions) {
    if (const FuncDef *def = scope.functions.lookup(name))
      return FailureOr<Type>(Type::function(def));
    if (const ClassDef *cls = scope.classes.lookup(name))
      return FailureOr<Type>(Type::classValue(cls));
    // A module constant, emitted where it is used.
    if (const Expr *c = scope.constants.lookup(name)) {
      FailureOr<Type> t = analyzeExpr(c);
      if (succeeded(t))
        frame->spec->constantUses[use] = c;
      return t;
    }
  }
  auto it = scope.imports.find(name);
  if (it == scope.imports.end())
    return std::nullopt;
  const Scope::Imported &imported = it->second;
  if (imported.member.empty())
    return FailureOr<Type>(Type::moduleValue(imported.from->ast));
  return lookupGlobal(*imported.from, imported.member, use);
}

const ClassDef *SemaImpl::annotatedClass(const Expr *ann, const Scope &scope) {
  if (auto *name = dyn_cast<NameExpr>(ann)) {
    if (const ClassDef *cls = scope.classes.lookup(name->name))
      return cls;
    auto it = scope.imports.find(name->name);
    if (it != scope.imports.end() && !it->second.member.empty())
      return it->second.from->classes.lookup(it->second.member);
    return nullptr;
  }
  auto *attr = dyn_cast<AttributeExpr>(ann);
  auto *base = attr ? dyn_cast<NameExpr>(attr->value.get()) : nullptr;
  if (!base)
    return nullptr;
  auto it = scope.imports.find(base->name);
  if (it == scope.imports.end() || !it->second.member.empty())
    return nullptr;
  return it->second.from->classes.lookup(attr->attr);
}

LogicalResult SemaImpl::checkDecorators(const FuncDef *def,
                                        const Module *file) {
  llvm::StringSet<> seen;
  for (const ast::Decorator &d : def->decorators) {
    if (d.name != "custom_gradient" && d.name != "custom_jvp" &&
        d.name != "export" && d.name != "checkpoint" && d.name != "remat") {
      error(d.range.begin, file)
          << "decorator '@" << d.name << "' is not supported (TFL knows "
          << kKnownDecorators << ")";
      return failure();
    }
    if (!seen.insert(d.name).second) {
      error(d.range.begin, file) << "@" << d.name << " is given twice";
      return failure();
    }
    if (seen.contains("custom_gradient") && seen.contains("custom_jvp")) {
      error(d.range.begin, file)
          << "a function has one custom rule: @custom_gradient or "
             "@custom_jvp, not both";
      return failure();
    }
  }
  return success();
}
