//===- NativeCode.cpp - From the LLVM dialect to an executable ------------===//
//
// The object file is produced in-process: MLIR's LLVM IR export, LLVM's -O3
// pipeline and TargetMachine for the host CPU (its features included). The
// final link is the only external step: the system's C++ driver links the
// object with libtflrt's entry point and runtime (paths fixed at build time).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Config.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

namespace mlir::tfl {
namespace {

/// The host's TargetMachine, made once.
llvm::TargetMachine *hostTargetMachine(std::string &error) {
  static std::unique_ptr<llvm::TargetMachine> tm;
  static std::string initError;
  static bool initialized = false;
  if (!initialized) {
    initialized = true;
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, initError);
    if (target) {
      std::string features;
      for (const auto &feature : llvm::sys::getHostCPUFeatures())
        features += (feature.second ? "+" : "-") + feature.first().str() + ",";
      tm.reset(target->createTargetMachine(
          triple, llvm::sys::getHostCPUName(), features, llvm::TargetOptions(),
          llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    }
  }
  error = initError;
  return tm.get();
}

/// True when every use of `v` (through address computations) is in `block`.
bool usedOnlyIn(llvm::Value *v, llvm::BasicBlock *block) {
  for (llvm::User *user : v->users()) {
    auto *inst = llvm::dyn_cast<llvm::Instruction>(user);
    if (!inst || inst->getParent() != block)
      return false;
    if ((llvm::isa<llvm::GetElementPtrInst>(inst) ||
         llvm::isa<llvm::CastInst>(inst)) &&
        !usedOnlyIn(inst, block))
      return false;
  }
  return true;
}

/// Moves the fixed-size allocas that MLIR's lowerings place at their use
/// (a kernel launch's argument array, a runtime call's memref descriptor)
/// into the entry block, as clang places locals. In a loop such an alloca
/// would otherwise take new stack every iteration until the stack
/// overflows; since all its uses are in its own block, one slot reused by
/// every iteration is equivalent.
void hoistLocalAllocas(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    llvm::BasicBlock &entry = f.getEntryBlock();
    for (llvm::BasicBlock &block : f) {
      if (&block == &entry)
        continue;
      for (llvm::Instruction &inst : llvm::make_early_inc_range(block)) {
        auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
        if (alloca && !alloca->isStaticAlloca() &&
            llvm::isa<llvm::ConstantInt>(alloca->getArraySize()) &&
            usedOnlyIn(alloca, &block))
          alloca->moveBefore(entry.getFirstInsertionPt());
      }
    }
  }
}

} // namespace

std::unique_ptr<llvm::Module>
translateToOptimizedLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);

  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tfl");
  if (!llvmModule) {
    module.emitError("translation to LLVM IR failed");
    return nullptr;
  }
  std::string error;
  llvm::TargetMachine *tm = hostTargetMachine(error);
  if (!tm) {
    module.emitError("no LLVM target for this host: ") << error;
    return nullptr;
  }
  hoistLocalAllocas(*llvmModule);
  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());
  if (llvm::Error err = makeOptimizingTransformer(3, 0, tm)(llvmModule.get())) {
    module.emitError("LLVM optimization failed: ")
        << llvm::toString(std::move(err));
    return nullptr;
  }
  return llvmModule;
}

LogicalResult emitObjectFile(llvm::Module &llvmModule, StringRef path) {
  std::string error;
  llvm::TargetMachine *tm = hostTargetMachine(error);
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (!tm || ec) {
    llvm::errs() << "error: cannot write " << path << ": "
                 << (ec ? ec.message() : error) << "\n";
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, out, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    llvm::errs() << "error: this host's target cannot emit object files\n";
    return failure();
  }
  pm.run(llvmModule);
  out.flush();
  return success();
}

LogicalResult linkExecutable(StringRef objectPath, StringRef outputPath,
                             std::string &errorMessage,
                             ArrayRef<StringRef> targetLibraries) {
  // The C++ compiler tflc was built with links libtflrt (a C++ library);
  // PATH is the fallback when tflc was moved to another machine.
  llvm::ErrorOr<std::string> driver = std::string(TFL_LINKER_DRIVER);
  if (!llvm::sys::fs::can_execute(*driver))
    driver = llvm::sys::findProgramByName("c++");
  if (!driver)
    driver = llvm::sys::findProgramByName("g++");
  if (!driver) {
    errorMessage = "no C++ compiler driver (c++ or g++) on PATH to link with";
    return failure();
  }
  SmallVector<StringRef> args = {*driver, objectPath, "-o", outputPath,
                                 TFL_RUNTIME_MAIN_LIB};
  llvm::append_range(args, targetLibraries);
  args.push_back(TFL_RUNTIME_LIB);
  // MPI, when libtflrt's collectives are linked in (as-needed: a program
  // without collectives does not load it).
  SmallVector<StringRef> mpi;
  StringRef(TFL_MPI_LIBS).split(mpi, ' ', -1, false);
  if (!mpi.empty()) {
    args.push_back("-Wl,--push-state,--as-needed");
    llvm::append_range(args, mpi);
    args.push_back("-Wl,--pop-state");
  }
  args.append({TFL_OPENBLAS_LIB, TFL_OPENBLAS_RPATH, TFL_DNNL_LIB, TFL_GOMP_LIB,
               "-lpthread", "-lz", "-lm"});
  // A sanitizer build's libtflrt needs the sanitizers' runtimes.
  SmallVector<StringRef> sanitize;
  StringRef(TFL_SANITIZE_LINK_FLAGS).split(sanitize, ' ', -1, false);
  llvm::append_range(args, sanitize);
  int rc = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                     &errorMessage);
  if (rc != 0 && errorMessage.empty())
    errorMessage = "the linker failed (exit code " + std::to_string(rc) + ")";
  return success(rc == 0);
}

} // namespace mlir::tfl
