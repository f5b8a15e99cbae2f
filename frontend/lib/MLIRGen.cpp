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

void MLIRGenImpl::markCustomRule(mlir::func::FuncOp fn,
                                 const Specialization &s) {
  llvm::SmallVector<mlir::Type> value;
  flatTypes(s.valueType, value);
  fn->setAttr("tfl.custom_value_leaves",
              builder.getI64IntegerAttr(static_cast<int64_t>(value.size())));
  if (s.customTangent) {
    fn->setAttr("tfl.custom_tangent",
                mlir::FlatSymbolRefAttr::get(&ctx, s.customTangent->symbol));
    return;
  }
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
  if (s.def || s.gradOf || s.jvpOf || s.vmapOf || s.checkpointOf || s.linearOf)
    fn.setPrivate();
  if (s.customPullback || s.customTangent)
    markCustomRule(fn, s);
  mlir::Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  if (genGeneratedBody(s, fn, resultTypes, fnLoc))
    return;

  bindEntryArguments(s, entry, fnLoc);

  const Block &body = s.def ? s.def->body : program.module->body;
  nestedReturns = s.def && hasNestedReturn(body);
  if (nestedReturns) {
    mlir::Location l = loc(s.def->namePos);
    bind("$returned", {boolConstant(false, l)});
    bind("$retval", zerosOf(resultTypes, l));
    genBlock(body);
    mlir::func::ReturnOp::create(builder, loc(s.def->getRange().end),
                                 env.lookup("$retval"));
    return;
  }
  bool returned = genBlock(body);
  if (!s.def && program.session)
    storeSessionVars(body);
  if (!returned)
    mlir::func::ReturnOp::create(builder, s.def ? loc(s.def->getRange().end)
                                                : loc({1, 1}));
}

bool MLIRGenImpl::genGeneratedBody(const Specialization &s,
                                   mlir::func::FuncOp fn,
                                   llvm::ArrayRef<mlir::Type> resultTypes,
                                   mlir::Location fnLoc) {
  mlir::Block *entry = &fn.front();
  if (s.gradOf) {
    // A gradient function: tfl.grad of the differentiated specialization,
    // which the autodiff pass turns into generated code.
    mlir::Location l = s.gradOf->def ? loc(s.gradOf->def->namePos) : fnLoc;
    if (s.gradJacobian != Type::Jacobian::None) {
      // tfl.jacobian gives, per differentiated leaf k, one matrix per
      // result leaf j; JAX's layout nests them the other way (the value's
      // tree outside, the arguments' inside).
      size_t inputs = s.gradArgnums.size();
      size_t outputs = resultTypes.size() / inputs;
      llvm::SmallVector<mlir::Type> opTypes(resultTypes.size());
      for (size_t k = 0; k < inputs; ++k)
        for (size_t j = 0; j < outputs; ++j)
          opTypes[k * outputs + j] = resultTypes[j * inputs + k];
      auto jacobian = mlir::tfl::JacobianOp::create(
          builder, l, opTypes,
          mlir::FlatSymbolRefAttr::get(&ctx, s.gradOf->symbol),
          entry->getArguments(), builder.getDenseI64ArrayAttr(s.gradArgnums),
          builder.getBoolAttr(s.gradJacobian == Type::Jacobian::Forward));
      Values results(resultTypes.size());
      for (size_t k = 0; k < inputs; ++k)
        for (size_t j = 0; j < outputs; ++j)
          results[j * inputs + k] = jacobian.getResult(k * outputs + j);
      mlir::func::ReturnOp::create(builder, l, results);
      return true;
    }
    auto grad = mlir::tfl::GradOp::create(
        builder, l, resultTypes,
        mlir::FlatSymbolRefAttr::get(&ctx, s.gradOf->symbol),
        entry->getArguments(), builder.getDenseI64ArrayAttr(s.gradArgnums),
        builder.getBoolAttr(s.gradWithValue));
    mlir::func::ReturnOp::create(builder, l, grad.getResults());
    return true;
  }
  if (s.vmapOf) {
    genVmapBody(s, entry, resultTypes,
                s.vmapOf->def ? loc(s.vmapOf->def->namePos) : fnLoc);
    return true;
  }
  if (s.jvpOf) {
    genJvpBody(s, entry, resultTypes,
               s.jvpOf->def ? loc(s.jvpOf->def->namePos) : fnLoc);
    return true;
  }
  if (s.linearOf) {
    genLinearBody(s, entry, resultTypes,
                  s.linearOf->def ? loc(s.linearOf->def->namePos) : fnLoc);
    return true;
  }
  if (s.checkpointOf) {
    genCheckpointBody(s, fn, resultTypes,
                      s.checkpointOf->def ? loc(s.checkpointOf->def->namePos)
                                          : fnLoc);
    return true;
  }
  return false;
}

void MLIRGenImpl::bindEntryArguments(const Specialization &s,
                                     mlir::Block *entry, mlir::Location fnLoc) {
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
}

void MLIRGenImpl::storeSessionVars(const Block &body) {
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
  case Stmt::Kind::Assign:
  case Stmt::Kind::AnnAssign:
    genAssign(stmt);
    return false;
  case Stmt::Kind::Return:
    return genReturn(cast<ReturnStmt>(stmt));
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

void MLIRGenImpl::genAssign(const Stmt *stmt) {
  if (auto *ann = dyn_cast<AnnAssignStmt>(stmt)) {
    const Type &type = spec->types.find(ann->value.get())->second;
    bindTarget(ann->target.get(), type,
               castLeaves(genExpr(ann->value.get()), type.strong(),
                          loc(ann->getBegin())));
    return;
  }
  auto *assign = cast<AssignStmt>(stmt);
  Values values = genExpr(assign->value.get());
  for (const ExprPtr &target : assign->targets) {
    bindTarget(target.get(), typeOf(assign->value.get()), values);
    if (auto *name = dyn_cast<NameExpr>(target.get());
        name && isNumberLiteral(assign->value.get()))
      literalOf[name->name] = assign->value.get();
  }
}

bool MLIRGenImpl::genReturn(const ReturnStmt *ret) {
  mlir::Location l = loc(ret->getBegin());
  Values values;
  if (ret->value) {
    values = genExpr(ret->value.get());
    // A weak literal's value may still need the declared result dtype.
    llvm::SmallVector<mlir::Type> expected;
    flatTypes(spec->resultType, expected);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] =
          castTo(values[i],
                 cast<mlir::RankedTensorType>(expected[i]).getElementType(), l);
  }
  if (!nestedReturns) {
    mlir::func::ReturnOp::create(builder, l, values);
    return true;
  }
  // Store the result and leave: flags carry it out of ifs and loops.
  bind("$retval", values);
  bind("$returned", {boolConstant(true, l)});
  if (env.count("$break"))
    bind("$break", {boolConstant(true, l)});
  return false;
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

mlir::OwningOpRef<mlir::ModuleOp> tfl::genModule(mlir::MLIRContext &context,
                                                 const Program &program) {
  return MLIRGenImpl(context, program).run();
}
