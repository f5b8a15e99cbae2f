//===- SemaVmap.cpp - vmap(f, in_axes, out_axes), as JAX's ----------------===//
//
// `vmap(f, in_axes, out_axes)` is a function value. A call of it
// specializes f on one example's arguments (each mapped argument without
// its batch dim) and makes a generated specialization whose body is
// `tfl.vmap` of f: it takes the batched arguments and f's captures, and
// gives f's results with the batch dim at `out_axes`. The autodiff pass
// builds the batched function (passes/lib/Autodiff/Batching.cpp).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

namespace {

constexpr int64_t kNotMapped = Type::kNotMapped;

/// A dim `axis` of `rank` dims (negative from the end), or nullopt when
/// out of range.
std::optional<int64_t> normalized(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  return axis;
}

} // namespace

std::optional<int64_t> SemaImpl::vmapAxis(const Expr *e, bool noneAllowed) {
  if (isa<NoneExpr>(e))
    return noneAllowed ? std::optional<int64_t>(kNotMapped) : std::nullopt;
  std::optional<std::vector<int64_t>> v = constInts(e);
  if (!v || v->size() != 1)
    return std::nullopt;
  return v->front();
}

/// The items of a tuple or list expression, or none for another.
static std::optional<std::vector<const Expr *>> itemsOf(const Expr *e) {
  const std::vector<ExprPtr> *elements = nullptr;
  if (auto *tuple = dyn_cast<TupleExpr>(e))
    elements = &tuple->elements;
  else if (auto *list = dyn_cast<ListExpr>(e))
    elements = &list->elements;
  if (!elements)
    return std::nullopt;
  std::vector<const Expr *> items;
  for (const ExprPtr &item : *elements)
    items.push_back(item.get());
  return items;
}

std::optional<Type> SemaImpl::vmapAxesTree(const Expr *e) {
  std::optional<std::vector<const Expr *>> items = itemsOf(e);
  if (!items) {
    std::optional<int64_t> a = vmapAxis(e, true);
    if (!a)
      return std::nullopt;
    return *a == kNotMapped ? Type::none() : Type::knownInt(*a);
  }
  std::vector<Type> children;
  for (const Expr *item : *items) {
    std::optional<Type> child = vmapAxesTree(item);
    if (!child)
      return std::nullopt;
    children.push_back(std::move(*child));
  }
  return Type::tuple(std::move(children));
}

LogicalResult SemaImpl::vmapAxes(const Expr *e, bool in,
                                 std::vector<int64_t> &axes, bool &perValue,
                                 std::vector<Type> &trees) {
  if (!e) {
    axes = {0};
    trees.resize(1);
    return success();
  }
  std::optional<std::vector<const Expr *>> listed = itemsOf(e);
  perValue = listed.has_value();
  std::vector<const Expr *> items =
      listed ? *listed : std::vector<const Expr *>{e};
  for (const Expr *item : items) {
    std::optional<int64_t> a = vmapAxis(item, in);
    // An entry for a tuple argument may be a tree prefix of it.
    std::optional<Type> tree =
        !a && in && perValue ? vmapAxesTree(item) : std::nullopt;
    if (!a && !tree) {
      error(item->getBegin())
          << "vmap()'s " << (in ? "in_axes" : "out_axes")
          << " must be an integer known at compile time"
          << (in ? ", None," : "") << " or a tuple of them (one per "
          << (in ? "argument, or a tuple of them for a tuple argument"
                 : "result")
          << ")";
      return failure();
    }
    axes.push_back(a ? *a : Type::kAxesTree);
    trees.push_back(tree ? std::move(*tree) : Type::none());
  }
  return success();
}

FailureOr<Type> SemaImpl::analyzeVmap(const CallExpr *expr) {
  FailureOr<std::vector<const Expr *>> args =
      matchBuiltinArgs(expr, "vmap", {"f", "in_axes", "out_axes"}, 1);
  if (failed(args))
    return failure();
  if (expr->args.empty()) {
    error(expr->getBegin()) << "vmap() takes the function first, by position";
    return failure();
  }
  FailureOr<Type> f = analyzeExpr((*args)[0]);
  if (failed(f))
    return failure();
  if (!f->isCallableValue()) {
    error((*args)[0]->getBegin())
        << "vmap() maps a function (a def, a lambda or a transform of one), "
           "got "
        << f->str();
    return failure();
  }
  std::vector<Type> inTrees, outTrees;
  std::vector<int64_t> inAxes, outAxes;
  bool inTuple = false, outTuple = false;
  if (failed(vmapAxes((*args)[1], true, inAxes, inTuple, inTrees)) ||
      failed(vmapAxes((*args)[2], false, outAxes, outTuple, outTrees)))
    return failure();
  return Type::vmap(*f, std::move(inAxes), inTuple, std::move(outAxes),
                    outTuple, std::move(inTrees));
}

