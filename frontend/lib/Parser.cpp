//===- Parser.cpp - From .tfl text to the AST -----------------------------===//
//
// Runs ANTLR's lexer (through IndentingTokenSource) and parser, then walks
// the parse tree into the AST (AstBuilder). The builder checks what the
// grammar cannot: assignment targets, literal ranges, f-string fields.
//
//===----------------------------------------------------------------------===//

#include "tfl/Frontend/Parser.h"

#include "IndentingTokenSource.h"
#include "TFLLexer.h"
#include "TFLParser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/thread.h"

#include <cmath>
#include <limits>

using namespace tfl;
using namespace tfl::ast;

namespace {

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

/// Turns ANTLR's syntax errors into "invalid syntax" diagnostics.
class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  explicit SyntaxErrorListener(ErrorSink &sink) : sink(sink) {}

  void syntaxError(antlr4::Recognizer *, antlr4::Token *offending, size_t line,
                   size_t col, const std::string &msg,
                   std::exception_ptr) override {
    std::string what;
    if (!offending) {
      what = "invalid syntax";
    } else {
      switch (offending->getType()) {
      case antlr4::Token::EOF:
        what = "invalid syntax: unexpected end of file";
        break;
      case TFLLexer::NEWLINE:
        what = "invalid syntax: unexpected end of line";
        break;
      case TFLParser::INDENT:
        what = "unexpected indent";
        break;
      case TFLParser::DEDENT:
        what = "invalid syntax: unexpected end of block";
        break;
      default:
        what = "invalid syntax: unexpected '" + offending->getText() + "'";
      }
    }
    // Keep ANTLR's hint when it names a single expected token
    // ("... expecting ':'" or "missing ':' at ...").
    std::string expected;
    size_t expecting = msg.find("expecting ");
    if (expecting != std::string::npos)
      expected = msg.substr(expecting + 10);
    else if (llvm::StringRef(msg).starts_with("missing "))
      expected = llvm::StringRef(msg).drop_front(8).split(" at ").first.str();
    if (!expected.empty() && expected.front() != '{') {
      what += ", expected " + expected;
    } else if (!expected.empty() && expected.back() == '}' &&
               std::count(expected.begin(), expected.end(), ',') < 4) {
      what += ", expected one of " + expected.substr(1, expected.size() - 2);
    }
    sink.report(line, col + 1, what);
  }

private:
  ErrorSink &sink;
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
  ExprPtr buildBinary(TFLParser::ExprContext *ctx, antlr4::Token *op,
                      TFLParser::ExprContext *lhs, TFLParser::ExprContext *rhs);
  bool checkTarget(const Expr *target, bool allowTuple);

  unsigned exprDepth = 0;

  ErrorSink &sink;
  mlir::MLIRContext *ctx;
  std::string fileName;
  size_t lineBase, colBase;
};

/// Decodes a quoted literal's escapes (Python's short escapes, \xHH).
std::string decodeString(llvm::StringRef quoted) {
  llvm::StringRef body;
  if (quoted.starts_with("\"\"\"") || quoted.starts_with("'''"))
    body = quoted.drop_front(3).drop_back(3);
  else
    body = quoted.drop_front(1).drop_back(1);
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
    case 'n':
      out += '\n';
      break;
    case 't':
      out += '\t';
      break;
    case 'r':
      out += '\r';
      break;
    case '0':
      out += '\0';
      break;
    case '\\':
    case '\'':
    case '"':
      out += e;
      break;
    case '\n':
      break; // line continuation inside a long string
    case 'x':
      if (i + 2 < body.size() + 0 && llvm::isHexDigit(body[i + 1]) &&
          llvm::isHexDigit(body[i + 2])) {
        out +=
            static_cast<char>(llvm::hexFromNibbles(body[i + 1], body[i + 2]));
        i += 2;
        break;
      }
      [[fallthrough]];
    default:
      out += '\\';
      out += e;
    }
  }
  return out;
}

std::unique_ptr<Module> AstBuilder::buildFile(TFLParser::FileContext *file) {
  auto module = std::make_unique<Module>();
  module->fileName = fileName;
  for (TFLParser::StmtContext *s : file->stmt())
    buildStmt(s, module->body);
  return module;
}

