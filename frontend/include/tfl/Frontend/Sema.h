//===- Sema.h - Names, types, shapes and specializations --------*- C++ -*-===//
//
// Sema checks a parsed module and decides everything MLIRGen needs: the type
// and shape of every expression, and which specialization each call reaches.
// Functions are generic: every distinct tuple of argument types at a call
// makes one Specialization (monomorphization). The script's top-level body
// is the entry specialization. Sema owns every user-facing compile error;
// MLIRGen never fails on a program Sema accepted.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_SEMA_H
#define TFL_FRONTEND_SEMA_H

#include "tfl/Frontend/AST.h"
#include "tfl/Frontend/Builtins.h"
#include "tfl/Frontend/Modules.h"
#include "tfl/Frontend/Types.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <array>
#include <memory>
#include <optional>

namespace tfl {

/// A variable whose value flows out of an `if` (as scf.if results) or around
/// a loop (as loop-carried values), with the type it has there.
struct CarriedVar {
  std::string name;
  Type type;
};

/// The normalized axes (sorted, non-negative) and keepdims of a reduction
/// call; `allAxes` when `axis=None`.
struct ReductionInfo {
  std::vector<int64_t> axes;
  bool keepdims = false;
  bool allAxes = false;
  /// var and std: the divisor is the count less ddof (NumPy's).
  double ddof = 0;
};

/// The values of an arange or linspace, a constant made when compiling:
/// element i is start + i * step, the last one `last` when `lastGiven`
/// (linspace's endpoint), computed in f64.
struct RangePlan {
  double start = 0;
  double step = 1;
  bool lastGiven = false;
  double last = 0;
};

/// How a subscript reads its tensor: one entry per input dim, each an
/// integer index (dropped from the result) or a slice, with a static start
/// or a dynamic one (`dynStart`, wrapped when negative for an index).
struct SubscriptPlan {
  enum Kind { Index, Slice };
  struct Dim {
    Kind kind;
    int64_t start;
    const ast::Expr *dynStart;
    bool wrapNegative;
    int64_t size;
    int64_t stride;
  };
  std::vector<Dim> dims;
};

/// The window of a conv2d or pooling call: size and strides (h, w), and
/// padding (top, bottom, left, right).
struct WindowInfo {
  std::array<int64_t, 2> size, strides;
  std::array<int64_t, 4> padding;
};

/// scaled_dot_product_attention: its mask, causality and scale.
struct AttentionInfo {
  bool masked = false;
  bool causal = false;
  double scale = 1.0;
};

struct Specialization;

/// What Sema decided about one built-in call, for MLIRGen: the built-in,
/// and the facts of its family (each left empty by the others).
struct BuiltinPlan {
  explicit BuiltinPlan(Builtin builtin) : builtin(builtin) {}
  Builtin builtin;
  /// A reduction's axes, keepdims and ddof; softmax's and log_softmax's
  /// axis (they reduce along it).
  ReductionInfo reduction;
  /// gather: the axis it picks along.
  int64_t axis = 0;
  /// one_hot: the depth.
  int64_t depth = 0;
  /// arange and linspace: the values.
  RangePlan range;
  /// tril(x, k) and triu(x, k): the diagonal k.
  int64_t diagonal = 0;
  /// float("inf"), float("-inf"), float("nan"): the value.
  double special = 0;
  /// split and chunk: the axis, then each piece's size along it.
  std::vector<int64_t> pieces;
  /// transpose: the permutation.
  std::vector<int64_t> permutation;
  /// to_device: "cpu" or "cuda".
  std::string device;
  /// conv2d and the pools: the window.
  WindowInfo window{};
  /// scaled_dot_product_attention: mask, causality, scale.
  AttentionInfo attention;
  /// tree_map(fn, tree, ...): the specialization of fn each leaf position
  /// reaches (the trees' leaves are tensors, in flattened order).
  std::vector<Specialization *> treeMap;
  /// jvp(f, primals, tangents): the generated specialization it calls.
  Specialization *jvp = nullptr;
  /// vjp(f, *primals) and linearize(f, *primals): f's specialization on
  /// the primals (the value's call).
  Specialization *primal = nullptr;
};

/// One function specialized to argument types, or the script body.
struct Specialization {
  const ast::FuncDef *def = nullptr;   // null for the script body
  const ast::Module *module = nullptr; // the file `def` is in
  /// A generated gradient function (no `def`): the specialization it
  /// differentiates, with respect to which of its flattened operands, and
  /// whether it also returns the value.
  const Specialization *gradOf = nullptr;
  /// A generated jvp function (no `def`): the specialization whose
  /// derivative it pushes the tangents through. It takes the primals (a
  /// tuple), their tangents (a tuple of their types) and the captures, and
  /// returns (value, tangent).
  const Specialization *jvpOf = nullptr;
  /// A generated vmap function (no `def`): the specialization it maps
  /// over a batch dim, and the batch dim of each of its flattened operands
  /// (-1 for one passed whole; the captures are) and results.
  const Specialization *vmapOf = nullptr;
  std::vector<int64_t> vmapInAxes, vmapOutAxes;
  /// A generated checkpoint function (no `def`): it calls the
  /// specialization, and a gradient recomputes that call's intermediates
  /// (its func.func has `tfl.checkpoint`).
  const Specialization *checkpointOf = nullptr;
  /// A generated linear map (no `def`): vjp(f, *primals)'s vjp_fn
  /// (`linearReverse`; it takes the cotangent of f's value and returns a
  /// tuple of the primals' cotangents) or linearize(f, *primals)'s jvp
  /// function (it takes the primals' tangents and returns the value's).
  /// Its captures are f's, then the primals (a tuple) and the generator's
  /// state when the value was computed (an i64[2]).
  const Specialization *linearOf = nullptr;
  bool linearReverse = false;
  /// A @custom_gradient function: its body returns (value, grad_fn), so its
  /// func.func returns the value's leaves then grad_fn's captured values
  /// (the residuals); `customPullback` is grad_fn specialized on the
  /// value's cotangent. Callers see `valueType`.
  const Specialization *customPullback = nullptr;
  /// A @custom_jvp function likewise, its body returning (value, jvp_fn):
  /// `customTangent` is jvp_fn specialized on the arguments' types.
  const Specialization *customTangent = nullptr;
  Type valueType;
  std::vector<int64_t> gradArgnums;
  bool gradWithValue = false;
  /// A generated Jacobian function instead (jacfwd or jacrev of gradOf).
  Type::Jacobian gradJacobian = Type::Jacobian::None;
  std::string symbol; // the func.func's name
  std::vector<Type> argTypes;
  /// A closure's captured variables, passed after the arguments.
  std::vector<std::string> captureNames;
  std::vector<Type> captureTypes;
  Type resultType;
  /// The type a call gives: resultType, or a @custom_gradient or
  /// @custom_jvp function's value.
  const Type &callType() const {
    return customPullback || customTangent ? valueType : resultType;
  }
  /// The type of every expression of the body, after literal promotion.
  llvm::DenseMap<const ast::Expr *, Type> types;
  /// The specialization each user-function call reaches.
  llvm::DenseMap<const ast::CallExpr *, Specialization *> callees;
  /// For each call, the argument expressions in parameter order (keywords
  /// and defaults resolved).
  llvm::DenseMap<const ast::CallExpr *, std::vector<const ast::Expr *>>
      callArgs;
  /// For each `if`, the variables it yields; for each `for`/`while`, the
  /// variables it carries from one iteration to the next.
  llvm::DenseMap<const ast::Stmt *, std::vector<CarriedVar>> carried;
  /// Each built-in call's plan: the built-in, and what Sema decided of it.
  llvm::DenseMap<const ast::CallExpr *, BuiltinPlan> builtinCalls;
  /// Names in a function that read a module constant, with its literal.
  llvm::DenseMap<const ast::Expr *, const ast::Expr *> constantUses;
  /// How each tensor subscript reads its tensor.
  llvm::DenseMap<const ast::Expr *, SubscriptPlan> subscripts;
  /// The element each tuple subscript selects, and the field each record
  /// attribute (`p.w`) reads.
  llvm::DenseMap<const ast::Expr *, size_t> tupleIndices;
  /// The captured variables of each nested def and lambda defined here.
  llvm::DenseMap<const ast::FuncDef *, std::vector<std::string>> closures;
  /// NumPy's attributes of tensors (`x.shape`, `x.ndim`, `x.size`,
  /// `x.dtype`, `x.T`): the attribute each such expression reads.
  llvm::DenseMap<const ast::Expr *, std::string> tensorAttributes;
  /// For each statement after which a loop body may have exited (an `if`
  /// holding `break`/`continue`), the variables the guarded rest of the
  /// block rebinds.
  llvm::DenseMap<const ast::Stmt *, std::vector<CarriedVar>> guards;
  /// The device of each `with device(...)` block: "cpu" or "cuda".
  llvm::DenseMap<const ast::Stmt *, std::string> devices;
  /// The result type of each augmented assignment (`x += v`).
  llvm::DenseMap<const ast::Stmt *, Type> stmtTypes;
  /// Each record construction (`Params(w=..., b=...)`): the field values in
  /// field order (defaults filled in); its type is the call's.
  llvm::DenseMap<const ast::CallExpr *, std::vector<const ast::Expr *>>
      constructions;
  /// Each `p.replace(...)`: per field, its new value or null to keep it.
  llvm::DenseMap<const ast::CallExpr *, std::vector<const ast::Expr *>>
      replacements;
  /// Each method call on a tensor (`x.sum(axis=1)`): the built-in call it
  /// stands for (`sum(x, axis=1)`, a Program::borrowedCalls node).
  llvm::DenseMap<const ast::CallExpr *, const ast::CallExpr *> methodCalls;
  /// Each f-string outside print that is text known when the program runs:
  /// its fields that give values (tensors, run-time strings), in order.
  llvm::DenseMap<const ast::Expr *, std::vector<const ast::Expr *>> textValues;
  /// Comparisons of strings, decided when compiling.
  llvm::DenseMap<const ast::Expr *, bool> knownBools;
  /// The elements each slice of a tuple (`t[1:]`) selects.
  llvm::DenseMap<const ast::Expr *, std::vector<int64_t>> tupleSlices;
  /// Each `for` over a tuple and each comprehension is unrolled: its body
  /// (or element) is analyzed once per element, each copy with its own
  /// types, whose facts are kept here, one table per element, in order.
  llvm::DenseMap<const void *, std::vector<std::unique_ptr<Specialization>>>
      unrolled;
  /// A `for` over tensors' rows through enumerate(x, start) or zip(x, y,
  /// ...): the integer enumerate counts from (nullopt for zip); and the
  /// type each iteration binds its target to.
  llvm::DenseMap<const ast::Stmt *, std::optional<int64_t>> rowLoops;
  llvm::DenseMap<const ast::Stmt *, Type> loopTargetTypes;
  /// A comprehension over range(...): the loop variable's values.
  llvm::DenseMap<const ast::Expr *, std::vector<int64_t>> comprehensionRanges;
  /// Under the debugger: the debug scope (an index into
  /// Program::debugScopes) of each statement and each breakpoint() call.
  llvm::DenseMap<const void *, size_t> debugScopes;
  /// The table an unrolled body's facts extend (its facts about nodes
  /// outside the body are the parent's); null for a function's own.
  Specialization *parent = nullptr;