FailureOr<Specialization *>
SemaImpl::resolveVmapCall(const CallExpr *expr, const Type &vmap,
                          std::vector<const Expr *> &resolved) {
  FailureOr<std::vector<Type>> argTypes =
      positionalArgs(expr, "a vmap of a function", resolved);
  if (failed(argTypes))
    return failure();
  return vmapSpecOf(vmap, std::move(*argTypes), expr->getBegin(),
                    [&](size_t i) { return resolved[i]->getBegin(); });
}

FailureOr<Type> SemaImpl::vmapExample(const Type &t, int64_t axis,
                                      const Type *tree, size_t i,
                                      Position argPos, VmapSizes &sizes) {
  if (tree) {
    if (t.kind != Type::Kind::Tuple ||
        t.elements.size() != tree->elements.size()) {
      error(argPos) << "vmap()'s in_axes gives argument " << i << " a tuple of "
                    << tree->elements.size() << " entries, but it is "
                    << t.str()
                    << " (a tuple prefix is for a tuple of as many elements)";
      return failure();
    }
  } else if (axis == kNotMapped) {
    sizes.leafAxes.insert(sizes.leafAxes.end(), t.leafCount(), -1);
    return t;
  }
  if (tree || t.isTree()) {
    Type out = t.strong();
    for (size_t k = 0; k < out.elements.size(); ++k) {
      const Type *node = tree ? &tree->elements[k] : nullptr;
      bool nested = node && node->kind == Type::Kind::Tuple;
      int64_t a = !node         ? axis
                  : nested      ? 0
                  : node->known ? *node->known
                                : kNotMapped;
      FailureOr<Type> inner = vmapExample(
          Type(t.elements[k]), a, nested ? node : nullptr, i, argPos, sizes);
      if (failed(inner))
        return failure();
      out.elements[k] = *inner;
    }
    return out;
  }
  if (!t.isTensor()) {
    error(argPos) << "vmap() maps argument " << i << ", of type " << t.str()
                  << ", over a dim: only tensors and trees of them have "
                     "dims (give None in in_axes to pass it whole)";
    return failure();
  }
  std::optional<int64_t> a = normalized(axis, t.rank());
  if (!a) {
    error(argPos) << "vmap()'s in_axes maps argument " << i << " over dim "
                  << axis << ", but it is " << t.str();
    return failure();
  }
  int64_t dim = t.shape[*a];
  if (dim == kDynamicDim) {
    error(argPos) << "vmap() over a dim known only at run time is not "
                     "supported yet";
    return failure();
  }
  if (sizes.sizedBy && sizes.size != dim) {
    error(argPos) << "vmap()'s mapped dims disagree: argument " << i << " has "
                  << dim << " along dim " << *a << ", but argument "
                  << *sizes.sizedBy << " has " << sizes.size;
    return failure();
  }
  sizes.size = dim;
  sizes.sizedBy = i;
  sizes.leafAxes.push_back(*a);
  std::vector<int64_t> shape = t.shape;
  shape.erase(shape.begin() + *a);
  return Type::tensor(t.dtype, std::move(shape));
}

