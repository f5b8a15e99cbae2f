//===- IndentingTokenSource.cpp - Python's indentation tokens -------------===//

#include "IndentingTokenSource.h"

#include "antlr4-runtime.h"
#include "llvm/Support/ConvertUTF.h"

#include <cstdio>

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
    if (indents.size() > kMaxIndentDepth) {
      fatal(line, tokenCol + 1,
            "too many levels of indentation (at most " +
                std::to_string(kMaxIndentDepth) + ")");
      return;
    }
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

void IndentingTokenSource::fatal(size_t line, size_t col,
                                 const std::string &message) {
  onError(line, col, message);
  pending.clear();
  indents.assign(1, 0);
  lineHasTokens = false;
  atEof = true;
}

/// The message for a character the lexer has no token for (`text` is its
/// UTF-8): control and other invisible characters by code point, as CPython
/// names them.
static std::string invalidCharacterMessage(const std::string &text) {
  if (text == "\"" || text == "'")
    return "unterminated string literal";
  if (text == "{")
    return "'{' starts a dict or a set, which TFL does not have: a record (a "
           "class with annotated fields) holds named values, and a tuple "
           "several";
  // The lexer reads UTF-8 only (the parser checked the file), so `text` is
  // one whole code point.
  const auto *src = reinterpret_cast<const llvm::UTF8 *>(text.data());
  llvm::UTF32 cp = 0;
  llvm::convertUTF8Sequence(&src, src + text.size(), &cp,
                            llvm::strictConversion);
  bool printable = cp > 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0xa0) &&
                   !(cp >= 0x200b && cp <= 0x200f) && cp != 0x2028 &&
                   cp != 0x2029 && cp != 0xfeff;
  char code[16];
  std::snprintf(code, sizeof(code), "U+%04X", cp);
  if (!printable)
    return std::string("invalid non-printable character ") + code +
           " in program";
  return "invalid character '" + text + "' (" + code + ") in program";
}

std::unique_ptr<antlr4::Token> IndentingTokenSource::nextToken() {
  while (pending.empty()) {
    if (atEof)
      return makeToken(antlr4::Token::EOF, "<EOF>", lexer.getLine(),
                       lexer.getCharPositionInLine());
    std::unique_ptr<antlr4::Token> tok = lexer.nextToken();
    size_t type = tok->getType();

    if (type == TFLLexer::NEWLINE) {
      if (!brackets.empty())
        continue; // implicit line joining
      sawNewline = true;
      lastNewlineText = tok->getText();
      lastNewlineLine = tok->getLine() + 1;
      continue;
    }

    if (type == antlr4::Token::EOF && !brackets.empty()) {
      const OpenBracket &open = brackets.back();
      fatal(open.line, open.col,
            std::string("'") + open.c + "' was never closed");
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
      onError(tok->getLine(), tok->getCharPositionInLine() + 1,
              invalidCharacterMessage(tok->getText()));
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
      if (atEof)
        continue;
    } else if (!sawAnyToken && tok->getCharPositionInLine() > 0) {
      onError(tok->getLine(), tok->getCharPositionInLine() + 1,
              "unexpected indent");
    }
    sawAnyToken = true;
    lineHasTokens = true;
    lastTokenLine = tok->getLine();
    lastTokenEndCol = tok->getCharPositionInLine() + tok->getText().size();

    const std::string &text = tok->getText();
    size_t line = tok->getLine(), col = tok->getCharPositionInLine() + 1;
    if (text == "(" || text == "[" || text == "{") {
      if (brackets.size() == kMaxBracketDepth) {
        fatal(line, col,
              "too many nested parentheses (brackets nest at most " +
                  std::to_string(kMaxBracketDepth) + " deep)");
        continue;
      }
      brackets.push_back({text[0], line, col});
    } else if (text == ")" || text == "]" || text == "}") {
      if (brackets.empty()) {
        fatal(line, col, "unmatched '" + text + "'");
        continue;
      }
      char open = brackets.back().c;
      if ((open == '(') != (text == ")") || (open == '[') != (text == "]")) {
        fatal(line, col,
              "closing parenthesis '" + text +
                  "' does not match opening parenthesis '" + open + "'" +
                  (brackets.back().line == line
                       ? std::string()
                       : " on line " + std::to_string(brackets.back().line)));
        continue;
      }
      brackets.pop_back();
    }
    pending.push_back(std::move(tok));
  }
  std::unique_ptr<antlr4::Token> tok = std::move(pending.front());
  pending.pop_front();
  return tok;
}

} // namespace tfl
