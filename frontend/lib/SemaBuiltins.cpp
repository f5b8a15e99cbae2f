//===- SemaBuiltins.cpp - Types of built-in calls -------------------------===//
//
// The argument checks and result types of LANGUAGE.md section 6 built-ins:
// the switch over Builtins.def's families (analyzeBuiltin) and its family
// functions, elementwise math, the ranges, nn ops, flags and placement.
// Reductions, shapes, and pieces of tensors have files of their own
// (SemaReductions.cpp, SemaShape.cpp, SemaArrays.cpp).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

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

std::optional<int64_t> SemaImpl::knownInt(const Expr *e) {
  if (std::optional<int64_t> v = intLiteral(e))
    return v;
  // Analyzed again, not looked up: a loop's body is analyzed until its
  // carried types settle, and a value known in an earlier round may not be.
  FailureOr<Type> t = analyzeExpr(e);
  if (failed(t) || !t->isScalar() || !isInteger(t->dtype))
    return std::nullopt;
  return t->known;
}

/// The shape or sizes an expression denotes at compile time: an integer
/// known at compile time, a tuple or list of them, or shape(x).
std::optional<std::vector<int64_t>> SemaImpl::constInts(const Expr *e,
                                                        bool batchSizes) {
  std::vector<int64_t> out;
  const std::vector<ExprPtr> *items = nullptr;
  if (auto *t = dyn_cast<TupleExpr>(e))
    items = &t->elements;
  else if (auto *l = dyn_cast<ListExpr>(e))
    items = &l->elements;
  if (items) {
    for (const ExprPtr &item : *items) {
      if (batchSizes && !intLiteral(item.get())) {
        FailureOr<Type> t = analyzeExpr(item.get());
        if (succeeded(t) && t->batch) {
          out.push_back(kBatchSizeInt);
          continue;
        }
      }
      std::optional<int64_t> v = knownInt(item.get());
      if (!v)
        return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }
  if (std::optional<int64_t> v = knownInt(e))
    return std::vector<int64_t>{*v};
  // A tuple of known ints (`shape(x)`, or a name bound to one).
  auto it = frame->spec->types.find(e);
  if (it == frame->spec->types.end() || !it->second.isTree())
    return std::nullopt;
  for (const Type &d : it->second.elements) {
    if (batchSizes && d.batch) {
      out.push_back(kBatchSizeInt);
      continue;
    }
    if (!d.isScalar() || !isInteger(d.dtype) || !d.known)
      return std::nullopt;
    out.push_back(*d.known);
  }
  return out;
}

std::optional<double> SemaImpl::knownNumber(const Expr *e) {
  if (std::optional<int64_t> v = knownInt(e))
    return static_cast<double>(*v);
  if (auto *f = dyn_cast<FloatExpr>(e))
    return f->value;
  if (auto *u = dyn_cast<UnaryExpr>(e)) {
    std::optional<double> v = knownNumber(u->operand.get());
    if (v && u->op == UnaryOp::Minus)
      return -*v;
    if (v && u->op == UnaryOp::Plus)
      return v;
    return std::nullopt;
  }
  if (auto *b = dyn_cast<BinaryExpr>(e)) {
    std::optional<double> l = knownNumber(b->lhs.get());
    std::optional<double> r = knownNumber(b->rhs.get());
    if (!l || !r)
      return std::nullopt;
    switch (b->op) {
    case BinaryOp::Add:
      return *l + *r;
    case BinaryOp::Sub:
      return *l - *r;
    case BinaryOp::Mul:
      return *l * *r;
    case BinaryOp::Div:
      if (*r != 0)
        return *l / *r;
      return std::nullopt;
    default:
      return std::nullopt;
    }
  }
  // A module constant (`STEP = 0.1`): its literal.
  if (failed(analyzeExpr(e)))
    return std::nullopt;
  auto constant = frame->spec->constantUses.find(e);
  if (constant != frame->spec->constantUses.end())
    return knownNumber(constant->second);
  return std::nullopt;
}

FailureOr<Type> SemaImpl::analyzeNN(const CallExpr *expr,
                                    llvm::StringRef name) {
  bool isOneHot = name == "one_hot";
  const char *second = isOneHot ? "depth" : "axis";
  const Expr *x = argument(expr, 0, isOneHot ? "labels" : "x");
  const Expr *arg = argument(expr, 1, second);
  for (const Keyword &kw : expr->keywords)
    if (!namesParameter(kw.name, second) &&
        kw.name != (isOneHot ? "labels" : "x")) {
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
  std::optional<int64_t> value = arg ? knownInt(arg) : -1;
  if (!value) {
    error(arg->getBegin()) << name << "()'s " << second
                           << " must be an integer known at compile time";
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
    planOf(expr).depth = *value;
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
  planOf(expr).reduction = {{axis}, false, false};
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
  } else if (!negative && !isa<IntExpr, FloatExpr, BoolExpr>(value)) {
    // A string known at compile time: a literal, an f-string, a sum.
    FailureOr<Type> t = analyzeExpr(value);
    if (failed(t))
      return failure();
    if (t->kind != Type::Kind::String) {
      error(defaultArg->getBegin())
          << "a flag's default must be a number or bool literal, or a string "
             "known at compile time (its type is the flag's), got "
          << t->str();
      return failure();
    }
    flag.defaultText = t->name;
    flag.isString = true;
  } else {
    error(defaultArg->getBegin())
        << "a flag's default must be a number or bool literal, or a string "
           "known at compile time (its type is the flag's)";
    return failure();
  }
  if (flag.isString &&
      llvm::StringRef(flag.name).find_first_of("{}") != llvm::StringRef::npos) {
    error(nameArg->getBegin()) << "a string flag's name has no braces";
    return failure();
  }
  for (const ExprPtr &arg : expr->args)
    if (failed(analyzeExpr(arg.get())))
      return failure();
  DType dtype = flag.dtype;
  bool isString = flag.isString;
  std::string flagName = flag.name;
  program->flags.push_back(std::move(flag));
  if (isString) // text known when the program runs: a path's part
    return Type::runtimeString("{" + flagName + "}");
  return Type::tensor(dtype, {});
}

FailureOr<Type> SemaImpl::analyzeSetPrecision(const CallExpr *expr) {
  if (!frame->isScript || frame->controlDepth > 0) {
    error(expr->getBegin()) << "set_precision() is called at the top level of "
                               "the script";
    return failure();
  }
  auto *p = expr->args.size() == 1 && expr->keywords.empty()
                ? dyn_cast<StringExpr>(expr->args[0].get())
                : nullptr;
  if (!p || !llvm::is_contained({"bf16", "f16", "f32"}, p->value)) {
    error(expr->getBegin()) << "set_precision() takes \"bf16\", \"f16\" or "
                               "\"f32\" (a string literal)";
    return failure();
  }
  if (!program->precision.empty()) {
    error(expr->getBegin()) << "set_precision() is called once per program";
    return failure();
  }
  program->precision = p->value;
  return Type::none();
}

FailureOr<std::string> SemaImpl::deviceArgument(const Expr *e,
                                                llvm::StringRef what) {
  FailureOr<Type> t = analyzeExpr(e);
  if (failed(t))
    return failure();
  // PyTorch's "cpu", "cuda", "cuda:0" and TensorFlow's "/GPU:0",
  // "/device:CPU:0"; one GPU, the first.
  if (t->kind == Type::Kind::String) {
    std::string name = llvm::StringRef(t->name).lower();
    llvm::StringRef rest(name);
    rest.consume_front("/");
    rest.consume_front("device:");
    rest.consume_back(":0");
    if (rest == "cpu")
      return std::string("cpu");
    if (rest == "cuda" || rest == "gpu")
      return std::string("cuda");
  }
  error(e->getBegin()) << what
                       << " takes \"cpu\" or \"cuda\" (also \"cuda:0\", "
                          "\"gpu\", \"/GPU:0\"; one GPU), got "
                       << (t->kind == Type::Kind::String ? "\"" + t->name + "\""
                                                         : t->str());
  return failure();
}

FailureOr<Type> SemaImpl::analyzePlacement(const CallExpr *expr,
                                           llvm::StringRef name) {
  if (name == "device") {
    if (expr != withContext) {
      error(expr->getBegin())
          << "device() is the context of a 'with' statement: "
             "`with device(\"cpu\"):` runs its block on the CPU";
      return failure();
    }
    FailureOr<std::vector<const Expr *>> args =
        matchBuiltinArgs(expr, name, {"name"}, 1);
    if (failed(args))
      return failure();
    FailureOr<std::string> device = deviceArgument((*args)[0], "device()");
    if (failed(device))
      return failure();
    return Type::string(*device);
  }
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"x", "device"}, 2);
  if (failed(args))
    return failure();
  FailureOr<Type> x = analyzeExpr((*args)[0]);
  if (failed(x))
    return failure();
  if (!x->hasValues()) {
    error((*args)[0]->getBegin())
        << "to_device() moves a tensor or a tuple or record of tensors, got "
        << x->str();
    return failure();
  }
  FailureOr<std::string> device = deviceArgument((*args)[1], "to_device()");
  if (failed(device))
    return failure();
  if (x->isTensor())
    coerce((*args)[0], x->dtype);
  planOf(expr).device = *device;
  return x->strong();
}

