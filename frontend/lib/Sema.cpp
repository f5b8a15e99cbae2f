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

#include "tfl/Frontend/Sema.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Regex.h"

#include <charconv>
#include <map>

using namespace tfl;
using namespace tfl::ast;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;

namespace {

/// The built-in functions this compiler knows.
const llvm::StringSet<> &floatMathBuiltins() {
  static const llvm::StringSet<> names = {"exp",  "log",   "log1p", "expm1",
                                          "sqrt", "rsqrt", "tanh",  "sigmoid",
                                          "sin",  "cos",   "floor", "round"};
  return names;
}

const llvm::StringSet<> &numericMathBuiltins() {
  static const llvm::StringSet<> names = {"abs", "sign", "square", "relu"};
  return names;
}

const llvm::StringSet<> &builtinNames() {
  static const llvm::StringSet<> names = [] {
    llvm::StringSet<> all = {
        "print",      "maximum",   "minimum",     "pow",     "where",
        "clip",       "cast",      "float",       "int",     "sum",
        "mean",       "max",       "min",         "prod",    "argmax",
        "argmin",     "logsumexp", "zeros",       "ones",    "full",
        "zeros_like", "ones_like", "arange",      "eye",     "broadcast_to",
        "reshape",    "transpose", "expand_dims", "squeeze", "concat",
        "stack",      "shape",     "size",        "softmax", "log_softmax",
        "one_hot",    "matmul",    "flag",        "now",     "gather"};
    for (const auto &n : floatMathBuiltins())
      all.insert(n.getKey());
    for (const auto &n : numericMathBuiltins())
      all.insert(n.getKey());
    return all;
  }();
  return names;
}

/// The dtype a name like `f32` denotes, if any.
std::optional<DType> dtypeNamed(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f32", DType::F32)
      .Case("f64", DType::F64)
      .Case("i32", DType::I32)
      .Case("i64", DType::I64)
      .Case("u8", DType::U8)
      .Case("bool", DType::Bool)
      .Default(std::nullopt);
}

/// Checks and computes the dtype two operands of arithmetic share.
static std::optional<Type> unifyOperands(const Type &a, const Type &b) {
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
static std::optional<std::vector<int64_t>>
broadcast(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      shape[i] = db;
    else if (db == 1 || da == db)
      shape[i] = da;
    else if (da == kDynamicDim || db == kDynamicDim)
      shape[i] = da == kDynamicDim ? db : da;
    else
      return std::nullopt;
  }
  return shape;
}

class SemaImpl {
public:
  SemaImpl(const Module &module, mlir::MLIRContext *ctx)
      : module(module), ctx(ctx) {}

  std::unique_ptr<Program> run();

private:
  /// Per-specialization analysis state.
  struct Frame {
    Specialization *spec;
    llvm::StringMap<Type> vars;
    std::optional<Type> returnType;
    bool isScript;
    /// Names bound on some paths only (one branch of an `if`, inside a
    /// loop): using them is an error.
    llvm::StringSet<> conditional;
    /// How many `if`/`for`/`while` bodies enclose the current statement.
    int controlDepth = 0;
    /// How many loops enclose the current statement.
    int loopDepth = 0;
  };

  mlir::InFlightDiagnostic error(Position p) {
    return mlir::emitError(
        mlir::FileLineColLoc::get(ctx, module.fileName, p.line, p.col));
  }

  /// Analyzes `block` from statement `from` on.
  LogicalResult analyzeBlock(const Block &block, size_t from = 0);
  void collectModuleConstants();
  LogicalResult analyzeIf(const IfStmt *stmt);
  LogicalResult analyzeLoop(const Stmt *stmt, const Block &body,
                            const Expr *cond, const std::string &loopVar,
                            const Type &loopVarType = Type::tensor(DType::I64,
                                                                   {}));
  LogicalResult analyzeFor(const ForStmt *stmt);
  LogicalResult checkCondition(const Expr *cond, llvm::StringRef what);
  LogicalResult analyzeStmt(const Stmt *stmt);
  LogicalResult bindTarget(const Expr *target, const Type &type);
  FailureOr<Type> analyzeExpr(const Expr *expr);
  FailureOr<Type> analyzeName(const NameExpr *expr);
  FailureOr<Type> analyzeList(const ListExpr *expr);
  FailureOr<Type> analyzeUnary(const UnaryExpr *expr);
  FailureOr<Type> analyzeBinary(const BinaryExpr *expr);
  FailureOr<Type> binaryType(BinaryOp op, const Expr *lhsExpr, Type lhs,
                             const Expr *rhsExpr, Type rhs, Position opPos);
  FailureOr<Type> analyzeCompare(const CompareExpr *expr);
  FailureOr<Type> analyzeSubscript(const SubscriptExpr *expr);
  FailureOr<Type> analyzeCond(const CondExpr *expr);
  FailureOr<Type> requireBoolScalar(const Expr *expr, llvm::StringRef what);
  FailureOr<Type> analyzeCall(const CallExpr *expr);
  FailureOr<Type> analyzePrint(const CallExpr *expr);
  LogicalResult analyzeFString(const FStringExpr *expr);
  FailureOr<Type> analyzeBuiltin(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeReduction(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeNN(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeFlag(const CallExpr *expr);
  FailureOr<Type> analyzeShapeBuiltin(const CallExpr *expr,
                                      llvm::StringRef name);
  std::optional<std::vector<int64_t>> constInts(const Expr *e);
  /// Types, coerces and broadcasts the operands of an elementwise built-in.
  FailureOr<Type> elementwiseOperands(const CallExpr *expr,
                                      llvm::StringRef name,
                                      llvm::ArrayRef<Type> types);
  FailureOr<Type> analyzeUserCall(const CallExpr *expr, const Type &callee);
  /// Checks `actual` against the type annotation `ann` (`f32`,
  /// `f32[N, 28, ?]`, a tuple of these); named dims bind in `dims`. A weak
  /// literal takes the annotated dtype (`adjusted`).
  LogicalResult checkAnnotation(const Expr *ann, const Type &actual,
                                llvm::StringMap<int64_t> &dims,
                                llvm::StringRef what, Position at,
                                Type &adjusted);
  FailureOr<Specialization *>
  specialize(const Type &callee, std::vector<Type> argTypes, Position callPos);
  LogicalResult unsupported(const Expr *expr, llvm::StringRef what);
  /// The function value of `def` defined here: it captures the enclosing
  /// variables its body reads (closure conversion).
  Type closureOf(const FuncDef *def);

  /// Gives a weak expression (a literal, or arithmetic on literals) `dtype`.
  void coerce(const Expr *expr, DType dtype);
  Type &typeOf(const Expr *expr) { return frame->spec->types[expr]; }

  const Module &module;
  mlir::MLIRContext *ctx;
  std::unique_ptr<Program> program;
  llvm::StringMap<const FuncDef *> globals;
  /// Module constants: top-level names bound once, to a literal.
  llvm::StringMap<const Expr *> constants;
  /// Every name the script body binds (for a helpful error in functions).
  llvm::StringSet<> topLevelNames;
  std::map<std::pair<const FuncDef *, std::string>, Specialization *> cache;
  std::vector<Specialization *> inProgress;
  Frame *frame = nullptr;
};

/// Adds the names `target` binds.
static void collectTargetNames(const Expr *target, llvm::StringSet<> &out) {
  if (auto *name = dyn_cast<NameExpr>(target))
    out.insert(name->name);
  else if (auto *tuple = dyn_cast<TupleExpr>(target))
    for (const ExprPtr &e : tuple->elements)
      collectTargetNames(e.get(), out);
}

static void collectAssigned(const Block &block, llvm::StringSet<> &out);

/// Adds every name a statement may (re)bind, nested blocks included.
static void collectStmtAssigned(const Stmt *s, llvm::StringSet<> &out) {
  if (auto *a = dyn_cast<AssignStmt>(s)) {
    for (const ExprPtr &t : a->targets)
      collectTargetNames(t.get(), out);
  } else if (auto *a = dyn_cast<AugAssignStmt>(s)) {
    collectTargetNames(a->target.get(), out);
  } else if (auto *i = dyn_cast<IfStmt>(s)) {
    collectAssigned(i->body, out);
    collectAssigned(i->orelse, out);
  } else if (auto *f = dyn_cast<ForStmt>(s)) {
    collectTargetNames(f->target.get(), out);
    collectAssigned(f->body, out);
  } else if (auto *w = dyn_cast<WhileStmt>(s)) {
    collectAssigned(w->body, out);
  }
}

/// Adds every name a block may (re)bind, nested blocks included.
static void collectAssigned(const Block &block, llvm::StringSet<> &out) {
  for (const StmtPtr &s : block)
    collectStmtAssigned(s.get(), out);
}

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
    case Stmt::Kind::FuncDef:
      collectReadNames(cast<FuncDef>(s.get())->body, out);
      break;
    default:
      break;
    }
  }
}

/// True when `block` has a `continue` of its own loop.
static bool anyContinue(const Block &block) {
  for (const StmtPtr &s : block) {
    if (isa<ContinueStmt>(s.get()))
      return true;
    if (auto *i = dyn_cast<IfStmt>(s.get()))
      if (anyContinue(i->body) || anyContinue(i->orelse))
        return true;
  }
  return false;
}

/// True for a literal a module constant may hold: numbers, booleans,
/// strings, nested lists of numbers, and tuples of these.
static bool isLiteral(const Expr *e) {
  if (isa<IntExpr, FloatExpr, BoolExpr, StringExpr>(e))
    return true;
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return isa<IntExpr, FloatExpr>(u->operand.get());
  if (auto *l = dyn_cast<ListExpr>(e))
    return llvm::all_of(l->elements,
                        [](const ExprPtr &x) { return isLiteral(x.get()); });
  if (auto *t = dyn_cast<TupleExpr>(e))
    return llvm::all_of(t->elements,
                        [](const ExprPtr &x) { return isLiteral(x.get()); });
  return false;
}

void SemaImpl::collectModuleConstants() {
  llvm::StringMap<int> bindings;
  llvm::StringSet<> &all = topLevelNames;
  collectAssigned(module.body, all);
  for (const StmtPtr &s : module.body)
    if (auto *a = dyn_cast<AssignStmt>(s.get()))
      for (const ExprPtr &t : a->targets)
        if (auto *n = dyn_cast<NameExpr>(t.get())) {
          ++bindings[n->name];
          if (isLiteral(a->value.get()))
            constants[n->name] = a->value.get();
        }
  // A name rebound anywhere at top level is a variable, not a constant.
  for (const auto &entry : all)
    if (bindings.lookup(entry.getKey()) != 1)
      constants.erase(entry.getKey());
}

std::unique_ptr<Program> SemaImpl::run() {
  program = std::make_unique<Program>();
  program->module = &module;
  collectModuleConstants();
  for (const StmtPtr &s : module.body)
    if (auto *def = dyn_cast<FuncDef>(s.get()))
      globals[def->name] = def;

  auto entry = std::make_unique<Specialization>();
  entry->symbol = kEntrySymbol.str();
  program->entry = entry.get();
  program->specializations.push_back(std::move(entry));
  Frame script{program->entry, {}, std::nullopt, true};
  frame = &script;
  if (failed(analyzeBlock(module.body)))
    return nullptr;
  return std::move(program);
}

LogicalResult SemaImpl::analyzeBlock(const Block &block, size_t from) {
  for (size_t i = from; i < block.size(); ++i) {
    const Stmt *stmt = block[i].get();
    if (failed(analyzeStmt(stmt)))
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
    llvm::StringSet<> beforeCond = frame->conditional;
    llvm::StringSet<> assigned;
    for (size_t k = i + 1; k < block.size(); ++k)
      collectStmtAssigned(block[k].get(), assigned);
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
          error(block[i + 1]->getBegin())
              << "'" << name << "' changes type after a possible 'break' or "
              << "'continue': " << prior.str() << " before, " << after.str()
              << " after";
          return failure();
        }
        after = prior.weak && after.weak ? prior : after.strong();
        frame->vars[name] = after;
      }
      if (after.isTensor() || after.kind == Type::Kind::Tuple)
        yielded.push_back({name, after});
    }
    frame->spec->guards[stmt] = std::move(yielded);
    return success();
  }
  return success();
}

