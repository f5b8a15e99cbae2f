//===- NativeCode.cpp - From the LLVM dialect to an executable ------------===//
//
// The object files are produced in-process: MLIR's LLVM IR export, LLVM's
// -O3 pipeline (a lighter one for glue: see markGlue) and TargetMachines for
// the host CPU (its features included), the glue's object generated at -O0
// beside the rest's, in modules compiled on all cores (see
// compileToObjectFiles). The final link is the only
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
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
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
#include "llvm/Support/Threading.h"
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

#include <atomic>
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
  std::string features;
  std::string cpu = nativeCpu(features);
  // Constructors (a GPU program's kernel modules load in them) in
  // .init_array, as clang emits them on ELF: lld, unlike GNU ld, does not
  // move .ctors there, and the C library runs only .init_array.
  llvm::TargetOptions options;
  options.UseInitArray = true;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt, level));
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

/// A PassBuilder for `tm` with LLVM's standard instrumentations (which
/// honour `optnone`) and its analysis managers.
struct Pipelines {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations;
  llvm::PassBuilder pb;

  static llvm::PipelineTuningOptions tuning() {
    llvm::PipelineTuningOptions options;
    options.LoopUnrolling = true;
    options.LoopInterleaving = true;
    options.LoopVectorization = true;
    options.SLPVectorization = true;
    return options;
  }

  Pipelines(llvm::Module &module, llvm::TargetMachine *tm)
      : instrumentations(module.getContext(), /*DebugLogging=*/false),
        pb(tm, tuning(), std::nullopt, &callbacks) {
    instrumentations.registerCallbacks(callbacks, &mam);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};

/// Marks the functions of `module` over `glueInstructions` as glue.
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
/// descriptors MLIR's lowering builds: simplifyGlue), then `optnone`, so
/// that -O3 and the code generator's optional passes leave it as it is.
bool markGlue(llvm::Module &module, unsigned glueInstructions) {
  bool any = false;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getInstructionCount() > glueInstructions) {
      f.addFnAttr(kGlueAttribute);
      any = true;
    }
  return any;
}

/// Cleans up the glue functions of `module` (see markGlue) and makes them
/// `optnone`.
void simplifyGlue(llvm::Module &module, llvm::TargetMachine *tm) {
  Pipelines pipelines(module, tm);
  llvm::FunctionPassManager glue;
  glue.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  glue.addPass(llvm::EarlyCSEPass());
  glue.addPass(llvm::InstCombinePass());
  glue.addPass(llvm::SimplifyCFGPass());
  for (llvm::Function &f : module)
    if (isGlue(f)) {
      glue.run(f, pipelines.fam);
      f.addFnAttr(llvm::Attribute::OptimizeNone);
      f.addFnAttr(llvm::Attribute::NoInline);
      pipelines.fam.invalidate(f, llvm::PreservedAnalyses::none());
    }
}

/// LLVM's -O3 pipeline for this target, as clang's (glue, `optnone`, is
/// left alone).
void optimizeO3(llvm::Module &module, llvm::TargetMachine *tm) {
  Pipelines pipelines(module, tm);
  llvm::ModulePassManager mpm =
      pipelines.pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, pipelines.mam);
}

/// Translates `module` to LLVM IR for the host; null after an error.
std::unique_ptr<llvm::Module> translateForHost(ModuleOp module,
                                               llvm::LLVMContext &llvmContext,
                                               llvm::TargetMachine *&tm) {
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
  tm = hostTargetMachine(error);
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
  return llvmModule;
}

} // namespace

