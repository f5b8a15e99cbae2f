//===- MLIRGen.cpp - From the checked AST to the tfl dialect --------------===//
//
// A straight walk over each specialization's body. Sema has decided every
// type, so nothing here can fail on a program Sema accepted; the types Sema
// recorded are what is emitted (a literal re-typed by promotion is emitted
// directly in its final dtype; a variable is cast where it meets another
// dtype, which canonicalization folds for constants).
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"
#include "tflrt/Flags.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::mlirgen;

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
  case DType::BF16:
    return b.getBF16Type();
  case DType::F16:
    return b.getF16Type();
  }
  return {};
}

/// True for a number literal (possibly negated) or a nested list of them.
bool tfl::mlirgen::isNumberLiteral(const Expr *e) {
  if (isa<IntExpr, FloatExpr, BoolExpr>(e))
    return true;
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return isa<IntExpr, FloatExpr>(u->operand.get());
  if (auto *l = dyn_cast<ListExpr>(e))
    return llvm::all_of(
        l->elements, [](const ExprPtr &x) { return isNumberLiteral(x.get()); });
  return false;
}

mlir::OwningOpRef<mlir::ModuleOp> MLIRGenImpl::run() {
  module = mlir::ModuleOp::create(loc({1, 1}));
  if (!program.flags.empty()) {
    // The flag table, declared before the program runs (for --help).
    llvm::SmallVector<mlir::Attribute> flags;
    for (const FlagInfo &f : program.flags)
      flags.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("name", builder.getStringAttr(f.name)),
          builder.getNamedAttr(
              "dtype",
              builder.getI32IntegerAttr(
                  f.isString ? tflrt::kStringFlag : static_cast<int>(f.dtype))),
          builder.getNamedAttr("default", builder.getStringAttr(f.defaultText)),
          builder.getNamedAttr("help", builder.getStringAttr(f.help)),
      }));
    module->setAttr("tfl.flags", builder.getArrayAttr(flags));
  }
  if (!program.precision.empty())
    module->setAttr("tfl.precision", builder.getStringAttr(program.precision));
  for (const std::unique_ptr<Specialization> &s : program.specializations)
    if (!program.library || s.get() != program.entry)
      genFunction(*s);
  for (const Program::Export &e : program.exports)
    genExport(e);
  return module;
}

void MLIRGenImpl::genExport(const Program::Export &e) {
  const Specialization &s = *e.spec;
  mlir::Location l = loc(s.def->namePos);
  llvm::SmallVector<mlir::Type> ins, outs, results;
  for (const Type &t : s.argTypes)
    flatTypes(t, ins);
  flatTypes(s.callType(), outs);
  flatTypes(s.resultType, results);
  auto bufferOf = [](mlir::Type t) -> mlir::Type {
    auto tensor = cast<mlir::RankedTensorType>(t);
    return mlir::MemRefType::get(tensor.getShape(), tensor.getElementType());
  };
  llvm::SmallVector<mlir::Type> params;
  for (mlir::Type t : ins)
    params.push_back(bufferOf(t));
  for (mlir::Type t : outs)
    params.push_back(bufferOf(t));
  builder.setInsertionPointToEnd(module.getBody());
  auto fn = mlir::func::FuncOp::create(builder, l, "tfl_export_" + e.name,
                                       builder.getFunctionType(params, {}));
  // Callers pass each tensor as a (row-major, contiguous) buffer; the
  // results are written into buffers the caller gives.
  fn->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  fn->setAttr("tfl.export", builder.getStringAttr(e.name));
  mlir::Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  llvm::SmallVector<Value> operands;
  for (auto [k, t] : llvm::enumerate(ins))
    operands.push_back(mlir::bufferization::ToTensorOp::create(
        builder, l, t, entry->getArgument(k), /*restrict=*/true,
        /*writable=*/false));
  auto call =
      mlir::func::CallOp::create(builder, l, s.symbol, results, operands);
  for (size_t k = 0; k < outs.size(); ++k)
    mlir::bufferization::MaterializeInDestinationOp::create(
        builder, l, mlir::Type(), call.getResult(k),
        entry->getArgument(ins.size() + k), /*restrict=*/true,
        /*writable=*/true);
  mlir::func::ReturnOp::create(builder, l);
}

