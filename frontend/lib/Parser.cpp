//===- Parser.cpp - From .tfl text to the AST -----------------------------===//
//
// Runs ANTLR's lexer (through IndentingTokenSource) and parser, then walks
// the parse tree into the AST (AstBuilder). The builder checks what the
// grammar cannot: assignment targets, literal ranges, f-string fields.
//
//===----------------------------------------------------------------------===//

#include "tfl/Frontend/Parser.h"

#include "AstBuilder.h"
#include "IndentingTokenSource.h"

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
using namespace tfl::parser;

namespace {

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
