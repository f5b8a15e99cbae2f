//===- SemaRandomIO.cpp - Types of random and I/O built-ins ---------------===//
//
// The built-ins that touch state outside the program's values: the random
// generator (seed, random_normal, random_uniform, shuffle_indices) and
// files (load_idx, load_npy, save_npy, save, load, log_scalar). A file's
// path is a string known at compile time; when a load leaves its shape or
// dtype open, the file's header is read while compiling (the program reads
// and checks the file again when it runs). Their
// arguments are matched by position or keyword, and the matched argument
// expressions are recorded in `callArgs` for MLIRGen.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "tflrt/DataIO.h"

#include "llvm/ADT/STLExtras.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

FailureOr<std::vector<const Expr *>>
SemaImpl::matchBuiltinArgs(const CallExpr *expr, llvm::StringRef name,
                           llvm::ArrayRef<llvm::StringRef> params,
                           size_t required) {
  if (expr->args.size() > params.size()) {
    error(expr->getBegin()) << name << "() takes at most " << params.size()
                            << " arguments, got " << expr->args.size();
    return failure();
  }
  std::vector<const Expr *> args(params.size(), nullptr);
  for (size_t i = 0; i < expr->args.size(); ++i)
    args[i] = expr->args[i].get();
  // A parameter "k|diagonal" takes either keyword (NumPy's and PyTorch's),
  // and each PyTorch's spelling of it (namesParameter).
  auto named = [&](llvm::StringRef param, llvm::StringRef keyword) {
    llvm::SmallVector<llvm::StringRef> names;
    param.split(names, '|');
    return llvm::any_of(
        names, [&](llvm::StringRef n) { return namesParameter(keyword, n); });
  };
  for (const Keyword &kw : expr->keywords) {
    auto it = llvm::find_if(
        params, [&](llvm::StringRef p) { return named(p, kw.name); });
    if (it == params.end()) {
      error(kw.range.begin) << name << "() got an unexpected keyword argument '"
                            << kw.name << "'";
      return failure();
    }
    size_t i = it - params.begin();
    if (args[i]) {
      error(kw.range.begin) << name << "() got multiple values for argument '"
                            << params[i].split('|').first << "'";
      return failure();
    }
    args[i] = kw.value.get();
  }
  for (size_t i = 0; i < required; ++i)
    if (!args[i]) {
      error(expr->getBegin()) << name << "() missing argument '"
                              << params[i].split('|').first << "'";
      return failure();
    }
  frame->spec->callArgs[expr] = args;
  return args;
}

FailureOr<std::vector<int64_t>> SemaImpl::shapeArgument(const Expr *e,
                                                        llvm::StringRef what) {
  std::optional<std::vector<int64_t>> shape = constInts(e);
  if (!shape) {
    error(e->getBegin()) << what
                         << " must be integers known at compile time (a "
                            "tuple of them, or shape(x))";
    return failure();
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; })) {
    error(e->getBegin()) << what << " has a negative dimension";
    return failure();
  }
  return *shape;
}

FailureOr<DType> SemaImpl::dtypeArgument(const Expr *e, llvm::StringRef what,
                                         DType fallback) {
  if (!e)
    return fallback;
  FailureOr<Type> t = analyzeExpr(e);
  if (failed(t))
    return failure();
  if (t->kind != Type::Kind::DType) {
    error(e->getBegin()) << what << " must be a dtype (f32, i64, ...), got "
                         << t->str();
    return failure();
  }
  return t->dtype;
}

FailureOr<Type> SemaImpl::analyzeRngState(const CallExpr *expr,
                                          llvm::StringRef name) {
  // The generator's state, as torch.get_rng_state/set_rng_state: its key
  // and draw count, an i64[2] a checkpoint holds.
  if (name == "get_rng_state") {
    if (failed(matchBuiltinArgs(expr, name, {}, 0)))
      return failure();
    return Type::tensor(DType::I64, {2});
  }
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"state"}, 1);
  if (failed(args))
    return failure();
  FailureOr<Type> t = analyzeExpr(args->front());
  if (failed(t))
    return failure();
  if (!t->isTensor() || t->dtype != DType::I64 ||
      t->shape != std::vector<int64_t>{2}) {
    error(args->front()->getBegin())
        << "set_rng_state() takes the i64[2] that get_rng_state() gives, "
           "got "
        << t->str();
    return failure();
  }
  return Type::none();
}

