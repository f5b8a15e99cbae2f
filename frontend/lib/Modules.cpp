//===- Modules.cpp - Loading a program's imported files -------------------===//
//
// A depth-first walk over import statements. Algorithm:
//   1. Parse the main file; mark it as being loaded.
//   2. For each `import m` / `from m import ...` of a file being loaded,
//      resolve m.tfl (the file's own directory first, then the search path)
//      to a real path. A path still being loaded is a cycle: an error at the
//      import naming every file on it. A path loaded before is reused.
//   3. Otherwise parse it, record it, and walk its imports (step 2).
//
//===----------------------------------------------------------------------===//

#include "tfl/Frontend/Modules.h"
#include "tfl/Frontend/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace tfl;
using namespace tfl::ast;
using llvm::dyn_cast;

std::vector<std::string> tfl::stdlibPath() {
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("TFL_STDLIB_PATH")) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(env).split(parts, ':', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef p : parts)
      dirs.push_back(p.str());
    return dirs;
  }
  dirs.push_back(TFL_STDLIB_DIR);
  return dirs;
}

namespace {

/// What a user looking for one of Python's numeric modules finds in TFL
/// instead (after the "no module named" error), or nothing.
std::string pythonModuleHint(llvm::StringRef name) {
  llvm::StringRef top = name.split('.').first;
  if (top == "math")
    return "; math's functions are TFL built-ins (sqrt, exp, log, tanh, "
           "...): call them without a module";
  if (top == "torch" || top == "numpy" || top == "jax" || top == "tensorflow")
    return "; TFL's tensor operations are built-ins, and its layers, losses "
           "and optimizers are in its standard library (import nn, losses, "
           "optim)";
  return "";
}

class Loader {
public:
  Loader(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *ctx,
         const std::vector<std::string> &searchPath)
      : sourceMgr(sourceMgr), ctx(ctx), searchPath(searchPath),
        program(std::make_unique<SourceProgram>()) {}

  std::unique_ptr<SourceProgram> run(unsigned mainBuffer) {
    std::unique_ptr<Module> main = parseModule(sourceMgr, mainBuffer, ctx);
    if (!main)
      return nullptr;
    std::string path = realPath(main->fileName);
    Module *m = main.get();
    program->modules.push_back(std::move(main));
    loaded[path] = m;
    if (failed(visit(*m, path)))
      return nullptr;
    return std::move(program);
  }

private:
  static std::string realPath(llvm::StringRef path) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      return path.str();
    return real.str().str();
  }

  mlir::InFlightDiagnostic error(const Module &m, Position p) {
    return mlir::emitError(
        mlir::FileLineColLoc::get(ctx, m.fileName, p.line, p.col));
  }

  /// Loads the files `m` (at `path`) imports, recording each import.
  mlir::LogicalResult visit(const Module &m, const std::string &path) {
    stack.push_back({path, &m});
    for (const StmtPtr &s : m.body) {
      std::vector<std::pair<std::string, SourceRange>> names;
      if (auto *imp = dyn_cast<ImportStmt>(s.get()))
        for (const ImportName &n : imp->names)
          names.push_back({n.name, n.range});
      else if (auto *from = dyn_cast<FromImportStmt>(s.get()))
        names.push_back({from->module, from->moduleRange});
      else
        continue;
      for (auto &[name, range] : names) {
        const Module *target = load(m, name, range.begin);
        if (!target)
          return mlir::failure();
        program->imports[s.get()].push_back(target);
      }
    }
    stack.pop_back();
    return mlir::success();
  }

  const Module *load(const Module &from, llvm::StringRef name, Position at) {
    if (name.contains('.')) {
      error(from, at) << "cannot import '" << name
                      << "': packages (dotted names) are not supported; "
                         "import a file by its name";
      return nullptr;
    }
    // The importing file's directory, then the standard library.
    std::vector<std::string> dirs;
    llvm::StringRef dir = llvm::sys::path::parent_path(from.fileName);
    dirs.push_back(dir.empty() ? "." : dir.str());
    dirs.insert(dirs.end(), searchPath.begin(), searchPath.end());
    std::string found;
    for (const std::string &d : dirs) {
      llvm::SmallString<256> candidate(d);
      llvm::sys::path::append(candidate, name + ".tfl");
      if (llvm::sys::fs::is_regular_file(candidate)) {
        found = candidate.str().str();
        break;
      }
    }
    if (found.empty()) {
      auto diag = error(from, at) << "no module named '" << name
                                  << "' (looked for " << name << ".tfl in";
      for (size_t i = 0; i < dirs.size(); ++i)
        diag << (i ? ", " : " ") << dirs[i];
      diag << ")" << pythonModuleHint(name);
      return nullptr;
    }
    std::string path = realPath(found);
    for (size_t i = 0; i < stack.size(); ++i) {
      if (stack[i].first != path)
        continue;
      std::string cycle;
      for (size_t k = i; k < stack.size(); ++k)
        cycle += moduleName(*stack[k].second) + " -> ";
      error(from, at) << "import cycle: " << cycle << name;
      return nullptr;
    }
    auto it = loaded.find(path);
    if (it != loaded.end())
      return it->second;

    auto buffer = llvm::MemoryBuffer::getFile(found);
    if (!buffer) {
      error(from, at) << "cannot read " << found << ": "
                      << buffer.getError().message();
      return nullptr;
    }
    unsigned id = sourceMgr.AddNewSourceBuffer(
        normalizeSource(std::move(*buffer)), llvm::SMLoc());
    std::unique_ptr<Module> module = parseModule(sourceMgr, id, ctx);
    if (!module)
      return nullptr;
    module->name = name.str();
    Module *m = module.get();
    program->modules.push_back(std::move(module));
    loaded[path] = m;
    if (failed(visit(*m, path)))
      return nullptr;
    return m;
  }

  static std::string moduleName(const Module &m) {
    if (!m.name.empty())
      return m.name;
    return llvm::sys::path::stem(m.fileName).str();
  }

  llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext *ctx;
  const std::vector<std::string> &searchPath;
  std::unique_ptr<SourceProgram> program;
  llvm::StringMap<Module *> loaded;
  /// The files being loaded, outermost first.
  std::vector<std::pair<std::string, const Module *>> stack;
};

} // namespace

std::unique_ptr<SourceProgram>
tfl::loadProgram(llvm::SourceMgr &sourceMgr, unsigned mainBuffer,
                 mlir::MLIRContext *context,
                 const std::vector<std::string> &searchPath) {
  return Loader(sourceMgr, context, searchPath).run(mainBuffer);
}