FailureOr<Type> SemaImpl::analyzeBuiltin(const CallExpr *expr, Builtin b) {
  switch (b.family()) {
  case BuiltinFamily::Statement:
    break; // analyzeCall's
  case BuiltinFamily::Math:
    return analyzeMath(expr, b.as<MathBuiltin>());
  case BuiltinFamily::Reduction:
    return analyzeReduction(expr, b.name());
  case BuiltinFamily::Shape:
    return analyzeShapeFamily(expr, b.as<ShapeBuiltin>());
  case BuiltinFamily::NN:
    return analyzeNNFamily(expr, b.as<NNBuiltin>());
  case BuiltinFamily::RandomIO:
    return analyzeRandomIOFamily(expr, b.as<RandomIOBuiltin>());
  case BuiltinFamily::Transform:
    return analyzeTransformFamily(expr, b.as<TransformBuiltin>());
  case BuiltinFamily::Sequence:
    switch (b.as<SequenceBuiltin>()) {
    case SequenceBuiltin::Len:
    case SequenceBuiltin::Str:
      return analyzeLenStr(expr, b.name());
    case SequenceBuiltin::Zip:
    case SequenceBuiltin::Enumerate:
      return analyzeZip(expr, b.name());
    }
    break;
  case BuiltinFamily::Parallel:
    switch (b.as<ParallelBuiltin>()) {
    case ParallelBuiltin::Device:
    case ParallelBuiltin::ToDevice:
      return analyzePlacement(expr, b.name());
    case ParallelBuiltin::Rank:
    case ParallelBuiltin::WorldSize:
    case ParallelBuiltin::AllReduce:
    case ParallelBuiltin::Broadcast:
      return analyzeCollective(expr, b.name());
    case ParallelBuiltin::AllGather:
      return analyzeAllGather(expr);
    }
    break;
  }
  llvm_unreachable("a statement built-in is analyzeCall's");
}

