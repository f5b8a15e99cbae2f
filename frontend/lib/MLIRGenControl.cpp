//===- MLIRGenControl.cpp - if, for and while as scf ops ------------------===//
//
// An `if` becomes an scf.if yielding the names Sema found both branches
// bind; a `for` over range(...), a tensor's rows or enumerate/zip of
// tensors an scf.for carrying the loop's names (a tuple's is unrolled);
// a `while` an scf.while. A loop with a `break` is an scf.while carrying
// the break flag (and a for's counter); statements after one that may
// break, continue or return run under an scf.if on the flags (genGuard),
// and a function with a return inside a loop or an if carries $returned
// and $retval out to its end.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::mlirgen;

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
  Bindings saved = bindings();
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
    restore(saved);
    for (const CarriedVar &var : vars) {
      if (env.count(var.name))
        continue;
      llvm::SmallVector<mlir::Type> leaves;
      flatTypes(var.type, leaves);
      bind(var.name, zerosOf(leaves, l));
    }
    mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
  }
  restore(std::move(saved));
  bindCarried(vars, ifOp.getResults());
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
  Bindings saved = bindings();
  auto genBranch = [&](mlir::Block &block, const Block &body) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&block);
    restore(saved);
    genBlock(body);
    mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
  };
  genBranch(ifOp.getThenRegion().front(), stmt->body);
  genBranch(ifOp.getElseRegion().front(), stmt->orelse);
  restore(std::move(saved));
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

  Bindings saved = bindings();
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
  restore(std::move(saved));
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

  Bindings saved = bindings();
  auto whileOp = mlir::scf::WhileOp::create(
      builder, l, types, inits,
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, saved, [&] {
          bindCarried(vars, args.take_front(n));
          // Go on unless a break happened; the condition (or the range's
          // end) is evaluated only then.
          Value go = loopGoesOn(args[n], forStmt ? args[n + 1] : Value(), count,
                                cond, l);
          mlir::scf::ConditionOp::create(builder, l, extract(go, l), args);
        });
      },
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, saved, [&] {
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
  restore(std::move(saved));
  bindCarried(vars, whileOp.getResults().take_front(n));
}

Value MLIRGenImpl::loopGoesOn(Value stop, Value counter, Value count,
                              const Expr *cond, mlir::Location l) {
  auto boolType = mlir::RankedTensorType::get({}, builder.getI1Type());
  if (env.count("$returned")) {
    Value returned = env.lookup("$returned")[0];
    stop = genSelect(
        stop, boolType, l, [&] { return stop; }, [&] { return returned; });
  }
  return genSelect(
      stop, boolType, l, [&] { return boolConstant(false, l); },
      [&]() -> Value {
        if (counter)
          return mlir::tfl::CompareOp::create(builder, l, boolType,
                                              mlir::tfl::ComparePredicate::lt,
                                              counter, count);
        return genExpr(cond)[0];
      });
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
  Bindings saved = bindings();
  auto whileOp = mlir::scf::WhileOp::create(
      builder, l, types, inits,
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, saved, [&] {
          bindCarried(vars, args);
          Value cond = extract(genExpr(stmt->cond.get())[0],
                               loc(stmt->cond->getBegin()));
          mlir::scf::ConditionOp::create(builder, l, cond, args);
        });
      },
      [&](mlir::OpBuilder &b, mlir::Location, mlir::ValueRange args) {
        inRegion(b, saved, [&] {
          bindCarried(vars, args);
          env.erase("$break");
          bind("$continue", {boolConstant(false, l)});
          genBlock(stmt->body);
          mlir::scf::YieldOp::create(builder, l, carriedValues(vars, l));
        });
      });
  restore(std::move(saved));
  bindCarried(vars, whileOp.getResults());
}