void AstBuilder::buildStmt(TFLParser::StmtContext *ctx, Block &out) {
  if (ctx->simpleStmts())
    return buildSimpleStmts(ctx->simpleStmts(), out);
  if (StmtPtr s = buildCompoundStmt(ctx->compoundStmt()))
    out.push_back(std::move(s));
}

void AstBuilder::buildSimpleStmts(TFLParser::SimpleStmtsContext *ctx,
                                  Block &out) {
  for (TFLParser::SimpleStmtContext *s : ctx->simpleStmt())
    if (StmtPtr stmt = buildSimpleStmt(s))
      out.push_back(std::move(stmt));
}

Block AstBuilder::buildBlock(TFLParser::BlockContext *ctx) {
  Block block;
  if (ctx->simpleStmts())
    buildSimpleStmts(ctx->simpleStmts(), block);
  for (TFLParser::StmtContext *s : ctx->stmt())
    buildStmt(s, block);
  return block;
}

ExprPtr AstBuilder::buildTargetList(TFLParser::TargetListContext *ctx) {
  std::vector<TFLParser::TargetContext *> targets = ctx->target();
  bool trailingComma = ctx->getStop()->getText() == ",";
  std::vector<ExprPtr> elements;
  for (TFLParser::TargetContext *t : targets) {
    SourceRange r = range(t);
    if (auto *n = dynamic_cast<TFLParser::NameTargetContext *>(t))
      elements.push_back(std::make_unique<NameExpr>(r, n->NAME()->getText()));
    else if (auto *s = dynamic_cast<TFLParser::StarTargetContext *>(t))
      elements.push_back(std::make_unique<StarredExpr>(
          r, std::make_unique<NameExpr>(r, s->NAME()->getText())));
    else if (auto *p = dynamic_cast<TFLParser::ParenTargetContext *>(t))
      elements.push_back(buildTargetList(p->targetList()));
    else
      elements.push_back(buildTargetList(
          dynamic_cast<TFLParser::BracketTargetContext *>(t)->targetList()));
  }
  if (elements.size() == 1 && !trailingComma &&
      !llvm::isa<StarredExpr>(elements[0].get()))
    return std::move(elements[0]);
  return std::make_unique<TupleExpr>(range(ctx), std::move(elements));
}

ExprPtr AstBuilder::buildExprList(TFLParser::ExprListContext *ctx) {
  std::vector<TFLParser::ExprContext *> exprs = ctx->expr();
  bool trailingComma = ctx->getStop()->getText() == ",";
  if (exprs.size() == 1 && !trailingComma)
    return buildExpr(exprs[0]);
  std::vector<ExprPtr> elements;
  for (TFLParser::ExprContext *e : exprs)
    elements.push_back(buildExpr(e));
  return std::make_unique<TupleExpr>(range(ctx), std::move(elements));
}

bool AstBuilder::checkTarget(const Expr *target, bool allowTuple) {
  if (llvm::isa<NameExpr, AttributeExpr, SubscriptExpr>(target))
    return true;
  if (auto *tuple = llvm::dyn_cast<TupleExpr>(target)) {
    if (allowTuple) {
      // Python's unpacking: at most one `*rest`, a name, per tuple.
      const Expr *starred = nullptr;
      for (const ExprPtr &e : tuple->elements) {
        if (auto *s = llvm::dyn_cast<StarredExpr>(e.get())) {
          if (starred) {
            error(s->getBegin(), "multiple starred expressions in assignment");
            return false;
          }
          starred = s;
          if (!llvm::isa<NameExpr>(s->value.get())) {
            error(s->getBegin(), "a starred target is a name: *rest");
            return false;
          }
          continue;
        }
        if (!checkTarget(e.get(), true))
          return false;
      }
      return true;
    }
  }
  if (llvm::isa<StarredExpr>(target)) {
    error(target->getBegin(),
          "a starred target must be in a tuple: a, *rest = ...");
    return false;
  }
  error(target->getBegin(), allowTuple ? "cannot assign to this expression"
                                       : "augmented assignment needs a name, "
                                         "attribute or subscript target");
  return false;
}

static std::optional<BinaryOp> augOp(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<BinaryOp>>(text)
      .Case("+=", BinaryOp::Add)
      .Case("-=", BinaryOp::Sub)
      .Case("*=", BinaryOp::Mul)
      .Case("/=", BinaryOp::Div)
      .Case("//=", BinaryOp::FloorDiv)
      .Case("%=", BinaryOp::Mod)
      .Case("**=", BinaryOp::Pow)
      .Case("@=", BinaryOp::MatMul)
      .Default(std::nullopt);
}

