//===- Types.cpp - Types of TFL values in the frontend --------------------===//

#include "tfl/Frontend/Types.h"

#include "tfl/Frontend/AST.h"
#include <cctype>

#include "llvm/Support/Casting.h"

namespace tfl {

bool isInteger(DType dtype) {
  return dtype == DType::I32 || dtype == DType::I64 || dtype == DType::U8;
}

Type Type::tensor(DType dtype, std::vector<int64_t> shape, bool weak) {
  Type t;
  t.kind = Kind::Tensor;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.weak = weak;
  return t;
}

Type Type::string(std::string value) {
  Type t;
  t.kind = Kind::String;
  t.name = std::move(value);
  return t;
}

Type Type::runtimeString(std::string pathTemplate, std::vector<Type> values) {
  Type t;
  t.kind = Kind::RuntimeString;
  t.name = std::move(pathTemplate);
  t.elements = std::move(values);
  return t;
}

Type Type::function(const ast::FuncDef *def,
                    std::vector<std::string> captureNames,
                    std::vector<Type> captureTypes) {
  Type t;
  t.kind = Kind::Function;
  t.func = def;
  t.captureNames = std::move(captureNames);
  t.elements = std::move(captureTypes);
  return t;
}

Type Type::builtin(std::string name) {
  Type t;
  t.kind = Kind::Builtin;
  t.name = std::move(name);
  return t;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t;
  t.kind = Kind::Tuple;
  t.elements = std::move(elements);
  return t;
}

Type Type::dtypeValue(DType dtype) {
  Type t;
  t.kind = Kind::DType;
  t.dtype = dtype;
  return t;
}

Type Type::record(const ast::ClassDef *cls, std::vector<Type> fields) {
  Type t;
  t.kind = Kind::Record;
  t.cls = cls;
  t.elements = std::move(fields);
  return t;
}

Type Type::classValue(const ast::ClassDef *cls) {
  Type t;
  t.kind = Kind::Class;
  t.cls = cls;
  return t;
}

Type Type::moduleValue(const ast::Module *module) {
  Type t;
  t.kind = Kind::Module;
  t.module = module;
  return t;
}

Type Type::boundMethod(const ast::FuncDef *def, Type self) {
  Type t = function(def, {}, {std::move(self)});
  t.boundSelf = true;
  return t;
}

Type Type::knownInt(int64_t value, bool weak) {
  Type t = tensor(DType::I64, {}, weak);
  t.known = value;
  return t;
}

Type Type::grad(Type function, std::vector<int64_t> argnums, bool argnumsTuple,
                bool withValue, Jacobian jacobian) {
  Type t;
  t.kind = Kind::Grad;
  t.elements = {std::move(function)};
  t.argnums = std::move(argnums);
  t.argnumsTuple = argnumsTuple;
  t.withValue = withValue;
  t.jacobian = jacobian;
  return t;
}

Type Type::vmap(Type function, std::vector<int64_t> inAxes, bool inAxesTuple,
                std::vector<int64_t> outAxes, bool outAxesTuple,
                std::vector<Type> inAxesTrees) {
  Type t;
  t.kind = Kind::Vmap;
  t.elements = {std::move(function)};
  t.inAxes = std::move(inAxes);
  t.inAxesTuple = inAxesTuple;
  t.outAxes = std::move(outAxes);
  t.outAxesTuple = outAxesTuple;
  t.inAxesTrees = std::move(inAxesTrees);
  return t;
}

Type Type::checkpoint(Type function) {
  Type t;
  t.kind = Kind::Checkpoint;
  t.elements = {std::move(function)};
  return t;
}

Type Type::linear(Type function, Type primals, Jacobian direction) {
  Type t;
  t.kind = Kind::Linear;
  t.elements = {std::move(function), std::move(primals),
                tensor(DType::I64, {2})};
  t.jacobian = direction;
  return t;
}

Type Type::batchSize() {
  Type t = tensor(DType::I64, {});
  t.batch = true;
  return t;
}

Type Type::shapeOf(const Type &tensor) {
  std::vector<Type> dims;
  for (int64_t d : tensor.shape)
    dims.push_back(d == kDynamicDim ? batchSize()
                                    : knownInt(d, /*weak=*/false));
  return tuple(std::move(dims));
}

Type Type::strong() const {
  Type t = *this;
  t.weak = false;
  t.known.reset();
  t.batch = false;
  for (Type &e : t.elements)
    e = e.strong();
  return t;
}

std::string Type::str() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Tensor: {
    std::string s = std::string(dtypeName(dtype));
    if (shape.empty())
      return s;
    s += "[";
    for (size_t i = 0; i < shape.size(); ++i) {
      if (i)
        s += ", ";
      s += shape[i] == kDynamicDim ? "?" : std::to_string(shape[i]);
    }
    return s + "]";
  }
  case Kind::String:
    return "str";
  case Kind::RuntimeString:
    return elements.empty()
               ? "str (with a flag's value, known when the program runs)"
               : "str (with values known when the program runs)";
  case Kind::Function:
    return (boundSelf ? "method '" : "function '") + func->name + "'";
  case Kind::Builtin:
    return "built-in function '" + name + "'";
  case Kind::DType:
    return "dtype " + std::string(dtypeName(dtype));
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < elements.size(); ++i)
      s += (i ? ", " : "") + elements[i].str();
    return s + (elements.size() == 1 ? ",)" : ")");
  }
  case Kind::Record: {
    std::string s = cls->name + "(";
    std::vector<const ast::AnnAssignStmt *> fields = ast::fieldsOf(*cls);
    for (size_t i = 0; i < elements.size(); ++i)
      s += (i ? ", " : "") +
           llvm::cast<ast::NameExpr>(fields[i]->target.get())->name + ": " +
           elements[i].str();
    return s + ")";
  }
  case Kind::Class:
    return "class '" + cls->name + "'";
  case Kind::Module:
    return "module '" + module->name + "'";
  case Kind::Grad:
    if (jacobian != Jacobian::None)
      return (jacobian == Jacobian::Forward ? "jacfwd of " : "jacrev of ") +
             elements.front().str();
    return (withValue ? "value_and_grad of " : "grad of ") +
           elements.front().str();
  case Kind::Vmap:
    return "vmap of " + elements.front().str();
  case Kind::Checkpoint:
    return "checkpoint of " + elements.front().str();
  case Kind::Linear:
    return (jacobian == Jacobian::Reverse ? "vjp function of "
                                          : "linearized ") +
           elements.front().str();
  }
  return "?";
}

