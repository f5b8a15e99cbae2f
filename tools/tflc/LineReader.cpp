//===- LineReader.cpp - The prompt's lines, edited and remembered ---------===//
//
// What `tflc repl` reads: lines edited with BSD editline (libedit, loaded
// with dlopen on a terminal, so tflc runs where it is not installed) and
// kept in a history file, or plain lines from a pipe; an input is one
// line, or a block of them up to the blank line that ends an indented one.
//
//===----------------------------------------------------------------------===//

#include "Repl.h"

#include "tflrt/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>
#include <unistd.h>

namespace tfl::repl {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

//===----------------------------------------------------------------------===//
// Reading inputs
//===----------------------------------------------------------------------===//

namespace {

/// libedit's readline API, loaded when the prompt runs on a terminal (so
/// that tflc runs where it is not installed, without line editing).
struct Editline {
  char *(*readline)(const char *) = nullptr;
  int (*addHistory)(const char *) = nullptr;
  void (*usingHistory)() = nullptr;
  int (*readHistory)(const char *) = nullptr;
  int (*writeHistory)(const char *) = nullptr;
  int (*truncateHistory)(const char *, int) = nullptr;

  static const Editline *load() {
    static const Editline *loaded = []() -> const Editline * {
      void *lib = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
      if (!lib)
        lib = dlopen("libedit.so", RTLD_NOW | RTLD_LOCAL);
      if (!lib)
        return nullptr;
      auto *e = new Editline;
      auto get = [&](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
            dlsym(lib, name));
      };
      get(e->readline, "readline");
      get(e->addHistory, "add_history");
      get(e->usingHistory, "using_history");
      get(e->readHistory, "read_history");
      get(e->writeHistory, "write_history");
      get(e->truncateHistory, "history_truncate_file");
      if (!e->readline || !e->addHistory) {
        delete e;
        return nullptr;
      }
      return e;
    }();
    return loaded;
  }
};

} // namespace

LineReader::LineReader() : tty(isatty(STDIN_FILENO) != 0) {
  if (!tty)
    return;
  const Editline *edit = Editline::load();
  const char *home = std::getenv("HOME");
  if (!edit || !home)
    return;
  historyPath = std::string(home) + "/.tfl_history";
  if (edit->usingHistory)
    edit->usingHistory();
  if (edit->readHistory)
    edit->readHistory(historyPath.c_str());
}

LineReader::~LineReader() {
  const Editline *edit = tty ? Editline::load() : nullptr;
  if (edit && !historyPath.empty() && edit->writeHistory) {
    edit->writeHistory(historyPath.c_str());
    if (edit->truncateHistory)
      edit->truncateHistory(historyPath.c_str(), 1000);
  }
}

std::optional<std::string> LineReader::read(const char *prompt) {
  llvm::outs().flush();
  tflrt::flushOutput();
  if (const Editline *edit = tty ? Editline::load() : nullptr) {
    char *line = edit->readline(prompt);
    if (!line)
      return std::nullopt;
    std::string text(line);
    std::free(line);
    return text;
  }
  if (tty) { // a terminal without libedit: the prompt, then a plain line
    std::fputs(prompt, stdout);
    std::fflush(stdout);
  }
  std::string text;
  int c;
  while ((c = std::getchar()) != EOF && c != '\n')
    text.push_back(static_cast<char>(c));
  if (c == EOF && text.empty())
    return std::nullopt;
  if (!text.empty() && text.back() == '\r')
    text.pop_back();
  return text;
}

void LineReader::remember(const std::string &input) {
  if (const Editline *edit = tty ? Editline::load() : nullptr)
    if (!input.empty())
      edit->addHistory(input.c_str());
}

namespace {

/// How a line changes the depth of brackets (strings and comments
/// skipped), and whether its code ends in `ending`.
struct LineShape {
  int depth = 0;
  char last = 0; // the last character of code, not a space
};

LineShape shapeOf(llvm::StringRef line) {
  LineShape shape;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '#')
      break;
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '(' || c == '[' || c == '{')
      ++shape.depth;
    else if (c == ')' || c == ']' || c == '}')
      --shape.depth;
    if (!llvm::isSpace(c))
      shape.last = c;
  }
  return shape;
}

} // namespace

std::optional<std::string> readInput(LineReader &reader, const char *prompt,
                                     const char *continuation) {
  std::optional<std::string> first;
  do {
    first = reader.read(prompt);
    if (!first)
      return std::nullopt;
  } while (llvm::StringRef(*first).trim().empty() ||
           llvm::StringRef(*first).ltrim().starts_with("#"));
  std::string text = *first;
  LineShape shape = shapeOf(*first);
  int depth = shape.depth;
  bool block = shape.last == ':' || llvm::StringRef(*first).ltrim().starts_with(
                                        "@"); // a decorated def
  bool joined = shape.last == '\\';
  while (block || depth > 0 || joined) {
    std::optional<std::string> next = reader.read(continuation);
    if (!next)
      break;
    if (block && depth <= 0 && !joined && llvm::StringRef(*next).trim().empty())
      break;
    text += "\n" + *next;
    LineShape s = shapeOf(*next);
    depth += s.depth;
    joined = s.last == '\\';
    if (depth <= 0 && s.last == ':')
      block = true;
  }
  reader.remember(text);
  return text;
}

} // namespace tfl::repl
