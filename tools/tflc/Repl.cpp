//===- Repl.cpp - The interactive prompt and the eager debugger ----------===//

#include "Repl.h"

#include "tfl/Codegen/Pipelines.h"
#include "tfl/Frontend/MLIRGen.h"
#include "tfl/Frontend/Parser.h"
#include "tfl/IR/TflOps.h"
#include "tflrt/Flags.h"
#include "tflrt/Output.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

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

//===----------------------------------------------------------------------===//
// Definitions kept between inputs
//===----------------------------------------------------------------------===//

namespace {

/// The names a top-level statement binds: its variables (as Sema counts
/// them) and what it defines (a def, a class, an import, an annotated
/// name).
std::vector<std::string> boundNames(const ast::Stmt *s) {
  llvm::StringSet<> names;
  ast::collectAssigned(s, names);
  if (auto *def = dyn_cast<ast::FuncDef>(s))
    names.insert(def->name);
  else if (auto *cls = dyn_cast<ast::ClassDef>(s))
    names.insert(cls->name);
  else if (auto *ann = dyn_cast<ast::AnnAssignStmt>(s))
    ast::collectTargetNames(ann->target.get(), names);
  else if (auto *imp = dyn_cast<ast::ImportStmt>(s))
    for (const ast::ImportName &n : imp->names)
      names.insert(n.alias.empty() ? llvm::StringRef(n.name).split('.').first
                                   : llvm::StringRef(n.alias));
  else if (auto *from = dyn_cast<ast::FromImportStmt>(s))
    for (const ast::ImportName &n : from->names)
      names.insert(n.alias.empty() ? n.name : n.alias);
  std::vector<std::string> out;
  for (const auto &entry : names)
    out.push_back(entry.getKey().str());
  return out;
}

/// A statement kept as source between inputs: it runs nothing (or binds a
/// literal), so compiling it again with every input changes nothing.
bool isDefinition(const ast::Stmt *s) {
  if (isa<ast::FuncDef, ast::ClassDef, ast::ImportStmt, ast::FromImportStmt>(s))
    return true;
  auto *assign = dyn_cast<ast::AssignStmt>(s);
  return assign && assign->targets.size() == 1 &&
         isa<ast::NameExpr>(assign->targets[0].get()) &&
         (isa<ast::LambdaExpr>(assign->value.get()) ||
          ast::isLiteral(assign->value.get()));
}

/// Where a definition is, as a key that names its file and its line there:
/// the same for a definition compiled again at the same place.
using LineMapper = std::function<std::pair<std::string, unsigned>(
    const ast::Module &, unsigned line)>;

/// The functions, classes and files of a parsed program, by key, both ways.
class DefinitionIndex {
public:
  DefinitionIndex() = default;
  DefinitionIndex(const SourceProgram &source, const LineMapper &map) {
    for (const std::unique_ptr<ast::Module> &m : source.modules) {
      add(m.get(), "module:" + m->fileName);
      for (const ast::StmtPtr &s : m->body)
        visit(*m, s.get(), map);
    }
  }
  std::optional<std::string> keyOf(const void *p) const {
    auto it = keys.find(p);
    if (it == keys.end())
      return std::nullopt;
    return it->second;
  }
  const void *find(const std::string &key) const {
    auto it = pointers.find(key);
    return it == pointers.end() ? nullptr : it->second;
  }

private:
  void add(const void *p, std::string key) {
    keys[p] = key;
    pointers[key] = p;
  }
  std::string keyAt(const ast::Module &m, ast::Position p,
                    const LineMapper &map) {
    auto [file, line] = map(m, p.line);
    return file + ":" + std::to_string(line) + ":" + std::to_string(p.col);
  }
  void visitExpr(const ast::Module &m, const ast::Expr *e,
                 const LineMapper &map) {
    if (auto *lambda = llvm::dyn_cast_or_null<ast::LambdaExpr>(e)) {
      add(lambda->def.get(), "def:" + keyAt(m, lambda->getBegin(), map));
      for (const ast::StmtPtr &x : lambda->def->body)
        visit(m, x.get(), map);
    }
  }
  void visit(const ast::Module &m, const ast::Stmt *s, const LineMapper &map) {
    auto blocks = [&](const ast::Block &b) {
      for (const ast::StmtPtr &x : b)
        visit(m, x.get(), map);
    };
    if (auto *def = dyn_cast<ast::FuncDef>(s)) {
      add(def, "def:" + keyAt(m, def->namePos, map));
      blocks(def->body);
    } else if (auto *cls = dyn_cast<ast::ClassDef>(s)) {
      add(cls, "class:" + keyAt(m, cls->getBegin(), map));
      blocks(cls->body);
    } else if (auto *i = dyn_cast<ast::IfStmt>(s)) {
      blocks(i->body);
      blocks(i->orelse);
    } else if (auto *f = dyn_cast<ast::ForStmt>(s)) {
      blocks(f->body);
    } else if (auto *w = dyn_cast<ast::WhileStmt>(s)) {
      blocks(w->body);
    } else if (auto *w = dyn_cast<ast::WithStmt>(s)) {
      blocks(w->body);
    } else if (auto *a = dyn_cast<ast::AssignStmt>(s)) {
      visitExpr(m, a->value.get(), map);
    } else if (auto *r = dyn_cast<ast::ReturnStmt>(s)) {
      visitExpr(m, r->value.get(), map);
    }
  }