FailureOr<Type> SemaImpl::analyzeSeed(const CallExpr *expr,
                                      llvm::StringRef name) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"n"}, 1);
  if (failed(args))
    return failure();
  const Expr *n = args->front();
  if (name == "shuffle_indices") {
    FailureOr<std::vector<int64_t>> size =
        shapeArgument(n, "shuffle_indices()'s n");
    if (failed(size))
      return failure();
    if (size->size() != 1) {
      error(n->getBegin()) << "shuffle_indices() takes one size";
      return failure();
    }
    return Type::tensor(DType::I64, *size);
  }
  FailureOr<Type> t = analyzeExpr(n);
  if (failed(t))
    return failure();
  if (!t->isScalar() || !isInteger(t->dtype)) {
    error(n->getBegin()) << "seed() takes an integer scalar, got " << t->str();
    return failure();
  }
  coerce(n, t->dtype);
  return Type::none();
}

FailureOr<Type> SemaImpl::analyzeDraw(const CallExpr *expr,
                                      llvm::StringRef name) {
  // random_normal(shape, mean=0, stddev=1, dtype=f32) and
  // random_uniform(shape, lo=0, hi=1, dtype=f32).
  bool normal = name == "random_normal";
  llvm::StringRef a = normal ? "mean" : "lo", b = normal ? "stddev" : "hi";
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"shape", a, b, "dtype"}, 1);
  if (failed(args))
    return failure();
  FailureOr<std::vector<int64_t>> shape =
      shapeArgument((*args)[0], (name + "()'s shape").str());
  FailureOr<DType> dtype =
      dtypeArgument((*args)[3], (name + "()'s dtype").str(), DType::F32);
  if (failed(shape) || failed(dtype))
    return failure();
  if (!isFloat(*dtype) || isHalf(*dtype)) {
    error((*args)[3]->getBegin())
        << name << "() draws f32 or f64, not " << dtypeName(*dtype);
    return failure();
  }
  Type result = Type::tensor(*dtype, *shape);
  for (size_t i : {1, 2})
    if ((*args)[i] &&
        failed(drawParameter(name, i == 1 ? a : b, (*args)[i], result)))
      return failure();
  return result;
}

LogicalResult SemaImpl::drawParameter(llvm::StringRef name,
                                      llvm::StringRef what, const Expr *e,
                                      const Type &result) {
  FailureOr<Type> t = analyzeExpr(e);
  if (failed(t))
    return failure();
  if (!t->isTensor() || (t->dtype != result.dtype && !t->weak) ||
      (t->weak && !isFloat(t->dtype) && !isInteger(t->dtype))) {
    error(e->getBegin()) << name << "()'s " << what << " must be "
                         << dtypeName(result.dtype) << ", got " << t->str();
    return failure();
  }
  std::optional<std::vector<int64_t>> fits = broadcast(result.shape, t->shape);
  if (!fits || *fits != result.shape) {
    error(e->getBegin()) << name << "()'s " << what << " is " << t->str()
                         << ", which does not broadcast to the shape "
                         << result.str();
    return failure();
  }
  coerce(e, result.dtype);
  return success();
}

FailureOr<std::string>
SemaImpl::stringArgument(const Expr *e, llvm::StringRef what, bool path) {
  FailureOr<Type> t = analyzeExpr(e);
  if (failed(t))
    return failure();
  // A file's path may hold a string flag's value: the file it names when
  // compiling is the one at the flags' defaults.
  if (path && t->kind == Type::Kind::RuntimeString && !t->elements.empty()) {
    error(e->getBegin())
        << what << " may hold string flags' values, but not values the "
        << "program computes (str(x), f-string fields of tensors) yet";
    return failure();
  }
  if (path && t->kind == Type::Kind::RuntimeString)
    return pathWithDefaults(t->name, program->flags);
  if (t->kind == Type::Kind::RuntimeString) {
    error(e->getBegin()) << what << " must be a string known at compile time, "
                         << "but this one is known only when the program "
                            "runs";
    return failure();
  }
  if (t->kind != Type::Kind::String) {
    error(e->getBegin()) << what << " must be a string known at compile time, "
                         << "got " << t->str();
    return failure();
  }
  return t->name;
}