FailureOr<Type> SemaImpl::analyzeNNFamily(const CallExpr *expr, NNBuiltin op) {
  llvm::StringRef name = Builtin(op).name();
  switch (op) {
  case NNBuiltin::Softmax:
  case NNBuiltin::LogSoftmax:
  case NNBuiltin::OneHot:
    return analyzeNN(expr, name);
  case NNBuiltin::Conv2D:
  case NNBuiltin::MaxPool2D:
  case NNBuiltin::AvgPool2D:
    return analyzeConv(expr, name);
  case NNBuiltin::ScaledDotProductAttention:
    return analyzeAttention(expr);
  }
  llvm_unreachable("an nn built-in");
}

FailureOr<Type> SemaImpl::analyzeRandomIOFamily(const CallExpr *expr,
                                                RandomIOBuiltin op) {
  llvm::StringRef name = Builtin(op).name();
  switch (op) {
  case RandomIOBuiltin::Seed:
  case RandomIOBuiltin::ShuffleIndices:
    return analyzeSeed(expr, name);
  case RandomIOBuiltin::RandomNormal:
  case RandomIOBuiltin::RandomUniform:
    return analyzeDraw(expr, name);
  case RandomIOBuiltin::GetRngState:
  case RandomIOBuiltin::SetRngState:
    return analyzeRngState(expr, name);
  case RandomIOBuiltin::LoadIdx:
  case RandomIOBuiltin::LoadNpy:
    return analyzeLoadData(expr, name);
  case RandomIOBuiltin::LoadBytes:
    return analyzeLoadBytes(expr);
  case RandomIOBuiltin::SaveNpy:
  case RandomIOBuiltin::Save:
  case RandomIOBuiltin::Load:
    return analyzeSaveLoad(expr, name);
  case RandomIOBuiltin::LogScalar:
    return analyzeLogScalar(expr);
  case RandomIOBuiltin::Flag:
    return analyzeFlag(expr);
  case RandomIOBuiltin::Now:
    return analyzeNow(expr);
  case RandomIOBuiltin::Encode:
  case RandomIOBuiltin::Decode:
    return analyzeEncodeDecode(expr, name);
  case RandomIOBuiltin::SetPrecision:
    return analyzeSetPrecision(expr);
  case RandomIOBuiltin::CheckNumerics:
    return analyzeCheckNumerics(expr);
  }
  llvm_unreachable("a random or I/O built-in");
}

