//===- SemaImpl.h - The analyzer behind Sema, shared by its files -*- C++
//-*-===//
//
// Sema's state and methods, split by concept over Sema.cpp (the module,
// statements and closures), SemaExpr.cpp (expressions), SemaBuiltins.cpp
// (built-in calls) and SemaCalls.cpp (user calls, annotations and
// specializations). Private to the frontend library.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_SEMAIMPL_H
#define TFL_FRONTEND_SEMAIMPL_H

#include "tfl/Frontend/Sema.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>

namespace tfl::sema {

using ast::BinaryExpr;
using ast::BinaryOp;
using ast::Block;
using ast::CallExpr;
using ast::CompareExpr;
using ast::CondExpr;
using ast::Expr;
using ast::ForStmt;
using ast::FStringExpr;
using ast::FuncDef;
using ast::IfStmt;
using ast::ListExpr;
using ast::Module;
using ast::NameExpr;
using ast::Position;
using ast::Stmt;
using ast::SubscriptExpr;
using ast::UnaryExpr;
using mlir::FailureOr;
using mlir::LogicalResult;

/// Built-in functions by family, and all of them.
const llvm::StringSet<> &floatMathBuiltins();
const llvm::StringSet<> &numericMathBuiltins();
const llvm::StringSet<> &builtinNames();
/// The dtype a name like `f32` denotes, if any.
std::optional<DType> dtypeNamed(llvm::StringRef name);
/// Checks and computes the dtype two operands of arithmetic share.
std::optional<Type> unifyOperands(const Type &a, const Type &b);
/// NumPy's broadcast of two shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t> &a,
                                              const std::vector<int64_t> &b);
/// The integer literal `e` denotes (`2`, `-1`), if it is one.
std::optional<int64_t> intLiteral(const Expr *e);
/// Argument `index` of a call, given by position or as keyword `name`.
const Expr *argument(const CallExpr *call, size_t index, llvm::StringRef name);

class SemaImpl {
public:
  SemaImpl(const Module &module, mlir::MLIRContext *ctx)
      : module(module), ctx(ctx) {}

  std::unique_ptr<Program> run();

private:
  /// Per-specialization analysis state.
  struct Frame {
    Specialization *spec;
    llvm::StringMap<Type> vars;
    std::optional<Type> returnType;
    bool isScript;
    /// Names bound on some paths only (one branch of an `if`, inside a
    /// loop): using them is an error.
    llvm::StringSet<> conditional;
    /// How many `if`/`for`/`while` bodies enclose the current statement.
    int controlDepth = 0;
    /// How many loops enclose the current statement.
    int loopDepth = 0;
  };

  mlir::InFlightDiagnostic error(Position p) {
    return mlir::emitError(
        mlir::FileLineColLoc::get(ctx, module.fileName, p.line, p.col));
  }

  /// Analyzes `block` from statement `from` on.
  LogicalResult analyzeBlock(const Block &block, size_t from = 0);
  void collectModuleConstants();
  LogicalResult analyzeIf(const IfStmt *stmt);
  LogicalResult analyzeLoop(const Stmt *stmt, const Block &body,
                            const Expr *cond, const std::string &loopVar,
                            const Type &loopVarType = Type::tensor(DType::I64,
                                                                   {}));
  LogicalResult analyzeFor(const ForStmt *stmt);
  LogicalResult checkCondition(const Expr *cond, llvm::StringRef what);
  LogicalResult analyzeStmt(const Stmt *stmt);
  LogicalResult bindTarget(const Expr *target, const Type &type);
  FailureOr<Type> analyzeExpr(const Expr *expr);
  FailureOr<Type> analyzeName(const NameExpr *expr);
  FailureOr<Type> analyzeList(const ListExpr *expr);
  FailureOr<Type> analyzeUnary(const UnaryExpr *expr);
  FailureOr<Type> analyzeBinary(const BinaryExpr *expr);
  FailureOr<Type> binaryType(BinaryOp op, const Expr *lhsExpr, Type lhs,
                             const Expr *rhsExpr, Type rhs, Position opPos);
  FailureOr<Type> analyzeCompare(const CompareExpr *expr);
  FailureOr<Type> analyzeSubscript(const SubscriptExpr *expr);
  FailureOr<Type> analyzeCond(const CondExpr *expr);
  FailureOr<Type> requireBoolScalar(const Expr *expr, llvm::StringRef what);
  FailureOr<Type> analyzeCall(const CallExpr *expr);
  FailureOr<Type> analyzePrint(const CallExpr *expr);
  LogicalResult analyzeFString(const FStringExpr *expr);
  FailureOr<Type> analyzeBuiltin(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeReduction(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeNN(const CallExpr *expr, llvm::StringRef name);
  FailureOr<Type> analyzeFlag(const CallExpr *expr);
  FailureOr<Type> analyzeShapeBuiltin(const CallExpr *expr,
                                      llvm::StringRef name);
  std::optional<std::vector<int64_t>> constInts(const Expr *e);
  /// Types, coerces and broadcasts the operands of an elementwise built-in.
  FailureOr<Type> elementwiseOperands(const CallExpr *expr,
                                      llvm::StringRef name,
                                      llvm::ArrayRef<Type> types);
  FailureOr<Type> analyzeUserCall(const CallExpr *expr, const Type &callee);
  /// Checks `actual` against the type annotation `ann` (`f32`,
  /// `f32[N, 28, ?]`, a tuple of these); named dims bind in `dims`. A weak
  /// literal takes the annotated dtype (`adjusted`).
  LogicalResult checkAnnotation(const Expr *ann, const Type &actual,
                                llvm::StringMap<int64_t> &dims,
                                llvm::StringRef what, Position at,
                                Type &adjusted);
  FailureOr<Specialization *>
  specialize(const Type &callee, std::vector<Type> argTypes, Position callPos);
  LogicalResult unsupported(const Expr *expr, llvm::StringRef what);
  /// The function value of `def` defined here: it captures the enclosing
  /// variables its body reads (closure conversion).
  Type closureOf(const FuncDef *def);

  /// Gives a weak expression (a literal, or arithmetic on literals) `dtype`.
  void coerce(const Expr *expr, DType dtype);
  Type &typeOf(const Expr *expr) { return frame->spec->types[expr]; }

  const Module &module;
  mlir::MLIRContext *ctx;
  std::unique_ptr<Program> program;
  llvm::StringMap<const FuncDef *> globals;
  /// Module constants: top-level names bound once, to a literal.
  llvm::StringMap<const Expr *> constants;
  /// Every name the script body binds (for a helpful error in functions).
  llvm::StringSet<> topLevelNames;
  std::map<std::pair<const FuncDef *, std::string>, Specialization *> cache;
  std::vector<Specialization *> inProgress;
  Frame *frame = nullptr;
};

} // namespace tfl::sema

#endif // TFL_FRONTEND_SEMAIMPL_H
