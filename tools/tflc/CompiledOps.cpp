//===- CompiledOps.cpp - Eager ops on kernels the compiler builds ---------===//
//
// An op's kernel is the module
//   func.func @tfl_export_op(%in: memref<..>, ..., %out: memref<..>, ...)
//     attributes {llvm.emit_c_interface}
// whose body reads its inputs as tensors, computes the op (with its
// attributes; locations dropped, so that one kernel serves every line), and
// writes each result into its buffer. The module's printed text (with the
// program's module attributes) is the kernel's key. The pipeline's stages
// from `linalg` on lower it, LLVM compiles it to object code, and ORC's
// LLJIT links that into this process, each kernel in a JITDylib of its own
// whose missing symbols resolve to the process's (libtflrt's entry points,
// and with the CUDA path libtflrt_cuda's, which tflc exports). A kernel's
// constructors (a CUDA kernel's GPU module load) run once it is linked,
// through tfl_export_op_init. The objects go to the disk cache under the
// SHA-256 of the key and of the tflc that built them.
//
// Every buffer a kernel takes is in the target's device memory (GPU
// memory, or for the CPU's kernels a simulated one): an operand computed
// on the host is copied there, once, and results stay there until a host
// kernel, a print or control flow reads them (tflrt::Tensor's two copies).
//
//===----------------------------------------------------------------------===//

#include "CompiledOps.h"

