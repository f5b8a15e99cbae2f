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
const llvm::StringSet<> &builtinNames() {
  static const llvm::StringSet<> names = {"print"};
  return names;
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
  };

  mlir::InFlightDiagnostic error(Position p) {
    return mlir::emitError(
        mlir::FileLineColLoc::get(ctx, module.fileName, p.line, p.col));
  }

  LogicalResult analyzeBlock(const Block &block);
  LogicalResult analyzeStmt(const Stmt *stmt);
  LogicalResult bindTarget(const Expr *target, const Type &type);
  FailureOr<Type> analyzeExpr(const Expr *expr);
  FailureOr<Type> analyzeName(const NameExpr *expr);
  FailureOr<Type> analyzeList(const ListExpr *expr);
  FailureOr<Type> analyzeUnary(const UnaryExpr *expr);
  FailureOr<Type> analyzeBinary(const BinaryExpr *expr);
  FailureOr<Type> analyzeCall(const CallExpr *expr);
  FailureOr<Type> analyzePrint(const CallExpr *expr);
  FailureOr<Type> analyzeUserCall(const CallExpr *expr, const FuncDef *def);
  FailureOr<Specialization *>
  specialize(const FuncDef *def, std::vector<Type> argTypes, Position callPos);
  LogicalResult unsupported(const Expr *expr, llvm::StringRef what);

  /// Gives a weak expression (a literal, or arithmetic on literals) `dtype`.
  void coerce(const Expr *expr, DType dtype);
  Type &typeOf(const Expr *expr) { return frame->spec->types[expr]; }

  const Module &module;
  mlir::MLIRContext *ctx;
  std::unique_ptr<Program> program;
  llvm::StringMap<const FuncDef *> globals;
  std::map<std::pair<const FuncDef *, std::string>, Specialization *> cache;
  std::vector<Specialization *> inProgress;
  Frame *frame = nullptr;
};

