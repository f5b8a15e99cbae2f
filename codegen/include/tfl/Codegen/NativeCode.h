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

namespace mlir::tfl {

/// Translates a module in the LLVM dialect to LLVM IR for the host, optimized
/// at -O3. Returns null after reporting an error.
std::unique_ptr<llvm::Module>
translateToOptimizedLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext);

/// Writes `llvmModule` as a host object file.
LogicalResult emitObjectFile(llvm::Module &llvmModule, StringRef path);

/// Links `objectPath` with libtflrt into the executable `outputPath`;
/// `targetLibraries` (a device's runtime and libraries) come before
/// libtflrt, whose functions they call.
LogicalResult linkExecutable(StringRef objectPath, StringRef outputPath,
                             std::string &errorMessage,
                             ArrayRef<StringRef> targetLibraries = {});

} // namespace mlir::tfl

#endif // TFL_CODEGEN_NATIVECODE_H
