//===- SemaSequences.cpp - Strings and tuples, as Python's ----------------===//
//
// Strings are values known at compile time (their text is part of their
// type), tuples are trees: both concatenate with `+`, repeat with `*` by an
// integer known at compile time, have a len() known at compile time, and
// are indexed and sliced with Python's rules. Strings also compare (==, !=,
// <, ...) at compile time, convert with str(), and f-strings of values
// known at compile time are strings wherever a string is taken.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "tflrt/Flags.h"
#include "tflrt/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"

#include <algorithm>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

/// The longest string or tuple a program may build by repetition or
/// concatenation (they exist while compiling).
static constexpr int64_t kMaxSequence = 1 << 20;

static bool isSequence(const Type &t) {
  return t.kind == Type::Kind::String || t.kind == Type::Kind::Tuple;
}

/// The error for text known only when the program runs (a string flag's
/// value, str(x) of a computed value) where it is needed when compiling.
static const char *kRuntimeText =
    " is known only when the program runs: it can be concatenated with "
    "strings and printed (and, holding only string flags' values, name a "
    "file)";

static const char *sequenceName(const Type &t) {
  return t.kind == Type::Kind::String ? "str" : "tuple";
}

static int64_t lengthOf(const Type &t) {
  return t.kind == Type::Kind::String ? static_cast<int64_t>(t.name.size())
                                      : static_cast<int64_t>(t.elements.size());
}

/// The elements of `seq` at `indices`, as a sequence of its kind.
static Type select(const Type &seq, llvm::ArrayRef<int64_t> indices) {
  if (seq.kind == Type::Kind::String) {
    std::string s;
    for (int64_t i : indices)
      s += seq.name[i];
    return Type::string(s);
  }
  std::vector<Type> elements;
  for (int64_t i : indices)
    elements.push_back(seq.elements[i]);
  return Type::tuple(std::move(elements));
}

std::string tfl::escapeBraces(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '{' || c == '}')
      out += c;
  }
  return out;
}

std::string tfl::pathWithDefaults(llvm::StringRef pathTemplate,
                                  llvm::ArrayRef<FlagInfo> flags) {
  return tflrt::expandTemplate(pathTemplate.str(),
                               [&](const std::string &name) {
                                 for (const FlagInfo &f : flags)
                                   if (f.isString && f.name == name)
                                     return f.defaultText;
                                 return std::string();
                               });
}

/// A string's path template: a flag's string is one already; a string
/// known at compile time stands for itself.
static std::string templateOf(const Type &t) {
  return t.kind == Type::Kind::RuntimeString ? t.name : escapeBraces(t.name);
}

static bool isText(const Type &t) {
  return t.kind == Type::Kind::String || t.kind == Type::Kind::RuntimeString;
}

