//===- BufferAliases.h - Memref values naming one buffer --------*- C++ -*-===//
//
// Internal to the CUDA wing. In a host function on buffers, the memref values
// that may name one buffer fall into one class: a view and its source, the
// operands and result of a select, a loop's init, iteration argument, yield
// and result, an if's yields and result. A class's roots are the ops that
// make its buffers (alloc, alloca, get_global); a class is "open" when one of
// its values comes from anywhere else (a function argument, a call's result,
// an op this analysis does not know), so nothing may be assumed of it.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_CUDA_BUFFERALIASES_H
#define TFL_CODEGEN_CUDA_BUFFERALIASES_H

#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tfl {

/// The attribute that marks a buffer (its alloc or get_global) as kept in
/// host memory by the CUDA wing.
inline constexpr llvm::StringLiteral kHostBufferAttr = "tfl.host";

/// Whether `fn` is work placed on the CPU (tfl-outline-host-work made it):
/// host code on host buffers, called with host copies of device values.
inline bool isHostFunction(func::FuncOp fn) {
  auto device = fn->getAttrOfType<StringAttr>(kDeviceAttrName);
  return device && device.getValue() == "cpu";
}

/// The allocation (alloc or alloca) that `memref` views, through views,
/// casts and strided metadata, if any.
Operation *rootAllocation(Value memref);

class BufferAliases {
public:
  explicit BufferAliases(func::FuncOp fn);

  /// The representative of `v`'s class (`v` itself for a value the
  /// analysis never saw, which is then an open class of its own).
  Value leader(Value v) const;
  /// The values of `v`'s class.
  ArrayRef<Value> members(Value v) const;
  /// The ops that make the buffers of `v`'s class.
  ArrayRef<Operation *> roots(Value v) const;
  /// Whether a value of `v`'s class comes from outside the analysis.
  bool isOpen(Value v) const;
  /// Whether `v`'s buffers were kept in host memory (their roots carry
  /// kHostBufferAttr).
  bool isHost(Value v) const;
  /// The values of every class whose buffers were kept in host memory.
  llvm::DenseSet<Value> hostValues() const;

private:
  struct Class {
    SmallVector<Value> members;
    SmallVector<Operation *> roots;
    bool open = false;
  };
  Value find(Value v) const;
  void unite(Value a, Value b);

  mutable llvm::DenseMap<Value, Value> parent;
  llvm::DenseMap<Value, Class> classes; // by leader, after the walk
};

} // namespace mlir::tfl

#endif // TFL_CODEGEN_CUDA_BUFFERALIASES_H
