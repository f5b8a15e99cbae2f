//===- Repl.cpp - The interactive prompt's session ------------------------===//

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

std::map<std::string, Variable>
Session::movedVariables(const Compiled &compiled) const {
  std::map<std::string, Variable> moved;
  for (const auto &[varName, var] : variables) {
    std::optional<Type> t =
        current ? remapType(var.type, current->index, compiled.index)
                : std::optional<Type>(var.type);
    if (!t) {
      llvm::errs() << "note: '" << varName
                   << "' is dropped: a definition its value refers to "
                      "changed\n";
      continue;
    }
    moved[varName] = {std::move(*t), var.leaves};
  }
  return moved;
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

  std::map<std::string, Variable> moved = movedVariables(*compiled);

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
  if (prepareModule)
    prepareModule(*module);
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
  if (prepareKernels)
    prepareKernels(kernels, *module);
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

} // namespace tfl::repl