#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Pipelines.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"
#include "tflrt/CApi.h"
#include "tflrt/Output.h"
#ifdef TFL_HAVE_CUDA
#include "tfl/Codegen/Cuda/Cuda.h"
#include "tflrt/CudaApi.h"
#include "tflrt/CudaMemory.h"
#endif

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace tfl::compiled {

using namespace mlir;
using eager::Tensor;

namespace {

constexpr llvm::StringLiteral kFunction = "tfl_export_op";
constexpr llvm::StringLiteral kEntry = "_mlir_ciface_tfl_export_op";
constexpr llvm::StringLiteral kInit = "tfl_export_op_init";
/// Buffers a kernel takes at most (operands and results).
constexpr size_t kMaxLeaves = 16;
/// The disk cache's file format: this, then the number of objects, then
/// each object's size and bytes (little-endian 64-bit numbers).
constexpr llvm::StringLiteral kMagic = "TFLKERNEL2";

/// The device memory of Target::SimulatedDevice: host memory apart from
/// the tensors' own.
const tflrt::DeviceMemory kSimulatedMemory{
    [](size_t bytes) {
      void *p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
      if (!p)
        throw std::runtime_error(tflrt::outOfMemoryMessage(bytes));
      return p;
    },
    [](void *pointer) { std::free(pointer); },
    [](void *host, const void *device, size_t bytes) {
      std::memcpy(host, device, bytes);
    },
    [](void *device, const void *host, size_t bytes) {
      std::memcpy(device, host, bytes);
    }};

/// The target's memory, its copies counted for the run's report.
const tflrt::DeviceMemory *targetMemory = nullptr;
uint64_t copiesToDevice = 0, copiesToHost = 0;
const tflrt::DeviceMemory kCountedMemory{
    [](size_t bytes) { return targetMemory->allocate(bytes); },
    [](void *pointer) { targetMemory->release(pointer); },
    [](void *host, const void *device, size_t bytes) {
      ++copiesToHost;
      targetMemory->copyToHost(host, device, bytes);
    },
    [](void *device, const void *host, size_t bytes) {
      ++copiesToDevice;
      targetMemory->copyToDevice(device, host, bytes);
    }};

/// Calls a kernel's entry with its descriptors' pointers (the C interface
/// takes one pointer per buffer), for each count of buffers.
using Caller = void (*)(void *entry, void *const *descriptors);
#if defined(__clang__)
// (a kernel has no type signature before its code for UBSan to check)
#define TFL_NO_SANITIZE_FUNCTION __attribute__((no_sanitize("function")))
#else
#define TFL_NO_SANITIZE_FUNCTION
#endif
template <size_t... I>
TFL_NO_SANITIZE_FUNCTION void callWith(void *entry, void *const *d,
                                       std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  reinterpret_cast<Fn>(entry)(d[I]...);
}
template <size_t N> void callWithN(void *entry, void *const *d) {
  callWith(entry, d, std::make_index_sequence<N>());
}
template <size_t... N>
constexpr std::array<Caller, sizeof...(N)>
makeCallers(std::index_sequence<N...>) {
  return {&callWithN<N>...};
}
constexpr std::array<Caller, kMaxLeaves + 1> kCallers =
    makeCallers(std::make_index_sequence<kMaxLeaves + 1>());

bool isStaticTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.hasStaticShape();
}

/// The values `op`'s kernel takes: its operands, except that a product's
/// operand made by a product transpose (eager::isProductTranspose, whose
/// kernel passes its operand on untransposed) is that transpose's operand;
/// the kernel transposes it, which the pipeline makes a GEMM's flag.
SmallVector<Value> kernelInputs(Operation *op) {
  SmallVector<Value> inputs;
  for (Value v : op->getOperands())
    inputs.push_back(isa<mlir::tfl::MatmulOp>(op) &&
                             eager::isProductTranspose(v)
                         ? v.getDefiningOp()->getOperand(0)
                         : v);
  return inputs;
}

/// Whether `op` runs on a compiled kernel: a tfl op with operands, results,
/// no regions and no side effects, on statically shaped tensors (constants
/// stay with the interpreter, and so do product transposes, which pass
/// their operand on, and reshapes, which share its storage).
bool compilable(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (!dialect || dialect->getNamespace() != "tfl" || op->getNumRegions() ||
      op->getNumOperands() == 0 || op->getNumResults() == 0 ||
      op->getNumOperands() + op->getNumResults() > kMaxLeaves ||
      !isMemoryEffectFree(op))
    return false;
  if (isa<mlir::tfl::TransposeOp>(op) &&
      eager::isProductTranspose(op->getResult(0)))
    return false;
  // A reshape's value shares its operand's storage, wherever that lives: a
  // kernel would copy it.
  if (isa<mlir::tfl::ReshapeOp>(op))
    return false;
  SmallVector<Value> inputs = kernelInputs(op);
  return llvm::all_of(inputs,
                      [](Value v) { return isStaticTensor(v.getType()); }) &&
         llvm::all_of(op->getResultTypes(), isStaticTensor);
}

MemRefType bufferType(Type t) {
  auto tensor = cast<RankedTensorType>(t);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// The kernel module of `op` (see the file's comment).
OwningOpRef<ModuleOp> kernelModule(Operation *op, ModuleOp program) {
  MLIRContext *ctx = op->getContext();
  Location unknown = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(unknown);
  // The program's options (--precision, the target); not its flags' table.
  for (NamedAttribute a : program->getAttrs())
    if (a.getName() != "tfl.flags" &&
        a.getName() != SymbolTable::getSymbolAttrName())
      (*module)->setAttr(a.getName(), a.getValue());
  (*module)->setAttr(mlir::tfl::kOpKernelAttrName, UnitAttr::get(ctx));
  SmallVector<Value> inputs = kernelInputs(op);
  SmallVector<Type> params;
  for (Value v : inputs)
    params.push_back(bufferType(v.getType()));
  for (Type t : op->getResultTypes())
    params.push_back(bufferType(t));
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  auto fn = func::FuncOp::create(b, unknown, kFunction,
                                 b.getFunctionType(params, {}));
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping map;
  for (auto [k, v] : llvm::enumerate(inputs))
    map.map(v, bufferization::ToTensorOp::create(
                   b, unknown, v.getType(), entry->getArgument(k),
                   /*restrict=*/true, /*writable=*/false));
  for (Value operand : op->getOperands())
    if (!map.contains(operand))
      b.clone(*operand.getDefiningOp(), map)->setLoc(unknown);
  Operation *copy = b.clone(*op, map);
  copy->setLoc(unknown);
  for (auto [k, result] : llvm::enumerate(copy->getResults()))
    bufferization::MaterializeInDestinationOp::create(
        b, unknown, Type(), result, entry->getArgument(inputs.size() + k),
        /*restrict=*/true, /*writable=*/true);
  func::ReturnOp::create(b, unknown);
  return module;
}

/// What identifies the tflc that compiles (its executable's size and time)
/// and the CPU it compiles for (the host's, or TFL_ISA's level, with its
/// features): a kernel built for another CPU, from a cache shared between
/// machines or under another TFL_ISA, is not this one's.
std::string compilerIdentity() {
  std::string features;
  std::string target = mlir::tfl::nativeCpu(features) + ":" + features;
  llvm::sys::fs::file_status status;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (llvm::sys::fs::status(exe, status))
    return exe + ":" + target;
  return exe + ":" + std::to_string(status.getSize()) + ":" +
         std::to_string(
             status.getLastModificationTime().time_since_epoch().count()) +
         ":" + target;
}

void appendNumber(std::string &out, uint64_t n) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
}

bool readNumber(llvm::StringRef &in, uint64_t &n) {
  if (in.size() < 8)
    return false;
  n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  in = in.drop_front(8);
  return true;
}

/// The objects in a cache file's `bytes`; false when it is not one.
bool unpack(llvm::StringRef bytes, SmallVectorImpl<llvm::StringRef> &objects) {
  if (!bytes.consume_front(kMagic))
    return false;
  uint64_t count = 0;
  if (!readNumber(bytes, count) || count == 0 || count > 64)
    return false;
  for (uint64_t k = 0; k < count; ++k) {
    uint64_t size = 0;
    if (!readNumber(bytes, size) || size > bytes.size())
      return false;
    objects.push_back(bytes.take_front(size));
    bytes = bytes.drop_front(size);
  }
  return bytes.empty();
}

/// The directory of the disk cache (empty: none).
std::string cacheDirectory() {
  if (std::optional<std::string> dir =
          llvm::sys::Process::GetEnv("TFL_OP_KERNEL_CACHE"))
    return *dir == "off" ? std::string() : *dir;
  llvm::SmallString<128> path;
  if (std::optional<std::string> xdg =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME"))
    path = *xdg;
  else if (!llvm::sys::path::cache_directory(path))
    return "";
  llvm::sys::path::append(path, "tfl", "op-kernels");
  return std::string(path);
}

} // namespace

class OpCompiler {
public:
  OpCompiler(std::unique_ptr<llvm::orc::LLJIT> jit, Target target)
      : jit(std::move(jit)), target(target), cacheDir(cacheDirectory()),
        identity(compilerIdentity()) {}

  /// The module whose ops run next (a session's next input): the kernels
  /// kept by op are forgotten, those kept by key stay.
  void setProgram(ModuleOp next) {
    program = next;
    byOp.clear();
  }

  /// Runs `op` on its compiled kernel; false when it has none.
  bool run(Operation *op, ArrayRef<Tensor> operands,
           SmallVectorImpl<Tensor> &results);

  /// What the kernels did in the run.
  unsigned compiled = 0, loaded = 0; // built here, read from the disk
  uint64_t calls = 0;

private:
  /// `op`'s kernel entry, compiled or loaded on first use (null: none).
  void *entryFor(Operation *op);
  /// The kernel of `key` (built from `module` when no cache has it).
  void *load(const std::string &key, ModuleOp module);
  /// Whether `op` runs on the target's device (not placed on the host).
  bool onDevice(Operation *op) const;
  /// Adds the target's stages from `linalg` on to `pm`.
  void buildPipeline(PassManager &pm) const;
  /// Lowers and compiles `module` into a cache file's bytes.
  FailureOr<std::string> compile(ModuleOp module);
  /// Links `file`'s objects in: the entry, or null after an error, which
  /// is reported unless `fromCache` (a damaged file is compiled again).
  void *link(llvm::StringRef file, bool fromCache);

  ModuleOp program;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  Target target;
  std::string cacheDir, identity;
  llvm::DenseMap<Operation *, void *> byOp;
  llvm::StringMap<void *> byKey;
  unsigned libraries = 0; // JITDylibs made (each named by its number)
};

bool OpCompiler::onDevice(Operation *op) const {
  if (target == Target::SimulatedDevice)
    return true;
  auto cuda = StringAttr::get(op->getContext(), "cuda");
  return mlir::tfl::deviceOf(op, cuda) == cuda;
}

void OpCompiler::buildPipeline(PassManager &pm) const {
  // (The op's results computed in the buffers they are written to, not
  // in buffers of their own copied there: empty-tensor elimination before
  // bufferization.)
  if (target != Target::SimulatedDevice) {
#ifdef TFL_HAVE_CUDA
    // The kernels as PTX, which the driver compiles when they load (and
    // keeps in its own cache): no ptxas on the machine that runs them.
    mlir::tfl::CudaOptions options;
    options.ptxOnly = true;
    (void)mlir::tfl::buildCudaPipeline(pm, "linalg", options, "linalg");
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
    (void)mlir::tfl::buildCudaPipeline(pm, "", options, "bufferize");
#endif
    return;
  }
  bool started = false;
  for (const mlir::tfl::PipelineStage &stage :
       mlir::tfl::getCpuPipelineStages()) {
    started |= stage.name == "linalg";
    if (stage.name == "bufferize")
      pm.addPass(bufferization::createEmptyTensorEliminationPass());
    if (started)
      stage.build(pm);
  }
}

FailureOr<std::string> OpCompiler::compile(ModuleOp module) {
  PassManager pm(module.getContext());
  buildPipeline(pm);
  if (failed(pm.run(module)))
    return failure();
  SmallVector<std::string> paths;
  mlir::tfl::ObjectOptions options;
  options.threads = 1;
  options.initializer = kInit.str();
  TimingScope timing;
  LogicalResult compiled =
      mlir::tfl::compileToObjectFiles(module, options, paths, timing);
  std::string file = kMagic.str();
  appendNumber(file, paths.size());
  for (const std::string &path : paths) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> object =
        llvm::MemoryBuffer::getFile(path);
    if (object) {
      appendNumber(file, (*object)->getBufferSize());
      file += (*object)->getBuffer();
    } else {
      compiled = failure();
    }
    llvm::sys::fs::remove(path);
  }
  if (failed(compiled))
    return failure();
  return file;
}