std::unique_ptr<llvm::Module>
translateToOptimizedLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                           unsigned glueInstructions) {
  llvm::TargetMachine *tm = nullptr;
  std::unique_ptr<llvm::Module> llvmModule =
      translateForHost(module, llvmContext, tm);
  if (!llvmModule)
    return nullptr;
  if (markGlue(*llvmModule, glueInstructions))
    simplifyGlue(*llvmModule, tm);
  optimizeO3(*llvmModule, tm);
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

/// The functions that the initializers of `module`'s global variables
/// name, through any constant expression.
llvm::SmallPtrSet<const llvm::Function *, 4>
namedByInitializers(const llvm::Module &module) {
  llvm::SmallPtrSet<const llvm::Function *, 4> functions;
  SmallVector<const llvm::Constant *> worklist;
  llvm::SmallPtrSet<const llvm::Constant *, 16> seen;
  for (const llvm::GlobalVariable &v : module.globals())
    if (v.hasInitializer())
      worklist.push_back(v.getInitializer());
  while (!worklist.empty()) {
    const llvm::Constant *c = worklist.pop_back_val();
    if (llvm::isa<llvm::ConstantData>(c) || !seen.insert(c).second)
      continue;
    if (auto *f = llvm::dyn_cast<llvm::Function>(c))
      functions.insert(f);
    else if (!llvm::isa<llvm::GlobalValue>(c))
      for (const llvm::Use &operand : c->operands())
        worklist.push_back(llvm::cast<llvm::Constant>(operand.get()));
  }
  return functions;
}

/// The functions of the rest (all but the glue) in groups that go to one
/// module each: the direct calls between them never cross a module, so
/// that -O3 inlines as it would in one module; the functions that global
/// variables' initializers name (constructors, tables) go with the
/// variables, to group 0. Groups are as even in instructions as whole
/// clusters of callers and callees allow (the largest cluster first, to
/// the lightest group), at most `count`.
SmallVector<SmallVector<llvm::Function *>> partitionRest(llvm::Module &module,
                                                         unsigned count) {
  SmallVector<llvm::Function *> functions;
  llvm::DenseMap<const llvm::Function *, unsigned> index;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && !isGlue(f)) {
      index[&f] = functions.size();
      functions.push_back(&f);
    }
  if (functions.empty()) // A module of the variables alone.
    return SmallVector<SmallVector<llvm::Function *>>(1);
  // Union-find over the functions; slot functions.size() is the
  // variables' cluster.
  SmallVector<unsigned> parent(functions.size() + 1);
  for (unsigned i = 0; i < parent.size(); ++i)
    parent[i] = i;
  auto find = [&](unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  auto unite = [&](unsigned i, unsigned j) { parent[find(i)] = find(j); };
  unsigned variables = functions.size();
  for (llvm::Function *f : functions)
    for (llvm::Instruction &inst : llvm::instructions(*f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
        if (auto *callee = call->getCalledFunction();
            callee && index.count(callee))
          unite(index[f], index[callee]);
  for (const llvm::Function *f : namedByInitializers(module))
    if (auto it = index.find(f); it != index.end())
      unite(it->second, variables);

  // Clusters, with their sizes; the variables' first, then the largest.
  llvm::DenseMap<unsigned, unsigned> clusterOf;
  SmallVector<std::pair<uint64_t, SmallVector<llvm::Function *>>> clusters;
  clusterOf[find(variables)] = 0;
  clusters.emplace_back();
  for (llvm::Function *f : functions) {
    auto [it, inserted] =
        clusterOf.try_emplace(find(index[f]), clusters.size());
    if (inserted)
      clusters.emplace_back();
    clusters[it->second].first += f->getInstructionCount() + 1;
    clusters[it->second].second.push_back(f);
  }
  // (std::sort, ties in the functions' order: libstdc++'s stable_sort
  // uses a deprecated buffer.)
  std::sort(
      clusters.begin() + 1, clusters.end(), [&](const auto &a, const auto &b) {
        if (a.first != b.first)
          return a.first > b.first;
        return index.lookup(a.second.front()) < index.lookup(b.second.front());
      });
  count = std::max(1u, std::min<unsigned>(count, clusters.size()));
  SmallVector<SmallVector<llvm::Function *>> groups(count);
  SmallVector<uint64_t> sizes(count, 0);
  for (auto [i, cluster] : llvm::enumerate(clusters)) {
    unsigned lightest =
        i == 0 ? 0
               : std::min_element(sizes.begin(), sizes.end()) - sizes.begin();
    sizes[lightest] += cluster.first;
    llvm::append_range(groups[lightest], cluster.second);
  }
  // Group 0, with the variables, stays even without functions.
  groups.erase(std::remove_if(groups.begin() + 1, groups.end(),
                              [](const auto &group) { return group.empty(); }),
               groups.end());
  return groups;
}

/// The bitcode of a module of `module`'s functions `group`, with the global
/// variables' definitions where `withVariables`, else their declarations
/// (with the initializers of small constants, available_externally, for
/// -O3 to fold loads from them).
SmallVector<char, 0> partitionBitcode(llvm::Module &module,
                                      ArrayRef<llvm::Function *> group,
                                      bool withVariables) {
  llvm::SmallPtrSet<const llvm::GlobalValue *, 32> members(group.begin(),
                                                           group.end());
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> part =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
        if (llvm::isa<llvm::GlobalVariable>(value))
          return withVariables;
        return members.contains(value);
      });
  if (!withVariables) {
    for (llvm::GlobalVariable &v : module.globals()) {
      if (!v.isConstant() || !v.hasInitializer() ||
          !llvm::isa<llvm::ConstantData>(v.getInitializer()) ||
          v.hasAppendingLinkage() ||
          module.getDataLayout().getTypeAllocSize(v.getValueType()) >
              (64u << 10))
        continue;
      auto *copy = llvm::cast<llvm::GlobalVariable>(map[&v]);
      copy->setInitializer(v.getInitializer());
      copy->setLinkage(llvm::GlobalValue::AvailableExternallyLinkage);
    }
    for (llvm::GlobalVariable &v : llvm::make_early_inc_range(part->globals()))
      if (v.hasAppendingLinkage())
        v.eraseFromParent();
  }
  SmallVector<char, 0> bitcode;
  llvm::raw_svector_ostream os(bitcode);
  llvm::WriteBitcodeToFile(*part, os);
  return bitcode;
}

/// Optimizes the module in `bitcode` at -O3 in a context of its own and
/// generates its object, a new temporary file `path`.
bool compilePart(ArrayRef<char> bitcode, std::string &path,
                 std::string &error) {
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> part = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(StringRef(bitcode.data(), bitcode.size()), "tfl"),
      context);
  if (!part) {
    error = llvm::toString(part.takeError());
    return false;
  }
  std::unique_ptr<llvm::TargetMachine> tm =
      createHostTargetMachine(llvm::CodeGenOptLevel::Aggressive, error);
  if (!tm)
    return false;
  optimizeO3(**part, tm.get());
  return generateObject(**part, *tm, path, error);
}

