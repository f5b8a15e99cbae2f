//===- MLIRGenExpr.cpp - Expressions to tfl ops ---------------------------===//
//
// Constants, names, operators (with NumPy matmul), comparisons, subscripts,
// attributes, calls of user functions and record constructions, and print.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::mlirgen;

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
    } else if (isHalf(t.dtype)) {
      // Rounded once, from the literal's f64 value, to nearest even.
      auto &semantics =
          cast<mlir::FloatType>(type.getElementType()).getFloatSemantics();
      llvm::SmallVector<llvm::APFloat> values;
      for (double v : leaves) {
        llvm::APFloat f(v);
        bool lost;
        f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
        values.push_back(f);
      }
      attr = mlir::DenseElementsAttr::get(type, values);
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
  case Expr::Kind::Name:
    return genName(cast<NameExpr>(expr), t, l);
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
  case Expr::Kind::Binary: {
    auto *b = cast<BinaryExpr>(expr);
    Values lhs = genExpr(b->lhs.get()); // Python's order: left, then right
    Values rhs = genExpr(b->rhs.get());
    return combine(b->op, lhs, typeOf(b->lhs.get()), rhs, typeOf(b->rhs.get()),
                   t, loc(b->opPos));
  }
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
  case Expr::Kind::Comprehension:
    return genComprehension(cast<ComprehensionExpr>(expr));
  case Expr::Kind::Not:
    return {mlir::tfl::NotOp::create(
        builder, l, genExpr(cast<NotExpr>(expr)->operand.get())[0])};
  case Expr::Kind::BoolOp:
    return {genBoolOp(cast<BoolOpExpr>(expr), l)};
  case Expr::Kind::Cond: {
    auto *c = cast<CondExpr>(expr);
    Value cond = genExpr(c->cond.get())[0];
    mlir::Type elem = elementType(&ctx, t.dtype);
    return {genSelect(
        cond, tensorType(t), l,
        [&] { return castTo(genExpr(c->thenExpr.get())[0], elem, l); },
        [&] { return castTo(genExpr(c->elseExpr.get())[0], elem, l); })};
  }
  case Expr::Kind::FString:
    return genTextValues(expr, l);
  case Expr::Kind::Call:
    return genCall(cast<CallExpr>(expr));
  default:
    // Strings, functions, None: compile-time values with no SSA form.
    return {};
  }
}

