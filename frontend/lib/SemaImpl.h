//===- SemaImpl.h - The analyzer behind Sema --------------------*- C++ -*-===//
//
// Sema's state and methods, split by concept over the Sema*.cpp files:
// Sema.cpp (the walk over specializations and files), SemaStatements.cpp
// and SemaControl.cpp (statements; if, for and while), SemaExpr.cpp and
// SemaSubscripts.cpp (expressions), SemaCalls.cpp (user calls, annotations
// and specializations), SemaBuiltins.cpp and a file per family of
// built-ins (docs/architecture.md lists them). Private to the frontend
// library.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_SEMAIMPL_H
#define TFL_FRONTEND_SEMAIMPL_H

#include "tfl/Frontend/Modules.h"
#include "tfl/Frontend/Sema.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <limits>
#include <map>
#include <optional>
#include <set>

namespace tfl::sema {

/// A batch size (a `?` dim's, from shape(x)) among a shape's known ints
/// (constInts): it sizes a `?` dim.
constexpr int64_t kBatchSizeInt = std::numeric_limits<int64_t>::min();

using ast::AnnAssignStmt;
using ast::AssertStmt;
using ast::AttributeExpr;
using ast::AugAssignStmt;
using ast::BinaryExpr;
using ast::BinaryOp;
using ast::Block;
using ast::CallExpr;
using ast::ClassDef;
using ast::CompareExpr;
using ast::ComprehensionExpr;
using ast::CondExpr;
using ast::Expr;
using ast::ExprStmt;
using ast::ForStmt;
using ast::FStringExpr;
using ast::FuncDef;
using ast::IfStmt;
using ast::ListExpr;
using ast::Module;
using ast::NameExpr;
using ast::Position;
using ast::ReturnStmt;
using ast::Stmt;
using ast::SubscriptExpr;
using ast::TupleExpr;
using ast::UnaryExpr;
using ast::WithStmt;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;

/// True when `block` has a `continue` of its own loop.
bool anyContinue(const Block &block);
/// NumPy's methods of arrays that TFL's tensors have (`x.sum(axis=1)`),
/// each the built-in it names.
const llvm::StringMap<llvm::StringRef> &tensorMethods();
/// The dtype a name like `f32` denotes, if any.
std::optional<DType> dtypeNamed(llvm::StringRef name);
/// Checks and computes the dtype two operands of arithmetic share.
std::optional<Type> unifyOperands(const Type &a, const Type &b);
/// NumPy's broadcast of two shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t> &a,
                                              const std::vector<int64_t> &b);
using ast::collectAssigned;
using ast::isLiteral;
/// A tensor's type annotation (`f32`, `f32[N, 28, ?]`): its dtype's name
/// and dtype (nullopt when it names none), and its dims (null for none).
struct TensorAnnotation {
  const NameExpr *dtypeName;
  std::optional<DType> dtype;
  const std::vector<ast::ExprPtr> *dims;
};
TensorAnnotation tensorAnnotation(const Expr *ann);
using ast::argument;

/// What one file defines at its top level, and the names it imports.
struct Scope {
  const Module *ast = nullptr;
  llvm::StringMap<const FuncDef *> functions;
  llvm::StringMap<const ClassDef *> classes;
  /// Module constants: top-level names bound once, to a literal.
  llvm::StringMap<const Expr *> constants;
  /// Names an import binds: a module (`import nn`, member empty) or one of
  /// its names (`from nn import dense`).
  struct Imported {
    const Scope *from;
    std::string member;
  };
  llvm::StringMap<Imported> imports;
  /// Every name the main file's body binds (for a helpful error in
  /// functions).
  llvm::StringSet<> topLevelNames;
};

class SemaImpl {
public:
  SemaImpl(const SourceProgram &source, mlir::MLIRContext *ctx,
           SemaOptions options)
      : source(source), ctx(ctx), options(options) {}

  std::unique_ptr<Program> run();

private:
  /// Per-specialization analysis state.
  struct Frame {
    Specialization *spec;
    llvm::StringMap<Type> vars;
    std::optional<Type> returnType;
    bool isScript;
    /// The file whose code this is.
    const Scope *scope = nullptr;
    /// Names bound on some paths only (one branch of an `if`, inside a
    /// loop): using them is an error.
    llvm::StringSet<> conditional{};
    /// How many `if`/`for`/`while` bodies enclose the current statement.
    int controlDepth = 0;
    /// How many loops enclose the current statement.
    int loopDepth = 0;
    /// Where each name was last bound on the path being analyzed: notes
    /// point there when a later use or merge of the name fails.
    llvm::StringMap<Position> bound{};
    /// Where the first return of a function is.
    Position returnAt{};
  };

