//===- SemaRecords.cpp - Records: construction, fields, methods -----------===//
//
// A record is an instance of a `class` with annotated fields; its type is
// the class and the types of its field values (so one class makes a record
// type per distinct field shapes, as functions specialize per argument
// types). Annotations are checked at construction and `replace`, with named
// dims agreeing across one record's fields. Methods take the record as
// their first parameter; `p.method` is a method bound to p, and a record
// whose class defines `__call__` is callable. Attribute access also reads
// an imported module's definitions (`nn.dense`).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

FailureOr<Type> SemaImpl::analyzeAttribute(const AttributeExpr *expr) {
  FailureOr<Type> value = analyzeExpr(expr->value.get());
  if (failed(value))
    return failure();
  const std::string &attr = expr->attr;
  switch (value->kind) {
  case Type::Kind::Module: {
    const Scope &scope = scopes[value->module];
    if (std::optional<FailureOr<Type>> t = lookupGlobal(scope, attr, expr))
      return *t;
    error(expr->getBegin())
        << "module '" << value->module->name
        << "' has no function, class or constant '" << attr << "'";
    return failure();
  }
  case Type::Kind::Record: {
    std::vector<const AnnAssignStmt *> fields = fieldsOf(*value->cls);
    for (size_t i = 0; i < fields.size(); ++i)
      if (cast<NameExpr>(fields[i]->target.get())->name == attr) {
        frame->spec->tupleIndices[expr] = i;
        return value->elements[i];
      }
    if (const FuncDef *method = methodOf(*value->cls, attr))
      return Type::boundMethod(method, *value);
    if (attr == "replace")
      return Type::builtin("replace");
    error(expr->getBegin())
        << "a " << value->cls->name << " record has no field or method '"
        << attr << "'";
    return failure();
  }
  case Type::Kind::Class:
    if (const FuncDef *method = methodOf(*value->cls, attr))
      return Type::function(method);
    error(expr->getBegin())
        << "class " << value->cls->name << " has no method '" << attr
        << "' (fields are read from a record)";
    return failure();
  case Type::Kind::Tensor:
    return analyzeTensorAttribute(expr, *value);
  default:
    error(expr->getBegin())
        << value->str() << " has no attribute '" << attr << "'";
    return failure();
  }
}

/// What the PyTorch tensor method `name` (one TFL's tensors do not have) is
/// in TFL, for the error that names it, if it is one TFL has a form of.
static std::optional<std::string> pytorchMethodHint(llvm::StringRef name) {
  // What a PyTorch tensor method is in TFL, for code ported from PyTorch
  // (nanoGPT's model.py reaches for most of these).
  static const llvm::StringMap<const char *> hints = {
      {"view", "x.reshape(...)"},
      {"view_as", "x.reshape(y.shape)"},
      {"contiguous", "x itself (TFL's tensors are values, with no memory "
                     "layout to make contiguous)"},
      {"masked_fill", "where(mask, value, x)"},
      {"permute", "x.transpose(...)"},
      {"unsqueeze", "expand_dims(x, axis), or x[:, None]"},
      {"expand", "broadcast_to(x, shape)"},
      {"expand_as", "broadcast_to(x, y.shape)"},
      {"repeat", "tile(x, reps)"},
      {"numel", "x.size"},
      {"dim", "x.ndim"},
      {"item", "x itself (a 0-d tensor is a scalar: print, f-strings and "
               "arithmetic take it)"},
      {"detach", "stop_gradient(x)"},
      {"clamp", "x.clip(lo, hi)"},
      {"type_as", "x.astype(y.dtype)"},
      {"mm", "x @ y"},
      {"bmm", "x @ y"},
      {"float", "x.astype(f32)"},
      {"double", "x.astype(f64)"},
      {"half", "x.astype(f16)"},
      {"bfloat16", "x.astype(bf16)"},
      {"int", "x.astype(i32)"},
      {"long", "x.astype(i64)"},
      {"bool", "x.astype(bool)"},
      {"to", "x.astype(dtype) for a dtype (`with device(...)` blocks and "
             "--device cuda place work)"},
      {"cpu", "x itself (`with device(...)` blocks and --device cuda place "
              "work)"},
      {"cuda", "x itself (`with device(...)` blocks and --device cuda place "
               "work)"}};
  auto it = hints.find(name);
  if (it != hints.end())
    return "in TFL, PyTorch's x." + name.str() + "(...) is " + it->second;
  // In-place methods (add_, zero_, ...): TFL's tensors are values.
  if (name.size() > 1 && name.ends_with("_") && !name.starts_with("_"))
    return "TFL's tensors are values, not updated in place: PyTorch's x." +
           name.str() + "(...) is an assignment, x = ...";
  // A built-in function of that name (exp, log, softmax, matmul, ...).
  if (Builtin::named(name))
    return "TFL has the function " + name.str() + "(x, ...)";
  return std::nullopt;
}

