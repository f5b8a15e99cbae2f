//===- MLIRGenBuiltinCalls.cpp - Built-in calls by family -----------------===//
//
// The switches over Builtins.def's families and their members (a member
// handled nowhere is a -Wswitch error), and the built-ins whose ops take
// a few lines: elementwise math, triangles, gathers, windows, checks,
// sequences and devices. The longer families have files of their own
// (MLIRGenBuiltins.cpp: shapes, reductions, nn, random draws, files,
// collectives).
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tfl/IR/Attention.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::mlirgen;

Values MLIRGenImpl::genBuiltinCall(const CallExpr *expr, Builtin b) {
  switch (b.family()) {
  case BuiltinFamily::Statement:
    break; // genCall's
  case BuiltinFamily::Math:
    return {genMath(expr, b.as<MathBuiltin>())};
  case BuiltinFamily::Reduction:
    return {genReduction(expr, b.as<ReductionBuiltin>())};
  case BuiltinFamily::Shape:
    return genShapeFamily(expr, b.as<ShapeBuiltin>());
  case BuiltinFamily::NN:
    return {genNNFamily(expr, b.as<NNBuiltin>())};
  case BuiltinFamily::RandomIO:
    return genRandomIOFamily(expr, b.as<RandomIOBuiltin>());
  case BuiltinFamily::Transform:
    return genTransformFamily(expr, b.as<TransformBuiltin>());
  case BuiltinFamily::Sequence:
    return genSequenceFamily(expr, b.as<SequenceBuiltin>());
  case BuiltinFamily::Parallel:
    return genParallelFamily(expr, b.as<ParallelBuiltin>());
  }
  llvm_unreachable("a statement built-in is genCall's");
}

Values MLIRGenImpl::genShapeFamily(const CallExpr *expr, ShapeBuiltin op) {
  switch (op) {
  case ShapeBuiltin::ShapeOf: // a tuple of sizes
    return shapeValues(expr->args[0].get(), loc(expr->getBegin()));
  case ShapeBuiltin::Split:
  case ShapeBuiltin::Chunk:
    return genPieces(expr);
  case ShapeBuiltin::Tril:
  case ShapeBuiltin::Triu:
    return {genTriangle(expr, op == ShapeBuiltin::Tril)};
  case ShapeBuiltin::Gather:
    return {genGather(expr)};
  case ShapeBuiltin::Zeros:
  case ShapeBuiltin::Ones:
  case ShapeBuiltin::Full:
  case ShapeBuiltin::ZerosLike:
  case ShapeBuiltin::OnesLike:
  case ShapeBuiltin::Size:
  case ShapeBuiltin::Eye:
    return {genFilled(expr, op)};
  case ShapeBuiltin::Arange:
  case ShapeBuiltin::Linspace:
    return {genRange(expr)};
  case ShapeBuiltin::Concat:
  case ShapeBuiltin::Stack:
    return {genJoin(expr, op == ShapeBuiltin::Stack)};
  case ShapeBuiltin::BroadcastTo:
  case ShapeBuiltin::Reshape:
  case ShapeBuiltin::Transpose:
  case ShapeBuiltin::ExpandDims:
  case ShapeBuiltin::Squeeze:
  case ShapeBuiltin::Tile:
    return {genLayout(expr, op)};
  }
  llvm_unreachable("a shape built-in");
}

Value MLIRGenImpl::genNNFamily(const CallExpr *expr, NNBuiltin op) {
  switch (op) {
  case NNBuiltin::Softmax:
  case NNBuiltin::LogSoftmax:
  case NNBuiltin::OneHot:
    return genNN(expr, Builtin(op).name());
  case NNBuiltin::Conv2D:
  case NNBuiltin::MaxPool2D:
  case NNBuiltin::AvgPool2D:
    return genWindowed(expr, op);
  case NNBuiltin::ScaledDotProductAttention:
    return genAttention(expr);
  }
  llvm_unreachable("an nn built-in");
}

