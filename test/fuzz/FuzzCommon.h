//===- FuzzCommon.h - What the source-text fuzz targets share ---*- C++ -*-===//
//
// Bytes as a .tfl file through the frontend, as tflc runs it: the text
// normalized, parsed with its imports, analyzed by Sema, and made into a
// verified module by MLIRGen.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TEST_FUZZ_FUZZCOMMON_H
#define TFL_TEST_FUZZ_FUZZCOMMON_H

#include "tfl/Frontend/MLIRGen.h"
#include "tfl/Frontend/Modules.h"
#include "tfl/Frontend/Parser.h"
#include "tfl/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

namespace tfl::fuzz {

/// The module of the program `data` holds, or null where the frontend
/// refused it with diagnostics. Aborts where MLIRGen made invalid IR from
/// a program Sema accepted: that is a bug.
inline mlir::OwningOpRef<mlir::ModuleOp> frontend(const uint8_t *data,
                                                  size_t size,
                                                  mlir::MLIRContext &context,
                                                  llvm::SourceMgr &sourceMgr) {
  unsigned id = sourceMgr.AddNewSourceBuffer(
      normalizeSource(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.tfl")),
      llvm::SMLoc());
  std::unique_ptr<SourceProgram> source =
      loadProgram(sourceMgr, id, &context, stdlibPath());
  if (!source)
    return nullptr;
  std::unique_ptr<Program> program = analyze(*source, &context, SemaOptions());
  if (!program)
    return nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module = genModule(context, *program);
  if (failed(mlir::verify(*module))) {
    llvm::errs() << "fuzz: MLIRGen made invalid IR from a program Sema "
                    "accepted\n";
    std::abort();
  }
  return module;
}

} // namespace tfl::fuzz

#endif // TFL_TEST_FUZZ_FUZZCOMMON_H
