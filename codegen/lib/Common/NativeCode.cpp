//===- NativeCode.cpp - From the LLVM dialect to an executable ------------===//
//
// The object files are produced in-process: MLIR's LLVM IR export, LLVM's
// -O3 pipeline (a lighter one for glue: see optimize) and TargetMachines for
// the host CPU (its features included), the glue's object generated at -O0
// beside the rest's (see emitObjectFiles). The final link is the only
// external step: the system's C++ driver links the objects with libtflrt's
// entry point and runtime (paths fixed at build time).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Config.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <mutex>

namespace mlir::tfl {
namespace {

/// A TargetMachine for the host CPU (its features included) at `level`.
std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(llvm::CodeGenOptLevel level, std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu = llvm::sys::getHostCPUName().str(), features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features += (feature.second ? "+" : "-") + feature.first().str() + ",";
  // TFL_ISA (avx512, avx2, baseline), which also picks libtflrt's
  // kernels, builds for that level of x86-64 instead: one machine
  // builds and measures what another ISA would run.
  if (const char *isa = std::getenv("TFL_ISA"); isa && *isa) {
    cpu = llvm::StringSwitch<std::string>(isa)
              .Case("avx512", "x86-64-v4")
              .Case("avx2", "x86-64-v3")
              .Case("baseline", "x86-64")
              .Default(cpu);
    if (cpu != llvm::sys::getHostCPUName())
      features.clear();
  }
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, cpu, features, llvm::TargetOptions(),
                                  llvm::Reloc::PIC_, std::nullopt, level));
}

/// The host's TargetMachine at -O3, made once.
llvm::TargetMachine *hostTargetMachine(std::string &error) {
  static std::string initError;
  static std::unique_ptr<llvm::TargetMachine> tm =
      createHostTargetMachine(llvm::CodeGenOptLevel::Aggressive, initError);
  error = initError;
  return tm.get();
}

/// The attribute that marks a glue function (see optimize).
constexpr const char *kGlueAttribute = "tfl-glue";

bool isGlue(const llvm::GlobalValue &value) {
  const auto *f = llvm::dyn_cast<llvm::Function>(&value);
  return f && !f->isDeclaration() && f->hasFnAttribute(kGlueAttribute);
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

/// LLVM's -O3 pipeline for this target, as clang's, but for the glue.
///
/// The program's top level (tfl_main, an export's body) holds a whole
/// training step inlined: calls of the runtime and of the outlined loops,
/// with small serial loops between them, tens of thousands of
/// instructions that grow with the model's layers. LLVM's loop passes,
/// register allocation and scheduling grow faster than linearly on one
/// function that large (most of a build's time, and 2.6 times the time
/// for twice the layers), for little gain: its loops are small, and the
/// step's time is in the libraries and outlined loops. Such a function
/// gets SROA, CSE, instcombine and CFG simplification (which remove the
/// descriptors MLIR's lowering builds), then `optnone`, so that -O3 and
/// the code generator's optional passes leave it as it is (the standard
/// instrumentations skip optnone functions).
void optimize(llvm::Module &module, llvm::TargetMachine *tm,
              unsigned glueInstructions) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(module.getContext(),
                                                  /*DebugLogging=*/false);
  instrumentations.registerCallbacks(callbacks, &mam);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(tm, tuning, std::nullopt, &callbacks);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::FunctionPassManager glue;
  glue.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  glue.addPass(llvm::EarlyCSEPass());
  glue.addPass(llvm::InstCombinePass());
  glue.addPass(llvm::SimplifyCFGPass());
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getInstructionCount() > glueInstructions) {
      glue.run(f, fam);
      f.addFnAttr(llvm::Attribute::OptimizeNone);
      f.addFnAttr(llvm::Attribute::NoInline);
      f.addFnAttr(kGlueAttribute);
      fam.invalidate(f, llvm::PreservedAnalyses::none());
    }
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

} // namespace