FailureOr<Type> SemaImpl::sequenceBinary(BinaryOp op, const Type &lhs,
                                         const Type &rhs, Position at) {
  // A string with a flag's value: concatenated (and repeated) as text
  // whose value the run gives.
  if (lhs.kind == Type::Kind::RuntimeString ||
      rhs.kind == Type::Kind::RuntimeString) {
    if (op == BinaryOp::Add && isText(lhs) && isText(rhs)) {
      std::vector<Type> values = lhs.elements;
      llvm::append_range(values, rhs.elements);
      return Type::runtimeString(templateOf(lhs) + templateOf(rhs),
                                 std::move(values));
    }
    const Type &text = isText(lhs) ? lhs : rhs;
    const Type &count = isText(lhs) ? rhs : lhs;
    if (op == BinaryOp::Mul && count.isScalar() && count.known &&
        !isText(count)) {
      int64_t n = std::max<int64_t>(0, *count.known);
      std::string once = templateOf(text), repeated;
      if (n > 0 && static_cast<int64_t>(once.size()) > kMaxSequence / n) {
        error(at) << "a str longer than " << kMaxSequence
                  << " is too long to make when compiling";
        return failure();
      }
      std::vector<Type> values;
      for (int64_t k = 0; k < n; ++k) {
        repeated += once;
        llvm::append_range(values, text.elements);
      }
      return Type::runtimeString(repeated, std::move(values));
    }
    error(at) << "unsupported operand types for " << spelling(op) << ": "
              << lhs.str() << " and " << rhs.str()
              << " (a string known when the program runs is concatenated "
                 "with strings)";
    return failure();
  }
  if (op == BinaryOp::Add && lhs.kind == rhs.kind) {
    if (lengthOf(lhs) + lengthOf(rhs) > kMaxSequence) {
      error(at) << "a " << sequenceName(lhs) << " longer than " << kMaxSequence
                << " is too long to make when compiling";
      return failure();
    }
    if (lhs.kind == Type::Kind::String)
      return Type::string(lhs.name + rhs.name);
    std::vector<Type> elements = lhs.elements;
    llvm::append_range(elements, rhs.elements);
    return Type::tuple(std::move(elements));
  }
  if (op == BinaryOp::Add && isSequence(lhs)) {
    error(at) << "can only concatenate " << sequenceName(lhs) << " (not "
              << rhs.str() << ") to " << sequenceName(lhs);
    return failure();
  }
  if (op == BinaryOp::Mul && isSequence(lhs) != isSequence(rhs)) {
    const Type &seq = isSequence(lhs) ? lhs : rhs;
    const Type &count = isSequence(lhs) ? rhs : lhs;
    if (!count.isScalar() || isFloat(count.dtype) ||
        count.dtype == DType::Bool || !count.known) {
      error(at) << "a " << sequenceName(seq)
                << " is repeated by an integer known at compile time, not "
                << count.str();
      return failure();
    }
    int64_t n = std::max<int64_t>(0, *count.known);
    if (n > 0 && lengthOf(seq) > kMaxSequence / n) {
      error(at) << "a " << sequenceName(seq) << " longer than " << kMaxSequence
                << " is too long to make when compiling";
      return failure();
    }
    std::vector<int64_t> indices;
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < lengthOf(seq); ++i)
        indices.push_back(i);
    return select(seq, indices);
  }
  error(at) << "unsupported operand types for " << spelling(op) << ": "
            << lhs.str() << " and " << rhs.str();
  return failure();
}

/// Whether `x` is in `seq`: a substring of a string, or an element of a
/// tuple (strings and integers known at compile time compare by value);
/// nullopt when that is not known when compiling.
static std::optional<bool> contains(const Type &seq, const Type &x) {
  if (seq.kind == Type::Kind::String)
    return x.kind == Type::Kind::String
               ? std::optional<bool>(seq.name.find(x.name) != std::string::npos)
               : std::nullopt;
  if (seq.kind != Type::Kind::Tuple)
    return std::nullopt;
  auto known = [](const Type &t) {
    return t.kind == Type::Kind::String || (t.isScalar() && t.known);
  };
  if (!known(x))
    return std::nullopt;
  for (const Type &e : seq.elements) {
    if (!known(e))
      return std::nullopt;
    if (e.kind == x.kind &&
        (e.kind == Type::Kind::String ? e.name == x.name
                                      : *e.known == *x.known))
      return true;
  }
  return false;
}

