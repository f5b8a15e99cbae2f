//===- MLIRGen.cpp - From the checked AST to the tfl dialect --------------===//
//
// A straight walk over each specialization's body. Sema has decided every
// type, so nothing here can fail on a program Sema accepted; the types Sema
// recorded are what is emitted (a literal re-typed by promotion is emitted
// directly in its final dtype; a variable is cast where it meets another
// dtype, which canonicalization folds for constants).
//
//===----------------------------------------------------------------------===//

#include "tfl/Frontend/MLIRGen.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tfl;
using namespace tfl::ast;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using mlir::Value;

mlir::Type tfl::elementType(mlir::MLIRContext *ctx, DType dtype) {
  mlir::Builder b(ctx);
  switch (dtype) {
  case DType::F32:
    return b.getF32Type();
  case DType::F64:
    return b.getF64Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::U8:
    return b.getI8Type();
  case DType::Bool:
    return b.getI1Type();
  }
  return {};
}

namespace {

using Values = llvm::SmallVector<Value, 1>;

/// True for a number literal (possibly negated) or a nested list of them.
static bool isNumberLiteral(const Expr *e) {
  if (isa<IntExpr, FloatExpr, BoolExpr>(e))
    return true;
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return isa<IntExpr, FloatExpr>(u->operand.get());
  if (auto *l = dyn_cast<ListExpr>(e))
    return llvm::all_of(
        l->elements, [](const ExprPtr &x) { return isNumberLiteral(x.get()); });
  return false;
}

class MLIRGenImpl {
public:
  MLIRGenImpl(mlir::MLIRContext &ctx, const Program &program)
      : ctx(ctx), program(program), builder(&ctx) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  mlir::Location loc(Position p) {
    const Module *file = spec && spec->module ? spec->module : program.module;
    return mlir::FileLineColLoc::get(&ctx, file->fileName, p.line, p.col);
  }
  mlir::RankedTensorType tensorType(const Type &t) {
    llvm::SmallVector<int64_t> shape;
    for (int64_t d : t.shape)
      shape.push_back(d == kDynamicDim ? mlir::ShapedType::kDynamic : d);
    return mlir::RankedTensorType::get(shape, elementType(&ctx, t.dtype));
  }
  /// The flattened MLIR types of a value of type `t`.
  void flatTypes(const Type &t, llvm::SmallVectorImpl<mlir::Type> &out) {
    if (t.isTensor())
      out.push_back(tensorType(t));
    else if (t.isTree() || t.kind == Type::Kind::Function)
      for (const Type &e : t.elements) // a closure's leaves: its captures
        flatTypes(e, out);
  }
  const Type &typeOf(const Expr *e) { return spec->types.find(e)->second; }
  /// The type of what a `for` iterates over, or null for range(...).
  const Type *iterType(const ForStmt *stmt) {
    auto it = spec->types.find(stmt->iter.get());
    return it == spec->types.end() ? nullptr : &it->second;
  }

  void genFunction(const Specialization &s);
  /// Emits a block from statement `from` on; returns true when it ended in
  /// a `return`.
  bool genBlock(const Block &block, size_t from = 0);
  /// Emits statements `from`.. of `block` under a guard: they run only when
  /// the loop did not `break` or `continue` before them.
  void genGuard(const Block &block, size_t from,
                llvm::ArrayRef<CarriedVar> vars, mlir::Location l);
  /// The loop's exit flags in the environment ($break when the loop has a
  /// break, $continue), as carried variables.
  std::vector<CarriedVar> exitFlags();
  Value boolValue(const std::string &name, mlir::Location l);
  /// A loop with a `break` as an scf.while carrying the break flag (and, for
  /// a `for`, the iteration count).
  void genLoopWithBreak(const Stmt *stmt, const Block &body, const Expr *cond,
                        const ForStmt *forStmt);
  struct RangeBounds {
    Value start, step, count; // i64 scalars
  };
  RangeBounds rangeBounds(const ForStmt *stmt, mlir::Location l);
  /// The bounds of each range loop being generated.
  llvm::DenseMap<const ForStmt *, RangeBounds> rangeOf;
  bool genStmt(const Stmt *stmt);
  void bindTarget(const Expr *target, const Type &type,
                  llvm::ArrayRef<Value> values);
  Values genExpr(const Expr *expr);
  Value genConstant(const Expr *expr);
  /// The literal `expr` emitted directly as `type` (a literal keeps full
  /// precision when promotion gives it a wider dtype than it was first
  /// given).
  Value genConstant(const Expr *expr, const Type &type);
  Value genBinary(const BinaryExpr *expr);
  /// NumPy's matmul on tfl.matmul: 1-D operands promoted, batch dims
  /// broadcast and flattened into one.
  Value emitMatmul(Value lhs, Value rhs, mlir::RankedTensorType resultType,
                   mlir::Location l);
  /// The values of captured names, flattened.
  Values capturedValues(llvm::ArrayRef<std::string> names) {
    Values values;
    for (const std::string &name : names)
      llvm::append_range(values, env.lookup(name));
    return values;
  }
  Value emitBinary(BinaryOp op, Value lhs, Value rhs, const Type &type,
                   mlir::Location l);
  Value genCompare(const CompareExpr *expr);
  Values genSubscript(const SubscriptExpr *expr);
  /// A field of a record, a module's constant, or a method's receiver.
  Values genAttribute(const AttributeExpr *expr);
  /// The leaves of element `index` of a tuple or record of type `tree`.
  Values element(const Values &leaves, const Type &tree, size_t index);
  /// A module constant `literal` read at `use` (of type `t`).
  Values genConstantUse(const Expr *literal, const Type &t, mlir::Location l);
  /// `values` cast leaf by leaf to the dtypes of `type`.
  Values castLeaves(const Values &values, const Type &type, mlir::Location l);
  /// `cond ? thenFn() : elseFn()` as an scf.if yielding one tensor.
  Value genSelect(Value cond, mlir::Type type, mlir::Location l,
                  llvm::function_ref<Value()> thenFn,
                  llvm::function_ref<Value()> elseFn);
  void genIf(const IfStmt *stmt);
  void genFor(const ForStmt *stmt);
  void genWhile(const WhileStmt *stmt);
  /// `for x in (a, b, c)`: the body once per element (elements share one
  /// type).
  void genForTuple(const ForStmt *stmt);
  /// The loop variable of iteration `k` (an i64 scalar) of a `for`.
  Values loopValue(const ForStmt *stmt, Value k, mlir::Location l);
  /// The values of `vars` in the environment, cast to their carried types.
  Values carriedValues(llvm::ArrayRef<CarriedVar> vars, mlir::Location l);
  void bindCarried(llvm::ArrayRef<CarriedVar> vars, mlir::ValueRange values);
  /// The scalar in a 0-d tensor, and back.
  Value extract(Value tensor, mlir::Location l);
  Value fromScalar(Value scalar, mlir::Location l);
  Values genCall(const CallExpr *expr);
  Value genBuiltin(const CallExpr *expr, llvm::StringRef name);
  Value genReduction(const CallExpr *expr, llvm::StringRef name);
  Value genNN(const CallExpr *expr, llvm::StringRef name);
  /// seed, shuffle_indices, and random_normal/uniform as a standard draw
  /// scaled by tfl ops (which fuse with their users).
  Value genRandom(const CallExpr *expr, llvm::StringRef name);
  /// The file built-ins (load and save functions, log_scalar).
  Values genIO(const CallExpr *expr, llvm::StringRef name);
  Value genShapeBuiltin(const CallExpr *expr, llvm::StringRef name);
  /// A reduction op of `x` over `axes`.
  template <typename OpTy>
  Value reduce(Value x, llvm::ArrayRef<int64_t> axes, bool keepdims,
               mlir::Location l) {
    auto type = cast<mlir::RankedTensorType>(x.getType());
    auto resultType =
        type.clone(mlir::tfl::reducedShape(type.getShape(), axes, keepdims));
    return OpTy::create(builder, l, resultType, x,
                        builder.getDenseI64ArrayAttr(axes),
                        builder.getBoolAttr(keepdims));
  }
  template <typename OpTy> Value unary(Value x, mlir::Location l) {
    return OpTy::create(builder, l, x);
  }
  /// An elementwise binary tfl op whose result type is the broadcast of the
  /// operands' (both of one element type).
  template <typename OpTy>
  Value broadcastingBinary(Value lhs, Value rhs, mlir::Location l);
  void genPrint(const CallExpr *expr);
  Value castTo(Value v, mlir::Type elemType, mlir::Location l);

  Value boolConstant(bool v, mlir::Location l) {
    auto type = mlir::RankedTensorType::get({}, builder.getI1Type());
    return mlir::tfl::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(v)));
  }

  mlir::MLIRContext &ctx;
  const Program &program;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  const Specialization *spec = nullptr;
  llvm::StringMap<Values> env;
  /// Whether the function being emitted returns from inside an if or a
  /// loop: then every return stores $retval and sets $returned, and the
  /// function ends by returning $retval.
  bool nestedReturns = false;
  /// The tensor each `for x in t` iterates over.
  llvm::DenseMap<const ForStmt *, Value> iterValues;
  /// Names currently bound to a number literal, with the literal.
  llvm::StringMap<const Expr *> literalOf;

  /// Binds `name` to `values` (no longer to a literal).
  void bind(llvm::StringRef name, Values values) {
    env[name] = std::move(values);
    literalOf.erase(name);
  }
};