StmtPtr AstBuilder::buildSimpleStmt(TFLParser::SimpleStmtContext *ctx) {
  SourceRange r = range(ctx);
  if (auto *a = dynamic_cast<TFLParser::AssignStmtContext *>(ctx)) {
    std::vector<TFLParser::ExprListContext *> lists = a->exprList();
    std::vector<ExprPtr> targets;
    for (size_t i = 0; i + 1 < lists.size(); ++i) {
      targets.push_back(buildExprList(lists[i]));
      if (!checkTarget(targets.back().get(), true))
        return nullptr;
    }
    return std::make_unique<AssignStmt>(r, std::move(targets),
                                        buildExprList(lists.back()));
  }
  if (auto *a = dynamic_cast<TFLParser::AnnAssignStmtContext *>(ctx)) {
    ExprPtr target = buildExpr(a->expr(0));
    if (!llvm::isa<NameExpr, AttributeExpr>(target.get())) {
      error(target->getBegin(), "only a name can be annotated");
      return nullptr;
    }
    ExprPtr value = a->expr().size() > 2 ? buildExpr(a->expr(2)) : nullptr;
    return std::make_unique<AnnAssignStmt>(
        r, std::move(target), buildExpr(a->expr(1)), std::move(value));
  }
  if (auto *a = dynamic_cast<TFLParser::AugAssignStmtContext *>(ctx)) {
    ExprPtr target = buildExpr(a->expr(0));
    if (!checkTarget(target.get(), false))
      return nullptr;
    return std::make_unique<AugAssignStmt>(r, std::move(target),
                                           *augOp(a->augOp->getText()),
                                           buildExpr(a->expr(1)));
  }
  if (auto *s = dynamic_cast<TFLParser::ReturnStmtContext *>(ctx))
    return std::make_unique<ReturnStmt>(
        r, s->exprList() ? buildExprList(s->exprList()) : nullptr);
  if (dynamic_cast<TFLParser::PassStmtContext *>(ctx))
    return std::make_unique<PassStmt>(r);
  if (dynamic_cast<TFLParser::BreakStmtContext *>(ctx))
    return std::make_unique<BreakStmt>(r);
  if (dynamic_cast<TFLParser::ContinueStmtContext *>(ctx))
    return std::make_unique<ContinueStmt>(r);
  if (auto *s = dynamic_cast<TFLParser::ImportStmtContext *>(ctx)) {
    std::vector<ImportName> names;
    for (TFLParser::DottedAsNameContext *d : s->dottedAsName())
      names.push_back({d->dottedName()->getText(),
                       d->NAME() ? d->NAME()->getText() : "", range(d)});
    return std::make_unique<ImportStmt>(r, std::move(names));
  }
  if (auto *s = dynamic_cast<TFLParser::FromImportStmtContext *>(ctx)) {
    std::vector<ImportName> names;
    for (TFLParser::ImportAsNameContext *n : s->importAsName())
      names.push_back({n->NAME(0)->getText(),
                       n->NAME().size() > 1 ? n->NAME(1)->getText() : "",
                       range(n)});
    return std::make_unique<FromImportStmt>(r, s->dottedName()->getText(),
                                            range(s->dottedName()),
                                            std::move(names));
  }
  if (auto *s = dynamic_cast<TFLParser::AssertStmtContext *>(ctx))
    return std::make_unique<AssertStmt>(
        r, buildExpr(s->expr(0)),
        s->expr().size() > 1 ? buildExpr(s->expr(1)) : nullptr);
  auto *e = dynamic_cast<TFLParser::ExprStmtContext *>(ctx);
  return std::make_unique<ExprStmt>(r, buildExprList(e->exprList()));
}

std::vector<Decorator> AstBuilder::buildDecorators(
    const std::vector<TFLParser::DecoratorContext *> &ds) {
  std::vector<Decorator> out;
  for (TFLParser::DecoratorContext *d : ds)
    out.push_back({d->dottedName()->getText(), range(d)});
  return out;
}

