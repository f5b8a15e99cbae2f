//===- MLIRGen.h - From the checked AST to the tfl dialect ------*- C++ -*-===//
//
// Emits one func.func per Specialization (the script body as `tfl_main`,
// public; the others private), with tfl ops located at their `.tfl` source.
// Trees (tuples) are flattened: each expression becomes a list of SSA values.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_MLIRGEN_H
#define TFL_FRONTEND_MLIRGEN_H

#include "tfl/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tfl {

/// The MLIR element type of a TFL dtype (u8 is i8, bool is i1).
mlir::Type elementType(mlir::MLIRContext *ctx, DType dtype);

/// Emits `program` into a new module.
mlir::OwningOpRef<mlir::ModuleOp> genModule(mlir::MLIRContext &context,
                                            const Program &program);

} // namespace tfl

#endif // TFL_FRONTEND_MLIRGEN_H
