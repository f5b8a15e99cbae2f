//===- SemaStatements.cpp - Types through a block's statements ------------===//
//
// A block's statements in order: assignments bind their targets (tuples
// unpacked), a return fixes the function's result type (every return
// giving the same one), `with device(...)` records its block's device, and
// a def, a class or an import binds its name. After a statement that may
// leave a loop or the function (a break, continue or return inside it),
// the rest of the block is guarded: it runs only when control did not
// leave, and yields what it rebinds. `if` and the loops are SemaControl.cpp's.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

LogicalResult SemaImpl::analyzeBlock(const Block &block, size_t from) {
  for (size_t i = from; i < block.size(); ++i) {
    const Stmt *stmt = block[i].get();
    if (options.debugPoints)
      recordDebugScope(stmt);
    if (failed(analyzeStmt(stmt)) || literalOutOfRange)
      return failure();
    bool exits =
        (frame->loopDepth > 0 && mayExitLoop(stmt)) ||
        (!frame->isScript && (mayReturn(stmt) || (frame->controlDepth > 0 &&
                                                  isa<ReturnStmt>(stmt))));
    if (!exits || i + 1 == block.size())
      continue;
    if (isa<ReturnStmt>(stmt))
      continue; // the rest of the block never runs (and is not emitted)
    if (isa<BreakStmt, ContinueStmt>(stmt)) {
      error(block[i + 1]->getBegin())
          << "unreachable code after '"
          << (isa<BreakStmt>(stmt) ? "break" : "continue") << "'";
      return failure();
    }
    // The rest of the block runs only when the loop did not exit here: it
    // is guarded, and yields what it rebinds (an scf.if in MLIRGen).
    llvm::StringMap<Type> before = frame->vars;
    llvm::StringMap<Position> beforeBound = frame->bound;
    llvm::StringSet<> beforeCond = frame->conditional;
    llvm::StringSet<> assigned;
    for (size_t k = i + 1; k < block.size(); ++k)
      ast::collectAssigned(block[k].get(), assigned);
    std::vector<std::string> names;
    for (const auto &e : assigned)
      names.push_back(e.getKey().str());
    llvm::sort(names);
    if (failed(analyzeBlock(block, i + 1)))
      return failure();
    std::vector<CarriedVar> yielded;
    for (const std::string &name : names) {
      if (!frame->vars.count(name) || frame->conditional.contains(name))
        continue;
      Type after = frame->vars[name];
      if (before.count(name) && !beforeCond.contains(name)) {
        const Type &prior = before[name];
        if (prior.strong() != after.strong()) {
          Position rebound = frame->bound.lookup(name);
          mlir::InFlightDiagnostic diag =
              error(rebound.line ? rebound : block[i + 1]->getBegin());
          diag << "'" << name << "' changes type after a possible 'break' or "
               << "'continue': " << prior.str() << " before, " << after.str()
               << " after";
          note(diag, stmt->getBegin())
              << "the rest of the block may not run after this statement "
                 "(a 'break', 'continue' or 'return' in it)";
          if (auto at = beforeBound.find(name); at != beforeBound.end())
            note(diag, at->second)
                << "'" << name << "' is " << prior.str() << " here";
          return failure();
        }
        if (prior != after) {
          // A literal stays weak, but a value known before is not known
          // after a rest that may not run.
          after = prior.weak && after.weak ? prior : after.strong();
          after.known.reset();
        }
        frame->vars[name] = after;
      }
      if (after.hasValues())
        yielded.push_back({name, after});
    }
    frame->spec->guards[stmt] = std::move(yielded);
    return success();
  }
  return success();
}

