//===- Interpreter.h - The eager interpreter of tfl IR ----------*- C++ -*-===//
//
// `tflc run --eager` interprets the very IR the compiler lowers, op by op, on
// concrete libtflrt tensors. Each op is run by a kernel registered by name
// (registerTflKernels); func.call and func.return are the interpreter's own.
// A run-time error stops at once and is reported at the op's `.tfl` location
// with a note for every call on the stack.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_EAGER_INTERPRETER_H
#define TFL_EAGER_INTERPRETER_H

#include "tflrt/Tensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tfl::eager {

using tflrt::Tensor;

/// Thrown by kernels for errors a program can hit at run time (bad data,
/// mismatched dynamic shapes); reported at the failing op's location.
class RuntimeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Computes an op's results from its operands' values.
using Kernel =
    std::function<void(mlir::Operation *op, llvm::ArrayRef<Tensor> operands,
                       llvm::SmallVectorImpl<Tensor> &results)>;

/// Kernels by op name. Filled explicitly, one register function per dialect
/// (no static initializers, which static libraries can silently drop).
class KernelRegistry {
public:
  void add(llvm::StringRef opName, Kernel kernel) {
    kernels[opName] = std::move(kernel);
  }
  const Kernel *lookup(llvm::StringRef opName) const {
    auto it = kernels.find(opName);
    return it == kernels.end() ? nullptr : &it->second;
  }
  /// The ops that have kernels.
  std::vector<std::string> names() const {
    std::vector<std::string> all;
    for (const auto &entry : kernels)
      all.push_back(entry.getKey().str());
    return all;
  }

private:
  llvm::StringMap<Kernel> kernels;
};

/// Registers the kernels of the tfl dialect.
void registerTflKernels(KernelRegistry &registry);

/// Whether `value` is a transpose of a matrix's two dims (a batch dim in
/// place) that only products use. Its kernel then passes its operand on,
/// uncopied, and each product's kernel reads that operand transposed (a
/// GEMM flag), as compiled code's products take transposes; a reverse pass
/// makes one such transpose for each operand of each product. Tracing and
/// numeric checks show its result as it is laid out.
bool isProductTranspose(mlir::Value value);
/// Registers the kernels of the collectives (registerTflKernels calls it).
void registerCollectiveKernels(KernelRegistry &registry);
/// Registers the kernels of the upstream scalar ops MLIRGen emits around
/// control flow (arith integer ops, tensor.extract/from_elements).
void registerUpstreamKernels(KernelRegistry &registry);

/// A dense constant (of any tfl element type) as a runtime tensor.
Tensor tensorFromAttr(mlir::DenseElementsAttr attr);

/// The runtime dtype of an MLIR element type (i8 is u8, i1 is bool, index
/// is i64).
tflrt::DType toRuntimeDType(mlir::Type elementType);

/// One function running, as the debugger sees it.
struct DebugFrame {
  /// The func.func's symbol.
  std::string function;
  /// Where it is: its current statement (or, below the innermost frame,
  /// the call it is in; at a check-numerics stop, the failing op).
  mlir::Location where;
  /// Its last debug point's scope (-1 before the first), and that point's
  /// values and the variables they are the leaves of (tfl.debug_point).
  int64_t scope = -1;
  llvm::SmallVector<Tensor> values;
  llvm::SmallVector<std::string> names;
};

/// What the run does after the debugger's prompt.
enum class DebugAction {
  Continue, // to the next breakpoint()
  Step,     // to the next statement, into calls
  Next,     // to the next statement of this function or a caller
  Quit      // stop the run
};

/// Shows the prompt at a stop; `frames` are outermost first, `reason` says
/// why it stopped ("breakpoint", "step", or a check-numerics error).
using DebugHook = std::function<DebugAction(llvm::ArrayRef<DebugFrame> frames,
                                            llvm::StringRef reason)>;

/// How a run is observed.
struct RunOptions {
  /// Print each tfl op and call with its .tfl location, result type and
  /// min/max/mean of its result, to standard error.
  bool trace = false;
  /// Stop at the first op whose float result holds a NaN or an infinity.
  bool checkNumerics = false;
  /// Stop with an error once this many ops have run (0: no limit):
  /// `--max-ops`, and the pipeline fuzzer's bound on a program that may
  /// never end.
  uint64_t maxOps = 0;
  /// The debugger: called at breakpoint() (a tfl.debug_point with `stop`)
  /// and, when stepping, at the next debug point; with `pdb`, also at a
  /// check-numerics error (after it is reported; the run then stops).
  DebugHook debugger;
  bool pdb = false;
};

/// Declares the program's flags (the module's `tfl.flags` table) to the
/// runtime, as a native executable does before it parses its arguments.
void declareFlags(mlir::ModuleOp module);

/// Runs `entry` (a function without arguments) of `module`. Returns failure
/// after reporting a run-time error as an MLIR diagnostic.
mlir::LogicalResult run(mlir::ModuleOp module, llvm::StringRef entry,
                        const KernelRegistry &registry,
                        const RunOptions &options = {});

} // namespace tfl::eager

#endif // TFL_EAGER_INTERPRETER_H