FailureOr<Type> SemaImpl::analyzeStringCompare(const CompareExpr *expr,
                                               llvm::ArrayRef<Type> types) {
  bool result = true;
  for (size_t i = 0; i < expr->ops.size(); ++i) {
    const Type &a = types[i], &b = types[i + 1];
    if (a.kind == Type::Kind::RuntimeString ||
        b.kind == Type::Kind::RuntimeString) {
      error(expr->operands[i]->getBegin())
          << "comparing a string that" << kRuntimeText;
      return failure();
    }
    if (expr->ops[i] == CompareOp::In || expr->ops[i] == CompareOp::NotIn) {
      std::optional<bool> found = contains(b, a);
      if (!found) {
        error(expr->operands[i]->getBegin())
            << "'" << spelling(expr->ops[i])
            << "' tests a string in a string, or a value known at compile "
               "time (a string, an integer) in a tuple of such values; got "
            << a.str() << " " << spelling(expr->ops[i]) << " " << b.str();
        return failure();
      }
      result &= expr->ops[i] == CompareOp::In ? *found : !*found;
      continue;
    }
    if (a.kind != Type::Kind::String || b.kind != Type::Kind::String) {
      error(expr->operands[i]->getBegin())
          << "cannot compare " << a.str() << " " << spelling(expr->ops[i])
          << " " << b.str();
      return failure();
    }
    int c = a.name.compare(b.name);
    switch (expr->ops[i]) {
    case CompareOp::Lt:
      result &= c < 0;
      break;
    case CompareOp::Le:
      result &= c <= 0;
      break;
    case CompareOp::Gt:
      result &= c > 0;
      break;
    case CompareOp::Ge:
      result &= c >= 0;
      break;
    case CompareOp::Eq:
      result &= c == 0;
      break;
    case CompareOp::Ne:
      result &= c != 0;
      break;
    case CompareOp::In:
    case CompareOp::NotIn:
      break;
    }
  }
  frame->spec->knownBools[expr] = result;
  return Type::tensor(DType::Bool, {});
}

FailureOr<std::vector<int64_t>>
SemaImpl::sequenceIndices(const SubscriptExpr *expr, int64_t length,
                          bool &isSlice) {
  auto fail = [&](const Expr *at, const llvm::Twine &msg) {
    error(at->getBegin()) << msg.str();
    return failure();
  };
  if (expr->indices.size() != 1)
    return fail(expr, "a string or tuple takes one index or slice");
  const Expr *item = expr->indices[0].get();
  auto known = [&](const Expr *e) -> FailureOr<std::optional<int64_t>> {
    if (!e)
      return std::optional<int64_t>();
    std::optional<int64_t> v = knownInt(e);
    if (!v) {
      (void)fail(e, "a string or tuple is indexed by integers known at "
                    "compile time");
      return failure();
    }
    return v;
  };
  auto *slice = dyn_cast<SliceExpr>(item);
  isSlice = slice != nullptr;
  if (!slice) {
    FailureOr<std::optional<int64_t>> k = known(item);
    if (failed(k))
      return failure();
    int64_t i = **k < 0 ? **k + length : **k;
    if (i < 0 || i >= length)
      return fail(item, "index " + llvm::Twine(**k) + " is out of range for " +
                            llvm::Twine(length) + " elements");
    return std::vector<int64_t>{i};
  }
  FailureOr<std::optional<int64_t>> lo = known(slice->lo.get()),
                                    hi = known(slice->hi.get()),
                                    step = known(slice->step.get());
  if (failed(lo) || failed(hi) || failed(step))
    return failure();
  // Python's slice.indices(length).
  int64_t s = step->value_or(1);
  if (s == 0)
    return fail(slice->step.get(), "slice step cannot be zero");
  auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
    if (!v)
      return fallback;
    int64_t x = *v < 0 ? *v + length : *v;
    if (s > 0)
      return std::clamp<int64_t>(x, 0, length);
    return std::clamp<int64_t>(x, -1, length - 1);
  };
  int64_t start = clamp(*lo, s > 0 ? 0 : length - 1);
  int64_t stop = clamp(*hi, s > 0 ? length : -1);
  std::vector<int64_t> indices;
  for (int64_t i = start; s > 0 ? i < stop : i > stop; i += s)
    indices.push_back(i);
  return indices;
}