void *OpCompiler::link(llvm::StringRef file, bool fromCache) {
  SmallVector<llvm::StringRef> objects;
  if (!unpack(file, objects))
    return nullptr;
  llvm::Expected<llvm::orc::JITDylib &> lib =
      jit->createJITDylib("kernel" + std::to_string(libraries++));
  if (!lib) {
    llvm::consumeError(lib.takeError());
    return nullptr;
  }
  auto fail = [&](llvm::Error e) -> void * {
    std::string message = llvm::toString(std::move(e));
    if (!fromCache)
      llvm::errs() << "error: linking a compiled kernel: " << message << "\n";
    return nullptr;
  };
  for (llvm::StringRef object : objects)
    if (llvm::Error e = jit->addObjectFile(
            *lib, llvm::MemoryBuffer::getMemBufferCopy(object, "kernel")))
      return fail(std::move(e));
  llvm::Expected<llvm::orc::ExecutorAddr> entry = jit->lookup(*lib, kEntry);
  if (!entry)
    return fail(entry.takeError());
  llvm::Expected<llvm::orc::ExecutorAddr> init = jit->lookup(*lib, kInit);
  if (!init)
    return fail(init.takeError());
  if (target != Target::CudaLinkOnly)
    init->toPtr<void (*)()>()(); // a GPU kernel's module load
  return entry->toPtr<void *>();
}