  /// A call whose callee is being specialized: errors inside the callee
  /// get a note at each enclosing call, innermost first.
  struct CallSite {
    const Specialization *callee;
    Position at;
    const Module *file;
  };
  std::vector<CallSite> callStack;

  /// The location of `p` in the file being analyzed (or in `file`).
  mlir::Location loc(Position p, const Module *file = nullptr) {
    if (!file)
      file = frame ? frame->scope->ast : &source.main();
    return mlir::FileLineColLoc::get(ctx, file->fileName, p.line, p.col);
  }

  /// An error at `p` in the file being analyzed (or in `file`); inside a
  /// callee, notes show the calls that specialized it.
  mlir::InFlightDiagnostic error(Position p, const Module *file = nullptr);
  /// Attaches to `diag` a note at `p` (in the current file, or `file`).
  mlir::Diagnostic &note(mlir::InFlightDiagnostic &diag, Position p,
                         const Module *file = nullptr) {
    return diag.attachNote(loc(p, file));
  }

  /// Whether number literal `expr` (`3`, `-2.5`) fits `dtype`, whose tensor
  /// it meets; reports it if not. Other expressions fit.
  bool checkLiteralFits(const Expr *expr, DType dtype);
  /// Set once a literal was found not to fit: the statement fails.
  bool literalOutOfRange = false;