FailureOr<Type> SemaImpl::analyzeTransformFamily(const CallExpr *expr,
                                                 TransformBuiltin op) {
  switch (op) {
  case TransformBuiltin::Grad:
  case TransformBuiltin::ValueAndGrad:
  case TransformBuiltin::StopGradient:
  case TransformBuiltin::Jacfwd:
  case TransformBuiltin::Jacrev:
  case TransformBuiltin::Hessian:
    return analyzeGradBuiltin(expr, Builtin(op).name());
  case TransformBuiltin::Jvp:
    return analyzeJvp(expr);
  case TransformBuiltin::Vjp:
  case TransformBuiltin::Linearize:
    return analyzeLinearize(expr, op == TransformBuiltin::Vjp);
  case TransformBuiltin::Vmap:
    return analyzeVmap(expr);
  case TransformBuiltin::Checkpoint:
  case TransformBuiltin::Remat:
    return analyzeCheckpoint(expr, Builtin(op).name());
  case TransformBuiltin::TreeMap:
    return analyzeTreeMap(expr);
  case TransformBuiltin::TreeLeaves:
    return analyzeTreeLeaves(expr);
  }
  llvm_unreachable("a transform built-in");
}

/// The positional arguments of an elementwise built-in, analyzed: `arity`
/// of them and no keywords.
FailureOr<std::vector<Type>> SemaImpl::mathOperands(const CallExpr *expr,
                                                    MathBuiltin op) {
  llvm::StringRef name = Builtin(op).name();
  size_t arity = 1;
  switch (op) {
  case MathBuiltin::Maximum:
  case MathBuiltin::Minimum:
  case MathBuiltin::Pow:
  case MathBuiltin::Cast:
  case MathBuiltin::Matmul:
    arity = 2;
    break;
  case MathBuiltin::Where:
  case MathBuiltin::Clip:
    arity = 3;
    break;
  default:
    break;
  }
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
  for (size_t i = 0; i < (op == MathBuiltin::Cast ? 1 : types.size()); ++i)
    if (!types[i].isTensor()) {
      error(expr->args[i]->getBegin())
          << name << "() takes tensors, got " << types[i].str();
      return failure();
    }
  return types;
}

