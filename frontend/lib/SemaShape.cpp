//===- SemaShape.cpp - Types of the shape family's built-ins --------------===//
//
// Tensors made from shapes (zeros, ones, full, the _like ones; the ranges
// are analyzeRange's), tensors' shapes (shape, size), joins (concat,
// stack) and one tensor's new layout (tile, broadcast_to, reshape,
// transpose, expand_dims, squeeze): each built-in's checks and result type
// in a function of its own, over its arguments by parameter name
// (ShapeArgs). The pieces, triangles and gathers are SemaArrays.cpp's.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <cstdio>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

namespace {
/// Values a range (arange, linspace, eye's indices) makes when compiling,
/// at most: a larger one would exhaust the compiler's memory before the
/// program ran.
constexpr int64_t kMaxRangeElements = int64_t(1) << 26;
} // namespace

const Expr *SemaImpl::ShapeArgs::arg(size_t i) const {
  return argument(expr, i, names[i]);
}

LogicalResult SemaImpl::ShapeArgs::fail(const Expr *at,
                                        const llvm::Twine &msg) const {
  sema.error(at ? at->getBegin() : expr->getBegin()) << msg.str();
  return failure();
}

FailureOr<Type> SemaImpl::ShapeArgs::tensor(size_t i) const {
  const Expr *e = arg(i);
  if (!e)
    return fail(nullptr, name + "() missing argument '" + names[i] + "'");
  FailureOr<Type> t = sema.analyzeExpr(e);
  if (failed(t))
    return failure();
  if (!t->isTensor())
    return fail(e, name + "() takes a tensor for '" + names[i] + "', got " +
                       t->str());
  return t;
}

FailureOr<std::vector<int64_t>> SemaImpl::ShapeArgs::shape(size_t i) const {
  const Expr *e = arg(i);
  if (!e)
    return fail(nullptr, name + "() missing argument '" + names[i] + "'");
  std::optional<std::vector<int64_t>> s = sema.constInts(e, batchSizes);
  if (!s)
    return fail(e, name + "()'s " + names[i] +
                       " must be integers known at compile time (a "
                       "tuple of them, or shape(x))");
  if (llvm::count(*s, kBatchSizeInt) > 1)
    return fail(e, name + "()'s " + names[i] +
                       " has one batch size ('?') at most");
  // (reshape tells the batch from its -1 itself; a transpose's axes and
  // tile's counts hold no batch.)
  if (!batchSizes || name == "reshape")
    return *s;
  for (int64_t &d : *s) {
    if (d < 0 && d != kBatchSizeInt)
      return fail(e, name + "() got a negative dimension");
    if (d == kBatchSizeInt)
      d = kDynamicDim;
  }
  return *s;
}

FailureOr<DType> SemaImpl::ShapeArgs::dtype(size_t i, DType fallback) const {
  const Expr *e = arg(i);
  if (!e)
    return fallback;
  FailureOr<Type> t = sema.analyzeExpr(e);
  if (failed(t))
    return failure();
  if (t->kind != Type::Kind::DType) {
    // PyTorch's zeros(3, 4): the shape spread over the arguments.
    std::string hint;
    if (i == 1 && t->isTensor() && t->rank() == 0 && isInteger(t->dtype) &&
        names[0] == "shape")
      hint = "; the shape is one tuple, as NumPy's: " + name.str() +
             "((d0, d1, ...))";
    return fail(e, name + "()'s dtype must be a dtype (f32, i64, ...), got " +
                       t->str() + hint);
  }
  return t->dtype;
}

LogicalResult SemaImpl::ShapeArgs::checkDims(const std::vector<int64_t> &shape,
                                             const Expr *at) const {
  for (int64_t d : shape)
    if (d < 0 && d != kDynamicDim)
      return fail(at, name + "() got a negative dimension");
  return success();
}

