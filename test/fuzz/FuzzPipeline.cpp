//===- FuzzPipeline.cpp - libFuzzer target: text to LLVM IR and a run -----===//
//
// Feeds arbitrary bytes (mutants of the test programs and examples) to the
// whole of tflc: the frontend, the CPU pipeline down to optimized LLVM IR,
// and an eager run of the same program, with a budget of ops and of
// memory per tensor so that programs that loop forever or allocate
// without bound end in an error. A program Sema accepts must compile (a
// pipeline failure is a bug) and must run to its end or to a run-time
// error; a crash, a sanitizer report, a leak or a timeout is a bug.
// Diagnostics and what the programs print are dropped.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Pipelines.h"
#include "tfl/Codegen/Registration.h"
#include "tfl/Eager/Interpreter.h"
#include "tflrt/Flags.h"
#include "tflrt/Memory.h"
#include "tflrt/Output.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

/// Ops one run may execute, and bytes one tensor may take: a run under
/// the sanitizers stays within a second or two.
constexpr uint64_t kMaxOps = 1000;
constexpr size_t kMaxTensorBytes = size_t(1) << 20;

[[noreturn]] void bug(const char *what, mlir::ModuleOp module) {
  llvm::errs() << "fuzz-pipeline: " << what << "\n";
  if (module)
    module->print(llvm::errs());
  std::abort();
}

int runOne(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  mlir::tfl::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Diagnostics are dropped, but a pass's own error is remembered: a
  // pipeline that fails on a program Sema accepted is a bug.
  // The one exception: vmap's batching rules, which only the pass can
  // check (whether a value differs per example is found by following the
  // values), reject what they cannot batch with an error at the program's
  // line, as Sema would.
  std::string lastError;
  bool located = false;
  mlir::ScopedDiagnosticHandler quiet(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
      lastError = d.str();
      auto at = mlir::dyn_cast<mlir::FileLineColLoc>(d.getLocation());
      located = at && at.getFilename() == "fuzz.tfl";
    }
    return mlir::success();
  });
  auto batchingRejected = [&] {
    return located && llvm::StringRef(lastError).starts_with("vmap");
  };
  llvm::SourceMgr sourceMgr;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tfl::fuzz::frontend(data, size, context, sourceMgr);
  if (!module)
    return 0;

  // Compiled: the CPU pipeline to the LLVM dialect, then LLVM IR at -O3.
  {
    mlir::OwningOpRef<mlir::ModuleOp> compiled = module->clone();
    mlir::PassManager pm(&context);
    if (failed(mlir::tfl::buildCpuPipeline(pm)))
      bug("the CPU pipeline cannot be built", nullptr);
    if (failed(pm.run(*compiled))) {
      if (batchingRejected())
        return 0;
      llvm::errs() << "fuzz-pipeline: " << lastError << "\n";
      bug("the CPU pipeline failed on a program Sema accepted", *module);
    }
    llvm::LLVMContext llvmContext;
    if (!mlir::tfl::translateToOptimizedLLVMIR(*compiled, llvmContext))
      bug("translation to LLVM IR failed", nullptr);
  }

  // Eager: the simplify stage, then the interpreter with its budgets.
  mlir::PassManager pm(&context);
  if (failed(mlir::tfl::buildCpuPipeline(pm, "simplify")))
    bug("the CPU pipeline cannot be built", nullptr);
  if (failed(pm.run(*module))) {
    llvm::errs() << "fuzz-pipeline: " << lastError << "\n";
    bug("the simplify stage failed on a program Sema accepted", *module);
  }
  tfl::eager::KernelRegistry kernels;
  tfl::eager::registerTflKernels(kernels);
  tfl::eager::registerUpstreamKernels(kernels);
  tflrt::resetFlags();
  tfl::eager::declareFlags(*module);
  tfl::eager::RunOptions options;
  options.maxOps = kMaxOps;
  (void)tfl::eager::run(*module, tfl::kEntrySymbol, kernels, options);
  tflrt::flushOutput();
  return 0;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // What programs print goes nowhere (libFuzzer reports on stderr).
  if (!std::freopen("/dev/null", "w", stdout))
    return 1;
  tflrt::setTensorByteLimit(kMaxTensorBytes);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // As tflc does: room for the deepest program the parser accepts.
  return tfl::runWithLargeStack([&] { return runOne(data, size); });
}
