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
#include <optional>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::parser;

namespace {

/// A diagnostic at a token: its line, its column (from 1), the message.
struct TokenError {
  size_t line, col;
  std::string message;
};

TokenError at(antlr4::Token *token, std::string message) {
  return {token->getLine(), token->getCharPositionInLine() + 1,
          std::move(message)};
}

/// The message for a string literal with Python's `prefix` (b"...",
/// r"..."), which the lexer reads as a name and a string; nullptr for any
/// other name.
const char *stringPrefix(llvm::StringRef prefix) {
  std::string lower = prefix.lower();
  return llvm::StringSwitch<const char *>(lower)
      .Cases({"b", "rb", "br"},
             "bytes literals (b\"...\") are not supported: encode(s) is a "
             "string's bytes and load_bytes(path) a file's, as u8 tensors")
      .Cases({"r", "fr", "rf"},
             "raw strings (r\"...\") are not supported: write each "
             "backslash twice")
      .Case("u", "the u prefix is not needed: strings are Unicode")
      .Default(nullptr);
}

/// A syntax error's offending token and the tokens around it.
struct ErrorTokens {
  antlr4::Token *offending;
  /// The line's tokens before it, first to last.
  std::vector<antlr4::Token *> line;
  /// The token after it, where the stream has one.
  antlr4::Token *next = nullptr;

