//===- Sema.cpp - Names, types, shapes and specializations ----------------===//
//
// A single walk over each specialization's body with an environment of
// variable types. Algorithm:
//   1. Collect the module's top-level `def`s (functions see all of them, as
//      Python's functions see module globals at call time).
//   2. Analyze the script body as the entry specialization; top-level
//      statements see a `def` from its statement on.
//   3. At each call of a user function, resolve arguments to parameters,
//      strip literal weakness from their types, and analyze (or reuse) the
//      specialization for that tuple of types. A specialization reached while
//      it is being analyzed is recursion: an error naming the cycle.
//   4. Every expression's type is recorded; when a weak literal meets a
//      tensor, the literal's subtree is re-typed to the tensor's dtype.
// Analysis stops at the first error.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace tfl::sema {

/// The dtype a name like `f32` denotes, if any.
std::optional<DType> dtypeNamed(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f32", DType::F32)
      .Case("f64", DType::F64)
      .Case("i32", DType::I32)
      .Case("i64", DType::I64)
      .Case("u8", DType::U8)
      .Case("bool", DType::Bool)
      .Case("bf16", DType::BF16)
      .Case("f16", DType::F16)
      .Default(std::nullopt);
}

/// Checks and computes the dtype two operands of arithmetic share.
std::optional<Type> unifyOperands(const Type &a, const Type &b) {
  if (a.weak == b.weak) {
    if (a.dtype == b.dtype)
      return a;
    if (a.weak && isFloat(a.dtype) != isFloat(b.dtype))
      return isFloat(a.dtype) ? a : b; // 1 + 2.0 is a weak f32
    return std::nullopt;
  }
  const Type &weak = a.weak ? a : b;
  const Type &strong = a.weak ? b : a;
  // An int literal takes any numeric dtype; a float literal a float one.
  if (isFloat(weak.dtype) && !isFloat(strong.dtype))
    return std::nullopt;
  return strong;
}

/// NumPy's broadcast of two shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t> &a,
                                              const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      shape[i] = db;
    else if (db == 1 || da == db)
      shape[i] = da;
    else // (a batch, `?`, meets only itself or 1)
      return std::nullopt;
  }
  return shape;
}

} // namespace tfl::sema

static void collectReadNames(const Block &block, llvm::StringSet<> &out);

/// Adds every name an expression reads (nested lambdas included).
static void collectReadNames(const Expr *e, llvm::StringSet<> &out) {
  if (!e)
    return;
  switch (e->getKind()) {
  case Expr::Kind::Name:
    out.insert(cast<NameExpr>(e)->name);
    return;
  case Expr::Kind::FString:
    for (const FStringExpr::Part &p : cast<FStringExpr>(e)->parts)
      collectReadNames(p.expr.get(), out);
    return;
  case Expr::Kind::List:
    for (const ExprPtr &x : cast<ListExpr>(e)->elements)
      collectReadNames(x.get(), out);
    return;
  case Expr::Kind::Tuple:
    for (const ExprPtr &x : cast<TupleExpr>(e)->elements)
      collectReadNames(x.get(), out);
    return;
  case Expr::Kind::Unary:
    collectReadNames(cast<UnaryExpr>(e)->operand.get(), out);
    return;
  case Expr::Kind::Binary:
    collectReadNames(cast<BinaryExpr>(e)->lhs.get(), out);
    collectReadNames(cast<BinaryExpr>(e)->rhs.get(), out);
    return;
  case Expr::Kind::Compare:
    for (const ExprPtr &x : cast<CompareExpr>(e)->operands)
      collectReadNames(x.get(), out);
    return;
  case Expr::Kind::Not:
    collectReadNames(cast<NotExpr>(e)->operand.get(), out);
    return;
  case Expr::Kind::BoolOp:
    collectReadNames(cast<BoolOpExpr>(e)->lhs.get(), out);
    collectReadNames(cast<BoolOpExpr>(e)->rhs.get(), out);
    return;
  case Expr::Kind::Cond:
    collectReadNames(cast<CondExpr>(e)->cond.get(), out);
    collectReadNames(cast<CondExpr>(e)->thenExpr.get(), out);
    collectReadNames(cast<CondExpr>(e)->elseExpr.get(), out);
    return;
  case Expr::Kind::Call: {
    auto *c = cast<CallExpr>(e);
    collectReadNames(c->callee.get(), out);
    for (const ExprPtr &x : c->args)
      collectReadNames(x.get(), out);
    for (const Keyword &k : c->keywords)
      collectReadNames(k.value.get(), out);
    return;
  }
  case Expr::Kind::Attribute:
    collectReadNames(cast<AttributeExpr>(e)->value.get(), out);
    return;
  case Expr::Kind::Subscript:
    collectReadNames(cast<SubscriptExpr>(e)->value.get(), out);
    for (const ExprPtr &x : cast<SubscriptExpr>(e)->indices)
      collectReadNames(x.get(), out);
    return;
  case Expr::Kind::Slice:
    collectReadNames(cast<SliceExpr>(e)->lo.get(), out);
    collectReadNames(cast<SliceExpr>(e)->hi.get(), out);
    collectReadNames(cast<SliceExpr>(e)->step.get(), out);
    return;
  case Expr::Kind::Lambda:
    collectReadNames(cast<LambdaExpr>(e)->def->body, out);
    return;
  case Expr::Kind::Starred:
    collectReadNames(cast<StarredExpr>(e)->value.get(), out);
    return;
  case Expr::Kind::Comprehension:
    collectReadNames(cast<ComprehensionExpr>(e)->iter.get(), out);
    collectReadNames(cast<ComprehensionExpr>(e)->element.get(), out);
    return;
  default:
    return;
  }
}