LogicalResult SemaImpl::bindTarget(const Expr *target, const Type &type) {
  if (auto *name = dyn_cast<NameExpr>(target)) {
    if (builtinNames().contains(name->name) || globals.count(name->name)) {
      // Rebinding a function's name would make calls ambiguous.
      if (globals.count(name->name)) {
        error(target->getBegin()) << "cannot assign to '" << name->name
                                  << "': it names a function of this module";
        return failure();
      }
    }
    frame->vars[name->name] = type;
    frame->conditional.erase(name->name);
    return success();
  }
  if (auto *tuple = dyn_cast<TupleExpr>(target)) {
    if (type.kind != Type::Kind::Tuple ||
        type.elements.size() != tuple->elements.size()) {
      error(target->getBegin()) << "cannot unpack " << type.str() << " into "
                                << tuple->elements.size() << " names";
      return failure();
    }
    for (size_t i = 0; i < tuple->elements.size(); ++i)
      if (failed(bindTarget(tuple->elements[i].get(), type.elements[i])))
        return failure();
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
    if (isa<StringExpr>(value))
      return success();
    return analyzeExpr(value);
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
      error(stmt->getBegin())
          << "this return gives " << type.str()
          << ", but an earlier return gives " << frame->returnType->str();
      return failure();
    }
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
    return analyzeLoop(stmt, w->body, w->cond.get(), "");
  }
  case Stmt::Kind::FuncDef: {
    auto *def = cast<FuncDef>(stmt);
    if (!def->decorators.empty()) {
      error(def->decorators.front().range.begin)
          << "decorator '@" << def->decorators.front().name
          << "' is not supported yet";
      return failure();
    }
    // A top-level def sees module constants; a nested one closes over the
    // enclosing function's variables.
    frame->vars[def->name] =
        frame->isScript ? Type::function(def) : closureOf(def);
    frame->conditional.erase(def->name);
    return success();
  }
  default:
    break;
  }
  llvm::StringRef what;
  switch (stmt->getKind()) {
  case Stmt::Kind::AnnAssign:
    what = "annotated assignment";
    break;
  case Stmt::Kind::Import:
  case Stmt::Kind::FromImport:
    what = "'import'";
    break;
  case Stmt::Kind::ClassDef:
    what = "'class'";
    break;
  default:
    what = "this statement";
  }
  error(stmt->getBegin()) << what << " is not supported yet";
  return failure();
}

LogicalResult SemaImpl::checkCondition(const Expr *cond, llvm::StringRef what) {
  return requireBoolScalar(cond, ("the condition of " + what).str());
}

LogicalResult SemaImpl::analyzeIf(const IfStmt *stmt) {
  if (failed(checkCondition(stmt->cond.get(), "'if'")))
    return failure();
  llvm::StringMap<Type> before = frame->vars;
  llvm::StringSet<> beforeCond = frame->conditional;

  ++frame->controlDepth;
  if (failed(analyzeBlock(stmt->body)))
    return failure();
  llvm::StringMap<Type> thenVars = std::move(frame->vars);
  llvm::StringSet<> thenCond = std::move(frame->conditional);
  frame->vars = before;
  frame->conditional = beforeCond;
  if (failed(analyzeBlock(stmt->orelse)))
    return failure();
  llvm::StringMap<Type> elseVars = std::move(frame->vars);
  llvm::StringSet<> elseCond = std::move(frame->conditional);
  --frame->controlDepth;

  frame->vars = std::move(before);
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
      error(stmt->getBegin())
          << "'" << name << "' is " << a.str() << " after the 'if' branch but "
          << b.str() << " after the 'else' branch";
      return failure();
    }
    frame->vars[name] = *merged;
    if (merged->isTensor() || merged->kind == Type::Kind::Tuple)
      yielded.push_back({name, *merged});
  }
  frame->spec->carried[stmt] = std::move(yielded);
  return success();
}

LogicalResult SemaImpl::analyzeLoop(const Stmt *stmt, const Block &body,
                                    const Expr *cond,
                                    const std::string &loopVar,
                                    const Type &loopVarType) {
  llvm::StringMap<Type> before = frame->vars;
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
    if (name == loopVar || !before.count(name) || beforeCond.contains(name))
      continue;
    const Type &t = before[name];
    if (!t.isTensor() && t.kind != Type::Kind::Tuple) {
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
    frame->conditional = beforeCond;
    for (const CarriedVar &c : carried)
      frame->vars[c.name] = c.type;
    if (!loopVar.empty()) {
      frame->vars[loopVar] = loopVarType;
      frame->conditional.erase(loopVar);
    }
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
        changed |= c.type.weak;
        c.type = c.type.strong();
        continue;
      }
      if (c.type.weak && after.isTensor() && after.shape == c.type.shape &&
          round < 3) {
        c.type = after.strong();
        changed = true;
        continue;
      }
      error(stmt->getBegin())
          << "loop-carried '" << c.name
          << "' changes type in the loop: " << c.type.str()
          << " before an iteration, " << after.str() << " after it";
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
  frame->vars = std::move(before);
  frame->conditional = std::move(beforeCond);
  for (const CarriedVar &c : carried)
    frame->vars[c.name] = c.type;
  for (const std::string &name : names) {
    if (frame->vars.count(name) && !frame->conditional.contains(name) &&
        name != loopVar)
      continue;
    frame->vars[name] = bodyVars[name];
    frame->conditional.insert(name);
  }
  frame->spec->carried[stmt] = std::move(carried);
  return success();
}