StmtPtr AstBuilder::buildFuncDef(TFLParser::FuncDefContext *ctx) {
  std::vector<Param> params;
  if (ctx->params()) {
    for (TFLParser::ParamContext *p : ctx->params()->param()) {
      Param param;
      param.name = p->NAME()->getText();
      param.range = range(p);
      // `name: ann = default`: the annotation is the first expr when ':'
      // is present.
      size_t next = 0;
      for (size_t i = 1; i < p->children.size(); ++i) {
        std::string t = p->children[i]->getText();
        if (t == ":")
          param.annotation = buildExpr(p->expr(next++));
        else if (t == "=")
          param.defaultValue = buildExpr(p->expr(next++));
      }
      params.push_back(std::move(param));
    }
  }
  ExprPtr returns = ctx->expr() ? buildExpr(ctx->expr()) : nullptr;
  return std::make_unique<FuncDef>(
      range(ctx), ctx->NAME()->getText(), pos(ctx->NAME()->getSymbol()),
      std::move(params), std::move(returns), buildBlock(ctx->block()),
      buildDecorators(ctx->decorator()));
}

StmtPtr AstBuilder::buildIf(TFLParser::IfStmtContext *ctx, size_t clause) {
  // Clause k of `if/elif*` becomes an IfStmt whose orelse holds clause k+1.
  std::vector<TFLParser::ExprContext *> conds = ctx->expr();
  std::vector<TFLParser::BlockContext *> blocks = ctx->block();
  Block orelse;
  if (clause + 1 < conds.size())
    orelse.push_back(buildIf(ctx, clause + 1));
  else if (blocks.size() > conds.size())
    orelse = buildBlock(blocks.back());
  SourceRange r = range(ctx);
  if (clause > 0)
    r.begin = pos(conds[clause]->getStart());
  return std::make_unique<IfStmt>(r, buildExpr(conds[clause]),
                                  buildBlock(blocks[clause]),
                                  std::move(orelse));
}

StmtPtr AstBuilder::buildCompoundStmt(TFLParser::CompoundStmtContext *ctx) {
  if (ctx->ifStmt())
    return buildIf(ctx->ifStmt(), 0);
  if (auto *w = ctx->whileStmt())
    return std::make_unique<WhileStmt>(range(w), buildExpr(w->expr()),
                                       buildBlock(w->block()));
  if (auto *w = ctx->withStmt())
    return std::make_unique<WithStmt>(range(w), buildExpr(w->expr()),
                                      buildBlock(w->block()));
  if (auto *f = ctx->forStmt()) {
    ExprPtr target = buildTargetList(f->targetList());
    if (!checkTarget(target.get(), true))
      return nullptr;
    return std::make_unique<ForStmt>(range(f), std::move(target),
                                     buildExprList(f->exprList()),
                                     buildBlock(f->block()));
  }
  if (auto *f = ctx->funcDef())
    return buildFuncDef(f);
  auto *c = ctx->classDef();
  return std::make_unique<ClassDef>(range(c), c->NAME()->getText(),
                                    buildBlock(c->block()),
                                    buildDecorators(c->decorator()));
}

static BinaryOp binaryOp(llvm::StringRef text) {
  return llvm::StringSwitch<BinaryOp>(text)
      .Case("+", BinaryOp::Add)
      .Case("-", BinaryOp::Sub)
      .Case("*", BinaryOp::Mul)
      .Case("/", BinaryOp::Div)
      .Case("//", BinaryOp::FloorDiv)
      .Case("%", BinaryOp::Mod)
      .Case("**", BinaryOp::Pow)
      .Default(BinaryOp::MatMul);
}

static CompareOp compareOp(llvm::StringRef text) {
  return llvm::StringSwitch<CompareOp>(text)
      .Case("<", CompareOp::Lt)
      .Case("<=", CompareOp::Le)
      .Case(">", CompareOp::Gt)
      .Case(">=", CompareOp::Ge)
      .Case("==", CompareOp::Eq)
      .Case("in", CompareOp::In)
      .Default(CompareOp::Ne);
}

ExprPtr AstBuilder::buildBinary(TFLParser::ExprContext *ctx, antlr4::Token *op,
                                TFLParser::ExprContext *lhs,
                                TFLParser::ExprContext *rhs) {
  return std::make_unique<BinaryExpr>(range(ctx), binaryOp(op->getText()),
                                      buildExpr(lhs), buildExpr(rhs), pos(op));
}

