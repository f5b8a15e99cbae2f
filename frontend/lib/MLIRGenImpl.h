//===- MLIRGenImpl.h - The emitter behind MLIRGen ---------------*- C++ -*-===//
//
// MLIRGen's state and methods, split by concept over MLIRGen.cpp (functions
// and statements), MLIRGenControl.cpp (if, the loops and their guards),
// MLIRGenExpr.cpp (expressions), MLIRGenCalls.cpp (calls, print and the
// debugger's points), MLIRGenBuiltinCalls.cpp and MLIRGenBuiltins.cpp
// (built-in calls). Private to the frontend library.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_MLIRGENIMPL_H
#define TFL_FRONTEND_MLIRGENIMPL_H

#include "tfl/Frontend/MLIRGen.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tfl::mlirgen {

using ast::AnnAssignStmt;
using ast::AttributeExpr;
using ast::BinaryExpr;
using ast::BinaryOp;
using ast::Block;
using ast::CallExpr;
using ast::CompareExpr;
using ast::Expr;
using ast::ForStmt;
using ast::IfStmt;
using ast::Module;
using ast::Position;
using ast::ReturnStmt;
using ast::Stmt;
using ast::SubscriptExpr;
using ast::WhileStmt;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using mlir::Value;

using Values = llvm::SmallVector<Value, 1>;

/// True for a number literal (possibly negated) or a nested list of them.
bool isNumberLiteral(const Expr *e);

class MLIRGenImpl {
public:
  MLIRGenImpl(mlir::MLIRContext &ctx, const Program &program)
      : ctx(ctx), program(program), builder(&ctx, &deviceMarker) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  mlir::Location loc(Position p) {
    const Module *file = spec && spec->module ? spec->module : program.module;
    return mlir::FileLineColLoc::get(&ctx, file->fileName, p.line, p.col);
  }
  mlir::RankedTensorType tensorType(const Type &t) {
    llvm::SmallVector<int64_t> shape;
    for (int64_t d : t.shape)
      shape.push_back(d == kDynamicDim ? mlir::ShapedType::kDynamic : d);
    return mlir::RankedTensorType::get(shape, elementType(&ctx, t.dtype));
  }
  /// The flattened MLIR types of a value of type `t`.
  void flatTypes(const Type &t, llvm::SmallVectorImpl<mlir::Type> &out) {
    if (t.isTensor())
      out.push_back(tensorType(t));
    else if (t.isTree() || t.isCallableValue() ||
             t.kind == Type::Kind::RuntimeString)
      // A closure's leaves are its captures (a transform's, those of the
      // function it transforms); a run-time string's, its values.
      for (const Type &e : t.elements)
        flatTypes(e, out);
  }
  const Type &typeOf(const Expr *e) { return *spec->findType(e); }
  /// The type of what a `for` iterates over, or null for range(...).
  const Type *iterType(const ForStmt *stmt) {
    auto it = spec->types.find(stmt->iter.get());
    return it == spec->types.end() ? nullptr : &it->second;
  }

