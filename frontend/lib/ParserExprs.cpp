//===- ParserExprs.cpp - Expressions from the parse tree to the AST -------===//
//
// AstBuilder's expressions: operators (a comparison chain flattened into
// one CompareExpr), calls with their keywords, subscripts and slices,
// lambdas, atoms (literals checked against their ranges, strings with
// their escapes decoded) and f-strings, whose fields are parsed as
// expressions of their own at their place in the file.
//
//===----------------------------------------------------------------------===//

#include "AstBuilder.h"
#include "IndentingTokenSource.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::parser;

std::string tfl::parser::decodeString(llvm::StringRef quoted) {
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
  if (auto *e = dynamic_cast<TFLParser::CallExprContext *>(ctx))
    return buildCall(e);
  if (auto *e = dynamic_cast<TFLParser::SubscriptExprContext *>(ctx))
    return buildSubscript(e);
  if (auto *e = dynamic_cast<TFLParser::PowerExprContext *>(ctx))
    return std::make_unique<BinaryExpr>(
        r, BinaryOp::Pow, buildExpr(e->expr(0)), buildExpr(e->expr(1)),
        pos(static_cast<antlr4::tree::TerminalNode *>(e->children[1])
                ->getSymbol()));
  if (auto *e = dynamic_cast<TFLParser::UnaryExprContext *>(ctx))
    return buildUnary(e);
  if (auto *e = dynamic_cast<TFLParser::MulExprContext *>(ctx))
    return buildBinary(ctx, e->op, e->expr(0), e->expr(1));
  if (auto *e = dynamic_cast<TFLParser::AddExprContext *>(ctx))
    return buildBinary(ctx, e->op, e->expr(0), e->expr(1));
  if (auto *e = dynamic_cast<TFLParser::CompareExprContext *>(ctx))
    return buildCompare(e);
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
  return buildLambda(dynamic_cast<TFLParser::LambdaExprContext *>(ctx));
}

ExprPtr AstBuilder::buildCall(TFLParser::CallExprContext *e) {
  SourceRange r = range(e);
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

ExprPtr AstBuilder::buildSubscript(TFLParser::SubscriptExprContext *e) {
  SourceRange r = range(e);
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

ExprPtr AstBuilder::buildUnary(TFLParser::UnaryExprContext *e) {
  SourceRange r = range(e);
  // -9223372036854775808 is i64's least value, though its digits alone do
  // not fit.
  auto *atom = dynamic_cast<TFLParser::AtomExprContext *>(e->expr());
  auto *lit =
      atom ? dynamic_cast<TFLParser::IntAtomContext *>(atom->atom()) : nullptr;
  if (lit && e->op->getText() == "-") {
    std::string text = lit->INT()->getText();
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    if (text == "9223372036854775808")
      return std::make_unique<IntExpr>(r, std::numeric_limits<int64_t>::min());
  }
  return std::make_unique<UnaryExpr>(
      r, e->op->getText() == "-" ? UnaryOp::Minus : UnaryOp::Plus,
      buildExpr(e->expr()));
}

ExprPtr AstBuilder::buildCompare(TFLParser::CompareExprContext *e) {
  SourceRange r = range(e);
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
  return std::make_unique<CompareExpr>(r, std::move(operands), std::move(ops));
}

ExprPtr AstBuilder::buildLambda(TFLParser::LambdaExprContext *e) {
  SourceRange r = range(e);
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
static ExprPtr parseFieldExpr(ErrorSink &sink, mlir::MLIRContext *ctx,
                              const std::string &fileName,
                              const std::string &text, Position at) {
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

bool AstBuilder::checkFieldForm(llvm::StringRef exprText, Position at) {
  llvm::StringRef field = exprText.rtrim();
  unsigned end = at.col + static_cast<unsigned>(field.size());
  if (field.size() >= 2 && field[field.size() - 2] == '!' &&
      llvm::StringRef("rsa").contains(field.back())) {
    error({at.line, end - 2},
          "f-string conversions (!r, !s, !a) are not supported: a field "
          "prints its value as print does");
    return false;
  }
  if (field.ends_with("=") && !field.ends_with("==") &&
      !field.ends_with("!=") && !field.ends_with("<=") &&
      !field.ends_with(">=")) {
    error({at.line, end - 1},
          "the f-string '=' specifier is not supported: write the name in "
          "the text (f\"x={x}\")");
    return false;
  }
  return true;
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
    if (!checkFieldForm(exprText, at))
      return nullptr;
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
