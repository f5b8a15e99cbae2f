//===- RuntimeAbi.h - How compiled code calls libtflrt ----------*- C++ -*-===//
//
// Declarations of libtflrt's C ABI (runtime/include/tflrt/CApi.h) in the IR:
// tensors cross as unranked memrefs, text as pointers to LLVM globals.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_RUNTIMEABI_H
#define TFL_CODEGEN_RUNTIMEABI_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace linalg {
class FillOp;
} // namespace linalg

namespace tfl {

class PrintOp;

/// The unit attribute of a module that is one op's kernel, compiled for
/// the eager interpreter (`tflc run --eager --test-compiled-ops`, and eager
/// mode on a GPU): the interpreter reports its errors at the op, so the
/// module names no locations (tfl-error-locations), and, linked into the
/// running tflc, touches none of libtflrt's thread-locals.
inline constexpr llvm::StringLiteral kOpKernelAttrName = "tfl.op_kernel";

/// Returns the private declaration `@name : type` in `module`, adding it if
/// missing.
func::FuncOp getOrInsertRuntimeFunction(OpBuilder &builder, ModuleOp module,
                                        StringRef name, FunctionType type);

/// A `!llvm.ptr` to a NUL-terminated constant global holding `text` (one
/// global per distinct text).
Value getOrCreateStringPointer(OpBuilder &builder, Location loc,
                               ModuleOp module, StringRef text);

/// Calls `@name(args...)` before the insertion point, declaring the function
/// from the arguments' types.
void callRuntime(OpBuilder &builder, Operation *op, StringRef name,
                 ValueRange args);

/// getOrCreateStringPointer at `op`, in its module.
Value textPointer(OpBuilder &builder, Operation *op, StringRef text);

/// `value` (a ranked memref) cast to the unranked memref the C ABI takes.
Value castToUnranked(OpBuilder &builder, Location loc, Value memref);

/// Emits the runtime calls of `op` (text pieces and `buffers`, one ranked
/// memref per input) before `op`.
void emitPrintCalls(OpBuilder &builder, PrintOp op, ValueRange buffers);

/// "file.tfl:LINE:COL" of a location (its innermost callee after inlining),
/// followed by one "called from here" note per inlined call: the `where` of
/// run-time errors; empty for an op without a location (the runtime's
/// error then names none).
std::string locationText(Location loc);

/// The C ABI's dtype suffix of an element type ("f32", "u8", "bool", ...).
StringRef runtimeTypeSuffix(Type elementType);

/// The buffer that `memref` is, or is a view of, under casts (to the
/// unranked memrefs of calls) and views.
Value viewedBuffer(Value memref);

/// The zero fill that a product overwriting its result `out` (beta = 0 in
/// a GEMM library) makes unneeded, or null: `out` (through casts) is a
/// fresh buffer (an allocation, or an op kernel's argument: its results'
/// buffers are its own), whole, that none of `inputs` views, filled with
/// zeros by the op right before `product` (only casts between).
linalg::FillOp zeroFillBefore(Operation *product, Value out, ValueRange inputs);

} // namespace tfl
} // namespace mlir

#endif // TFL_CODEGEN_RUNTIMEABI_H
