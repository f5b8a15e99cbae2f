//===- tflc.cpp - The TFL compiler driver ---------------------------------===//
//
//   tflc run [--eager] prog.tfl [program flags]   run the program
//   tflc build prog.tfl -o prog [--device cuda]   a native executable
//   tflc emit {ast,mlir,llvm,ptx} [--after=STAGE] [--device cuda] prog.tfl
//   tflc repl [prog.tfl [program flags]]           the interactive prompt
//
// Every stage can be seen (Toy's -emit=): `emit ast` after parsing, `emit
// mlir` after MLIRGen or after any pipeline stage, `emit llvm` the optimized
// LLVM IR. Diagnostics go through MLIR's SourceMgr handler, so every error
// reads `file.tfl:LINE:COL: error: ...` with the source line and a caret;
// `--verify-diagnostics` checks them against `# expected-error {{...}}`.
//
//===----------------------------------------------------------------------===//

#include "Build.h"
#include "CheckGrad.h"
#include "CompiledOps.h"
#include "Options.h"
#include "Repl.h"
#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Pipelines.h"
#include "tfl/Codegen/Registration.h"
#ifdef TFL_HAVE_CUDA
#include "tfl/Codegen/Cuda/Cuda.h"
#endif
#include "tfl/Eager/Interpreter.h"
#include "tfl/Frontend/MLIRGen.h"
#include "tfl/Frontend/Parser.h"
#include "tfl/Frontend/Sema.h"
#include "tflrt/CApi.h"
#include "tflrt/Collectives.h"
#include "tflrt/Flags.h"
#include "tflrt/Output.h"
#include "tflrt/Parallel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>

namespace cl = llvm::cl;
using namespace tfl::tflc;

namespace {

enum class Command { Run, Build, Emit, CheckGrad, Repl };
enum class EmitKind { Ast, Mlir, Llvm, Ptx };

const char *kUsage = "usage: tflc run [--eager|--device cuda] "
                     "[--precision bf16] [--report-memory] prog.tfl [flags]\n"
                     "       tflc build prog.tfl -o prog [--device cuda] "
                     "[--precision bf16] [--report-memory] [--world-size N]\n"
                     "       tflc check-grad prog.tfl FUNC [--seed=N] "
                     "[--tolerance=T]\n"
                     "       tflc emit {ast,mlir,llvm,ptx} [--after=STAGE] "
                     "[--device cuda] prog.tfl\n"
                     "       tflc repl [prog.tfl [flags]]\n";

/// True when `arg` (after the .tfl file) is one of tflc's own options.
bool isTflcOption(llvm::StringRef arg) {
  if (!arg.starts_with("-"))
    return false;
  llvm::StringRef name = arg.ltrim('-').split('=').first;
  return cl::getRegisteredOptions().count(name) > 0;
}

/// Splits argv into tflc's arguments and the program's (unknown flags after
/// the .tfl file go to the program).
void splitArgs(int argc, char **argv, std::vector<const char *> &tflcArgs,
               std::vector<std::string> &programArgs) {
  tflcArgs.push_back(argv[0]);
  bool seenInput = false;
  for (int i = 2; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (!seenInput && arg.ends_with(".tfl")) {
      seenInput = true;
      tflcArgs.push_back(argv[i]);
      continue;
    }
    // After the program, its flags (and --help) are the program's.
    bool programHelp = arg == "--help" || arg == "-h";
    if (seenInput && (programHelp || !isTflcOption(arg)) &&
        arg.starts_with("-")) {
      programArgs.push_back(arg.str());
      continue;
    }
    tflcArgs.push_back(argv[i]);
    // `-o path`: the value belongs to tflc as well.
    if (arg == "-o" && i + 1 < argc)
      tflcArgs.push_back(argv[++i]);
  }
}

/// Where eager mode's compiled kernels run: on the GPU with --device cuda
/// (with --test-compiled-ops, built and linked but not run); else, with
/// --test-compiled-ops, the CPU's on a simulated device memory.
tfl::compiled::Target opTarget() {
  if (device != Device::Cuda)
    return tfl::compiled::Target::SimulatedDevice;
  return testCompiledOps ? tfl::compiled::Target::CudaLinkOnly
                         : tfl::compiled::Target::Cuda;
}

/// The driver's state for one invocation.
class Driver {
public:
  Driver(Command command, std::string inputPath,
         std::vector<std::string> programArgs)
      : command(command), inputPath(std::move(inputPath)),
        programArgs(std::move(programArgs)) {
    timingManager.setEnabled(timeReport);
    timingManager.setDisplayMode(mlir::DefaultTimingManager::DisplayMode::Tree);
    timing = timingManager.getRootScope();
    mlir::DialectRegistry registry;
    mlir::tfl::registerCompilerDialects(registry);
#ifdef TFL_HAVE_CUDA
    mlir::tfl::registerCudaDialects(registry);
#endif
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // Users see their .tfl line, not the IR op behind it.
    context.printOpOnDiagnostic(false);
  }

