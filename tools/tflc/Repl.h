//===- Repl.h - The interactive prompt and the eager debugger ---*- C++ -*-===//
//
// `tflc repl` reads inputs (a line, or a block ended by an empty line) and
// compiles each as a script whose variables start as the session's: Sema
// gets their types, the script reads their values with tfl.session_value
// and stores every variable it has at its end with tfl.session_store, and
// the eager interpreter runs it. Definitions (def, class, import, and names
// bound to a literal or a lambda) are kept as source: every input is
// compiled after them, at the line numbers they first had, so functions
// keep their types and errors in them point into the input that defined
// them. The debugger's prompt (breakpoint(), --pdb) is such a session over
// the running program's definitions, with a frame's variables. Repl.cpp
// holds the session, LineReader.cpp the reading of lines, Debugger.cpp the
// debugger.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TOOLS_TFLC_REPL_H
#define TFL_TOOLS_TFLC_REPL_H

#include "tfl/Eager/Interpreter.h"
#include "tfl/Frontend/Sema.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfl::repl {

/// Reads the prompt's lines: with libedit (line editing, and history kept
/// in ~/.tfl_history; loaded with dlopen) when standard input is a
/// terminal, else plain lines (no prompt shown), so a script can drive it.
class LineReader {
public:
  LineReader();
  ~LineReader();
  /// One line without its newline; nullopt at the end of input.
  std::optional<std::string> read(const char *prompt);
  /// Adds an input to the history.
  void remember(const std::string &input);
  bool interactive() const { return tty; }

private:
  bool tty;
  std::string historyPath;
};

/// Reads one input: a line, or, when it opens a block (ends in ':') or
/// leaves a bracket open, the lines up to an empty one (or the bracket's
/// close). Empty when the input ends.
std::optional<std::string> readInput(LineReader &reader, const char *prompt,
                                     const char *continuation);

/// A variable the session holds: its type and its values (leaves).
struct Variable {
  Type type;
  std::vector<tflrt::Tensor> leaves;
};

class Session {
public:
  /// Imports are found from `directory` (then the standard library).
  Session(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
          const std::string &directory);
  ~Session();

  /// Compiles and runs `text` as input `name` (its file name in
  /// diagnostics); its top-level expressions show their values when
  /// `display`. Errors are reported; the session goes on either way.
  mlir::LogicalResult run(llvm::StringRef name, llvm::StringRef text,
                          bool display);
  /// Keeps `text`'s definitions (a file's: def, class, import, literal and
  /// lambda bindings) without running anything.
  mlir::LogicalResult define(llvm::StringRef name, llvm::StringRef text);
  /// Sets a variable of a running program (`type`'s definitions are in
  /// `source`, whose main file the session defined from): false when its
  /// type cannot be had here.
  bool setVariable(const std::string &name, const Type &type,
                   std::vector<tflrt::Tensor> leaves,
                   const SourceProgram &source);
  /// True until the first input ran.
  bool fresh() const { return !ran; }
  /// Program flags, parsed once the first input declared its flags.
  void setProgramArgs(std::vector<std::string> args) {
    programArgs = std::move(args);
    flagsPending = true;
  }
  /// The exit status a flags' --help or a bad flag asked for, if any.
  std::optional<int> flagsExit;
  /// What an input's module and kernels are given for the device the
  /// session runs on (--device cuda): options set before the pipeline,
  /// and the kernels its ops run on. None by default: the CPU.
  std::function<void(mlir::ModuleOp)> prepareModule;
  std::function<void(eager::KernelRegistry &, mlir::ModuleOp)> prepareKernels;

private:
  struct Segment;
  struct Compiled;
  /// Compiles segment `index` after the kept definitions (and runs it when
  /// `execute`); on success, keeps its definitions and variables.
  mlir::LogicalResult runSegment(size_t index, bool display, bool execute);
  /// Adds `text` as a new segment, parsed alone; its index, or nullopt
  /// after a syntax error.
  std::optional<size_t> addSegment(llvm::StringRef name, llvm::StringRef text);
  /// The text the kept definitions and segment `upTo` (all of it when
  /// `whole`, else its definitions) make, each line where it first was;
  /// earlier definitions of `shadowed` names left out.
  std::string sessionText(size_t upTo, bool whole,
                          const llvm::StringSet<> &shadowed) const;
  /// The names segment `index` binds at its top level.
  llvm::StringSet<> namesBoundBy(size_t index) const;
  /// Keeps segment `index`'s definitions, in place of earlier ones of the
  /// names it binds.
  void commitDefinitions(size_t index);
  llvm::StringSet<> definedNames() const;
  /// The session's variables, their types moved onto `compiled`'s
  /// definitions (a variable whose type's definition changed is dropped,
  /// with a note).
  std::map<std::string, Variable>
  movedVariables(const Compiled &compiled) const;
  /// Loads (parses, with imports) the session's `text`.
  std::unique_ptr<Compiled> load(const std::string &text);
  /// The input (or file) and line a line of file `file` comes from: a
  /// line of the session's text is its segment's.
  std::pair<std::string, unsigned> origin(llvm::StringRef file,
                                          unsigned line) const;
  mlir::Location remap(mlir::Location loc);

  mlir::MLIRContext &context;
  llvm::SourceMgr &sourceMgr;
  std::string sessionFile;
  std::vector<std::unique_ptr<Segment>> segments;
  std::unique_ptr<Compiled> current;
  std::map<std::string, Variable> variables;
  /// Variables given by setVariable, not yet checked against the session's
  /// definitions.
  std::map<std::string, Variable> pendingVariables;
  std::vector<std::string> programArgs;
  bool flagsPending = false;
  bool ran = false;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> printer;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> remapper;
};

/// Runs the prompt on `session` until the input ends; returns the exit
/// status.
int runPrompt(Session &session, LineReader &reader);

/// The debugger of an eager run of `program` (its main file `fileName`,
/// whose text is `text`): at a stop, shows where the run is and a prompt
/// (where, up, down, step, next, continue, quit, list, or any expression
/// or statement, run in the frame's variables, in a session `configure`
/// prepares for the run's device).
eager::DebugHook
makeDebugger(const Program &program, const SourceProgram &source,
             mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
             const std::string &fileName, const std::string &text,
             LineReader &reader, std::function<void(Session &)> configure = {});

} // namespace tfl::repl

#endif // TFL_TOOLS_TFLC_REPL_H