mlir::OwningOpRef<mlir::ModuleOp> MLIRGenImpl::run() {
  module = mlir::ModuleOp::create(loc({1, 1}));
  if (!program.flags.empty()) {
    // The flag table, declared before the program runs (for --help).
    llvm::SmallVector<mlir::Attribute> flags;
    for (const FlagInfo &f : program.flags)
      flags.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("name", builder.getStringAttr(f.name)),
          builder.getNamedAttr(
              "dtype", builder.getI32IntegerAttr(static_cast<int>(f.dtype))),
          builder.getNamedAttr("default", builder.getStringAttr(f.defaultText)),
          builder.getNamedAttr("help", builder.getStringAttr(f.help)),
      }));
    module->setAttr("tfl.flags", builder.getArrayAttr(flags));
  }
  for (const std::unique_ptr<Specialization> &s : program.specializations)
    genFunction(*s);
  return module;
}

void MLIRGenImpl::genFunction(const Specialization &s) {
  spec = &s;
  env.clear();
  literalOf.clear();
  llvm::SmallVector<mlir::Type> argTypes, resultTypes;
  for (const Type &t : s.argTypes)
    flatTypes(t, argTypes);
  for (const Type &t : s.captureTypes)
    flatTypes(t, argTypes);
  flatTypes(s.resultType, resultTypes);
  mlir::Location fnLoc = s.def ? loc(s.def->namePos) : loc({1, 1});
  builder.setInsertionPointToEnd(module.getBody());
  auto fn = mlir::func::FuncOp::create(
      builder, fnLoc, s.symbol, builder.getFunctionType(argTypes, resultTypes));
  if (s.def)
    fn.setPrivate();
  mlir::Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  // Block arguments: the arguments' leaves, then the captures' leaves.
  size_t next = 0;
  auto bindLeaves = [&](const std::string &name, const Type &type) {
    llvm::SmallVector<mlir::Type> leaves;
    flatTypes(type, leaves);
    Values values;
    for (size_t j = 0; j < leaves.size(); ++j)
      values.push_back(entry->getArgument(next++));
    bind(name, values);
  };
  for (size_t i = 0; i < s.argTypes.size(); ++i)
    bindLeaves(s.def->params[i].name, s.argTypes[i]);
  for (size_t i = 0; i < s.captureTypes.size(); ++i)
    bindLeaves(s.captureNames[i], s.captureTypes[i]);

  const Block &body = s.def ? s.def->body : program.module->body;
  nestedReturns = s.def && hasNestedReturn(body);
  if (nestedReturns) {
    mlir::Location l = loc(s.def->namePos);
    bind("$returned", {boolConstant(false, l)});
    Values zeros;
    for (mlir::Type t : resultTypes)
      zeros.push_back(mlir::tfl::ConstantOp::create(
          builder, l,
          mlir::DenseElementsAttr::get(
              cast<mlir::RankedTensorType>(t),
              builder.getZeroAttr(
                  cast<mlir::RankedTensorType>(t).getElementType()))));
    bind("$retval", zeros);
    genBlock(body);
    mlir::func::ReturnOp::create(builder, loc(s.def->getRange().end),
                                 env.lookup("$retval"));
    return;
  }
  if (!genBlock(body))
    mlir::func::ReturnOp::create(builder, s.def ? loc(s.def->getRange().end)
                                                : loc({1, 1}));
}

bool MLIRGenImpl::genBlock(const Block &block, size_t from) {
  for (size_t i = from; i < block.size(); ++i) {
    const Stmt *stmt = block[i].get();
    if (genStmt(stmt))
      return true; // statements after a return never run
    if (isa<BreakStmt, ContinueStmt>(stmt) ||
        (nestedReturns && isa<ReturnStmt>(stmt)))
      return false; // the rest of the block never runs
    auto guard = spec->guards.find(stmt);
    if (guard != spec->guards.end()) {
      genGuard(block, i + 1, guard->second, loc(block[i + 1]->getBegin()));
      return false;
    }
  }
  return false;
}

std::vector<CarriedVar> MLIRGenImpl::exitFlags() {
  std::vector<CarriedVar> flags;
  for (const char *name : {"$break", "$continue", "$returned"})
    if (env.count(name))
      flags.push_back({name, Type::tensor(DType::Bool, {})});
  if (env.count("$retval"))
    flags.push_back({"$retval", spec->resultType});
  return flags;
}

Value MLIRGenImpl::boolValue(const std::string &name, mlir::Location l) {
  return env.count(name) ? env.lookup(name)[0] : boolConstant(false, l);
}

void MLIRGenImpl::genGuard(const Block &block, size_t from,
                           llvm::ArrayRef<CarriedVar> guardVars,
                           mlir::Location l) {
  std::vector<CarriedVar> vars(guardVars.begin(), guardVars.end());
  std::vector<CarriedVar> flags = exitFlags();
  vars.insert(vars.end(), flags.begin(), flags.end());
  llvm::SmallVector<mlir::Type> resultTypes;
  for (const CarriedVar &var : vars)
    flatTypes(var.type, resultTypes);
  Value brk = boolValue("$break", l), cont = boolValue("$continue", l);
  Value returned = boolValue("$returned", l);
  auto boolType = mlir::RankedTensorType::get({}, builder.getI1Type());
  Value exited =
      genSelect(brk, boolType, l, [&] { return brk; }, [&] { return cont; });
  exited = genSelect(
      exited, boolType, l, [&] { return exited; }, [&] { return returned; });
  Value go = extract(mlir::tfl::NotOp::create(builder, l, exited), l);
  auto ifOp = mlir::scf::IfOp::create(builder, l, resultTypes, go,
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
  llvm::StringMap<Values> saved = env;
  llvm::StringMap<const Expr *> savedLiterals = literalOf;
  {
    mlir::OpBuilder::InsertionGuard insertion(builder);
    builder.setInsertionPointToEnd(&ifOp.getThenRegion().front());
    genBlock(block, from);
    mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
  }
  {
    // Not run: what existed keeps its value; what the rest would have bound
    // first gets zeros, never observed (the loop is exiting or continuing).
    mlir::OpBuilder::InsertionGuard insertion(builder);
    builder.setInsertionPointToEnd(&ifOp.getElseRegion().front());
    env = saved;
    literalOf = savedLiterals;
    for (const CarriedVar &var : vars) {
      if (env.count(var.name))
        continue;
      llvm::SmallVector<mlir::Type> leaves;
      flatTypes(var.type, leaves);
      Values zeros;
      for (mlir::Type leaf : leaves)
        zeros.push_back(mlir::tfl::ConstantOp::create(
            builder, l,
            mlir::DenseElementsAttr::get(
                cast<mlir::RankedTensorType>(leaf),
                builder.getZeroAttr(
                    cast<mlir::RankedTensorType>(leaf).getElementType()))));
      bind(var.name, zeros);
    }
    mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
  }
  env = std::move(saved);
  literalOf = std::move(savedLiterals);
  bindCarried(vars, ifOp.getResults());
}

void MLIRGenImpl::bindTarget(const Expr *target, const Type &type,
                             llvm::ArrayRef<Value> values) {
  if (auto *name = dyn_cast<NameExpr>(target)) {
    bind(name->name, Values(values.begin(), values.end()));
    return;
  }
  auto *tuple = cast<TupleExpr>(target);
  size_t next = 0;
  for (size_t i = 0; i < tuple->elements.size(); ++i) {
    llvm::SmallVector<mlir::Type> leaves;
    flatTypes(type.elements[i], leaves);
    bindTarget(tuple->elements[i].get(), type.elements[i],
               values.slice(next, leaves.size()));
    next += leaves.size();
  }
}

bool MLIRGenImpl::genStmt(const Stmt *stmt) {
  switch (stmt->getKind()) {
  case Stmt::Kind::Expr:
    if (!isa<StringExpr>(cast<ExprStmt>(stmt)->value.get()))
      genExpr(cast<ExprStmt>(stmt)->value.get());
    return false;
  case Stmt::Kind::Assign: {
    auto *assign = cast<AssignStmt>(stmt);
    Values values = genExpr(assign->value.get());
    for (const ExprPtr &target : assign->targets) {
      bindTarget(target.get(), typeOf(assign->value.get()), values);
      if (auto *name = dyn_cast<NameExpr>(target.get());
          name && isNumberLiteral(assign->value.get()))
        literalOf[name->name] = assign->value.get();
    }
    return false;
  }
  case Stmt::Kind::AnnAssign: {
    auto *ann = cast<AnnAssignStmt>(stmt);
    const Type &type = spec->types.find(ann->value.get())->second;
    bindTarget(ann->target.get(), type,
               castLeaves(genExpr(ann->value.get()), type.strong(),
                          loc(ann->getBegin())));
    return false;
  }
  case Stmt::Kind::Return: {
    auto *ret = cast<ReturnStmt>(stmt);
    if (nestedReturns) {
      // Store the result and leave: flags carry it out of ifs and loops.
      mlir::Location l = loc(stmt->getBegin());
      Values values;
      if (ret->value) {
        values = genExpr(ret->value.get());
        llvm::SmallVector<mlir::Type> expected;
        flatTypes(spec->resultType, expected);
        for (size_t i = 0; i < values.size(); ++i)
          values[i] = castTo(
              values[i],
              cast<mlir::RankedTensorType>(expected[i]).getElementType(), l);
      }
      bind("$retval", values);
      bind("$returned", {boolConstant(true, l)});
      if (env.count("$break"))
        bind("$break", {boolConstant(true, l)});
      return false;
    }
    Values values;
    if (ret->value) {
      values = genExpr(ret->value.get());
      // A weak literal's value may still need the declared result dtype.
      llvm::SmallVector<mlir::Type> expected;
      flatTypes(spec->resultType, expected);
      for (size_t i = 0; i < values.size(); ++i)
        values[i] =
            castTo(values[i],
                   cast<mlir::RankedTensorType>(expected[i]).getElementType(),
                   loc(stmt->getBegin()));
    }
    mlir::func::ReturnOp::create(builder, loc(stmt->getBegin()), values);
    return true;
  }
  case Stmt::Kind::AugAssign: {
    auto *aug = cast<AugAssignStmt>(stmt);
    Value lhs = genExpr(aug->target.get())[0];
    Value rhs = genExpr(aug->value.get())[0];
    const Type &type = spec->stmtTypes.find(stmt)->second;
    Value result = emitBinary(aug->op, lhs, rhs, type, loc(stmt->getBegin()));
    bind(cast<NameExpr>(aug->target.get())->name, {result});
    return false;
  }
  case Stmt::Kind::FuncDef: {
    // A nested def: its value is what it captures, as of here.
    auto *def = cast<FuncDef>(stmt);
    auto closure = spec->closures.find(def);
    if (closure != spec->closures.end())
      bind(def->name, capturedValues(closure->second));
    return false;
  }
  case Stmt::Kind::Assert: {
    auto *a = cast<AssertStmt>(stmt);
    std::string message = a->message ? typeOf(a->message.get()).name : "";
    mlir::tfl::AssertOp::create(builder, loc(stmt->getBegin()),
                                genExpr(a->cond.get())[0],
                                builder.getStringAttr(message));
    return false;
  }
  case Stmt::Kind::Break:
    bind("$break", {boolConstant(true, loc(stmt->getBegin()))});
    return false;
  case Stmt::Kind::Continue:
    bind("$continue", {boolConstant(true, loc(stmt->getBegin()))});
    return false;
  case Stmt::Kind::If:
    genIf(cast<IfStmt>(stmt));
    return false;
  case Stmt::Kind::For:
    genFor(cast<ForStmt>(stmt));
    return false;
  case Stmt::Kind::While:
    genWhile(cast<WhileStmt>(stmt));
    return false;
  default:
    // Pass, and `def` (a compile-time binding Sema already resolved).
    return false;
  }
}

Value MLIRGenImpl::extract(Value tensor, mlir::Location l) {
  return mlir::tensor::ExtractOp::create(builder, l, tensor,
                                         mlir::ValueRange{});
}

Value MLIRGenImpl::fromScalar(Value scalar, mlir::Location l) {
  auto type = mlir::RankedTensorType::get({}, scalar.getType());
  return mlir::tensor::FromElementsOp::create(builder, l, type,
                                              mlir::ValueRange{scalar});
}

Values MLIRGenImpl::carriedValues(llvm::ArrayRef<CarriedVar> vars,
                                  mlir::Location l) {
  Values values;
  for (const CarriedVar &var : vars) {
    llvm::SmallVector<mlir::Type> types;
    flatTypes(var.type, types);
    Values current = env.lookup(var.name);
    for (size_t i = 0; i < types.size(); ++i)
      values.push_back(
          castTo(current[i],
                 cast<mlir::RankedTensorType>(types[i]).getElementType(), l));
  }
  return values;
}

void MLIRGenImpl::bindCarried(llvm::ArrayRef<CarriedVar> vars,
                              mlir::ValueRange values) {
  size_t next = 0;
  for (const CarriedVar &var : vars) {
    llvm::SmallVector<mlir::Type> types;
    flatTypes(var.type, types);
    bind(var.name,
         Values(values.begin() + next, values.begin() + next + types.size()));
    next += types.size();
  }
}

void MLIRGenImpl::genIf(const IfStmt *stmt) {
  mlir::Location l = loc(stmt->getBegin());
  std::vector<CarriedVar> vars = spec->carried.find(stmt)->second;
  if (mayExitLoop(stmt) || (nestedReturns && mayReturn(stmt))) {
    // The branches may break, continue or return: the flags flow out too.
    std::vector<CarriedVar> flags = exitFlags();
    vars.insert(vars.end(), flags.begin(), flags.end());
  }
  llvm::SmallVector<mlir::Type> resultTypes;
  for (const CarriedVar &var : vars)
    flatTypes(var.type, resultTypes);
  Value cond = extract(genExpr(stmt->cond.get())[0], l);
  auto ifOp = mlir::scf::IfOp::create(builder, l, resultTypes, cond,
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
  llvm::StringMap<Values> saved = env;
  llvm::StringMap<const Expr *> savedLiterals = literalOf;
  auto genBranch = [&](mlir::Block &block, const Block &body) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&block);
    env = saved;
    literalOf = savedLiterals;
    genBlock(body);
    mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
  };
  genBranch(ifOp.getThenRegion().front(), stmt->body);
  genBranch(ifOp.getElseRegion().front(), stmt->orelse);
  env = std::move(saved);
  literalOf = std::move(savedLiterals);
  bindCarried(vars, ifOp.getResults());
}