/// The arguments of shape built-in `name`, checked against its parameters.
FailureOr<SemaImpl::ShapeArgs> SemaImpl::shapeArgs(const CallExpr *expr,
                                                   llvm::StringRef name) {
  static const llvm::StringMap<std::vector<std::string>> params = {
      {"zeros", {"shape", "dtype"}},
      {"ones", {"shape", "dtype"}},
      {"full", {"shape", "value", "dtype"}},
      {"zeros_like", {"x"}},
      {"ones_like", {"x"}},
      {"arange", {"start", "stop", "step"}},
      {"linspace", {"start", "stop", "num", "endpoint"}},
      {"eye", {"n", "m"}},
      {"broadcast_to", {"x", "shape"}},
      {"reshape", {"x", "shape"}},
      {"transpose", {"x", "perm"}},
      {"expand_dims", {"x", "axis"}},
      {"squeeze", {"x", "axis"}},
      {"concat", {"tensors", "axis"}},
      {"stack", {"tensors", "axis"}},
      {"shape", {"x"}},
      {"tile", {"x", "reps"}},
      {"size", {"x"}}};
  const std::vector<std::string> &names = params.find(name)->second;
  // Too many arguments, unknown keywords and a parameter given twice.
  llvm::SmallVector<llvm::StringRef> refs(names.begin(), names.end());
  if (failed(matchBuiltinArgs(expr, name, refs, 0)))
    return failure();
  // A shape's batch size (from shape(x) of a `?` dim) is a `?` dim of
  // the result, in the shapes of the builtins that allow one.
  bool batchSizes = llvm::is_contained(
      {"zeros", "ones", "full", "broadcast_to", "reshape"}, name);
  return ShapeArgs{*this, expr, name, names, batchSizes};
}

FailureOr<Type> SemaImpl::analyzeShapeFamily(const CallExpr *expr,
                                             ShapeBuiltin op) {
  llvm::StringRef name = Builtin(op).name();
  switch (op) {
  case ShapeBuiltin::Split:
  case ShapeBuiltin::Chunk:
    return analyzePieces(expr, name);
  case ShapeBuiltin::Tril:
  case ShapeBuiltin::Triu:
    return analyzeTriangle(expr, name);
  case ShapeBuiltin::Gather:
    return analyzeGather(expr);
  default:
    break;
  }
  FailureOr<ShapeArgs> args = shapeArgs(expr, name);
  if (failed(args))
    return failure();
  switch (op) {
  case ShapeBuiltin::Zeros:
  case ShapeBuiltin::Ones:
    return analyzeFilled(*args);
  case ShapeBuiltin::Full:
    return analyzeFull(*args);
  case ShapeBuiltin::ZerosLike:
  case ShapeBuiltin::OnesLike:
    return analyzeLike(*args);
  case ShapeBuiltin::Arange:
  case ShapeBuiltin::Linspace:
  case ShapeBuiltin::Eye:
    return analyzeRange(*args);
  case ShapeBuiltin::ShapeOf:
  case ShapeBuiltin::Size:
    return analyzeShapeOf(*args);
  case ShapeBuiltin::Concat:
  case ShapeBuiltin::Stack:
    return analyzeJoin(*args);
  case ShapeBuiltin::Tile:
    return analyzeTile(*args);
  case ShapeBuiltin::BroadcastTo:
    return analyzeBroadcastTo(*args);
  case ShapeBuiltin::Reshape:
    return analyzeReshape(*args);
  case ShapeBuiltin::Transpose:
    return analyzeTranspose(*args);
  case ShapeBuiltin::ExpandDims:
    return analyzeExpandDims(*args);
  case ShapeBuiltin::Squeeze:
    return analyzeSqueeze(*args);
  case ShapeBuiltin::Split:
  case ShapeBuiltin::Chunk:
  case ShapeBuiltin::Tril:
  case ShapeBuiltin::Triu:
  case ShapeBuiltin::Gather:
    break;
  }
  llvm_unreachable("taken above");
}

/// The numbers arange, linspace or eye takes: known at compile time
/// (`floats` when any is not an integer).
FailureOr<std::vector<double>> SemaImpl::rangeNumbers(const ShapeArgs &args,
                                                      bool &floats) {
  std::vector<double> values;
  floats = false;
  size_t numbers = args.name == "linspace" ? 3 : args.names.size();
  for (size_t i = 0; i < numbers; ++i) {
    const Expr *e = args.arg(i);
    if (!e)
      break;
    std::optional<double> v = knownNumber(e);
    if (!v)
      return args.fail(e, args.name +
                              "() takes numbers known at compile time: "
                              "literals, integers known at compile time, "
                              "module constants, and + - * / of these");
    floats |= !knownInt(e);
    values.push_back(*v);
  }
  if (values.empty() || (args.name == "linspace" && values.size() < 2))
    return args.fail(nullptr, args.name + "() missing argument '" +
                                  args.names[values.size()] + "'");
  return values;
}