/// cast(x, dtype), float(x) and int(x).
FailureOr<Type> SemaImpl::analyzeCast(const CallExpr *expr, MathBuiltin op,
                                      llvm::ArrayRef<Type> types) {
  DType to = op == MathBuiltin::Float ? DType::F32 : DType::I64;
  if (op == MathBuiltin::Cast) {
    if (types[1].kind != Type::Kind::DType) {
      error(expr->args[1]->getBegin())
          << "cast() takes a dtype (f32, f64, bf16, f16, i32, i64, u8, "
             "bool), got "
          << types[1].str();
      return failure();
    }
    to = types[1].dtype;
  }
  if (types[0].weak)
    coerce(expr->args[0].get(), types[0].dtype);
  return Type::tensor(to, types[0].shape);
}

/// where(cond, x, y): a bool condition; x and y promote together.
FailureOr<Type> SemaImpl::analyzeWhere(const CallExpr *expr,
                                       llvm::ArrayRef<Type> types) {
  if (types[0].dtype != DType::Bool) {
    error(expr->args[0]->getBegin())
        << "where() takes a bool condition, got " << types[0].str();
    return failure();
  }
  FailureOr<Type> values =
      elementwiseOperands(expr, "where", {types[1], types[2]});
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

/// Python's float("inf"), float("-inf") and float("nan") (any case, an
/// optional sign, "infinity", spaces around): a float scalar as a literal
/// is, weak; other strings are refused.
FailureOr<Type> SemaImpl::analyzeSpecialFloat(const CallExpr *expr,
                                              llvm::StringRef text) {
  std::string s = text.trim().lower();
  double sign = 1;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    sign = s[0] == '-' ? -1 : 1;
    s.erase(0, 1);
  }
  double value;
  if (s == "inf" || s == "infinity")
    value = sign * std::numeric_limits<double>::infinity();
  else if (s == "nan")
    value = std::copysign(std::numeric_limits<double>::quiet_NaN(), sign);
  else {
    error(expr->args[0]->getBegin())
        << "float() of a string takes \"inf\", \"-inf\" or \"nan\", got \""
        << text << "\" (write other numbers as literals)";
    return failure();
  }
  planOf(expr).special = value;
  return Type::tensor(DType::F32, {}, /*weak=*/true);
}

FailureOr<Type> SemaImpl::analyzeMath(const CallExpr *expr, MathBuiltin op) {
  llvm::StringRef name = Builtin(op).name();
  if (op == MathBuiltin::Float && expr->args.size() == 1 &&
      expr->keywords.empty())
    if (auto *s = dyn_cast<StringExpr>(expr->args[0].get()))
      return analyzeSpecialFloat(expr, s->value);
  FailureOr<std::vector<Type>> types = mathOperands(expr, op);
  if (failed(types))
    return failure();
  switch (op) {
  case MathBuiltin::Cast:
  case MathBuiltin::Float:
  case MathBuiltin::Int:
    return analyzeCast(expr, op, *types);
  case MathBuiltin::Where:
    return analyzeWhere(expr, *types);
  default:
    break;
  }
  for (size_t i = 0; i < types->size(); ++i)
    if ((*types)[i].dtype == DType::Bool) {
      error(expr->args[i]->getBegin())
          << name << "() takes numbers, got " << (*types)[i].str();
      return failure();
    }
  if (op == MathBuiltin::Pow || op == MathBuiltin::Matmul)
    return binaryType(op == MathBuiltin::Pow ? BinaryOp::Pow : BinaryOp::MatMul,
                      expr->args[0].get(), (*types)[0], expr->args[1].get(),
                      (*types)[1], expr->getBegin());
  if (types->size() > 1)
    return elementwiseOperands(expr, name, *types);
  Type t = (*types)[0];
  if (Builtin(op).takesFloats() && !isFloat(t.dtype)) {
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