MLIRGenImpl::RangeBounds MLIRGenImpl::rangeBounds(const ForStmt *stmt,
                                                  mlir::Location l) {
  mlir::Type i64 = builder.getI64Type();
  if (const Type *seq = iterType(stmt)) {
    // The first axis of a tensor: iterations 0 .. n-1 over its rows.
    iterValues[stmt] = genExpr(stmt->iter.get())[0];
    auto c = [&](int64_t v) -> Value {
      return mlir::arith::ConstantOp::create(builder, l, i64,
                                             builder.getI64IntegerAttr(v));
    };
    return {c(0), c(1), c(seq->shape[0])};
  }
  auto *call = cast<CallExpr>(stmt->iter.get());
  llvm::SmallVector<Value, 3> args;
  for (const ExprPtr &arg : call->args)
    args.push_back(extract(castTo(genExpr(arg.get())[0], i64, l), l));
  auto constant = [&](int64_t v) -> Value {
    return mlir::arith::ConstantOp::create(builder, l, i64,
                                           builder.getI64IntegerAttr(v));
  };
  Value start = args.size() > 1 ? args[0] : constant(0);
  Value stop = args.size() > 1 ? args[1] : args[0];
  Value step = args.size() > 2 ? args[2] : constant(1);
  // range(start, stop, step) has max(0, ceil((stop - start) / step)) items,
  // for either sign of step; iteration k binds start + k * step.
  Value span = mlir::arith::SubIOp::create(builder, l, stop, start);
  Value count = mlir::arith::CeilDivSIOp::create(builder, l, span, step);
  count = mlir::arith::MaxSIOp::create(builder, l, count, constant(0));
  return {start, step, count};
}

Values MLIRGenImpl::loopValue(const ForStmt *stmt, Value k, mlir::Location l) {
  auto seq = iterValues.find(stmt);
  if (seq == iterValues.end()) {
    // range(start, stop, step): start + k * step.
    RangeBounds &b = rangeOf[stmt];
    Value i = mlir::arith::AddIOp::create(
        builder, l, b.start,
        mlir::arith::MulIOp::create(builder, l, k, b.step));
    return {fromScalar(i, l)};
  }
  // Row k of the tensor.
  auto type = cast<mlir::RankedTensorType>(seq->second.getType());
  llvm::SmallVector<int64_t> starts(type.getRank(), 0),
      strides(type.getRank(), 1);
  starts[0] = mlir::ShapedType::kDynamic;
  llvm::SmallVector<int64_t> sizes(type.getShape());
  sizes[0] = 1;
  Value row = mlir::tfl::SliceOp::create(
      builder, l, type.clone(sizes), seq->second,
      mlir::ValueRange{fromScalar(k, l)}, builder.getDenseI64ArrayAttr(starts),
      builder.getDenseI64ArrayAttr(strides));
  return {mlir::tfl::ReshapeOp::create(
      builder, l, type.clone(type.getShape().drop_front()), row)};
}

void MLIRGenImpl::genForTuple(const ForStmt *stmt) {
  const std::string &name = cast<NameExpr>(stmt->target.get())->name;
  const Type &seq = *iterType(stmt);
  Values values = genExpr(stmt->iter.get());
  llvm::SmallVector<mlir::Type> leaves;
  flatTypes(seq.elements.front(), leaves);
  for (size_t e = 0; e < seq.elements.size(); ++e) {
    bind(name, Values(values.begin() + e * leaves.size(),
                      values.begin() + (e + 1) * leaves.size()));
    genBlock(stmt->body);
  }
}

void MLIRGenImpl::genFor(const ForStmt *stmt) {
  const Type *seqType = iterType(stmt);
  if (seqType && seqType->kind == Type::Kind::Tuple)
    return genForTuple(stmt);
  if (hasBreak(stmt->body))
    return genLoopWithBreak(stmt, stmt->body, nullptr, stmt);
  mlir::Location l = loc(stmt->getBegin());
  const std::string &loopVar = cast<NameExpr>(stmt->target.get())->name;
  const std::vector<CarriedVar> &vars = spec->carried.find(stmt)->second;
  mlir::Type i64 = builder.getI64Type();
  RangeBounds bounds = rangeBounds(stmt, l);
  rangeOf[stmt] = bounds;
  Value count = bounds.count;
  mlir::Type index = builder.getIndexType();
  Value ub = mlir::arith::IndexCastOp::create(builder, l, index, count);
  Value zero = mlir::arith::ConstantIndexOp::create(builder, l, 0);
  Value one = mlir::arith::ConstantIndexOp::create(builder, l, 1);

  llvm::StringMap<Values> saved = env;
  llvm::StringMap<const Expr *> savedLiterals = literalOf;
  auto forOp = mlir::scf::ForOp::create(
      builder, l, zero, ub, one, carriedValues(vars, l),
      [&](mlir::OpBuilder &b, mlir::Location, Value iv,
          mlir::ValueRange iterArgs) {
        mlir::OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
        bindCarried(vars, iterArgs);
        Value k = mlir::arith::IndexCastOp::create(builder, l, i64, iv);
        bind(loopVar, loopValue(stmt, k, l));
        env.erase("$break");
        bind("$continue", {boolConstant(false, l)});
        genBlock(stmt->body);
        mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
      });
  env = std::move(saved);
  literalOf = std::move(savedLiterals);
  bindCarried(vars, forOp.getResults());
}