/// The ranges are constants made when compiling, so their size is bounded.
LogicalResult SemaImpl::checkRangeSize(const ShapeArgs &args, double n,
                                       llvm::StringRef what) {
  if (n <= double(kMaxRangeElements))
    return success();
  char count[32];
  std::snprintf(count, sizeof count, "%.0f", n);
  return args.fail(nullptr, args.name + "() makes " + what +
                                " when compiling, at most " +
                                std::to_string(kMaxRangeElements) +
                                " of them, not " + count);
}

FailureOr<Type> SemaImpl::analyzeRange(const ShapeArgs &args) {
  bool floats;
  FailureOr<std::vector<double>> values = rangeNumbers(args, floats);
  if (failed(values))
    return failure();
  if (args.name == "eye") {
    if (floats)
      return args.fail(nullptr, "eye() takes integers known at compile time");
    int64_t n = int64_t((*values)[0]),
            m = values->size() > 1 ? int64_t((*values)[1]) : n;
    if (n < 0 || m < 0)
      return args.fail(nullptr, "eye() got a negative dimension");
    // Its values are compared from n row and m column indices made when
    // compiling; the n * m elements are made when it runs (as zeros').
    if (failed(
            checkRangeSize(args, double(n) + double(m), "its n + m indices")))
      return failure();
    return Type::tensor(DType::F32, {n, m});
  }
  if (args.name == "linspace")
    return analyzeLinspace(args, *values);
  // arange: NumPy's count, ceil((stop - start) / step), and an i64 result
  // for integers, f32 (the type of float literals) when any is a float.
  double start = values->size() > 1 ? (*values)[0] : 0;
  double stop = values->size() > 1 ? (*values)[1] : (*values)[0];
  double step = values->size() > 2 ? (*values)[2] : 1;
  if (step == 0)
    return args.fail(args.arg(2), "arange() step must not be zero");
  double n = std::ceil((stop - start) / step);
  if (!(n >= 0))
    n = 0;
  if (failed(checkRangeSize(args, n)))
    return failure();
  int64_t count = int64_t(n);
  if (!floats) {
    // Exactly, in integers (doubles lose integers past 2^53).
    int64_t s = int64_t(start), e = int64_t(stop), d = int64_t(step);
    count = std::max<int64_t>(0, (e - s + d - (d > 0 ? 1 : -1)) / d);
  }
  RangePlan plan;
  plan.start = start;
  plan.step = step;
  planOf(args.expr).range = plan;
  return Type::tensor(floats ? DType::F32 : DType::I64, {count});
}

/// linspace: NumPy's, num values from start to stop, stop included by
/// default.
FailureOr<Type> SemaImpl::analyzeLinspace(const ShapeArgs &args,
                                          llvm::ArrayRef<double> values) {
  const Expr *numArg = args.arg(2);
  std::optional<int64_t> num = numArg ? knownInt(numArg) : 50;
  if (!num || *num < 0)
    return args.fail(numArg, "linspace()'s num must be an integer of 0 or "
                             "more known at compile time");
  bool endpoint = true;
  if (const Expr *e = args.arg(3)) {
    auto *b = dyn_cast<BoolExpr>(e);
    if (!b)
      return args.fail(e, "linspace()'s endpoint must be True or False");
    endpoint = b->value;
  }
  int64_t count = *num;
  if (failed(checkRangeSize(args, double(count))))
    return failure();
  int64_t div = endpoint ? count - 1 : count;
  RangePlan plan;
  plan.start = values[0];
  plan.step = div > 0 ? (values[1] - values[0]) / double(div) : 0.0;
  plan.lastGiven = endpoint && count > 1;
  plan.last = values[1];
  planOf(args.expr).range = plan;
  return Type::tensor(DType::F32, {count});
}

/// zeros, ones and full: a shape's tensor of one value.
FailureOr<Type> SemaImpl::analyzeFilled(const ShapeArgs &args) {
  FailureOr<std::vector<int64_t>> shape = args.shape(0);
  FailureOr<DType> dtype = args.dtype(1, DType::F32);
  if (failed(shape) || failed(dtype) ||
      failed(args.checkDims(*shape, args.arg(0))))
    return failure();
  return Type::tensor(*dtype, *shape);
}