ExprPtr AstBuilder::buildExpr(TFLParser::ExprContext *ctx) {
  if (exprDepth == kMaxExprDepth) {
    // Reported once; a placeholder keeps the tree whole until it is dropped.
    error(range(ctx).begin,
          "expression is too deeply nested (more than " +
              std::to_string(kMaxExprDepth) +
              " operators, calls or subscripts inside one another): split "
              "it into several statements");
    return std::make_unique<NoneExpr>(range(ctx));
  }
  ++exprDepth;
  ExprPtr e = buildExprNode(ctx);
  --exprDepth;
  return e;
}

ExprPtr AstBuilder::buildExprNode(TFLParser::ExprContext *ctx) {
  SourceRange r = range(ctx);
  if (auto *e = dynamic_cast<TFLParser::AtomExprContext *>(ctx))
    return buildAtom(e->atom());
  if (auto *e = dynamic_cast<TFLParser::AttributeExprContext *>(ctx))
    return std::make_unique<AttributeExpr>(r, buildExpr(e->expr()),
                                           e->NAME()->getText());
  if (auto *e = dynamic_cast<TFLParser::CallExprContext *>(ctx)) {
    std::vector<ExprPtr> args;
    std::vector<Keyword> keywords;
    if (e->args()) {
      for (TFLParser::ArgContext *a : e->args()->arg()) {
        if (a->NAME()) {
          keywords.push_back(
              {a->NAME()->getText(), buildExpr(a->expr()), range(a)});
          continue;
        }
        if (!keywords.empty()) {
          error(range(a).begin, "positional argument follows keyword argument");
          return nullptr;
        }
        args.push_back(buildExpr(a->expr()));
      }
    }
    return std::make_unique<CallExpr>(r, buildExpr(e->expr()), std::move(args),
                                      std::move(keywords));
  }
  if (auto *e = dynamic_cast<TFLParser::SubscriptExprContext *>(ctx)) {
    std::vector<ExprPtr> indices;
    for (TFLParser::SubscriptContext *s : e->subscripts()->subscript()) {
      if (auto *i = dynamic_cast<TFLParser::IndexSubscriptContext *>(s)) {
        indices.push_back(buildExpr(i->expr()));
        continue;
      }
      auto *sl = dynamic_cast<TFLParser::SliceSubscriptContext *>(s);
      indices.push_back(std::make_unique<SliceExpr>(
          range(sl), sl->lo ? buildExpr(sl->lo) : nullptr,
          sl->hi ? buildExpr(sl->hi) : nullptr,
          sl->step ? buildExpr(sl->step) : nullptr));
    }
    return std::make_unique<SubscriptExpr>(r, buildExpr(e->expr()),
                                           std::move(indices));
  }
  if (auto *e = dynamic_cast<TFLParser::PowerExprContext *>(ctx))
    return std::make_unique<BinaryExpr>(
        r, BinaryOp::Pow, buildExpr(e->expr(0)), buildExpr(e->expr(1)),
        pos(static_cast<antlr4::tree::TerminalNode *>(e->children[1])
                ->getSymbol()));
  if (auto *e = dynamic_cast<TFLParser::UnaryExprContext *>(ctx)) {
    // -9223372036854775808 is i64's least value, though its digits alone do
    // not fit.
    auto *atom = dynamic_cast<TFLParser::AtomExprContext *>(e->expr());
    auto *lit = atom ? dynamic_cast<TFLParser::IntAtomContext *>(atom->atom())
                     : nullptr;
    if (lit && e->op->getText() == "-") {
      std::string text = lit->INT()->getText();
      text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
      if (text == "9223372036854775808")
        return std::make_unique<IntExpr>(r,
                                         std::numeric_limits<int64_t>::min());
    }
    return std::make_unique<UnaryExpr>(
        r, e->op->getText() == "-" ? UnaryOp::Minus : UnaryOp::Plus,
        buildExpr(e->expr()));
  }
  if (auto *e = dynamic_cast<TFLParser::MulExprContext *>(ctx))
    return buildBinary(ctx, e->op, e->expr(0), e->expr(1));
  if (auto *e = dynamic_cast<TFLParser::AddExprContext *>(ctx))
    return buildBinary(ctx, e->op, e->expr(0), e->expr(1));
  if (auto *e = dynamic_cast<TFLParser::CompareExprContext *>(ctx)) {
    // Flatten `a < b < c` (the grammar nests it to the left).
    ExprPtr lhs = buildExpr(e->expr(0));
    std::vector<ExprPtr> operands;
    std::vector<CompareOp> ops;
    if (dynamic_cast<TFLParser::CompareExprContext *>(e->expr(0))) {
      auto *chain = llvm::cast<CompareExpr>(lhs.get());
      operands = std::move(chain->operands);
      ops = std::move(chain->ops);
    } else {
      operands.push_back(std::move(lhs));
    }
    operands.push_back(buildExpr(e->expr(1)));
    ops.push_back(e->notIn ? CompareOp::NotIn : compareOp(e->op->getText()));
    return std::make_unique<CompareExpr>(r, std::move(operands),
                                         std::move(ops));
  }
  if (auto *e = dynamic_cast<TFLParser::NotExprContext *>(ctx))
    return std::make_unique<NotExpr>(r, buildExpr(e->expr()));
  if (auto *e = dynamic_cast<TFLParser::AndExprContext *>(ctx))
    return std::make_unique<BoolOpExpr>(r, true, buildExpr(e->expr(0)),
                                        buildExpr(e->expr(1)));
  if (auto *e = dynamic_cast<TFLParser::OrExprContext *>(ctx))
    return std::make_unique<BoolOpExpr>(r, false, buildExpr(e->expr(0)),
                                        buildExpr(e->expr(1)));
  if (auto *e = dynamic_cast<TFLParser::CondExprContext *>(ctx))
    return std::make_unique<CondExpr>(
        r, buildExpr(e->expr(1)), buildExpr(e->expr(0)), buildExpr(e->expr(2)));
  if (auto *e = dynamic_cast<TFLParser::StarredExprContext *>(ctx))
    return std::make_unique<StarredExpr>(r, buildExpr(e->expr()));
  auto *e = dynamic_cast<TFLParser::LambdaExprContext *>(ctx);
  std::vector<Param> params;
  if (e->lambdaParams())
    for (antlr4::tree::TerminalNode *n : e->lambdaParams()->NAME()) {
      Param p;
      p.name = n->getText();
      p.range = {pos(n->getSymbol()), pos(n->getSymbol())};
      params.push_back(std::move(p));
    }
  ExprPtr body = buildExpr(e->expr());
  SourceRange bodyRange = body->getRange();
  Block block;
  block.push_back(std::make_unique<ReturnStmt>(bodyRange, std::move(body)));
  return std::make_unique<LambdaExpr>(
      r, std::make_unique<FuncDef>(r, "<lambda>", r.begin, std::move(params),
                                   nullptr, std::move(block),
                                   std::vector<Decorator>{}));
}

