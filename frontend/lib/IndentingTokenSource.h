//===- IndentingTokenSource.h - Python's indentation tokens -----*- C++ -*-===//
//
// Wraps the ANTLR lexer for TFL.g4 and turns its raw NEWLINE tokens (each
// carrying the next line's indentation) into Python's logical structure:
//   - NEWLINE ends a logical line; blank and comment-only lines vanish;
//   - newlines inside (), [] and {} are dropped (implicit line joining);
//   - a deeper indentation emits INDENT, a shallower one DEDENTs back to an
//     enclosing level (an unknown level is an error);
//   - a tab in indentation is an error (LANGUAGE.md section 2);
//   - as in CPython, brackets nest at most kMaxBracketDepth deep and blocks
//     at most kMaxIndentDepth: past either the input ends with an error (the
//     parser is recursive descent, and no real program nests that deep);
//   - at the end of input, NEWLINE and the DEDENTs that close every block.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_INDENTINGTOKENSOURCE_H
#define TFL_FRONTEND_INDENTINGTOKENSOURCE_H

#include "TFLLexer.h"
#include "TFLParser.h"

#include <deque>
#include <functional>

namespace tfl {

class IndentingTokenSource : public antlr4::TokenSource {
public:
  /// `onError(line, col, message)` is told of lexical errors (1-based).
  using ErrorFn = std::function<void(size_t, size_t, const std::string &)>;

  /// CPython's limits (MAXLEVEL and MAXINDENT in its tokenizer).
  static constexpr int kMaxBracketDepth = 200;
  static constexpr size_t kMaxIndentDepth = 100;

  IndentingTokenSource(TFLLexer &lexer, ErrorFn onError)
      : lexer(lexer), onError(std::move(onError)) {}

  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return lexer.getLine(); }
  size_t getCharPositionInLine() override {
    return lexer.getCharPositionInLine();
  }
  antlr4::CharStream *getInputStream() override {
    return lexer.getInputStream();
  }
  std::string getSourceName() override { return lexer.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken> *getTokenFactory() override {
    return lexer.getTokenFactory();
  }

private:
  /// A token made here (NEWLINE, INDENT, DEDENT) at a given position.
  std::unique_ptr<antlr4::Token> makeToken(size_t type, const std::string &text,
                                           size_t line, size_t col);
  /// Queues the NEWLINE/INDENT/DEDENT tokens due before a token on a new
  /// line whose indentation is `indentText`, which starts at `line`.
  void handleIndentation(const std::string &indentText, size_t line,
                         size_t tokenCol);
  /// Reports an error after which nothing more is read: the next token is
  /// EOF.
  void fatal(size_t line, size_t col, const std::string &message);

  TFLLexer &lexer;
  ErrorFn onError;
  std::deque<std::unique_ptr<antlr4::Token>> pending;
  std::vector<size_t> indents{0};
  /// The brackets open here: their character, line and column (1-based).
  struct OpenBracket {
    char c;
    size_t line, col;
  };
  std::vector<OpenBracket> brackets;
  bool lineHasTokens = false;
  bool sawAnyToken = false;
  bool atEof = false;
  // Where the last real token ended (a NEWLINE is placed there, before any
  // comment), and the last raw NEWLINE since (it holds the indentation).
  size_t lastTokenLine = 0, lastTokenEndCol = 0;
  std::string lastNewlineText;
  size_t lastNewlineLine = 0;
  bool sawNewline = false;
};

} // namespace tfl

#endif // TFL_FRONTEND_INDENTINGTOKENSOURCE_H
