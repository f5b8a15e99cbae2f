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
  // An axis is an integer known at compile time or, for in_axes, None.
  auto axisOf = [&](const Expr *e, bool noneAllowed) -> std::optional<int64_t> {
    if (isa<NoneExpr>(e))
      return noneAllowed ? std::optional<int64_t>(kNotMapped) : std::nullopt;
    std::optional<std::vector<int64_t>> v = constInts(e);
    if (!v || v->size() != 1)
      return std::nullopt;
    return v->front();
  };
  // A tree prefix of a tuple argument: a tuple of axes, None and tuples.
  std::function<std::optional<Type>(const Expr *)> axesTree =
      [&](const Expr *e) -> std::optional<Type> {
    std::vector<const Expr *> items;
    if (auto *tuple = dyn_cast<TupleExpr>(e))
      for (const ExprPtr &item : tuple->elements)
        items.push_back(item.get());
    else if (auto *list = dyn_cast<ListExpr>(e))
      for (const ExprPtr &item : list->elements)
        items.push_back(item.get());
    else if (std::optional<int64_t> a = axisOf(e, true))
      return *a == kNotMapped ? Type::none() : Type::knownInt(*a);
    else
      return std::nullopt;
    std::vector<Type> children;
    for (const Expr *item : items) {
      std::optional<Type> child = axesTree(item);
      if (!child)
        return std::nullopt;
      children.push_back(std::move(*child));
    }
    return Type::tuple(std::move(children));
  };
  // in_axes' or out_axes' entries (in_axes' trees, for tuple arguments,
  // in `trees`).
  std::vector<Type> inTrees, outTrees;
  auto axesOf = [&](const Expr *e, llvm::StringRef name, bool noneAllowed,
                    std::vector<int64_t> &axes, bool &perValue,
                    std::vector<Type> &trees) -> LogicalResult {
    if (!e) {
      axes = {0};
      trees.resize(1);
      return success();
    }
    std::vector<const Expr *> items;
    if (auto *tuple = dyn_cast<TupleExpr>(e)) {
      for (const ExprPtr &item : tuple->elements)
        items.push_back(item.get());
      perValue = true;
    } else if (auto *list = dyn_cast<ListExpr>(e)) {
      for (const ExprPtr &item : list->elements)
        items.push_back(item.get());
      perValue = true;
    } else {
      items.push_back(e);
    }
    for (const Expr *item : items) {
      std::optional<int64_t> a = axisOf(item, noneAllowed);
      if (!a && noneAllowed && perValue) {
        // An entry for a tuple argument may be a tree prefix of it.
        if (std::optional<Type> tree = axesTree(item)) {
          axes.push_back(Type::kAxesTree);
          trees.resize(axes.size());
          trees.back() = std::move(*tree);
          continue;
        }
      }
      if (!a) {
        error(item->getBegin())
            << "vmap()'s " << name << " must be an integer known at compile "
            << "time" << (noneAllowed ? ", None," : "")
            << " or a tuple of them (one per "
            << (noneAllowed ? "argument, or a tuple of them for a tuple "
                              "argument"
                            : "result")
            << ")";
        return failure();
      }
      axes.push_back(*a);
    }
    trees.resize(axes.size());
    return success();
  };
  std::vector<int64_t> inAxes, outAxes;
  bool inTuple = false, outTuple = false;
  if (failed(axesOf((*args)[1], "in_axes", true, inAxes, inTuple, inTrees)) ||
      failed(
          axesOf((*args)[2], "out_axes", false, outAxes, outTuple, outTrees)))
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
  std::optional<size_t> sizedBy;
  std::vector<Type> examples;
  for (size_t i = 0; i < numArgs; ++i) {
    size_t entry = vmap.inAxesTuple ? i : 0;
    // One example of each leaf: the leaf without its dim `axis` (or whole,
    // not mapped), the axis of a tuple's elements from `tree`'s where
    // in_axes gives a tree prefix.
    std::function<FailureOr<Type>(const Type &, int64_t, const Type *)>
        example = [&](const Type &t, int64_t axis,
                      const Type *tree) -> FailureOr<Type> {
      if (tree) {
        if (t.kind != Type::Kind::Tuple ||
            t.elements.size() != tree->elements.size()) {
          error(argAt(i)) << "vmap()'s in_axes gives argument " << i
                          << " a tuple of " << tree->elements.size()
                          << " entries, but it is " << t.str()
                          << " (a tuple prefix is for a tuple of as many "
                             "elements)";
          return failure();
        }
        Type out = t.strong();
        for (size_t k = 0; k < out.elements.size(); ++k) {
          const Type &node = tree->elements[k];
          bool nested = node.kind == Type::Kind::Tuple;
          FailureOr<Type> inner = example(Type(t.elements[k]),
                                          nested       ? 0
                                          : node.known ? *node.known
                                                       : kNotMapped,
                                          nested ? &node : nullptr);
          if (failed(inner))
            return failure();
          out.elements[k] = *inner;
        }
        return out;
      }
      if (axis == kNotMapped) {
        leafAxes.insert(leafAxes.end(), t.leafCount(), -1);
        return t;
      }
      if (t.isTree()) {
        Type out = t.strong();
        for (Type &e : out.elements) {
          FailureOr<Type> inner = example(Type(e), axis, nullptr);
          if (failed(inner))
            return failure();
          e = *inner;
        }
        return out;
      }
      if (!t.isTensor()) {
        error(argAt(i)) << "vmap() maps argument " << i << ", of type "
                        << t.str()
                        << ", over a dim: only tensors and trees of them have "
                           "dims (give None in in_axes to pass it whole)";
        return failure();
      }
      std::optional<int64_t> a = normalized(axis, t.rank());
      if (!a) {
        error(argAt(i)) << "vmap()'s in_axes maps argument " << i
                        << " over dim " << axis << ", but it is " << t.str();
        return failure();
      }
      int64_t dim = t.shape[*a];
      if (dim == kDynamicDim) {
        error(argAt(i)) << "vmap() over a dim known only at run time is not "
                           "supported yet";
        return failure();
      }
      if (sizedBy && size != dim) {
        error(argAt(i)) << "vmap()'s mapped dims disagree: argument " << i
                        << " has " << dim << " along dim " << *a
                        << ", but argument " << *sizedBy << " has " << size;
        return failure();
      }
      size = dim;
      sizedBy = i;
      leafAxes.push_back(*a);
      std::vector<int64_t> shape = t.shape;
      shape.erase(shape.begin() + *a);
      return Type::tensor(t.dtype, std::move(shape));
    };
    bool isTree = vmap.inAxes[entry] == Type::kAxesTree;
    FailureOr<Type> e = example(argTypes[i], vmap.inAxes[entry],
                                isTree ? &vmap.inAxesTrees[entry] : nullptr);
    if (failed(e))
      return failure();
    examples.push_back(*e);
  }
  if (!sizedBy) {
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