std::unique_ptr<llvm::Module>
translateToOptimizedLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                           unsigned glueInstructions) {
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
  // Unwind tables, as clang gives every function on this target: a
  // library's run-time error unwinds through compiled code to the export's
  // boundary (a C++ exception), and debuggers and profilers walk its
  // frames.
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration())
      f.setUWTableKind(llvm::UWTableKind::Async);
  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());
  optimize(*llvmModule, tm, glueInstructions);
  return llvmModule;
}

namespace {
/// Runs `tm`'s code generator over `module` into a new temporary object
/// file, `path`.
bool generateObject(llvm::Module &module, llvm::TargetMachine &tm,
                    std::string &path, std::string &error) {
  llvm::SmallString<128> file;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tfl", "o", file)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  path = file.str().str();
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return false;
  }
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, out, nullptr,
                             llvm::CodeGenFileType::ObjectFile)) {
    error = "this host's target cannot emit object files";
    return false;
  }
  pm.run(module);
  out.flush();
  return true;
}

/// Gives every local definition of `module` a hidden external symbol
/// (prefixed, so none meets a name of libtflrt's), so that a function in one
/// object file may refer to it in another of the same program or library.
void externalizeLocals(llvm::Module &module) {
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.isDeclaration() || !value.hasLocalLinkage())
      continue;
    std::string name =
        "__tfl_local." + (value.hasName() ? value.getName().str() : "anon");
    value.setName(name);
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
}

/// Leaves in `module` only the definitions of its glue functions: every
/// other function and variable is declared, defined in the other object.
void keepOnlyGlue(llvm::Module &module) {
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && !isGlue(f)) {
      f.deleteBody();
      f.setComdat(nullptr);
    }
  for (llvm::GlobalVariable &v : llvm::make_early_inc_range(module.globals())) {
    if (v.hasAppendingLinkage()) { // llvm.global_ctors, llvm.used, ...
      v.eraseFromParent();
      continue;
    }
    if (v.isDeclaration())
      continue;
    v.setInitializer(nullptr);
    v.setLinkage(llvm::GlobalValue::ExternalLinkage);
    v.setComdat(nullptr);
  }
}
} // namespace

LogicalResult emitObjectFiles(llvm::Module &llvmModule,
                              SmallVectorImpl<std::string> &objectPaths) {
  std::string error;
  auto fail = [&] {
    llvm::errs() << "error: code generation failed: " << error << "\n";
    return failure();
  };
  llvm::TargetMachine *tm = hostTargetMachine(error);
  if (!tm)
    return fail();
  bool hasGlue = llvm::any_of(llvmModule, isGlue);
  if (!hasGlue || !llvmModule.alias_empty() || !llvmModule.ifunc_empty()) {
    objectPaths.emplace_back();
    if (!generateObject(llvmModule, *tm, objectPaths.back(), error))
      return fail();
    return success();
  }

  // Two objects. The glue (a whole step inlined, tens of thousands of
  // instructions) is generated at -O0: fast instruction selection (as
  // optnone already chose) and fast register allocation, where the
  // greedy allocator and its live-interval analysis grow faster than
  // linearly with one function's size (3.7 s of the 8-layer GPT's build,
  // against 0.9 s at -O0). Everything else, the outlined loops and the
  // kernels, keeps -O3, on a second thread in a context of its own (a
  // copy through bitcode) while this one generates the glue.
  externalizeLocals(llvmModule);
  SmallVector<char, 0> restBitcode;
  {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> rest =
        llvm::CloneModule(llvmModule, map, [](const llvm::GlobalValue *value) {
          return !isGlue(*value);
        });
    llvm::raw_svector_ostream os(restBitcode);
    llvm::WriteBitcodeToFile(*rest, os);
  }
  keepOnlyGlue(llvmModule);

  std::string restPath, restError;
  bool restDone = false;
  {
    // The code generator recurses on large blocks: a main thread's stack.
    llvm::thread worker(std::optional<unsigned>(8u << 20), [&] {
      llvm::LLVMContext context;
      llvm::Expected<std::unique_ptr<llvm::Module>> rest =
          llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(
                  StringRef(restBitcode.data(), restBitcode.size()), "tfl"),
              context);
      if (!rest) {
        restError = llvm::toString(rest.takeError());
        return;
      }
      std::unique_ptr<llvm::TargetMachine> restTm =
          createHostTargetMachine(llvm::CodeGenOptLevel::Aggressive, restError);
      restDone = restTm && generateObject(**rest, *restTm, restPath, restError);
    });
    std::unique_ptr<llvm::TargetMachine> glueTm =
        createHostTargetMachine(llvm::CodeGenOptLevel::None, error);
    std::string gluePath;
    bool glueDone =
        glueTm && generateObject(llvmModule, *glueTm, gluePath, error);
    if (!gluePath.empty())
      objectPaths.push_back(gluePath);
    worker.join();
    if (!restPath.empty())
      objectPaths.push_back(restPath);
    if (!glueDone)
      return fail();
  }
  if (!restDone) {
    error = restError;
    return fail();
  }
  return success();
}