void MLIRGenImpl::genLoopWithBreak(const Stmt *stmt, const Block &body,
                                   const Expr *cond, const ForStmt *forStmt) {
  mlir::Location l = loc(stmt->getBegin());
  std::vector<CarriedVar> vars = spec->carried.find(stmt)->second;
  if (env.count("$returned")) {
    // A return inside leaves the loop and the function: carry its flags.
    vars.push_back({"$returned", Type::tensor(DType::Bool, {})});
    vars.push_back({"$retval", spec->resultType});
  }
  auto i64Type = mlir::RankedTensorType::get({}, builder.getI64Type());
  auto boolType = mlir::RankedTensorType::get({}, builder.getI1Type());
  auto i64Scalar = [&](int64_t v) -> Value {
    return mlir::tfl::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(i64Type, builder.getI64IntegerAttr(v)));
  };
  Value count;
  if (forStmt) {
    RangeBounds bounds = rangeBounds(forStmt, l);
    rangeOf[forStmt] = bounds;
    count = fromScalar(bounds.count, l);
  }
  size_t n = 0;
  for (const CarriedVar &var : vars) {
    llvm::SmallVector<mlir::Type> leaves;
    flatTypes(var.type, leaves);
    n += leaves.size();
  }
  Values inits = carriedValues(vars, l);
  inits.push_back(boolConstant(false, l));
  if (forStmt)
    inits.push_back(i64Scalar(0));
  llvm::SmallVector<mlir::Type> types;
  for (Value v : inits)
    types.push_back(v.getType());

  llvm::StringMap<Values> saved = env;
  llvm::StringMap<const Expr *> savedLiterals = literalOf;
  auto inRegion = [&](mlir::OpBuilder &b, auto &&fn) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
    env = saved;
    literalOf = savedLiterals;
    fn();
  };
  auto whileOp = mlir::scf::WhileOp::create(
      builder, l, types, inits,
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, [&] {
          bindCarried(vars, args.take_front(n));
          // Go on unless a break happened; the condition (or the range's
          // end) is evaluated only then.
          Value stop = args[n];
          if (env.count("$returned")) {
            Value returned = env.lookup("$returned")[0];
            stop = genSelect(
                stop, boolType, l, [&] { return stop; },
                [&] { return returned; });
          }
          Value go = genSelect(
              stop, boolType, l, [&] { return boolConstant(false, l); },
              [&]() -> Value {
                if (forStmt)
                  return mlir::tfl::CompareOp::create(
                      builder, l, boolType, mlir::tfl::ComparePredicate::lt,
                      args[n + 1], count);
                return genExpr(cond)[0];
              });
          mlir::scf::ConditionOp::create(builder, l, extract(go, l), args);
        });
      },
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, [&] {
          bindCarried(vars, args.take_front(n));
          bind("$break", {args[n]});
          bind("$continue", {boolConstant(false, l)});
          if (forStmt)
            bind(cast<NameExpr>(forStmt->target.get())->name,
                 loopValue(forStmt, extract(args[n + 1], l), l));
          genBlock(body);
          Values yields = carriedValues(vars, l);
          yields.push_back(env.lookup("$break")[0]);
          if (forStmt)
            yields.push_back(mlir::tfl::AddOp::create(
                builder, l, i64Type, args[n + 1], i64Scalar(1)));
          mlir::scf::YieldOp::create(builder, l, yields);
        });
      });
  env = std::move(saved);
  literalOf = std::move(savedLiterals);
  bindCarried(vars, whileOp.getResults().take_front(n));
}

void MLIRGenImpl::genWhile(const WhileStmt *stmt) {
  if (hasBreak(stmt->body))
    return genLoopWithBreak(stmt, stmt->body, stmt->cond.get(), nullptr);
  mlir::Location l = loc(stmt->getBegin());
  const std::vector<CarriedVar> &vars = spec->carried.find(stmt)->second;
  Values inits = carriedValues(vars, l);
  llvm::SmallVector<mlir::Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  llvm::StringMap<Values> saved = env;
  llvm::StringMap<const Expr *> savedLiterals = literalOf;
  auto inRegion = [&](mlir::OpBuilder &b, auto &&fn) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
    fn();
  };
  auto whileOp = mlir::scf::WhileOp::create(
      builder, l, types, inits,
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, [&] {
          env = saved;
          literalOf = savedLiterals;
          bindCarried(vars, args);
          Value cond = extract(genExpr(stmt->cond.get())[0],
                               loc(stmt->cond->getBegin()));
          mlir::scf::ConditionOp::create(builder, l, cond, args);
        });
      },
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, [&] {
          env = saved;
          literalOf = savedLiterals;
          bindCarried(vars, args);
          env.erase("$break");
          bind("$continue", {boolConstant(false, l)});
          genBlock(stmt->body);
          mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
        });
      });
  env = std::move(saved);
  literalOf = std::move(savedLiterals);
  bindCarried(vars, whileOp.getResults());
}

Value MLIRGenImpl::castTo(Value v, mlir::Type elemType, mlir::Location l) {
  auto type = cast<mlir::RankedTensorType>(v.getType());
  if (type.getElementType() == elemType)
    return v;
  return mlir::tfl::CastOp::create(builder, l, type.clone(elemType), v);
}

/// Appends the leaf numbers of a (nested) list literal in row-major order.
static void collectLeaves(const Expr *e, std::vector<double> &out) {
  if (auto *list = dyn_cast<ListExpr>(e)) {
    for (const ExprPtr &c : list->elements)
      collectLeaves(c.get(), out);
    return;
  }
  double sign = 1;
  if (auto *u = dyn_cast<UnaryExpr>(e)) {
    sign = u->op == UnaryOp::Minus ? -1 : 1;
    e = u->operand.get();
  }
  if (auto *i = dyn_cast<IntExpr>(e))
    out.push_back(sign * static_cast<double>(i->value));
  else if (auto *f = dyn_cast<FloatExpr>(e))
    out.push_back(sign * f->value);
  else
    out.push_back(cast<BoolExpr>(e)->value ? 1 : 0);
}

/// Integer leaves, exactly (doubles lose int64 precision past 2^53).
static void collectIntLeaves(const Expr *e, std::vector<int64_t> &out) {
  if (auto *list = dyn_cast<ListExpr>(e)) {
    for (const ExprPtr &c : list->elements)
      collectIntLeaves(c.get(), out);
    return;
  }
  int64_t sign = 1;
  if (auto *u = dyn_cast<UnaryExpr>(e)) {
    sign = u->op == UnaryOp::Minus ? -1 : 1;
    e = u->operand.get();
  }
  if (auto *i = dyn_cast<IntExpr>(e))
    out.push_back(sign * i->value);
  else if (auto *f = dyn_cast<FloatExpr>(e))
    out.push_back(static_cast<int64_t>(sign * f->value));
  else
    out.push_back(cast<BoolExpr>(e)->value ? 1 : 0);
}

Value MLIRGenImpl::genConstant(const Expr *expr) {
  return genConstant(expr, typeOf(expr));
}

Value MLIRGenImpl::genConstant(const Expr *expr, const Type &t) {
  mlir::RankedTensorType type = tensorType(t);
  mlir::DenseElementsAttr attr;
  if (isFloat(t.dtype)) {
    std::vector<double> leaves;
    collectLeaves(expr, leaves);
    if (t.dtype == DType::F32) {
      std::vector<float> f(leaves.begin(), leaves.end());
      attr = mlir::DenseElementsAttr::get(type, llvm::ArrayRef<float>(f));
    } else {
      attr = mlir::DenseElementsAttr::get(type, llvm::ArrayRef<double>(leaves));
    }
  } else {
    std::vector<int64_t> leaves;
    collectIntLeaves(expr, leaves);
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    llvm::SmallVector<llvm::APInt> values;
    for (int64_t v : leaves)
      values.push_back(llvm::APInt(width, static_cast<uint64_t>(v),
                                   /*isSigned=*/width > 1,
                                   /*implicitTrunc=*/true));
    attr = mlir::DenseElementsAttr::get(type, values);
  }
  return mlir::tfl::ConstantOp::create(builder, loc(expr->getBegin()), attr);
}

Values MLIRGenImpl::genExpr(const Expr *expr) {
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  switch (expr->getKind()) {
  case Expr::Kind::Int:
  case Expr::Kind::Float:
  case Expr::Kind::Bool:
  case Expr::Kind::List:
    return {genConstant(expr)};
  case Expr::Kind::Name: {
    // A name holding a number literal (a module constant, or a variable
    // bound to one) is re-emitted in the dtype this use needs.
    const std::string &name = cast<NameExpr>(expr)->name;
    const Expr *literal = nullptr;
    auto constant = spec->constantUses.find(expr);
    if (constant != spec->constantUses.end())
      literal = constant->second;
    else
      literal = literalOf.lookup(name);
    if (constant != spec->constantUses.end())
      return genConstantUse(literal, t, l);
    if (literal && t.isTensor() && isNumberLiteral(literal))
      return {genConstant(literal, t)};
    Values values = env.lookup(name);
    if (t.isTensor() && values.size() == 1)
      values[0] = castTo(values[0], elementType(&ctx, t.dtype), l);
    return values;
  }
  case Expr::Kind::Tuple: {
    Values values;
    for (const ExprPtr &e : cast<TupleExpr>(expr)->elements)
      llvm::append_range(values, genExpr(e.get()));
    return values;
  }
  case Expr::Kind::Unary: {
    auto *u = cast<UnaryExpr>(expr);
    // A negative literal is one constant, as Python folds `-1`.
    if (isa<IntExpr, FloatExpr>(u->operand.get()) && t.isTensor())
      return {genConstant(expr)};
    Value v = genExpr(u->operand.get())[0];
    if (u->op == UnaryOp::Plus)
      return {v};
    return {mlir::tfl::NegOp::create(builder, l, v)};
  }
  case Expr::Kind::Binary:
    return {genBinary(cast<BinaryExpr>(expr))};
  case Expr::Kind::Compare:
    return {genCompare(cast<CompareExpr>(expr))};
  case Expr::Kind::Subscript:
    return genSubscript(cast<SubscriptExpr>(expr));
  case Expr::Kind::Attribute:
    return genAttribute(cast<AttributeExpr>(expr));
  case Expr::Kind::Lambda: {
    auto closure = spec->closures.find(cast<LambdaExpr>(expr)->def.get());
    return capturedValues(closure->second);
  }
  case Expr::Kind::Not:
    return {mlir::tfl::NotOp::create(
        builder, l, genExpr(cast<NotExpr>(expr)->operand.get())[0])};
  case Expr::Kind::BoolOp: {
    // Short-circuit, as Python: the right operand runs only when needed.
    auto *b = cast<BoolOpExpr>(expr);
    Value lhs = genExpr(b->lhs.get())[0];
    auto rhs = [&] { return genExpr(b->rhs.get())[0]; };
    auto constant = [&] { return boolConstant(!b->isAnd, l); };
    if (b->isAnd)
      return {genSelect(lhs, lhs.getType(), l, rhs, constant)};
    return {genSelect(lhs, lhs.getType(), l, constant, rhs)};
  }
  case Expr::Kind::Cond: {
    auto *c = cast<CondExpr>(expr);
    Value cond = genExpr(c->cond.get())[0];
    mlir::Type elem = elementType(&ctx, t.dtype);
    return {genSelect(
        cond, tensorType(t), l,
        [&] { return castTo(genExpr(c->thenExpr.get())[0], elem, l); },
        [&] { return castTo(genExpr(c->elseExpr.get())[0], elem, l); })};
  }
  case Expr::Kind::Call:
    return genCall(cast<CallExpr>(expr));
  default:
    // Strings, functions, None: compile-time values with no SSA form.
    return {};
  }
}