ExprPtr AstBuilder::buildAtom(TFLParser::AtomContext *ctx) {
  SourceRange r = range(ctx);
  if (dynamic_cast<TFLParser::EmptyTupleAtomContext *>(ctx))
    return std::make_unique<TupleExpr>(r, std::vector<ExprPtr>{});
  if (auto *a = dynamic_cast<TFLParser::ParenAtomContext *>(ctx))
    return buildExpr(a->expr());
  if (auto *a = dynamic_cast<TFLParser::TupleAtomContext *>(ctx)) {
    std::vector<ExprPtr> elements;
    for (TFLParser::ExprContext *e : a->expr())
      elements.push_back(buildExpr(e));
    return std::make_unique<TupleExpr>(r, std::move(elements));
  }
  if (auto *a = dynamic_cast<TFLParser::ListCompAtomContext *>(ctx)) {
    ExprPtr target = buildTargetList(a->targetList());
    if (!checkTarget(target.get(), true))
      return nullptr;
    return std::make_unique<ComprehensionExpr>(
        r, buildExpr(a->expr(0)), std::move(target), buildExpr(a->expr(1)));
  }
  if (auto *a = dynamic_cast<TFLParser::ListAtomContext *>(ctx)) {
    std::vector<ExprPtr> elements;
    for (TFLParser::ExprContext *e : a->expr())
      elements.push_back(buildExpr(e));
    return std::make_unique<ListExpr>(r, std::move(elements));
  }
  if (auto *a = dynamic_cast<TFLParser::NameAtomContext *>(ctx))
    return std::make_unique<NameExpr>(r, a->NAME()->getText());
  if (auto *a = dynamic_cast<TFLParser::IntAtomContext *>(ctx)) {
    std::string text = a->INT()->getText();
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    int64_t value = 0;
    if (llvm::StringRef(text).getAsInteger(10, value)) {
      error(r.begin, "integer literal " + text + " does not fit in i64");
      return nullptr;
    }
    return std::make_unique<IntExpr>(r, value);
  }
  if (auto *a = dynamic_cast<TFLParser::FloatAtomContext *>(ctx)) {
    std::string text = a->FLOAT()->getText();
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    double value = std::strtod(text.c_str(), nullptr);
    if (std::isinf(value)) {
      error(r.begin, "float literal " + text +
                         " is out of range: it exceeds f64's largest value "
                         "(1.7976931348623157e+308)");
      return nullptr;
    }
    return std::make_unique<FloatExpr>(r, value);
  }
  if (auto *a = dynamic_cast<TFLParser::StringAtomContext *>(ctx)) {
    std::string value;
    for (antlr4::tree::ParseTree *child : a->children)
      value += decodeString(child->getText());
    return std::make_unique<StringExpr>(r, std::move(value));
  }
  if (auto *a = dynamic_cast<TFLParser::FstringAtomContext *>(ctx))
    return buildFString(a->FSTRING()->getSymbol());
  if (dynamic_cast<TFLParser::TrueAtomContext *>(ctx))
    return std::make_unique<BoolExpr>(r, true);
  if (dynamic_cast<TFLParser::FalseAtomContext *>(ctx))
    return std::make_unique<BoolExpr>(r, false);
  if (dynamic_cast<TFLParser::NoneAtomContext *>(ctx))
    return std::make_unique<NoneExpr>(r);
  if (dynamic_cast<TFLParser::DynamicDimAtomContext *>(ctx))
    return std::make_unique<NameExpr>(r, "?"); // a dim in an annotation
  return std::make_unique<EllipsisExpr>(r);
}