Values MLIRGenImpl::genRandomIOFamily(const CallExpr *expr,
                                      RandomIOBuiltin op) {
  llvm::StringRef name = Builtin(op).name();
  mlir::Location l = loc(expr->getBegin());
  switch (op) {
  case RandomIOBuiltin::Seed:
  case RandomIOBuiltin::RandomNormal:
  case RandomIOBuiltin::RandomUniform:
  case RandomIOBuiltin::ShuffleIndices:
  case RandomIOBuiltin::GetRngState:
  case RandomIOBuiltin::SetRngState: {
    Value v = genRandom(expr, name);
    return v ? Values{v} : Values{}; // seed(...) has no value
  }
  case RandomIOBuiltin::LoadIdx:
  case RandomIOBuiltin::LoadNpy:
  case RandomIOBuiltin::LoadBytes:
  case RandomIOBuiltin::SaveNpy:
  case RandomIOBuiltin::Save:
  case RandomIOBuiltin::Load:
  case RandomIOBuiltin::LogScalar:
    return genIO(expr, name);
  case RandomIOBuiltin::Flag: {
    const Type &t = typeOf(expr);
    if (!t.isTensor()) // a string flag: paths read it
      return {};
    return {mlir::tfl::FlagOp::create(
        builder, l, tensorType(t),
        builder.getStringAttr(cast<StringExpr>(expr->args[0].get())->value))};
  }
  case RandomIOBuiltin::Now:
    return {mlir::tfl::NowOp::create(builder, l, tensorType(typeOf(expr)))};
  case RandomIOBuiltin::Encode:
  case RandomIOBuiltin::Decode:
    return genEncodeDecode(expr, op == RandomIOBuiltin::Encode);
  case RandomIOBuiltin::SetPrecision: // a property of the module
    return {};
  case RandomIOBuiltin::CheckNumerics: {
    const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
    std::string message = args[1] ? typeOf(args[1]).name : std::string();
    return {mlir::tfl::CheckNumericsOp::create(
        builder, l, tensorType(typeOf(expr)), genExpr(args[0])[0],
        builder.getStringAttr(message))};
  }
  }
  llvm_unreachable("a random or I/O built-in");
}

Values MLIRGenImpl::genTransformFamily(const CallExpr *expr,
                                       TransformBuiltin op) {
  switch (op) {
  case TransformBuiltin::Grad: // a function value: f's captures
  case TransformBuiltin::ValueAndGrad:
  case TransformBuiltin::Jacfwd:
  case TransformBuiltin::Jacrev:
  case TransformBuiltin::Hessian:
  case TransformBuiltin::Vmap:
  case TransformBuiltin::Checkpoint:
  case TransformBuiltin::Remat:
  case TransformBuiltin::TreeLeaves: // a tree's leaves, in order
    return genExpr(expr->args[0].get());
  case TransformBuiltin::StopGradient: {
    const Expr *x = spec->callArgs.find(expr)->second.front();
    return {mlir::tfl::StopGradientOp::create(builder, loc(expr->getBegin()),
                                              genExpr(x)[0])};
  }
  case TransformBuiltin::TreeMap:
    return genTreeMap(expr);
  case TransformBuiltin::Jvp:
    return genJvp(expr);
  case TransformBuiltin::Vjp:
  case TransformBuiltin::Linearize:
    return genLinearize(expr);
  }
  llvm_unreachable("a transform built-in");
}

Values MLIRGenImpl::genSequenceFamily(const CallExpr *expr,
                                      SequenceBuiltin op) {
  mlir::Location l = loc(expr->getBegin());
  const Type &t = typeOf(expr);
  switch (op) {
  case SequenceBuiltin::Zip:
  case SequenceBuiltin::Enumerate:
    return genZip(expr, op == SequenceBuiltin::Enumerate);
  case SequenceBuiltin::Str:
    if (t.kind == Type::Kind::RuntimeString) // str(x) of the run
      return castLeaves(genExpr(expr->args[0].get()), t.elements[0], l);
    [[fallthrough]];
  case SequenceBuiltin::Len:
    genExpr(expr->args[0].get()); // for what it does; its value is known
    return t.isTensor() ? Values{i64Constant(*t.known, l)} : Values{};
  }
  llvm_unreachable("a sequence built-in");
}