void MLIRGenImpl::markCustomGradient(mlir::func::FuncOp fn,
                                     const Specialization &s) {
  llvm::SmallVector<mlir::Type> value;
  flatTypes(s.valueType, value);
  const Type &g = s.customPullback->resultType;
  std::vector<Type> grads =
      s.argTypes.size() == 1 && g.kind != Type::Kind::Tuple
          ? std::vector<Type>{g}
          : g.elements;
  llvm::SmallVector<int64_t> cotangents;
  int64_t next = 0;
  for (size_t i = 0; i < s.argTypes.size(); ++i) {
    llvm::SmallVector<mlir::Type> leaves;
    flatTypes(s.argTypes[i], leaves);
    bool none = grads[i].kind == Type::Kind::None;
    for (size_t k = 0; k < leaves.size(); ++k)
      cotangents.push_back(none ? -1 : next++);
  }
  fn->setAttr("tfl.custom_pullback",
              mlir::FlatSymbolRefAttr::get(&ctx, s.customPullback->symbol));
  fn->setAttr("tfl.custom_value_leaves",
              builder.getI64IntegerAttr(static_cast<int64_t>(value.size())));
  fn->setAttr("tfl.custom_cotangents",
              builder.getDenseI64ArrayAttr(cotangents));
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
  if (s.def || s.gradOf)
    fn.setPrivate();
  if (s.customPullback)
    markCustomGradient(fn, s);
  mlir::Block *entry = fn.addEntryBlock();
  if (s.gradOf) {
    // A gradient function: tfl.grad of the differentiated specialization,
    // which the autodiff pass turns into generated code.
    builder.setInsertionPointToStart(entry);
    mlir::Location l = s.gradOf->def ? loc(s.gradOf->def->namePos) : fnLoc;
    auto grad = mlir::tfl::GradOp::create(
        builder, l, resultTypes,
        mlir::FlatSymbolRefAttr::get(&ctx, s.gradOf->symbol),
        entry->getArguments(), builder.getDenseI64ArrayAttr(s.gradArgnums),
        builder.getBoolAttr(s.gradWithValue));
    mlir::func::ReturnOp::create(builder, l, grad.getResults());
    return;
  }
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
  if (!s.def && program.session) {
    // An input at the prompt starts with the session's variables.
    for (const CarriedVar &v : program.sessionVars) {
      llvm::SmallVector<mlir::Type> leaves;
      flatTypes(v.type, leaves);
      Values values;
      for (auto [i, t] : llvm::enumerate(leaves))
        values.push_back(mlir::tfl::SessionValueOp::create(
            builder, fnLoc, t, builder.getStringAttr(v.name),
            builder.getI64IntegerAttr(static_cast<int64_t>(i))));
      bind(v.name, values);
    }
  }

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
  bool returned = genBlock(body);
  if (!s.def && program.session) {
    // ... and keeps every variable it has at its end.
    mlir::Location l =
        loc(body.empty() ? Position{1, 1} : body.back()->getRange().end);
    for (const CarriedVar &v : program.globals) {
      llvm::SmallVector<mlir::Type> leaves;
      flatTypes(v.type, leaves);
      auto it = env.find(v.name);
      if (leaves.empty() || it == env.end())
        continue;
      mlir::tfl::SessionStoreOp::create(builder, l,
                                        castLeaves(it->second, v.type, l),
                                        builder.getStringAttr(v.name));
    }
  }
  if (!returned)
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
  if (auto *starred = dyn_cast<StarredExpr>(target))
    return bindTarget(starred->value.get(), type, values);
  auto *tuple = cast<TupleExpr>(target);
  // A `*rest` target takes a tuple of the rest: the leaves are in order.
  Type unpacked = *unpackedType(*tuple, type);
  size_t next = 0;
  for (size_t i = 0; i < tuple->elements.size(); ++i) {
    llvm::SmallVector<mlir::Type> leaves;
    flatTypes(unpacked.elements[i], leaves);
    bindTarget(tuple->elements[i].get(), unpacked.elements[i],
               values.slice(next, leaves.size()));
    next += leaves.size();
  }
}