FailureOr<Type> SemaImpl::analyzeSequenceSubscript(const SubscriptExpr *expr,
                                                   const Type &seq) {
  if (seq.kind == Type::Kind::RuntimeString) {
    error(expr->getBegin()) << "indexing a string that" << kRuntimeText;
    return failure();
  }
  bool isSlice = false;
  FailureOr<std::vector<int64_t>> indices =
      sequenceIndices(expr, lengthOf(seq), isSlice);
  if (failed(indices))
    return failure();
  if (seq.kind == Type::Kind::Tuple) {
    if (!isSlice) {
      frame->spec->tupleIndices[expr] = indices->front();
      return seq.elements[indices->front()];
    }
    frame->spec->tupleSlices[expr] = *indices;
  }
  return select(seq, *indices);
}

FailureOr<Type> SemaImpl::analyzeEncodeDecode(const CallExpr *expr,
                                              llvm::StringRef name) {
  FailureOr<std::vector<const Expr *>> args =
      name == "encode" ? matchBuiltinArgs(expr, name, {"s", "size"}, 1)
                       : matchBuiltinArgs(expr, name, {"x"}, 1);
  if (failed(args))
    return failure();
  const Expr *arg = args->front();
  FailureOr<Type> t = analyzeExpr(arg);
  if (failed(t))
    return failure();
  if (name == "encode") {
    // Python's s.encode(): the string's UTF-8 bytes. With size=N, TF's
    // decode_raw(fixed_length=N): the first N bytes, zero-padded, of a
    // string known at compile time or of text that string flags' values
    // fill in when the program runs.
    std::optional<int64_t> size;
    if (const Expr *sizeExpr = (*args)[1]) {
      size = knownInt(sizeExpr);
      if (!size || *size < 0) {
        error(sizeExpr->getBegin()) << "encode()'s size must be an integer "
                                       "of 0 or more known at compile time";
        return failure();
      }
    }
    if (t->kind == Type::Kind::RuntimeString && !t->elements.empty()) {
      error(arg->getBegin())
          << "encode() takes text that may hold string flags' values, but "
             "not values the program computes (str(x), f-string fields of "
             "tensors)";
      return failure();
    }
    if (t->kind == Type::Kind::RuntimeString && !size) {
      error(arg->getBegin())
          << "encode() of a string known only when the program runs needs "
             "size=N, its tensor's length (the first N bytes, zero-padded)";
      return failure();
    }
    if (t->kind != Type::Kind::String && t->kind != Type::Kind::RuntimeString) {
      error(arg->getBegin()) << "encode() takes a string, got " << t->str();
      return failure();
    }
    return Type::tensor(DType::U8,
                        {size.value_or(static_cast<int64_t>(t->name.size()))});
  }
  // bytes(x).decode(): text of the run that prints a 1-D u8 tensor's
  // bytes as they are.
  if (!t->isTensor() || t->dtype != DType::U8 || t->rank() != 1) {
    error(arg->getBegin()) << "decode() takes a 1-D u8 tensor of bytes, got "
                           << t->str();
    return failure();
  }
  return Type::runtimeString("{:s}", {t->strong()});
}