Value MLIRGenImpl::genBinary(const BinaryExpr *expr) {
  Value lhs = genExpr(expr->lhs.get())[0];
  Value rhs = genExpr(expr->rhs.get())[0];
  return emitBinary(expr->op, lhs, rhs, typeOf(expr), loc(expr->opPos));
}

Value MLIRGenImpl::emitBinary(BinaryOp op, Value lhs, Value rhs, const Type &t,
                              mlir::Location l) {
  mlir::Type elem = elementType(&ctx, t.dtype);
  lhs = castTo(lhs, elem, l);
  rhs = castTo(rhs, elem, l);
  mlir::RankedTensorType type = tensorType(t);
  switch (op) {
  case BinaryOp::Add:
    return mlir::tfl::AddOp::create(builder, l, type, lhs, rhs);
  case BinaryOp::Sub:
    return mlir::tfl::SubOp::create(builder, l, type, lhs, rhs);
  case BinaryOp::Mul:
    return mlir::tfl::MulOp::create(builder, l, type, lhs, rhs);
  case BinaryOp::Div:
    return mlir::tfl::DivOp::create(builder, l, type, lhs, rhs);
  case BinaryOp::FloorDiv:
    return mlir::tfl::FloorDivOp::create(builder, l, type, lhs, rhs);
  case BinaryOp::Mod:
    return mlir::tfl::ModOp::create(builder, l, type, lhs, rhs);
  case BinaryOp::Pow:
    return mlir::tfl::PowOp::create(builder, l, type, lhs, rhs);
  case BinaryOp::MatMul:
    return emitMatmul(lhs, rhs, type, l);
  }
  llvm_unreachable("every binary operator is handled");
}

Value MLIRGenImpl::emitMatmul(Value lhs, Value rhs,
                              mlir::RankedTensorType resultType,
                              mlir::Location l) {
  using namespace mlir::tfl;
  auto reshape = [&](Value v, llvm::ArrayRef<int64_t> shape) -> Value {
    auto t = cast<mlir::RankedTensorType>(v.getType());
    if (t.getShape() == shape)
      return v;
    return ReshapeOp::create(builder, l, t.clone(shape), v);
  };
  auto shapeOf = [](Value v) {
    return llvm::SmallVector<int64_t>(
        cast<mlir::RankedTensorType>(v.getType()).getShape());
  };
  llvm::SmallVector<int64_t> a = shapeOf(lhs), b = shapeOf(rhs);
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);
  lhs = reshape(lhs, a);
  rhs = reshape(rhs, b);
  llvm::SmallVector<int64_t> batch =
      *broadcastShapes(llvm::ArrayRef<int64_t>(a).drop_back(2),
                       llvm::ArrayRef<int64_t>(b).drop_back(2));
  int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  mlir::Type elem = resultType.getElementType();
  Value product;
  if (batch.empty()) {
    product = MatmulOp::create(
        builder, l, mlir::RankedTensorType::get({m, n}, elem), lhs, rhs);
  } else {
    int64_t flat = 1;
    for (int64_t d : batch)
      flat *= d;
    auto full = [&](Value v, int64_t r, int64_t c) {
      llvm::SmallVector<int64_t> shape(batch);
      shape.append({r, c});
      auto t = cast<mlir::RankedTensorType>(v.getType());
      if (t.getShape() != llvm::ArrayRef<int64_t>(shape))
        v = BroadcastToOp::create(builder, l, t.clone(shape), v);
      return reshape(v, {flat, r, c});
    };
    Value c = MatmulOp::create(builder, l,
                               mlir::RankedTensorType::get({flat, m, n}, elem),
                               full(lhs, m, k), full(rhs, k, n));
    llvm::SmallVector<int64_t> shape(batch);
    shape.append({m, n});
    product = reshape(c, shape);
  }
  return reshape(product, resultType.getShape());
}

static mlir::tfl::ComparePredicate predicate(CompareOp op) {
  switch (op) {
  case CompareOp::Lt:
    return mlir::tfl::ComparePredicate::lt;
  case CompareOp::Le:
    return mlir::tfl::ComparePredicate::le;
  case CompareOp::Gt:
    return mlir::tfl::ComparePredicate::gt;
  case CompareOp::Ge:
    return mlir::tfl::ComparePredicate::ge;
  case CompareOp::Eq:
    return mlir::tfl::ComparePredicate::eq;
  case CompareOp::Ne:
    return mlir::tfl::ComparePredicate::ne;
  }
  return mlir::tfl::ComparePredicate::eq;
}

Value MLIRGenImpl::genSelect(Value cond, mlir::Type type, mlir::Location l,
                             llvm::function_ref<Value()> thenFn,
                             llvm::function_ref<Value()> elseFn) {
  auto ifOp = mlir::scf::IfOp::create(builder, l, mlir::TypeRange{type},
                                      extract(cond, l), true, true);
  auto branch = [&](mlir::Block &block, llvm::function_ref<Value()> fn) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&block);
    mlir::scf::YieldOp::create(builder, l, mlir::ValueRange{fn()});
  };
  branch(ifOp.getThenRegion().front(), thenFn);
  branch(ifOp.getElseRegion().front(), elseFn);
  return ifOp.getResult(0);
}

Values MLIRGenImpl::genConstantUse(const Expr *literal, const Type &t,
                                   mlir::Location l) {
  if (t.isTensor() && isNumberLiteral(literal))
    return {genConstant(literal, t)};
  Values values = genExpr(literal);
  if (t.isTensor() && values.size() == 1)
    values[0] = castTo(values[0], elementType(&ctx, t.dtype), l);
  return values;
}

Values MLIRGenImpl::castLeaves(const Values &values, const Type &type,
                               mlir::Location l) {
  llvm::SmallVector<mlir::Type> expected;
  flatTypes(type, expected);
  Values out;
  for (size_t j = 0; j < values.size(); ++j)
    out.push_back(
        castTo(values[j],
               cast<mlir::RankedTensorType>(expected[j]).getElementType(), l));
  return out;
}

Values MLIRGenImpl::element(const Values &leaves, const Type &tree,
                            size_t index) {
  // Skip the leaves of the elements before the selected one.
  size_t first = 0;
  for (size_t k = 0; k < index; ++k) {
    llvm::SmallVector<mlir::Type> types;
    flatTypes(tree.elements[k], types);
    first += types.size();
  }
  llvm::SmallVector<mlir::Type> types;
  flatTypes(tree.elements[index], types);
  return Values(leaves.begin() + first, leaves.begin() + first + types.size());
}

Values MLIRGenImpl::genAttribute(const AttributeExpr *expr) {
  mlir::Location l = loc(expr->getBegin());
  auto constant = spec->constantUses.find(expr);
  if (constant != spec->constantUses.end())
    return genConstantUse(constant->second, typeOf(expr), l);
  auto field = spec->tupleIndices.find(expr);
  if (field != spec->tupleIndices.end())
    return element(genExpr(expr->value.get()), typeOf(expr->value.get()),
                   field->second);
  // A bound method's leaves are its receiver's.
  if (typeOf(expr).boundSelf)
    return genExpr(expr->value.get());
  return {}; // a module's function or class: no run-time value
}

