//===- Debugger.cpp - The eager interpreter's debugger --------------------===//
//
// What runs when `tflc run --eager --pdb` stops (a breakpoint(), a step,
// the first NaN): the frames' functions and lines, and commands to move
// among them, step, list the source, show the locals, or run TFL with the
// frame's variables.
//
//===----------------------------------------------------------------------===//

#include "Repl.h"

#include "tfl/Frontend/MLIRGen.h"
#include "tfl/Frontend/Parser.h"
#include "tflrt/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <cstdio>

namespace tfl::repl {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

//===----------------------------------------------------------------------===//
// The debugger
//===----------------------------------------------------------------------===//

namespace {

/// "file:line:col" and the line of a location (the innermost file one).
std::optional<mlir::FileLineColLoc> fileLoc(mlir::Location loc) {
  if (auto f = dyn_cast<mlir::FileLineColLoc>(loc))
    return f;
  if (auto fused = dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (std::optional<mlir::FileLineColLoc> f = fileLoc(inner))
        return f;
  if (auto site = dyn_cast<mlir::CallSiteLoc>(loc))
    return fileLoc(site.getCallee());
  if (auto name = dyn_cast<mlir::NameLoc>(loc))
    return fileLoc(name.getChildLoc());
  return std::nullopt;
}

/// Line `line` (1-based) of the buffer named `file`, if loaded.
std::optional<std::string> sourceLine(llvm::SourceMgr &sourceMgr,
                                      llvm::StringRef file, unsigned line) {
  for (unsigned id = 1; id <= sourceMgr.getNumBuffers(); ++id) {
    const llvm::MemoryBuffer *b = sourceMgr.getMemoryBuffer(id);
    if (b->getBufferIdentifier() != file)
      continue;
    llvm::SmallVector<llvm::StringRef> lines;
    b->getBuffer().split(lines, '\n');
    if (line == 0 || line > lines.size())
      return std::nullopt;
    return lines[line - 1].rtrim('\r').str();
  }
  return std::nullopt;
}

const char *kDebuggerHelp =
    "commands: where (w), up (u), down (d), step (s), next (n), continue "
    "(c), list (l), locals, quit (q); anything else is TFL, run with the "
    "frame's variables (p EXPR shows EXPR)\n";

/// Prints frame `f` (function `name`), and with `marker` its line.
void showFrame(const eager::DebugFrame &f, const std::string &name, bool marker,
               llvm::SourceMgr &sourceMgr) {
  std::optional<mlir::FileLineColLoc> at = fileLoc(f.where);
  llvm::outs() << (marker ? "> " : "  ");
  if (!at) {
    llvm::outs() << "<unknown> in " << name << "()\n";
    return;
  }
  llvm::outs() << at->getFilename().getValue() << ":" << at->getLine() << ":"
               << at->getColumn() << " in " << name << "()\n";
  if (marker)
    if (std::optional<std::string> line =
            sourceLine(sourceMgr, at->getFilename(), at->getLine()))
      llvm::outs() << "-> " << llvm::StringRef(*line).trim() << "\n";
}

/// `list`: the lines around a frame's.
void listSource(const eager::DebugFrame &f, llvm::SourceMgr &sourceMgr) {
  std::optional<mlir::FileLineColLoc> at = fileLoc(f.where);
  if (!at)
    return;
  unsigned first = at->getLine() > 5 ? at->getLine() - 5 : 1;
  for (unsigned n = first; n <= at->getLine() + 5; ++n)
    if (std::optional<std::string> l =
            sourceLine(sourceMgr, at->getFilename(), n))
      llvm::outs() << llvm::format_decimal(n, 4)
                   << (n == at->getLine() ? " -> " : "    ") << *l << "\n";
}

/// Gives `session` the variables of frame `f`'s scope that hold values
/// there; with `listing` (`locals`), prints them.
void setFrameVariables(Session &session, const Program &program,
                       const SourceProgram &source, const eager::DebugFrame &f,
                       bool listing) {
  const std::vector<CarriedVar> &vars =
      program.debugScopes[static_cast<size_t>(f.scope)];
  // The point's values are the leaves of the variables it names, in the
  // scope's order; the others hold no run-time values.
  size_t next = 0, named = 0;
  for (const CarriedVar &v : vars) {
    size_t n = v.type.leafCount();
    if (n > 0 && (named >= f.names.size() || f.names[named] != v.name ||
                  next + n > f.values.size()))
      continue;
    if (n > 0)
      ++named;
    std::vector<tflrt::Tensor> leaves(f.values.begin() + next,
                                      f.values.begin() + next + n);
    next += n;
    bool set = session.setVariable(v.name, v.type, leaves, source);
    if (listing)
      llvm::outs() << "  " << v.name << ": " << v.type.str()
                   << (set ? "" : " (not available here)") << "\n";
  }
}

/// The name users know each function by, by its symbol.
std::shared_ptr<std::map<std::string, std::string>>
functionNames(const Program &program) {
  auto names = std::make_shared<std::map<std::string, std::string>>();
  for (const std::unique_ptr<Specialization> &s : program.specializations)
    (*names)[s->symbol] = s->def ? s->def->name : std::string("<module>");
  return names;
}

/// A session with the program's definitions, to run inputs in a frame;
/// null when they do not compile.
std::unique_ptr<Session>
frameSession(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
             const std::string &fileName, const std::string &text,
             const std::function<void(Session &)> &configure) {
  auto session = std::make_unique<Session>(
      context, sourceMgr, llvm::sys::path::parent_path(fileName).str());
  if (configure)
    configure(*session);
  if (failed(session->define(fileName, text)))
    return nullptr;
  return session;
}

} // namespace

eager::DebugHook
makeDebugger(const Program &program, const SourceProgram &source,
             mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
             const std::string &fileName, const std::string &text,
             LineReader &reader, std::function<void(Session &)> configure) {
  auto names = functionNames(program);
  auto count = std::make_shared<int>(0);
  return [&program, &source, &context, &sourceMgr, fileName, text, &reader,
          names, count,
          configure](llvm::ArrayRef<eager::DebugFrame> frames,
                     llvm::StringRef reason) -> eager::DebugAction {
    auto show = [&](size_t k, bool marker) {
      // A function the autodiff pass made (`loss_f32x3.vjp`) runs the code
      // of the one it differentiates.
      const eager::DebugFrame &f = frames[k];
      auto it = names->find(llvm::StringRef(f.function).split('.').first.str());
      showFrame(f, it == names->end() ? f.function : it->second, marker,
                sourceMgr);
    };
    size_t current = frames.size() - 1;
    std::unique_ptr<Session> session;
    size_t sessionFrame = 0;
    if (reason != "breakpoint" && reason != "step")
      llvm::outs() << "post mortem: " << reason << "\n";
    show(current, true);
    while (true) {
      std::optional<std::string> input = readInput(reader, "(tfl) ", "... ");
      if (!input)
        return eager::DebugAction::Continue;
      llvm::StringRef line = llvm::StringRef(*input).trim();
      auto [cmd, arg] = line.split(' ');
      if (cmd == "w" || cmd == "where" || cmd == "bt") {
        for (size_t k = 0; k < frames.size(); ++k)
          show(k, k == current);
      } else if (cmd == "u" || cmd == "up") {
        if (current == 0)
          llvm::outs() << "*** the outermost frame\n";
        else
          show(--current, true);
      } else if (cmd == "d" || cmd == "down") {
        if (current + 1 == frames.size())
          llvm::outs() << "*** the innermost frame\n";
        else
          show(++current, true);
      } else if (cmd == "c" || cmd == "cont" || cmd == "continue") {
        return eager::DebugAction::Continue;
      } else if (cmd == "s" || cmd == "step") {
        return eager::DebugAction::Step;
      } else if (cmd == "n" || cmd == "next") {
        return eager::DebugAction::Next;
      } else if (cmd == "q" || cmd == "quit" || cmd == "exit") {
        return eager::DebugAction::Quit;
      } else if (cmd == "h" || cmd == "help") {
        llvm::outs() << kDebuggerHelp;
      } else if (cmd == "l" || cmd == "list") {
        listSource(frames[current], sourceMgr);
      } else {
        std::string code = (cmd == "p" || cmd == "pp") ? arg.str() : *input;
        bool listing = cmd == "locals";
        // One session a frame while stopped: what an input binds is there
        // for the next (the program's own variables do not change).
        if (listing || !session || sessionFrame != current) {
          session.reset();
          session = frameSession(context, sourceMgr, fileName, text, configure);
          sessionFrame = current;
          if (!session)
            continue;
        }
        if (listing || session->fresh())
          setFrameVariables(*session, program, source, frames[current],
                            listing);
        if (listing)
          continue;
        (void)session->run("<debug-" + std::to_string(++*count) + ">", code,
                           /*display=*/true);
      }
      llvm::outs().flush();
    }
  };
}

} // namespace tfl::repl