void *OpCompiler::load(const std::string &key, ModuleOp module) {
  auto cached = byKey.find(key);
  if (cached != byKey.end())
    return cached->second;
  // The file's name: the key's and the compiler's hash.
  llvm::SHA256 hash;
  hash.update(identity);
  hash.update(key);
  std::string name = llvm::toHex(hash.final(), /*LowerCase=*/true) + ".o";
  llvm::SmallString<256> path(cacheDir);
  llvm::sys::path::append(path, name);
  void *entry = nullptr;
  if (!cacheDir.empty())
    if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
            llvm::MemoryBuffer::getFile(path))
      if ((entry = link((*file)->getBuffer(), /*fromCache=*/true)))
        ++loaded;
  if (!entry) {
    FailureOr<std::string> file = compile(module);
    if (failed(file) || !(entry = link(*file, /*fromCache=*/false)))
      return nullptr;
    ++compiled;
    // Written whole, then renamed: a reader never sees half a file.
    llvm::SmallString<256> temporary;
    int fd = -1;
    if (!cacheDir.empty() && !llvm::sys::fs::create_directories(cacheDir) &&
        !llvm::sys::fs::createUniqueFile(path + ".%%%%%%", fd, temporary)) {
      {
        llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
        os << *file;
      }
      if (llvm::sys::fs::rename(temporary, path))
        llvm::sys::fs::remove(temporary);
    }
  }
  byKey[key] = entry;
  return entry;
}