/// full(shape, value, dtype).
FailureOr<Type> SemaImpl::analyzeFull(const ShapeArgs &args) {
  FailureOr<std::vector<int64_t>> shape = args.shape(0);
  if (failed(shape) || failed(args.checkDims(*shape, args.arg(0))))
    return failure();
  FailureOr<Type> value = args.tensor(1);
  if (failed(value))
    return failure();
  if (!value->isScalar())
    return args.fail(args.arg(1),
                     "full()'s value must be a scalar, got " + value->str());
  FailureOr<DType> dtype = args.dtype(2, value->dtype);
  if (failed(dtype))
    return failure();
  coerce(args.arg(1), value->dtype);
  return Type::tensor(*dtype, *shape);
}

/// zeros_like and ones_like.
FailureOr<Type> SemaImpl::analyzeLike(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  return x->strong();
}

/// shape (a tuple of sizes) and size (their product).
FailureOr<Type> SemaImpl::analyzeShapeOf(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  // Static dims are known values: `n = shape(x)[0]` may size a shape; a
  // `?` dim is a batch size, which may size a `?` dim.
  if (args.name == "shape")
    return Type::shapeOf(*x);
  if (llvm::is_contained(x->shape, kDynamicDim))
    return args.fail(args.arg(0), "size() of " + x->str() +
                                      " is known only when the program runs");
  int64_t count = 1;
  for (int64_t d : x->shape)
    count *= d;
  return Type::knownInt(count, /*weak=*/false);
}