/// Parses `text` as one expression whose first character sits at `at`.
ExprPtr parseFieldExpr(ErrorSink &sink, mlir::MLIRContext *ctx,
                       const std::string &fileName, const std::string &text,
                       Position at) {
  antlr4::ANTLRInputStream input(text);
  TFLLexer lexer(&input);
  lexer.removeErrorListeners();
  IndentingTokenSource source(
      lexer, [&](size_t l, size_t c, const std::string &m) {
        sink.report(at.line + l - 1, l == 1 ? at.col + c - 1 : c, m);
      });
  antlr4::CommonTokenStream tokens(&source);
  TFLParser parser(&tokens);
  parser.removeErrorListeners();
  struct Listener : antlr4::BaseErrorListener {
    ErrorSink &sink;
    Position at;
    Listener(ErrorSink &sink, Position at) : sink(sink), at(at) {}
    void syntaxError(antlr4::Recognizer *, antlr4::Token *, size_t line,
                     size_t col, const std::string &,
                     std::exception_ptr) override {
      sink.report(at.line + line - 1, line == 1 ? at.col + col : col + 1,
                  "invalid syntax in f-string field");
    }
  } listener(sink, at);
  parser.addErrorListener(&listener);
  TFLParser::ExprInputContext *tree = parser.exprInput();
  if (sink.hasFailed())
    return nullptr;
  AstBuilder builder(sink, ctx, fileName, at.line - 1, at.col - 1);
  return builder.buildExpr(tree->expr());
}

