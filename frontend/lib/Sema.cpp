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
  } else if (options.compiled) {
    warnOnce(expr->getBegin(),
             "breakpoint() does nothing in a compiled program; run it with "
             "'tflc run --eager' to stop here");
  }
  return Type::none();
}

void SemaImpl::warnOnce(Position p, const llvm::Twine &message) {
  if (warned.insert({frame->scope->ast, {p.line, p.col}}).second)
    mlir::emitWarning(loc(p)) << message;
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