FailureOr<Type> SemaImpl::analyzeLenStr(const CallExpr *expr,
                                        llvm::StringRef name) {
  if (expr->args.size() != 1 || !expr->keywords.empty()) {
    error(expr->getBegin()) << name << "() takes one argument";
    return failure();
  }
  const Expr *arg = expr->args[0].get();
  FailureOr<Type> t = analyzeExpr(arg);
  if (failed(t))
    return failure();
  if (t->kind == Type::Kind::RuntimeString) {
    error(arg->getBegin()) << name << "() of a string that" << kRuntimeText;
    return failure();
  }
  if (name == "len") {
    // Python's len of a string or tuple, NumPy's of an array (its first
    // dim).
    // A Python int: weak, as a literal (`x / len(x)` stays f32).
    if (isSequence(*t))
      return Type::knownInt(lengthOf(*t));
    if (t->isTensor() && t->rank() > 0 && t->shape[0] != kDynamicDim)
      return Type::knownInt(t->shape[0]);
    if (t->isTensor() && t->rank() > 0) {
      error(arg->getBegin())
          << "len() of " << t->str() << " is known only when the program runs";
      return failure();
    }
    error(arg->getBegin()) << "len() of " << t->str()
                           << (t->isScalar() ? ": a 0-d tensor has no length"
                                             : ": it has no length");
    return failure();
  }
  // str(x) of a value known at compile time.
  if (t->kind == Type::Kind::String)
    return *t;
  if (t->isScalar() && t->known)
    return Type::string(std::to_string(*t->known));
  if (std::optional<double> f = knownNumber(arg)) // a float known too
    return Type::string(tflrt::formatFloatScalar(*f, tflrt::DType::F64));
  if (auto *b = dyn_cast<BoolExpr>(arg))
    return Type::string(b->value ? "True" : "False");
  if (t->isTensor()) {
    // A value of the run: text known when the program runs, shown as
    // print shows it (`str(loss)`: "0.25").
    if (t->weak)
      coerce(arg, t->dtype);
    return Type::runtimeString("{}", {t->strong()});
  }
  error(arg->getBegin()) << "str() of " << t->str()
                         << " is not supported: it takes strings, numbers and "
                            "tensors";
  return failure();
}

FailureOr<Type> SemaImpl::knownFString(const FStringExpr *expr) {
  if (failed(analyzeFString(expr)))
    return failure();
  // The text, and its path template should a field hold a flag's string.
  std::string text, pathTemplate;
  bool runtime = false;
  std::vector<Type> values;
  std::vector<const Expr *> fields;
  auto add = [&](const std::string &s) {
    text += s;
    pathTemplate += escapeBraces(s);
  };
  for (const FStringExpr::Part &part : expr->parts) {
    if (!part.expr) {
      add(part.text);
      continue;
    }
    const Type &t = typeOf(part.expr.get());
    if (t.kind == Type::Kind::String) {
      add(t.name);
      continue;
    }
    if (t.kind == Type::Kind::RuntimeString) {
      runtime = true;
      pathTemplate += t.name;
      llvm::append_range(values, t.elements);
      fields.push_back(part.expr.get());
      continue;
    }
    if (t.isScalar() && t.known) {
      int64_t v = *t.known;
      tflrt::TensorView view{tflrt::DType::I64, {}, {}, &v};
      add(part.spec.empty() ? std::to_string(v)
                            : tflrt::formatWithSpec(view, part.spec));
      continue;
    }
    if (std::optional<double> f = knownNumber(part.expr.get())) {
      double v = *f;
      tflrt::TensorView view{tflrt::DType::F64, {}, {}, &v};
      add(part.spec.empty() ? tflrt::formatFloatScalar(v, tflrt::DType::F64)
                            : tflrt::formatWithSpec(view, part.spec));
      continue;
    }
    if (t.isTensor()) {
      // A value of the run: the f-string is text known when it runs.
      runtime = true;
      pathTemplate += part.spec.empty() ? "{}" : "{:" + part.spec + "}";
      values.push_back(t.strong());
      fields.push_back(part.expr.get());
      continue;
    }
    error(part.expr->getBegin())
        << "an f-string field of type " << t.str() << " is not supported";
    return failure();
  }
  if (!fields.empty())
    frame->spec->textValues[expr] = std::move(fields);
  return runtime ? Type::runtimeString(pathTemplate, std::move(values))
                 : Type::string(text);
}