Values MLIRGenImpl::genSubscript(const SubscriptExpr *expr) {
  mlir::Location l = loc(expr->getBegin());
  Values values = genExpr(expr->value.get());
  auto tupleIndex = spec->tupleIndices.find(expr);
  if (tupleIndex != spec->tupleIndices.end()) {
    return element(values, typeOf(expr->value.get()), tupleIndex->second);
  }
  const SubscriptPlan &plan = spec->subscripts.find(expr)->second;
  Value x = values[0];
  auto inType = cast<mlir::RankedTensorType>(x.getType());
  mlir::Type i64 = builder.getI64Type();
  auto scalarType = mlir::RankedTensorType::get({}, i64);
  auto i64Scalar = [&](int64_t v) -> Value {
    return mlir::tfl::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(scalarType, builder.getI64IntegerAttr(v)));
  };
  llvm::SmallVector<int64_t> staticStarts, strides, sizes;
  llvm::SmallVector<Value> dynamicStarts;
  for (auto [d, dim] : llvm::enumerate(plan.dims)) {
    sizes.push_back(dim.size);
    strides.push_back(dim.stride);
    if (!dim.dynStart) {
      staticStarts.push_back(dim.start);
      continue;
    }
    staticStarts.push_back(mlir::ShapedType::kDynamic);
    Value start = castTo(genExpr(dim.dynStart)[0], i64, l);
    if (dim.wrapNegative) {
      // x[i] with i < 0 counts from the end, as in Python.
      Value negative = mlir::tfl::CompareOp::create(
          builder, l, scalarType.clone(builder.getI1Type()),
          mlir::tfl::ComparePredicate::lt, start, i64Scalar(0));
      Value wrapped = mlir::tfl::AddOp::create(builder, l, scalarType, start,
                                               i64Scalar(inType.getDimSize(d)));
      start = mlir::tfl::WhereOp::create(builder, l, scalarType, negative,
                                         wrapped, start);
    }
    dynamicStarts.push_back(start);
  }
  Value sliced = mlir::tfl::SliceOp::create(
      builder, l, inType.clone(sizes), x, dynamicStarts,
      builder.getDenseI64ArrayAttr(staticStarts),
      builder.getDenseI64ArrayAttr(strides));
  mlir::RankedTensorType resultType = tensorType(typeOf(expr));
  if (resultType.getShape() == llvm::ArrayRef<int64_t>(sizes))
    return {sliced};
  return {mlir::tfl::ReshapeOp::create(builder, l, resultType, sliced)};
}

Value MLIRGenImpl::genCompare(const CompareExpr *expr) {
  // `a < b < c` is `a < b and b < c`, each operand evaluated once.
  Values operands;
  auto operand = [&](size_t i) {
    while (operands.size() <= i)
      operands.push_back(genExpr(expr->operands[operands.size()].get())[0]);
    return operands[i];
  };
  mlir::Type boolType = tensorType(typeOf(expr));
  std::function<Value(size_t)> pair = [&](size_t i) -> Value {
    mlir::Location l = loc(expr->operands[i]->getBegin());
    Value lhs = operand(i), rhs = operand(i + 1);
    Value result = mlir::tfl::CompareOp::create(
        builder, l, boolType, predicate(expr->ops[i]), lhs, rhs);
    if (i + 1 == expr->ops.size())
      return result;
    return genSelect(
        result, boolType, l, [&] { return pair(i + 1); },
        [&] { return boolConstant(false, l); });
  };
  return pair(0);
}

template <typename OpTy>
Value MLIRGenImpl::broadcastingBinary(Value lhs, Value rhs, mlir::Location l) {
  auto a = cast<mlir::RankedTensorType>(lhs.getType());
  auto b = cast<mlir::RankedTensorType>(rhs.getType());
  llvm::SmallVector<int64_t> shape =
      *mlir::tfl::broadcastShapes(a.getShape(), b.getShape());
  return OpTy::create(builder, l, a.clone(shape), lhs, rhs);
}

/// The names of a tree's leaves in a checkpoint: record fields by name,
/// tuple elements by index, joined with "." (`layer.w`, `0.1`); a lone
/// tensor is "value".
static void leafNames(const Type &t, const std::string &prefix,
                      std::vector<std::string> &out) {
  auto join = [&](llvm::StringRef part) {
    return prefix.empty() ? part.str() : prefix + "." + part.str();
  };
  if (t.isTensor()) {
    out.push_back(prefix.empty() ? "value" : prefix);
    return;
  }
  std::vector<const AnnAssignStmt *> fields;
  if (t.kind == Type::Kind::Record)
    fields = fieldsOf(*t.cls);
  for (size_t i = 0; i < t.elements.size(); ++i)
    leafNames(t.elements[i],
              join(fields.empty()
                       ? std::to_string(i)
                       : cast<NameExpr>(fields[i]->target.get())->name),
              out);
}

Values MLIRGenImpl::genIO(const CallExpr *expr, llvm::StringRef name) {
  using namespace mlir::tfl;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  if (name == "log_scalar") {
    Value value = castTo(genExpr(args[1])[0], builder.getF64Type(), l);
    Value step = castTo(genExpr(args[2])[0], builder.getI64Type(), l);
    LogScalarOp::create(builder, l, value, step,
                        builder.getStringAttr(typeOf(args[0]).name));
    return {};
  }
  mlir::StringAttr path = builder.getStringAttr(typeOf(args[0]).name);
  if (name == "load_idx" || name == "load_npy")
    return {LoadDataOp::create(builder, l, tensorType(t), path,
                               builder.getStringAttr(name.drop_front(5)))};
  const Type &tree = typeOf(args[1]);
  std::vector<std::string> names;
  leafNames(tree, "", names);
  llvm::SmallVector<llvm::StringRef> nameRefs(names.begin(), names.end());
  if (name == "load") {
    llvm::SmallVector<mlir::Type> types;
    flatTypes(t, types);
    auto load = LoadOp::create(builder, l, types, path,
                               builder.getStrArrayAttr(nameRefs));
    return Values(load.getResults().begin(), load.getResults().end());
  }
  Values leaves = castLeaves(genExpr(args[1]), tree.strong(), l);
  if (name == "save_npy")
    SaveNpyOp::create(builder, l, leaves[0], path);
  else
    SaveOp::create(builder, l, leaves, path, builder.getStrArrayAttr(nameRefs));
  return {};
}

Value MLIRGenImpl::genRandom(const CallExpr *expr, llvm::StringRef name) {
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  if (name == "seed") {
    Value n = castTo(genExpr(args[0])[0], builder.getI64Type(), l);
    mlir::tfl::SeedOp::create(builder, l, n);
    return {};
  }
  mlir::RankedTensorType type = tensorType(t);
  if (name == "shuffle_indices")
    return mlir::tfl::ShuffleIndicesOp::create(builder, l, type);
  Value r = name == "random_normal"
                ? Value(mlir::tfl::RandomNormalOp::create(builder, l, type))
                : Value(mlir::tfl::RandomUniformOp::create(builder, l, type));
  // normal: r * stddev + mean; uniform: lo + (hi - lo) * r.
  const Expr *shift = args[1], *scale = args[2];
  if (name == "random_uniform" && (shift || scale)) {
    auto bound = [&](const Expr *e, double fallback) -> std::pair<Value, Type> {
      if (e)
        return {castTo(genExpr(e)[0], type.getElementType(), l), typeOf(e)};
      auto scalar = mlir::RankedTensorType::get({}, type.getElementType());
      return {mlir::tfl::ConstantOp::create(
                  builder, l,
                  mlir::DenseElementsAttr::get(
                      scalar,
                      builder.getFloatAttr(type.getElementType(), fallback))),
              Type::tensor(t.dtype, {})};
    };
    auto [lo, loType] = bound(shift, 0.0);
    auto [hi, hiType] = bound(scale, 1.0);
    llvm::SmallVector<int64_t> widthShape =
        *mlir::tfl::broadcastShapes(loType.shape, hiType.shape);
    Type widthType = Type::tensor(
        t.dtype, std::vector<int64_t>(widthShape.begin(), widthShape.end()));
    Value width = emitBinary(BinaryOp::Sub, hi, lo, widthType, l);
    r = emitBinary(BinaryOp::Mul, r, width, t, l);
    return emitBinary(BinaryOp::Add, r, lo, t, l);
  }
  if (scale)
    r = emitBinary(BinaryOp::Mul, r, genExpr(scale)[0], t, l);
  if (shift)
    r = emitBinary(BinaryOp::Add, r, genExpr(shift)[0], t, l);
  return r;
}