/// Compiles a program split into modules on `threads` threads: job 0 the
/// glue of `llvmModule`, where `hasGlue` (the largest: first), then one
/// job for each of `bitcodes`. Appends the objects in job order, whatever
/// the threads'.
LogicalResult compileJobs(llvm::Module &llvmModule, llvm::TargetMachine *tm,
                          bool hasGlue, ArrayRef<SmallVector<char, 0>> bitcodes,
                          unsigned threads,
                          SmallVectorImpl<std::string> &objectPaths,
                          std::string &error) {
  unsigned jobs = bitcodes.size() + (hasGlue ? 1 : 0);
  SmallVector<std::string> paths(jobs), errors(jobs);
  SmallVector<char> done(jobs, 0);
  auto runJob = [&](unsigned job) {
    if (hasGlue && job == 0) {
      simplifyGlue(llvmModule, tm);
      keepOnlyGlue(llvmModule);
      std::unique_ptr<llvm::TargetMachine> glueTm =
          createHostTargetMachine(llvm::CodeGenOptLevel::None, errors[job]);
      done[job] = glueTm &&
                  generateObject(llvmModule, *glueTm, paths[job], errors[job]);
      return;
    }
    done[job] =
        compilePart(bitcodes[job - (hasGlue ? 1 : 0)], paths[job], errors[job]);
  };
  std::atomic<unsigned> next{0};
  auto work = [&] {
    for (unsigned job; (job = next++) < jobs;)
      runJob(job);
  };
  {
    // The code generator recurses on large blocks: each thread has a main
    // thread's stack.
    SmallVector<std::unique_ptr<llvm::thread>> workers;
    for (unsigned i = 1; i < std::min(threads, jobs); ++i)
      workers.push_back(std::make_unique<llvm::thread>(
          std::optional<unsigned>(8u << 20), work));
    work();
    for (std::unique_ptr<llvm::thread> &worker : workers)
      worker->join();
  }
  for (unsigned job = 0; job < jobs; ++job)
    if (!paths[job].empty())
      objectPaths.push_back(paths[job]);
  for (unsigned job = 0; job < jobs; ++job)
    if (!done[job]) {
      error = errors[job];
      return failure();
    }
  return success();
}