Values MLIRGenImpl::genParallelFamily(const CallExpr *expr,
                                      ParallelBuiltin op) {
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  switch (op) {
  case ParallelBuiltin::Device: // a `with` statement's context
    return {};
  case ParallelBuiltin::ToDevice: {
    const Expr *x = spec->callArgs.find(expr)->second.front();
    mlir::StringAttr device =
        builder.getStringAttr(spec->builtinCalls.find(expr)->second.device);
    Values moved;
    for (Value leaf : genExpr(x))
      moved.push_back(mlir::tfl::ToDeviceOp::create(builder, l, leaf, device));
    return moved;
  }
  case ParallelBuiltin::Rank:
    return {mlir::tfl::RankOp::create(builder, l, tensorType(t))};
  case ParallelBuiltin::WorldSize: {
    Value size = mlir::tfl::WorldSizeOp::create(builder, l, tensorType(t));
    if (t.known)
      checkWorldSize(size, *t.known, l);
    return {size};
  }
  case ParallelBuiltin::AllReduce:
  case ParallelBuiltin::Broadcast:
    return genCollective(expr, Builtin(op).name());
  case ParallelBuiltin::AllGather: {
    checkWorldSize(
        mlir::tfl::WorldSizeOp::create(
            builder, l, mlir::RankedTensorType::get({}, builder.getI64Type())),
        t.shape.front(), l);
    const Expr *x = spec->callArgs.find(expr)->second[0];
    return {mlir::tfl::AllGatherOp::create(builder, l, tensorType(t),
                                           genExpr(x)[0])};
  }
  }
  llvm_unreachable("a parallel built-in");
}

Values MLIRGenImpl::genZip(const CallExpr *expr, bool counted) {
  // Tuples of tuples: the arguments' leaves, regrouped by position.
  std::vector<Values> args;
  for (const ExprPtr &arg : expr->args)
    args.push_back(genExpr(arg.get()));
  const Type &rows = typeOf(expr);
  Values leaves;
  for (size_t k = 0; k < rows.elements.size(); ++k) {
    if (counted)
      leaves.push_back(i64Constant(*rows.elements[k].elements[0].known,
                                   loc(expr->getBegin())));
    for (size_t a = 0; a < args.size(); ++a)
      llvm::append_range(leaves,
                         element(args[a], typeOf(expr->args[a].get()), k));
  }
  return leaves;
}

Values MLIRGenImpl::genEncodeDecode(const CallExpr *expr, bool encode) {
  const Expr *arg = spec->callArgs.find(expr)->second[0];
  mlir::Location l = loc(expr->getBegin());
  if (!encode) // text of the run: the bytes
    return castLeaves(genExpr(arg), typeOf(expr).elements[0], l);
  // A string's bytes, cut or zero-padded to the result's size: a
  // constant, or text that string flags' values fill in when the program
  // runs.
  const Type &text = typeOf(arg);
  int64_t size = typeOf(expr).shape[0];
  auto type = mlir::RankedTensorType::get({size}, builder.getI8Type());
  if (text.kind == Type::Kind::RuntimeString)
    return {mlir::tfl::EncodeTextOp::create(builder, l, type,
                                            builder.getStringAttr(text.name))};
  llvm::SmallVector<int8_t> bytes(size, 0);
  llvm::copy(llvm::StringRef(text.name).take_front(size).bytes(),
             bytes.begin());
  return {mlir::tfl::ConstantOp::create(
      builder, l,
      mlir::DenseElementsAttr::get(type, llvm::ArrayRef<int8_t>(bytes)))};
}

Value MLIRGenImpl::genGather(const CallExpr *expr) {
  auto arg = [&](size_t i, llvm::StringRef kw) {
    return argument(expr, i, kw);
  };
  Value x = genExpr(arg(0, "x"))[0];
  Value idx = genExpr(arg(1, "indices"))[0];
  int64_t axis = spec->builtinCalls.find(expr)->second.axis;
  return mlir::tfl::GatherOp::create(builder, loc(expr->getBegin()),
                                     tensorType(typeOf(expr)), x, idx,
                                     builder.getI64IntegerAttr(axis));
}

