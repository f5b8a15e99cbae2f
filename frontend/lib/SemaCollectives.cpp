//===- SemaCollectives.cpp - Types of the collectives ---------------------===//
//
// rank() and world_size() (i64 scalars known when the program runs;
// world_size() at compile time when the program is compiled for a number
// of processes, SemaOptions::worldSize), all_reduce(tree, op="sum"|"mean")
// and broadcast(tree, root=0): a tensor or a tree of tensors in, the same
// tree out (the result of each leaf has the leaf's type), and
// all_gather(x): x stacked over the ranks, whose number its shape needs.
// The op is a compile-time string, the root a compile-time integer: every
// rank runs the same collective.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

namespace {

/// Whether every leaf of `t` is a tensor a collective moves (and, for a
/// mean, a float one).
bool collectiveLeaves(const Type &t, bool floatsOnly) {
  if (t.isTree())
    return llvm::all_of(t.elements, [&](const Type &e) {
      return collectiveLeaves(e, floatsOnly);
    });
  if (!t.isTensor() || t.dtype == DType::Bool || t.dtype == DType::U8)
    return false;
  return !floatsOnly || isFloat(t.dtype);
}

} // namespace

FailureOr<Type> SemaImpl::analyzeCollective(const CallExpr *expr,
                                            llvm::StringRef name) {
  if (name == "rank" || name == "world_size") {
    if (!expr->args.empty() || !expr->keywords.empty()) {
      error(expr->getBegin()) << name << "() takes no arguments";
      return failure();
    }
    if (name == "world_size" && options.worldSize)
      return Type::knownInt(*options.worldSize, /*weak=*/false);
    return Type::tensor(DType::I64, {});
  }
  bool isReduce = name == "all_reduce";
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, name, {"tree", isReduce ? "op" : "root"}, 1);
  if (failed(args))
    return failure();
  FailureOr<Type> tree = analyzeExpr((*args)[0]);
  if (failed(tree))
    return failure();
  FailureOr<bool> mean = collectiveOption((*args)[1], isReduce);
  if (failed(mean))
    return failure();
  if (!collectiveLeaves(*tree, *mean)) {
    error((*args)[0]->getBegin())
        << name << "() takes a tensor or a tree (tuples and records) of "
        << (*mean ? "float tensors (f32, f64, bf16, f16) for op=\"mean\""
                  : "f32, f64, bf16, f16, i32 or i64 tensors")
        << ", got " << tree->str();
    return failure();
  }
  if (tree->isTensor())
    coerce((*args)[0], tree->dtype);
  return tree->strong();
}

/// all_reduce()'s op (whether it is "mean") or broadcast()'s root;
/// `option` is null when not given.
FailureOr<bool> SemaImpl::collectiveOption(const Expr *option, bool isReduce) {
  if (!option)
    return false;
  if (isReduce) {
    FailureOr<std::string> op = stringArgument(option, "all_reduce()'s op");
    if (failed(op))
      return failure();
    if (*op != "sum" && *op != "mean") {
      error(option->getBegin())
          << "all_reduce()'s op is \"sum\" or \"mean\", not \"" << *op << "\"";
      return failure();
    }
    return *op == "mean";
  }
  if (failed(analyzeExpr(option)))
    return failure();
  std::optional<int64_t> root = knownInt(option);
  if (!root || *root < 0) {
    error(option->getBegin())
        << "broadcast()'s root must be a rank (an integer of 0 or more) "
           "known at compile time";
    return failure();
  }
  return false;
}

FailureOr<Type> SemaImpl::analyzeAllGather(const CallExpr *expr) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, "all_gather", {"x"}, 1);
  if (failed(args))
    return failure();
  FailureOr<Type> x = analyzeExpr((*args)[0]);
  if (failed(x))
    return failure();
  if (!x->isTensor() || !collectiveLeaves(*x, false)) {
    error((*args)[0]->getBegin())
        << "all_gather() takes an f32, f64, bf16, f16, i32 or i64 tensor, "
           "got "
        << x->str();
    return failure();
  }
  if (!options.worldSize) {
    error(expr->getBegin())
        << "all_gather() stacks a tensor per process, so its shape needs "
           "the number of processes when compiling: build with tflc "
           "--world-size=N (tflc run knows it)";
    return failure();
  }
  coerce((*args)[0], x->dtype);
  std::vector<int64_t> shape = x->shape;
  shape.insert(shape.begin(), *options.worldSize);
  return Type::tensor(x->dtype, shape);
}
