//===- AST.h - The TFL abstract syntax tree ---------------------*- C++ -*-===//
//
// The AST the parser builds from ANTLR's parse tree: every node carries the
// source range it came from. Nodes use LLVM-style RTTI (classof on a kind).
// The AST is immutable after parsing; Sema keeps its per-specialization facts
// (types, call targets) in side tables keyed by node.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_AST_H
#define TFL_FRONTEND_AST_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfl::ast {

/// A 1-based line and column in a source file.
struct Position {
  unsigned line = 0;
  unsigned col = 0;
};

struct SourceRange {
  Position begin;
  Position end;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    Int,
    Float,
    Bool,
    None,
    Ellipsis,
    String,
    FString,
    Name,
    List,
    Tuple,
    Unary,
    Binary,
    Compare,
    Not,
    BoolOp,
    Cond,
    Call,
    Attribute,
    Subscript,
    Slice,
    Lambda,
    Starred,
    Comprehension,
  };

  Expr(Kind kind, SourceRange range) : kind(kind), range(range) {}
  virtual ~Expr() = default;
  Kind getKind() const { return kind; }
  SourceRange getRange() const { return range; }
  Position getBegin() const { return range.begin; }

private:
  Kind kind;
  SourceRange range;
};

using ExprPtr = std::unique_ptr<Expr>;

template <Expr::Kind K> class ExprBase : public Expr {
public:
  explicit ExprBase(SourceRange range) : Expr(K, range) {}
  static bool classof(const Expr *e) { return e->getKind() == K; }
};

/// An integer literal. `text` keeps the spelling for messages.
struct IntExpr : ExprBase<Expr::Kind::Int> {
  IntExpr(SourceRange r, int64_t value) : ExprBase(r), value(value) {}
  int64_t value;
};

struct FloatExpr : ExprBase<Expr::Kind::Float> {
  FloatExpr(SourceRange r, double value) : ExprBase(r), value(value) {}
  double value;
};

struct BoolExpr : ExprBase<Expr::Kind::Bool> {
  BoolExpr(SourceRange r, bool value) : ExprBase(r), value(value) {}
  bool value;
};

struct NoneExpr : ExprBase<Expr::Kind::None> {
  using ExprBase::ExprBase;
};

struct EllipsisExpr : ExprBase<Expr::Kind::Ellipsis> {
  using ExprBase::ExprBase;
};

/// A string literal (adjacent literals already concatenated, escapes
/// decoded).
struct StringExpr : ExprBase<Expr::Kind::String> {
  StringExpr(SourceRange r, std::string value)
      : ExprBase(r), value(std::move(value)) {}
  std::string value;
};

/// An f-string: literal text and `{expr:spec}` fields in order.
struct FStringExpr : ExprBase<Expr::Kind::FString> {
  struct Part {
    std::string text; // literal text, when `expr` is null
    ExprPtr expr;
    std::string spec; // the format spec after ':' (may be empty)
  };
  FStringExpr(SourceRange r, std::vector<Part> parts)
      : ExprBase(r), parts(std::move(parts)) {}
  std::vector<Part> parts;
};

struct NameExpr : ExprBase<Expr::Kind::Name> {
  NameExpr(SourceRange r, std::string name)
      : ExprBase(r), name(std::move(name)) {}
  std::string name;
};

/// `[a, b, ...]`: a nested list literal.
struct ListExpr : ExprBase<Expr::Kind::List> {
  ListExpr(SourceRange r, std::vector<ExprPtr> elements)
      : ExprBase(r), elements(std::move(elements)) {}
  std::vector<ExprPtr> elements;
};

struct TupleExpr : ExprBase<Expr::Kind::Tuple> {
  TupleExpr(SourceRange r, std::vector<ExprPtr> elements)
      : ExprBase(r), elements(std::move(elements)) {}
  std::vector<ExprPtr> elements;
};

enum class UnaryOp { Plus, Minus };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul };
enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne, In, NotIn };

llvm::StringRef spelling(UnaryOp op);
llvm::StringRef spelling(BinaryOp op);
llvm::StringRef spelling(CompareOp op);

struct UnaryExpr : ExprBase<Expr::Kind::Unary> {
  UnaryExpr(SourceRange r, UnaryOp op, ExprPtr operand)
      : ExprBase(r), op(op), operand(std::move(operand)) {}
  UnaryOp op;
  ExprPtr operand;
};

struct BinaryExpr : ExprBase<Expr::Kind::Binary> {
  BinaryExpr(SourceRange r, BinaryOp op, ExprPtr lhs, ExprPtr rhs,
             Position opPos)
      : ExprBase(r), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)),
        opPos(opPos) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
  Position opPos; // where the operator is, for diagnostics
};