Value MLIRGenImpl::genWindowed(const CallExpr *expr, NNBuiltin op) {
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  const WindowInfo &w = spec->builtinCalls.find(expr)->second.window;
  Value x = genExpr(args[0])[0];
  auto strides = builder.getDenseI64ArrayAttr(w.strides);
  auto padding = builder.getDenseI64ArrayAttr(w.padding);
  if (op == NNBuiltin::Conv2D)
    return mlir::tfl::Conv2DOp::create(builder, l, tensorType(t), x,
                                       genExpr(args[1])[0], strides, padding);
  auto size = builder.getDenseI64ArrayAttr(w.size);
  if (op == NNBuiltin::MaxPool2D)
    return mlir::tfl::MaxPool2DOp::create(builder, l, tensorType(t), x, size,
                                          strides, padding);
  return mlir::tfl::AvgPool2DOp::create(builder, l, tensorType(t), x, size,
                                        strides, padding);
}

Value MLIRGenImpl::genAttention(const CallExpr *expr) {
  mlir::Location l = loc(expr->getBegin());
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  const AttentionInfo &info = spec->builtinCalls.find(expr)->second.attention;
  Value q = genExpr(args[0])[0], k = genExpr(args[1])[0];
  Value v = genExpr(args[2])[0];
  auto type = cast<mlir::RankedTensorType>(q.getType());
  // The fused op takes neither a mask nor f64 (its kernels are f32's; bf16
  // and f16 run on f32 copies): the ops that define it do.
  if (info.masked || type.getElementType().isF64())
    return mlir::tfl::buildAttention(
        builder, l, q, k, v, info.masked ? genExpr(args[3])[0] : Value(),
        info.causal, info.scale);
  return mlir::tfl::AttentionOp::create(builder, l, tensorType(typeOf(expr)), q,
                                        k, v, builder.getBoolAttr(info.causal),
                                        builder.getF64FloatAttr(info.scale));
}

Value MLIRGenImpl::genTriangle(const CallExpr *expr, bool lower) {
  // where(mask, x, 0) with the [rows, cols] mask column - row <= k (tril)
  // or >= k (triu). Its gradient is where's.
  mlir::Location l = loc(expr->getBegin());
  Value x = genExpr(spec->callArgs.find(expr)->second[0])[0];
  auto xType = cast<mlir::RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  Value mask = diagonalMask(
      xType.getDimSize(rank - 2), xType.getDimSize(rank - 1),
      spec->builtinCalls.find(expr)->second.diagonal,
      lower ? mlir::tfl::ComparePredicate::le : mlir::tfl::ComparePredicate::ge,
      l);
  Value zero =
      zerosOf(mlir::RankedTensorType::get({}, xType.getElementType()), l);
  return mlir::tfl::WhereOp::create(builder, l, xType, mask, x, zero);
}

Value MLIRGenImpl::diagonalMask(int64_t rows, int64_t cols, int64_t k,
                                mlir::tfl::ComparePredicate pred,
                                mlir::Location l) {
  auto indices = [&](llvm::ArrayRef<int64_t> shape, int64_t from) {
    llvm::SmallVector<int64_t> values;
    for (int64_t i = 0; i < shape[0]; ++i)
      values.push_back(from + i);
    auto type = mlir::RankedTensorType::get(shape, builder.getI64Type());
    return mlir::tfl::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, llvm::ArrayRef<int64_t>(values)));
  };
  // column <pred> row + k: a [rows, 1] column of row + k against a [cols]
  // row of column indices, broadcast.
  Value row = indices({rows, 1}, k), column = indices({cols}, 0);
  return mlir::tfl::CompareOp::create(
      builder, l,
      mlir::RankedTensorType::get({rows, cols}, builder.getI1Type()), pred,
      column, row);
}