  llvm::DenseMap<const void *, std::string> keys;
  std::map<std::string, const void *> pointers;
};

/// `type` with its definitions moved from `from`'s program to `to`'s;
/// nullopt when one of them is not there.
std::optional<Type> remapType(const Type &type, const DefinitionIndex &from,
                              const DefinitionIndex &to) {
  Type t = type;
  auto move = [&](const void *p) -> std::optional<const void *> {
    if (!p)
      return p;
    std::optional<std::string> key = from.keyOf(p);
    if (!key)
      return std::nullopt;
    const void *q = to.find(*key);
    if (!q)
      return std::nullopt;
    return q;
  };
  std::optional<const void *> func = move(t.func), cls = move(t.cls),
                              module = move(t.module);
  if (!func || !cls || !module)
    return std::nullopt;
  t.func = static_cast<const ast::FuncDef *>(*func);
  t.cls = static_cast<const ast::ClassDef *>(*cls);
  t.module = static_cast<const ast::Module *>(*module);
  for (Type &e : t.elements) {
    std::optional<Type> moved = remapType(e, from, to);
    if (!moved)
      return std::nullopt;
    e = std::move(*moved);
  }
  return t;
}

mlir::Location remapLocation(
    mlir::Location loc,
    llvm::function_ref<mlir::Location(mlir::FileLineColLoc)> fileLoc) {
  if (auto f = dyn_cast<mlir::FileLineColLoc>(loc))
    return fileLoc(f);
  if (auto fused = dyn_cast<mlir::FusedLoc>(loc)) {
    llvm::SmallVector<mlir::Location> inner;
    for (mlir::Location l : fused.getLocations())
      inner.push_back(remapLocation(l, fileLoc));
    return mlir::FusedLoc::get(loc.getContext(), inner, fused.getMetadata());
  }
  if (auto site = dyn_cast<mlir::CallSiteLoc>(loc))
    return mlir::CallSiteLoc::get(remapLocation(site.getCallee(), fileLoc),
                                  remapLocation(site.getCaller(), fileLoc));
  if (auto name = dyn_cast<mlir::NameLoc>(loc))
    return mlir::NameLoc::get(name.getName(),
                              remapLocation(name.getChildLoc(), fileLoc));
  return loc;
}

} // namespace

//===----------------------------------------------------------------------===//
// The session
//===----------------------------------------------------------------------===//

