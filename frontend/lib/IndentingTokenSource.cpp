//===- IndentingTokenSource.cpp - Python's indentation tokens -------------===//

#include "IndentingTokenSource.h"

#include "antlr4-runtime.h"

namespace tfl {

std::unique_ptr<antlr4::Token>
IndentingTokenSource::makeToken(size_t type, const std::string &text,
                                size_t line, size_t col) {
  std::unique_ptr<antlr4::CommonToken> tok = getTokenFactory()->create(
      {this, getInputStream()}, type, text, antlr4::Token::DEFAULT_CHANNEL,
      INVALID_INDEX, INVALID_INDEX, line, col);
  return tok;
}

void IndentingTokenSource::handleIndentation(const std::string &indentText,
                                             size_t line, size_t tokenCol) {
  // The indentation is what follows the line break in the NEWLINE's text.
  size_t start = indentText.find_last_of("\r\n");
  start = start == std::string::npos ? 0 : start + 1;
  std::string indent = indentText.substr(start);
  size_t tab = indent.find('\t');
  if (tab != std::string::npos)
    onError(line, tab + 1,
            "tab in indentation: indent with spaces (TFL rejects tabs)");
  size_t width = indent.size();
  if (width > indents.back()) {
    indents.push_back(width);
    pending.push_back(makeToken(TFLParser::INDENT, "<INDENT>", line, tokenCol));
    return;
  }
  while (width < indents.back()) {
    indents.pop_back();
    pending.push_back(makeToken(TFLParser::DEDENT, "<DEDENT>", line, tokenCol));
  }
  if (width != indents.back())
    onError(line, tokenCol + 1,
            "unindent does not match any outer indentation level");
}

std::unique_ptr<antlr4::Token> IndentingTokenSource::nextToken() {
  while (pending.empty()) {
    if (atEof)
      return makeToken(antlr4::Token::EOF, "<EOF>", lexer.getLine(),
                       lexer.getCharPositionInLine());
    std::unique_ptr<antlr4::Token> tok = lexer.nextToken();
    size_t type = tok->getType();

    if (type == TFLLexer::NEWLINE) {
      if (bracketDepth > 0)
        continue; // implicit line joining
      sawNewline = true;
      lastNewlineText = tok->getText();
      lastNewlineLine = tok->getLine() + 1;
      continue;
    }

    if (type == antlr4::Token::EOF) {
      atEof = true;
      if (lineHasTokens)
        pending.push_back(
            makeToken(TFLLexer::NEWLINE, "\n", lastTokenLine, lastTokenEndCol));
      while (indents.size() > 1) {
        indents.pop_back();
        pending.push_back(makeToken(TFLParser::DEDENT, "<DEDENT>",
                                    tok->getLine(),
                                    tok->getCharPositionInLine()));
      }
      pending.push_back(std::move(tok));
      break;
    }

    if (type == TFLLexer::ERROR_CHAR) {
      std::string text = tok->getText();
      std::string msg = (text == "\"" || text == "'")
                            ? "unterminated string literal"
                            : "invalid character '" + text + "' in program";
      onError(tok->getLine(), tok->getCharPositionInLine() + 1, msg);
      continue;
    }

    // A real token: first the line structure it implies.
    if (sawNewline) {
      if (lineHasTokens)
        pending.push_back(
            makeToken(TFLLexer::NEWLINE, "\n", lastTokenLine, lastTokenEndCol));
      handleIndentation(lastNewlineText, lastNewlineLine,
                        tok->getCharPositionInLine());
      sawNewline = false;
    } else if (!sawAnyToken && tok->getCharPositionInLine() > 0) {
      onError(tok->getLine(), tok->getCharPositionInLine() + 1,
              "unexpected indent");
    }
    sawAnyToken = true;
    lineHasTokens = true;
    lastTokenLine = tok->getLine();
    lastTokenEndCol = tok->getCharPositionInLine() + tok->getText().size();

    const std::string &text = tok->getText();
    if (text == "(" || text == "[" || text == "{")
      ++bracketDepth;
    else if ((text == ")" || text == "]" || text == "}") && bracketDepth > 0)
      --bracketDepth;
    pending.push_back(std::move(tok));
  }
  std::unique_ptr<antlr4::Token> tok = std::move(pending.front());
  pending.pop_front();
  return tok;
}

} // namespace tfl