LogicalResult SemaImpl::bindTarget(const Expr *target, const Type &type) {
  if (auto *name = dyn_cast<NameExpr>(target)) {
    // Rebinding a function's or a class's name would make calls ambiguous.
    const Scope &scope = *frame->scope;
    if (scope.functions.count(name->name) || scope.classes.count(name->name) ||
        scope.imports.count(name->name)) {
      error(target->getBegin())
          << "cannot assign to '" << name->name << "': it names a "
          << (scope.imports.count(name->name)     ? "name imported into"
              : scope.functions.count(name->name) ? "function of"
                                                  : "class of")
          << " this module";
      return failure();
    }
    frame->vars[name->name] = type;
    frame->bound[name->name] = target->getBegin();
    frame->conditional.erase(name->name);
    return success();
  }
  if (auto *tuple = dyn_cast<TupleExpr>(target)) {
    std::optional<Type> unpacked = unpackedType(*tuple, type);
    if (!unpacked) {
      bool starred = llvm::any_of(tuple->elements, [](const ExprPtr &e) {
        return isa<StarredExpr>(e.get());
      });
      error(target->getBegin())
          << "cannot unpack " << type.str() << " into "
          << (starred ? "at least " : "")
          << tuple->elements.size() - (starred ? 1 : 0) << " names";
      return failure();
    }
    for (size_t i = 0; i < tuple->elements.size(); ++i) {
      const Expr *t = tuple->elements[i].get();
      if (auto *s = dyn_cast<StarredExpr>(t))
        t = s->value.get();
      if (failed(bindTarget(t, unpacked->elements[i])))
        return failure();
    }
    return success();
  }
  error(target->getBegin())
      << "assignment to an attribute or subscript is not supported yet";
  return failure();
}

LogicalResult SemaImpl::analyzeStmt(const Stmt *stmt) {
  switch (stmt->getKind()) {
  case Stmt::Kind::Expr:
    return analyzeExprStmt(cast<ExprStmt>(stmt));
  case Stmt::Kind::Assign: {
    auto *assign = cast<AssignStmt>(stmt);
    FailureOr<Type> type = analyzeExpr(assign->value.get());
    if (failed(type))
      return failure();
    if (type->kind == Type::Kind::None) {
      error(assign->value->getBegin())
          << "this expression has no value (it is None)";
      return failure();
    }
    for (const ExprPtr &target : assign->targets)
      if (failed(bindTarget(target.get(), *type)))
        return failure();
    return success();
  }
  case Stmt::Kind::AugAssign:
    return analyzeAugAssign(cast<AugAssignStmt>(stmt));
  case Stmt::Kind::AnnAssign:
    return analyzeAnnAssign(cast<AnnAssignStmt>(stmt));
  case Stmt::Kind::Return:
    return analyzeReturn(cast<ReturnStmt>(stmt));
  case Stmt::Kind::Pass:
    return success();
  case Stmt::Kind::Assert:
    return analyzeAssert(cast<AssertStmt>(stmt));
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    if (frame->loopDepth == 0) {
      error(stmt->getBegin())
          << "'" << (isa<BreakStmt>(stmt) ? "break" : "continue")
          << "' outside loop";
      return failure();
    }
    return success();
  case Stmt::Kind::If:
    return analyzeIf(cast<IfStmt>(stmt));
  case Stmt::Kind::For:
    return analyzeFor(cast<ForStmt>(stmt));
  case Stmt::Kind::While: {
    auto *w = cast<WhileStmt>(stmt);
    return analyzeLoop(stmt, w->body, w->cond.get(), nullptr);
  }
  case Stmt::Kind::With:
    return analyzeWith(cast<WithStmt>(stmt));
  case Stmt::Kind::FuncDef:
  case Stmt::Kind::ClassDef:
  case Stmt::Kind::Import:
  case Stmt::Kind::FromImport:
    return analyzeDefinition(stmt);
  }
  error(stmt->getBegin()) << "this statement is not supported";
  return failure();
}

LogicalResult SemaImpl::analyzeExprStmt(const ExprStmt *stmt) {
  const Expr *value = stmt->value.get();
  // A bare string (a docstring) is a no-op.
  if (isa<StringExpr>(value) && !options.displayFromLine)
    return success();
  FailureOr<Type> type = analyzeExpr(value);
  if (failed(type))
    return failure();
  // At the prompt, a top-level expression shows its value.
  if (options.displayFromLine && frame->isScript && frame->controlDepth == 0 &&
      frame->scope->ast == &source.main() &&
      stmt->getBegin().line >= options.displayFromLine &&
      type->kind != Type::Kind::None) {
    program->displays.insert(stmt);
    if (type->weak)
      coerce(value, type->dtype);
  }
  return success();
}

LogicalResult SemaImpl::analyzeAugAssign(const AugAssignStmt *aug) {
  if (!isa<NameExpr>(aug->target.get())) {
    error(aug->getBegin())
        << "augmented assignment to an attribute or subscript is not "
           "supported yet";
    return failure();
  }
  FailureOr<Type> lhs = analyzeExpr(aug->target.get());
  if (failed(lhs))
    return failure();
  FailureOr<Type> rhs = analyzeExpr(aug->value.get());
  if (failed(rhs))
    return failure();
  FailureOr<Type> result = binaryType(aug->op, aug->target.get(), *lhs,
                                      aug->value.get(), *rhs, aug->getBegin());
  if (failed(result))
    return failure();
  frame->spec->stmtTypes[aug] = *result;
  return bindTarget(aug->target.get(), *result);
}

