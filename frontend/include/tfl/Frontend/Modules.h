//===- Modules.h - Loading a program's imported files -----------*- C++ -*-===//
//
// A program is its main file and every file it imports, transitively:
// `import nn` finds nn.tfl in the importing file's directory, then in each
// directory of the standard-library search path. Each file is parsed once
// (however many files import it); an import cycle is a compile error that
// names the cycle.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_MODULES_H
#define TFL_FRONTEND_MODULES_H

#include "tfl/Frontend/AST.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>
#include <vector>

namespace tfl {

/// The parsed files of one program.
struct SourceProgram {
  /// The main file first, then imported files in the order first imported.
  std::vector<std::unique_ptr<ast::Module>> modules;
  /// The file each imported name (`import nn`, `from nn import f`) loads.
  llvm::DenseMap<const ast::Stmt *, std::vector<const ast::Module *>> imports;
  const ast::Module &main() const { return *modules.front(); }
};

/// The standard library's directories: $TFL_STDLIB_PATH (':'-separated)
/// when set, else the stdlib/ folder this compiler was built with.
std::vector<std::string> stdlibPath();

/// Parses buffer `mainBuffer` of `sourceMgr` and the files it imports
/// (added to `sourceMgr`). Returns null after reporting an error.
std::unique_ptr<SourceProgram>
loadProgram(llvm::SourceMgr &sourceMgr, unsigned mainBuffer,
            mlir::MLIRContext *context,
            const std::vector<std::string> &searchPath);

} // namespace tfl

#endif // TFL_FRONTEND_MODULES_H