FailureOr<Type> SemaImpl::analyzeTensorAttribute(const AttributeExpr *expr,
                                                 const Type &x) {
  // NumPy's: x.shape is shape(x), x.size size(x), x.T the reversed axes.
  const std::string &attr = expr->attr;
  auto known = [&]() -> FailureOr<Type> {
    frame->spec->tensorAttributes[expr] = attr;
    if (attr == "ndim")
      return Type::knownInt(x.rank(), /*weak=*/false);
    if (attr == "dtype")
      return Type::dtypeValue(x.dtype);
    if (attr == "T") {
      std::vector<int64_t> shape(x.shape.rbegin(), x.shape.rend());
      return Type::tensor(x.dtype, shape, x.weak);
    }
    if (attr == "shape")
      return Type::shapeOf(x); // a `?` dim is a batch size
    if (llvm::is_contained(x.shape, kDynamicDim)) {
      error(expr->getBegin()) << "x." << attr << " of " << x.str()
                              << " is known only when the program runs";
      return failure();
    }
    int64_t n = 1;
    for (int64_t d : x.shape)
      n *= d;
    return Type::knownInt(n, /*weak=*/false);
  };
  if (llvm::is_contained({"shape", "ndim", "size", "dtype", "T"}, attr))
    return known();
  if (tensorMethods().contains(attr)) {
    error(expr->getBegin()) << "x." << attr << " is a method of tensors: call "
                            << "it where it is read, x." << attr << "(...)";
    return failure();
  }
  auto diag = error(expr->getBegin());
  diag << "a tensor has no attribute '" << attr
       << "' (it has shape, ndim, size, dtype and T, and the methods "
       << llvm::join(sortedTensorMethods(), ", ") << ")";
  if (std::optional<std::string> hint = pytorchMethodHint(attr))
    diag << "; " << *hint;
  return failure();
}

const llvm::StringMap<llvm::StringRef> &tfl::sema::tensorMethods() {
  static const llvm::StringMap<llvm::StringRef> methods = {
      {"sum", "sum"},
      {"mean", "mean"},
      {"max", "max"},
      {"min", "min"},
      {"prod", "prod"},
      {"argmax", "argmax"},
      {"argmin", "argmin"},
      {"var", "var"},
      {"split", "split"},
      {"chunk", "chunk"},
      {"std", "std"},
      {"reshape", "reshape"},
      {"transpose", "transpose"},
      {"flatten", "reshape"},
      {"astype", "cast"},
      {"squeeze", "squeeze"},
      {"clip", "clip"},
      {"dot", "matmul"},
      {"round", "round"}};
  return methods;
}

std::vector<std::string> SemaImpl::sortedTensorMethods() {
  std::vector<std::string> names;
  for (const auto &m : tensorMethods())
    names.push_back(m.getKey().str());
  llvm::sort(names);
  return names;
}

FailureOr<Type> SemaImpl::analyzeTensorMethod(const CallExpr *expr,
                                              const AttributeExpr *method) {
  // NumPy's ndarray methods, as the built-ins they name: the receiver is
  // the first argument. Shapes and permutations may be spread over the
  // arguments (`x.reshape(2, 3)`, `x.transpose(1, 0)`), as NumPy allows,
  // and `x.flatten()` is reshape(x, (-1,)).
  const std::string &name = method->attr;
  llvm::StringRef builtin = tensorMethods().find(name)->second;
  bool spreads = name == "reshape" || name == "transpose";
  bool pack = false;
  if (spreads && expr->args.size() > 1)
    pack = true;
  if (spreads && expr->args.size() == 1) {
    FailureOr<Type> only = analyzeExpr(expr->args[0].get());
    if (failed(only))
      return failure();
    pack = only->isScalar() && !isFloat(only->dtype);
  }
  if (name == "flatten" && (!expr->args.empty() || !expr->keywords.empty())) {
    error(expr->getBegin()) << "x.flatten() takes no arguments";
    return failure();
  }
  const CallExpr *&call = methodCalls[{expr, name, pack}];
  if (!call) {
    std::vector<ExprPtr> extra;
    if (name == "flatten") {
      std::vector<ExprPtr> minusOne;
      minusOne.push_back(std::make_unique<IntExpr>(expr->getRange(), -1));
      extra.push_back(
          std::make_unique<TupleExpr>(expr->getRange(), std::move(minusOne)));
    }
    program->borrowedCalls.push_back(std::make_unique<BorrowedCall>(
        *expr, *method->value, builtin, pack, std::move(extra)));
    call = program->borrowedCalls.back()->get();
  }
  frame->spec->methodCalls[expr] = call;
  Builtin named = *Builtin::named(builtin);
  frame->spec->builtinCalls.insert_or_assign(call, BuiltinPlan(named));
  FailureOr<Type> result = analyzeBuiltin(call, named);
  if (failed(result))
    return failure();
  typeOf(call) = *result;
  return result;
}

