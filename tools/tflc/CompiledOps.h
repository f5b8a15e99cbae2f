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
// `tflc run --eager --device cuda` gets every op's GPU kernel from the CUDA
// pipeline, its tensors left in GPU memory from op to op; `tflc run --eager
// --test-compiled-ops` runs the same machinery with the CPU's kernels on a
// simulated device memory, to check it against the interpreter's kernels
// on any machine.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TOOLS_TFLC_COMPILEDOPS_H
#define TFL_TOOLS_TFLC_COMPILEDOPS_H

#include "tfl/Eager/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>

namespace tfl::compiled {

class OpCompiler;

/// Where compiled kernels run, and where the tensors they take and make
/// live. Every other op runs on the interpreter's host kernel, its
/// operands copied to the host when it reads them (each tensor at most
/// once: tflrt::Tensor keeps both copies).
enum class Target {
  /// The CPU pipeline's kernels, on tensors in a simulated device memory
  /// (host memory of its own, copied to and from as a GPU's is), so that
  /// any machine runs eager mode's device path: `--test-compiled-ops`.
  SimulatedDevice,
  /// The CUDA pipeline's kernels, on tensors in GPU memory: `--device
  /// cuda`. Ops placed on the CPU (`with device("cpu")`) run on the host.
  Cuda,
  /// Each op's CUDA kernel built and linked as for Cuda, its GPU module
  /// not loaded, and the op run on the interpreter's host kernel: checks
  /// without a GPU that the CUDA pipeline compiles each op (`--device cuda
  /// --test-compiled-ops`).
  CudaLinkOnly,
};

/// Starts `target`'s device and a JIT for its kernels: the compiler of a
/// run, or of every input of a session. Null after reporting why it could
/// not start (no GPU driver, ...). `allowTf32`: cuBLAS and cuDNN may
/// multiply f32 in TF32 (--allow-tf32).
std::shared_ptr<OpCompiler> makeOpCompiler(Target target,
                                           bool allowTf32 = false);

/// Wraps each of `registry`'s kernels of tfl ops: an op of `program`
/// without regions or side effects, on statically shaped tensors, runs on
/// its compiled kernel from `compiler` (the program's module attributes,
/// --precision's among them, go with each op); any other on the kernel it
/// had. The program's constants are made once, not each time their op
/// runs (so copied to the device once).
void installCompiledKernels(eager::KernelRegistry &registry,
                            mlir::ModuleOp program,
                            const std::shared_ptr<OpCompiler> &compiler);

/// Prints what the kernels did in the run ("compiled ops: N kernels
/// compiled, M loaded from the cache, K calls, U copies to the device, D
/// to the host") on standard error, after the program's output.
void reportStats(const OpCompiler &compiler);

} // namespace tfl::compiled

#endif // TFL_TOOLS_TFLC_COMPILEDOPS_H