Values MLIRGenImpl::genName(const NameExpr *expr, const Type &t,
                            mlir::Location l) {
  // A name holding a number literal (a module constant, or a variable
  // bound to one) is re-emitted in the dtype this use needs.
  const std::string &name = expr->name;
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

Value MLIRGenImpl::genBoolOp(const BoolOpExpr *b, mlir::Location l) {
  // Short-circuit, as Python: the right operand runs only when needed.
  Value lhs = genExpr(b->lhs.get())[0];
  auto rhs = [&] { return genExpr(b->rhs.get())[0]; };
  auto constant = [&] { return boolConstant(!b->isAnd, l); };
  if (b->isAnd)
    return genSelect(lhs, lhs.getType(), l, rhs, constant);
  return genSelect(lhs, lhs.getType(), l, constant, rhs);
}

Values MLIRGenImpl::genTextValues(const Expr *expr, mlir::Location l) {
  // Outside print: text known when compiling (no values), or a run-time
  // string whose values are its fields of the run.
  Values values;
  auto it = spec->textValues.find(expr);
  if (it == spec->textValues.end())
    return values;
  for (const Expr *field : it->second) {
    const Type &ft = typeOf(field);
    Values leaves = genExpr(field);
    if (ft.isTensor())
      leaves = castLeaves(leaves, ft.strong(), l);
    llvm::append_range(values, leaves);
  }
  return values;
}

Values MLIRGenImpl::genComprehension(const ComprehensionExpr *expr) {
  // Unrolled: the element once per value of the target (a tuple's
  // elements, or range(...)'s integers), each copy with its own facts; the
  // target's names are the comprehension's own.
  const Specialization *parent = spec;
  const auto &copies = parent->unrolled.find(expr)->second;
  auto range = parent->comprehensionRanges.find(expr);
  Values values;
  const Type *seq = nullptr;
  if (range == parent->comprehensionRanges.end()) {
    values = genExpr(expr->iter.get());
    seq = &typeOf(expr->iter.get());
  }
  Bindings saved = bindings();
  Values leaves;
  for (size_t e = 0; e < copies.size(); ++e) {
    spec = copies[e].get();
    if (seq) {
      bindTarget(expr->target.get(), seq->elements[e],
                 element(values, *seq, e));
    } else {
      int64_t v = range->second[e];
      bindTarget(expr->target.get(), Type::knownInt(v),
                 {i64Constant(v, loc(expr->getBegin()))});
    }
    llvm::append_range(leaves, castLeaves(genExpr(expr->element.get()),
                                          typeOf(expr).elements[e],
                                          loc(expr->element->getBegin())));
    spec = parent;
  }
  restore(std::move(saved));
  return leaves;
}

Values MLIRGenImpl::combine(BinaryOp op, const Values &lhs, const Type &lhsType,
                            const Values &rhs, const Type &rhsType,
                            const Type &result, mlir::Location l) {
  if (result.kind == Type::Kind::String) // text: no IR
    return {};
  if (result.kind == Type::Kind::Tuple ||
      result.kind == Type::Kind::RuntimeString) {
    // `a + b` concatenates the leaves; `t * n` repeats them.
    if (op == BinaryOp::Add) {
      Values leaves = lhs;
      llvm::append_range(leaves, rhs);
      return leaves;
    }
    bool left = lhsType.kind == Type::Kind::Tuple ||
                lhsType.kind == Type::Kind::RuntimeString;
    const Values &seq = left ? lhs : rhs;
    const Type &count = left ? rhsType : lhsType;
    Values leaves;
    for (int64_t k = 0; k < std::max<int64_t>(0, *count.known); ++k)
      llvm::append_range(leaves, seq);
    return leaves;
  }
  return {emitBinary(op, lhs[0], rhs[0], result, l)};
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
  bool staticBatch = llvm::none_of(
      batch, [](int64_t d) { return mlir::ShapedType::isDynamic(d); });
  if (batch.empty()) {
    product = MatmulOp::create(
        builder, l, mlir::RankedTensorType::get({m, n}, elem), lhs, rhs);
  } else if (b.size() == 2 && staticBatch && !mlir::ShapedType::isDynamic(m)) {
    // A batch of rows against one matrix (x @ W with x [B, T, D]): the
    // batch folds into the rows, one 2-D product. No copy of W per batch
    // element, and W's gradient is one product too, not a batch of them
    // summed.
    int64_t rows = m;
    for (int64_t d : batch)
      rows *= d;
    Value c = MatmulOp::create(builder, l,
                               mlir::RankedTensorType::get({rows, n}, elem),
                               reshape(lhs, {rows, k}), rhs);
    llvm::SmallVector<int64_t> shape(batch);
    shape.append({m, n});
    product = reshape(c, shape);
  } else {
    int64_t flat = 1; // (a batch, `?`, among them: dynamic)
    for (int64_t d : batch)
      flat = mlir::ShapedType::isDynamic(d) || mlir::ShapedType::isDynamic(flat)
                 ? mlir::ShapedType::kDynamic
                 : flat * d;
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
  case CompareOp::In: // decided by Sema (knownBools)
  case CompareOp::NotIn:
    break;
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
  auto tensorAttr = spec->tensorAttributes.find(expr);
  if (tensorAttr != spec->tensorAttributes.end())
    return genTensorAttribute(expr, tensorAttr->second);
  return {}; // a module's function or class: no run-time value
}

Values MLIRGenImpl::genTensorAttribute(const AttributeExpr *expr,
                                       llvm::StringRef attr) {
  mlir::Location l = loc(expr->getBegin());
  const Type &t = typeOf(expr);
  if (attr == "T") {
    Value x = genExpr(expr->value.get())[0];
    int64_t rank = cast<mlir::RankedTensorType>(x.getType()).getRank();
    llvm::SmallVector<int64_t> perm;
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
    return {mlir::tfl::TransposeOp::create(builder, l, tensorType(t), x,
                                           builder.getDenseI64ArrayAttr(perm))};
  }
  // Known integers (and a dtype, which has no run-time value).
  if (attr == "shape")
    return shapeValues(expr->value.get(), l);
  if (attr == "ndim" || attr == "size")
    return {i64Constant(*t.known, l)};
  return {};
}

Values MLIRGenImpl::genSubscript(const SubscriptExpr *expr) {
  mlir::Location l = loc(expr->getBegin());
  Values values = genExpr(expr->value.get());
  auto tupleIndex = spec->tupleIndices.find(expr);
  if (tupleIndex != spec->tupleIndices.end()) {
    return element(values, typeOf(expr->value.get()), tupleIndex->second);
  }
  auto tupleSlice = spec->tupleSlices.find(expr);
  if (tupleSlice != spec->tupleSlices.end()) {
    Values selected;
    for (int64_t i : tupleSlice->second)
      llvm::append_range(selected,
                         element(values, typeOf(expr->value.get()), i));
    return selected;
  }
  if (typeOf(expr).kind == Type::Kind::String) // a string's characters
    return {};
  const SubscriptPlan &plan = spec->subscripts.find(expr)->second;
  Value x = values[0];
  auto inType = cast<mlir::RankedTensorType>(x.getType());
  mlir::Type i64 = builder.getI64Type();
  auto scalarType = mlir::RankedTensorType::get({}, i64);
  auto i64Scalar = [&](int64_t v) { return i64Constant(v, l); };
  llvm::SmallVector<int64_t> staticStarts, strides, sizes;
  llvm::SmallVector<Value> dynamicStarts;
  for (auto [d, dim] : llvm::enumerate(plan.dims)) {
    sizes.push_back(dim.size == kDynamicDim ? mlir::ShapedType::kDynamic
                                            : dim.size);
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
  auto known = spec->knownBools.find(expr); // strings, compared by Sema
  if (known != spec->knownBools.end()) {
    for (const ExprPtr &operand : expr->operands)
      genExpr(operand.get());
    return boolConstant(known->second, loc(expr->getBegin()));
  }
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