struct Session::Segment {
  std::string name;
  std::vector<std::string> lines;
  /// Its first line in the session's text (1-based).
  unsigned base = 1;
  /// Its kept definitions: lines (0-based, inclusive) and names bound.
  struct Definition {
    unsigned first, last;
    std::vector<std::string> names;
  };
  std::vector<Definition> definitions;
  /// Its parse, alone (positions in its own lines).
  std::unique_ptr<ast::Module> ast;
};

/// The session's current program: the last input that compiled, with the
/// definitions its variables' types point into.
struct Session::Compiled {
  std::unique_ptr<SourceProgram> source;
  DefinitionIndex index;
};

Session::Session(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                 const std::string &directory)
    : context(context), sourceMgr(sourceMgr) {
  llvm::SmallString<256> path(directory.empty() ? "." : directory);
  llvm::sys::path::append(path, "<session>");
  sessionFile = std::string(path);
  printer =
      std::make_unique<mlir::SourceMgrDiagnosticHandler>(sourceMgr, &context);
  // Diagnostics at the session's text point into the input (or file) whose
  // line it is.
  remapper = std::make_unique<mlir::ScopedDiagnosticHandler>(
      &context, [this](mlir::Diagnostic &diag) {
        printer->emitDiagnostic(remap(diag.getLocation()), diag.str(),
                                diag.getSeverity());
        for (mlir::Diagnostic &note : diag.getNotes())
          printer->emitDiagnostic(remap(note.getLocation()), note.str(),
                                  note.getSeverity());
        return mlir::success();
      });
}

Session::~Session() = default;

std::pair<std::string, unsigned> Session::origin(llvm::StringRef file,
                                                 unsigned line) const {
  if (file == sessionFile)
    for (const std::unique_ptr<Segment> &s : segments)
      if (line >= s->base && line < s->base + s->lines.size())
        return {s->name, line - s->base + 1};
  return {file.str(), line};
}

mlir::Location Session::remap(mlir::Location loc) {
  return remapLocation(loc, [&](mlir::FileLineColLoc f) -> mlir::Location {
    auto [file, line] = origin(f.getFilename(), f.getLine());
    return mlir::FileLineColLoc::get(&context, file, line, f.getColumn());
  });
}

std::optional<size_t> Session::addSegment(llvm::StringRef name,
                                          llvm::StringRef text) {
  auto seg = std::make_unique<Segment>();
  seg->name = name.str();
  llvm::StringRef rest = text;
  if (rest.ends_with("\n"))
    rest = rest.drop_back();
  llvm::SmallVector<llvm::StringRef> lines;
  rest.split(lines, '\n');
  for (llvm::StringRef l : lines)
    seg->lines.push_back(l.rtrim('\r').str());
  seg->base = segments.empty()
                  ? 1
                  : segments.back()->base +
                        static_cast<unsigned>(segments.back()->lines.size());
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(rest.str() + "\n", name), {});
  seg->ast = parseModule(sourceMgr, id, &context);
  if (!seg->ast)
    return std::nullopt;
  segments.push_back(std::move(seg));
  return segments.size() - 1;
}

std::string Session::sessionText(size_t upTo, bool whole,
                                 const llvm::StringSet<> &shadowed) const {
  std::string text;
  for (size_t i = 0; i <= upTo && i < segments.size(); ++i) {
    const Segment &s = *segments[i];
    std::vector<bool> kept(s.lines.size(), i == upTo && whole);
    for (const Segment::Definition &d : s.definitions) {
      if (i < upTo &&
          llvm::any_of(
              d.names,
              [&](const std::string &n) { return shadowed.contains(n); }))
        continue;
      for (unsigned l = d.first; l <= d.last && l < kept.size(); ++l)
        kept[l] = true;
    }
    for (size_t l = 0; l < s.lines.size(); ++l)
      text += (kept[l] ? s.lines[l] : std::string()) + "\n";
  }
  return text;
}