FailureOr<Type> SemaImpl::analyzeLoadData(const CallExpr *expr,
                                          llvm::StringRef name) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"path", "shape", "dtype"}, 1);
  if (failed(args))
    return failure();
  FailureOr<std::string> path =
      stringArgument((*args)[0], (name + "()'s path").str(), /*path=*/true);
  if (failed(path))
    return failure();
  // The asked shape: sizes, with at most one -1 to infer.
  std::optional<std::vector<int64_t>> shape;
  const Expr *shapeExpr = (*args)[1];
  if (shapeExpr) {
    shape = constInts(shapeExpr);
    if (!shape) {
      error(shapeExpr->getBegin())
          << name << "()'s shape must be integers known at compile time "
          << "(-1 for one size read from the file)";
      return failure();
    }
    if (llvm::count(*shape, -1) > 1 ||
        llvm::any_of(*shape, [](int64_t d) { return d < -1; })) {
      error(shapeExpr->getBegin())
          << name << "()'s shape may have one -1 and no other negative size";
      return failure();
    }
  }
  std::optional<DType> dtype;
  if (const Expr *d = (*args)[2]) {
    FailureOr<DType> t =
        dtypeArgument(d, (name + "()'s dtype").str(), DType::F32);
    if (failed(t))
      return failure();
    dtype = *t;
  }
  if (dtype && shape && !llvm::is_contained(*shape, -1))
    return Type::tensor(*dtype, *shape);
  return loadedFromHeader(expr, name, *path, shape, dtype);
}

FailureOr<Type> SemaImpl::loadedFromHeader(
    const CallExpr *expr, llvm::StringRef name, const std::string &path,
    std::optional<std::vector<int64_t>> shape, std::optional<DType> dtype) {
  // The file's header, read now, gives what shape= and dtype= leave open;
  // the program checks the file again when it runs.
  bool idx = name == "load_idx";
  tflrt::ArrayHeader header;
  try {
    header = idx ? tflrt::readIdxHeader(path) : tflrt::readNpyHeader(path);
  } catch (const tflrt::IoError &e) {
    error(expr->getBegin())
        << name << "() reads the file's header when compiling, to learn "
        << "what shape= and dtype= leave open: " << e.what();
    return failure();
  }
  const std::vector<const Expr *> &args = frame->spec->callArgs[expr];
  DType fileDType = header.dtype;
  std::vector<int64_t> fileShape(header.shape.begin(), header.shape.end());
  std::string fileType = Type::tensor(fileDType, fileShape).str();
  if (dtype && *dtype != fileDType) {
    error(args[2]->getBegin())
        << path << " holds " << fileType << ", not " << dtypeName(*dtype);
    return failure();
  }
  if (!shape)
    return Type::tensor(fileDType, fileShape);
  int64_t count = tflrt::numElements(header.shape);
  int64_t known = 1;
  for (int64_t d : *shape)
    if (d != -1)
      known *= d;
  for (int64_t &d : *shape)
    if (d == -1)
      d = known == 0 ? 0 : count / known;
  int64_t total = 1;
  for (int64_t d : *shape)
    total *= d;
  if (total != count || (!idx && *shape != fileShape)) {
    error(args[1]->getBegin())
        << path << " holds " << fileType << ", which "
        << (idx ? "has no" : "is not of the") << " shape "
        << Type::tensor(fileDType, *shape).str()
        << (idx ? " of as many elements" : "");
    return failure();
  }
  return Type::tensor(fileDType, *shape);
}

