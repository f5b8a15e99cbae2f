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

/// The text of a `.tfl` file as the lexer and the diagnostics read it: a
/// leading UTF-8 byte order mark dropped and old Mac line endings (a lone
/// CR) turned into LF, so that line numbers agree everywhere. CRLF stays.
std::unique_ptr<llvm::MemoryBuffer>
normalizeSource(std::unique_ptr<llvm::MemoryBuffer> buffer);

/// Runs `fn` on a thread whose stack holds the deepest program the parser
/// accepts through every stage (1 GiB of address space, touched only as
/// deep as it is used); returns what `fn` returns.
int runWithLargeStack(llvm::function_ref<int()> fn);

/// What TFL says of a keyword of Python's that starts a construct TFL does
/// not have (try, raise, del, yield, global, async, match, ...), naming
/// the construct and what to write instead; nullptr for any other word.
const char *unsupportedPythonKeyword(llvm::StringRef word);

/// Parses buffer `bufferId` of `sourceMgr`. Returns null after reporting an
/// error.
std::unique_ptr<ast::Module> parseModule(llvm::SourceMgr &sourceMgr,
                                         unsigned bufferId,
                                         mlir::MLIRContext *context);

} // namespace tfl

#endif // TFL_FRONTEND_PARSER_H