/// The name of field `field`.
static llvm::StringRef fieldName(const AnnAssignStmt *field) {
  return cast<NameExpr>(field->target.get())->name;
}

/// The position of the field named `name`, if there is one.
static std::optional<size_t>
fieldIndex(const std::vector<const AnnAssignStmt *> &fields,
           llvm::StringRef name) {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fieldName(fields[i]) == name)
      return i;
  return std::nullopt;
}

FailureOr<Type> SemaImpl::analyzeConstruct(const CallExpr *expr,
                                           const ClassDef *cls) {
  std::vector<const AnnAssignStmt *> fields = fieldsOf(*cls);
  std::vector<const Expr *> values(fields.size(), nullptr);
  if (expr->args.size() > fields.size()) {
    error(expr->getBegin())
        << cls->name << "() takes " << fields.size() << " field"
        << (fields.size() == 1 ? "" : "s") << " but " << expr->args.size()
        << " values were given";
    return failure();
  }
  for (size_t i = 0; i < expr->args.size(); ++i)
    values[i] = expr->args[i].get();
  for (const Keyword &kw : expr->keywords) {
    std::optional<size_t> index = fieldIndex(fields, kw.name);
    if (!index) {
      error(kw.range.begin) << cls->name << " has no field '" << kw.name << "'";
      return failure();
    }
    if (values[*index]) {
      error(kw.range.begin) << cls->name << "() got multiple values for field '"
                            << kw.name << "'";
      return failure();
    }
    values[*index] = kw.value.get();
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (values[i])
      continue;
    if (!fields[i]->value) {
      error(expr->getBegin())
          << cls->name << "() missing field '" << fieldName(fields[i]) << "'";
      return failure();
    }
    values[i] = fields[i]->value.get();
  }
  std::vector<Type> types;
  for (const Expr *v : values) {
    FailureOr<Type> t = analyzeExpr(v);
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  FailureOr<Type> record = checkFields(cls, values, types);
  if (failed(record))
    return failure();
  frame->spec->constructions[expr] = std::move(values);
  return record;
}

FailureOr<Type> SemaImpl::checkFields(const ClassDef *cls,
                                      llvm::ArrayRef<const Expr *> values,
                                      std::vector<Type> types) {
  std::vector<const AnnAssignStmt *> fields = fieldsOf(*cls);
  DimBindings dims;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!types[i].hasValues()) {
      error(values[i]->getBegin())
          << "field '" << fieldName(fields[i]) << "' of " << cls->name
          << " holds tensors, tuples or records, not " << types[i].str();
      return failure();
    }
    Type adjusted;
    if (failed(checkAnnotation(
            fields[i]->annotation.get(), types[i], dims,
            "field '" + fieldName(fields[i]).str() + "' of " + cls->name,
            values[i]->getBegin(), adjusted, classScope.lookup(cls))))
      return failure();
    // A record keeps concrete dtypes: a literal takes the annotated one.
    if (types[i].weak)
      coerce(values[i], adjusted.dtype);
    types[i] = adjusted.strong();
  }
  return Type::record(cls, std::move(types));
}

FailureOr<Type> SemaImpl::analyzeReplace(const CallExpr *expr,
                                         const Type &record) {
  const ClassDef *cls = record.cls;
  if (!expr->args.empty()) {
    error(expr->getBegin()) << "replace() takes fields by keyword: "
                            << "p.replace(name=value)";
    return failure();
  }
  std::vector<const AnnAssignStmt *> fields = fieldsOf(*cls);
  std::vector<const Expr *> changed(fields.size(), nullptr);
  std::vector<Type> types = record.elements;
  for (const Keyword &kw : expr->keywords) {
    std::optional<size_t> index = fieldIndex(fields, kw.name);
    if (!index) {
      error(kw.range.begin) << cls->name << " has no field '" << kw.name << "'";
      return failure();
    }
    if (changed[*index]) {
      error(kw.range.begin) << "replace() got field '" << kw.name << "' twice";
      return failure();
    }
    FailureOr<Type> t = analyzeExpr(kw.value.get());
    if (failed(t))
      return failure();
    changed[*index] = kw.value.get();
    types[*index] = *t;
  }
  // Unchanged fields keep their value; errors point at the call.
  std::vector<const Expr *> at(fields.size(), expr);
  for (size_t i = 0; i < fields.size(); ++i)
    if (changed[i])
      at[i] = changed[i];
  FailureOr<Type> result = checkFields(cls, at, std::move(types));
  if (failed(result))
    return failure();
  frame->spec->replacements[expr] = std::move(changed);
  return result;
}