ExprPtr AstBuilder::buildFString(antlr4::Token *tok) {
  std::string raw = tok->getText();
  Position start = pos(tok);
  // raw is f"..." or f'...'; fields are split before escapes are decoded.
  std::string body = raw.substr(2, raw.size() - 3);
  std::vector<FStringExpr::Part> parts;
  std::string text;
  auto flushText = [&] {
    if (text.empty())
      return;
    parts.push_back({decodeString("\"" + text + "\""), nullptr, ""});
    text.clear();
  };
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if ((c == '{' || c == '}') && i + 1 < body.size() && body[i + 1] == c) {
      text += c;
      ++i;
      continue;
    }
    if (c == '}') {
      error({start.line, static_cast<unsigned>(start.col + 2 + i)},
            "single '}' is not allowed in an f-string");
      return nullptr;
    }
    if (c != '{') {
      text += c;
      continue;
    }
    // A field: find its end, and a top-level ':' that starts the spec.
    size_t depth = 0, colon = std::string::npos, j = i + 1;
    for (; j < body.size(); ++j) {
      char d = body[j];
      if (d == '(' || d == '[' || d == '{')
        ++depth;
      else if ((d == ')' || d == ']') && depth > 0)
        --depth;
      else if (d == '}' && depth == 0)
        break;
      else if (d == '}')
        --depth;
      else if (d == ':' && depth == 0 && colon == std::string::npos)
        colon = j;
    }
    if (j == body.size()) {
      error({start.line, static_cast<unsigned>(start.col + 2 + i)},
            "f-string: expecting '}'");
      return nullptr;
    }
    size_t exprEnd = colon == std::string::npos ? j : colon;
    std::string exprText = body.substr(i + 1, exprEnd - i - 1);
    Position at{start.line, static_cast<unsigned>(start.col + 2 + i + 1)};
    if (llvm::StringRef(exprText).trim().empty()) {
      error(at, "f-string: empty expression not allowed");
      return nullptr;
    }
    ExprPtr expr = parseFieldExpr(sink, ctx, fileName, exprText, at);
    if (!expr)
      return nullptr;
    flushText();
    std::string spec =
        colon == std::string::npos ? "" : body.substr(colon + 1, j - colon - 1);
    parts.push_back({"", std::move(expr), std::move(spec)});
    i = j;
  }
  flushText();
  SourceRange r{start,
                {start.line, static_cast<unsigned>(start.col + raw.size())}};
  return std::make_unique<FStringExpr>(r, std::move(parts));
}

/// Reports the first byte of `text` that is not UTF-8 (the lexer reads
/// UTF-8 only), at its line and column in characters; true if all is. The
/// text is normalized (normalizeSource): only LF starts a line.
bool checkUtf8(ErrorSink &sink, llvm::StringRef text) {
  const auto *p = reinterpret_cast<const llvm::UTF8 *>(text.data());
  const auto *end = p + text.size();
  size_t line = 1, col = 1;
  while (p < end) {
    if (*p == '\n') {
      ++line, ++p, col = 1;
      continue;
    }
    if (!llvm::isLegalUTF8Sequence(p, end)) {
      sink.report(line, col,
                  "invalid UTF-8 (byte 0x" + llvm::utohexstr(*p, true, 2) +
                      "): a .tfl file must be UTF-8 text");
      return false;
    }
    p += llvm::getNumBytesForUTF8(*p);
    ++col;
  }
  return true;
}

} // namespace

int tfl::runWithLargeStack(llvm::function_ref<int()> fn) {
  int result = 0;
  llvm::thread worker(std::optional<unsigned>(1u << 30),
                      [&] { result = fn(); });
  worker.join();
  return result;
}

std::unique_ptr<llvm::MemoryBuffer>
tfl::normalizeSource(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  llvm::StringRef text = buffer->getBuffer();
  bool bom = text.starts_with("\xEF\xBB\xBF");
  bool loneCr = false;
  for (size_t i = 0; i < text.size() && !loneCr; ++i)
    loneCr = text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n');
  if (!bom && !loneCr)
    return buffer;
  std::string out = text.drop_front(bom ? 3 : 0).str();
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] == '\r' && (i + 1 == out.size() || out[i + 1] != '\n'))
      out[i] = '\n';
  return llvm::MemoryBuffer::getMemBufferCopy(out,
                                              buffer->getBufferIdentifier());
}

std::unique_ptr<Module> tfl::parseModule(llvm::SourceMgr &sourceMgr,
                                         unsigned bufferId,
                                         mlir::MLIRContext *context) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  std::string fileName = buffer->getBufferIdentifier().str();
  ErrorSink sink(context, fileName);
  if (!checkUtf8(sink, buffer->getBuffer()))
    return nullptr;

  antlr4::ANTLRInputStream input(buffer->getBuffer().str());
  TFLLexer lexer(&input);
  lexer.removeErrorListeners();
  IndentingTokenSource source(
      lexer, [&](size_t line, size_t col, const std::string &msg) {
        sink.report(line, col, msg);
      });
  antlr4::CommonTokenStream tokens(&source);
  TFLParser parser(&tokens);
  parser.removeErrorListeners();
  SyntaxErrorListener listener(sink);
  parser.addErrorListener(&listener);

  TFLParser::FileContext *tree = parser.file();
  if (sink.hasFailed())
    return nullptr;
  AstBuilder builder(sink, context, fileName);
  std::unique_ptr<Module> module = builder.buildFile(tree);
  if (sink.hasFailed())
    return nullptr;
  return module;
}