  int run(std::optional<EmitKind> emitKind);
  /// tflc repl: the prompt, after running the program when there is one.
  int repl();

private:
  /// Parses, checks and emits the tfl module. Null after errors.
  mlir::OwningOpRef<mlir::ModuleOp>
  frontend(unsigned bufferId, std::optional<EmitKind> emitKind, bool &stop);
  /// Runs the pipeline of --device up to `lastStage` (all when empty); for
  /// CUDA, `ptxOnly` keeps the kernels as PTX text.
  mlir::LogicalResult lower(mlir::ModuleOp module, llvm::StringRef lastStage,
                            bool ptxOnly = false);
  /// Writes a native executable of `module` (in the LLVM dialect).
  mlir::LogicalResult buildExecutable(mlir::ModuleOp module,
                                      llvm::StringRef path);
  /// Writes the shared library of the program's exports, its header and,
  /// with --python, its Python module.
  mlir::LogicalResult buildLibrary(mlir::ModuleOp module);
  int runNative(mlir::ModuleOp module);
  /// check-grad: the program's definitions and a checking driver, as a new
  /// buffer (bufferId); an exit code when that fails.
  std::optional<int> checkGradProgram(unsigned &bufferId);
  /// --precision, --bucket-mb and --device as the module's attributes;
  /// false after an error.
  bool setModuleOptions(mlir::ModuleOp module);
  /// tflc run --eager and check-grad: whether the run succeeded.
  bool runEager(mlir::ModuleOp module, unsigned bufferId);
  /// tflc emit ptx and emit llvm, of a lowered module; whether it printed.
  bool emitCode(mlir::ModuleOp module, EmitKind kind);
  std::optional<int64_t> compiledWorldSize() const;

  /// Whether the eager run stops in the debugger (breakpoint(), --pdb).
  bool debugging() const;
  /// Prepares a session's inputs as the program's: their options, and with
  /// `compiler` (--device cuda) their ops on its kernels.
  void configureSession(tfl::repl::Session &session,
                        std::shared_ptr<tfl::compiled::OpCompiler> compiler);