  /// Analyzes `block` from statement `from` on.
  LogicalResult analyzeBlock(const Block &block, size_t from = 0);
  /// Builds the scope of every file: its definitions, constants and
  /// imports; checks what an imported file's top level may hold.
  LogicalResult buildScopes();
  LogicalResult buildScope(Scope &scope);
  LogicalResult bindImports(Scope &scope);
  void collectMainConstants(Scope &scope);
  /// Checks a def's decorators.
  LogicalResult checkDecorators(const FuncDef *def,
                                const Module *file = nullptr);
  /// A @custom_gradient function's specialization `s` returned
  /// `(value, grad_fn)`, or a @custom_jvp function's (`tangent` true)
  /// `(value, jvp_fn)`: checks the pair and the value, then the rule.
  LogicalResult analyzeCustomRule(Specialization *s, Position callPos,
                                  bool tangent);
  /// grad_fn specialized on the value's cotangent, giving one cotangent
  /// per argument (None for none).
  LogicalResult analyzePullbackRule(Specialization *s, const Type &gradFn,
                                    Position callPos);
  /// jvp_fn specialized on the arguments' types (one tangent per
  /// argument), giving the value's tangent.
  LogicalResult analyzeTangentRule(Specialization *s, const Type &jvpFn,
                                   Position callPos);
  /// Checks a class's body: annotated fields (defaults last), methods.
  LogicalResult checkClass(const ClassDef *cls, const Module *file);
  /// The value a top-level name of `scope` denotes (a function, a class, a
  /// constant read at `use`, an imported module or name), if it names one.
  std::optional<FailureOr<Type>> lookupGlobal(const Scope &scope,
                                              llvm::StringRef name,
                                              const Expr *use,
                                              bool ownDefinitions = true);
  FailureOr<Type> analyzeAttribute(const AttributeExpr *expr);
  /// `Params(w=..., b=...)`: fields by position or keyword, defaults,
  /// annotations checked.
  FailureOr<Type> analyzeConstruct(const CallExpr *expr, const ClassDef *cls);
  /// Checks field values against the class's annotations (named dims
  /// agreeing across them); the record type they make.
  FailureOr<Type> checkFields(const ClassDef *cls,
                              llvm::ArrayRef<const Expr *> values,
                              std::vector<Type> types);
  /// `p.replace(w=...)`: a copy of record `p` with some fields changed.
  FailureOr<Type> analyzeReplace(const CallExpr *expr, const Type &record);
  /// What a path through the code has bound (SemaControl.cpp): each name's
  /// type, where it was bound, and which names are bound on some paths only.
  struct PathBindings {
    llvm::StringMap<Type> vars;
    llvm::StringMap<Position> bound;
    llvm::StringSet<> conditional;
  };
  /// Moves the frame's bindings out (leaving them empty).
  PathBindings takeBindings();
  void setBindings(const PathBindings &b);
  LogicalResult analyzeIf(const IfStmt *stmt);
  /// Merges `name` as the two branches of `stmt` bound it into the frame's
  /// bindings; an scf.if result when both bound it.
  LogicalResult mergeBranches(const IfStmt *stmt, const std::string &name,
                              PathBindings &thenPath, PathBindings &elsePath,
                              std::vector<CarriedVar> &yielded);
  /// A loop's body until its carried types settle; `target` (null for a
  /// while) is bound to `targetType` each iteration.
  LogicalResult analyzeLoop(const Stmt *stmt, const Block &body,
                            const Expr *cond, const Expr *target,
                            const Type &targetType = Type::tensor(DType::I64,
                                                                  {}));
  /// `for i, row in enumerate(x)`, `for a, b in zip(x, y)` over tensors.
  std::optional<LogicalResult> analyzeRowLoop(const ForStmt *stmt);
  /// After an analysis of a loop's body: the carried names' types settled
  /// (a literal's weakness dropped, or its dtype the body's), whether one
  /// changed (another round then); an error when one changes type.
  FailureOr<bool> settleCarried(const Stmt *stmt,
                                std::vector<CarriedVar> &carried,
                                const PathBindings &before, int round);
  LogicalResult analyzeFor(const ForStmt *stmt);
  LogicalResult checkCondition(const Expr *cond, llvm::StringRef what);
  LogicalResult analyzeStmt(const Stmt *stmt);
  LogicalResult analyzeExprStmt(const ExprStmt *stmt);
  LogicalResult analyzeAugAssign(const AugAssignStmt *aug);
  LogicalResult analyzeAnnAssign(const AnnAssignStmt *ann);
  LogicalResult analyzeReturn(const ReturnStmt *ret);
  LogicalResult analyzeAssert(const AssertStmt *a);
  /// `with device("cuda"):`, its block on that device.
  LogicalResult analyzeWith(const WithStmt *w);
  /// A def, a class or an import.
  LogicalResult analyzeDefinition(const Stmt *stmt);
  LogicalResult bindTarget(const Expr *target, const Type &type);
  FailureOr<Type> analyzeExpr(const Expr *expr);
  FailureOr<Type> analyzeName(const NameExpr *expr);
  FailureOr<Type> analyzeList(const ListExpr *expr);
  FailureOr<Type> analyzeUnary(const UnaryExpr *expr);
  FailureOr<Type> analyzeBinary(const BinaryExpr *expr);
  FailureOr<Type> binaryType(BinaryOp op, const Expr *lhsExpr, Type lhs,
                             const Expr *rhsExpr, Type rhs, Position opPos);
  FailureOr<Type> analyzeCompare(const CompareExpr *expr);
  /// Dtypes compare for equality, at compile time (`x.dtype == bf16`).
  FailureOr<Type> analyzeDTypeCompare(const CompareExpr *expr,
                                      llvm::ArrayRef<Type> types);
  FailureOr<Type> analyzeTuple(const TupleExpr *expr);
  /// `not`, `and` and `or` of bool scalars.
  FailureOr<Type> analyzeLogical(const Expr *expr);
  /// Strings and tuples (SemaSequences.cpp): `+` and `*` of them, string
  /// comparisons, indexing and slicing, len() and str(), and f-strings
  /// known at compile time.
  FailureOr<Type> sequenceBinary(BinaryOp op, const Type &lhs, const Type &rhs,
                                 Position at);
  FailureOr<Type> analyzeStringCompare(const CompareExpr *expr,
                                       llvm::ArrayRef<Type> types);
  FailureOr<std::vector<int64_t>>
  sequenceIndices(const SubscriptExpr *expr, int64_t length, bool &isSlice);
  FailureOr<Type> analyzeSequenceSubscript(const SubscriptExpr *expr,
                                           const Type &seq);
  FailureOr<Type> analyzeLenStr(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> knownFString(const FStringExpr *expr);
  /// Unrolled loops and comprehensions: the values the target takes, the
  /// body once per value (each copy a table of its own), zip/enumerate.
  FailureOr<std::vector<Type>>
  unrolledElements(const Expr *iter, const ComprehensionExpr *comprehension);
  LogicalResult analyzeUnrolledFor(const ForStmt *stmt,
                                   const std::vector<Type> &elements);
  FailureOr<Type> analyzeComprehension(const ComprehensionExpr *expr);
  FailureOr<Type> analyzeZip(const CallExpr *expr, llvm::StringRef name);
  /// zip's and enumerate's keywords and arity checked: enumerate's start
  /// (0 unless given), nullopt for zip.
  FailureOr<std::optional<int64_t>> zipStart(const CallExpr *expr,
                                             llvm::StringRef name);
  /// A tensor's subscript (SemaSubscripts.cpp), its read plan recorded.
  FailureOr<Type> analyzeSubscript(const SubscriptExpr *expr);
  /// A slice of an axis of `n`, known at compile time or x[s : s + K].
  FailureOr<SubscriptPlan::Dim> subscriptSlice(const ast::SliceExpr *s,
                                               int64_t n);
  /// An integer index of axis `dim` of `value`.
  FailureOr<SubscriptPlan::Dim> subscriptIndex(const Expr *item, int64_t dim,
                                               const Type &value);
  FailureOr<Type> analyzeCond(const CondExpr *expr);
  FailureOr<Type> requireBoolScalar(const Expr *expr, llvm::StringRef what);
  FailureOr<Type> analyzeCall(const CallExpr *expr);
  FailureOr<Type> analyzePrint(const CallExpr *expr);
  /// A library: specializes each exported function for its annotations.
  LogicalResult analyzeExports();
  /// A library's exports take and return records of classes of distinct
  /// names (its APIs name them by class).
  LogicalResult checkExportedClassNames();
  /// `export(f, *args, name=...)` at the top level: f is exported for the
  /// types of these arguments (a library's; nothing runs).
  FailureOr<Type> analyzeExportCall(const CallExpr *expr);
  FailureOr<std::vector<Type>> exportArgTypes(const CallExpr *expr,
                                              const ast::FuncDef *def);
  /// The type annotation `ann` (in `scope`) gives an exported function's
  /// parameter: a dtype with integer dims (or module constants), a record
  /// class (its fields' annotations), a tuple of these.
  FailureOr<Type> annotatedType(const Expr *ann, const Scope &scope);
  /// breakpoint(): a stop of the eager debugger, a no-op otherwise.
  FailureOr<Type> analyzeBreakpoint(const CallExpr *expr);
  /// The variables in scope now (bound on every path), sorted by name.
  std::vector<CarriedVar> visibleVars() const;
  /// Under the debugger: records the variables in scope now as the debug
  /// scope of `node` (a statement or a breakpoint() call).
  void recordDebugScope(const void *node);
  /// Warns once, at `p`, however many specializations analyze it (the
  /// places warned about so far).
  void warnOnce(Position p, const llvm::Twine &message);
  std::set<std::pair<const Module *, std::pair<unsigned, unsigned>>> warned;
  LogicalResult analyzeFString(const FStringExpr *expr);
  /// The plan of built-in call `expr` (analyzeCall makes it first).
  BuiltinPlan &planOf(const CallExpr *expr) {
    auto it = frame->spec->builtinCalls.find(expr);
    assert(it != frame->spec->builtinCalls.end() && "a built-in call");
    return it->second;
  }
  /// A built-in call, by its family (Builtins.def).
  FailureOr<Type> analyzeBuiltin(const CallExpr *expr, Builtin b);
  FailureOr<Type> analyzeShapeFamily(const CallExpr *expr, ShapeBuiltin op);
  FailureOr<Type> analyzeNNFamily(const CallExpr *expr, NNBuiltin op);
  FailureOr<Type> analyzeRandomIOFamily(const CallExpr *expr,
                                        RandomIOBuiltin op);
  FailureOr<Type> analyzeTransformFamily(const CallExpr *expr,
                                         TransformBuiltin op);
  /// Elementwise built-ins (maximum, where, cast, exp, ...) and matmul.
  FailureOr<Type> analyzeMath(const CallExpr *expr, MathBuiltin op);
  FailureOr<std::vector<Type>> mathOperands(const CallExpr *expr,
                                            MathBuiltin op);
  FailureOr<Type> analyzeSpecialFloat(const CallExpr *expr,
                                      llvm::StringRef text);
  FailureOr<Type> analyzeCast(const CallExpr *expr, MathBuiltin op,
                              llvm::ArrayRef<Type> types);
  FailureOr<Type> analyzeWhere(const CallExpr *expr,
                               llvm::ArrayRef<Type> types);
  /// split() and chunk() (SemaArrays.cpp).
  FailureOr<Type> analyzePieces(const CallExpr *expr, llvm::StringRef name);
  FailureOr<std::vector<int64_t>> pieceSizes(const Expr *by,
                                             llvm::StringRef name, int64_t dim,
                                             const Type &t, int64_t a);
  /// tril() and triu().
  FailureOr<Type> analyzeTriangle(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeGather(const CallExpr *expr);
  FailureOr<Type> analyzeNow(const CallExpr *expr);
  FailureOr<Type> analyzeCheckNumerics(const CallExpr *expr);
  FailureOr<Type> analyzeReduction(const CallExpr *expr, llvm::StringRef name);
  LogicalResult reductionArguments(const CallExpr *expr, llvm::StringRef name,
                                   const Expr *&axisExpr, const Expr *&keepExpr,
                                   const Expr *&ddofExpr);
  LogicalResult reductionFlags(llvm::StringRef name, const Expr *keepExpr,
                               const Expr *ddofExpr, ReductionInfo &info);
  LogicalResult reductionAxes(llvm::StringRef name, const Expr *axisExpr,
                              const Type &x, ReductionInfo &info);
  FailureOr<Type> analyzeNN(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeFlag(const CallExpr *expr);
  FailureOr<Type> analyzeSetPrecision(const CallExpr *expr);
  /// device("cpu") (a `with` statement's context) and to_device(x, "cpu").
  FailureOr<Type> analyzePlacement(const CallExpr *expr, llvm::StringRef name);
  /// A device named by a compile-time string, as "cpu" or "cuda".
  FailureOr<std::string> deviceArgument(const Expr *e, llvm::StringRef what);
  /// The call a `with` statement is analyzing as its context.
  const CallExpr *withContext = nullptr;
  /// A shape built-in's arguments, by its parameter names (SemaShape.cpp).
  struct ShapeArgs {
    SemaImpl &sema;
    const CallExpr *expr;
    llvm::StringRef name;
    const std::vector<std::string> &names;
    /// Whether its shapes may hold a batch size (shape(x) of a `?` dim),
    /// a `?` dim of the result.
    bool batchSizes;

    const Expr *arg(size_t i) const;
    LogicalResult fail(const Expr *at, const llvm::Twine &msg) const;
    /// Argument i, a tensor.
    FailureOr<Type> tensor(size_t i) const;
    /// Argument i, integers known at compile time.
    FailureOr<std::vector<int64_t>> shape(size_t i) const;
    /// Argument i, a dtype; `fallback` without it.
    FailureOr<DType> dtype(size_t i, DType fallback) const;
    LogicalResult checkDims(const std::vector<int64_t> &shape,
                            const Expr *at) const;
  };
  FailureOr<ShapeArgs> shapeArgs(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeFilled(const ShapeArgs &args);
  FailureOr<Type> analyzeFull(const ShapeArgs &args);
  FailureOr<Type> analyzeLike(const ShapeArgs &args);
  FailureOr<Type> analyzeShapeOf(const ShapeArgs &args);
  FailureOr<Type> analyzeJoin(const ShapeArgs &args);
  FailureOr<std::vector<Type>>
  joinOperands(const ShapeArgs &args, const std::vector<ast::ExprPtr> *&items);
  FailureOr<Type> analyzeTile(const ShapeArgs &args);
  FailureOr<Type> analyzeBroadcastTo(const ShapeArgs &args);
  FailureOr<Type> analyzeReshape(const ShapeArgs &args);
  FailureOr<Type> analyzeTranspose(const ShapeArgs &args);
  FailureOr<Type> analyzeExpandDims(const ShapeArgs &args);
  FailureOr<Type> analyzeSqueeze(const ShapeArgs &args);
  /// arange, linspace and eye: constants made when compiling.
  FailureOr<Type> analyzeRange(const ShapeArgs &args);
  FailureOr<Type> analyzeLinspace(const ShapeArgs &args,
                                  llvm::ArrayRef<double> values);
  FailureOr<std::vector<double>> rangeNumbers(const ShapeArgs &args,
                                              bool &floats);
  /// Fails when `n` values (`what`: "its values", eye's "its n + m
  /// indices") are more than a constant made when compiling may hold.
  LogicalResult checkRangeSize(const ShapeArgs &args, double n,
                               llvm::StringRef what = "its values");
  /// The value of a number known at compile time: an integer knownInt
  /// knows, a float literal, a module constant's, or + - * / of these.
  std::optional<double> knownNumber(const Expr *e);
  /// Integers known at compile time: one, or a tuple of them (`shape(x)`).
  /// With `batchSizes`, a batch size (Type::batch) among them is
  /// kBatchSizeInt.
  std::optional<std::vector<int64_t>> constInts(const Expr *e,
                                                bool batchSizes = false);
  /// Matches a built-in call's arguments to `params` by position or keyword
  /// (null where missing; the first `required` must be given) and records
  /// them as the call's `callArgs`. A parameter "axis|dim" takes either
  /// keyword.
  FailureOr<std::vector<const Expr *>>
  matchBuiltinArgs(const CallExpr *expr, llvm::StringRef name,
                   llvm::ArrayRef<llvm::StringRef> params, size_t required);
  /// A shape known at compile time, with no negative dims.
  FailureOr<std::vector<int64_t>> shapeArgument(const Expr *e,
                                                llvm::StringRef what);
  /// A dtype argument (`f32`); `fallback` when `e` is null.
  FailureOr<DType> dtypeArgument(const Expr *e, llvm::StringRef what,
                                 DType fallback);
  /// get_rng_state() and set_rng_state(state).
  FailureOr<Type> analyzeRngState(const CallExpr *expr, llvm::StringRef name);
  /// seed(n) and shuffle_indices(n).
  FailureOr<Type> analyzeSeed(const CallExpr *expr, llvm::StringRef name);
  /// random_normal and random_uniform, and their two parameters.
  FailureOr<Type> analyzeDraw(const CallExpr *expr, llvm::StringRef name);
  LogicalResult drawParameter(llvm::StringRef name, llvm::StringRef what,
                              const Expr *e, const Type &result);
  FailureOr<Type> analyzeEncodeDecode(const CallExpr *expr,
                                      llvm::StringRef name);
  FailureOr<Type> analyzeLoadBytes(const CallExpr *expr);
  FailureOr<Type> analyzeLogScalar(const CallExpr *expr);
  /// save_npy(path, x), save(path, tree) and load(path, like).
  FailureOr<Type> analyzeSaveLoad(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeConv(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeAttention(const CallExpr *expr);
  LogicalResult attentionOperands(const CallExpr *expr,
                                  llvm::ArrayRef<const Expr *> args,
                                  std::vector<Type> &types);
  FailureOr<Type> windowTensor(const Expr *e, llvm::StringRef name,
                               llvm::StringRef what);
  FailureOr<bool> samePadding(const Expr *p, llvm::StringRef name);
  FailureOr<int64_t> windowOutput(const CallExpr *expr, llvm::StringRef name,
                                  int d, int64_t in, bool same,
                                  WindowInfo &info);
  /// NumPy's tensor attributes: x.shape, x.ndim, x.size, x.dtype, x.T.
  /// `x.sum(axis=1)` on a tensor x: NumPy's method, the built-in
  /// `sum(x, axis=1)`.
  static std::vector<std::string> sortedTensorMethods();
  FailureOr<Type> analyzeTensorMethod(const CallExpr *expr,
                                      const AttributeExpr *method);
  FailureOr<Type> analyzeTensorAttribute(const AttributeExpr *expr,
                                         const Type &x);
  /// rank(), world_size(), all_reduce(tree, op), broadcast(tree, root).
  FailureOr<Type> analyzeCollective(const CallExpr *expr, llvm::StringRef name);
  FailureOr<bool> collectiveOption(const Expr *option, bool isReduce);
  /// all_gather(x).
  FailureOr<Type> analyzeAllGather(const CallExpr *expr);
  FailureOr<std::array<int64_t, 2>> pairArgument(const Expr *e,
                                                 llvm::StringRef what);
  /// load_idx and load_npy: what shape= and dtype= leave open comes from
  /// the file's header.
  FailureOr<Type> analyzeLoadData(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> loadedFromHeader(const CallExpr *expr, llvm::StringRef name,
                                   const std::string &path,
                                   std::optional<std::vector<int64_t>> shape,
                                   std::optional<DType> dtype);
  /// A string argument's value (strings are compile-time values).
  /// A string known at compile time; with `path`, a file's path, which may
  /// hold string flags' values (their defaults then).
  FailureOr<std::string> stringArgument(const Expr *e, llvm::StringRef what,
                                        bool path = false);
  /// Types, coerces and broadcasts the operands of an elementwise built-in.
  FailureOr<Type> elementwiseOperands(const CallExpr *expr,
                                      llvm::StringRef name,
                                      llvm::ArrayRef<Type> types);
  FailureOr<Type> analyzeUserCall(const CallExpr *expr, const Type &callee);
  /// The specialization a call of `callee` reaches, and its arguments in
  /// parameter order (`resolved`).
  FailureOr<Specialization *>
  resolveUserCall(const CallExpr *expr, const Type &callee,
                  std::vector<const Expr *> &resolved);
  /// A new specialization's symbol, unique per file, class and types
  /// (`nn.Dense.__call___f32x3`), and per definition site where two defs
  /// share a name.
  std::string symbolOf(const Specialization &s);
  /// Checks a specialization's result against its def's annotation (named
  /// dims bound by the parameters' annotations).
  LogicalResult checkResultAnnotation(const Specialization &s, Position callPos,
                                      const Scope *scope);
  /// A call's arguments matched to `params` (positional, keywords, then
  /// defaults), in parameter order.
  FailureOr<std::vector<const Expr *>>
  matchUserArgs(const CallExpr *expr, const FuncDef *def,
                llvm::ArrayRef<ast::Param> params);
  /// A call of `grad(f)`'s value: a generated specialization whose body is
  /// the gradient of f's specialization for these arguments.
  FailureOr<Specialization *>
  resolveGradCall(const CallExpr *expr, const Type &grad,
                  std::vector<const Expr *> &resolved);
  /// The gradient specialization of `grad` for `f`, f specialized for the
  /// call (errors at `at`, or at argument `a`'s `argAt(a)`).
  FailureOr<Specialization *>
  gradSpecOf(const Type &grad, Specialization *f, Position at,
             llvm::function_ref<Position(size_t)> argAt);
  /// A new generated specialization transforming `f` (its arguments and
  /// captures; a grad, jacobian or jvp of it), cached as `key` in
  /// gradCache.
  Specialization *generatedSpec(Specialization &f, const std::string &key,
                                std::string symbol);
  /// An error at `at` unless `a` names one of f's arguments.
  LogicalResult checkArgnum(llvm::StringRef name, int64_t a,
                            const Specialization &f, Position at);
  /// The same for jacfwd(f) and jacrev(f): per argument in argnums (float
  /// tensors), a tree of f's result's structure whose leaves have the
  /// leaf's dims, then the argument's.
  FailureOr<Specialization *>
  jacobianSpecOf(const Type &grad, Specialization *f, Position at,
                 llvm::function_ref<Position(size_t)> argAt);
  /// `callee` (a function or a grad of one) specialized on `argTypes`, as
  /// a call with those arguments by position would reach (`what` names
  /// the caller in errors at `at`).
  FailureOr<Specialization *> specializeOn(const Type &callee,
                                           std::vector<Type> argTypes,
                                           Position at, llvm::StringRef what);
  /// `jvp(f, primals, tangents)`, as JAX's: (f(*primals), the derivative
  /// of f at the primals in the direction of the tangents).
  FailureOr<Type> analyzeJvp(const CallExpr *expr);
  /// A call's arguments, all positional (`what` names the callee in the
  /// error for a keyword), analyzed, and the expressions in `resolved`.
  FailureOr<std::vector<Type>>
  positionalArgs(const CallExpr *expr, llvm::StringRef what,
                 std::vector<const Expr *> &resolved);
  /// `vjp(f, *primals)` and `linearize(f, *primals)`, as JAX's:
  /// (f(*primals), the linear map of f at the primals: vjp_fn taking a
  /// cotangent of f's value, or the jvp function taking the primals'
  /// tangents).
  FailureOr<Type> analyzeLinearize(const CallExpr *expr, bool reverse);
  /// A call of a linear map `linear` (its arguments by position).
  FailureOr<Specialization *>
  resolveLinearCall(const CallExpr *expr, const Type &linear,
                    std::vector<const Expr *> &resolved);
  /// A call of such a linear map (`linear`) on arguments of `argTypes`:
  /// the generated specialization computing it.
  FailureOr<Specialization *>
  linearSpecOf(const Type &linear, const std::vector<Type> &argTypes,
               Position at, llvm::function_ref<Position(size_t)> argAt);
  /// `checkpoint(f)` or `remat(f)`, as JAX's: a function value.
  FailureOr<Type> analyzeCheckpoint(const CallExpr *expr, llvm::StringRef name);
  /// The generated specialization calling `f` as a checkpoint.
  FailureOr<Specialization *> checkpointSpecOf(FailureOr<Specialization *> f);
  /// `f`, or its checkpoint when `def` is decorated @checkpoint or @remat.
  FailureOr<Specialization *>
  checkpointIfDecorated(const FuncDef *def, FailureOr<Specialization *> f);
  /// `vmap(f, in_axes=0, out_axes=0)`, as JAX's: a function value.
  FailureOr<Type> analyzeVmap(const CallExpr *expr);
  /// A call of a vmap value: f specialized on one example's arguments, and
  /// the generated specialization mapping it over the batch.
  FailureOr<Specialization *>
  resolveVmapCall(const CallExpr *expr, const Type &vmap,
                  std::vector<const Expr *> &resolved);
  /// The generated specialization of `vmap` called with `argTypes`
  /// (errors at `at`, or at argument `a`'s `argAt(a)`).
  FailureOr<Specialization *>
  vmapSpecOf(const Type &vmap, std::vector<Type> argTypes, Position at,
             llvm::function_ref<Position(size_t)> argAt);
  /// A vmap axis: an integer known at compile time or, for in_axes
  /// (`noneAllowed`), None (kNotMapped).
  std::optional<int64_t> vmapAxis(const Expr *e, bool noneAllowed);
  /// An in_axes entry that is a tree prefix of a tuple argument: a tuple
  /// of axes (known ints), None and such tuples.
  std::optional<Type> vmapAxesTree(const Expr *e);
  /// in_axes' (`in`) or out_axes' entries from `e` (null: 0), whether they
  /// are one per value (a tuple), and per entry its tree (in_axes' tree
  /// prefixes; None for an axis).
  LogicalResult vmapAxes(const Expr *e, bool in, std::vector<int64_t> &axes,
                         bool &perValue, std::vector<Type> &trees);
  /// One leaf's or tree's example in a call of a vmap: `t` without its dim
  /// `axis` (whole when kNotMapped), or with its elements' axes from
  /// `tree`, a prefix; the batch size and each leaf's batch dim go into
  /// `sizes` (argument `i`, at `argPos`, for errors).
  struct VmapSizes {
    int64_t &size;
    std::optional<size_t> sizedBy;
    std::vector<int64_t> &leafAxes;
  };
  FailureOr<Type> vmapExample(const Type &t, int64_t axis, const Type *tree,
                              size_t i, Position argPos, VmapSizes &sizes);
  /// One example's argument types of a call of `vmap` (each mapped leaf
  /// without its batch dim), the batch `size` and each leaf's batch dim
  /// (-1 for one passed whole).
  FailureOr<std::vector<Type>>
  vmapExamples(const Type &vmap, const std::vector<Type> &argTypes, Position at,
               llvm::function_ref<Position(size_t)> argAt, int64_t &size,
               std::vector<int64_t> &leafAxes);
  /// The type of a vmap's result from one example's `value`, and each
  /// leaf's batch dim.
  FailureOr<Type> vmapResult(const Type &vmap, const Type &value, int64_t size,
                             Position at, std::vector<int64_t> &outLeafAxes);
  /// `tree_map(fn, tree, *rest)`, as JAX's: fn called on the leaves at
  /// each position of trees of one structure; the result has that
  /// structure with fn's results as leaves.
  FailureOr<Type> analyzeTreeMap(const CallExpr *expr);
  /// The leaves of each of tree_map()'s trees, and the first tree.
  FailureOr<Type> treeMapLeaves(const CallExpr *expr,
                                std::vector<std::vector<Type>> &leaves);
  /// The specialization tree_map() calls on the i-th leaves.
  FailureOr<Specialization *>
  treeMapLeafCall(const CallExpr *expr, const Type &callee,
                  const std::vector<std::vector<Type>> &leaves, size_t i);
  /// `tree_leaves(tree)`, as JAX's: a tuple of the tree's tensors in order.
  FailureOr<Type> analyzeTreeLeaves(const CallExpr *expr);
  /// grad(f, argnums), value_and_grad(f, argnums) and stop_gradient(x).
  FailureOr<Type> analyzeGradBuiltin(const CallExpr *expr,
                                     llvm::StringRef name);
  /// Named dims of a signature or record: each one's size and where that
  /// size was first seen.
  struct DimBinding {
    int64_t size;
    Position at;
    const Module *file;
  };
  using DimBindings = llvm::StringMap<DimBinding>;
  /// Checks `actual` against the type annotation `ann` (`f32`,
  /// `f32[N, 28, ?]`, a tuple of these); named dims bind in `dims`. A weak
  /// literal takes the annotated dtype (`adjusted`).
  /// Names in the annotation resolve in `scope` (the annotation's file;
  /// the current one when null).
  /// Errors sit at `at`, in the current file or `atFile`; a note shows the
  /// annotation when it is elsewhere.
  LogicalResult checkAnnotation(const Expr *ann, const Type &actual,
                                DimBindings &dims, llvm::StringRef what,
                                Position at, Type &adjusted,
                                const Scope *scope = nullptr,
                                const Module *atFile = nullptr);
  /// The class an annotation names (`Dense`, `nn.Dense`), if it names one.
  const ClassDef *annotatedClass(const Expr *ann, const Scope &scope);
  FailureOr<Specialization *>
  specialize(const Type &callee, std::vector<Type> argTypes, Position callPos);
  LogicalResult unsupported(const Expr *expr, llvm::StringRef what);
  /// The function value of `def` defined here: it captures the enclosing
  /// variables its body reads (closure conversion).
  Type closureOf(const FuncDef *def);

  /// `t` (the type of `expr`) with the compile-time value of an integer
  /// expression where one is known, and without it elsewhere.
  Type withKnownValue(const Expr *expr, Type t);
  /// The value of an integer expression known at compile time: a literal,
  /// or an expression whose type carries a known value.
  std::optional<int64_t> knownInt(const Expr *e);
  /// Gives a weak expression (a literal, or arithmetic on literals) `dtype`.
  void coerce(const Expr *expr, DType dtype);
  Type &typeOf(const Expr *expr) {
    if (const Type *t = frame->spec->findType(expr))
      return const_cast<Type &>(*t);
    return frame->spec->types[expr];
  }

  const SourceProgram &source;
  mlir::MLIRContext *ctx;
  SemaOptions options;
  std::unique_ptr<Program> program;
  std::map<const Module *, Scope> scopes;
  /// The file each function (top-level, method, nested, lambda) is in.
  llvm::DenseMap<const FuncDef *, const Scope *> defScope;
  /// The file each class is in, and the class of each method.
  llvm::DenseMap<const ClassDef *, const Scope *> classScope;
  llvm::DenseMap<const FuncDef *, const ClassDef *> methodClass;
  std::map<std::pair<const FuncDef *, std::string>, Specialization *> cache;
  std::vector<Specialization *> inProgress;
  /// The built-in call each tensor method call stands for, per way of
  /// passing its arguments (Program::borrowedCalls owns them).
  std::map<std::tuple<const CallExpr *, std::string, bool>, const CallExpr *>
      methodCalls;
  /// The def each specialization symbol was first made for.
  llvm::StringMap<const FuncDef *> symbolOwners;
  /// The gradient specializations, by differentiated symbol and argnums.
  std::map<std::string, Specialization *> gradCache;
  Frame *frame = nullptr;
};

} // namespace tfl::sema

#endif // TFL_FRONTEND_SEMAIMPL_H
