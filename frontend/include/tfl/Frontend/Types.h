//===- Types.h - Types of TFL values in the frontend ------------*- C++ -*-===//
//
// What Sema knows of a value at compile time: a tensor type (dtype and a
// static-or-dynamic shape; scalars are rank 0), a tree of values (a tuple, a
// record: an instance of a `class`), or a compile-time-only value (a
// string, a function, a built-in, a class, an imported module, None).
//
// A "weak" tensor type is a Python scalar literal's (`1`, `0.5`, and
// arithmetic on them): it takes the dtype of the tensor it meets, as in JAX,
// so `x * 2` keeps x's dtype (LANGUAGE.md section 3, promotion). It stays
// weak through variables and function arguments. A list literal is a
// strong tensor, as `jnp.array([1, 2])` is.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_TYPES_H
#define TFL_FRONTEND_TYPES_H

#include "tflrt/Tensor.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfl {

namespace ast {
struct ClassDef;
struct FuncDef;
struct Module;
} // namespace ast

/// The element types: libtflrt's, so that the frontend and the runtime
/// share one list (and its names: dtypeName, isFloat, isHalf).
using tflrt::DType;
using tflrt::dtypeName;
using tflrt::isFloat;        // f32, f64, bf16, f16
using tflrt::isHalf;         // bf16, f16
bool isInteger(DType dtype); // i32, i64, u8 (not bool)

/// A dim known only at run time.
constexpr int64_t kDynamicDim = -1;

struct Type {
  enum class Kind {
    None,
    Tensor,
    String,
    /// A string known only when the program runs: `name` is a template
    /// whose `{flag}` is a string flag's value (as in a path template,
    /// tflrt::expandPath), whose `{}` and `{:spec}` are the next of its
    /// values (`elements`: tensors, from str(x) and f-string fields, shown
    /// as print shows them), and whose `{{` and `}}` are braces. It may be
    /// concatenated and printed; one with flags only may be a file's path.
    RuntimeString,
    Function,
    Builtin,
    Tuple,
    DType,
    Record,
    Class,
    Module,
    Grad,
    /// vmap(f, in_axes, out_axes): the function `elements[0]` mapped over
    /// a batch dim of its arguments.
    Vmap,
    /// checkpoint(f) (remat(f)): the function `elements[0]`, whose
    /// intermediates a gradient recomputes instead of keeping.
    Checkpoint,
    /// The linear map of the function `elements[0]` at the primals
    /// `elements[1]` (a tuple), drawing as from the generator state
    /// `elements[2]`: `vjp(f, *primals)`'s vjp_fn (`jacobian` Reverse),
    /// or `linearize(f, *primals)`'s jvp function (Forward). Its leaves
    /// are f's, the primals' and the state.
    Linear
  };

  Kind kind = Kind::None;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  bool weak = false;
  /// The value of an integer scalar known at compile time (an int literal,
  /// arithmetic on them, a static dim from shape(x)), as a Python int is
  /// static under JAX's jit: it may size a shape. Functions specialize per
  /// known value. Lost where a value may differ (loops, branches, results).
  std::optional<int64_t> known;
  /// An i64 scalar that is a batch size: a `?` dim read by shape(x), known
  /// only when the program runs. It may size a `?` dim (reshape, zeros).
  bool batch = false;
  const ast::FuncDef *func = nullptr; // Function
  /// A method bound to its receiver (`model.forward`, or a record called
  /// through `__call__`): the receiver is `elements[0]` and the method's
  /// first argument.
  bool boundSelf = false;
  const ast::ClassDef *cls = nullptr;  // Record (fields are `elements`), Class
  const ast::Module *module = nullptr; // Module
  /// Grad: the gradient of the function `elements[0]` with respect to its
  /// arguments `argnums` (a tuple of gradients when `argnumsTuple`), and its
  /// value too when `withValue`.
  std::vector<int64_t> argnums;
  bool argnumsTuple = false;
  bool withValue = false;
  /// Grad: a Jacobian instead (jacfwd, by forward mode, or jacrev), with
  /// the output's dims first, then the input's.
  enum class Jacobian { None, Forward, Reverse };
  Jacobian jacobian = Jacobian::None;
  /// Vmap: each argument's batch dim (one for every argument unless
  /// `inAxesTuple`), kNotMapped for one passed whole to every example;
  /// each result's (one for every result unless `outAxesTuple`). Negative
  /// dims count from the end, as in Python.
  std::vector<int64_t> inAxes, outAxes;
  bool inAxesTuple = false, outAxesTuple = false;
  static constexpr int64_t kNotMapped = INT64_MIN;
  /// An in_axes entry given as a tree prefix of its tuple argument (JAX's
  /// `in_axes=((0, None), 0)`): the entry's tree is `inAxesTrees[i]`, a
  /// tuple whose leaves are known ints (a dim) or None (not mapped).
  static constexpr int64_t kAxesTree = INT64_MIN + 1;
  std::vector<Type> inAxesTrees;
  /// A function value's captured variables (a nested def or a lambda
  /// closing over its enclosing values); their types are `elements`.
  std::vector<std::string> captureNames;
  std::string name;           // Builtin's name; String's value
  std::vector<Type> elements; // Tuple, Record