static void collectReadNames(const Block &block, llvm::StringSet<> &out) {
  for (const StmtPtr &s : block) {
    switch (s->getKind()) {
    case Stmt::Kind::Expr:
      collectReadNames(cast<ExprStmt>(s.get())->value.get(), out);
      break;
    case Stmt::Kind::Assign:
      collectReadNames(cast<AssignStmt>(s.get())->value.get(), out);
      break;
    case Stmt::Kind::AugAssign:
      collectReadNames(cast<AugAssignStmt>(s.get())->target.get(), out);
      collectReadNames(cast<AugAssignStmt>(s.get())->value.get(), out);
      break;
    case Stmt::Kind::Return:
      collectReadNames(cast<ReturnStmt>(s.get())->value.get(), out);
      break;
    case Stmt::Kind::Assert:
      collectReadNames(cast<AssertStmt>(s.get())->cond.get(), out);
      collectReadNames(cast<AssertStmt>(s.get())->message.get(), out);
      break;
    case Stmt::Kind::If:
      collectReadNames(cast<IfStmt>(s.get())->cond.get(), out);
      collectReadNames(cast<IfStmt>(s.get())->body, out);
      collectReadNames(cast<IfStmt>(s.get())->orelse, out);
      break;
    case Stmt::Kind::While:
      collectReadNames(cast<WhileStmt>(s.get())->cond.get(), out);
      collectReadNames(cast<WhileStmt>(s.get())->body, out);
      break;
    case Stmt::Kind::For:
      collectReadNames(cast<ForStmt>(s.get())->iter.get(), out);
      collectReadNames(cast<ForStmt>(s.get())->body, out);
      break;
    case Stmt::Kind::With:
      collectReadNames(cast<WithStmt>(s.get())->context.get(), out);
      collectReadNames(cast<WithStmt>(s.get())->body, out);
      break;
    case Stmt::Kind::FuncDef:
      collectReadNames(cast<FuncDef>(s.get())->body, out);
      break;
    default:
      break;
    }
  }
}

/// Whether two recorded bindings are the same place (unrecorded ones,
/// line 0, are not).
static bool sameBinding(Position a, Position b) {
  return a.line != 0 && a.line == b.line && a.col == b.col;
}

bool tfl::sema::anyContinue(const Block &block) {
  for (const StmtPtr &s : block) {
    if (isa<ContinueStmt>(s.get()))
      return true;
    if (auto *i = dyn_cast<IfStmt>(s.get()))
      if (anyContinue(i->body) || anyContinue(i->orelse))
        return true;
    if (auto *w = dyn_cast<WithStmt>(s.get()))
      if (anyContinue(w->body))
        return true;
  }
  return false;
}