void *OpCompiler::entryFor(Operation *op) {
  // Remembered by op for the program's own ops, which live as long as the
  // run (a debugger's input is a module of its own, freed after it).
  bool programs = op->getParentOfType<ModuleOp>() == program;
  auto known = byOp.find(op);
  if (programs && known != byOp.end())
    return known->second;
  void *entry = nullptr;
  if (compilable(op) && onDevice(op)) {
    OwningOpRef<ModuleOp> module = kernelModule(op, program);
    std::string key;
    llvm::raw_string_ostream os(key);
    module->print(os, OpPrintingFlags().printGenericOpForm());
    entry = load(key, *module);
    if (!entry)
      throw eager::RuntimeError(
          "internal compiler error: the compiled kernel of " +
          op->getName().getStringRef().str() + " could not be built");
  }
  if (programs)
    byOp[op] = entry;
  return entry;
}

bool OpCompiler::run(Operation *op, ArrayRef<Tensor> operands,
                     SmallVectorImpl<Tensor> &results) {
  void *entry = entryFor(op);
  if (!entry || target == Target::CudaLinkOnly)
    return false;
  SmallVector<Value> inputs = kernelInputs(op);
  SmallVector<Tensor> leaves(operands.begin(), operands.end());
  for (auto [k, v] : llvm::enumerate(inputs)) {
    auto type = cast<RankedTensorType>(v.getType());
    if (leaves[k].dtype() != eager::toRuntimeDType(type.getElementType()) ||
        leaves[k].shape() !=
            tflrt::Shape(type.getShape().begin(), type.getShape().end()))
      return false; // not the shape the kernel was built for
  }
  std::vector<std::vector<int64_t>> descriptors;
  descriptors.reserve(leaves.size() + op->getNumResults());
  SmallVector<void *> pointers;
  // What fails in the runtime then names no place: the interpreter, which
  // runs every kernel inside an export boundary, reports it at the op.
  tflrt_where = nullptr;
  for (Type t : op->getResultTypes()) {
    auto type = cast<RankedTensorType>(t);
    results.push_back(Tensor::uninitializedOn(
        kCountedMemory, eager::toRuntimeDType(type.getElementType()),
        tflrt::Shape(type.getShape().begin(), type.getShape().end())));
    leaves.push_back(results.back());
  }
  for (const Tensor &t : leaves) {
    tflrt::TensorView view{t.dtype(), t.shape(),
                           tflrt::contiguousStrides(t.shape()),
                           t.deviceData(kCountedMemory)};
    pointers.push_back(
        descriptors.emplace_back(view.memrefDescriptor()).data());
  }
  ++calls;
  kCallers[pointers.size()](entry, pointers.data());
  return true;
}

