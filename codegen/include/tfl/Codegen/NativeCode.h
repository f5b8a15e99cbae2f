//===- NativeCode.h - From the LLVM dialect to an executable ----*- C++ -*-===//
//
// In-process emission through LLVM's TargetMachine for the host CPU, then a
// link with libtflrt by the system's C++ compiler driver.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_NATIVECODE_H
#define TFL_CODEGEN_NATIVECODE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir::tfl {

/// The CPU that native code is built for, and its features in LLVM's form
/// ("+avx2,-avx512f,"): the host's, or under TFL_ISA (avx512, avx2,
/// baseline) that level of x86-64 with no features beyond it, so that one
/// machine builds and measures what another ISA would run (TFL_ISA also
/// picks libtflrt's kernels).
std::string nativeCpu(std::string &features);

/// The width in bits of the vector registers of the CPU that native code is
/// built for: 512 with AVX-512, 256 with AVX or AVX2, else 128.
unsigned nativeVectorRegisterBits();

/// The bits of tfl-vectorize-loops' tiles for that CPU (its `vector-bits`
/// when the option is 0).
int64_t vectorTileBits();

/// LLVM instructions above which a function is glue (the program's top
/// level, a whole step inlined): cleaned up (SROA, CSE, instcombine, CFG
/// simplification), then `optnone`, left out of -O3 and of the code
/// generator's optional passes, whose time grows faster than linearly with
/// a function's size.
constexpr unsigned kGlueInstructions = 20000;

/// Translates a module in the LLVM dialect to LLVM IR for the host, optimized
/// at -O3 but for glue functions (over `glueInstructions`). Returns null
/// after reporting an error.
std::unique_ptr<llvm::Module>
translateToOptimizedLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                           unsigned glueInstructions = kGlueInstructions);

/// Instructions of the rest (all but the glue) for each of its modules
/// (at most 8).
constexpr unsigned kModuleInstructions = 2000;

/// How a module becomes object files.
struct ObjectOptions {
  /// Functions over this many instructions are glue.
  unsigned glueInstructions = kGlueInstructions;
  /// The rest goes to one module for each this many instructions.
  unsigned moduleInstructions = kModuleInstructions;
  /// The threads the modules are compiled on (0: one for each core).
  unsigned threads = 0;
  /// When set, the module's constructors (llvm.global_ctors: a GPU
  /// module's load) run when an external function of this name is called,
  /// not when the objects are loaded, and its destructors are dropped: for
  /// objects a JIT links without running initializers.
  std::string initializer;
};

/// Replaces `m`'s constructors (llvm.global_ctors) by an external function
/// `name` that calls them in their order, and drops its destructors
/// (ObjectOptions::initializer).
void exposeInitializers(llvm::Module &m, llvm::StringRef name);

/// Translates `module` (in the LLVM dialect) and compiles it to host object
/// files, new temporary files whose paths are appended to `objectPaths`
/// (the caller removes them, after a failure too). Glue functions are
/// cleaned up and generated at -O0, in an object of their own; the rest
/// goes to modules of whole clusters of callers and callees, each
/// optimized at -O3 and generated in a context of its own. The modules,
/// which depend only on the program, are compiled on `options.threads`
/// threads: the objects are the same whatever their number. Reports the
/// stages in `timing`; returns failure after reporting an error.
LogicalResult compileToObjectFiles(ModuleOp module,
                                   const ObjectOptions &options,
                                   SmallVectorImpl<std::string> &objectPaths,
                                   TimingScope &timing);

/// Compiles C file `sourcePath`, which may include libtflrt's C ABI
/// (tflrt/CApi.h), to a position-independent object.
LogicalResult compileCSource(StringRef sourcePath, StringRef objectPath,
                             std::string &errorMessage);

/// Links objects with libtflrt into shared library `outputPath`, exporting
/// only what `versionScript` (an ld version script) names.
LogicalResult linkSharedLibrary(ArrayRef<StringRef> objectPaths,
                                StringRef outputPath, StringRef versionScript,
                                std::string &errorMessage);

/// Archives objects with libtflrt's members into static library
/// `outputPath`.
LogicalResult archiveStaticLibrary(ArrayRef<StringRef> objectPaths,
                                   StringRef outputPath,
                                   std::string &errorMessage);
/// What a program linking such a library adds after it: libtflrt's own
/// libraries (OpenBLAS, oneDNN, libgomp, zlib, libstdc++, MPI's).
std::string staticLinkLine();

/// Links `objectPaths` with libtflrt into the executable `outputPath`;
/// `targetLibraries` (a device's runtime and libraries) come before
/// libtflrt, whose functions they call.
LogicalResult linkExecutable(ArrayRef<StringRef> objectPaths,
                             StringRef outputPath, std::string &errorMessage,
                             ArrayRef<StringRef> targetLibraries = {});

} // namespace mlir::tfl

#endif // TFL_CODEGEN_NATIVECODE_H