/// `a < b <= c`: Python's comparison chain (`a < b and b <= c`).
struct CompareExpr : ExprBase<Expr::Kind::Compare> {
  CompareExpr(SourceRange r, std::vector<ExprPtr> operands,
              std::vector<CompareOp> ops)
      : ExprBase(r), operands(std::move(operands)), ops(std::move(ops)) {}
  std::vector<ExprPtr> operands; // ops.size() + 1 of them
  std::vector<CompareOp> ops;
};

struct NotExpr : ExprBase<Expr::Kind::Not> {
  NotExpr(SourceRange r, ExprPtr operand)
      : ExprBase(r), operand(std::move(operand)) {}
  ExprPtr operand;
};

struct BoolOpExpr : ExprBase<Expr::Kind::BoolOp> {
  BoolOpExpr(SourceRange r, bool isAnd, ExprPtr lhs, ExprPtr rhs)
      : ExprBase(r), isAnd(isAnd), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  bool isAnd;
  ExprPtr lhs, rhs;
};

/// `then if cond else otherwise`.
struct CondExpr : ExprBase<Expr::Kind::Cond> {
  CondExpr(SourceRange r, ExprPtr cond, ExprPtr thenExpr, ExprPtr elseExpr)
      : ExprBase(r), cond(std::move(cond)), thenExpr(std::move(thenExpr)),
        elseExpr(std::move(elseExpr)) {}
  ExprPtr cond, thenExpr, elseExpr;
};

struct Keyword {
  std::string name;
  ExprPtr value;
  SourceRange range;
};

struct CallExpr : ExprBase<Expr::Kind::Call> {
  CallExpr(SourceRange r, ExprPtr callee, std::vector<ExprPtr> args,
           std::vector<Keyword> keywords)
      : ExprBase(r), callee(std::move(callee)), args(std::move(args)),
        keywords(std::move(keywords)) {}
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
};

struct AttributeExpr : ExprBase<Expr::Kind::Attribute> {
  AttributeExpr(SourceRange r, ExprPtr value, std::string attr)
      : ExprBase(r), value(std::move(value)), attr(std::move(attr)) {}
  ExprPtr value;
  std::string attr;
};

/// `lo:hi:step` inside a subscript; any part may be missing.
struct SliceExpr : ExprBase<Expr::Kind::Slice> {
  SliceExpr(SourceRange r, ExprPtr lo, ExprPtr hi, ExprPtr step)
      : ExprBase(r), lo(std::move(lo)), hi(std::move(hi)),
        step(std::move(step)) {}
  ExprPtr lo, hi, step;
};

struct SubscriptExpr : ExprBase<Expr::Kind::Subscript> {
  SubscriptExpr(SourceRange r, ExprPtr value, std::vector<ExprPtr> indices)
      : ExprBase(r), value(std::move(value)), indices(std::move(indices)) {}
  ExprPtr value;
  std::vector<ExprPtr> indices; // expressions, SliceExpr, None, Ellipsis
};

/// `*rest`: the rest of a tuple, as an assignment's or a `for`'s target.
struct StarredExpr : ExprBase<Expr::Kind::Starred> {
  StarredExpr(SourceRange r, ExprPtr value)
      : ExprBase(r), value(std::move(value)) {}
  ExprPtr value;
};

/// `[element for target in iter]`: unrolled over a tuple, a range of
/// integers known at compile time or a tensor's first axis; its value is
/// the tuple of the elements.
struct ComprehensionExpr : ExprBase<Expr::Kind::Comprehension> {
  ComprehensionExpr(SourceRange r, ExprPtr element, ExprPtr target,
                    ExprPtr iter)
      : ExprBase(r), element(std::move(element)), target(std::move(target)),
        iter(std::move(iter)) {}
  ExprPtr element, target, iter;
};

struct FuncDef;

/// `lambda x, y: body`, held as a function named "<lambda>" whose body
/// returns `body`, so a lambda and a `def` are one kind of callable.
struct LambdaExpr : ExprBase<Expr::Kind::Lambda> {
  LambdaExpr(SourceRange r, std::unique_ptr<FuncDef> def);
  ~LambdaExpr() override;
  std::unique_ptr<FuncDef> def;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind {
    Expr,
    Assign,
    AnnAssign,
    AugAssign,
    Return,
    Pass,
    Break,
    Continue,
    Import,
    FromImport,
    Assert,
    If,
    While,
    For,
    With,
    FuncDef,
    ClassDef,
  };
  Stmt(Kind kind, SourceRange range) : kind(kind), range(range) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  SourceRange getRange() const { return range; }
  Position getBegin() const { return range.begin; }

private:
  Kind kind;
  SourceRange range;
};