FailureOr<Type> SemaImpl::analyzeLoadBytes(const CallExpr *expr) {
  // A file's bytes: u8[size], the size given or read when compiling (the
  // program checks it again when it runs).
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, "load_bytes", {"path", "size"}, 1);
  if (failed(args))
    return failure();
  FailureOr<std::string> path =
      stringArgument((*args)[0], "load_bytes()'s path", /*path=*/true);
  if (failed(path))
    return failure();
  if (const Expr *sizeExpr = (*args)[1]) {
    std::optional<int64_t> size = knownInt(sizeExpr);
    if (!size || *size < 0) {
      error(sizeExpr->getBegin()) << "load_bytes()'s size must be an "
                                     "integer of 0 or more known at "
                                     "compile time";
      return failure();
    }
    return Type::tensor(DType::U8, {*size});
  }
  try {
    return Type::tensor(DType::U8, {tflrt::fileBytes(*path)});
  } catch (const tflrt::IoError &e) {
    error(expr->getBegin())
        << "load_bytes() reads the file's size when compiling (or give "
           "size=): "
        << e.what();
    return failure();
  }
}

FailureOr<Type> SemaImpl::analyzeLogScalar(const CallExpr *expr) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, "log_scalar", {"name", "value", "step"}, 3);
  if (failed(args) || failed(stringArgument((*args)[0], "log_scalar()'s name")))
    return failure();
  for (size_t i : {1, 2}) {
    FailureOr<Type> t = analyzeExpr((*args)[i]);
    if (failed(t))
      return failure();
    bool ok = t->isScalar() && t->dtype != DType::Bool &&
              (i == 1 || isInteger(t->dtype));
    if (!ok) {
      error((*args)[i]->getBegin())
          << "log_scalar()'s " << (i == 1 ? "value" : "step") << " must be "
          << (i == 1 ? "a number" : "an integer") << " scalar, got "
          << t->str();
      return failure();
    }
    coerce((*args)[i], i == 1 ? DType::F64 : DType::I64);
  }
  return Type::none();
}

FailureOr<Type> SemaImpl::analyzeSaveLoad(const CallExpr *expr,
                                          llvm::StringRef name) {
  bool isLoad = name == "load";
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name,
                       {"path", isLoad           ? "like"
                                : name == "save" ? "tree"
                                                 : "x"},
                       2);
  if (failed(args) ||
      failed(stringArgument((*args)[0], (name + "()'s path").str(),
                            /*path=*/true)))
    return failure();
  FailureOr<Type> t = analyzeExpr((*args)[1]);
  if (failed(t))
    return failure();
  if (name == "save_npy") {
    if (!t->isTensor()) {
      error((*args)[1]->getBegin())
          << "save_npy() writes a tensor, got " << t->str();
      return failure();
    }
    coerce((*args)[1], t->dtype);
    return Type::none();
  }
  std::function<bool(const Type &)> tensorsOnly = [&](const Type &x) {
    return x.isTensor() ||
           (x.isTree() && llvm::all_of(x.elements, tensorsOnly));
  };
  if (!tensorsOnly(*t)) {
    error((*args)[1]->getBegin())
        << name << "() takes a tensor or a tree (tuples and records) of "
        << "tensors, got " << t->str();
    return failure();
  }
  if (t->weak)
    coerce((*args)[1], t->dtype);
  return isLoad ? t->strong() : Type::none();
}

FailureOr<Type> SemaImpl::analyzeNow(const CallExpr *expr) {
  if (!expr->args.empty() || !expr->keywords.empty()) {
    error(expr->getBegin()) << "now() takes no arguments";
    return failure();
  }
  return Type::tensor(DType::F64, {});
}

FailureOr<Type> SemaImpl::analyzeCheckNumerics(const CallExpr *expr) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, "check_numerics", {"x", "message"}, 1);
  if (failed(args))
    return failure();
  FailureOr<Type> x = analyzeExpr((*args)[0]);
  if (failed(x))
    return failure();
  if (!x->isTensor() || !isFloat(x->dtype)) {
    error((*args)[0]->getBegin())
        << "check_numerics() checks a float tensor, got " << x->str();
    return failure();
  }
  if (const Expr *m = (*args)[1]) {
    FailureOr<Type> t = analyzeExpr(m);
    if (failed(t))
      return failure();
    if (t->kind != Type::Kind::String) {
      error(m->getBegin())
          << "check_numerics()'s message must be a string, got " << t->str();
      return failure();
    }
  }
  coerce((*args)[0], x->dtype);
  return x->strong();
}