  void genFunction(const Specialization &s);
  /// The body of a generated specialization (a grad, Jacobian, vmap, jvp,
  /// linear map or checkpoint of another), at the start of `fn`'s entry;
  /// false for a def's or the script's.
  bool genGeneratedBody(const Specialization &s, mlir::func::FuncOp fn,
                        llvm::ArrayRef<mlir::Type> resultTypes,
                        mlir::Location fnLoc);
  /// Binds the entry block's arguments (the arguments' leaves, then the
  /// captures'), and at the prompt the session's variables.
  void bindEntryArguments(const Specialization &s, mlir::Block *entry,
                          mlir::Location fnLoc);
  /// At the prompt, an input keeps every variable it has at its end.
  void storeSessionVars(const Block &body);
  /// A library's entry point for export `e`: `tfl_export_NAME`, taking a
  /// buffer per leaf of the arguments, then one per leaf of the result to
  /// write it into (C interface: `_mlir_ciface_tfl_export_NAME`).
  void genExport(const Program::Export &e);
  /// Records on a @custom_gradient or @custom_jvp function's func.func how
  /// the autodiff pass builds its derivatives: `tfl.custom_value_leaves`
  /// (how many results are the value; the rest are residuals), then for
  /// @custom_gradient `tfl.custom_pullback` (grad_fn's function, taking the
  /// value's cotangent then the residuals) and `tfl.custom_cotangents` (per
  /// flattened argument, the pullback result giving its cotangent, or -1
  /// for none), for @custom_jvp `tfl.custom_tangent` (jvp_fn's function,
  /// taking the arguments' tangents then the residuals).
  void markCustomRule(mlir::func::FuncOp fn, const Specialization &s);
  /// Emits a block from statement `from` on; returns true when it ended in
  /// a `return`.
  bool genBlock(const Block &block, size_t from = 0);
  /// Emits statements `from`.. of `block` under a guard: they run only when
  /// the loop did not `break` or `continue` before them.
  void genGuard(const Block &block, size_t from,
                llvm::ArrayRef<CarriedVar> vars, mlir::Location l);
  /// The loop's exit flags in the environment ($break when the loop has a
  /// break, $continue), as carried variables.
  std::vector<CarriedVar> exitFlags();
  Value boolValue(const std::string &name, mlir::Location l);
  /// A loop with a `break` as an scf.while carrying the break flag (and, for
  /// a `for`, the iteration count).
  void genLoopWithBreak(const Stmt *stmt, const Block &body, const Expr *cond,
                        const ForStmt *forStmt);
  /// Whether such a loop goes on: not after a break (`stop`) or a return,
  /// and then while `cond` holds (or a for's `counter` is below `count`).
  Value loopGoesOn(Value stop, Value counter, Value count, const Expr *cond,
                   mlir::Location l);
  struct RangeBounds {
    Value start, step, count; // i64 scalars
  };
  RangeBounds rangeBounds(const ForStmt *stmt, mlir::Location l);
  /// The bounds of each range loop being generated.
  llvm::DenseMap<const ForStmt *, RangeBounds> rangeOf;
  bool genStmt(const Stmt *stmt);
  /// A return: func.return, or (with returns nested in ifs and loops) the
  /// result stored and the flags set; true for a func.return.
  bool genReturn(const ReturnStmt *ret);
  /// `a = b = value` and `a: T = value`.
  void genAssign(const Stmt *stmt);
  void bindTarget(const Expr *target, const Type &type,
                  llvm::ArrayRef<Value> values);
  Values genExpr(const Expr *expr);
  /// A name's values: a number literal it holds is emitted in the dtype
  /// this use needs.
  Values genName(const ast::NameExpr *expr, const Type &t, mlir::Location l);
  /// `and` and `or`, short-circuit as Python's.
  Value genBoolOp(const ast::BoolOpExpr *b, mlir::Location l);
  /// An f-string outside print: text known when compiling (no values), or
  /// a run-time string whose values are its fields'.
  Values genTextValues(const Expr *expr, mlir::Location l);
  Value genConstant(const Expr *expr);
  /// The literal `expr` emitted directly as `type` (a literal keeps full
  /// precision when promotion gives it a wider dtype than it was first
  /// given).
  Value genConstant(const Expr *expr, const Type &type);
  /// `lhs op rhs` of values of these types: arithmetic on tensors,
  /// concatenation and repetition of tuples (strings make no IR).
  Values genComprehension(const ast::ComprehensionExpr *expr);
  Values combine(ast::BinaryOp op, const Values &lhs, const Type &lhsType,
                 const Values &rhs, const Type &rhsType, const Type &result,
                 mlir::Location l);
  /// NumPy's matmul on tfl.matmul: 1-D operands promoted, batch dims
  /// broadcast and flattened into one.
  Value emitMatmul(Value lhs, Value rhs, mlir::RankedTensorType resultType,
                   mlir::Location l);
  /// A call of user function `callee` through a value of `calleeType` (a
  /// function, a closure, a bound method or a callable record) whose
  /// leaves are `calleeLeaves`, with `args` in parameter order.
  Values emitUserCall(const Specialization *callee, const Type &calleeType,
                      const Values &calleeLeaves, llvm::ArrayRef<Values> args,
                      mlir::Location l);
  /// `tree_map(fn, trees...)`: one call of fn per leaf position.
  Values genTreeMap(const CallExpr *expr);
  /// jvp(f, primals, tangents): a call of its generated specialization.
  Values genJvp(const CallExpr *expr);
  /// The body of a generated jvp specialization: tfl.jvp of f on the
  /// primals and captures, then the tangents (zeros for the captures).
  void genJvpBody(const Specialization &s, mlir::Block *entry,
                  llvm::ArrayRef<mlir::Type> resultTypes, mlir::Location l);
  /// vjp(f, *primals) and linearize(f, *primals): the generator's state,
  /// f's value, and the linear map's leaves (f's, the primals', the
  /// state).
  Values genLinearize(const CallExpr *expr);
  /// The body of a generated linear map: with the generator back at the
  /// value's state, a seeded tfl.grad of f (vjp_fn: the primals'
  /// cotangents) or its tfl.jvp (the value's tangent).
  void genLinearBody(const Specialization &s, mlir::Block *entry,
                     llvm::ArrayRef<mlir::Type> resultTypes, mlir::Location l);
  /// A checkpoint function's body: a call of the specialization it
  /// checkpoints (which a gradient recomputes: `tfl.checkpoint`).
  void genCheckpointBody(const Specialization &s, mlir::func::FuncOp fn,
                         llvm::ArrayRef<mlir::Type> resultTypes,
                         mlir::Location l);
  /// A vmap function's body: tfl.vmap of the specialization it maps.
  void genVmapBody(const Specialization &s, mlir::Block *entry,
                   llvm::ArrayRef<mlir::Type> resultTypes, mlir::Location l);
  /// split and chunk: static slices along the axis Sema planned.
  Values genPieces(const CallExpr *expr);
  /// The values of captured names, flattened.
  Values capturedValues(llvm::ArrayRef<std::string> names) {
    Values values;
    for (const std::string &name : names)
      llvm::append_range(values, env.lookup(name));
    return values;
  }
  Value emitBinary(BinaryOp op, Value lhs, Value rhs, const Type &type,
                   mlir::Location l);
  Value genCompare(const CompareExpr *expr);
  Values genSubscript(const SubscriptExpr *expr);
  /// A field of a record, a module's constant, or a method's receiver.
  Values genAttribute(const AttributeExpr *expr);
  /// The leaves of element `index` of a tuple or record of type `tree`.
  Values element(const Values &leaves, const Type &tree, size_t index);
  /// A module constant `literal` read at `use` (of type `t`).
  Values genConstantUse(const Expr *literal, const Type &t, mlir::Location l);
  /// `values` cast leaf by leaf to the dtypes of `type`.
  Values castLeaves(const Values &values, const Type &type, mlir::Location l);
  /// `cond ? thenFn() : elseFn()` as an scf.if yielding one tensor.
  Value genSelect(Value cond, mlir::Type type, mlir::Location l,
                  llvm::function_ref<Value()> thenFn,
                  llvm::function_ref<Value()> elseFn);
  void genIf(const IfStmt *stmt);
  void genFor(const ForStmt *stmt);
  void genWhile(const WhileStmt *stmt);
  /// `for x in (a, b, c)`: the body once per element (elements share one
  /// type).
  void genForTuple(const ForStmt *stmt);
  /// The loop variable of iteration `k` (an i64 scalar) of a `for`.
  Values loopValue(const ForStmt *stmt, Value k, mlir::Location l);
  /// Row `k` (an i64) of a tensor.
  Value rowOf(Value tensor, Value k, mlir::Location l);
  /// The values of `vars` in the environment, cast to their carried types.
  Values carriedValues(llvm::ArrayRef<CarriedVar> vars, mlir::Location l);
  void bindCarried(llvm::ArrayRef<CarriedVar> vars, mlir::ValueRange values);
  /// The scalar in a 0-d tensor, and back.
  Value extract(Value tensor, mlir::Location l);
  Value fromScalar(Value scalar, mlir::Location l);
  Values genCall(const CallExpr *expr);
  /// A built-in call, by its family (Builtins.def;
  /// MLIRGenBuiltinCalls.cpp).
  Values genBuiltinCall(const CallExpr *expr, Builtin b);
  Values genShapeFamily(const CallExpr *expr, ShapeBuiltin op);
  Value genNNFamily(const CallExpr *expr, NNBuiltin op);
  Values genRandomIOFamily(const CallExpr *expr, RandomIOBuiltin op);
  Values genTransformFamily(const CallExpr *expr, TransformBuiltin op);
  Values genSequenceFamily(const CallExpr *expr, SequenceBuiltin op);
  Values genParallelFamily(const CallExpr *expr, ParallelBuiltin op);
  /// Elementwise built-ins and matmul, in the result's dtype.
  Value genMath(const CallExpr *expr, MathBuiltin op);
  /// The op of a one-operand elementwise built-in.
  Value genUnaryMath(MathBuiltin op, Value x, mlir::Location l);
  /// zip and enumerate: tuples of the arguments' elements.
  Values genZip(const CallExpr *expr, bool counted);
  /// encode: a string's bytes; decode: text of the run.
  Values genEncodeDecode(const CallExpr *expr, bool encode);
  Value genGather(const CallExpr *expr);
  /// conv2d and the pools.
  Value genWindowed(const CallExpr *expr, NNBuiltin op);
  Value genAttention(const CallExpr *expr);
  /// tril (`lower`) and triu.
  Value genTriangle(const CallExpr *expr, bool lower);
  /// The [rows, cols] bool mask of `column <pred> row + k` (eye's diagonal,
  /// tril's and triu's triangles), compared from a column of row indices
  /// and a row of column indices: constants of rows + cols elements, not
  /// rows * cols.
  Value diagonalMask(int64_t rows, int64_t cols, int64_t k,
                     mlir::tfl::ComparePredicate pred, mlir::Location l);
  Value genReduction(const CallExpr *expr, ReductionBuiltin op);
  /// mean, var and std of `x` over `info`'s axes (NumPy's two passes).
  Value genMoment(Value x, const ReductionInfo &info, ReductionBuiltin op,
                  mlir::Location l);
  /// logsumexp: m + log(sum(exp(x - m))), m the maximum where finite.
  Value genLogSumExp(Value x, llvm::ArrayRef<int64_t> axes, bool keep,
                     mlir::Location l);
  /// A 0-d constant `v` of `x`'s element type (a float type).
  Value scalarLike(Value x, double v, mlir::Location l);
  Value genNN(const CallExpr *expr, llvm::StringRef name);
  /// seed, shuffle_indices, and random_normal/uniform as a standard draw
  /// scaled by tfl ops (which fuse with their users).
  Value genRandom(const CallExpr *expr, llvm::StringRef name);
  /// The file built-ins (load and save functions, log_scalar).
  Values genIO(const CallExpr *expr, llvm::StringRef name);
  /// x.shape, x.ndim, x.size, x.dtype (no run-time value), x.T.
  Values genTensorAttribute(const AttributeExpr *expr, llvm::StringRef attr);
  /// all_reduce and broadcast: one collective op on the tree's leaves.
  Values genCollective(const CallExpr *expr, llvm::StringRef name);
  /// Stops the run unless the world's size `size` is `expected`, the
  /// number of processes the program was compiled for.
  void checkWorldSize(Value size, int64_t expected, mlir::Location l);
  Value genFilled(const CallExpr *expr, ShapeBuiltin op);
  Value genRange(const CallExpr *expr);
  Value genJoin(const CallExpr *expr, bool stack);
  Value genLayout(const CallExpr *expr, ShapeBuiltin op);
  /// A reduction op of `x` over `axes`.
  template <typename OpTy>
  Value reduce(Value x, llvm::ArrayRef<int64_t> axes, bool keepdims,
               mlir::Location l) {
    auto type = cast<mlir::RankedTensorType>(x.getType());
    auto resultType =
        type.clone(mlir::tfl::reducedShape(type.getShape(), axes, keepdims));
    return OpTy::create(builder, l, resultType, x,
                        builder.getDenseI64ArrayAttr(axes),
                        builder.getBoolAttr(keepdims));
  }
  template <typename OpTy> Value unary(Value x, mlir::Location l) {
    return OpTy::create(builder, l, x);
  }
  /// An elementwise binary tfl op whose result type is the broadcast of the
  /// operands' (both of one element type).
  template <typename OpTy>
  Value broadcastingBinary(Value lhs, Value rhs, mlir::Location l);
  void genPrint(const CallExpr *expr);
  /// A tfl.debug_point of debug scope `scope` (the variables' leaves).
  void genDebugPoint(size_t scope, bool stop, mlir::Location l);
  /// Shows the value of a top-level expression at the prompt, as Python's
  /// prompt does: print's text, a string quoted.
  void genDisplay(const Expr *expr);
  Value castTo(Value v, mlir::Type elemType, mlir::Location l);