  /// The debug scope of statement or call `node`, here or in a table this
  /// one extends.
  std::optional<size_t> findDebugScope(const void *node) const {
    for (const Specialization *s = this; s; s = s->parent) {
      auto it = s->debugScopes.find(node);
      if (it != s->debugScopes.end())
        return it->second;
    }
    return std::nullopt;
  }

  /// The type of `e`, here or in a table this one extends.
  const Type *findType(const ast::Expr *e) const {
    for (const Specialization *s = this; s; s = s->parent) {
      auto it = s->types.find(e);
      if (it != s->types.end())
        return &it->second;
    }
    return nullptr;
  }
};

/// The types a tuple target binds when a value of type `value` is unpacked
/// into it: one per target, a `*rest` target taking a tuple of the rest
/// (Python's extended unpacking); nullopt when the counts do not fit.
std::optional<Type> unpackedType(const ast::TupleExpr &target,
                                 const Type &value);

/// A command-line flag the program declares with flag(name, default, help).
struct FlagInfo {
  std::string name;
  DType dtype;
  std::string defaultText;
  std::string help;
  /// A string flag (`flag("data_dir", "/data/")`): its value is text.
  bool isString = false;
};

/// `text` with its braces doubled: a tfl.print format or a path template
/// (tflrt::expandPath) that stands for the text itself.
std::string escapeBraces(llvm::StringRef text);
/// The path a template gives with each string flag at its default.
std::string pathWithDefaults(llvm::StringRef pathTemplate,
                             llvm::ArrayRef<FlagInfo> flags);

/// A checked program: its specializations, entry first.
struct Program {
  const ast::Module *module = nullptr;
  /// The flags, in declaration order.
  std::vector<FlagInfo> flags;
  /// set_precision("bf16"): the precision of matmuls and convolutions
  /// (empty when the script does not set it).
  std::string precision;
  std::vector<std::unique_ptr<Specialization>> specializations;
  Specialization *entry = nullptr;
  /// The built-in calls that tensor methods stand for.
  std::vector<std::unique_ptr<ast::BorrowedCall>> borrowedCalls;