/// concat and stack: tensors joined along an axis.
/// concat's and stack's tensors: the elements of the tuple or list written
/// in the call (`items`), or of a tuple made elsewhere (`items` null).
FailureOr<std::vector<Type>>
SemaImpl::joinOperands(const ShapeArgs &args,
                       const std::vector<ExprPtr> *&items) {
  const Expr *seq = args.arg(0);
  items = nullptr;
  if (seq) {
    if (auto *t = dyn_cast<TupleExpr>(seq))
      items = &t->elements;
    else if (auto *l = dyn_cast<ListExpr>(seq))
      items = &l->elements;
  }
  std::vector<Type> types;
  if (seq && !items) {
    // A tuple made elsewhere: a name, a comprehension, a slice.
    FailureOr<Type> t = analyzeExpr(seq);
    if (failed(t))
      return failure();
    if (t->kind == Type::Kind::Tuple)
      types = t->elements;
  }
  if (types.empty() && (!items || items->empty()))
    return args.fail(seq, args.name +
                              "() takes a non-empty tuple or list of tensors");
  for (size_t i = 0; items && i < items->size(); ++i) {
    FailureOr<Type> t = analyzeExpr((*items)[i].get());
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  for (size_t i = 0; i < types.size(); ++i)
    if (!types[i].isTensor())
      return args.fail(items ? (*items)[i].get() : seq,
                       args.name + "() takes tensors, got " + types[i].str());
  return types;
}

FailureOr<Type> SemaImpl::analyzeJoin(const ShapeArgs &args) {
  const Expr *seq = args.arg(0);
  const std::vector<ExprPtr> *items;
  FailureOr<std::vector<Type>> operands = joinOperands(args, items);
  if (failed(operands))
    return failure();
  const std::vector<Type> &types = *operands;
  std::optional<int64_t> axisValue = args.arg(1) ? knownInt(args.arg(1)) : 0;
  if (!axisValue)
    return args.fail(args.arg(1),
                     args.name +
                         "()'s axis must be an integer known at compile time");
  Type first = types.front();
  int64_t rank = first.rank() + (args.name == "stack" ? 1 : 0);
  int64_t axis = *axisValue < 0 ? *axisValue + rank : *axisValue;
  if (axis < 0 || axis >= rank)
    return args.fail(args.arg(1), "axis " + llvm::Twine(*axisValue) +
                                      " is out of range for " + args.name +
                                      "()");
  if (args.name == "concat" && first.shape[axis] == kDynamicDim)
    return args.fail(args.arg(1) ? args.arg(1) : seq,
                     "concat() along a batch (a '?' dim) would make a batch of "
                     "another size: join batches along another axis");
  // The inputs' one dtype: the first strong input's (literals adapt).
  DType dtype = first.dtype;
  for (const Type &t : types)
    if (!t.weak) {
      dtype = t.dtype;
      break;
    }
  std::vector<int64_t> shape = first.shape;
  if (args.name == "stack")
    shape.insert(shape.begin() + axis, 0);
  else
    shape[axis] = 0;
  for (size_t i = 0; i < types.size(); ++i) {
    const Type &t = types[i];
    bool sameDtype = t.dtype == dtype || t.weak;
    bool sameShape = t.rank() == first.rank();
    for (int64_t d = 0; sameShape && d < t.rank(); ++d) {
      int64_t outDim = args.name == "stack" ? (d < axis ? d : d + 1) : d;
      if (args.name == "concat" && d == axis)
        continue;
      sameShape = t.shape[d] == shape[outDim];
    }
    if (!sameDtype || !sameShape)
      return args.fail(items ? (*items)[i].get() : seq,
                       args.name +
                           "() inputs must agree in dtype and in shape" +
                           (args.name == "concat" ? " off the axis" : "") +
                           ": " + first.str() + " and " + t.str());
    if (items)
      coerce((*items)[i].get(), dtype);
    shape[axis] += args.name == "stack" ? 1 : t.shape[axis];
  }
  return Type::tensor(dtype, shape);
}

/// tile: NumPy's.
FailureOr<Type> SemaImpl::analyzeTile(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  // NumPy's tile: reps and shape are padded with leading 1s to one rank.
  FailureOr<std::vector<int64_t>> reps = args.shape(1);
  if (failed(reps) || failed(args.checkDims(*reps, args.arg(1))))
    return failure();
  std::vector<int64_t> r = *reps, s = x->shape;
  while (r.size() < s.size())
    r.insert(r.begin(), 1);
  while (s.size() < r.size())
    s.insert(s.begin(), 1);
  for (size_t i = 0; i < s.size(); ++i)
    s[i] *= r[i];
  return Type::tensor(x->dtype, s, x->weak);
}

/// broadcast_to.
FailureOr<Type> SemaImpl::analyzeBroadcastTo(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  FailureOr<std::vector<int64_t>> shape = args.shape(1);
  if (failed(shape))
    return failure();
  std::optional<std::vector<int64_t>> b = broadcast(x->shape, *shape);
  if (!b || *b != *shape)
    return args.fail(args.arg(1), "cannot broadcast " + x->str() + " to " +
                                      Type::tensor(x->dtype, *shape).str());
  return Type::tensor(x->dtype, *shape, x->weak);
}

/// reshape: one -1 inferred; a batch stays a batch.
FailureOr<Type> SemaImpl::analyzeReshape(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  FailureOr<std::vector<int64_t>> shape = args.shape(1);
  if (failed(shape))
    return failure();
  // A batch (a `?` dim) stays a batch: the other dims' elements agree,
  // and the batch size sizes the result's `?`.
  bool inBatch = llvm::is_contained(x->shape, kDynamicDim);
  bool outBatch = llvm::is_contained(*shape, kBatchSizeInt);
  if (inBatch != outBatch)
    return args.fail(args.arg(1),
                     "reshape() of " + x->str() +
                         (inBatch ? " keeps its batch: give its size "
                                    "(shape(x)[0]) as a dim"
                                  : " has no batch to size a dim with"));
  int64_t known = 1, inferred = -1, total = 1;
  for (int64_t d : x->shape)
    total *= d == kDynamicDim ? 1 : d;
  for (size_t i = 0; i < shape->size(); ++i) {
    int64_t d = (*shape)[i];
    if (d == kBatchSizeInt) {
      (*shape)[i] = kDynamicDim;
      continue;
    }
    if (d == -1 && inferred < 0)
      inferred = i;
    else if (d < 0)
      return args.fail(args.arg(1),
                       "reshape() takes one -1 at most, and no other "
                       "negative dimension");
    else
      known *= d;
  }
  if (inferred >= 0 && known != 0 && total % known == 0)
    (*shape)[inferred] = total / known;
  int64_t count = 1;
  for (size_t i = 0; i < shape->size(); ++i)
    count *= outBatch && (*shape)[i] == kDynamicDim && i != size_t(inferred)
                 ? 1
                 : (*shape)[i];
  if (count != total)
    return args.fail(args.arg(1), "cannot reshape " + x->str() + " (" +
                                      llvm::Twine(total) + " elements) to " +
                                      Type::tensor(x->dtype, *shape).str());
  return Type::tensor(x->dtype, *shape, x->weak);
}

/// For two axes given to transpose() of a tensor of more dims, PyTorch's
/// reading (swap the two) spelled as TFL's perm; else empty.
static std::string swapHint(const std::vector<int64_t> &axes, int64_t rank) {
  if (axes.size() != 2 || rank <= 2)
    return "";
  int64_t a = axes[0] < 0 ? axes[0] + rank : axes[0];
  int64_t b = axes[1] < 0 ? axes[1] + rank : axes[1];
  if (a < 0 || a >= rank || b < 0 || b >= rank || a == b)
    return "";
  std::string perm;
  for (int64_t d = 0; d < rank; ++d)
    perm += (d ? ", " : "") + std::to_string(d == a ? b : d == b ? a : d);
  return "; PyTorch's x.transpose(" + std::to_string(axes[0]) + ", " +
         std::to_string(axes[1]) + "), which swaps two axes, is x.transpose(" +
         perm + ") here";
}

/// transpose: a permutation of the axes (reversed when none is given).
FailureOr<Type> SemaImpl::analyzeTranspose(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  int64_t rank = x->rank();
  std::vector<int64_t> perm;
  if (args.arg(1)) {
    FailureOr<std::vector<int64_t>> p = args.shape(1);
    if (failed(p))
      return failure();
    perm = *p;
  } else {
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  }
  std::vector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return args.fail(args.arg(1), "transpose()'s perm must list each of the " +
                                      llvm::Twine(rank) + " axes once" +
                                      swapHint(perm, rank));
  for (int64_t &p : perm) {
    if (p < 0)
      p += rank;
    if (p < 0 || p >= rank || seen[p])
      return args.fail(args.arg(1),
                       "transpose()'s perm must list each of the " +
                           llvm::Twine(rank) + " axes once");
    seen[p] = true;
  }
  // x.transpose(0, 1) of a matrix: NumPy's perm leaves it as it is, where
  // PyTorch's transpose(dim0, dim1) swaps the two (code ported from it).
  auto isInt = [](const ExprPtr &e) {
    auto *u = llvm::dyn_cast<UnaryExpr>(e.get());
    return llvm::isa<IntExpr>(u ? u->operand.get() : e.get());
  };
  auto *literal = llvm::dyn_cast_or_null<TupleExpr>(args.arg(1));
  if (rank == 2 && perm[0] == 0 && literal &&
      llvm::all_of(literal->elements, isInt))
    warnOnce(args.arg(1)->getBegin(),
             "x.transpose(a, b) lists the axes in their new order, as "
             "NumPy's does: this one leaves the matrix as it is; PyTorch's "
             "transpose(0, 1), which swaps them, is x.T or x.transpose(1, 0)");
  planOf(args.expr).permutation = perm;
  std::vector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x->shape[p]);
  return Type::tensor(x->dtype, shape, x->weak);
}

