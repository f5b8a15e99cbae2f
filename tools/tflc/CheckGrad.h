//===- CheckGrad.h - The finite-difference gradient checker -----*- C++ -*-===//
//
// `tflc check-grad prog.tfl FUNC` compares the gradient TFL builds for
// FUNC with central finite differences, in f64, at a random point: the
// program's definitions are kept (its top-level statements are blanked
// out, so line numbers hold), and a driver is appended that draws the
// arguments from FUNC's annotations, takes grad(FUNC) and, for every
// element of every argument, the difference quotient.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TOOLS_CHECKGRAD_H
#define TFL_TOOLS_CHECKGRAD_H

#include "tfl/Frontend/AST.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tfl {

/// The checker program for `function` of `module` (whose text is `source`),
/// or an error saying why it cannot be built (FUNC missing, or an argument
/// without an annotation of a float dtype and integer dims).
llvm::Expected<std::string> makeGradCheck(const ast::Module &module,
                                          llvm::StringRef source,
                                          llvm::StringRef function,
                                          int64_t seed, double tolerance);

} // namespace tfl

#endif // TFL_TOOLS_CHECKGRAD_H