using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

template <Stmt::Kind K> class StmtBase : public Stmt {
public:
  explicit StmtBase(SourceRange range) : Stmt(K, range) {}
  static bool classof(const Stmt *s) { return s->getKind() == K; }
};

struct ExprStmt : StmtBase<Stmt::Kind::Expr> {
  ExprStmt(SourceRange r, ExprPtr value)
      : StmtBase(r), value(std::move(value)) {}
  ExprPtr value;
};

/// `t1 = t2 = value`: targets are names, tuples of targets, attributes or
/// subscripts.
struct AssignStmt : StmtBase<Stmt::Kind::Assign> {
  AssignStmt(SourceRange r, std::vector<ExprPtr> targets, ExprPtr value)
      : StmtBase(r), targets(std::move(targets)), value(std::move(value)) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

/// `name: annotation [= value]` (a class field, or an annotated binding).
struct AnnAssignStmt : StmtBase<Stmt::Kind::AnnAssign> {
  AnnAssignStmt(SourceRange r, ExprPtr target, ExprPtr annotation,
                ExprPtr value)
      : StmtBase(r), target(std::move(target)),
        annotation(std::move(annotation)), value(std::move(value)) {}
  ExprPtr target, annotation, value; // value may be null
};

struct AugAssignStmt : StmtBase<Stmt::Kind::AugAssign> {
  AugAssignStmt(SourceRange r, ExprPtr target, BinaryOp op, ExprPtr value)
      : StmtBase(r), target(std::move(target)), op(op),
        value(std::move(value)) {}
  ExprPtr target;
  BinaryOp op;
  ExprPtr value;
};

struct ReturnStmt : StmtBase<Stmt::Kind::Return> {
  ReturnStmt(SourceRange r, ExprPtr value)
      : StmtBase(r), value(std::move(value)) {}
  ExprPtr value; // null for a bare `return`
};

struct PassStmt : StmtBase<Stmt::Kind::Pass> {
  using StmtBase::StmtBase;
};
struct BreakStmt : StmtBase<Stmt::Kind::Break> {
  using StmtBase::StmtBase;
};
struct ContinueStmt : StmtBase<Stmt::Kind::Continue> {
  using StmtBase::StmtBase;
};

struct ImportName {
  std::string name;  // dotted
  std::string alias; // empty when none
  SourceRange range;
};

struct ImportStmt : StmtBase<Stmt::Kind::Import> {
  ImportStmt(SourceRange r, std::vector<ImportName> names)
      : StmtBase(r), names(std::move(names)) {}
  std::vector<ImportName> names;
};

struct FromImportStmt : StmtBase<Stmt::Kind::FromImport> {
  FromImportStmt(SourceRange r, std::string module, SourceRange moduleRange,
                 std::vector<ImportName> names)
      : StmtBase(r), module(std::move(module)), moduleRange(moduleRange),
        names(std::move(names)) {}
  std::string module;
  SourceRange moduleRange;
  std::vector<ImportName> names;
};

struct AssertStmt : StmtBase<Stmt::Kind::Assert> {
  AssertStmt(SourceRange r, ExprPtr cond, ExprPtr message)
      : StmtBase(r), cond(std::move(cond)), message(std::move(message)) {}
  ExprPtr cond, message;
};

/// `if`/`elif`/`else`: elifs are nested IfStmts in `orelse`.
struct IfStmt : StmtBase<Stmt::Kind::If> {
  IfStmt(SourceRange r, ExprPtr cond, Block body, Block orelse)
      : StmtBase(r), cond(std::move(cond)), body(std::move(body)),
        orelse(std::move(orelse)) {}
  ExprPtr cond;
  Block body, orelse;
};

struct WhileStmt : StmtBase<Stmt::Kind::While> {
  WhileStmt(SourceRange r, ExprPtr cond, Block body)
      : StmtBase(r), cond(std::move(cond)), body(std::move(body)) {}
  ExprPtr cond;
  Block body;
};

struct ForStmt : StmtBase<Stmt::Kind::For> {
  ForStmt(SourceRange r, ExprPtr target, ExprPtr iter, Block body)
      : StmtBase(r), target(std::move(target)), iter(std::move(iter)),
        body(std::move(body)) {}
  ExprPtr target, iter;
  Block body;
};

/// `with device("cpu"):`: the body runs where the context says (its
/// statements are the enclosing block's for control flow and bindings).
struct WithStmt : StmtBase<Stmt::Kind::With> {
  WithStmt(SourceRange r, ExprPtr context, Block body)
      : StmtBase(r), context(std::move(context)), body(std::move(body)) {}
  ExprPtr context;
  Block body;
};

struct Param {
  std::string name;
  ExprPtr annotation;   // may be null
  ExprPtr defaultValue; // may be null
  SourceRange range;
};

struct Decorator {
  std::string name;
  SourceRange range;
};

/// The decorators TFL knows, as its diagnostics list them.
inline constexpr const char *kKnownDecorators =
    "@custom_gradient, @custom_jvp, @checkpoint, @remat and @export";

struct FuncDef : StmtBase<Stmt::Kind::FuncDef> {
  FuncDef(SourceRange r, std::string name, Position namePos,
          std::vector<Param> params, ExprPtr returns, Block body,
          std::vector<Decorator> decorators)
      : StmtBase(r), name(std::move(name)), namePos(namePos),
        params(std::move(params)), returns(std::move(returns)),
        body(std::move(body)), decorators(std::move(decorators)) {}
  std::string name;
  Position namePos;
  std::vector<Param> params;
  ExprPtr returns; // may be null
  Block body;
  std::vector<Decorator> decorators;
};

struct ClassDef : StmtBase<Stmt::Kind::ClassDef> {
  ClassDef(SourceRange r, std::string name, Block body,
           std::vector<Decorator> decorators)
      : StmtBase(r), name(std::move(name)), body(std::move(body)),
        decorators(std::move(decorators)) {}
  std::string name;
  Block body;
  std::vector<Decorator> decorators;
};

/// One `.tfl` file.
struct Module {
  std::string fileName;
  /// The name it is imported by (`nn` for nn.tfl); empty for the program's
  /// main file.
  std::string name;
  Block body;
};

/// The integer literal `e` denotes (`2`, `-1`), if it is one.
std::optional<int64_t> intLiteral(const Expr *e);
/// True for a literal a module constant may hold: numbers, booleans,
/// strings, nested lists of numbers, and tuples of these.
bool isLiteral(const Expr *e);
/// Adds the names assignment target `target` binds (`a`, `a, *b`).
void collectTargetNames(const Expr *target, llvm::StringSet<> &out);
/// Adds every name a statement, or a block, may (re)bind as a variable
/// (assignments and loop targets, nested blocks included).
void collectAssigned(const Stmt *s, llvm::StringSet<> &out);
void collectAssigned(const Block &block, llvm::StringSet<> &out);

/// Whether keyword `keyword` names a built-in's parameter `param`: its own
/// name, or PyTorch's spelling of it, which code ported from PyTorch writes
/// (dim for axis, keepdim for keepdims, correction for ddof).
bool namesParameter(llvm::StringRef keyword, llvm::StringRef param);

/// Argument `index` of a built-in's call, given by position or as keyword
/// `name` (namesParameter); null when it is not given.
const Expr *argument(const CallExpr *call, size_t index, llvm::StringRef name);

/// A call made of another call's nodes without owning them: a method call
/// on a tensor, `x.sum(axis=1)`, stands for the built-in call
/// `sum(x, axis=1)`, whose arguments are the method call's receiver and
/// its own arguments (packed into one tuple when `pack`: `x.reshape(2, 3)`
/// is `reshape(x, (2, 3))`), then `extra`, which it owns. Sema makes these
/// and keeps them as long as the AST.
class BorrowedCall {
public:
  BorrowedCall(const CallExpr &method, const Expr &receiver,
               llvm::StringRef builtin, bool pack,
               std::vector<ExprPtr> extra = {});
  ~BorrowedCall();
  BorrowedCall(const BorrowedCall &) = delete;
  BorrowedCall &operator=(const BorrowedCall &) = delete;
  const CallExpr *get() const { return call.get(); }

private:
  std::unique_ptr<CallExpr> call;
  std::vector<const Expr *> borrowed;
};

/// The fields of a record class: its annotated names (`w: f32[3, 4]`), in
/// order.
std::vector<const AnnAssignStmt *> fieldsOf(const ClassDef &cls);
/// The method `name` of a class, if it defines one.
const FuncDef *methodOf(const ClassDef &cls, llvm::StringRef name);

/// True when `stmt` may run a `break` or `continue` of the loop it is in
/// (not of a loop nested inside it).
bool mayExitLoop(const Stmt *stmt);
/// True when `body` (a loop's) has a `break` of that loop, or a `return`
/// (which leaves the loop too).
bool hasBreak(const Block &body);
/// True when `stmt` holds a `return` nested in an `if` or a loop.
bool mayReturn(const Stmt *stmt);
/// True when a function body returns from inside an `if` or a loop.
bool hasNestedReturn(const Block &body);

/// Writes an indented, one-node-per-line dump (`tflc emit ast`).
void dump(const Module &module, llvm::raw_ostream &os);

} // namespace tfl::ast

#endif // TFL_FRONTEND_AST_H