llvm::StringSet<> Session::namesBoundBy(size_t index) const {
  llvm::StringSet<> names;
  for (const ast::StmtPtr &s : segments[index]->ast->body)
    for (const std::string &n : boundNames(s.get()))
      names.insert(n);
  return names;
}

void Session::commitDefinitions(size_t index) {
  llvm::StringSet<> bound = namesBoundBy(index);
  for (size_t i = 0; i < index; ++i)
    llvm::erase_if(segments[i]->definitions, [&](const Segment::Definition &d) {
      return llvm::any_of(
          d.names, [&](const std::string &n) { return bound.contains(n); });
    });
  Segment &seg = *segments[index];
  // How often each name is bound: a definition whose name the input binds
  // again (`lr = 0.1` then `lr = lr / 2`) is an ordinary statement.
  llvm::StringMap<int> binders;
  for (const ast::StmtPtr &s : seg.ast->body)
    for (const std::string &n : boundNames(s.get()))
      ++binders[n];
  const ast::Block &body = seg.ast->body;
  for (size_t k = 0; k < body.size(); ++k) {
    const ast::Stmt *s = body[k].get();
    if (!isDefinition(s))
      continue;
    std::vector<std::string> names = boundNames(s);
    if (llvm::any_of(names,
                     [&](const std::string &n) { return binders[n] != 1; }))
      continue;
    unsigned first = s->getBegin().line - 1;
    unsigned last = k + 1 < body.size()
                        ? body[k + 1]->getBegin().line - 2
                        : static_cast<unsigned>(seg.lines.size()) - 1;
    seg.definitions.push_back({first, std::max(first, last), names});
  }
}

llvm::StringSet<> Session::definedNames() const {
  llvm::StringSet<> names;
  for (const std::unique_ptr<Segment> &s : segments)
    for (const Segment::Definition &d : s->definitions)
      for (const std::string &n : d.names)
        names.insert(n);
  return names;
}

std::unique_ptr<Session::Compiled> Session::load(const std::string &text) {
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, sessionFile), {});
  auto compiled = std::make_unique<Compiled>();
  compiled->source = loadProgram(sourceMgr, id, &context, stdlibPath());
  if (!compiled->source)
    return nullptr;
  compiled->index = DefinitionIndex(
      *compiled->source, [this](const ast::Module &m, unsigned line) {
        return origin(m.fileName, line);
      });
  return compiled;
}

mlir::LogicalResult Session::define(llvm::StringRef name,
                                    llvm::StringRef text) {
  std::optional<size_t> index = addSegment(name, text);
  if (!index)
    return mlir::failure();
  commitDefinitions(*index);
  std::unique_ptr<Compiled> compiled =
      load(sessionText(*index, /*whole=*/false, {}));
  if (!compiled)
    return mlir::failure();
  current = std::move(compiled);
  return mlir::success();
}

bool Session::setVariable(const std::string &name, const Type &type,
                          std::vector<tflrt::Tensor> leaves,
                          const SourceProgram &source) {
  if (!current)
    return false;
  DefinitionIndex from(source, [](const ast::Module &m, unsigned line) {
    return std::pair<std::string, unsigned>{m.fileName, line};
  });
  std::optional<Type> moved = remapType(type, from, current->index);
  if (!moved || moved->leafCount() != leaves.size())
    return false;
  variables[name] = {std::move(*moved), std::move(leaves)};
  return true;
}