  Command command;
  std::string inputPath;
  std::vector<std::string> programArgs;
  /// --time-report: its phases nest under `timing`'s root, and the report
  /// prints when the driver goes (after the program ran, for tflc run).
  mlir::DefaultTimingManager timingManager;
  mlir::TimingScope timing;
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  /// The program being compiled (the debugger reads its scopes).
  std::unique_ptr<tfl::SourceProgram> source;
  std::unique_ptr<tfl::Program> program;
};

void Driver::configureSession(
    tfl::repl::Session &session,
    std::shared_ptr<tfl::compiled::OpCompiler> compiler) {
  session.prepareModule = [this](mlir::ModuleOp module) {
    (void)setModuleOptions(module); // checked for the program already
  };
  if (compiler)
    session.prepareKernels = [compiler](tfl::eager::KernelRegistry &kernels,
                                        mlir::ModuleOp module) {
      tfl::compiled::installCompiledKernels(kernels, module, compiler);
    };
}

bool Driver::debugging() const {
  if (command != Command::Run || !eager)
    return false;
  if (pdb)
    return true;
  // A program that calls breakpoint() (in any of its files).
  for (unsigned id = 1; id <= sourceMgr.getNumBuffers(); ++id)
    if (sourceMgr.getMemoryBuffer(id)->getBuffer().contains("breakpoint("))
      return true;
  return false;
}

int Driver::repl() {
  std::string directory = ".";
  std::string text;
  if (!inputPath.empty()) {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> buffer =
        mlir::openInputFile(inputPath, &error);
    if (!buffer) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    text = tfl::normalizeSource(std::move(buffer))->getBuffer().str();
    directory = llvm::sys::path::parent_path(inputPath).str();
  }
  tfl::repl::LineReader reader;
  // The options each input gets, checked once.
  mlir::OwningOpRef<mlir::ModuleOp> options =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  if (!setModuleOptions(*options))
    return 2;
  tfl::repl::Session session(context, sourceMgr, directory);
  std::shared_ptr<tfl::compiled::OpCompiler> compiler;
  if ((device == Device::Cuda || testCompiledOps) &&
      !(compiler = tfl::compiled::makeOpCompiler(opTarget(), allowTf32)))
    return 1;
  configureSession(session, compiler);
  if (!inputPath.empty()) {
    session.setProgramArgs(programArgs);
    (void)session.run(inputPath, text, /*display=*/false);
    if (session.flagsExit)
      return *session.flagsExit;
  }
  int rc = tfl::repl::runPrompt(session, reader);
  tflrt::flushOutput();
  return rc;
}

/// The number of processes the program is compiled for: --world-size, or,
/// for `tflc run`, this run's (an MPI launcher's count; 1 without one).
std::optional<int64_t> Driver::compiledWorldSize() const {
  if (worldSize > 0)
    return static_cast<int64_t>(worldSize);
  if (command != Command::Run)
    return std::nullopt;
  return tflrt::dist::launchedSize();
}

mlir::OwningOpRef<mlir::ModuleOp>
Driver::frontend(unsigned bufferId, std::optional<EmitKind> emitKind,
                 bool &stop) {
  if (emitKind == EmitKind::Ast) {
    std::unique_ptr<tfl::ast::Module> ast =
        tfl::parseModule(sourceMgr, bufferId, &context);
    if (!ast)
      return nullptr;
    tfl::ast::dump(*ast, llvm::outs());
    stop = true;
    return nullptr;
  }
  source = tfl::loadProgram(sourceMgr, bufferId, &context, tfl::stdlibPath());
  if (!source)
    return nullptr;
  tfl::SemaOptions options;
  options.f64PassesF32 = command == Command::CheckGrad;
  options.worldSize = compiledWorldSize();
  options.debugPoints = debugging();
  options.compiled =
      command == Command::Build || (command == Command::Run && !eager);
  options.library = (command == Command::Build || command == Command::Emit) &&
                    (shared || python || staticLibrary);
  options.exportNames.assign(exportList.begin(), exportList.end());
  program = tfl::analyze(*source, &context, options);
  if (!program)
    return nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module = tfl::genModule(context, *program);
  if (failed(mlir::verify(*module))) {
    module->emitError("internal compiler error: MLIRGen made invalid IR");
    return nullptr;
  }
  return module;
}

mlir::LogicalResult Driver::lower(mlir::ModuleOp module,
                                  llvm::StringRef lastStage, bool ptxOnly) {
  mlir::PassManager pm(&context);
  if (failed(mlir::applyPassManagerCLOptions(pm)))
    return mlir::failure();
  mlir::TimingScope pipelineTiming = timing.nest("pipeline");
  pm.enableTiming(pipelineTiming);
  llvm::SmallVector<llvm::StringRef> stages;
  for (const mlir::tfl::PipelineStage &s : mlir::tfl::getCpuPipelineStages())
    stages.push_back(s.name);
  mlir::LogicalResult built = mlir::failure();
  if (device == Device::Cuda) {
#ifdef TFL_HAVE_CUDA
    stages = mlir::tfl::getCudaPipelineStageNames();
    built = mlir::tfl::buildCudaPipeline(
        pm, lastStage, {ptxOnly, allowTf32, gpuRows == "fused"});
#else
    llvm::errs() << "error: this tflc was built without the CUDA toolkit, so "
                    "--device cuda is not available\n";
    return mlir::failure();
#endif
  } else if (testGpuRowsOnCpu) {
#ifdef TFL_HAVE_CUDA
    // The CPU pipeline with the GPU's row kernels run on the host before
    // its llvm stage.
    built = mlir::tfl::buildCpuPipeline(pm, lastStage,
                                        mlir::tfl::addGpuRowKernelsOnHost);
#else
    llvm::errs() << "error: this tflc was built without the CUDA toolkit, so "
                    "--test-gpu-rows-on-cpu is not available\n";
    return mlir::failure();
#endif
  } else {
    built = mlir::tfl::buildCpuPipeline(pm, lastStage);
  }
  if (failed(built)) {
    llvm::errs() << "error: unknown stage '" << lastStage
                 << "' (stages: mlirgen, " << llvm::join(stages, ", ") << ")\n";
    return mlir::failure();
  }
  // The IR is verified once, after the last pass, not after each of the
  // pipeline's passes (a tenth of a large program's build: dominance over
  // one function of a whole training step, fifty times); --verify-each,
  // and tfl-opt in the lit tests, check after each.
  pm.enableVerifier(verifyEach);
  if (failed(pm.run(module)))
    return mlir::failure();
  if (!verifyEach && failed(mlir::verify(module))) {
    module.emitError("internal compiler error: the pipeline made invalid IR");
    return mlir::failure();
  }
  return mlir::success();
}

/// Makes the program's entry (in the LLVM dialect) call
/// tflrt_report_memory first.
mlir::LogicalResult Driver::buildExecutable(mlir::ModuleOp module,
                                            llvm::StringRef path) {
  tfl::build::Options options{
      {glueInstructions, moduleInstructions, buildThreads, ""},
      reportMemory,
      device == Device::Cuda};
  return tfl::build::buildExecutable(module, path, options, timing);
}

mlir::LogicalResult Driver::buildLibrary(mlir::ModuleOp module) {
  tfl::build::Options options{
      {glueInstructions, moduleInstructions, buildThreads, ""},
      reportMemory,
      false};
  tfl::build::LibraryOptions library{outputFile, inputPath, python,
                                     staticLibrary};
  return tfl::build::buildLibrary(module, *program, options, library, timing);
}

int Driver::runNative(mlir::ModuleOp module) {
  llvm::SmallString<128> exePath;
  if (llvm::sys::fs::createTemporaryFile("tfl", "exe", exePath)) {
    llvm::errs() << "error: cannot create a temporary executable\n";
    return 1;
  }
  llvm::FileRemover removeExe(exePath);
  if (failed(buildExecutable(module, exePath)))
    return 1;
  std::vector<llvm::StringRef> args = {exePath};
  for (const std::string &a : programArgs)
    args.push_back(a);
  std::string error;
  int rc =
      llvm::sys::ExecuteAndWait(exePath, args, std::nullopt, {}, 0, 0, &error);
  if (rc < 0) {
    llvm::errs() << "error: running the program failed: " << error << "\n";
    return 1;
  }
  return rc;
}

std::optional<int> Driver::checkGradProgram(unsigned &bufferId) {
  // The program's definitions and a checking driver, as one new buffer
  // named like the file (its lines keep their numbers).
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> printer =
      std::make_unique<mlir::SourceMgrDiagnosticHandler>(sourceMgr, &context);
  std::unique_ptr<tfl::ast::Module> ast =
      tfl::parseModule(sourceMgr, bufferId, &context);
  if (!ast)
    return 1;
  if (programArgs.empty()) {
    llvm::errs() << "error: check-grad needs a function name\n" << kUsage;
    return 2;
  }
  llvm::Expected<std::string> text =
      tfl::makeGradCheck(*ast, sourceMgr.getMemoryBuffer(bufferId)->getBuffer(),
                         programArgs.front(), checkSeed, checkTolerance);
  if (!text) {
    llvm::errs() << inputPath << ": error: " << llvm::toString(text.takeError())
                 << "\n";
    return 1;
  }
  programArgs.clear();
  bufferId = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(*text, inputPath), {});
  eager = true;
  return std::nullopt;
}

