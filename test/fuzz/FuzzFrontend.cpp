//===- FuzzFrontend.cpp - libFuzzer target: text to verified tfl IR -------===//
//
// Feeds arbitrary bytes to the frontend as a .tfl file: normalizeSource,
// the parser, Sema, MLIRGen and the IR verifier, as `tflc emit mlir` runs
// them. Any input must end in a module or in diagnostics; a crash, a
// sanitizer report, a leak or a timeout is a bug. Diagnostics are dropped.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "tfl/Codegen/Registration.h"

#include "mlir/IR/Diagnostics.h"

namespace {
int runOne(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  mlir::tfl::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::SourceMgr sourceMgr;
  (void)tfl::fuzz::frontend(data, size, context, sourceMgr);
  return 0;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // As tflc does: room for the deepest program the parser accepts.
  return tfl::runWithLargeStack([&] { return runOne(data, size); });
}