std::unique_ptr<Program> SemaImpl::run() {
  program = std::make_unique<Program>();
  program->module = &source.main();
  if (failed(buildScopes()))
    return nullptr;

  auto entry = std::make_unique<Specialization>();
  entry->symbol = kEntrySymbol.str();
  entry->module = &source.main();
  program->entry = entry.get();
  program->specializations.push_back(std::move(entry));
  Frame script{program->entry, {}, std::nullopt, true};
  script.scope = &scopes[&source.main()];
  frame = &script;
  program->debugPoints = options.debugPoints;
  program->session = options.session;
  if (options.session) {
    program->sessionVars = options.sessionVars;
    for (const CarriedVar &v : options.sessionVars) {
      script.vars[v.name] = v.type;
      // Functions see them as a script's functions see its variables.
      scopes[&source.main()].topLevelNames.insert(v.name);
    }
  }
  program->library = options.library;
  if (failed(analyzeBlock(source.main().body)))
    return nullptr;
  // A library: the script's statements do not run (they give export()'s
  // argument types); the exports are the program.
  if (options.library && failed(analyzeExports()))
    return nullptr;
  if (options.session)
    program->globals = visibleVars();
  return std::move(program);
}

std::vector<CarriedVar> SemaImpl::visibleVars() const {
  std::vector<CarriedVar> vars;
  for (const auto &entry : frame->vars)
    if (!frame->conditional.contains(entry.getKey()) &&
        !entry.getKey().starts_with("$"))
      vars.push_back({entry.getKey().str(), entry.getValue()});
  llvm::sort(vars, [](const CarriedVar &a, const CarriedVar &b) {
    return a.name < b.name;
  });
  return vars;
}

void SemaImpl::recordDebugScope(const void *node) {
  frame->spec->debugScopes[node] = program->debugScopes.size();
  program->debugScopes.push_back(visibleVars());
}

FailureOr<Type> SemaImpl::analyzeBreakpoint(const CallExpr *expr) {
  if (!expr->args.empty() || !expr->keywords.empty()) {
    error(expr->getBegin()) << "breakpoint() takes no arguments";
    return failure();
  }
  if (options.debugPoints) {
    recordDebugScope(expr);
  } else if (options.compiled &&
             warnedBreakpoints
                 .insert({frame->scope->ast,
                          {expr->getBegin().line, expr->getBegin().col}})
                 .second) {
    mlir::emitWarning(loc(expr->getBegin()))
        << "breakpoint() does nothing in a compiled program; run it with "
           "'tflc run --eager' to stop here";
  }
  return Type::none();
}