Value MLIRGenImpl::genBuiltin(const CallExpr *expr, llvm::StringRef name) {
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::Type elem = elementType(&ctx, t.dtype);
  if (name == "cast" || name == "float" || name == "int")
    return castTo(genExpr(expr->args[0].get())[0], elem, l);
  if (name == "softmax" || name == "log_softmax" || name == "one_hot")
    return genNN(expr, name);
  if (name == "gather") {
    auto arg = [&](size_t i, llvm::StringRef kw) -> const Expr * {
      if (i < expr->args.size())
        return expr->args[i].get();
      for (const Keyword &k : expr->keywords)
        if (k.name == kw)
          return k.value.get();
      return nullptr;
    };
    Value x = genExpr(arg(0, "x"))[0];
    Value idx = genExpr(arg(1, "indices"))[0];
    int64_t axis = spec->reductions.find(expr)->second.axes[0];
    return mlir::tfl::GatherOp::create(builder, l, tensorType(t), x, idx,
                                       builder.getI64IntegerAttr(axis));
  }
  if (name == "now")
    return mlir::tfl::NowOp::create(builder, l, tensorType(t));
  if (name == "conv2d" || name == "max_pool2d" || name == "avg_pool2d") {
    const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
    const WindowInfo &w = spec->windows.find(expr)->second;
    Value x = genExpr(args[0])[0];
    auto strides = builder.getDenseI64ArrayAttr(w.strides);
    auto padding = builder.getDenseI64ArrayAttr(w.padding);
    if (name == "conv2d")
      return mlir::tfl::Conv2DOp::create(builder, l, tensorType(t), x,
                                         genExpr(args[1])[0], strides, padding);
    auto size = builder.getDenseI64ArrayAttr(w.size);
    if (name == "max_pool2d")
      return mlir::tfl::MaxPool2DOp::create(builder, l, tensorType(t), x, size,
                                            strides, padding);
    return mlir::tfl::AvgPool2DOp::create(builder, l, tensorType(t), x, size,
                                          strides, padding);
  }
  if (name == "check_numerics") {
    const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
    llvm::StringRef message =
        args[1] ? cast<StringExpr>(args[1])->value : llvm::StringRef();
    return mlir::tfl::CheckNumericsOp::create(builder, l, tensorType(t),
                                              genExpr(args[0])[0],
                                              builder.getStringAttr(message));
  }
  if (name == "seed" || name == "shuffle_indices" || name == "random_normal" ||
      name == "random_uniform")
    return genRandom(expr, name);
  if (name == "flag")
    return mlir::tfl::FlagOp::create(
        builder, l, tensorType(t),
        builder.getStringAttr(cast<StringExpr>(expr->args[0].get())->value));
  if (spec->reductions.count(expr))
    return genReduction(expr, name);
  // Every other built-in computes in the result's dtype.
  llvm::SmallVector<Value, 3> args;
  for (const ExprPtr &arg : expr->args)
    args.push_back(genExpr(arg.get())[0]);
  for (size_t i = name == "where" ? 1 : 0; i < args.size(); ++i)
    args[i] = castTo(args[i], elem, l);
  if (name == "where")
    return mlir::tfl::WhereOp::create(builder, l, tensorType(t), args[0],
                                      args[1], args[2]);
  if (name == "maximum")
    return broadcastingBinary<mlir::tfl::MaximumOp>(args[0], args[1], l);
  if (name == "minimum")
    return broadcastingBinary<mlir::tfl::MinimumOp>(args[0], args[1], l);
  if (name == "pow")
    return broadcastingBinary<mlir::tfl::PowOp>(args[0], args[1], l);
  if (name == "matmul")
    return emitMatmul(args[0], args[1], tensorType(t), l);
  if (name == "clip")
    return broadcastingBinary<mlir::tfl::MinimumOp>(
        broadcastingBinary<mlir::tfl::MaximumOp>(args[0], args[1], l), args[2],
        l);
  using UnaryFn = Value (MLIRGenImpl::*)(Value, mlir::Location);
  UnaryFn fn = llvm::StringSwitch<UnaryFn>(name)
                   .Case("exp", &MLIRGenImpl::unary<mlir::tfl::ExpOp>)
                   .Case("log", &MLIRGenImpl::unary<mlir::tfl::LogOp>)
                   .Case("log1p", &MLIRGenImpl::unary<mlir::tfl::Log1pOp>)
                   .Case("expm1", &MLIRGenImpl::unary<mlir::tfl::Expm1Op>)
                   .Case("sqrt", &MLIRGenImpl::unary<mlir::tfl::SqrtOp>)
                   .Case("rsqrt", &MLIRGenImpl::unary<mlir::tfl::RsqrtOp>)
                   .Case("tanh", &MLIRGenImpl::unary<mlir::tfl::TanhOp>)
                   .Case("sigmoid", &MLIRGenImpl::unary<mlir::tfl::SigmoidOp>)
                   .Case("sin", &MLIRGenImpl::unary<mlir::tfl::SinOp>)
                   .Case("cos", &MLIRGenImpl::unary<mlir::tfl::CosOp>)
                   .Case("floor", &MLIRGenImpl::unary<mlir::tfl::FloorOp>)
                   .Case("round", &MLIRGenImpl::unary<mlir::tfl::RoundOp>)
                   .Case("abs", &MLIRGenImpl::unary<mlir::tfl::AbsOp>)
                   .Case("sign", &MLIRGenImpl::unary<mlir::tfl::SignOp>)
                   .Case("square", &MLIRGenImpl::unary<mlir::tfl::SquareOp>)
                   .Case("relu", &MLIRGenImpl::unary<mlir::tfl::ReluOp>);
  return (this->*fn)(args[0], l);
}

Value MLIRGenImpl::genShapeBuiltin(const CallExpr *expr, llvm::StringRef name) {
  using namespace mlir::tfl;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::RankedTensorType type = tensorType(t);
  mlir::Type elem = type.getElementType();
  auto arg = [&](size_t i, llvm::StringRef kw) -> const Expr * {
    if (i < expr->args.size())
      return expr->args[i].get();
    for (const Keyword &k : expr->keywords)
      if (k.name == kw)
        return k.value.get();
    return nullptr;
  };
  auto splat = [&](double v) -> Value {
    mlir::TypedAttr value = isa<mlir::FloatType>(elem)
                                ? mlir::TypedAttr(builder.getFloatAttr(elem, v))
                                : mlir::TypedAttr(builder.getIntegerAttr(
                                      elem, static_cast<int64_t>(v)));
    return ConstantOp::create(builder, l,
                              mlir::DenseElementsAttr::get(type, value));
  };
  if (name == "zeros" || name == "zeros_like")
    return splat(0);
  if (name == "ones" || name == "ones_like")
    return splat(1);
  if (name == "full") {
    Value v = castTo(genExpr(arg(1, "value"))[0], elem, l);
    return BroadcastToOp::create(builder, l, type, v);
  }
  if (name == "size")
    return ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(
            type, builder.getI64IntegerAttr(mlir::ShapedType::getNumElements(
                      tensorType(typeOf(arg(0, "x"))).getShape()))));
  if (name == "eye") {
    int64_t n = t.shape[0], m = t.shape[1];
    std::vector<float> values(n * m, 0.0f);
    for (int64_t i = 0; i < std::min(n, m); ++i)
      values[i * m + i] = 1.0f;
    return ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, llvm::ArrayRef<float>(values)));
  }
  if (name == "arange") {
    auto intArg = [&](size_t i, llvm::StringRef kw, int64_t dflt) -> int64_t {
      const Expr *e = arg(i, kw);
      if (!e)
        return dflt;
      if (auto *u = dyn_cast<UnaryExpr>(e))
        return -cast<IntExpr>(u->operand.get())->value;
      return cast<IntExpr>(e)->value;
    };
    bool two = arg(1, "stop") != nullptr;
    int64_t start = two ? intArg(0, "start", 0) : 0;
    int64_t step = intArg(2, "step", 1);
    std::vector<int64_t> values;
    for (int64_t i = 0; i < t.shape[0]; ++i)
      values.push_back(start + i * step);
    return ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, llvm::ArrayRef<int64_t>(values)));
  }
  if (name == "concat" || name == "stack") {
    const Expr *seq = arg(0, "tensors");
    const std::vector<ExprPtr> &items = isa<TupleExpr>(seq)
                                            ? cast<TupleExpr>(seq)->elements
                                            : cast<ListExpr>(seq)->elements;
    int64_t rank = type.getRank();
    int64_t axis = 0;
    if (const Expr *a = arg(1, "axis")) {
      axis = isa<UnaryExpr>(a)
                 ? -cast<IntExpr>(cast<UnaryExpr>(a)->operand.get())->value
                 : cast<IntExpr>(a)->value;
      if (axis < 0)
        axis += rank;
    }
    llvm::SmallVector<Value> inputs;
    for (const ExprPtr &item : items) {
      Value v = castTo(genExpr(item.get())[0], elem, l);
      if (name == "stack") {
        auto vt = cast<mlir::RankedTensorType>(v.getType());
        llvm::SmallVector<int64_t> shape(vt.getShape());
        shape.insert(shape.begin() + axis, 1);
        v = ReshapeOp::create(builder, l, vt.clone(shape), v);
      }
      inputs.push_back(v);
    }
    return ConcatOp::create(builder, l, type, inputs,
                            builder.getI64IntegerAttr(axis));
  }
  Value x = genExpr(arg(0, "x"))[0];
  if (name == "broadcast_to")
    return BroadcastToOp::create(builder, l, type, x);
  if (name == "tile") {
    // x: (d0, d1, ...) -> (1, d0, 1, d1, ...) -> broadcast to
    // (r0, d0, r1, d1, ...) -> (r0*d0, r1*d1, ...): rep index outermost.
    auto in = cast<mlir::RankedTensorType>(x.getType());
    size_t rank = t.shape.size();
    llvm::SmallVector<int64_t> dims(rank - in.getRank(), 1);
    llvm::append_range(dims, in.getShape());
    llvm::SmallVector<int64_t> spread, tiled;
    for (size_t i = 0; i < rank; ++i) {
      // A zero dim tiles to zero whatever the reps: broadcast it once.
      int64_t reps = dims[i] == 0 ? 1 : t.shape[i] / dims[i];
      spread.append({1, dims[i]});
      tiled.append({reps, dims[i]});
    }
    Value s = ReshapeOp::create(builder, l, in.clone(spread), x);
    Value b = BroadcastToOp::create(builder, l, in.clone(tiled), s);
    return ReshapeOp::create(builder, l, type, b);
  }
  if (name == "transpose")
    return TransposeOp::create(
        builder, l, type, x,
        builder.getDenseI64ArrayAttr(spec->permutations.find(expr)->second));
  // reshape, expand_dims and squeeze move no data.
  return ReshapeOp::create(builder, l, type, x);
}

Value MLIRGenImpl::genNN(const CallExpr *expr, llvm::StringRef name) {
  using namespace mlir::tfl;
  const ReductionInfo &info = spec->reductions.find(expr)->second;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  Value x = genExpr(expr->args.empty() ? expr->keywords[0].value.get()
                                       : expr->args[0].get())[0];
  if (name == "one_hot") {
    // labels[..., None] == arange(depth), as f32.
    int64_t depth = info.axes[0];
    auto labelsType = cast<mlir::RankedTensorType>(x.getType());
    llvm::SmallVector<int64_t> expanded(labelsType.getShape());
    expanded.push_back(1);
    Value column = ReshapeOp::create(builder, l, labelsType.clone(expanded), x);
    std::vector<int64_t> range(depth);
    for (int64_t i = 0; i < depth; ++i)
      range[i] = i;
    auto rangeType =
        mlir::RankedTensorType::get({depth}, labelsType.getElementType());
    llvm::SmallVector<llvm::APInt> values;
    for (int64_t i : range)
      values.push_back(llvm::APInt(
          labelsType.getElementType().getIntOrFloatBitWidth(), i, true));
    Value classes = ConstantOp::create(
        builder, l, mlir::DenseElementsAttr::get(rangeType, values));
    mlir::RankedTensorType resultType = tensorType(t);
    Value equal = mlir::tfl::CompareOp::create(
        builder, l, resultType.clone(builder.getI1Type()), ComparePredicate::eq,
        column, classes);
    return CastOp::create(builder, l, resultType, equal);
  }
  x = castTo(x, elementType(&ctx, t.dtype), l);
  // Shifted by the maximum along the axis, for stability.
  std::vector<int64_t> axes = info.axes;
  Value m = reduce<ReduceMaxOp>(x, axes, true, l);
  Value shifted = broadcastingBinary<SubOp>(x, m, l);
  Value e = ExpOp::create(builder, l, shifted);
  Value s = reduce<ReduceSumOp>(e, axes, true, l);
  if (name == "softmax")
    return broadcastingBinary<DivOp>(e, s, l);
  return broadcastingBinary<SubOp>(shifted, LogOp::create(builder, l, s), l);
}