/// An axis in a mangled name: `n` for None, `m<k>` for -k.
static std::string mangleAxis(int64_t a) {
  return a == Type::kNotMapped ? std::string("n_")
         : a < 0               ? "m" + std::to_string(-a) + "_"
                               : std::to_string(a) + "_";
}

/// An in_axes tree prefix (a tuple of axes, None and tuples).
static std::string mangleAxesTree(const Type &tree) {
  if (tree.kind != Type::Kind::Tuple)
    return mangleAxis(tree.known ? *tree.known : Type::kNotMapped);
  std::string s = "T";
  for (const Type &e : tree.elements)
    s += mangleAxesTree(e);
  return s + "E";
}

/// A vmap's axes in a mangled name (an entry's tree, `trees[i]`, where
/// the entry is kAxesTree).
static std::string mangleAxes(const std::vector<int64_t> &axes, bool tuple,
                              const std::vector<Type> &trees = {}) {
  std::string s = tuple ? "t" : "";
  for (size_t i = 0; i < axes.size(); ++i)
    s += axes[i] == Type::kAxesTree ? mangleAxesTree(trees[i])
                                    : mangleAxis(axes[i]);
  return s;
}

std::string Type::mangle() const {
  switch (kind) {
  case Kind::Tensor: {
    std::string s = std::string(dtypeName(dtype));
    for (int64_t d : shape)
      s += "x" + (d == kDynamicDim ? std::string("d") : std::to_string(d));
    if (known) {
      uint64_t magnitude = static_cast<uint64_t>(*known);
      if (*known < 0)
        magnitude = 0 - magnitude;
      s += (*known < 0 ? "km" : "k") + std::to_string(magnitude);
    }
    if (batch)
      s += "b";
    return weak ? s + "w" : s;
  }
  case Kind::Tuple: {
    std::string s = "T";
    for (const Type &e : elements)
      s += e.mangle() + "_";
    return s + "E";
  }
  case Kind::Function: {
    // Unique per definition (a lambda by its position) and captures.
    std::string name = func->name == "<lambda>" ? "lambda" : func->name;
    std::string s = (boundSelf ? "M" : "F") + name + "L" +
                    std::to_string(func->namePos.line) + "C" +
                    std::to_string(func->namePos.col);
    for (const Type &e : elements)
      s += "_" + e.mangle();
    return s + "E";
  }
  case Kind::Grad: {
    std::string s = jacobian == Jacobian::Forward   ? "JF"
                    : jacobian == Jacobian::Reverse ? "JR"
                    : withValue                     ? "VG"
                                                    : "G";
    for (int64_t a : argnums)
      s += std::to_string(a) + "_";
    return s + (argnumsTuple ? "t" : "") + elements.front().mangle() + "E";
  }
  case Kind::Vmap:
    return "V" + mangleAxes(inAxes, inAxesTuple, inAxesTrees) + "O" +
           mangleAxes(outAxes, outAxesTuple) + elements.front().mangle() + "E";
  case Kind::Checkpoint:
    return "C" + elements.front().mangle() + "E";
  case Kind::Linear:
    return (jacobian == Jacobian::Reverse ? "LR" : "LF") +
           elements[0].mangle() + elements[1].mangle() + "E";
  case Kind::String:
  case Kind::RuntimeString: {
    // A string argument specializes its callee on its value (or template).
    std::string s = kind == Kind::String ? "S" : "P";
    for (unsigned char c : name) {
      if (std::isalnum(c)) {
        s += static_cast<char>(c);
        continue;
      }
      static const char *hex = "0123456789ABCDEF";
      s += std::string("_") + hex[c >> 4] + hex[c & 15];
    }
    for (const Type &e : elements) // a run-time string's values
      s += "_" + e.mangle();
    return s + "E";
  }
  case Kind::Record: {
    std::string s = "R" + cls->name + "_";
    for (const Type &e : elements)
      s += e.mangle() + "_";
    return s + "E";
  }
  default:
    return str();
  }
}

size_t Type::leafCount() const {
  if (isTensor())
    return 1;
  size_t n = 0;
  for (const Type &e : elements)
    n += e.leafCount();
  return n;
}

bool Type::operator==(const Type &other) const {
  return kind == other.kind && dtype == other.dtype && shape == other.shape &&
         weak == other.weak && known == other.known && batch == other.batch &&
         func == other.func && name == other.name &&
         elements == other.elements && captureNames == other.captureNames &&
         boundSelf == other.boundSelf && cls == other.cls &&
         module == other.module && argnums == other.argnums &&
         argnumsTuple == other.argnumsTuple && withValue == other.withValue &&
         jacobian == other.jacobian && inAxes == other.inAxes &&
         outAxes == other.outAxes && inAxesTuple == other.inAxesTuple &&
         inAxesTrees == other.inAxesTrees && outAxesTuple == other.outAxesTuple;
}

} // namespace tfl
