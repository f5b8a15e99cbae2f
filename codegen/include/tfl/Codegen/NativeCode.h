//===- NativeCode.h - From the LLVM dialect to an executable ----*- C++ -*-===//
//
// In-process emission through LLVM's TargetMachine for the host CPU, then a
// link with libtflrt by the system's C++ compiler driver.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_NATIVECODE_H
#define TFL_CODEGEN_NATIVECODE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace mlir::tfl {

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

/// Writes `llvmModule` as host object files, new temporary files whose paths
/// are appended to `objectPaths` (the caller removes them, after a failure
/// too): one, or, where the module has glue functions, one of the glue
/// generated at -O0 and one of the rest at -O3, on two threads. Changes
/// `llvmModule`. Returns failure after reporting an error.
LogicalResult emitObjectFiles(llvm::Module &llvmModule,
                              SmallVectorImpl<std::string> &objectPaths);

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
