//===- Parser.h - From .tfl text to the AST ---------------------*- C++ -*-===//
//
// Parses one `.tfl` buffer with the ANTLR grammar lang/TFL.g4 and builds the
// AST. Syntax errors are reported as MLIR diagnostics at FileLineColLocs into
// the buffer (the first one only: later ones are usually its echoes).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_FRONTEND_PARSER_H
#define TFL_FRONTEND_PARSER_H

#include "tfl/Frontend/AST.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

namespace tfl {

/// Parses buffer `bufferId` of `sourceMgr`. Returns null after reporting an
/// error.
std::unique_ptr<ast::Module> parseModule(llvm::SourceMgr &sourceMgr,
                                         unsigned bufferId,
                                         mlir::MLIRContext *context);

} // namespace tfl

#endif // TFL_FRONTEND_PARSER_H