/// Starts `target`'s device and points the counted memory at its memory;
/// false after reporting why it could not start.
bool startTarget(Target target, bool allowTf32) {
  copiesToDevice = copiesToHost = 0;
  if (target != Target::Cuda) {
    targetMemory = &kSimulatedMemory;
    return true;
  }
#ifdef TFL_HAVE_CUDA
  try {
    tflrt::ExportBoundary boundary;
    tflrt::cuda::startDevice(allowTf32 ? TFLRT_CUDA_START_TF32 : 0);
  } catch (const std::exception &error) {
    tflrt::flushOutput();
    llvm::StringRef message = error.what();
    message.consume_front("error: ");
    llvm::errs() << "error: " << message << "\n";
    return false;
  }
  targetMemory = &tflrt::cuda::deviceMemory();
  return true;
#else
  (void)allowTf32;
  llvm::errs() << "error: this tflc was built without the CUDA toolkit, so "
                  "--device cuda is not available\n";
  return false;
#endif
}

std::shared_ptr<OpCompiler> makeOpCompiler(Target target, bool allowTf32) {
  if (!startTarget(target, allowTf32))
    return nullptr;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().create();
  if (!jit) {
    llvm::errs() << "error: cannot start the kernels' JIT: "
                 << llvm::toString(jit.takeError()) << "\n";
    return nullptr;
  }
  return std::make_shared<OpCompiler>(std::move(*jit), target);
}

void installCompiledKernels(eager::KernelRegistry &registry, ModuleOp program,
                            const std::shared_ptr<OpCompiler> &compiler) {
  compiler->setProgram(program);
  for (const std::string &name : registry.names()) {
    if (!llvm::StringRef(name).starts_with("tfl."))
      continue;
    eager::Kernel own = *registry.lookup(name);
    registry.add(name, [compiler, own](Operation *op, ArrayRef<Tensor> in,
                                       SmallVectorImpl<Tensor> &out) {
      if (!compiler->run(op, in, out))
        own(op, in, out);
    });
  }
  // A constant of the program is made once for the run, not each time its
  // op runs, so that it is copied to the device once.
  eager::Kernel own =
      *registry.lookup(mlir::tfl::ConstantOp::getOperationName());
  auto made = std::make_shared<llvm::DenseMap<Operation *, Tensor>>();
  registry.add(mlir::tfl::ConstantOp::getOperationName(),
               [own, made, program](Operation *op, ArrayRef<Tensor> in,
                                    SmallVectorImpl<Tensor> &out) {
                 if (op->getParentOfType<ModuleOp>() != program)
                   return own(op, in, out);
                 auto [it, first] = made->try_emplace(op);
                 if (first) {
                   SmallVector<Tensor, 1> value;
                   own(op, in, value);
                   it->second = value.front();
                 }
                 out.push_back(it->second);
               });
}

void reportStats(const OpCompiler &compiler) {
  tflrt::flushOutput(); // the program's, first
  llvm::errs() << "compiled ops: " << compiler.compiled << " kernels compiled, "
               << compiler.loaded << " loaded from the cache, "
               << compiler.calls << " calls, " << copiesToDevice
               << " copies to the device, " << copiesToHost << " to the host\n";
}

} // namespace tfl::compiled