bool Driver::setModuleOptions(mlir::ModuleOp module) {
  if (!precision.empty()) {
    if (precision != "bf16" && precision != "f16" && precision != "f32") {
      llvm::errs() << "error: --precision takes bf16, f16 or f32, not '"
                   << precision << "'\n";
      return false;
    }
    module->setAttr("tfl.precision",
                    mlir::StringAttr::get(&context, precision));
  }

  if (bucketMb.getNumOccurrences()) {
    // (at most 2^43 MiB, so that the size in bytes is an int64)
    if (!(bucketMb >= 0 && bucketMb <= 8796093022208.0)) {
      llvm::errs() << "error: --bucket-mb takes a size in MiB (0 to 2^43)\n";
      return false;
    }
    module->setAttr(
        "tfl.bucket_bytes",
        mlir::IntegerAttr::get(mlir::IntegerType::get(&context, 64),
                               static_cast<int64_t>(bucketMb * 1048576.0)));
  }

  // Where ops that name no device run, and which devices there are
  // (tfl-place-devices).
  if (device == Device::Cuda || testCudaPlacement)
    module->setAttr("tfl.target", mlir::StringAttr::get(&context, "cuda"));
  if (gpuAttention != "fused" && gpuAttention != "products") {
    llvm::errs() << "error: --gpu-attention takes products or fused, not '"
                 << gpuAttention << "'\n";
    return false;
  }
  if (gpuRows != "fused" && gpuRows != "ops") {
    llvm::errs() << "error: --gpu-rows takes ops or fused, not '" << gpuRows
                 << "'\n";
    return false;
  }
  if (gpuAttention == "fused")
    module->setAttr("tfl.gpu_attention",
                    mlir::StringAttr::get(&context, "fused"));
  return true;
}