mlir::LogicalResult Session::run(llvm::StringRef name, llvm::StringRef text,
                                 bool display) {
  std::optional<size_t> index = addSegment(name, text);
  if (!index)
    return mlir::failure();
  llvm::StringSet<> shadowed = namesBoundBy(*index);
  auto drop = [&] {
    segments.erase(segments.begin() + static_cast<long>(*index));
    return mlir::failure();
  };
  std::unique_ptr<Compiled> compiled =
      load(sessionText(*index, /*whole=*/true, shadowed));
  if (!compiled)
    return drop();

  // The variables, their types moved onto this compile's definitions.
  std::map<std::string, Variable> moved;
  for (auto &[varName, var] : variables) {
    std::optional<Type> t =
        current ? remapType(var.type, current->index, compiled->index)
                : std::optional<Type>(var.type);
    if (!t) {
      llvm::errs() << "note: '" << varName
                   << "' is dropped: a definition its value refers to "
                      "changed\n";
      continue;
    }
    moved[varName] = {std::move(*t), var.leaves};
  }

  SemaOptions options;
  options.session = true;
  for (const auto &[varName, var] : moved)
    options.sessionVars.push_back({varName, var.type});
  options.displayFromLine = display ? segments[*index]->base : 0;
  std::unique_ptr<Program> program =
      analyze(*compiled->source, &context, options);
  if (!program)
    return drop();
  mlir::OwningOpRef<mlir::ModuleOp> module = genModule(context, *program);
  if (failed(mlir::verify(*module))) {
    module->emitError("internal compiler error: MLIRGen made invalid IR");
    return drop();
  }
  mlir::PassManager pm(&context);
  if (failed(mlir::tfl::buildCpuPipeline(pm, "simplify")) ||
      failed(pm.run(*module)))
    return drop();

  eager::declareFlags(*module);
  if (flagsPending) {
    flagsPending = false;
    int rc = tflrt::parseFlags(name.str(), programArgs);
    if (rc != 0) {
      flagsExit = rc == 2 ? 0 : 1;
      return drop();
    }
  }
  eager::KernelRegistry kernels;
  eager::registerTflKernels(kernels);
  eager::registerUpstreamKernels(kernels);
  std::map<std::string, std::vector<tflrt::Tensor>> stored;
  kernels.add("tfl.session_value",
              [&](mlir::Operation *op, llvm::ArrayRef<tflrt::Tensor>,
                  llvm::SmallVectorImpl<tflrt::Tensor> &results) {
                auto read = cast<mlir::tfl::SessionValueOp>(op);
                const Variable &v = moved.at(read.getName().str());
                results.push_back(
                    v.leaves.at(static_cast<size_t>(read.getLeaf())));
              });
  kernels.add("tfl.session_store", [&](mlir::Operation *op,
                                       llvm::ArrayRef<tflrt::Tensor> operands,
                                       llvm::SmallVectorImpl<tflrt::Tensor> &) {
    auto store = cast<mlir::tfl::SessionStoreOp>(op);
    stored[store.getName().str()].assign(operands.begin(), operands.end());
  });
  bool ran = succeeded(eager::run(*module, kEntrySymbol, kernels, {}));
  tflrt::flushOutput();
  this->ran = true;

  // What compiled is kept: its definitions, and (when it ran to its end)
  // its variables.
  commitDefinitions(*index);
  llvm::StringSet<> defined = definedNames();
  variables.clear();
  if (ran) {
    for (const CarriedVar &v : program->globals) {
      if (defined.contains(v.name))
        continue;
      std::vector<tflrt::Tensor> leaves = stored[v.name];
      if (leaves.size() != v.type.leafCount())
        continue;
      variables[v.name] = {v.type, std::move(leaves)};
    }
  } else {
    for (auto &[varName, var] : moved)
      if (!defined.contains(varName))
        variables[varName] = std::move(var);
  }
  program.reset();
  current = std::move(compiled);
  return mlir::success(ran);
}

//===----------------------------------------------------------------------===//
// The prompt
//===----------------------------------------------------------------------===//