LogicalResult SemaImpl::analyzeFor(const ForStmt *stmt) {
  auto *target = dyn_cast<NameExpr>(stmt->target.get());
  auto *call = dyn_cast<CallExpr>(stmt->iter.get());
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (!callee || callee->name != "range" || frame->vars.count("range")) {
    // for x in t: the first axis of a tensor, or the elements of a tuple.
    FailureOr<Type> seq = analyzeExpr(stmt->iter.get());
    if (failed(seq))
      return failure();
    if (!target) {
      error(stmt->target->getBegin())
          << "the target of a 'for' must be one name";
      return failure();
    }
    if (seq->isTensor() && seq->rank() > 0 && seq->shape[0] != kDynamicDim) {
      std::vector<int64_t> rowShape(seq->shape.begin() + 1, seq->shape.end());
      return analyzeLoop(stmt, stmt->body, nullptr, target->name,
                         Type::tensor(seq->dtype, rowShape, seq->weak));
    }
    if (seq->kind == Type::Kind::Tuple && !seq->elements.empty()) {
      for (const Type &e : seq->elements)
        if (e != seq->elements.front()) {
          error(stmt->iter->getBegin())
              << "a 'for' over a tuple needs elements of one type (it is "
                 "unrolled), got "
              << seq->str();
          return failure();
        }
      if (hasBreak(stmt->body) || anyContinue(stmt->body)) {
        error(stmt->getBegin()) << "'break' and 'continue' in a 'for' over a "
                                   "tuple are not supported yet";
        return failure();
      }
      return analyzeLoop(stmt, stmt->body, nullptr, target->name,
                         seq->elements.front());
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
  return analyzeLoop(stmt, stmt->body, nullptr, target->name);
}

Type SemaImpl::closureOf(const FuncDef *def) {
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

LogicalResult SemaImpl::unsupported(const Expr *expr, llvm::StringRef what) {
  error(expr->getBegin()) << what << " is not supported yet";
  return failure();
}

FailureOr<Type> SemaImpl::analyzeExpr(const Expr *expr) {
  FailureOr<Type> result = failure();
  switch (expr->getKind()) {
  case Expr::Kind::Int:
    result = Type::tensor(DType::I64, {}, /*weak=*/true);
    break;
  case Expr::Kind::Float:
    result = Type::tensor(DType::F32, {}, /*weak=*/true);
    break;
  case Expr::Kind::Bool:
    result = Type::tensor(DType::Bool, {});
    break;
  case Expr::Kind::String:
    result = Type::string(cast<StringExpr>(expr)->value);
    break;
  case Expr::Kind::None:
    result = Type::none();
    break;
  case Expr::Kind::Name:
    result = analyzeName(cast<NameExpr>(expr));
    break;
  case Expr::Kind::List:
    result = analyzeList(cast<ListExpr>(expr));
    break;
  case Expr::Kind::Tuple: {
    std::vector<Type> elements;
    for (const ExprPtr &e : cast<TupleExpr>(expr)->elements) {
      FailureOr<Type> t = analyzeExpr(e.get());
      if (failed(t))
        return failure();
      elements.push_back(*t);
    }
    result = Type::tuple(std::move(elements));
    break;
  }
  case Expr::Kind::Unary:
    result = analyzeUnary(cast<UnaryExpr>(expr));
    break;
  case Expr::Kind::Binary:
    result = analyzeBinary(cast<BinaryExpr>(expr));
    break;
  case Expr::Kind::Call:
    result = analyzeCall(cast<CallExpr>(expr));
    break;
  case Expr::Kind::FString:
    return unsupported(expr, "an f-string outside print(...)");
  case Expr::Kind::Ellipsis:
    return unsupported(expr, "'...' outside a subscript");
  case Expr::Kind::Compare:
    result = analyzeCompare(cast<CompareExpr>(expr));
    break;
  case Expr::Kind::Not:
    if (failed(requireBoolScalar(cast<NotExpr>(expr)->operand.get(),
                                 "the operand of 'not'")))
      return failure();
    result = Type::tensor(DType::Bool, {});
    break;
  case Expr::Kind::BoolOp: {
    auto *b = cast<BoolOpExpr>(expr);
    llvm::StringRef what =
        b->isAnd ? "an operand of 'and'" : "an operand of 'or'";
    if (failed(requireBoolScalar(b->lhs.get(), what)) ||
        failed(requireBoolScalar(b->rhs.get(), what)))
      return failure();
    result = Type::tensor(DType::Bool, {});
    break;
  }
  case Expr::Kind::Cond:
    result = analyzeCond(cast<CondExpr>(expr));
    break;
  case Expr::Kind::Attribute:
    return unsupported(expr, "attribute access");
  case Expr::Kind::Subscript:
    result = analyzeSubscript(cast<SubscriptExpr>(expr));
    break;
  case Expr::Kind::Slice:
    return unsupported(expr, "a slice outside a subscript");
  case Expr::Kind::Lambda:
    result = closureOf(cast<LambdaExpr>(expr)->def.get());
    break;
  }
  if (failed(result))
    return failure();
  typeOf(expr) = *result;
  return result;
}

FailureOr<Type> SemaImpl::analyzeName(const NameExpr *expr) {
  auto it = frame->vars.find(expr->name);
  if (it != frame->vars.end()) {
    if (frame->conditional.contains(expr->name)) {
      error(expr->getBegin())
          << "name '" << expr->name
          << "' may be unbound here: it is assigned only in one branch of an "
             "'if' or inside a loop";
      return failure();
    }
    return it->second;
  }
  if (!frame->isScript) {
    auto g = globals.find(expr->name);
    if (g != globals.end())
      return Type::function(g->second);
    // A module constant, emitted where it is used.
    auto c = constants.find(expr->name);
    if (c != constants.end()) {
      FailureOr<Type> t = analyzeExpr(c->second);
      if (succeeded(t))
        frame->spec->constantUses[expr] = c->second;
      return t;
    }
  }
  if (builtinNames().contains(expr->name))
    return Type::builtin(expr->name);
  if (std::optional<DType> dtype = dtypeNamed(expr->name))
    return Type::dtypeValue(*dtype);
  if (!frame->isScript && topLevelNames.contains(expr->name)) {
    error(expr->getBegin())
        << "name '" << expr->name
        << "' is not defined in this function: functions see module "
           "constants (top-level names bound once to a literal), not "
           "script variables; pass it as an argument";
    return failure();
  }
  error(expr->getBegin()) << "name '" << expr->name << "' is not defined";
  return failure();
}

/// The literal number of a list leaf (`1`, `-2.5`, `True`), if it is one.
static const Expr *literalLeaf(const Expr *e) {
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return isa<IntExpr, FloatExpr>(u->operand.get()) ? u->operand.get()
                                                     : nullptr;
  return isa<IntExpr, FloatExpr, BoolExpr>(e) ? e : nullptr;
}

FailureOr<Type> SemaImpl::analyzeList(const ListExpr *expr) {
  // A nested list of number literals: find its shape and dtype.
  std::vector<int64_t> shape;
  bool anyFloat = false, anyInt = false, anyBool = false;
  std::function<LogicalResult(const Expr *, size_t)> visit =
      [&](const Expr *e, size_t depth) -> LogicalResult {
    if (auto *list = dyn_cast<ListExpr>(e)) {
      int64_t n = list->elements.size();
      if (depth == shape.size())
        shape.push_back(n);
      else if (depth > shape.size() || shape[depth] != n) {
        error(e->getBegin()) << "ragged list literal: this list has " << n
                             << " elements where its siblings have "
                             << (depth < shape.size() ? shape[depth] : 0);
        return failure();
      }
      for (const ExprPtr &child : list->elements)
        if (failed(visit(child.get(), depth + 1)))
          return failure();
      return success();
    }
    if (depth != shape.size()) {
      error(e->getBegin()) << "ragged list literal: a number where a list "
                              "is expected";
      return failure();
    }
    const Expr *leaf = literalLeaf(e);
    if (!leaf) {
      error(e->getBegin()) << "a list literal holds only number literals "
                              "(build tensors from values with stack(...))";
      return failure();
    }
    anyFloat |= isa<FloatExpr>(leaf);
    anyInt |= isa<IntExpr>(leaf);
    anyBool |= isa<BoolExpr>(leaf);
    return success();
  };
  if (failed(visit(expr, 0)))
    return failure();
  if (anyBool && (anyFloat || anyInt)) {
    error(expr->getBegin()) << "a list literal mixes booleans and numbers";
    return failure();
  }
  // A list literal is a tensor (as jnp.array is): only scalar literals are
  // weak (LANGUAGE.md section 3).
  // An empty list is a float tensor, as NumPy's np.array([]).
  bool anyLeaf = anyFloat || anyInt || anyBool;
  DType dtype = (anyFloat || !anyLeaf) ? DType::F32
                : anyBool              ? DType::Bool
                                       : DType::I64;
  return Type::tensor(dtype, shape);
}

void SemaImpl::coerce(const Expr *expr, DType dtype) {
  Type &t = typeOf(expr);
  if (!t.isTensor() || !t.weak)
    return;
  // A module constant read here is emitted in the dtype this use needs.
  auto constant = frame->spec->constantUses.find(expr);
  if (constant != frame->spec->constantUses.end())
    coerce(constant->second, dtype);
  t.dtype = dtype;
  t.weak = false;
  if (auto *u = dyn_cast<UnaryExpr>(expr))
    coerce(u->operand.get(), dtype);
  else if (auto *b = dyn_cast<BinaryExpr>(expr)) {
    if (b->op == BinaryOp::Div && isFloat(dtype)) {
      coerce(b->lhs.get(), dtype);
      coerce(b->rhs.get(), dtype);
    } else if (b->op != BinaryOp::Div) {
      coerce(b->lhs.get(), dtype);
      coerce(b->rhs.get(), dtype);
    }
  }
}

FailureOr<Type> SemaImpl::analyzeUnary(const UnaryExpr *expr) {
  FailureOr<Type> t = analyzeExpr(expr->operand.get());
  if (failed(t))
    return failure();
  if (!t->isTensor() || t->dtype == DType::Bool) {
    error(expr->getBegin()) << "bad operand type for unary "
                            << spelling(expr->op) << ": " << t->str();
    return failure();
  }
  return *t;
}

FailureOr<Type> SemaImpl::analyzeBinary(const BinaryExpr *expr) {
  FailureOr<Type> lhs = analyzeExpr(expr->lhs.get());
  if (failed(lhs))
    return failure();
  FailureOr<Type> rhs = analyzeExpr(expr->rhs.get());
  if (failed(rhs))
    return failure();
  return binaryType(expr->op, expr->lhs.get(), *lhs, expr->rhs.get(), *rhs,
                    expr->opPos);
}

FailureOr<Type> SemaImpl::binaryType(BinaryOp binOp, const Expr *lhsExpr,
                                     Type lhs, const Expr *rhsExpr, Type rhs,
                                     Position opPos) {
  llvm::StringRef op = spelling(binOp);
  if (!lhs.isTensor() || !rhs.isTensor() || lhs.dtype == DType::Bool ||
      rhs.dtype == DType::Bool) {
    error(opPos) << "unsupported operand types for " << op << ": " << lhs.str()
                 << " and " << rhs.str();
    return failure();
  }
  std::optional<Type> common = unifyOperands(lhs, rhs);
  if (!common) {
    error(opPos) << "operands of " << op
                 << " have different dtypes: " << lhs.str() << " and "
                 << rhs.str() << " (use cast(x, dtype) to convert one)";
    return failure();
  }
  DType dtype = common->dtype;
  bool weak = lhs.weak && rhs.weak;
  if (!weak) {
    coerce(lhsExpr, dtype);
    coerce(rhsExpr, dtype);
  }

  if (binOp == BinaryOp::MatMul) {
    // NumPy's matmul: a 1-D operand is promoted (and its dim dropped from
    // the result), leading batch dims broadcast.
    if (lhs.rank() == 0 || rhs.rank() == 0) {
      error(opPos) << "matmul needs operands of at least 1 dim, got "
                   << lhs.str() << " @ " << rhs.str();
      return failure();
    }
    std::vector<int64_t> a = lhs.shape, b = rhs.shape;
    if (a.size() == 1)
      a.insert(a.begin(), 1);
    if (b.size() == 1)
      b.push_back(1);
    int64_t k1 = a.back(), k2 = b[b.size() - 2];
    if (k1 != kDynamicDim && k2 != kDynamicDim && k1 != k2) {
      error(opPos) << "matmul shape mismatch: " << lhs.str() << " @ "
                   << rhs.str() << " (inner dimensions " << k1 << " and " << k2
                   << " differ)";
      return failure();
    }
    std::optional<std::vector<int64_t>> batch =
        broadcast(std::vector<int64_t>(a.begin(), a.end() - 2),
                  std::vector<int64_t>(b.begin(), b.end() - 2));
    if (!batch) {
      error(opPos) << "matmul batch dimensions do not broadcast: " << lhs.str()
                   << " @ " << rhs.str();
      return failure();
    }
    std::vector<int64_t> shape = *batch;
    if (lhs.rank() > 1)
      shape.push_back(a[a.size() - 2]);
    if (rhs.rank() > 1)
      shape.push_back(b.back());
    return Type::tensor(dtype, shape, weak);
  }

  // Elementwise: NumPy broadcasting of the two shapes.
  std::optional<std::vector<int64_t>> shape = broadcast(lhs.shape, rhs.shape);
  if (!shape) {
    error(opPos) << "shapes do not broadcast for " << op << ": " << lhs.str()
                 << " and " << rhs.str();
    return failure();
  }
  // True division of integers gives f32 (LANGUAGE.md section 3).
  if (binOp == BinaryOp::Div && !isFloat(dtype))
    dtype = DType::F32;
  return Type::tensor(dtype, *shape, weak);
}

FailureOr<Type> SemaImpl::requireBoolScalar(const Expr *expr,
                                            llvm::StringRef what) {
  FailureOr<Type> t = analyzeExpr(expr);
  if (failed(t))
    return failure();
  if (!t->isScalar() || t->dtype != DType::Bool) {
    error(expr->getBegin())
        << what << " must be a bool scalar, got " << t->str();
    return failure();
  }
  return t;
}

FailureOr<Type> SemaImpl::analyzeCompare(const CompareExpr *expr) {
  std::vector<Type> types;
  for (const ExprPtr &operand : expr->operands) {
    FailureOr<Type> t = analyzeExpr(operand.get());
    if (failed(t))
      return failure();
    if (!t->isTensor()) {
      error(operand->getBegin()) << "cannot compare " << t->str();
      return failure();
    }
    types.push_back(*t);
  }
  if (expr->ops.size() > 1) {
    for (size_t i = 0; i < types.size(); ++i)
      if (!types[i].isScalar()) {
        error(expr->operands[i]->getBegin())
            << "a chained comparison needs scalars, got " << types[i].str();
        return failure();
      }
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < expr->ops.size(); ++i) {
    const Type &a = types[i], &b = types[i + 1];
    std::optional<Type> common = unifyOperands(a, b);
    bool boolEquality =
        a.dtype == DType::Bool && b.dtype == DType::Bool &&
        (expr->ops[i] == CompareOp::Eq || expr->ops[i] == CompareOp::Ne);
    if (!common || (common->dtype == DType::Bool && !boolEquality)) {
      error(expr->operands[i]->getBegin())
          << "cannot compare " << a.str() << " " << spelling(expr->ops[i])
          << " " << b.str() << " (use cast(x, dtype) to convert one)";
      return failure();
    }
    coerce(expr->operands[i].get(), common->dtype);
    coerce(expr->operands[i + 1].get(), common->dtype);
    std::optional<std::vector<int64_t>> s = broadcast(a.shape, b.shape);
    if (!s) {
      error(expr->operands[i]->getBegin())
          << "shapes do not broadcast for " << spelling(expr->ops[i]) << ": "
          << a.str() << " and " << b.str();
      return failure();
    }
    shape = *s;
  }
  return Type::tensor(DType::Bool, shape);
}

FailureOr<Type> SemaImpl::analyzeCond(const CondExpr *expr) {
  if (failed(requireBoolScalar(expr->cond.get(),
                               "the condition of a conditional expression")))
    return failure();
  FailureOr<Type> a = analyzeExpr(expr->thenExpr.get());
  if (failed(a))
    return failure();
  FailureOr<Type> b = analyzeExpr(expr->elseExpr.get());
  if (failed(b))
    return failure();
  std::optional<Type> common;
  if (a->isTensor() && b->isTensor() && a->shape == b->shape)
    common = unifyOperands(*a, *b);
  if (!common) {
    error(expr->getBegin())
        << "the two values of a conditional expression differ in type: "
        << a->str() << " and " << b->str();
    return failure();
  }
  coerce(expr->thenExpr.get(), common->dtype);
  coerce(expr->elseExpr.get(), common->dtype);
  return Type::tensor(common->dtype, a->shape, a->weak && b->weak);
}

FailureOr<Type> SemaImpl::analyzeCall(const CallExpr *expr) {
  FailureOr<Type> callee = analyzeExpr(expr->callee.get());
  if (failed(callee))
    return failure();
  if (callee->kind == Type::Kind::Builtin && callee->name == "print")
    return analyzePrint(expr);
  if (callee->kind == Type::Kind::Builtin) {
    frame->spec->builtinCalls[expr] = callee->name;
    return analyzeBuiltin(expr, callee->name);
  }
  if (callee->kind == Type::Kind::Function)
    return analyzeUserCall(expr, *callee);
  error(expr->getBegin()) << "'" << callee->str() << "' is not callable";
  return failure();
}

FailureOr<Type> SemaImpl::elementwiseOperands(const CallExpr *expr,
                                              llvm::StringRef name,
                                              llvm::ArrayRef<Type> types) {
  Type common = types.front();
  std::vector<int64_t> shape = common.shape;
  for (size_t i = 1; i < types.size(); ++i) {
    std::optional<Type> u = unifyOperands(common, types[i]);
    if (!u) {
      error(expr->args[i]->getBegin())
          << name << "() arguments have different dtypes: " << common.str()
          << " and " << types[i].str() << " (use cast(x, dtype))";
      return failure();
    }
    std::optional<std::vector<int64_t>> s = broadcast(shape, types[i].shape);
    if (!s) {
      error(expr->args[i]->getBegin())
          << name << "() arguments do not broadcast: "
          << Type::tensor(common.dtype, shape).str() << " and "
          << types[i].str();
      return failure();
    }
    common = Type::tensor(u->dtype, *s, common.weak && types[i].weak);
    shape = *s;
  }
  for (const ExprPtr &arg : expr->args)
    coerce(arg.get(), common.dtype);
  return common;
}

/// The integer literal `e` denotes (`2`, `-1`), if it is one.
static std::optional<int64_t> intLiteral(const Expr *e) {
  if (auto *i = dyn_cast<IntExpr>(e))
    return i->value;
  if (auto *u = dyn_cast<UnaryExpr>(e))
    if (auto *i = dyn_cast<IntExpr>(u->operand.get()))
      return u->op == UnaryOp::Minus ? -i->value : i->value;
  return std::nullopt;
}

FailureOr<Type> SemaImpl::analyzeSubscript(const SubscriptExpr *expr) {
  FailureOr<Type> value = analyzeExpr(expr->value.get());
  if (failed(value))
    return failure();
  // A tuple with a literal index: its element (`shape(x)[0]`).
  if (value->kind == Type::Kind::Tuple) {
    std::optional<int64_t> k = expr->indices.size() == 1
                                   ? intLiteral(expr->indices[0].get())
                                   : std::nullopt;
    int64_t n = value->elements.size();
    if (!k || *k < -n || *k >= n) {
      error(expr->getBegin())
          << "a tuple of " << n << " is indexed by an integer literal in "
          << "range";
      return failure();
    }
    int64_t i = *k < 0 ? *k + n : *k;
    frame->spec->tupleIndices[expr] = i;
    return value->elements[i];
  }
  if (!value->isTensor() || value->rank() == 0) {
    error(expr->getBegin()) << "cannot index " << value->str();
    return failure();
  }
  int64_t rank = value->rank();
  int64_t consuming = 0, ellipses = 0;
  for (const ExprPtr &item : expr->indices) {
    if (isa<EllipsisExpr>(item.get()))
      ++ellipses;
    else if (!isa<NoneExpr>(item.get()))
      ++consuming;
  }
  if (ellipses > 1 || consuming > rank) {
    error(expr->getBegin())
        << (ellipses > 1 ? "an index can have one '...' only"
                         : "too many indices for " + value->str());
    return failure();
  }
  SubscriptPlan plan;
  std::vector<int64_t> resultShape;
  int64_t dim = 0;
  auto fullSlice = [&] {
    plan.dims.push_back(
        {SubscriptPlan::Slice, 0, nullptr, false, value->shape[dim], 1});
    resultShape.push_back(value->shape[dim]);
    ++dim;
  };
  for (const ExprPtr &itemPtr : expr->indices) {
    const Expr *item = itemPtr.get();
    if (isa<EllipsisExpr>(item)) {
      for (int64_t k = 0; k < rank - consuming; ++k)
        fullSlice();
      continue;
    }
    if (isa<NoneExpr>(item)) {
      resultShape.push_back(1);
      continue;
    }
    int64_t n = value->shape[dim];
    if (auto *s = dyn_cast<SliceExpr>(item)) {
      std::optional<int64_t> step = s->step ? intLiteral(s->step.get()) : 1;
      if (!step || *step == 0) {
        error(item->getBegin()) << "a slice step must be a nonzero integer "
                                   "literal";
        return failure();
      }
      std::optional<int64_t> lo =
          s->lo ? intLiteral(s->lo.get()) : std::nullopt;
      std::optional<int64_t> hi =
          s->hi ? intLiteral(s->hi.get()) : std::nullopt;
      if ((!s->lo || lo) && (!s->hi || hi)) {
        // Python's slice.indices(n).
        auto clampIndex = [&](std::optional<int64_t> v, bool isLo) -> int64_t {
          if (!v)
            return *step > 0 ? (isLo ? 0 : n) : (isLo ? n - 1 : -1);
          int64_t x = *v < 0 ? *v + n : *v;
          if (*step > 0)
            return std::clamp<int64_t>(x, 0, n);
          return std::clamp<int64_t>(x, -1, n - 1);
        };
        int64_t start = clampIndex(lo, true), stop = clampIndex(hi, false);
        int64_t size =
            *step > 0
                ? std::max<int64_t>(0, (stop - start + *step - 1) / *step)
                : std::max<int64_t>(0, (start - stop - *step - 1) / -*step);
        plan.dims.push_back({SubscriptPlan::Slice, size ? start : 0, nullptr,
                             false, size, *step});
        resultShape.push_back(size);
        ++dim;
        continue;
      }
      // x[s : s + K]: a dynamic start with a static length.
      auto *sum = s->hi ? dyn_cast<BinaryExpr>(s->hi.get()) : nullptr;
      auto *loName = s->lo ? dyn_cast<NameExpr>(s->lo.get()) : nullptr;
      auto *sumName = sum ? dyn_cast<NameExpr>(sum->lhs.get()) : nullptr;
      std::optional<int64_t> k = sum && sum->op == BinaryOp::Add
                                     ? intLiteral(sum->rhs.get())
                                     : std::nullopt;
      if (!loName || !sumName || loName->name != sumName->name || !k ||
          *k < 0 || *step != 1) {
        error(item->getBegin())
            << "a slice with a computed bound needs a static length: write "
               "x[s : s + K] with K an integer literal (and no step)";
        return failure();
      }
      FailureOr<Type> st = analyzeExpr(s->lo.get());
      if (failed(st))
        return failure();
      if (!st->isScalar() || !isInteger(st->dtype)) {
        error(item->getBegin()) << "a slice start must be an integer scalar, "
                                   "got "
                                << st->str();
        return failure();
      }
      (void)analyzeExpr(s->hi.get()); // records the bound's types
      plan.dims.push_back({SubscriptPlan::Slice, 0, s->lo.get(), false, *k, 1});
      resultShape.push_back(*k);
      ++dim;
      continue;
    }
    if (std::optional<int64_t> i = intLiteral(item)) {
      int64_t x = *i < 0 ? *i + n : *i;
      if (x < 0 || x >= n) {
        error(item->getBegin()) << "index " << *i << " is out of range for "
                                << "axis " << dim << " of " << value->str();
        return failure();
      }
      plan.dims.push_back({SubscriptPlan::Index, x, nullptr, false, 1, 1});
      ++dim;
      continue;
    }
    FailureOr<Type> it = analyzeExpr(item);
    if (failed(it))
      return failure();
    if (!it->isScalar() || !isInteger(it->dtype)) {
      error(item->getBegin())
          << "an index must be an integer scalar, a slice, None or '...', "
             "got "
          << it->str();
      return failure();
    }
    plan.dims.push_back({SubscriptPlan::Index, 0, item, true, 1, 1});
    ++dim;
  }
  while (dim < rank)
    fullSlice();
  frame->spec->subscripts[expr] = std::move(plan);
  return Type::tensor(value->dtype, resultShape, value->weak);
}

FailureOr<Type> SemaImpl::analyzeReduction(const CallExpr *expr,
                                           llvm::StringRef name) {
  // name(x, axis=None, keepdims=False), axis and keepdims as literals.
  const Expr *axisExpr = expr->args.size() > 1 ? expr->args[1].get() : nullptr;
  const Expr *keepExpr = expr->args.size() > 2 ? expr->args[2].get() : nullptr;
  if (expr->args.empty() || expr->args.size() > 3) {
    error(expr->getBegin()) << name
                            << "() takes 1 to 3 arguments (x, axis, "
                               "keepdims), got "
                            << expr->args.size();
    return failure();
  }
  for (const Keyword &kw : expr->keywords) {
    const Expr **slot = kw.name == "axis"       ? &axisExpr
                        : kw.name == "keepdims" ? &keepExpr
                                                : nullptr;
    if (!slot) {
      error(kw.range.begin) << name << "() got an unexpected keyword argument '"
                            << kw.name << "'";
      return failure();
    }
    if (*slot) {
      error(kw.range.begin)
          << name << "() got multiple values for '" << kw.name << "'";
      return failure();
    }
    *slot = kw.value.get();
  }
  FailureOr<Type> x = analyzeExpr(expr->args[0].get());
  if (failed(x))
    return failure();
  if (!x->isTensor()) {
    error(expr->args[0]->getBegin())
        << name << "() takes a tensor, got " << x->str();
    return failure();
  }

  ReductionInfo info;
  if (keepExpr) {
    auto *b = dyn_cast<BoolExpr>(keepExpr);
    if (!b) {
      error(keepExpr->getBegin())
          << name << "()'s keepdims must be True or False";
      return failure();
    }
    info.keepdims = b->value;
  }
  std::vector<const Expr *> axisItems;
  if (!axisExpr || isa<NoneExpr>(axisExpr))
    info.allAxes = true;
  else if (auto *t = dyn_cast<TupleExpr>(axisExpr))
    for (const ExprPtr &e : t->elements)
      axisItems.push_back(e.get());
  else
    axisItems.push_back(axisExpr);
  int64_t rank = x->rank();
  for (const Expr *item : axisItems) {
    std::optional<int64_t> axis = intLiteral(item);
    if (!axis) {
      error(item->getBegin()) << name
                              << "()'s axis must be an integer literal, a "
                                 "tuple of them, or None";
      return failure();
    }
    int64_t a = *axis < 0 ? *axis + rank : *axis;
    if (a < 0 || a >= rank) {
      error(item->getBegin())
          << "axis " << *axis << " is out of range for " << x->str();
      return failure();
    }
    if (llvm::is_contained(info.axes, a)) {
      error(item->getBegin()) << "axis " << *axis << " is repeated";
      return failure();
    }
    info.axes.push_back(a);
  }
  if (info.allAxes)
    for (int64_t d = 0; d < rank; ++d)
      info.axes.push_back(d);
  llvm::sort(info.axes);

  bool isArg = name == "argmax" || name == "argmin";
  if (isArg && !info.allAxes && info.axes.size() != 1) {
    error(axisExpr->getBegin()) << name << "() takes one axis or None";
    return failure();
  }
  if (x->dtype == DType::Bool && name != "sum" && name != "mean" &&
      name != "prod") {
    error(expr->args[0]->getBegin())
        << name << "() takes numbers, got " << x->str();
    return failure();
  }
  if (name == "max" || name == "min" || isArg) {
    for (int64_t a : info.axes)
      if (x->shape[a] == 0) {
        error(expr->getBegin())
            << name << "() of an empty axis has no identity (" << x->str()
            << ", axis " << a << ")";
        return failure();
      }
  }
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(info.axes, d))
      shape.push_back(x->shape[d]);
    else if (info.keepdims)
      shape.push_back(1);
  }
  DType dtype = x->dtype;
  if (name == "sum" || name == "prod")
    dtype = dtype == DType::Bool ? DType::I64 : dtype;
  else if (name == "mean")
    dtype = isFloat(dtype) ? dtype : DType::F32;
  else if (isArg)
    dtype = DType::I64;
  else if (name == "logsumexp" && !isFloat(dtype)) {
    if (!x->weak) {
      error(expr->args[0]->getBegin())
          << "logsumexp() takes a float tensor, got " << x->str()
          << " (use cast(x, f32))";
      return failure();
    }
    dtype = DType::F32;
  }
  if (x->weak)
    coerce(expr->args[0].get(), isArg ? x->dtype : dtype);
  frame->spec->reductions[expr] = std::move(info);
  return Type::tensor(dtype, shape);
}

/// The shape or sizes an expression denotes at compile time: an integer
/// literal, a tuple or list of them, or shape(x).
std::optional<std::vector<int64_t>> SemaImpl::constInts(const Expr *e) {
  if (std::optional<int64_t> v = intLiteral(e))
    return std::vector<int64_t>{*v};
  std::vector<int64_t> out;
  const std::vector<ExprPtr> *items = nullptr;
  if (auto *t = dyn_cast<TupleExpr>(e))
    items = &t->elements;
  else if (auto *l = dyn_cast<ListExpr>(e))
    items = &l->elements;
  if (items) {
    for (const ExprPtr &item : *items) {
      std::optional<int64_t> v = intLiteral(item.get());
      if (!v)
        return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }
  if (auto *call = dyn_cast<CallExpr>(e)) {
    auto *callee = dyn_cast<NameExpr>(call->callee.get());
    if (callee && callee->name == "shape" && call->args.size() == 1 &&
        !frame->vars.count("shape")) {
      FailureOr<Type> t = analyzeExpr(call->args[0].get());
      if (succeeded(t) && t->isTensor())
        return t->shape;
    }
  }
  return std::nullopt;
}

/// Argument `index` of a call, given by position or as keyword `name`.
static const Expr *argument(const CallExpr *call, size_t index,
                            llvm::StringRef name) {
  if (index < call->args.size())
    return call->args[index].get();
  for (const Keyword &kw : call->keywords)
    if (kw.name == name)
      return kw.value.get();
  return nullptr;
}

FailureOr<Type> SemaImpl::analyzeShapeBuiltin(const CallExpr *expr,
                                              llvm::StringRef name) {
  static const llvm::StringMap<std::vector<std::string>> params = {
      {"zeros", {"shape", "dtype"}},
      {"ones", {"shape", "dtype"}},
      {"full", {"shape", "value", "dtype"}},
      {"zeros_like", {"x"}},
      {"ones_like", {"x"}},
      {"arange", {"start", "stop", "step"}},
      {"eye", {"n", "m"}},
      {"broadcast_to", {"x", "shape"}},
      {"reshape", {"x", "shape"}},
      {"transpose", {"x", "perm"}},
      {"expand_dims", {"x", "axis"}},
      {"squeeze", {"x", "axis"}},
      {"concat", {"tensors", "axis"}},
      {"stack", {"tensors", "axis"}},
      {"shape", {"x"}},
      {"size", {"x"}}};
  const std::vector<std::string> &names = params.find(name)->second;
  if (expr->args.size() > names.size()) {
    error(expr->getBegin()) << name << "() takes at most " << names.size()
                            << " arguments, got " << expr->args.size();
    return failure();
  }
  for (const Keyword &kw : expr->keywords)
    if (!llvm::is_contained(names, kw.name)) {
      error(kw.range.begin) << name << "() got an unexpected keyword argument '"
                            << kw.name << "'";
      return failure();
    }
  auto arg = [&](size_t i) { return argument(expr, i, names[i]); };
  auto fail = [&](const Expr *at, const llvm::Twine &msg) {
    error(at ? at->getBegin() : expr->getBegin()) << msg.str();
    return failure();
  };
  auto tensorArg = [&](size_t i) -> FailureOr<Type> {
    const Expr *e = arg(i);
    if (!e)
      return fail(nullptr, name + "() missing argument '" + names[i] + "'");
    FailureOr<Type> t = analyzeExpr(e);
    if (failed(t))
      return failure();
    if (!t->isTensor())
      return fail(e, name + "() takes a tensor for '" + names[i] + "', got " +
                         t->str());
    return t;
  };
  auto shapeArg = [&](size_t i) -> FailureOr<std::vector<int64_t>> {
    const Expr *e = arg(i);
    if (!e)
      return fail(nullptr, name + "() missing argument '" + names[i] + "'");
    std::optional<std::vector<int64_t>> s = constInts(e);
    if (!s)
      return fail(e, name + "()'s " + names[i] +
                         " must be integer literals (a tuple of them) or "
                         "shape(x)");
    return *s;
  };
  auto dtypeArg = [&](size_t i, DType fallback) -> FailureOr<DType> {
    const Expr *e = arg(i);
    if (!e)
      return fallback;
    FailureOr<Type> t = analyzeExpr(e);
    if (failed(t))
      return failure();
    if (t->kind != Type::Kind::DType)
      return fail(e, name + "()'s dtype must be a dtype (f32, i64, ...), got " +
                         t->str());
    return t->dtype;
  };
  auto checkDims = [&](const std::vector<int64_t> &shape,
                       const Expr *at) -> LogicalResult {
    for (int64_t d : shape)
      if (d < 0)
        return fail(at, name + "() got a negative dimension");
    return success();
  };

  if (name == "zeros" || name == "ones") {
    FailureOr<std::vector<int64_t>> shape = shapeArg(0);
    FailureOr<DType> dtype = dtypeArg(1, DType::F32);
    if (failed(shape) || failed(dtype) || failed(checkDims(*shape, arg(0))))
      return failure();
    return Type::tensor(*dtype, *shape);
  }
  if (name == "full") {
    FailureOr<std::vector<int64_t>> shape = shapeArg(0);
    if (failed(shape) || failed(checkDims(*shape, arg(0))))
      return failure();
    FailureOr<Type> value = tensorArg(1);
    if (failed(value))
      return failure();
    if (!value->isScalar())
      return fail(arg(1),
                  "full()'s value must be a scalar, got " + value->str());
    FailureOr<DType> dtype = dtypeArg(2, value->dtype);
    if (failed(dtype))
      return failure();
    coerce(arg(1), value->dtype);
    return Type::tensor(*dtype, *shape);
  }
  if (name == "zeros_like" || name == "ones_like") {
    FailureOr<Type> x = tensorArg(0);
    if (failed(x))
      return failure();
    return x->strong();
  }
  if (name == "arange" || name == "eye") {
    // Compile-time numbers only: the result is a constant.
    std::vector<int64_t> values;
    for (size_t i = 0; i < names.size(); ++i) {
      const Expr *e = arg(i);
      if (!e)
        break;
      std::optional<int64_t> v = intLiteral(e);
      if (!v)
        return fail(e, name + "() takes integer literals");
      values.push_back(*v);
    }
    if (values.empty())
      return fail(nullptr, name + "() missing argument '" + names[0] + "'");
    if (name == "eye") {
      int64_t n = values[0], m = values.size() > 1 ? values[1] : n;
      if (n < 0 || m < 0)
        return fail(nullptr, "eye() got a negative dimension");
      return Type::tensor(DType::F32, {n, m});
    }
    int64_t start = values.size() > 1 ? values[0] : 0;
    int64_t stop = values.size() > 1 ? values[1] : values[0];
    int64_t step = values.size() > 2 ? values[2] : 1;
    if (step == 0)
      return fail(arg(2), "arange() step must not be zero");
    int64_t count = std::max<int64_t>(
        0, (stop - start + step - (step > 0 ? 1 : -1)) / step);
    return Type::tensor(DType::I64, {count});
  }
  if (name == "shape" || name == "size") {
    FailureOr<Type> x = tensorArg(0);
    if (failed(x))
      return failure();
    for (int64_t d : x->shape)
      if (d == kDynamicDim)
        return fail(arg(0),
                    name + "() of a dynamic shape is not supported yet");
    if (name == "size")
      return Type::tensor(DType::I64, {});
    return Type::tuple(
        std::vector<Type>(x->shape.size(), Type::tensor(DType::I64, {})));
  }
  if (name == "concat" || name == "stack") {
    const Expr *seq = arg(0);
    const std::vector<ExprPtr> *items = nullptr;
    if (seq) {
      if (auto *t = dyn_cast<TupleExpr>(seq))
        items = &t->elements;
      else if (auto *l = dyn_cast<ListExpr>(seq))
        items = &l->elements;
    }
    if (!items || items->empty())
      return fail(seq, name + "() takes a non-empty tuple or list of tensors");
    std::vector<Type> types;
    for (const ExprPtr &item : *items) {
      FailureOr<Type> t = analyzeExpr(item.get());
      if (failed(t))
        return failure();
      if (!t->isTensor())
        return fail(item.get(), name + "() takes tensors, got " + t->str());
      types.push_back(*t);
    }
    std::optional<int64_t> axisValue = arg(1) ? intLiteral(arg(1)) : 0;
    if (!axisValue)
      return fail(arg(1), name + "()'s axis must be an integer literal");
    Type first = types.front();
    int64_t rank = first.rank() + (name == "stack" ? 1 : 0);
    int64_t axis = *axisValue < 0 ? *axisValue + rank : *axisValue;
    if (axis < 0 || axis >= rank)
      return fail(arg(1), "axis " + llvm::Twine(*axisValue) +
                              " is out of range for " + name + "()");
    // The inputs' one dtype: the first strong input's (literals adapt).
    DType dtype = first.dtype;
    for (const Type &t : types)
      if (!t.weak) {
        dtype = t.dtype;
        break;
      }
    std::vector<int64_t> shape = first.shape;
    if (name == "stack")
      shape.insert(shape.begin() + axis, 0);
    else
      shape[axis] = 0;
    for (size_t i = 0; i < types.size(); ++i) {
      const Type &t = types[i];
      bool sameDtype = t.dtype == dtype || t.weak;
      bool sameShape = t.rank() == first.rank();
      for (int64_t d = 0; sameShape && d < t.rank(); ++d) {
        int64_t outDim = name == "stack" ? (d < axis ? d : d + 1) : d;
        if (name == "concat" && d == axis)
          continue;
        sameShape = t.shape[d] == shape[outDim];
      }
      if (!sameDtype || !sameShape)
        return fail((*items)[i].get(),
                    name + "() inputs must agree in dtype and in shape" +
                        (name == "concat" ? " off the axis" : "") + ": " +
                        first.str() + " and " + t.str());
      coerce((*items)[i].get(), dtype);
      shape[axis] += name == "stack" ? 1 : t.shape[axis];
    }
    return Type::tensor(dtype, shape);
  }

  // The rest transform one tensor.
  FailureOr<Type> x = tensorArg(0);
  if (failed(x))
    return failure();
  int64_t rank = x->rank();
  if (name == "broadcast_to") {
    FailureOr<std::vector<int64_t>> shape = shapeArg(1);
    if (failed(shape))
      return failure();
    std::optional<std::vector<int64_t>> b = broadcast(x->shape, *shape);
    if (!b || *b != *shape)
      return fail(arg(1), "cannot broadcast " + x->str() + " to " +
                              Type::tensor(x->dtype, *shape).str());
    return Type::tensor(x->dtype, *shape, x->weak);
  }
  if (name == "reshape") {
    FailureOr<std::vector<int64_t>> shape = shapeArg(1);
    if (failed(shape))
      return failure();
    int64_t known = 1, inferred = -1, total = 1;
    for (int64_t d : x->shape)
      total *= d;
    for (size_t i = 0; i < shape->size(); ++i) {
      int64_t d = (*shape)[i];
      if (d == -1 && inferred < 0)
        inferred = i;
      else if (d < 0)
        return fail(arg(1), "reshape() takes one -1 at most, and no other "
                            "negative dimension");
      else
        known *= d;
    }
    if (inferred >= 0 && known != 0 && total % known == 0)
      (*shape)[inferred] = total / known;
    int64_t count = 1;
    for (int64_t d : *shape)
      count *= d;
    if (count != total)
      return fail(arg(1), "cannot reshape " + x->str() + " (" +
                              llvm::Twine(total) + " elements) to " +
                              Type::tensor(x->dtype, *shape).str());
    return Type::tensor(x->dtype, *shape, x->weak);
  }
  if (name == "transpose") {
    std::vector<int64_t> perm;
    if (arg(1)) {
      FailureOr<std::vector<int64_t>> p = shapeArg(1);
      if (failed(p))
        return failure();
      perm = *p;
    } else {
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    }
    std::vector<bool> seen(rank, false);
    if (static_cast<int64_t>(perm.size()) != rank)
      return fail(arg(1), "transpose()'s perm must list each of the " +
                              llvm::Twine(rank) + " axes once");
    for (int64_t &p : perm) {
      if (p < 0)
        p += rank;
      if (p < 0 || p >= rank || seen[p])
        return fail(arg(1), "transpose()'s perm must list each of the " +
                                llvm::Twine(rank) + " axes once");
      seen[p] = true;
    }
    frame->spec->permutations[expr] = perm;
    std::vector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(x->shape[p]);
    return Type::tensor(x->dtype, shape, x->weak);
  }
  if (name == "expand_dims") {
    std::optional<int64_t> axis = arg(1) ? intLiteral(arg(1)) : std::nullopt;
    if (!axis)
      return fail(arg(1), "expand_dims()'s axis must be an integer literal");
    int64_t a = *axis < 0 ? *axis + rank + 1 : *axis;
    if (a < 0 || a > rank)
      return fail(arg(1), "axis " + llvm::Twine(*axis) +
                              " is out of range for expand_dims() of " +
                              x->str());
    std::vector<int64_t> shape = x->shape;
    shape.insert(shape.begin() + a, 1);
    return Type::tensor(x->dtype, shape, x->weak);
  }
  // squeeze
  std::vector<int64_t> shape;
  std::optional<int64_t> axis;
  if (arg(1)) {
    axis = intLiteral(arg(1));
    if (!axis)
      return fail(arg(1), "squeeze()'s axis must be an integer literal");
    if (*axis < 0)
      *axis += rank;
    if (*axis < 0 || *axis >= rank || x->shape[*axis] != 1)
      return fail(arg(1), "squeeze() needs an axis of size 1 in " + x->str());
  }
  for (int64_t d = 0; d < rank; ++d)
    if (axis ? d != *axis : x->shape[d] != 1)
      shape.push_back(x->shape[d]);
  return Type::tensor(x->dtype, shape, x->weak);
}

FailureOr<Type> SemaImpl::analyzeNN(const CallExpr *expr,
                                    llvm::StringRef name) {
  bool isOneHot = name == "one_hot";
  const char *second = isOneHot ? "depth" : "axis";
  const Expr *x = argument(expr, 0, isOneHot ? "labels" : "x");
  const Expr *arg = argument(expr, 1, second);
  for (const Keyword &kw : expr->keywords)
    if (kw.name != second && kw.name != (isOneHot ? "labels" : "x")) {
      error(kw.range.begin) << name << "() got an unexpected keyword argument '"
                            << kw.name << "'";
      return failure();
    }
  if (!x || expr->args.size() > 2 || (isOneHot && !arg)) {
    error(expr->getBegin()) << name << "() takes "
                            << (isOneHot ? "(labels, depth)" : "(x, axis=-1)");
    return failure();
  }
  FailureOr<Type> t = analyzeExpr(x);
  if (failed(t))
    return failure();
  if (!t->isTensor()) {
    error(x->getBegin()) << name << "() takes a tensor, got " << t->str();
    return failure();
  }
  std::optional<int64_t> value = arg ? intLiteral(arg) : -1;
  if (!value) {
    error(arg->getBegin()) << name << "()'s " << second
                           << " must be an integer literal";
    return failure();
  }
  if (isOneHot) {
    if (!isInteger(t->dtype)) {
      error(x->getBegin()) << "one_hot() takes integer labels, got "
                           << t->str();
      return failure();
    }
    if (*value < 0) {
      error(arg->getBegin()) << "one_hot()'s depth must not be negative";
      return failure();
    }
    coerce(x, t->dtype);
    std::vector<int64_t> shape = t->shape;
    shape.push_back(*value);
    frame->spec->reductions[expr] = {{*value}, false, false};
    return Type::tensor(DType::F32, shape);
  }
  int64_t axis = *value < 0 ? *value + t->rank() : *value;
  if (axis < 0 || axis >= t->rank()) {
    error(arg ? arg->getBegin() : expr->getBegin())
        << "axis " << *value << " is out of range for " << t->str();
    return failure();
  }
  DType dtype = t->dtype;
  if (!isFloat(dtype)) {
    if (!t->weak) {
      error(x->getBegin()) << name << "() takes a float tensor, got "
                           << t->str() << " (use cast(x, f32))";
      return failure();
    }
    dtype = DType::F32;
  }
  coerce(x, dtype);
  frame->spec->reductions[expr] = {{axis}, false, false};
  return Type::tensor(dtype, t->shape);
}

FailureOr<Type> SemaImpl::analyzeFlag(const CallExpr *expr) {
  if (!frame->isScript || frame->controlDepth > 0) {
    error(expr->getBegin()) << "flag() is declared at the top level of the "
                               "script";
    return failure();
  }
  const Expr *nameArg = argument(expr, 0, "name");
  const Expr *defaultArg = argument(expr, 1, "default");
  const Expr *helpArg = argument(expr, 2, "help");
  auto *name = nameArg ? dyn_cast<StringExpr>(nameArg) : nullptr;
  auto *help = helpArg ? dyn_cast<StringExpr>(helpArg) : nullptr;
  if (!name || !defaultArg || (helpArg && !help) || expr->args.size() > 3) {
    error(expr->getBegin()) << "flag() takes (name, default, help): a string "
                               "literal, a number or bool literal, a string "
                               "literal";
    return failure();
  }
  for (const FlagInfo &f : program->flags)
    if (f.name == name->value) {
      error(nameArg->getBegin())
          << "flag '" << name->value << "' is declared twice";
      return failure();
    }
  FlagInfo flag{name->value, DType::I64, "", help ? help->value : ""};
  const Expr *value = defaultArg;
  bool negative = false;
  if (auto *u = dyn_cast<UnaryExpr>(value)) {
    negative = u->op == UnaryOp::Minus;
    value = u->operand.get();
  }
  if (auto *i = dyn_cast<IntExpr>(value)) {
    flag.defaultText = std::to_string(negative ? -i->value : i->value);
  } else if (auto *f = dyn_cast<FloatExpr>(value)) {
    char buf[64];
    std::to_chars_result r =
        std::to_chars(buf, buf + sizeof(buf), negative ? -f->value : f->value);
    flag.defaultText.assign(buf, r.ptr);
    flag.dtype = DType::F32;
  } else if (auto *b = dyn_cast<BoolExpr>(value);
             b && !negative && value == defaultArg) {
    flag.defaultText = b->value ? "true" : "false";
    flag.dtype = DType::Bool;
  } else {
    error(defaultArg->getBegin())
        << "a flag's default must be a number or bool literal (its type is "
           "the flag's)";
    return failure();
  }
  for (const ExprPtr &arg : expr->args)
    if (failed(analyzeExpr(arg.get())))
      return failure();
  DType dtype = flag.dtype;
  program->flags.push_back(std::move(flag));
  return Type::tensor(dtype, {});
}

FailureOr<Type> SemaImpl::analyzeBuiltin(const CallExpr *expr,
                                         llvm::StringRef name) {
  if (name == "flag")
    return analyzeFlag(expr);
  if (name == "gather") {
    const Expr *xArg = argument(expr, 0, "x");
    const Expr *idxArg = argument(expr, 1, "indices");
    const Expr *axisArg = argument(expr, 2, "axis");
    if (!xArg || !idxArg || expr->args.size() > 3) {
      error(expr->getBegin()) << "gather() takes (x, indices, axis=0)";
      return failure();
    }
    FailureOr<Type> x = analyzeExpr(xArg);
    if (failed(x))
      return failure();
    FailureOr<Type> idx = analyzeExpr(idxArg);
    if (failed(idx))
      return failure();
    if (!x->isTensor() || x->rank() == 0) {
      error(xArg->getBegin()) << "gather() takes a tensor of at least 1 dim, "
                                 "got "
                              << x->str();
      return failure();
    }
    if (!idx->isTensor() ||
        (idx->dtype != DType::I64 && idx->dtype != DType::I32)) {
      error(idxArg->getBegin())
          << "gather() takes i64 or i32 indices, got " << idx->str();
      return failure();
    }
    coerce(idxArg, idx->dtype);
    std::optional<int64_t> axis = axisArg ? intLiteral(axisArg) : 0;
    int64_t a = axis && *axis < 0 ? *axis + x->rank() : axis.value_or(-1);
    if (!axis || a < 0 || a >= x->rank()) {
      error(axisArg ? axisArg->getBegin() : expr->getBegin())
          << "gather()'s axis must be an integer literal within the rank of "
          << x->str();
      return failure();
    }
    frame->spec->reductions[expr] = {{a}, false, false};
    std::vector<int64_t> shape(x->shape.begin(), x->shape.begin() + a);
    shape.insert(shape.end(), idx->shape.begin(), idx->shape.end());
    shape.insert(shape.end(), x->shape.begin() + a + 1, x->shape.end());
    return Type::tensor(x->dtype, shape, x->weak);
  }
  if (name == "now") {
    if (!expr->args.empty() || !expr->keywords.empty()) {
      error(expr->getBegin()) << "now() takes no arguments";
      return failure();
    }
    return Type::tensor(DType::F64, {});
  }
  if (name == "softmax" || name == "log_softmax" || name == "one_hot")
    return analyzeNN(expr, name);
  if (llvm::is_contained({"zeros", "ones", "full", "zeros_like", "ones_like",
                          "arange", "eye", "broadcast_to", "reshape",
                          "transpose", "expand_dims", "squeeze", "concat",
                          "stack", "shape", "size"},
                         name))
    return analyzeShapeBuiltin(expr, name);
  if (llvm::is_contained({"sum", "mean", "max", "min", "prod", "argmax",
                          "argmin", "logsumexp"},
                         name))
    return analyzeReduction(expr, name);

  size_t arity = llvm::StringSwitch<size_t>(name)
                     .Cases({"maximum", "minimum", "pow", "cast", "matmul"}, 2)
                     .Cases({"where", "clip"}, 3)
                     .Default(1);
  if (expr->args.size() != arity || !expr->keywords.empty()) {
    error(expr->getBegin())
        << name << "() takes " << arity << " positional argument"
        << (arity == 1 ? "" : "s") << ", got " << expr->args.size()
        << (expr->keywords.empty() ? "" : " and keywords");
    return failure();
  }
  std::vector<Type> types;
  for (const ExprPtr &arg : expr->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  auto requireTensor = [&](size_t i) -> LogicalResult {
    if (types[i].isTensor())
      return success();
    error(expr->args[i]->getBegin())
        << name << "() takes tensors, got " << types[i].str();
    return failure();
  };

  if (name == "cast" || name == "float" || name == "int") {
    if (failed(requireTensor(0)))
      return failure();
    DType to = name == "float" ? DType::F32 : DType::I64;
    if (name == "cast") {
      if (types[1].kind != Type::Kind::DType) {
        error(expr->args[1]->getBegin())
            << "cast() takes a dtype (f32, f64, i32, i64, u8, bool), got "
            << types[1].str();
        return failure();
      }
      to = types[1].dtype;
    }
    if (types[0].weak)
      coerce(expr->args[0].get(), types[0].dtype);
    return Type::tensor(to, types[0].shape);
  }
  for (size_t i = 0; i < types.size(); ++i)
    if (failed(requireTensor(i)))
      return failure();

  if (name == "where") {
    if (types[0].dtype != DType::Bool) {
      error(expr->args[0]->getBegin())
          << "where() takes a bool condition, got " << types[0].str();
      return failure();
    }
    FailureOr<Type> values =
        elementwiseOperands(expr, name, {types[1], types[2]});
    if (failed(values))
      return failure();
    std::optional<std::vector<int64_t>> s =
        broadcast(types[0].shape, values->shape);
    if (!s) {
      error(expr->getBegin())
          << "where() arguments do not broadcast: " << types[0].str() << ", "
          << types[1].str() << " and " << types[2].str();
      return failure();
    }
    return Type::tensor(values->dtype, *s, values->weak);
  }
  for (size_t i = 0; i < types.size(); ++i)
    if (types[i].dtype == DType::Bool) {
      error(expr->args[i]->getBegin())
          << name << "() takes numbers, got " << types[i].str();
      return failure();
    }
  if (name == "pow" || name == "matmul")
    return binaryType(name == "pow" ? BinaryOp::Pow : BinaryOp::MatMul,
                      expr->args[0].get(), types[0], expr->args[1].get(),
                      types[1], expr->getBegin());
  if (arity > 1)
    return elementwiseOperands(expr, name, types);

  Type t = types[0];
  if (floatMathBuiltins().contains(name) && !isFloat(t.dtype)) {
    if (!t.weak) {
      error(expr->args[0]->getBegin())
          << name << "() takes a float tensor, got " << t.str()
          << " (use cast(x, f32))";
      return failure();
    }
    t.dtype = DType::F32;
  }
  coerce(expr->args[0].get(), t.dtype);
  return t;
}

LogicalResult SemaImpl::analyzeFString(const FStringExpr *expr) {
  // Python's format-spec mini-language (types TFL supports).
  static const llvm::Regex specGrammar(
      "^(.?[<>=^])?[-+ ]?#?0?[0-9]*[,_]?(\\.[0-9]+)?[bdeEfFgGoxX%]?$");
  for (const FStringExpr::Part &part : expr->parts) {
    if (!part.expr)
      continue;
    FailureOr<Type> t = analyzeExpr(part.expr.get());
    if (failed(t))
      return failure();
    const Position at = part.expr->getBegin();
    if (t->kind == Type::Kind::String) {
      if (!part.spec.empty()) {
        error(at) << "a format spec on a string field is not supported yet";
        return failure();
      }
      continue;
    }
    if (!t->isTensor()) {
      error(at) << "an f-string cannot show a value of type " << t->str();
      return failure();
    }
    if (t->weak)
      coerce(part.expr.get(), t->dtype);
    if (part.spec.empty())
      continue;
    if (!t->isScalar()) {
      error(at) << "a format spec applies to scalars, not " << t->str()
                << " (as for NumPy arrays)";
      return failure();
    }
    if (llvm::StringRef(part.spec).contains('{') ||
        !specGrammar.match(part.spec)) {
      error(at) << "invalid format spec '" << part.spec << "'";
      return failure();
    }
    char type = part.spec.back();
    if (isFloat(t->dtype) && llvm::StringRef("bdoxX").contains(type)) {
      error(at) << "format code '" << type << "' is for integers, but this "
                << "value is " << t->str();
      return failure();
    }
  }
  return success();
}

FailureOr<Type> SemaImpl::analyzePrint(const CallExpr *expr) {
  for (const ExprPtr &arg : expr->args) {
    if (auto *f = dyn_cast<FStringExpr>(arg.get())) {
      if (failed(analyzeFString(f)))
        return failure();
      continue;
    }
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    bool printable = t->isTensor() || t->kind == Type::Kind::String;
    if (t->kind == Type::Kind::Tuple)
      printable = llvm::all_of(t->elements, [](const Type &e) {
        return e.isTensor() || e.kind == Type::Kind::String;
      });
    if (!printable) {
      error(arg->getBegin())
          << "print(...) cannot show a value of type " << t->str();
      return failure();
    }
    if (t->weak)
      coerce(arg.get(), t->dtype);
  }
  for (const Keyword &kw : expr->keywords) {
    if (kw.name != "sep" && kw.name != "end") {
      error(kw.range.begin)
          << "print() got an unexpected keyword argument '" << kw.name << "'";
      return failure();
    }
    FailureOr<Type> t = analyzeExpr(kw.value.get());
    if (failed(t))
      return failure();
    if (t->kind != Type::Kind::String) {
      error(kw.value->getBegin())
          << "print()'s " << kw.name << "= must be a string, got " << t->str();
      return failure();
    }
  }
  return Type::none();
}

LogicalResult SemaImpl::checkAnnotation(const Expr *ann, const Type &actual,
                                        llvm::StringMap<int64_t> &dims,
                                        llvm::StringRef what, Position at,
                                        Type &adjusted) {
  adjusted = actual;
  auto mismatch = [&](llvm::StringRef detail) {
    error(at) << what << " is " << actual.str()
              << ", but its annotation says otherwise: " << detail;
    return failure();
  };
  if (auto *tuple = dyn_cast<TupleExpr>(ann)) {
    if (actual.kind != Type::Kind::Tuple ||
        actual.elements.size() != tuple->elements.size())
      return mismatch("a tuple of " + std::to_string(tuple->elements.size()));
    for (size_t i = 0; i < tuple->elements.size(); ++i)
      if (failed(checkAnnotation(tuple->elements[i].get(), actual.elements[i],
                                 dims, what, at, adjusted.elements[i])))
        return failure();
    return success();
  }
  if (isa<NoneExpr>(ann))
    return actual.kind == Type::Kind::None ? success() : mismatch("None");
  const Expr *dtypeExpr = ann;
  const std::vector<ExprPtr> *dimExprs = nullptr;
  if (auto *sub = dyn_cast<SubscriptExpr>(ann)) {
    dtypeExpr = sub->value.get();
    dimExprs = &sub->indices;
  }
  auto *dtypeName = dyn_cast<NameExpr>(dtypeExpr);
  std::optional<DType> dtype =
      dtypeName ? dtypeNamed(dtypeName->name) : std::nullopt;
  if (!dtype) {
    error(ann->getBegin())
        << "invalid type annotation: write a dtype (f32, "
           "i64, ...), optionally with dims (f32[N, 28, ?]), "
           "or a tuple of these";
    return failure();
  }
  if (!actual.isTensor())
    return mismatch(dtypeName->name);
  if (actual.dtype != *dtype) {
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
      error(d->getBegin()) << "a dim in a type annotation is an integer, '?' "
                              "or a name";
      return failure();
    }
    if (name->name == "?")
      continue;
    auto [it, inserted] = dims.try_emplace(name->name, size);
    if (!inserted && it->second != size) {
      error(at) << what << " is " << actual.str() << ", but its dim "
                << name->name << " is " << it->second
                << " elsewhere in the signature";
      return failure();
    }
  }
  return success();
}

FailureOr<Type> SemaImpl::analyzeUserCall(const CallExpr *expr,
                                          const Type &callee) {
  const FuncDef *def = callee.func;
  // Match arguments to parameters (positional, keywords, defaults).
  size_t numParams = def->params.size();
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
    auto it = llvm::find_if(def->params,
                            [&](const Param &p) { return p.name == kw.name; });
    if (it == def->params.end()) {
      error(kw.range.begin)
          << def->name << "() got an unexpected keyword argument '" << kw.name
          << "'";
      return failure();
    }
    size_t index = it - def->params.begin();
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
    if (def->params[i].defaultValue) {
      args[i] = def->params[i].defaultValue.get();
      continue;
    }
    error(expr->getBegin()) << def->name << "() missing required argument '"
                            << def->params[i].name << "'";
    return failure();
  }

  std::vector<Type> argTypes;
  for (size_t i = 0; i < numParams; ++i) {
    FailureOr<Type> t = analyzeExpr(args[i]);
    if (failed(t))
      return failure();
    if (!t->isTensor() && t->kind != Type::Kind::Tuple &&
        t->kind != Type::Kind::Function) {
      error(args[i]->getBegin())
          << "argument '" << def->params[i].name << "' of " << def->name
          << "() is " << t->str()
          << "; passing non-tensor values is not supported yet";
      return failure();
    }
    // A literal argument stays weak inside the callee (as JAX's Python
    // scalars do), so `scale(x, factor=2)` keeps x's dtype.
    argTypes.push_back(*t);
  }
  // Annotated parameters are checked (named dims agree across them).
  llvm::StringMap<int64_t> dims;
  for (size_t i = 0; i < numParams; ++i) {
    const ExprPtr &ann = def->params[i].annotation;
    if (!ann)
      continue;
    Type adjusted;
    if (failed(checkAnnotation(ann.get(), argTypes[i], dims,
                               "argument '" + def->params[i].name + "' of " +
                                   def->name + "()",
                               args[i]->getBegin(), adjusted)))
      return failure();
    argTypes[i] = adjusted;
  }
  FailureOr<Specialization *> spec =
      specialize(callee, std::move(argTypes), expr->getBegin());
  if (failed(spec))
    return failure();
  frame->spec->callees[expr] = *spec;
  frame->spec->callArgs[expr] = std::move(args);
  return (*spec)->resultType;
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

  auto spec = std::make_unique<Specialization>();
  Specialization *s = spec.get();
  s->def = def;
  s->argTypes = argTypes;
  s->captureNames = calleeType.captureNames;
  s->captureTypes = calleeType.elements;
  s->symbol = def->name == "<lambda>" ? "lambda" : def->name;
  for (const Type &t : argTypes)
    s->symbol += "_" + t.mangle();
  if (!s->captureTypes.empty()) {
    s->symbol += "_closure";
    for (const Type &t : s->captureTypes)
      s->symbol += "_" + t.mangle();
  }
  program->specializations.push_back(std::move(spec));
  cache[{def, key}] = s;

  Frame callee{s, {}, std::nullopt, false};
  for (size_t i = 0; i < s->captureNames.size(); ++i)
    callee.vars[s->captureNames[i]] = s->captureTypes[i];
  for (size_t i = 0; i < argTypes.size(); ++i)
    callee.vars[def->params[i].name] = argTypes[i];
  Frame *caller = frame;
  frame = &callee;
  inProgress.push_back(s);
  LogicalResult result = analyzeBlock(def->body);
  inProgress.pop_back();
  frame = caller;
  if (failed(result))
    return failure();
  s->resultType = callee.returnType.value_or(Type::none());
  if (def->returns) {
    llvm::StringMap<int64_t> dims;
    for (size_t i = 0; i < argTypes.size(); ++i)
      if (def->params[i].annotation) {
        Type ignored;
        (void)checkAnnotation(def->params[i].annotation.get(), argTypes[i],
                              dims, "", callPos, ignored);
      }
    Type adjusted;
    if (failed(checkAnnotation(def->returns.get(), s->resultType, dims,
                               "the result of " + def->name + "()",
                               def->returns->getBegin(), adjusted)))
      return failure();
  }
  return s;
}

} // namespace

std::unique_ptr<Program> tfl::analyze(const Module &module,
                                      mlir::MLIRContext *context) {
  return SemaImpl(module, context).run();
}