bool Driver::runEager(mlir::ModuleOp module, unsigned bufferId) {
  if (failed(lower(module, "simplify")))
    return false;
  tfl::eager::KernelRegistry kernels;
  tfl::eager::registerTflKernels(kernels);
  tfl::eager::registerUpstreamKernels(kernels);
  // On a GPU, each op on its kernel from the CUDA pipeline.
  std::shared_ptr<tfl::compiled::OpCompiler> compiler;
  if (device == Device::Cuda || testCompiledOps) {
    if (!(compiler = tfl::compiled::makeOpCompiler(opTarget(), allowTf32)))
      return false;
    tfl::compiled::installCompiledKernels(kernels, module, compiler);
  }
  // Flags: declared from the module's table, parsed from the program's
  // arguments, as a native executable does.
  tfl::eager::declareFlags(module);
  int flagsRc = tflrt::parseFlags(inputPath, programArgs);
  tflrt::shareCoresAmongLocalRanks(); // as a native executable does
  if (flagsRc != 0)
    return flagsRc == 2;
  if (reportMemory)
    tflrt_report_memory();
  tfl::eager::RunOptions options;
  options.trace = trace;
  options.checkNumerics = checkNumerics || pdb;
  options.maxOps = maxOps;
  std::unique_ptr<tfl::repl::LineReader> reader;
  if (debugging()) {
    reader = std::make_unique<tfl::repl::LineReader>();
    options.debugger = tfl::repl::makeDebugger(
        *program, *source, context, sourceMgr, inputPath,
        sourceMgr.getMemoryBuffer(bufferId)->getBuffer().str(), *reader,
        [this, compiler](tfl::repl::Session &session) {
          configureSession(session, compiler);
        });
    options.pdb = pdb;
  }
  bool ok =
      succeeded(tfl::eager::run(module, tfl::kEntrySymbol, kernels, options));
  // (TFL_OP_KERNEL_STATS=1 reports them without --test-compiled-ops.)
  if (compiler && (testCompiledOps || std::getenv("TFL_OP_KERNEL_STATS")))
    tfl::compiled::reportStats(*compiler);
  return ok;
}