int runPrompt(Session &session, LineReader &reader) {
  if (reader.interactive())
    llvm::outs() << "TFL: each input runs eagerly as it is typed; a block "
                    "ends with an empty line; Ctrl-D exits.\n";
  int count = 0;
  while (std::optional<std::string> input = readInput(reader, ">>> ", "... ")) {
    llvm::StringRef t = llvm::StringRef(*input).trim();
    if (t == "exit()" || t == "quit()")
      break;
    (void)session.run("<input-" + std::to_string(++count) + ">", *input,
                      /*display=*/true);
    llvm::outs().flush();
    llvm::errs().flush();
  }
  if (reader.interactive())
    llvm::outs() << "\n";
  return 0;
}

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

} // namespace

eager::DebugHook makeDebugger(const Program &program,
                              const SourceProgram &source,
                              mlir::MLIRContext &context,
                              llvm::SourceMgr &sourceMgr,
                              const std::string &fileName,
                              const std::string &text, LineReader &reader) {
  // The name users know each function by.
  auto names = std::make_shared<std::map<std::string, std::string>>();
  for (const std::unique_ptr<Specialization> &s : program.specializations)
    (*names)[s->symbol] = s->def ? s->def->name : std::string("<module>");
  auto count = std::make_shared<int>(0);
  return [&program, &source, &context, &sourceMgr, fileName, text, &reader,
          names, count](llvm::ArrayRef<eager::DebugFrame> frames,
                        llvm::StringRef reason) -> eager::DebugAction {
    auto nameOf = [&](const eager::DebugFrame &f) {
      // A function the autodiff pass made (`loss_f32x3.vjp`) runs the code
      // of the one it differentiates.
      auto it = names->find(llvm::StringRef(f.function).split('.').first.str());
      return it == names->end() ? f.function : it->second;
    };
    auto show = [&](size_t k, bool marker) {
      const eager::DebugFrame &f = frames[k];
      std::optional<mlir::FileLineColLoc> at = fileLoc(f.where);
      llvm::outs() << (marker ? "> " : "  ");
      if (!at) {
        llvm::outs() << "<unknown> in " << nameOf(f) << "()\n";
        return;
      }
      llvm::outs() << at->getFilename().getValue() << ":" << at->getLine()
                   << ":" << at->getColumn() << " in " << nameOf(f) << "()\n";
      if (marker)
        if (std::optional<std::string> line =
                sourceLine(sourceMgr, at->getFilename(), at->getLine()))
          llvm::outs() << "-> " << llvm::StringRef(*line).trim() << "\n";
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
        std::optional<mlir::FileLineColLoc> at = fileLoc(frames[current].where);
        if (at) {
          unsigned first = at->getLine() > 5 ? at->getLine() - 5 : 1;
          for (unsigned n = first; n <= at->getLine() + 5; ++n)
            if (std::optional<std::string> l =
                    sourceLine(sourceMgr, at->getFilename(), n))
              llvm::outs() << llvm::format_decimal(n, 4)
                           << (n == at->getLine() ? " -> " : "    ") << *l
                           << "\n";
        }
      } else {
        const eager::DebugFrame &f = frames[current];
        std::string code = (cmd == "p" || cmd == "pp") ? arg.str() : *input;
        bool listing = cmd == "locals";
        // One session a frame while stopped: what an input binds is there
        // for the next (the program's own variables do not change).
        if (listing || !session || sessionFrame != current) {
          session.reset();
          session = std::make_unique<Session>(
              context, sourceMgr, llvm::sys::path::parent_path(fileName).str());
          sessionFrame = current;
          if (failed(session->define(fileName, text))) {
            session.reset();
            continue;
          }
        }
        if (listing || session->fresh()) {
          const std::vector<CarriedVar> &vars =
              program.debugScopes[static_cast<size_t>(f.scope)];
          // The point's values are the leaves of the variables it names,
          // in the scope's order; the others hold no run-time values.
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
            bool set = session->setVariable(v.name, v.type, leaves, source);
            if (listing)
              llvm::outs() << "  " << v.name << ": " << v.type.str()
                           << (set ? "" : " (not available here)") << "\n";
          }
        }
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