/// The rest's modules at most.
constexpr uint64_t kMaxModules = 8;

/// The threads a build compiles on: `requested`, or with 0 one for each
/// core this process may run on.
unsigned buildThreads(unsigned requested) {
  if (requested)
    return requested;
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

} // namespace

LogicalResult compileToObjectFiles(ModuleOp module,
                                   const ObjectOptions &options,
                                   SmallVectorImpl<std::string> &objectPaths,
                                   TimingScope &timing) {
  TimingScope translating = timing.nest("LLVM IR, translated and split");
  llvm::LLVMContext llvmContext;
  llvm::TargetMachine *tm = nullptr;
  std::unique_ptr<llvm::Module> llvmModule =
      translateForHost(module, llvmContext, tm);
  if (!llvmModule)
    return failure();
  if (!options.initializer.empty())
    exposeInitializers(*llvmModule, options.initializer);
  std::string error;
  auto fail = [&](const std::string &message) {
    llvm::errs() << "error: code generation failed: " << message << "\n";
    return failure();
  };
  unsigned threads = buildThreads(options.threads);
  bool hasGlue = markGlue(*llvmModule, options.glueInstructions);

  uint64_t restInstructions = 0;
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration() && !isGlue(f))
      restInstructions += f.getInstructionCount();
  // The modules do not depend on the threads: a build writes the same
  // program whatever the number of cores.
  unsigned restModules = std::clamp<uint64_t>(
      restInstructions / std::max(1u, options.moduleInstructions), 1,
      kMaxModules);
  // One module: -O3 and its object here (a small program, or one that
  // cannot be split).
  if ((!hasGlue && restModules == 1) || !llvmModule->alias_empty() ||
      !llvmModule->ifunc_empty()) {
    if (hasGlue)
      simplifyGlue(*llvmModule, tm);
    translating.stop();
    TimingScope compiling =
        timing.nest("LLVM -O3 and code generation (1 module)");
    optimizeO3(*llvmModule, tm);
    objectPaths.emplace_back();
    if (!generateObject(*llvmModule, *tm, objectPaths.back(), error))
      return fail(error);
    return success();
  }

  // Several modules, each compiled on a thread and in a context of its
  // own: the glue, cleaned up and generated at -O0 (fast instruction
  // selection, as optnone already chose, and fast register allocation,
  // where the greedy allocator and its live-interval analysis grow faster
  // than linearly with one function's size), and the rest in groups
  // (partitionRest), each at -O3, through bitcode. Every function is
  // optimized as it would be in one module: the rest's functions call one
  // another only inside a group, and are called from the glue through
  // their symbols (externalizeLocals).
  externalizeLocals(*llvmModule);
  SmallVector<SmallVector<llvm::Function *>> groups =
      partitionRest(*llvmModule, restModules);
  SmallVector<SmallVector<char, 0>> bitcodes;
  for (auto [i, group] : llvm::enumerate(groups))
    bitcodes.push_back(partitionBitcode(*llvmModule, group, i == 0));
  translating.stop();

  unsigned jobs = bitcodes.size() + (hasGlue ? 1 : 0);
  threads = std::min(threads, jobs);
  TimingScope compiling = timing.nest(
      "LLVM -O3 and code generation (" + std::to_string(jobs) + " modules, " +
      std::to_string(threads) + (threads == 1 ? " thread)" : " threads)"));
  if (failed(compileJobs(*llvmModule, tm, hasGlue, bitcodes, threads,
                         objectPaths, error)))
    return fail(error);
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

/// lld as the linker, where tflc was built with it: on a program's objects
/// and libtflrt's archive it links 4-5 times faster than GNU ld (0.06
/// against 0.3 s for the GPT example).
void appendLinker(SmallVectorImpl<StringRef> &args) {
  static const bool haveLld = !StringRef(TFL_LLD_DIR).empty() &&
                              llvm::sys::fs::can_execute(TFL_LLD_DIR "/ld.lld");
  if (haveLld)
    args.append({"-fuse-ld=lld", "-B" TFL_LLD_DIR});
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
  appendLinker(args);
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
  appendLinker(args);
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