std::optional<Type> tfl::unpackedType(const TupleExpr &target,
                                      const Type &value) {
  if (value.kind != Type::Kind::Tuple)
    return std::nullopt;
  size_t n = target.elements.size(), m = value.elements.size();
  size_t star = n;
  for (size_t i = 0; i < n; ++i)
    if (isa<StarredExpr>(target.elements[i].get()))
      star = i;
  if (star == n)
    return m == n ? std::optional<Type>(value) : std::nullopt;
  if (m + 1 < n)
    return std::nullopt;
  // Before the star, one each; the star, the rest; after it, one each.
  std::vector<Type> grouped(value.elements.begin(),
                            value.elements.begin() + star);
  size_t restEnd = m - (n - 1 - star);
  grouped.push_back(Type::tuple(std::vector<Type>(
      value.elements.begin() + star, value.elements.begin() + restEnd)));
  grouped.insert(grouped.end(), value.elements.begin() + restEnd,
                 value.elements.end());
  return Type::tuple(std::move(grouped));
}

/// A fresh table for one unrolled copy of a body: it extends `parent`.
static std::unique_ptr<Specialization> unrolledTable(Specialization *parent) {
  auto s = std::make_unique<Specialization>();
  s->def = parent->def;
  s->module = parent->module;
  s->gradOf = parent->gradOf;
  s->symbol = parent->symbol;
  s->argTypes = parent->argTypes;
  s->captureNames = parent->captureNames;
  s->captureTypes = parent->captureTypes;
  s->resultType = parent->resultType;
  s->parent = parent;
  return s;
}

FailureOr<std::vector<Type>>
SemaImpl::unrolledElements(const Expr *iter,
                           const ComprehensionExpr *comprehension) {
  // range(...) of integers known at compile time gives known integers.
  auto *call = dyn_cast<CallExpr>(iter);
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (callee && callee->name == "range" && !frame->vars.count("range") &&
      comprehension) {
    std::vector<int64_t> bounds;
    for (const ExprPtr &arg : call->args) {
      std::optional<int64_t> v = knownInt(arg.get());
      if (!v) {
        error(arg->getBegin()) << "a comprehension over range(...) is "
                                  "unrolled: its bounds are integers known at "
                                  "compile time";
        return failure();
      }
      bounds.push_back(*v);
    }
    if (bounds.empty() || bounds.size() > 3 || !call->keywords.empty() ||
        (bounds.size() == 3 && bounds[2] == 0)) {
      error(call->getBegin()) << "range() takes 1 to 3 integers, and a step "
                                 "that is not zero";
      return failure();
    }
    int64_t start = bounds.size() > 1 ? bounds[0] : 0;
    int64_t stop = bounds.size() > 1 ? bounds[1] : bounds[0];
    int64_t step = bounds.size() > 2 ? bounds[2] : 1;
    std::vector<int64_t> values;
    std::vector<Type> elements;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (values.size() >= 10000) {
        error(call->getBegin()) << "a comprehension is unrolled: at most "
                                   "10000 elements";
        return failure();
      }
      values.push_back(i);
      elements.push_back(Type::knownInt(i)); // a Python int, as a literal
    }
    frame->spec->comprehensionRanges[comprehension] = values;
    return elements;
  }
  FailureOr<Type> seq = analyzeExpr(iter);
  if (failed(seq))
    return failure();
  if (seq->kind == Type::Kind::Tuple)
    return seq->elements;
  error(iter->getBegin())
      << (comprehension ? "a comprehension" : "this 'for'")
      << " is unrolled over a tuple"
      << (comprehension ? " or range(...) of integers known at compile time"
                        : "")
      << ", not " << seq->str();
  return failure();
}

LogicalResult SemaImpl::analyzeUnrolledFor(const ForStmt *stmt,
                                           const std::vector<Type> &elements) {
  if (hasBreak(stmt->body) || anyContinue(stmt->body)) {
    error(stmt->getBegin()) << "'break', 'continue' and 'return' in a 'for' "
                               "over a tuple are not supported yet";
    return failure();
  }
  // Straight-line code, once per element: each copy may give its names
  // other types (a model's layers of different shapes).
  Specialization *parent = frame->spec;
  std::vector<std::unique_ptr<Specialization>> &copies = parent->unrolled[stmt];
  copies.clear();
  llvm::scope_exit restore([&] { frame->spec = parent; });
  for (const Type &element : elements) {
    copies.push_back(unrolledTable(parent));
    frame->spec = copies.back().get();
    if (failed(bindTarget(stmt->target.get(), element)) ||
        failed(analyzeBlock(stmt->body)))
      return failure();
    frame->spec = parent;
  }
  return success();
}