bool Driver::emitCode(mlir::ModuleOp module, EmitKind kind) {
  if (kind == EmitKind::Ptx) {
#ifdef TFL_HAVE_CUDA
    mlir::FailureOr<std::string> ptx = mlir::tfl::extractPtx(module);
    if (failed(ptx))
      return false;
    llvm::outs() << *ptx;
    return true;
#endif
  }
  if (kind == EmitKind::Llvm) {
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        mlir::tfl::translateToOptimizedLLVMIR(module, llvmContext,
                                              glueInstructions);
    if (!llvmModule)
      return false;
    llvmModule->print(llvm::outs(), nullptr);
    return true;
  }
  return false;
}

int Driver::run(std::optional<EmitKind> emitKind) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      mlir::openInputFile(inputPath, &error);
  if (!buffer) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(tfl::normalizeSource(std::move(buffer)), {});
  if (command == Command::CheckGrad)
    if (std::optional<int> rc = checkGradProgram(bufferId))
      return *rc;

  // Diagnostics: printed with source and caret, or checked against markers.
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> printer;
  std::unique_ptr<mlir::SourceMgrDiagnosticVerifierHandler> verifier;
  if (verifyDiagnostics)
    verifier = std::make_unique<mlir::SourceMgrDiagnosticVerifierHandler>(
        sourceMgr, &context);
  else
    printer =
        std::make_unique<mlir::SourceMgrDiagnosticHandler>(sourceMgr, &context);
  auto finish = [&](bool ok) {
    // A run that succeeded finishes what it started (MPI, under mpirun).
    if (ok)
      tflrt::finishRun();
    else
      tflrt::flushOutput();
    if (verifier)
      return failed(verifier->verify()) ? 1 : 0;
    return ok ? 0 : 1;
  };

  if (worldSize < 0) {
    llvm::errs() << "error: --world-size takes a number of processes (1 or "
                    "more)\n";
    return finish(false);
  }
  bool stop = false;
  mlir::TimingScope frontendTiming =
      timing.nest("front end (parse, check, MLIRGen)");
  mlir::OwningOpRef<mlir::ModuleOp> module = frontend(bufferId, emitKind, stop);
  frontendTiming.stop();
  if (stop)
    return finish(true);
  if (!module)
    return finish(false);
  if (!setModuleOptions(*module))
    return finish(false);

  if (emitKind == EmitKind::Mlir) {
    if (afterStage != "mlirgen" && failed(lower(*module, afterStage)))
      return finish(false);
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return finish(true);
  }
  if ((command == Command::Run && eager) || command == Command::CheckGrad)
    return finish(runEager(*module, bufferId));
  if (failed(lower(*module, "", emitKind == EmitKind::Ptx)))
    return finish(false);
  if (emitKind == EmitKind::Ptx || emitKind == EmitKind::Llvm)
    return finish(emitCode(*module, *emitKind));
  if (command == Command::Build && program->library)
    return finish(succeeded(buildLibrary(*module)));
  if (command == Command::Build)
    return finish(succeeded(buildExecutable(*module, outputFile)));
  int rc = runNative(*module);
  if (verifier)
    return finish(rc == 0);
  return rc;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  if (argc < 2 || llvm::StringRef(argv[1]).starts_with("-")) {
    if (argc >= 2 && (llvm::StringRef(argv[1]) == "--help" ||
                      llvm::StringRef(argv[1]) == "-h")) {
      llvm::outs() << kUsage;
      return 0;
    }
    llvm::errs() << kUsage;
    return 2;
  }
  std::optional<Command> command =
      llvm::StringSwitch<std::optional<Command>>(argv[1])
          .Case("run", Command::Run)
          .Case("build", Command::Build)
          .Case("emit", Command::Emit)
          .Case("check-grad", Command::CheckGrad)
          .Case("repl", Command::Repl)
          .Default(std::nullopt);
  if (!command) {
    llvm::errs() << "error: unknown command '" << argv[1] << "'\n" << kUsage;
    return 2;
  }

  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  std::vector<const char *> tflcArgs;
  std::vector<std::string> programArgs;
  splitArgs(argc, argv, tflcArgs, programArgs);
  // tflc --help lists tflc's options (MLIR's debugging options still work).
  cl::HideUnrelatedOptions(tflcCategory);
  cl::ParseCommandLineOptions(static_cast<int>(tflcArgs.size()),
                              tflcArgs.data(), "TFL compiler\n");

  std::optional<EmitKind> emitKind;
  std::vector<std::string> args(positionals.begin(), positionals.end());
  if (*command == Command::Emit) {
    if (args.empty()) {
      llvm::errs() << kUsage;
      return 2;
    }
    emitKind = llvm::StringSwitch<std::optional<EmitKind>>(args.front())
                   .Case("ast", EmitKind::Ast)
                   .Case("mlir", EmitKind::Mlir)
                   .Case("llvm", EmitKind::Llvm)
                   .Case("ptx", EmitKind::Ptx)
                   .Default(std::nullopt);
    if (!emitKind) {
      llvm::errs() << "error: tflc emit takes ast, mlir, llvm or ptx, not '"
                   << args.front() << "'\n";
      return 2;
    }
    args.erase(args.begin());
  }
  if (*command == Command::CheckGrad) {
    // check-grad prog.tfl FUNC: the function goes to the driver.
    if (args.size() != 2) {
      llvm::errs() << "error: check-grad takes a .tfl file and a function\n"
                   << kUsage;
      return 2;
    }
    programArgs = {args.back()};
    args.pop_back();
  }
  // What the CUDA path does not do yet is refused, not done on the CPU or
  // written as a file that cannot load.
  if (device == Device::Cuda && *command == Command::Build &&
      (shared || staticLibrary || python ||
       llvm::StringRef(outputFile).ends_with(".py"))) {
    llvm::errs() << "error: tflc build --device cuda makes executables; "
                    "libraries (--shared, --static, --python) are built for "
                    "the CPU (leave out --device cuda)\n";
    return 2;
  }
  if (*command == Command::Repl && args.size() <= 1) {
    std::string path = args.empty() ? std::string() : args.front();
    return tfl::runWithLargeStack(
        [&] { return Driver(*command, path, std::move(programArgs)).repl(); });
  }
  if (args.size() != 1) {
    llvm::errs() << "error: expected one .tfl file\n" << kUsage;
    return 2;
  }
  if (emitKind == EmitKind::Ptx)
    device = Device::Cuda; // PTX is the CUDA pipeline's
  if (*command == Command::Build && outputFile.empty()) {
    llvm::errs() << "error: tflc build needs -o <executable>\n";
    return 2;
  }
  // Every stage walks the program recursively: give them room to do so for
  // the deepest program the parser accepts.
  return tfl::runWithLargeStack([&] {
    return Driver(*command, args.front(), std::move(programArgs)).run(emitKind);
  });
}