bool MLIRGenImpl::genStmt(const Stmt *stmt) {
  if (program.debugPoints && !isa<ast::FuncDef, ast::ClassDef>(stmt))
    if (std::optional<size_t> scope = spec->findDebugScope(stmt))
      genDebugPoint(*scope, /*stop=*/false, loc(stmt->getBegin()));
  switch (stmt->getKind()) {
  case Stmt::Kind::Expr:
    if (program.displays.contains(stmt))
      genDisplay(cast<ExprStmt>(stmt)->value.get());
    else if (!isa<StringExpr>(cast<ExprStmt>(stmt)->value.get()))
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
    Values lhs = genExpr(aug->target.get());
    Values rhs = genExpr(aug->value.get());
    const Type &type = spec->stmtTypes.find(stmt)->second;
    bind(cast<NameExpr>(aug->target.get())->name,
         combine(aug->op, lhs, typeOf(aug->target.get()), rhs,
                 typeOf(aug->value.get()), type, loc(stmt->getBegin())));
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
  case Stmt::Kind::With: {
    // The body's ops are marked with the device; tfl-place-devices makes
    // the copies between devices.
    auto *w = cast<WithStmt>(stmt);
    mlir::StringAttr outer = deviceMarker.device;
    deviceMarker.device = builder.getStringAttr(spec->devices.find(w)->second);
    bool returned = genBlock(w->body);
    deviceMarker.device = outer;
    return returned;
  }
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
  auto c = [&](int64_t v) -> Value {
    return mlir::arith::ConstantOp::create(builder, l, i64,
                                           builder.getI64IntegerAttr(v));
  };
  if (spec->rowLoops.count(stmt)) {
    // enumerate(x) or zip(x, y, ...): the rows of the shortest.
    int64_t rows = -1;
    auto &values = iterValues[stmt];
    for (const ExprPtr &arg : cast<CallExpr>(stmt->iter.get())->args) {
      values.push_back(genExpr(arg.get())[0]);
      int64_t n =
          cast<mlir::RankedTensorType>(values.back().getType()).getShape()[0];
      rows = rows < 0 ? n : std::min(rows, n);
    }
    return {c(0), c(1), c(rows)};
  }
  if (const Type *seq = iterType(stmt)) {
    // The first axis of a tensor: iterations 0 .. n-1 over its rows.
    iterValues[stmt] = {genExpr(stmt->iter.get())[0]};
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
  // Row k of each tensor, after enumerate's count.
  Values leaves;
  auto counted = spec->rowLoops.find(stmt);
  if (counted != spec->rowLoops.end() && counted->second) {
    Value start = mlir::arith::ConstantOp::create(
        builder, l, builder.getI64Type(),
        builder.getI64IntegerAttr(*counted->second));
    leaves.push_back(
        fromScalar(mlir::arith::AddIOp::create(builder, l, start, k), l));
  }
  for (Value tensor : seq->second)
    leaves.push_back(rowOf(tensor, k, l));
  return leaves;
}

Value MLIRGenImpl::rowOf(Value tensor, Value k, mlir::Location l) {
  auto type = cast<mlir::RankedTensorType>(tensor.getType());
  llvm::SmallVector<int64_t> starts(type.getRank(), 0),
      strides(type.getRank(), 1);
  starts[0] = mlir::ShapedType::kDynamic;
  llvm::SmallVector<int64_t> sizes(type.getShape());
  sizes[0] = 1;
  Value row = mlir::tfl::SliceOp::create(builder, l, type.clone(sizes), tensor,
                                         mlir::ValueRange{fromScalar(k, l)},
                                         builder.getDenseI64ArrayAttr(starts),
                                         builder.getDenseI64ArrayAttr(strides));
  return mlir::tfl::ReshapeOp::create(
      builder, l, type.clone(type.getShape().drop_front()), row);
}

void MLIRGenImpl::genForTuple(const ForStmt *stmt) {
  // Unrolled: the body once per element, each copy with its own facts.
  const Type &seq = *iterType(stmt);
  Values values = genExpr(stmt->iter.get());
  const Specialization *parent = spec;
  const auto &copies = parent->unrolled.find(stmt)->second;
  for (size_t e = 0; e < seq.elements.size(); ++e) {
    spec = copies[e].get();
    bindTarget(stmt->target.get(), seq.elements[e], element(values, seq, e));
    genBlock(stmt->body);
    spec = parent;
  }
}

void MLIRGenImpl::genFor(const ForStmt *stmt) {
  const Type *seqType = iterType(stmt);
  if (seqType && seqType->kind == Type::Kind::Tuple)
    return genForTuple(stmt);
  if (hasBreak(stmt->body))
    return genLoopWithBreak(stmt, stmt->body, nullptr, stmt);
  mlir::Location l = loc(stmt->getBegin());
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
        bindTarget(stmt->target.get(), spec->loopTargetTypes.find(stmt)->second,
                   loopValue(stmt, k, l));
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
  auto i64Scalar = [&](int64_t v) { return i64Constant(v, l); };
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
            bindTarget(forStmt->target.get(),
                       spec->loopTargetTypes.find(forStmt)->second,
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

mlir::OwningOpRef<mlir::ModuleOp> tfl::genModule(mlir::MLIRContext &context,
                                                 const Program &program) {
  return MLIRGenImpl(context, program).run();
}