FailureOr<std::vector<Type>>
SemaImpl::vmapExamples(const Type &vmap, const std::vector<Type> &argTypes,
                       Position at, llvm::function_ref<Position(size_t)> argAt,
                       int64_t &size, std::vector<int64_t> &leafAxes) {
  size_t numArgs = argTypes.size();
  if (vmap.inAxesTuple && vmap.inAxes.size() != numArgs) {
    error(at) << "vmap()'s in_axes has " << vmap.inAxes.size() << " entr"
              << (vmap.inAxes.size() == 1 ? "y" : "ies")
              << ", but the function is called with " << numArgs << " argument"
              << (numArgs == 1 ? "" : "s");
    return failure();
  }
  VmapSizes sizes{size, std::nullopt, leafAxes};
  std::vector<Type> examples;
  for (size_t i = 0; i < numArgs; ++i) {
    size_t entry = vmap.inAxesTuple ? i : 0;
    bool isTree = vmap.inAxes[entry] == Type::kAxesTree;
    FailureOr<Type> e = vmapExample(argTypes[i], vmap.inAxes[entry],
                                    isTree ? &vmap.inAxesTrees[entry] : nullptr,
                                    i, argAt(i), sizes);
    if (failed(e))
      return failure();
    examples.push_back(*e);
  }
  if (!sizes.sizedBy) {
    error(at) << "vmap() maps no argument over a dim: its in_axes are all "
                 "None";
    return failure();
  }
  return examples;
}

FailureOr<Type> SemaImpl::vmapResult(const Type &vmap, const Type &value,
                                     int64_t size, Position at,
                                     std::vector<int64_t> &outLeafAxes) {
  if (!value.hasValues()) {
    error(at) << "vmap() needs a function returning tensors, but it returns "
              << value.str();
    return failure();
  }
  if (vmap.outAxesTuple && (value.kind != Type::Kind::Tuple ||
                            value.elements.size() != vmap.outAxes.size())) {
    error(at) << "vmap()'s out_axes has " << vmap.outAxes.size()
              << " entries, but the function returns " << value.str();
    return failure();
  }
  // Each leaf with the batch dim at its out_axes entry.
  std::function<FailureOr<Type>(const Type &, int64_t)> batched =
      [&](const Type &t, int64_t axis) -> FailureOr<Type> {
    if (t.isTree()) {
      Type out = t.strong();
      for (Type &e : out.elements) {
        FailureOr<Type> b = batched(Type(e), axis);
        if (failed(b))
          return failure();
        e = *b;
      }
      return out;
    }
    std::optional<int64_t> a =
        t.isTensor() ? normalized(axis, t.rank() + 1) : std::nullopt;
    if (!a) {
      error(at) << "vmap()'s out_axes puts the batch dim at " << axis
                << " of a result of type " << t.str()
                << " (a tensor, or a tree of them)";
      return failure();
    }
    outLeafAxes.push_back(*a);
    std::vector<int64_t> shape = t.shape;
    shape.insert(shape.begin() + *a, size);
    return Type::tensor(t.dtype, std::move(shape));
  };
  if (!vmap.outAxesTuple)
    return batched(value, vmap.outAxes.front());
  Type out = value.strong();
  for (size_t k = 0; k < out.elements.size(); ++k) {
    FailureOr<Type> b = batched(Type(out.elements[k]), vmap.outAxes[k]);
    if (failed(b))
      return failure();
    out.elements[k] = *b;
  }
  return out;
}

FailureOr<Specialization *>
SemaImpl::vmapSpecOf(const Type &vmap, std::vector<Type> argTypes, Position at,
                     llvm::function_ref<Position(size_t)> argAt) {
  int64_t size = 0;
  std::vector<int64_t> leafAxes, outLeafAxes;
  FailureOr<std::vector<Type>> examples =
      vmapExamples(vmap, argTypes, at, argAt, size, leafAxes);
  if (failed(examples))
    return failure();
  FailureOr<Specialization *> inner =
      specializeOn(vmap.elements.front(), *examples, at, "vmap()");
  if (failed(inner))
    return failure();
  FailureOr<Type> result =
      vmapResult(vmap, (*inner)->callType(), size, at, outLeafAxes);
  if (failed(result))
    return failure();
  std::string key = "vmap:" + (*inner)->symbol + ":" + std::to_string(size);
  for (int64_t a : leafAxes)
    key += "_" + std::to_string(a);
  key += ":";
  for (int64_t a : outLeafAxes)
    key += "_" + std::to_string(a);
  auto cached = gradCache.find(key);
  if (cached != gradCache.end())
    return cached->second;
  Specialization *s = generatedSpec(**inner, key,
                                    (*inner)->symbol + ".vmap_call" +
                                        std::to_string(gradCache.size()));
  s->argTypes.clear();
  for (const Type &t : argTypes)
    s->argTypes.push_back(t.strong());
  s->resultType = *result;
  s->vmapOf = *inner;
  s->vmapInAxes = std::move(leafAxes);
  s->vmapOutAxes = std::move(outLeafAxes);
  return s;
}