Value MLIRGenImpl::genReduction(const CallExpr *expr, llvm::StringRef name) {
  const ReductionInfo &info = spec->reductions.find(expr)->second;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::Type elem = elementType(&ctx, t.dtype);
  Value x = genExpr(expr->args[0].get())[0];
  const std::vector<int64_t> &axes = info.axes;
  bool keep = info.keepdims;
  using namespace mlir::tfl;
  if (name == "argmax" || name == "argmin") {
    mlir::IntegerAttr axis =
        info.allAxes ? mlir::IntegerAttr() : builder.getI64IntegerAttr(axes[0]);
    if (name == "argmax")
      return ArgmaxOp::create(builder, l, tensorType(t), x, axis,
                              builder.getBoolAttr(keep));
    return ArgminOp::create(builder, l, tensorType(t), x, axis,
                            builder.getBoolAttr(keep));
  }
  x = castTo(x, elem, l);
  if (name == "sum")
    return reduce<ReduceSumOp>(x, axes, keep, l);
  if (name == "prod")
    return reduce<ReduceProdOp>(x, axes, keep, l);
  if (name == "max")
    return reduce<ReduceMaxOp>(x, axes, keep, l);
  if (name == "min")
    return reduce<ReduceMinOp>(x, axes, keep, l);
  auto scalar = [&](double v) -> Value {
    auto type = mlir::RankedTensorType::get({}, elem);
    return ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, builder.getFloatAttr(elem, v)));
  };
  if (name == "mean") {
    auto inType = cast<mlir::RankedTensorType>(x.getType());
    double count = 1;
    for (int64_t a : axes)
      count *= inType.getDimSize(a);
    Value sum = reduce<ReduceSumOp>(x, axes, keep, l);
    return broadcastingBinary<DivOp>(sum, scalar(count), l);
  }
  // logsumexp: m + log(sum(exp(x - m))), with m the maximum where it is
  // finite and 0 elsewhere (SciPy's guard: all -inf gives -inf).
  auto finiteOr0 = [&](Value m) -> Value {
    auto type = cast<mlir::RankedTensorType>(m.getType());
    Value diff = broadcastingBinary<SubOp>(m, m, l);
    Value finite = mlir::tfl::CompareOp::create(
        builder, l, type.clone(builder.getI1Type()), ComparePredicate::eq, diff,
        scalar(0));
    return WhereOp::create(builder, l, type, finite, m, scalar(0));
  };
  Value mKept = finiteOr0(reduce<ReduceMaxOp>(x, axes, true, l));
  Value shifted = broadcastingBinary<SubOp>(x, mKept, l);
  Value e = ExpOp::create(builder, l, shifted);
  Value s = LogOp::create(builder, l, reduce<ReduceSumOp>(e, axes, keep, l));
  Value m = keep ? mKept : finiteOr0(reduce<ReduceMaxOp>(x, axes, false, l));
  return broadcastingBinary<AddOp>(s, m, l);
}

Values MLIRGenImpl::genCall(const CallExpr *expr) {
  auto builtin = spec->builtinCalls.find(expr);
  if (builtin != spec->builtinCalls.end()) {
    if (builtin->second == "shape") {
      // A tuple of compile-time sizes.
      Values sizes;
      auto type = mlir::RankedTensorType::get({}, builder.getI64Type());
      for (int64_t d : typeOf(expr->args[0].get()).shape)
        sizes.push_back(mlir::tfl::ConstantOp::create(
            builder, loc(expr->getBegin()),
            mlir::DenseElementsAttr::get(type, builder.getI64IntegerAttr(d))));
      return sizes;
    }
    if (llvm::is_contained({"zeros", "ones", "full", "zeros_like", "ones_like",
                            "arange", "eye", "broadcast_to", "reshape",
                            "transpose", "expand_dims", "squeeze", "concat",
                            "stack", "size", "tile"},
                           builtin->second))
      return {genShapeBuiltin(expr, builtin->second)};
    if (llvm::is_contained(
            {"load_idx", "load_npy", "save_npy", "save", "load", "log_scalar"},
            builtin->second))
      return genIO(expr, builtin->second);
    Value v = genBuiltin(expr, builtin->second);
    return v ? Values{v} : Values{}; // seed(...) has no value
  }
  auto construction = spec->constructions.find(expr);
  if (construction != spec->constructions.end()) {
    const Type &record = typeOf(expr);
    Values leaves;
    for (size_t i = 0; i < construction->second.size(); ++i)
      llvm::append_range(leaves,
                         castLeaves(genExpr(construction->second[i]),
                                    record.elements[i], loc(expr->getBegin())));
    return leaves;
  }
  auto replacement = spec->replacements.find(expr);
  if (replacement != spec->replacements.end()) {
    auto *attr = cast<AttributeExpr>(expr->callee.get());
    const Type &before = typeOf(attr->value.get());
    const Type &after = typeOf(expr);
    Values old = genExpr(attr->value.get());
    Values leaves;
    for (size_t i = 0; i < replacement->second.size(); ++i) {
      const Expr *value = replacement->second[i];
      llvm::append_range(leaves,
                         value ? castLeaves(genExpr(value), after.elements[i],
                                            loc(value->getBegin()))
                               : element(old, before, i));
    }
    return leaves;
  }
  auto calleeIt = spec->callees.find(expr);
  if (calleeIt == spec->callees.end()) {
    genPrint(expr);
    return {};
  }
  const Specialization *callee = calleeIt->second;
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  mlir::Location l = loc(expr->getBegin());
  Values operands;
  auto pass = [&](const Values &values, const Type &type) {
    llvm::append_range(operands, castLeaves(values, type, l));
  };
  // The callee value's leaves: a bound method's receiver (its first
  // argument), or a closure's captures (after the arguments).
  const Type &calleeType = typeOf(expr->callee.get());
  bool bound = calleeType.kind == Type::Kind::Record || calleeType.boundSelf;
  Values calleeLeaves = genExpr(expr->callee.get());
  if (bound)
    pass(calleeLeaves, callee->argTypes.front());
  for (size_t i = 0; i < args.size(); ++i)
    pass(genExpr(args[i]), callee->argTypes[i + (bound ? 1 : 0)]);
  if (!bound)
    pass(calleeLeaves, Type::tuple(callee->captureTypes));
  llvm::SmallVector<mlir::Type> resultTypes;
  flatTypes(callee->resultType, resultTypes);
  auto call = mlir::func::CallOp::create(builder, l, callee->symbol,
                                         resultTypes, operands);
  return Values(call.getResults().begin(), call.getResults().end());
}

/// Escapes text for a tfl.print format (braces are doubled).
static std::string escapeFormat(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '{' || c == '}')
      out += c;
  }
  return out;
}

void MLIRGenImpl::genPrint(const CallExpr *expr) {
  std::string sep = " ", end = "\n";
  for (const Keyword &kw : expr->keywords)
    (kw.name == "sep" ? sep : end) = typeOf(kw.value.get()).name;
  std::string format;
  Values inputs;
  for (size_t i = 0; i < expr->args.size(); ++i) {
    if (i)
      format += escapeFormat(sep);
    if (auto *f = dyn_cast<FStringExpr>(expr->args[i].get())) {
      for (const FStringExpr::Part &part : f->parts) {
        if (!part.expr) {
          format += escapeFormat(part.text);
          continue;
        }
        const Type &pt = typeOf(part.expr.get());
        if (pt.kind == Type::Kind::String) {
          format += escapeFormat(pt.name);
          continue;
        }
        inputs.push_back(genExpr(part.expr.get())[0]);
        format += part.spec.empty() ? "{}" : "{:" + part.spec + "}";
      }
      continue;
    }
    const Type &t = typeOf(expr->args[i].get());
    if (t.kind == Type::Kind::String) {
      format += escapeFormat(t.name);
      continue;
    }
    Values values = genExpr(expr->args[i].get());
    if (t.kind == Type::Kind::Tuple) {
      // As Python shows a tuple: "(a, b)", "(a,)".
      format += "(";
      size_t next = 0;
      for (size_t k = 0; k < t.elements.size(); ++k) {
        if (k)
          format += ", ";
        if (t.elements[k].kind == Type::Kind::String) {
          format += escapeFormat("'" + t.elements[k].name + "'");
          continue;
        }
        inputs.push_back(values[next++]);
        format += "{}";
      }
      format += t.elements.size() == 1 ? ",)" : ")";
      continue;
    }
    inputs.push_back(values[0]);
    format += "{}";
  }
  format += escapeFormat(end);
  mlir::tfl::PrintOp::create(builder, loc(expr->getBegin()), inputs,
                             builder.getStringAttr(format));
}

} // namespace

mlir::OwningOpRef<mlir::ModuleOp> tfl::genModule(mlir::MLIRContext &context,
                                                 const Program &program) {
  return MLIRGenImpl(context, program).run();
}
