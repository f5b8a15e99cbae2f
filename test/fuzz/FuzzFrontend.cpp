//===- FuzzFrontend.cpp - libFuzzer target: text to verified tfl IR -------===//
//
// Feeds arbitrary bytes to the frontend as a .tfl file: normalizeSource,
// the parser, Sema, MLIRGen and the IR verifier, as `tflc emit mlir` runs
// them. Any input must end in a module or in diagnostics; a crash, a
// sanitizer report, a leak or a timeout is a bug. Diagnostics are dropped.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/Frontend/MLIRGen.h"
#include "tfl/Frontend/Modules.h"
#include "tfl/Frontend/Parser.h"
#include "tfl/Frontend/Sema.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <cstdlib>

namespace {
int runOne(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  mlir::tfl::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(
      tfl::normalizeSource(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.tfl")),
      llvm::SMLoc());
  std::unique_ptr<tfl::SourceProgram> source =
      tfl::loadProgram(sourceMgr, id, &context, tfl::stdlibPath());
  if (!source)
    return 0;
  std::unique_ptr<tfl::Program> program =
      tfl::analyze(*source, &context, tfl::SemaOptions());
  if (!program)
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module = tfl::genModule(context, *program);
  if (failed(mlir::verify(*module)))
    std::abort(); // MLIRGen made invalid IR from a program Sema accepted
  return 0;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // As tflc does: room for the deepest program the parser accepts.
  return tfl::runWithLargeStack([&] { return runOne(data, size); });
}