  /// An interactive session's input (SemaOptions::sessionVars): the
  /// variables the script starts with, read from the session, and those it
  /// has at its end (not conditional), stored back.
  bool session = false;
  std::vector<CarriedVar> sessionVars;
  std::vector<CarriedVar> globals;
  /// The top-level expression statements whose values are shown.
  llvm::DenseSet<const ast::Stmt *> displays;
  /// Under the debugger: the variables in scope at each debug point, in
  /// the order of its values (tfl.debug_point's `scope`).
  bool debugPoints = false;
  std::vector<std::vector<CarriedVar>> debugScopes;

  /// A library's exported functions: the name callers use, the
  /// specialization its annotations give, and its parameters' names.
  struct Export {
    std::string name;
    const Specialization *spec;
    std::vector<std::string> params;
  };
  bool library = false;
  std::vector<Export> exports;
  /// The classes of the records the exports take and return, each after
  /// those its fields hold (Sema makes their names distinct).
  std::vector<const ast::ClassDef *> exportedClasses() const;
};

/// The name of the entry function native executables call.
constexpr llvm::StringLiteral kEntrySymbol = "tfl_main";

/// Choices a tool makes about how strictly Sema checks.
struct SemaOptions {
  /// Let f64 values pass `f32` annotations (the gradient checker runs
  /// functions written for f32 in f64).
  bool f64PassesF32 = false;
  /// The number of processes the program is compiled for (tflc
  /// --world-size; tflc run knows its own): world_size() is then an
  /// integer known at compile time, which may size shapes, and all_gather
  /// has a static shape. Unset, world_size() is known only when the
  /// program runs.
  std::optional<int64_t> worldSize;
  /// An input at an interactive prompt: the script starts with these
  /// variables (their values held by the session), and stores every
  /// variable it has at its end back (tfl.session_value/session_store).
  bool session = false;
  std::vector<CarriedVar> sessionVars;
  /// Top-level expression statements of the main file from this line on
  /// show their values, as Python's prompt does (0: none).
  unsigned displayFromLine = 0;
  /// Run eagerly under the debugger: a debug point before every statement
  /// and at every breakpoint(). Otherwise breakpoint() is a no-op, with a
  /// warning when `compiled`.
  bool debugPoints = false;
  bool compiled = false;
  /// A library (tflc build --shared): the script's statements do not run;
  /// each exported function (`@export`, and those named here) is
  /// specialized for the types its annotations give.
  bool library = false;
  std::vector<std::string> exportNames;
};

/// Checks `source` (its main file and the files it imports). Returns null
/// after reporting errors as MLIR diagnostics.
std::unique_ptr<Program> analyze(const SourceProgram &source,
                                 mlir::MLIRContext *context,
                                 SemaOptions options = {});

} // namespace tfl

#endif // TFL_FRONTEND_SEMA_H
