//===- CompiledOps.h - Eager ops on kernels the compiler builds -*- C++ -*-===//
//
// The eager interpreter runs each op on a kernel. Besides libtflrt's
// hand-written ones, an op can run on a kernel the compiler's own pipeline
// builds for it, JAX's op-by-op dispatch: the op alone in a function of
// buffers (an export's ABI), lowered by the rest of the target's pipeline
// (linalg onwards), compiled once for each op, attributes, shapes and
// dtypes, and loaded in process. Kernels are kept in memory for the run and
// on disk (TFL_OP_KERNEL_CACHE: a directory, `off` for none; by default
// $XDG_CACHE_HOME/tfl/op-kernels), so a second run starts warm. This is how
// eager mode gets every op's kernel for a GPU from the CUDA pipeline;
// `tflc run --eager --test-compiled-ops` runs it for the CPU, to check the
// machinery against the interpreter's kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TOOLS_TFLC_COMPILEDOPS_H
#define TFL_TOOLS_TFLC_COMPILEDOPS_H

#include "tfl/Eager/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>

namespace tfl::compiled {

class OpCompiler;

/// Wraps each of `registry`'s kernels of tfl ops: an op of `program`
/// without regions or side effects, on statically shaped tensors, runs on
/// its compiled kernel (the program's module attributes, --precision's
/// among them, go with each op); any other on the kernel it had. Returns
/// the compiler the kernels share, or null after reporting that the JIT
/// could not start.
std::shared_ptr<OpCompiler>
installCompiledKernels(eager::KernelRegistry &registry, mlir::ModuleOp program);

/// Prints what the kernels did in the run ("compiled ops: N kernels
/// compiled, M loaded from the cache, K calls") on standard error, after
/// the program's output.
void reportStats(const OpCompiler &compiler);

} // namespace tfl::compiled

#endif // TFL_TOOLS_TFLC_COMPILEDOPS_H