LogicalResult SemaImpl::analyzeAnnAssign(const AnnAssignStmt *ann) {
  if (!ann->value) {
    error(ann->getBegin()) << "an annotated name needs a value here "
                              "(bare annotations are for class fields)";
    return failure();
  }
  FailureOr<Type> type = analyzeExpr(ann->value.get());
  if (failed(type))
    return failure();
  DimBindings dims;
  Type adjusted;
  if (failed(checkAnnotation(ann->annotation.get(), *type, dims, "this value",
                             ann->value->getBegin(), adjusted)))
    return failure();
  if (adjusted.isTensor() && type->weak)
    coerce(ann->value.get(), adjusted.dtype);
  return bindTarget(ann->target.get(), adjusted.strong());
}

LogicalResult SemaImpl::analyzeReturn(const ReturnStmt *ret) {
  if (frame->isScript) {
    error(ret->getBegin()) << "'return' outside function";
    return failure();
  }
  Type type = Type::none();
  if (ret->value) {
    FailureOr<Type> t = analyzeExpr(ret->value.get());
    if (failed(t))
      return failure();
    type = t->strong();
  }
  if (frame->returnType && *frame->returnType != type) {
    mlir::InFlightDiagnostic diag = error(ret->getBegin());
    diag << "this return gives " << type.str()
         << ", but an earlier return gives " << frame->returnType->str();
    note(diag, frame->returnAt) << "the earlier return";
    return failure();
  }
  if (!frame->returnType)
    frame->returnAt = ret->getBegin();
  frame->returnType = type;
  return success();
}

LogicalResult SemaImpl::analyzeAssert(const AssertStmt *a) {
  if (failed(checkCondition(a->cond.get(), "'assert'")))
    return failure();
  if (!a->message)
    return success();
  FailureOr<Type> m = analyzeExpr(a->message.get());
  if (failed(m))
    return failure();
  if (m->kind != Type::Kind::String) {
    error(a->message->getBegin())
        << "an assert message must be a string, got " << m->str();
    return failure();
  }
  return success();
}

LogicalResult SemaImpl::analyzeWith(const WithStmt *w) {
  // The body is the enclosing block's, run on the context's device.
  auto *call = dyn_cast<CallExpr>(w->context.get());
  withContext = call;
  FailureOr<Type> context = analyzeExpr(w->context.get());
  withContext = nullptr;
  if (failed(context))
    return failure();
  auto builtin = call ? frame->spec->builtinCalls.find(call)
                      : frame->spec->builtinCalls.end();
  if (builtin == frame->spec->builtinCalls.end() ||
      !builtin->second.builtin.is(ParallelBuiltin::Device)) {
    error(w->context->getBegin())
        << "a 'with' statement takes device(\"cpu\") or "
           "device(\"cuda\"), the device its block runs on";
    return failure();
  }
  frame->spec->devices[w] = typeOf(call).name;
  ++frame->controlDepth;
  LogicalResult body = analyzeBlock(w->body);
  --frame->controlDepth;
  return body;
}

LogicalResult SemaImpl::analyzeDefinition(const Stmt *stmt) {
  if (auto *def = dyn_cast<FuncDef>(stmt)) {
    if (failed(checkDecorators(def)))
      return failure();
    // A top-level def sees module constants; a nested one closes over the
    // enclosing function's variables.
    defScope[def] = frame->scope;
    frame->vars[def->name] =
        frame->isScript ? Type::function(def) : closureOf(def);
    frame->bound[def->name] = def->namePos;
    frame->conditional.erase(def->name);
    return success();
  }
  if (auto *cls = dyn_cast<ClassDef>(stmt)) {
    if (!frame->isScript || frame->controlDepth > 0) {
      error(stmt->getBegin())
          << "a class is defined at the top level of a file, not inside a "
             "function or a block";
      return failure();
    }
    // Checked with the file's scope; usable from its statement on.
    frame->vars[cls->name] = Type::classValue(cls);
    return success();
  }
  if (!frame->isScript || frame->controlDepth > 0) {
    error(stmt->getBegin()) << "'import' belongs at the top level of a file";
    return failure();
  }
  return success(); // bound in the file's scope
}