  /// An i64 scalar, as a 0-d tensor.
  Value i64Constant(int64_t v, mlir::Location l) {
    auto type = mlir::RankedTensorType::get({}, builder.getI64Type());
    return mlir::tfl::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, builder.getI64IntegerAttr(v)));
  }
  /// `x`'s shape, as a tuple of i64 scalars (`shape(x)`, `x.shape`):
  /// constants, and the size of a batch (a `?` dim) read when it runs.
  Values shapeValues(const Expr *x, mlir::Location l) {
    const Type &t = typeOf(x);
    Value value;
    if (llvm::is_contained(t.shape, kDynamicDim))
      value = genExpr(x)[0];
    Values sizes;
    for (size_t d = 0; d < t.shape.size(); ++d)
      sizes.push_back(
          t.shape[d] == kDynamicDim
              ? Value(mlir::tfl::DimOp::create(
                    builder, l,
                    mlir::RankedTensorType::get({}, builder.getI64Type()),
                    value, builder.getI64IntegerAttr(d)))
              : i64Constant(t.shape[d], l));
    return sizes;
  }

  /// The names' values and the number literals they hold, as of a point:
  /// each region of an if or a loop is generated from the bindings before
  /// it, which hold again after it.
  struct Bindings {
    llvm::StringMap<Values> env;
    llvm::StringMap<const Expr *> literals;
  };
  Bindings bindings() const { return {env, literalOf}; }
  void restore(const Bindings &b) {
    env = b.env;
    literalOf = b.literals;
  }
  void restore(Bindings &&b) {
    env = std::move(b.env);
    literalOf = std::move(b.literals);
  }
  /// Runs `fn` at the point of `b` (a region being built) with the bindings
  /// `from`.
  template <typename Fn>
  void inRegion(mlir::OpBuilder &b, const Bindings &from, Fn &&fn) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
    restore(from);
    fn();
  }

  /// A zero tensor of `type` (a ranked tensor type).
  Value zerosOf(mlir::Type type, mlir::Location l) {
    auto tensor = cast<mlir::RankedTensorType>(type);
    return mlir::tfl::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(
            tensor, builder.getZeroAttr(tensor.getElementType())));
  }
  Values zerosOf(llvm::ArrayRef<mlir::Type> types, mlir::Location l) {
    Values zeros;
    for (mlir::Type t : types)
      zeros.push_back(zerosOf(t, l));
    return zeros;
  }

  Value boolConstant(bool v, mlir::Location l) {
    auto type = mlir::RankedTensorType::get({}, builder.getI1Type());
    return mlir::tfl::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(v)));
  }

  mlir::MLIRContext &ctx;
  const Program &program;
  /// Marks the ops of `with device(...)` blocks (nested ones included).
  mlir::tfl::DeviceMarker deviceMarker;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  const Specialization *spec = nullptr;
  llvm::StringMap<Values> env;
  /// Whether the function being emitted returns from inside an if or a
  /// loop: then every return stores $retval and sets $returned, and the
  /// function ends by returning $retval.
  bool nestedReturns = false;
  /// The tensor each `for x in t` iterates over.
  /// The tensors a `for` iterates over the rows of (one, or zip's).
  llvm::DenseMap<const ForStmt *, llvm::SmallVector<Value, 2>> iterValues;
  /// Names currently bound to a number literal, with the literal.
  llvm::StringMap<const Expr *> literalOf;

  /// Binds `name` to `values` (no longer to a literal).
  void bind(llvm::StringRef name, Values values) {
    env[name] = std::move(values);
    literalOf.erase(name);
  }
};

template <typename OpTy>
Value MLIRGenImpl::broadcastingBinary(Value lhs, Value rhs, mlir::Location l) {
  auto a = cast<mlir::RankedTensorType>(lhs.getType());
  auto b = cast<mlir::RankedTensorType>(rhs.getType());
  llvm::SmallVector<int64_t> shape =
      *mlir::tfl::broadcastShapes(a.getShape(), b.getShape());
  return OpTy::create(builder, l, a.clone(shape), lhs, rhs);
}

} // namespace tfl::mlirgen

#endif // TFL_FRONTEND_MLIRGENIMPL_H