mlir::InFlightDiagnostic SemaImpl::error(Position p, const Module *file) {
  mlir::InFlightDiagnostic diag = mlir::emitError(loc(p, file));
  // As clang's "in instantiation of ... requested here": the calls whose
  // argument types made the failing specialization, innermost first (the
  // outermost few when the chain is long).
  constexpr size_t kMaxCallNotes = 8;
  size_t shown = 0;
  for (auto it = callStack.rbegin(); it != callStack.rend(); ++it) {
    if (shown++ == kMaxCallNotes) {
      note(diag, callStack.front().at, callStack.front().file)
          << "(" << callStack.size() - kMaxCallNotes
          << " more enclosing calls, the outermost here)";
      break;
    }
    const Specialization &s = *it->callee;
    std::string signature;
    for (size_t i = 0; i < s.argTypes.size() && i < s.def->params.size(); ++i)
      signature +=
          (i ? ", " : "") + s.def->params[i].name + ": " + s.argTypes[i].str();
    const ClassDef *cls = methodClass.lookup(s.def);
    note(diag, it->at, it->file)
        << "in " << (cls ? cls->name + "." : std::string()) << s.def->name
        << "(" << signature << "), called here";
  }
  return diag;
}

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
  case Stmt::Kind::Expr: {
    const Expr *value = cast<ExprStmt>(stmt)->value.get();
    // A bare string (a docstring) is a no-op.
    if (isa<StringExpr>(value) && !options.displayFromLine)
      return success();
    FailureOr<Type> type = analyzeExpr(value);
    if (failed(type))
      return failure();
    // At the prompt, a top-level expression shows its value.
    if (options.displayFromLine && frame->isScript &&
        frame->controlDepth == 0 && frame->scope->ast == &source.main() &&
        stmt->getBegin().line >= options.displayFromLine &&
        type->kind != Type::Kind::None) {
      program->displays.insert(stmt);
      if (type->weak)
        coerce(value, type->dtype);
    }
    return success();
  }
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
  case Stmt::Kind::AugAssign: {
    auto *aug = cast<AugAssignStmt>(stmt);
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
    FailureOr<Type> result =
        binaryType(aug->op, aug->target.get(), *lhs, aug->value.get(), *rhs,
                   aug->getBegin());
    if (failed(result))
      return failure();
    frame->spec->stmtTypes[stmt] = *result;
    return bindTarget(aug->target.get(), *result);
  }
  case Stmt::Kind::Return: {
    auto *ret = cast<ReturnStmt>(stmt);
    if (frame->isScript) {
      error(stmt->getBegin()) << "'return' outside function";
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
      mlir::InFlightDiagnostic diag = error(stmt->getBegin());
      diag << "this return gives " << type.str()
           << ", but an earlier return gives " << frame->returnType->str();
      note(diag, frame->returnAt) << "the earlier return";
      return failure();
    }
    if (!frame->returnType)
      frame->returnAt = stmt->getBegin();
    frame->returnType = type;
    return success();
  }
  case Stmt::Kind::Pass:
    return success();
  case Stmt::Kind::Assert: {
    auto *a = cast<AssertStmt>(stmt);
    if (failed(checkCondition(a->cond.get(), "'assert'")))
      return failure();
    if (a->message) {
      FailureOr<Type> m = analyzeExpr(a->message.get());
      if (failed(m))
        return failure();
      if (m->kind != Type::Kind::String) {
        error(a->message->getBegin())
            << "an assert message must be a string, got " << m->str();
        return failure();
      }
    }
    return success();
  }
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
  case Stmt::Kind::With: {
    // The body is the enclosing block's, run on the context's device.
    auto *w = cast<WithStmt>(stmt);
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
    frame->spec->devices[stmt] = typeOf(call).name;
    ++frame->controlDepth;
    LogicalResult body = analyzeBlock(w->body);
    --frame->controlDepth;
    return body;
  }
  case Stmt::Kind::FuncDef: {
    auto *def = cast<FuncDef>(stmt);
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
  case Stmt::Kind::ClassDef:
    if (!frame->isScript || frame->controlDepth > 0) {
      error(stmt->getBegin())
          << "a class is defined at the top level of a file, not inside a "
             "function or a block";
      return failure();
    }
    // Checked with the file's scope; usable from its statement on.
    frame->vars[cast<ClassDef>(stmt)->name] =
        Type::classValue(cast<ClassDef>(stmt));
    return success();
  case Stmt::Kind::Import:
  case Stmt::Kind::FromImport:
    if (!frame->isScript || frame->controlDepth > 0) {
      error(stmt->getBegin()) << "'import' belongs at the top level of a file";
      return failure();
    }
    return success(); // bound in the file's scope
  case Stmt::Kind::AnnAssign: {
    auto *ann = cast<AnnAssignStmt>(stmt);
    if (!ann->value) {
      error(stmt->getBegin()) << "an annotated name needs a value here "
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
  }
  error(stmt->getBegin()) << "this statement is not supported";
  return failure();
}

LogicalResult SemaImpl::checkCondition(const Expr *cond, llvm::StringRef what) {
  return requireBoolScalar(cond, ("the condition of " + what).str());
}

LogicalResult SemaImpl::analyzeIf(const IfStmt *stmt) {
  if (failed(checkCondition(stmt->cond.get(), "'if'")))
    return failure();
  llvm::StringMap<Type> before = frame->vars;
  llvm::StringMap<Position> beforeBound = frame->bound;
  llvm::StringSet<> beforeCond = frame->conditional;

  ++frame->controlDepth;
  if (failed(analyzeBlock(stmt->body)))
    return failure();
  llvm::StringMap<Type> thenVars = std::move(frame->vars);
  llvm::StringMap<Position> thenBound = std::move(frame->bound);
  llvm::StringSet<> thenCond = std::move(frame->conditional);
  frame->vars = before;
  frame->bound = beforeBound;
  frame->conditional = beforeCond;
  if (failed(analyzeBlock(stmt->orelse)))
    return failure();
  llvm::StringMap<Type> elseVars = std::move(frame->vars);
  llvm::StringMap<Position> elseBound = std::move(frame->bound);
  llvm::StringSet<> elseCond = std::move(frame->conditional);
  --frame->controlDepth;

  frame->vars = std::move(before);
  frame->bound = std::move(beforeBound);
  frame->conditional = std::move(beforeCond);
  llvm::StringSet<> assigned;
  collectAssigned(stmt->body, assigned);
  collectAssigned(stmt->orelse, assigned);
  std::vector<std::string> names;
  for (const auto &entry : assigned)
    names.push_back(entry.getKey().str());
  llvm::sort(names); // a deterministic order of scf.if results

  std::vector<CarriedVar> yielded;
  for (const std::string &name : names) {
    bool inThen = thenVars.count(name) && !thenCond.contains(name);
    bool inElse = elseVars.count(name) && !elseCond.contains(name);
    if (!inThen && !inElse) {
      continue;
    }
    if (!inThen || !inElse) {
      frame->vars[name] = inThen ? thenVars[name] : elseVars[name];
      if (Position at = (inThen ? thenBound : elseBound).lookup(name); at.line)
        frame->bound[name] = at;
      frame->conditional.insert(name);
      continue;
    }
    const Type &a = thenVars[name], &b = elseVars[name];
    std::optional<Type> merged;
    if (a == b)
      merged = a;
    else if (a.strong() == b.strong())
      merged = a.strong();
    else if (a.isTensor() && b.isTensor() && a.shape == b.shape)
      if (std::optional<Type> u = unifyOperands(a, b))
        merged = u->strong();
    if (!merged) {
      // The error sits at the 'else' branch's binding and the note at the
      // 'if' branch's; a branch that did not rebind the name keeps the
      // binding from before the 'if'.
      Position thenAt = thenBound.lookup(name), elseAt = elseBound.lookup(name);
      bool elseRebinds = !sameBinding(elseAt, frame->bound.lookup(name));
      Position errorAt = elseRebinds ? elseAt : thenAt;
      Position noteAt = elseRebinds ? thenAt : elseAt;
      mlir::InFlightDiagnostic diag =
          error(errorAt.line ? errorAt : stmt->getBegin());
      diag << "'" << name << "' is " << a.str() << " after the 'if' branch but "
           << b.str() << " after the 'else' branch";
      if (noteAt.line)
        note(diag, noteAt) << "'" << name << "' is "
                           << (elseRebinds ? a : b).str() << " here"
                           << (sameBinding(noteAt, frame->bound.lookup(name))
                                   ? ", before the 'if'"
                                   : "");
      return failure();
    }
    frame->vars[name] = *merged;
    Position elseAt = elseBound.lookup(name);
    frame->bound[name] = sameBinding(elseAt, frame->bound.lookup(name))
                             ? thenBound.lookup(name)
                             : elseAt;
    if (merged->hasValues())
      yielded.push_back({name, *merged});
  }
  frame->spec->carried[stmt] = std::move(yielded);
  return success();
}

LogicalResult SemaImpl::analyzeLoop(const Stmt *stmt, const Block &body,
                                    const Expr *cond, const Expr *target,
                                    const Type &targetType) {
  llvm::StringSet<> targetNames;
  if (target)
    ast::collectTargetNames(target, targetNames);
  if (target)
    frame->spec->loopTargetTypes[stmt] = targetType;
  llvm::StringMap<Type> before = frame->vars;
  llvm::StringMap<Position> beforeBound = frame->bound;
  llvm::StringSet<> beforeCond = frame->conditional;
  llvm::StringSet<> assigned;
  collectAssigned(body, assigned);
  std::vector<std::string> names;
  for (const auto &entry : assigned)
    names.push_back(entry.getKey().str());
  llvm::sort(names);

  // Variables bound before the loop and rebound in it are loop-carried.
  std::vector<CarriedVar> carried;
  for (const std::string &name : names) {
    if (targetNames.contains(name) || !before.count(name) ||
        beforeCond.contains(name))
      continue;
    const Type &t = before[name];
    if (!t.hasValues()) {
      error(stmt->getBegin()) << "'" << name << "' is " << t.str()
                              << " and cannot change inside a loop";
      return failure();
    }
    carried.push_back({name, t});
  }

  // Analyze the body until the carried types are stable: a weak literal's
  // initial value (`total = 0`) takes the dtype the body gives it.
  ++frame->controlDepth;
  ++frame->loopDepth;
  for (int round = 0;; ++round) {
    frame->vars = before;
    frame->bound = beforeBound;
    frame->conditional = beforeCond;
    for (const CarriedVar &c : carried)
      frame->vars[c.name] = c.type;
    if (target && failed(bindTarget(target, targetType)))
      return failure();
    if (cond && failed(checkCondition(cond, "'while'")))
      return failure();
    if (failed(analyzeBlock(body)))
      return failure();
    bool changed = false;
    for (CarriedVar &c : carried) {
      const Type &after = frame->vars[c.name];
      if (after == c.type)
        continue;
      if (after.strong() == c.type.strong()) {
        changed |= c.type.weak || c.type.known.has_value();
        c.type = c.type.strong();
        continue;
      }
      if (c.type.weak && after.isTensor() && after.shape == c.type.shape &&
          round < 3) {
        c.type = after.strong();
        changed = true;
        continue;
      }
      // The error sits at the binding in the body that gives the new type;
      // notes show the loop and the binding before it.
      Position inBody = frame->bound.lookup(c.name);
      if (sameBinding(inBody, beforeBound.lookup(c.name)))
        inBody = Position();
      mlir::InFlightDiagnostic diag =
          error(inBody.line ? inBody : stmt->getBegin());
      diag << "loop-carried '" << c.name
           << "' changes type in the loop: " << c.type.str()
           << " before an iteration, " << after.str() << " after it";
      if (inBody.line)
        note(diag, stmt->getBegin()) << "in this loop";
      if (Position at = beforeBound.lookup(c.name); at.line)
        note(diag, at) << "'" << c.name << "' is " << c.type.str()
                       << " here, before the loop";
      return failure();
    }
    if (!changed)
      break;
  }
  --frame->controlDepth;
  --frame->loopDepth;

  // After the loop: carried variables keep their type; names first bound in
  // the body (and the loop variable) may be unbound.
  llvm::StringMap<Type> bodyVars = std::move(frame->vars);
  llvm::StringMap<Position> bodyBound = std::move(frame->bound);
  frame->vars = std::move(before);
  frame->bound = std::move(beforeBound);
  frame->conditional = std::move(beforeCond);
  for (const CarriedVar &c : carried)
    frame->vars[c.name] = c.type;
  for (const std::string &name : names) {
    if (frame->vars.count(name) && !frame->conditional.contains(name) &&
        !targetNames.contains(name))
      continue;
    frame->vars[name] = bodyVars[name];
    if (Position at = bodyBound.lookup(name); at.line)
      frame->bound[name] = at;
    frame->conditional.insert(name);
  }
  frame->spec->carried[stmt] = std::move(carried);
  return success();
}

std::optional<LogicalResult> SemaImpl::analyzeRowLoop(const ForStmt *stmt) {
  // enumerate(x, start=0) and zip(x, y, ...) of tensors: a loop over their
  // rows (of tuples, an unrolled one: the iterable is a tuple then).
  auto *call = dyn_cast<CallExpr>(stmt->iter.get());
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (!callee || (callee->name != "enumerate" && callee->name != "zip") ||
      frame->vars.count(callee->name) || call->args.empty())
    return std::nullopt;
  std::vector<Type> types;
  for (const ExprPtr &arg : call->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    if (!t->isTensor())
      return std::nullopt; // tuples: zip/enumerate as built-ins
    types.push_back(*t);
  }
  FailureOr<std::optional<int64_t>> start = zipStart(call, callee->name);
  if (failed(start))
    return failure();
  int64_t rows = -1;
  std::vector<Type> element;
  if (*start)
    element.push_back(Type::tensor(DType::I64, {}));
  for (size_t i = 0; i < types.size(); ++i) {
    const Type &t = types[i];
    if (t.rank() == 0 || t.shape[0] == kDynamicDim) {
      error(call->args[i]->getBegin())
          << callee->name << "() iterates over the first axis of a tensor "
          << "of static size, not " << t.str();
      return failure();
    }
    rows = rows < 0 ? t.shape[0] : std::min(rows, t.shape[0]);
    element.push_back(Type::tensor(
        t.dtype, std::vector<int64_t>(t.shape.begin() + 1, t.shape.end()),
        t.weak));
  }
  frame->spec->rowLoops[stmt] = *start;
  return analyzeLoop(stmt, stmt->body, nullptr, stmt->target.get(),
                     Type::tuple(std::move(element)));
}

LogicalResult SemaImpl::analyzeFor(const ForStmt *stmt) {
  if (std::optional<LogicalResult> rows = analyzeRowLoop(stmt))
    return *rows;
  auto *target = dyn_cast<NameExpr>(stmt->target.get());
  auto *call = dyn_cast<CallExpr>(stmt->iter.get());
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (!callee || callee->name != "range" || frame->vars.count("range")) {
    // for x in t: the first axis of a tensor, or the elements of a tuple.
    FailureOr<Type> seq = analyzeExpr(stmt->iter.get());
    if (failed(seq))
      return failure();
    if (seq->kind == Type::Kind::Tuple) // unrolled, any target
      return analyzeUnrolledFor(stmt, seq->elements);
    if (!target) {
      error(stmt->target->getBegin())
          << "the target of a 'for' must be one name";
      return failure();
    }
    if (seq->isTensor() && seq->rank() > 0 && seq->shape[0] != kDynamicDim) {
      std::vector<int64_t> rowShape(seq->shape.begin() + 1, seq->shape.end());
      return analyzeLoop(stmt, stmt->body, nullptr, target,
                         Type::tensor(seq->dtype, rowShape, seq->weak));
    }
    error(stmt->iter->getBegin())
        << "'for' iterates over range(...), a tensor's first axis or a "
           "tuple, not "
        << seq->str();
    return failure();
  }
  if (!target) {
    error(stmt->target->getBegin())
        << "the target of a 'for' over range(...) must be one name";
    return failure();
  }
  if (call->args.empty() || call->args.size() > 3 || !call->keywords.empty()) {
    error(call->getBegin())
        << "range() takes 1 to 3 positional arguments, got "
        << call->args.size() << (call->keywords.empty() ? "" : " and keywords");
    return failure();
  }
  for (const ExprPtr &arg : call->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    if (!t->isScalar() || !isInteger(t->dtype)) {
      error(arg->getBegin()) << "range() arguments must be integer scalars, "
                                "got "
                             << t->str();
      return failure();
    }
    coerce(arg.get(), DType::I64);
    if (auto *lit = dyn_cast<IntExpr>(arg.get());
        lit && lit->value == 0 && call->args.size() == 3 &&
        arg.get() == call->args[2].get()) {
      error(arg->getBegin()) << "range() step must not be zero";
      return failure();
    }
  }
  return analyzeLoop(stmt, stmt->body, nullptr, target);
}

Type SemaImpl::closureOf(const FuncDef *def) {
  defScope[def] = frame->scope;
  llvm::StringSet<> read, local;
  collectReadNames(def->body, read);
  collectAssigned(def->body, local);
  for (const Param &p : def->params)
    local.insert(p.name);
  std::vector<std::string> names;
  for (const auto &entry : read) {
    llvm::StringRef name = entry.getKey();
    auto it = frame->vars.find(name);
    if (local.contains(name) || it == frame->vars.end() ||
        frame->conditional.contains(name) ||
        it->second.kind == Type::Kind::Builtin)
      continue;
    names.push_back(name.str());
  }
  llvm::sort(names);
  std::vector<Type> types;
  for (const std::string &name : names)
    types.push_back(frame->vars[name]);
  frame->spec->closures[def] = names;
  return Type::function(def, names, types);
}

std::unique_ptr<Program> tfl::analyze(const SourceProgram &source,
                                      mlir::MLIRContext *context,
                                      SemaOptions options) {
  return SemaImpl(source, context, options).run();
}