Value MLIRGenImpl::genUnaryMath(MathBuiltin op, Value x, mlir::Location l) {
  using namespace mlir::tfl;
  switch (op) {
  case MathBuiltin::Exp:
    return unary<ExpOp>(x, l);
  case MathBuiltin::Log:
    return unary<LogOp>(x, l);
  case MathBuiltin::Log1p:
    return unary<Log1pOp>(x, l);
  case MathBuiltin::Expm1:
    return unary<Expm1Op>(x, l);
  case MathBuiltin::Erf:
    return unary<ErfOp>(x, l);
  case MathBuiltin::Sqrt:
    return unary<SqrtOp>(x, l);
  case MathBuiltin::Rsqrt:
    return unary<RsqrtOp>(x, l);
  case MathBuiltin::Tanh:
    return unary<TanhOp>(x, l);
  case MathBuiltin::Sigmoid:
    return unary<SigmoidOp>(x, l);
  case MathBuiltin::Sin:
    return unary<SinOp>(x, l);
  case MathBuiltin::Cos:
    return unary<CosOp>(x, l);
  case MathBuiltin::Floor:
    return unary<FloorOp>(x, l);
  case MathBuiltin::Round:
    return unary<RoundOp>(x, l);
  case MathBuiltin::Abs:
    return unary<AbsOp>(x, l);
  case MathBuiltin::Sign:
    return unary<SignOp>(x, l);
  case MathBuiltin::Square:
    return unary<SquareOp>(x, l);
  case MathBuiltin::Relu:
    return unary<ReluOp>(x, l);
  case MathBuiltin::Maximum:
  case MathBuiltin::Minimum:
  case MathBuiltin::Pow:
  case MathBuiltin::Where:
  case MathBuiltin::Clip:
  case MathBuiltin::Cast:
  case MathBuiltin::Float:
  case MathBuiltin::Int:
  case MathBuiltin::Matmul:
    break;
  }
  llvm_unreachable("an elementwise built-in of more operands (genMath)");
}

Value MLIRGenImpl::genMath(const CallExpr *expr, MathBuiltin op) {
  const Type &t = typeOf(expr);
  mlir::Location l = loc(expr->getBegin());
  mlir::Type elem = elementType(&ctx, t.dtype);
  if (op == MathBuiltin::Float && isa<StringExpr>(expr->args[0].get())) {
    // float("inf"): a literal of its value, in the dtype its use gave it.
    FloatExpr literal(expr->getRange(),
                      spec->builtinCalls.find(expr)->second.special);
    return genConstant(&literal, t);
  }
  if (op == MathBuiltin::Cast || op == MathBuiltin::Float ||
      op == MathBuiltin::Int)
    return castTo(genExpr(expr->args[0].get())[0], elem, l);
  // Every other one computes in the result's dtype.
  llvm::SmallVector<Value, 3> args;
  for (const ExprPtr &arg : expr->args)
    args.push_back(genExpr(arg.get())[0]);
  for (size_t i = op == MathBuiltin::Where ? 1 : 0; i < args.size(); ++i)
    args[i] = castTo(args[i], elem, l);
  switch (op) {
  case MathBuiltin::Where:
    return mlir::tfl::WhereOp::create(builder, l, tensorType(t), args[0],
                                      args[1], args[2]);
  case MathBuiltin::Maximum:
    return broadcastingBinary<mlir::tfl::MaximumOp>(args[0], args[1], l);
  case MathBuiltin::Minimum:
    return broadcastingBinary<mlir::tfl::MinimumOp>(args[0], args[1], l);
  case MathBuiltin::Pow:
    return broadcastingBinary<mlir::tfl::PowOp>(args[0], args[1], l);
  case MathBuiltin::Matmul:
    return emitMatmul(args[0], args[1], tensorType(t), l);
  case MathBuiltin::Clip:
    return broadcastingBinary<mlir::tfl::MinimumOp>(
        broadcastingBinary<mlir::tfl::MaximumOp>(args[0], args[1], l), args[2],
        l);
  default:
    return genUnaryMath(op, args[0], l);
  }
}