FailureOr<Type> SemaImpl::analyzeComprehension(const ComprehensionExpr *expr) {
  FailureOr<std::vector<Type>> elements =
      unrolledElements(expr->iter.get(), expr);
  if (failed(elements))
    return failure();
  // The target's names are the comprehension's own (Python 3).
  llvm::StringMap<Type> vars = frame->vars;
  llvm::StringMap<Position> bound = frame->bound;
  llvm::StringSet<> conditional = frame->conditional;
  Specialization *parent = frame->spec;
  std::vector<std::unique_ptr<Specialization>> &copies = parent->unrolled[expr];
  copies.clear();
  llvm::scope_exit restore([&] {
    frame->spec = parent;
    frame->vars = std::move(vars);
    frame->bound = std::move(bound);
    frame->conditional = std::move(conditional);
  });
  std::vector<Type> results;
  for (const Type &element : *elements) {
    copies.push_back(unrolledTable(parent));
    frame->spec = copies.back().get();
    if (failed(bindTarget(expr->target.get(), element)))
      return failure();
    FailureOr<Type> t = analyzeExpr(expr->element.get());
    if (failed(t))
      return failure();
    results.push_back(t->strong());
    frame->spec = parent;
  }
  return Type::tuple(std::move(results));
}

FailureOr<std::optional<int64_t>> SemaImpl::zipStart(const CallExpr *expr,
                                                     llvm::StringRef name) {
  bool counted = name == "enumerate";
  std::optional<int64_t> start;
  if (counted)
    start = 0;
  for (const Keyword &kw : expr->keywords) {
    if (!counted || kw.name != "start") {
      error(kw.range.begin) << name << "() got an unexpected keyword argument '"
                            << kw.name << "'";
      return failure();
    }
    start = knownInt(kw.value.get());
    if (!start) {
      error(kw.value->getBegin())
          << "enumerate()'s start is an integer known at compile time";
      return failure();
    }
  }
  if (counted && expr->args.size() != 1) {
    error(expr->getBegin()) << "enumerate() takes one tensor or tuple";
    return failure();
  }
  return start;
}

FailureOr<Type> SemaImpl::analyzeZip(const CallExpr *expr,
                                     llvm::StringRef name) {
  // Python's zip and enumerate, of tuples (they feed unrolled loops and
  // comprehensions): a tuple of tuples.
  auto fail = [&](const Expr *at, const llvm::Twine &msg) {
    error(at->getBegin()) << msg.str();
    return failure();
  };
  FailureOr<std::optional<int64_t>> counted = zipStart(expr, name);
  if (failed(counted))
    return failure();
  int64_t start = counted->value_or(0);
  std::vector<Type> seqs;
  for (const ExprPtr &arg : expr->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    if (t->kind != Type::Kind::Tuple)
      return fail(arg.get(),
                  name + "() takes tuples, not " + t->str() +
                      (t->isTensor() ? " (of tensors, it is the iterable of a "
                                       "'for': for i, row in enumerate(x))"
                                     : ""));
    seqs.push_back(*t);
  }
  size_t n = seqs.empty() ? 0 : seqs.front().elements.size();
  for (const Type &s : seqs)
    n = std::min(n, s.elements.size());
  std::vector<Type> rows;
  for (size_t k = 0; k < n; ++k) {
    std::vector<Type> row;
    if (name == "enumerate")
      row.push_back(Type::knownInt(start + static_cast<int64_t>(k)));
    for (const Type &s : seqs)
      row.push_back(s.elements[k]);
    rows.push_back(Type::tuple(std::move(row)));
  }
  return Type::tuple(std::move(rows));
}