/// expand_dims.
FailureOr<Type> SemaImpl::analyzeExpandDims(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  int64_t rank = x->rank();
  std::optional<int64_t> axis =
      args.arg(1) ? knownInt(args.arg(1)) : std::nullopt;
  if (!axis)
    return args.fail(
        args.arg(1),
        "expand_dims()'s axis must be an integer known at compile time");
  int64_t a = *axis < 0 ? *axis + rank + 1 : *axis;
  if (a < 0 || a > rank)
    return args.fail(args.arg(1), "axis " + llvm::Twine(*axis) +
                                      " is out of range for expand_dims() of " +
                                      x->str());
  std::vector<int64_t> shape = x->shape;
  shape.insert(shape.begin() + a, 1);
  return Type::tensor(x->dtype, shape, x->weak);
}

/// squeeze: the axis given, or every axis of size 1.
FailureOr<Type> SemaImpl::analyzeSqueeze(const ShapeArgs &args) {
  FailureOr<Type> x = args.tensor(0);
  if (failed(x))
    return failure();
  int64_t rank = x->rank();
  std::vector<int64_t> shape;
  std::optional<int64_t> axis;
  if (args.arg(1)) {
    axis = knownInt(args.arg(1));
    if (!axis)
      return args.fail(
          args.arg(1),
          "squeeze()'s axis must be an integer known at compile time");
    if (*axis < 0)
      *axis += rank;
    if (*axis < 0 || *axis >= rank || x->shape[*axis] != 1)
      return args.fail(args.arg(1),
                       "squeeze() needs an axis of size 1 in " + x->str());
  }
  for (int64_t d = 0; d < rank; ++d)
    if (axis ? d != *axis : x->shape[d] != 1)
      shape.push_back(x->shape[d]);
  return Type::tensor(x->dtype, shape, x->weak);
}