namespace {
/// The C++ compiler driver that links (the one tflc was built with, else
/// c++ or g++ on PATH).
std::optional<std::string> linkerDriver(std::string &errorMessage) {
  llvm::ErrorOr<std::string> driver = std::string(TFL_LINKER_DRIVER);
  if (!llvm::sys::fs::can_execute(*driver))
    driver = llvm::sys::findProgramByName("c++");
  if (!driver)
    driver = llvm::sys::findProgramByName("g++");
  if (!driver) {
    errorMessage = "no C++ compiler driver (c++ or g++) on PATH to link with";
    return std::nullopt;
  }
  return *driver;
}

/// Runs the driver with `args` (after its own name).
LogicalResult runDriver(StringRef driver, ArrayRef<StringRef> args,
                        std::string &errorMessage) {
  SmallVector<StringRef> all = {driver};
  llvm::append_range(all, args);
  int rc = llvm::sys::ExecuteAndWait(driver, all, std::nullopt, {}, 0, 0,
                                     &errorMessage);
  if (rc != 0 && errorMessage.empty())
    errorMessage =
        "the compiler driver failed (exit code " + std::to_string(rc) + ")";
  return success(rc == 0);
}

/// libtflrt and what it needs, for a link line.
void appendRuntimeLibraries(SmallVectorImpl<StringRef> &args) {
  args.push_back(TFL_RUNTIME_LIB);
  SmallVector<StringRef> mpi;
  StringRef(TFL_MPI_LIBS).split(mpi, ' ', -1, false);
  if (!mpi.empty()) {
    args.push_back("-Wl,--push-state,--as-needed");
    llvm::append_range(args, mpi);
    args.push_back("-Wl,--pop-state");
  }
  args.append({TFL_OPENBLAS_LIB, TFL_OPENBLAS_RPATH, TFL_DNNL_LIB, TFL_GOMP_LIB,
               "-lpthread", "-lz", "-lm"});
  SmallVector<StringRef> sanitize;
  StringRef(TFL_SANITIZE_LINK_FLAGS).split(sanitize, ' ', -1, false);
  llvm::append_range(args, sanitize);
}
} // namespace

LogicalResult compileCSource(StringRef sourcePath, StringRef objectPath,
                             std::string &errorMessage) {
  std::optional<std::string> driver = linkerDriver(errorMessage);
  if (!driver)
    return failure();
  return runDriver(*driver,
                   {"-x", "c", "-std=c11", "-O2", "-fPIC",
                    "-I" TFL_RUNTIME_INCLUDE_DIR, "-c", sourcePath, "-o",
                    objectPath},
                   errorMessage);
}

