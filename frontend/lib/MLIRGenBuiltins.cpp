//===- MLIRGenBuiltins.cpp - Built-in calls to tfl ops --------------------===//
//
// Each built-in Sema resolved: math, reductions, shape and creation ops,
// nn functions, convolution and pooling, random draws and files.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tfl/IR/ReverseBuilder.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::mlirgen;

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

void MLIRGenImpl::checkWorldSize(Value size, int64_t expected,
                                 mlir::Location l) {
  Value same = mlir::tfl::CompareOp::create(
      builder, l, mlir::RankedTensorType::get({}, builder.getI1Type()),
      mlir::tfl::ComparePredicate::eq, size, i64Constant(expected, l));
  std::string count = std::to_string(expected);
  mlir::tfl::AssertOp::create(
      builder, l, same,
      builder.getStringAttr("this program was compiled for " + count +
                            (expected == 1 ? " process" : " processes") +
                            " (tflc --world-size=" + count +
                            "), but runs on another number"));
}

Values MLIRGenImpl::genCollective(const CallExpr *expr, llvm::StringRef name) {
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  Values leaves = genExpr(args[0]);
  if (leaves.empty())
    return leaves;
  mlir::Location l = loc(expr->getBegin());
  mlir::Operation *op;
  if (name == "all_reduce") {
    bool mean = args[1] && typeOf(args[1]).name == "mean";
    op = mlir::tfl::AllReduceOp::create(
        builder, l,
        mean ? mlir::tfl::CollectiveReduction::mean
             : mlir::tfl::CollectiveReduction::sum,
        leaves);
  } else {
    int64_t root = args[1] ? typeOf(args[1]).known.value_or(0) : 0;
    op = mlir::tfl::BroadcastOp::create(builder, l, leaves, root);
  }
  return Values(op->getResults().begin(), op->getResults().end());
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
  // A path template: a string flag's value fills its `{name}` fields.
  const Type &pathType = typeOf(args[0]);
  mlir::StringAttr path = builder.getStringAttr(
      pathType.kind == Type::Kind::RuntimeString ? pathType.name
                                                 : escapeBraces(pathType.name));
  if (name == "load_idx" || name == "load_npy" || name == "load_bytes")
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
  if (name == "get_rng_state")
    return mlir::tfl::RandomStateOp::create(builder, l, tensorType(t));
  if (name == "set_rng_state") {
    mlir::tfl::SetRandomStateOp::create(builder, l, genExpr(args[0])[0]);
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

/// zeros, ones, their _like forms, full, size and eye: a shape filled.
Value MLIRGenImpl::genFilled(const CallExpr *expr, ShapeBuiltin op) {
  using namespace mlir::tfl;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::RankedTensorType type = tensorType(t);
  mlir::Type elem = type.getElementType();
  auto splat = [&](double v) -> Value {
    mlir::TypedAttr value = isa<mlir::FloatType>(elem)
                                ? mlir::TypedAttr(builder.getFloatAttr(elem, v))
                                : mlir::TypedAttr(builder.getIntegerAttr(
                                      elem, static_cast<int64_t>(v)));
    return filled(builder, l, type, value); // (a batch: broadcast)
  };
  if (op == ShapeBuiltin::Zeros || op == ShapeBuiltin::ZerosLike)
    return splat(0);
  if (op == ShapeBuiltin::Ones || op == ShapeBuiltin::OnesLike)
    return splat(1);
  if (op == ShapeBuiltin::Full) {
    Value v = castTo(genExpr(argument(expr, 1, "value"))[0], elem, l);
    return BroadcastToOp::create(builder, l, type, v);
  }
  if (op == ShapeBuiltin::Size)
    return ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(
            type, builder.getI64IntegerAttr(mlir::ShapedType::getNumElements(
                      tensorType(typeOf(argument(expr, 0, "x"))).getShape()))));
  assert(op == ShapeBuiltin::Eye && "a filled shape built-in");
  Value diagonal = diagonalMask(t.shape[0], t.shape[1], 0,
                                mlir::tfl::ComparePredicate::eq, l);
  return CastOp::create(builder, l, type, diagonal);
}

/// arange and linspace: constants of Sema's plan.
Value MLIRGenImpl::genRange(const CallExpr *expr) {
  using namespace mlir::tfl;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::RankedTensorType type = tensorType(t);
  // Sema's plan: start + i * step in f64 (exactly in i64 for integers).
  const RangePlan &plan = spec->builtinCalls.find(expr)->second.range;
  int64_t n = t.shape[0];
  if (t.dtype == DType::I64) {
    std::vector<int64_t> values;
    auto start = static_cast<int64_t>(plan.start);
    auto step = static_cast<int64_t>(plan.step);
    for (int64_t i = 0; i < n; ++i)
      values.push_back(start + i * step);
    return ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, llvm::ArrayRef<int64_t>(values)));
  }
  std::vector<float> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(static_cast<float>(plan.start + double(i) * plan.step));
  if (plan.lastGiven && n > 0)
    values.back() = static_cast<float>(plan.last);
  return ConstantOp::create(
      builder, l,
      mlir::DenseElementsAttr::get(type, llvm::ArrayRef<float>(values)));
}

