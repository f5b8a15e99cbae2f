//===- AstBuilder.h - The parse tree's walk into the AST ------------------===//
//
// Shared by Parser.cpp (files, statements, the parser's driver) and
// ParserExprs.cpp (expressions).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_ASTBUILDER_H
#define TFL_FRONTEND_ASTBUILDER_H

#include "TFLLexer.h"
#include "TFLParser.h"
#include "tfl/Frontend/AST.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <string>

namespace tfl::parser {

using ast::Block;
using ast::Decorator;
using ast::Expr;
using ast::ExprPtr;
using ast::Module;
using ast::Position;
using ast::SourceRange;
using ast::StmtPtr;

/// Reports the first error of a parse; later ones are dropped.
class ErrorSink {
public:
  ErrorSink(mlir::MLIRContext *ctx, llvm::StringRef fileName)
      : ctx(ctx), fileName(fileName) {}

  void report(size_t line, size_t col, const std::string &msg) {
    if (failed)
      return;
    failed = true;
    mlir::emitError(mlir::FileLineColLoc::get(ctx, fileName, line, col)) << msg;
  }
  bool hasFailed() const { return failed; }

private:
  mlir::MLIRContext *ctx;
  std::string fileName;
  bool failed = false;
};

/// Walks ANTLR's parse tree into the AST.
class AstBuilder {
public:
  AstBuilder(ErrorSink &sink, mlir::MLIRContext *ctx, std::string fileName,
             size_t lineBase = 0, size_t colBase = 0)
      : sink(sink), ctx(ctx), fileName(std::move(fileName)), lineBase(lineBase),
        colBase(colBase) {}

  std::unique_ptr<Module> buildFile(TFLParser::FileContext *file);
  ExprPtr buildExpr(TFLParser::ExprContext *ctx);

  /// How deep expressions may nest (operators, calls, subscripts inside one
  /// another: a chain `a + b + ...` of N terms is N - 1 deep). Every later
  /// stage walks expressions recursively; tflc gives them a stack that holds
  /// this depth with room to spare (tfl::runWithLargeStack).
  static constexpr unsigned kMaxExprDepth = 5000;

private:
  ExprPtr buildExprNode(TFLParser::ExprContext *ctx);
  ExprPtr buildCall(TFLParser::CallExprContext *e);
  ExprPtr buildSubscript(TFLParser::SubscriptExprContext *e);
  /// -9223372036854775808 is one literal, i64's least value.
  ExprPtr buildUnary(TFLParser::UnaryExprContext *e);
  /// `a < b < c` flattened into one CompareExpr (the grammar nests it to the
  /// left).
  ExprPtr buildCompare(TFLParser::CompareExprContext *e);
  /// A lambda: a FuncDef whose body returns its expression.
  ExprPtr buildLambda(TFLParser::LambdaExprContext *e);

  Position pos(antlr4::Token *tok) const {
    size_t line = tok->getLine(), col = tok->getCharPositionInLine();
    if (line == 1)
      col += colBase;
    return {static_cast<unsigned>(line + lineBase),
            static_cast<unsigned>(col + 1)};
  }
  SourceRange range(antlr4::ParserRuleContext *c) const {
    Position end = pos(c->getStop() ? c->getStop() : c->getStart());
    if (c->getStop())
      end.col += c->getStop()->getText().size();
    return {pos(c->getStart()), end};
  }
  void error(Position p, const std::string &msg) {
    sink.report(p.line, p.col, msg);
  }

  void buildStmt(TFLParser::StmtContext *ctx, Block &out);
  void buildSimpleStmts(TFLParser::SimpleStmtsContext *ctx, Block &out);
  StmtPtr buildSimpleStmt(TFLParser::SimpleStmtContext *ctx);
  StmtPtr buildCompoundStmt(TFLParser::CompoundStmtContext *ctx);
  StmtPtr buildIf(TFLParser::IfStmtContext *ctx, size_t clause);
  StmtPtr buildFuncDef(TFLParser::FuncDefContext *ctx);
  Block buildBlock(TFLParser::BlockContext *ctx);
  std::vector<Decorator>
  buildDecorators(const std::vector<TFLParser::DecoratorContext *> &ds);
  ExprPtr buildExprList(TFLParser::ExprListContext *ctx);
  ExprPtr buildTargetList(TFLParser::TargetListContext *ctx);
  ExprPtr buildAtom(TFLParser::AtomContext *ctx);
  ExprPtr buildFString(antlr4::Token *tok);
  /// Reports Python's forms of an f-string field that TFL lacks (a
  /// conversion, {x!r}; a self-documenting {x=}) in the field's expression
  /// text, which starts at `at`; false if it has one.
  bool checkFieldForm(llvm::StringRef exprText, Position at);
  ExprPtr buildBinary(TFLParser::ExprContext *ctx, antlr4::Token *op,
                      TFLParser::ExprContext *lhs, TFLParser::ExprContext *rhs);
  bool checkTarget(const Expr *target, bool allowTuple);

  unsigned exprDepth = 0;

  ErrorSink &sink;
  mlir::MLIRContext *ctx;
  std::string fileName;
  size_t lineBase, colBase;
};

/// A quoted literal's text with its escapes decoded (Python's short
/// escapes, \xHH).
std::string decodeString(llvm::StringRef quoted);

} // namespace tfl::parser

#endif // TFL_FRONTEND_ASTBUILDER_H