std::unique_ptr<Program> SemaImpl::run() {
  program = std::make_unique<Program>();
  program->module = &module;
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

LogicalResult SemaImpl::analyzeBlock(const Block &block) {
  for (const StmtPtr &s : block)
    if (failed(analyzeStmt(s.get())))
      return failure();
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
    // `x op= v` is `x = x op v`, checked through a synthesized binary node.
    auto *name = dyn_cast<NameExpr>(aug->target.get());
    if (!name) {
      error(aug->getBegin())
          << "augmented assignment to an attribute or subscript is not "
             "supported yet";
      return failure();
    }
    FailureOr<Type> type = analyzeExpr(aug->target.get());
    if (failed(type))
      return failure();
    error(aug->getBegin())
        << "augmented assignment is not supported yet; write '" << name->name
        << " = " << name->name << " " << spelling(aug->op) << " ...'";
    return failure();
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
  case Stmt::Kind::FuncDef: {
    auto *def = cast<FuncDef>(stmt);
    if (!frame->isScript) {
      error(def->getBegin()) << "nested functions are not supported yet";
      return failure();
    }
    if (!def->decorators.empty()) {
      error(def->decorators.front().range.begin)
          << "decorator '@" << def->decorators.front().name
          << "' is not supported yet";
      return failure();
    }
    frame->vars[def->name] = Type::function(def);
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
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    what = "'break' and 'continue'";
    break;
  case Stmt::Kind::Import:
  case Stmt::Kind::FromImport:
    what = "'import'";
    break;
  case Stmt::Kind::Assert:
    what = "'assert'";
    break;
  case Stmt::Kind::If:
    what = "'if'";
    break;
  case Stmt::Kind::While:
    what = "'while'";
    break;
  case Stmt::Kind::For:
    what = "'for'";
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
    return unsupported(expr, "comparison");
  case Expr::Kind::Not:
  case Expr::Kind::BoolOp:
    return unsupported(expr, "'and', 'or' and 'not'");
  case Expr::Kind::Cond:
    return unsupported(expr, "a conditional expression");
  case Expr::Kind::Attribute:
    return unsupported(expr, "attribute access");
  case Expr::Kind::Subscript:
    return unsupported(expr, "indexing and slicing");
  case Expr::Kind::Slice:
    return unsupported(expr, "a slice outside a subscript");
  case Expr::Kind::Lambda:
    return unsupported(expr, "'lambda'");
  }
  if (failed(result))
    return failure();
  typeOf(expr) = *result;
  return result;
}

FailureOr<Type> SemaImpl::analyzeName(const NameExpr *expr) {
  auto it = frame->vars.find(expr->name);
  if (it != frame->vars.end())
    return it->second;
  if (!frame->isScript) {
    auto g = globals.find(expr->name);
    if (g != globals.end())
      return Type::function(g->second);
  }
  if (builtinNames().contains(expr->name))
    return Type::builtin(expr->name);
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
  DType dtype = anyFloat ? DType::F32 : anyBool ? DType::Bool : DType::I64;
  return Type::tensor(dtype, shape);
}

void SemaImpl::coerce(const Expr *expr, DType dtype) {
  Type &t = typeOf(expr);
  if (!t.isTensor() || !t.weak)
    return;
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

FailureOr<Type> SemaImpl::analyzeBinary(const BinaryExpr *expr) {
  FailureOr<Type> lhs = analyzeExpr(expr->lhs.get());
  if (failed(lhs))
    return failure();
  FailureOr<Type> rhs = analyzeExpr(expr->rhs.get());
  if (failed(rhs))
    return failure();
  llvm::StringRef op = spelling(expr->op);
  if (!lhs->isTensor() || !rhs->isTensor() || lhs->dtype == DType::Bool ||
      rhs->dtype == DType::Bool) {
    error(expr->opPos) << "unsupported operand types for " << op << ": "
                       << lhs->str() << " and " << rhs->str();
    return failure();
  }
  if (expr->op == BinaryOp::FloorDiv || expr->op == BinaryOp::Mod ||
      expr->op == BinaryOp::Pow) {
    error(expr->opPos) << "operator " << op << " is not supported yet";
    return failure();
  }
  std::optional<Type> common = unifyOperands(*lhs, *rhs);
  if (!common) {
    error(expr->opPos) << "operands of " << op
                       << " have different dtypes: " << lhs->str() << " and "
                       << rhs->str() << " (use cast(x, dtype) to convert one)";
    return failure();
  }
  DType dtype = common->dtype;
  bool weak = lhs->weak && rhs->weak;
  if (!weak) {
    coerce(expr->lhs.get(), dtype);
    coerce(expr->rhs.get(), dtype);
  }

  if (expr->op == BinaryOp::MatMul) {
    if (lhs->rank() != 2 || rhs->rank() != 2) {
      error(expr->opPos) << "matmul needs 2-D operands, got " << lhs->str()
                         << " @ " << rhs->str();
      return failure();
    }
    int64_t k1 = lhs->shape[1], k2 = rhs->shape[0];
    if (k1 != kDynamicDim && k2 != kDynamicDim && k1 != k2) {
      error(expr->opPos) << "matmul shape mismatch: " << lhs->str() << " @ "
                         << rhs->str() << " (inner dimensions " << k1 << " and "
                         << k2 << " differ)";
      return failure();
    }
    return Type::tensor(dtype, {lhs->shape[0], rhs->shape[1]}, weak);
  }

  // Elementwise: NumPy broadcasting of the two shapes.
  const std::vector<int64_t> &a = lhs->shape, &b = rhs->shape;
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
    else {
      error(expr->opPos) << "shapes do not broadcast for " << op << ": "
                         << lhs->str() << " and " << rhs->str();
      return failure();
    }
  }
  // True division of integers gives f32 (LANGUAGE.md section 3).
  if (expr->op == BinaryOp::Div && !isFloat(dtype))
    dtype = DType::F32;
  return Type::tensor(dtype, shape, weak);
}

FailureOr<Type> SemaImpl::analyzeCall(const CallExpr *expr) {
  FailureOr<Type> callee = analyzeExpr(expr->callee.get());
  if (failed(callee))
    return failure();
  if (callee->kind == Type::Kind::Builtin && callee->name == "print")
    return analyzePrint(expr);
  if (callee->kind == Type::Kind::Function)
    return analyzeUserCall(expr, callee->func);
  error(expr->getBegin()) << "'" << callee->str() << "' is not callable";
  return failure();
}

FailureOr<Type> SemaImpl::analyzePrint(const CallExpr *expr) {
  for (const ExprPtr &arg : expr->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    if (!t->isTensor() && t->kind != Type::Kind::String) {
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

FailureOr<Type> SemaImpl::analyzeUserCall(const CallExpr *expr,
                                          const FuncDef *def) {
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
    if (!t->isTensor() && t->kind != Type::Kind::Tuple) {
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
  FailureOr<Specialization *> callee =
      specialize(def, std::move(argTypes), expr->getBegin());
  if (failed(callee))
    return failure();
  frame->spec->callees[expr] = *callee;
  frame->spec->callArgs[expr] = std::move(args);
  return (*callee)->resultType;
}

FailureOr<Specialization *> SemaImpl::specialize(const FuncDef *def,
                                                 std::vector<Type> argTypes,
                                                 Position callPos) {
  std::string key;
  for (const Type &t : argTypes)
    key += t.str() + (t.weak ? "~weak;" : ";");
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
  s->symbol = def->name;
  for (const Type &t : argTypes)
    s->symbol += "_" + t.mangle();
  program->specializations.push_back(std::move(spec));
  cache[{def, key}] = s;

  Frame callee{s, {}, std::nullopt, false};
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
  return s;
}

} // namespace

std::unique_ptr<Program> tfl::analyze(const Module &module,
                                      mlir::MLIRContext *context) {
  return SemaImpl(module, context).run();
}