  static Type none() { return Type(); }
  static Type tensor(DType dtype, std::vector<int64_t> shape,
                     bool weak = false);
  /// An i64 scalar whose value is known at compile time.
  static Type knownInt(int64_t value, bool weak = true);
  /// The i64 scalar shape(x) gives for a `?` dim (`batch`).
  static Type batchSize();
  /// shape(x) of a tensor type: its dims, known ints and batch sizes.
  static Type shapeOf(const Type &tensor);
  static Type string(std::string value);
  static Type runtimeString(std::string pathTemplate,
                            std::vector<Type> values = {});
  static Type function(const ast::FuncDef *def,
                       std::vector<std::string> captureNames = {},
                       std::vector<Type> captureTypes = {});
  static Type builtin(std::string name);
  static Type tuple(std::vector<Type> elements);
  /// A dtype named as a value (`f32` in `cast(x, f32)`).
  static Type dtypeValue(DType dtype);
  static Type record(const ast::ClassDef *cls, std::vector<Type> fields);
  static Type classValue(const ast::ClassDef *cls);
  static Type moduleValue(const ast::Module *module);
  static Type boundMethod(const ast::FuncDef *def, Type self);
  static Type grad(Type function, std::vector<int64_t> argnums,
                   bool argnumsTuple, bool withValue,
                   Jacobian jacobian = Jacobian::None);

  static Type vmap(Type function, std::vector<int64_t> inAxes, bool inAxesTuple,
                   std::vector<int64_t> outAxes, bool outAxesTuple,
                   std::vector<Type> inAxesTrees = {});
  static Type checkpoint(Type function);
  static Type linear(Type function, Type primals, Jacobian direction);
  /// A function value: a def or lambda, or a transform of one.
  bool isCallableValue() const {
    return kind == Kind::Function || kind == Kind::Grad || kind == Kind::Vmap ||
           kind == Kind::Checkpoint || kind == Kind::Linear;
  }

  bool isTensor() const { return kind == Kind::Tensor; }
  bool isScalar() const { return isTensor() && shape.empty(); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// A tuple or a record: a value made of other values.
  bool isTree() const { return kind == Kind::Tuple || kind == Kind::Record; }
  /// True when the value has run-time leaves (or is one): what variables
  /// may carry out of an `if` or around a loop.
  bool hasValues() const {
    return isTensor() || isTree() ||
           (kind == Kind::RuntimeString && !elements.empty());
  }

  /// How many tensors a value of this type is made of (its leaves, as
  /// MLIRGen flattens it: a tree's, a closure's captures, a run-time
  /// string's values).
  size_t leafCount() const;

  /// The same type without weakness or a known value (what a loop carries).
  Type strong() const;

  /// The type as TFL writes it: `f32[2, 3]`, `i64`, `str`, `(f32, f32)`.
  std::string str() const;
  /// A symbol-safe spelling for specialization names: `f32x2x3` (a weak
  /// literal's type ends in `w`).
  std::string mangle() const;

  bool operator==(const Type &other) const;
  bool operator!=(const Type &other) const { return !(*this == other); }
};

} // namespace tfl

#endif // TFL_FRONTEND_TYPES_H
