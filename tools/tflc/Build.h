//===- Build.h - Executables and libraries from LLVM IR ---------*- C++ -*-===//
//
// What `tflc build` writes from a module lowered to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TOOLS_TFLC_BUILD_H
#define TFL_TOOLS_TFLC_BUILD_H

#include "tfl/Codegen/NativeCode.h"
#include "tfl/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"

#include <string>

namespace tfl::build {

struct Options {
  /// --glue-instructions, --module-instructions, --build-threads: how
  /// LLVM IR becomes object files.
  mlir::tfl::ObjectOptions objects;
  /// --report-memory: tfl_main reports its peak memory.
  bool reportMemory;
  /// --device cuda: link with the CUDA runtime.
  bool cuda;
};

/// Writes a native executable of `module` to `path`.
mlir::LogicalResult buildExecutable(mlir::ModuleOp module, llvm::StringRef path,
                                    const Options &options,
                                    mlir::TimingScope &timing);

struct LibraryOptions {
  /// -o: libNAME.so, libNAME.a, or NAME.py (the library beside it).
  std::string outputFile;
  /// The program's .tfl file.
  std::string inputPath;
  bool python, staticLibrary;
};

/// Writes the library of `program`'s exports, its header and, with
/// --python, its Python module.
mlir::LogicalResult buildLibrary(mlir::ModuleOp module, const Program &program,
                                 const Options &options,
                                 const LibraryOptions &library,
                                 mlir::TimingScope &timing);

} // namespace tfl::build

#endif // TFL_TOOLS_TFLC_BUILD_H