LogicalResult linkSharedLibrary(ArrayRef<StringRef> objectPaths,
                                StringRef outputPath, StringRef versionScript,
                                std::string &errorMessage) {
  std::optional<std::string> driver = linkerDriver(errorMessage);
  if (!driver)
    return failure();
  // libtflrt's symbols stay inside the library (--exclude-libs, and the
  // version script exports only the API): two models loaded in one
  // process each keep their own runtime.
  std::string script = ("-Wl,--version-script=" + versionScript).str();
  SmallVector<StringRef> args = {"-shared", "-o", outputPath};
  llvm::append_range(args, objectPaths);
  args.append({"-Wl,--exclude-libs,ALL", script});
  appendRuntimeLibraries(args);
  return runDriver(*driver, args, errorMessage);
}

LogicalResult archiveStaticLibrary(ArrayRef<StringRef> objectPaths,
                                   StringRef outputPath,
                                   std::string &errorMessage) {
  // ar's MRI script: the objects and libtflrt's members, in one archive.
  llvm::ErrorOr<std::string> ar =
      llvm::sys::findProgramByName("ar", {"/usr/lib/llvm-22/bin", "/usr/bin"});
  if (!ar)
    ar = llvm::sys::findProgramByName("llvm-ar-22");
  if (!ar) {
    errorMessage = "no archiver (ar) on PATH";
    return failure();
  }
  llvm::SmallString<128> scriptPath;
  if (llvm::sys::fs::createTemporaryFile("tfl-ar", "mri", scriptPath)) {
    errorMessage = "cannot create a temporary file";
    return failure();
  }
  llvm::FileRemover removeScript(scriptPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream script(scriptPath, ec);
    if (ec) {
      errorMessage = ec.message();
      return failure();
    }
    llvm::sys::fs::remove(outputPath);
    script << "CREATE " << outputPath << "\nADDLIB " << TFL_RUNTIME_LIB << "\n";
    for (StringRef object : objectPaths)
      script << "ADDMOD " << object << "\n";
    script << "SAVE\nEND\n";
  }
  std::optional<StringRef> redirects[] = {StringRef(scriptPath), std::nullopt,
                                          std::nullopt};
  StringRef args[] = {*ar, "-M"};
  int rc = llvm::sys::ExecuteAndWait(*ar, args, std::nullopt, redirects, 0, 0,
                                     &errorMessage);
  if (rc != 0 && errorMessage.empty())
    errorMessage = "ar failed (exit code " + std::to_string(rc) + ")";
  return success(rc == 0);
}

std::string staticLinkLine() {
  std::string line = std::string(TFL_OPENBLAS_LIB) + " " + TFL_DNNL_LIB + " " +
                     TFL_GOMP_LIB + " -lz -lstdc++ -lm -lpthread";
  if (!StringRef(TFL_MPI_LIBS).empty())
    line += std::string(" ") + TFL_MPI_LIBS;
  return line;
}

LogicalResult linkExecutable(ArrayRef<StringRef> objectPaths,
                             StringRef outputPath, std::string &errorMessage,
                             ArrayRef<StringRef> targetLibraries) {
  // The C++ compiler tflc was built with links libtflrt (a C++ library);
  // PATH is the fallback when tflc was moved to another machine.
  std::optional<std::string> driver = linkerDriver(errorMessage);
  if (!driver)
    return failure();
  SmallVector<StringRef> args(objectPaths);
  args.append({"-o", outputPath, TFL_RUNTIME_MAIN_LIB});
  llvm::append_range(args, targetLibraries);
  // libtflrt, then MPI (as-needed: a program without collectives does not
  // load it), the libraries it calls, and a sanitizer build's runtimes.
  appendRuntimeLibraries(args);
  if (failed(runDriver(*driver, args, errorMessage)))
    return failure();
  return success();
}

} // namespace mlir::tfl