  antlr4::Token *first() const {
    return line.empty() ? offending : line.front();
  }
  antlr4::Token *before() const { return line.empty() ? nullptr : line.back(); }
};

/// Whether token `b` follows token `a` with no space between.
bool adjacent(antlr4::Token *a, antlr4::Token *b) {
  return a->getLine() == b->getLine() &&
         a->getCharPositionInLine() + a->getText().size() ==
             b->getCharPositionInLine();
}

/// The construct a Python keyword starts (the line's first word, or
/// `yield` and `await` anywhere in it).
std::optional<TokenError> keywordConstruct(const ErrorTokens &e) {
  antlr4::Token *first = e.first();
  // `match` is a name too: a statement where a subject follows it.
  antlr4::Token *second = e.line.size() > 1 ? e.line[1] : e.offending;
  bool subject = second != first && (second->getType() == TFLLexer::NAME ||
                                     second->getType() == TFLLexer::INT ||
                                     second->getType() == TFLLexer::STRING);
  if (first->getText() != "match" || subject)
    if (const char *what = unsupportedPythonKeyword(first->getText()))
      return at(first, what);
  for (antlr4::Token *t : e.line)
    if (t->getText() == "yield" || t->getText() == "await")
      return at(t, unsupportedPythonKeyword(t->getText()));
  return std::nullopt;
}

/// The constructs an offending token shows in an expression: `is`, `:=`,
/// a string's prefix.
std::optional<TokenError> expressionConstruct(const ErrorTokens &e) {
  antlr4::Token *offending = e.offending, *before = e.before();
  std::string text = offending->getText();
  size_t type = offending->getType();
  if (text == "is" || (before && before->getText() == "is"))
    return at(text == "is" ? offending : before,
              "'is' is not supported: TFL has no object identity and no "
              "None values; compare values with == or !=");
  if (text == ":" && e.next && e.next->getText() == "=" &&
      adjacent(offending, e.next))
    return at(offending, "assignment expressions (:=) are not supported: "
                         "assign on a line of its own");
  if ((type == TFLLexer::STRING || type == TFLLexer::LONG_STRING) && before &&
      before->getType() == TFLLexer::NAME && adjacent(before, offending))
    if (const char *what = stringPrefix(before->getText()))
      return at(before, what);
  return std::nullopt;
}

/// The constructs of a statement's header: a loop's `else`, base classes,
/// a decorator's arguments, `with ... as`, a def's or lambda's parameters
/// (`*args`, `**kwargs`, a lambda's defaults), and else `**` in a call.
std::optional<TokenError> headerConstruct(const ErrorTokens &e) {
  antlr4::Token *offending = e.offending;
  std::string text = offending->getText(), opener = e.first()->getText();
  if (text == "else" && e.line.empty())
    return at(offending, "'else' follows no 'if' at its indentation (a "
                         "'for' or 'while' loop takes no 'else' in TFL)");
  if (opener == "class" && text == "(")
    return at(offending,
              "a class has no base classes in TFL (no inheritance): 'class "
              "Name:' with annotated fields (name: type) is a record, its "
              "methods take the record first (self), and Name(field=...) "
              "builds one");
  if (opener == "@" && text == "(")
    return at(offending, std::string("a decorator takes no arguments in TFL "
                                     "(it knows ") +
                             kKnownDecorators + ")");
  if (opener == "with" && text == "as")
    return at(offending, "'with ... as' is not supported: a 'with' "
                         "statement takes device(\"cpu\") or "
                         "device(\"cuda\") and binds no name");
  // Inside a lambda's parameters: no ':' after the 'lambda' yet.
  bool inLambda = false;
  for (antlr4::Token *t : e.line) {
    if (t->getType() == TFLLexer::LAMBDA)
      inLambda = true;
    else if (t->getText() == ":")
      inLambda = false;
  }
  if (inLambda && text == "=")
    return at(offending, "a lambda's parameters take no default values: "
                         "define the function with 'def'");
  if ((inLambda || opener == "def") && (text == "*" || text == "**"))
    return at(offending, text == "*"
                             ? "'*args' parameters are not supported: a "
                               "function takes a fixed list of parameters (a "
                               "tuple may be passed as one)"
                             : "'**kwargs' parameters are not supported: a "
                               "function takes a fixed list of parameters, "
                               "each of which may have a default");
  antlr4::Token *before = e.before();
  if (text == "**" && before &&
      (before->getText() == "(" || before->getText() == ","))
    return at(offending, "'**' unpacking keywords is not supported (TFL has "
                         "no dicts): pass each keyword by name");
  return std::nullopt;
}

/// Where a syntax error at `offending` comes from a Python construct that
/// TFL does not have, the error that names it (at the construct); the
/// tokens of the offending line around it say which. Else nullopt.
std::optional<TokenError> pythonConstruct(antlr4::Recognizer *recognizer,
                                          antlr4::Token *offending) {
  auto *parser = dynamic_cast<antlr4::Parser *>(recognizer);
  if (!parser || !offending)
    return std::nullopt;
  antlr4::TokenStream *stream = parser->getTokenStream();
  size_t index = offending->getTokenIndex();
  if (index >= stream->size())
    return std::nullopt;
  ErrorTokens e{offending, {}, nullptr};
  for (size_t i = index; i-- > 0;) {
    antlr4::Token *t = stream->get(i);
    size_t type = t->getType();
    if (type == TFLLexer::NEWLINE || type == TFLParser::INDENT ||
        type == TFLParser::DEDENT)
      break;
    e.line.insert(e.line.begin(), t);
  }
  // LT counts from the stream's position, which prediction may have left
  // before the offending token.
  if (stream->index() <= index)
    e.next = stream->LT(static_cast<ssize_t>(index - stream->index()) + 2);
  if (std::optional<TokenError> found = keywordConstruct(e))
    return found;
  if (std::optional<TokenError> found = expressionConstruct(e))
    return found;
  return headerConstruct(e);
}

/// Turns ANTLR's syntax errors into "invalid syntax" diagnostics, or into
/// errors that name a Python construct TFL does not have.
class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  explicit SyntaxErrorListener(ErrorSink &sink) : sink(sink) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending,
                   size_t line, size_t col, const std::string &msg,
                   std::exception_ptr) override {
    if (std::optional<TokenError> construct =
            pythonConstruct(recognizer, offending))
      return sink.report(construct->line, construct->col, construct->message);
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

const char *tfl::unsupportedPythonKeyword(llvm::StringRef word) {
  return llvm::StringSwitch<const char *>(word)
      .Cases({"try", "except", "finally"},
             "'try' statements are not supported: TFL has no exceptions (an "
             "error stops the program with its message); test a condition "
             "with 'if', or stop the program with 'assert condition, "
             "\"message\"'")
      .Case("raise", "'raise' is not supported: TFL has no exceptions; "
                     "'assert condition, \"message\"' stops the program "
                     "with a message")
      .Case("del", "'del' is not supported: a name is bound again or goes "
                   "out of scope, and a tensor's memory is freed after its "
                   "last use")
      .Case("yield", "'yield' (a generator) is not supported: return the "
                     "values as a tuple, or compute them in a 'for' loop")
      .Cases({"global", "nonlocal"},
             "'global' and 'nonlocal' are not supported: a function cannot "
             "bind a name outside it; return the new value instead")
      .Cases({"async", "await"},
             "'async' and 'await' are not supported: a program's ops run in "
             "order, each spread over the cores")
      .Case("match", "'match' statements are not supported: use "
                     "'if'/'elif'/'else'")
      .Default(nullptr);
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