/// concat and stack (`stack`).
Value MLIRGenImpl::genJoin(const CallExpr *expr, bool stack) {
  using namespace mlir::tfl;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::RankedTensorType type = tensorType(t);
  mlir::Type elem = type.getElementType();
  const Expr *seq = argument(expr, 0, "tensors");
  // A tuple or list literal's items, or the leaves of a tuple value.
  Values parts;
  if (isa<TupleExpr, ListExpr>(seq)) {
    const std::vector<ExprPtr> &items = isa<TupleExpr>(seq)
                                            ? cast<TupleExpr>(seq)->elements
                                            : cast<ListExpr>(seq)->elements;
    for (const ExprPtr &item : items)
      parts.push_back(genExpr(item.get())[0]);
  } else {
    parts = genExpr(seq);
  }
  int64_t rank = type.getRank();
  int64_t axis = 0;
  if (const Expr *a = argument(expr, 1, "axis")) {
    // A literal (Sema does not record its type) or a known integer.
    std::optional<int64_t> literal = intLiteral(a);
    axis = literal ? *literal : *typeOf(a).known;
    if (axis < 0)
      axis += rank;
  }
  llvm::SmallVector<Value> inputs;
  for (Value part : parts) {
    Value v = castTo(part, elem, l);
    if (stack) {
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

/// broadcast_to, tile, transpose, and reshape, expand_dims and squeeze
/// (which move no data).
Value MLIRGenImpl::genLayout(const CallExpr *expr, ShapeBuiltin op) {
  using namespace mlir::tfl;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::RankedTensorType type = tensorType(t);
  Value x = genExpr(argument(expr, 0, "x"))[0];
  if (op == ShapeBuiltin::BroadcastTo)
    return BroadcastToOp::create(builder, l, type, x);
  if (op == ShapeBuiltin::Tile) {
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
  if (op == ShapeBuiltin::Transpose)
    return TransposeOp::create(
        builder, l, type, x,
        builder.getDenseI64ArrayAttr(
            spec->builtinCalls.find(expr)->second.permutation));
  // reshape, expand_dims and squeeze move no data.
  return ReshapeOp::create(builder, l, type, x);
}

Value MLIRGenImpl::genNN(const CallExpr *expr, llvm::StringRef name) {
  using namespace mlir::tfl;
  const BuiltinPlan &plan = spec->builtinCalls.find(expr)->second;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  Value x = genExpr(expr->args.empty() ? expr->keywords[0].value.get()
                                       : expr->args[0].get())[0];
  if (name == "one_hot") {
    // labels[..., None] == arange(depth), as f32.
    int64_t depth = plan.depth;
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
  const std::vector<int64_t> &axes = plan.reduction.axes;
  Value m = reduce<ReduceMaxOp>(x, axes, true, l);
  Value shifted = broadcastingBinary<SubOp>(x, m, l);
  Value e = ExpOp::create(builder, l, shifted);
  Value s = reduce<ReduceSumOp>(e, axes, true, l);
  if (name == "softmax")
    return broadcastingBinary<DivOp>(e, s, l);
  return broadcastingBinary<SubOp>(shifted, LogOp::create(builder, l, s), l);
}

Value MLIRGenImpl::genReduction(const CallExpr *expr, ReductionBuiltin op) {
  using namespace mlir::tfl;
  const ReductionInfo &info = spec->builtinCalls.find(expr)->second.reduction;
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  Value x = genExpr(expr->args[0].get())[0];
  const std::vector<int64_t> &axes = info.axes;
  bool keep = info.keepdims;
  if (op == ReductionBuiltin::Argmax || op == ReductionBuiltin::Argmin) {
    mlir::IntegerAttr axis =
        info.allAxes ? mlir::IntegerAttr() : builder.getI64IntegerAttr(axes[0]);
    if (op == ReductionBuiltin::Argmax)
      return ArgmaxOp::create(builder, l, tensorType(t), x, axis,
                              builder.getBoolAttr(keep));
    return ArgminOp::create(builder, l, tensorType(t), x, axis,
                            builder.getBoolAttr(keep));
  }
  x = castTo(x, elementType(&ctx, t.dtype), l);
  switch (op) {
  case ReductionBuiltin::Sum:
    return reduce<ReduceSumOp>(x, axes, keep, l);
  case ReductionBuiltin::Prod:
    return reduce<ReduceProdOp>(x, axes, keep, l);
  case ReductionBuiltin::Max:
    return reduce<ReduceMaxOp>(x, axes, keep, l);
  case ReductionBuiltin::Min:
    return reduce<ReduceMinOp>(x, axes, keep, l);
  case ReductionBuiltin::Mean:
  case ReductionBuiltin::Var:
  case ReductionBuiltin::Std:
    return genMoment(x, info, op, l);
  case ReductionBuiltin::Logsumexp:
    return genLogSumExp(x, axes, keep, l);
  case ReductionBuiltin::Argmax:
  case ReductionBuiltin::Argmin:
    break;
  }
  llvm_unreachable("taken above");
}

Value MLIRGenImpl::scalarLike(Value x, double v, mlir::Location l) {
  mlir::Type elem = cast<mlir::RankedTensorType>(x.getType()).getElementType();
  return mlir::tfl::ConstantOp::create(
      builder, l,
      mlir::DenseElementsAttr::get(mlir::RankedTensorType::get({}, elem),
                                   builder.getFloatAttr(elem, v)));
}

Value MLIRGenImpl::genMoment(Value x, const ReductionInfo &info,
                             ReductionBuiltin op, mlir::Location l) {
  using namespace mlir::tfl;
  const std::vector<int64_t> &axes = info.axes;
  bool keep = info.keepdims;
  mlir::Type elem = cast<mlir::RankedTensorType>(x.getType()).getElementType();
  auto scalar = [&](double v) { return scalarLike(x, v, l); };
  // The number of elements each output reduces: `count` for the static
  // axes, times `divisors` (one per `?` axis: a [?, ?] outer product of a
  // batch has two), each a batch given when the function is called, its
  // size counted when it runs.
  auto inType = cast<mlir::RankedTensorType>(x.getType());
  double count = 1;
  llvm::SmallVector<Value> divisors;
  for (int64_t a : axes) {
    if (!inType.isDynamicDim(a)) {
      count *= inType.getDimSize(a);
      continue;
    }
    Value size = DimOp::create(
        builder, l, mlir::RankedTensorType::get({}, builder.getI64Type()), x,
        builder.getI64IntegerAttr(a));
    divisors.push_back(CastOp::create(
        builder, l, mlir::RankedTensorType::get({}, elem), size));
  }
  auto meanOf = [&](Value v, bool keepDims) {
    Value sum = reduce<ReduceSumOp>(v, axes, keepDims, l);
    for (Value d : divisors)
      sum = broadcastingBinary<DivOp>(sum, d, l);
    return broadcastingBinary<DivOp>(sum, scalar(count), l);
  };
  if (op == ReductionBuiltin::Mean)
    return meanOf(x, keep);
  // NumPy's two passes: the sum of squares of x - mean(x), over the
  // count less ddof (NaN or inf where that is 0 or less, as NumPy's).
  Value centered = broadcastingBinary<SubOp>(x, meanOf(x, true), l);
  Value squares = reduce<ReduceSumOp>(
      broadcastingBinary<MulOp>(centered, centered, l), axes, keep, l);
  Value n = scalar(count);
  for (Value d : divisors)
    n = broadcastingBinary<MulOp>(n, d, l);
  Value var = broadcastingBinary<DivOp>(
      squares, broadcastingBinary<SubOp>(n, scalar(info.ddof), l), l);
  if (op == ReductionBuiltin::Var)
    return var;
  return SqrtOp::create(builder, l, var.getType(), var);
}

Value MLIRGenImpl::genLogSumExp(Value x, llvm::ArrayRef<int64_t> axes,
                                bool keep, mlir::Location l) {
  using namespace mlir::tfl;
  auto scalar = [&](double v) { return scalarLike(x, v, l); };
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

Values MLIRGenImpl::genPieces(const CallExpr *expr) {
  const std::vector<int64_t> &piece =
      spec->builtinCalls.find(expr)->second.pieces;
  mlir::Location l = loc(expr->getBegin());
  Value x = genExpr(spec->callArgs.find(expr)->second[0])[0];
  auto type = cast<mlir::RankedTensorType>(x.getType());
  int64_t axis = piece.front();
  Values out;
  int64_t start = 0;
  for (int64_t size : llvm::ArrayRef<int64_t>(piece).drop_front()) {
    llvm::SmallVector<int64_t> starts(type.getRank(), 0),
        shape(type.getShape());
    llvm::SmallVector<int64_t> strides(type.getRank(), 1);
    starts[axis] = size ? start : 0; // (an empty piece reads nothing)
    shape[axis] = size;
    out.push_back(mlir::tfl::SliceOp::create(
        builder, l, type.clone(shape), x, mlir::ValueRange{},
        builder.getDenseI64ArrayAttr(starts),
        builder.getDenseI64ArrayAttr(strides)));
    start += size;
  }
  return out;
}
