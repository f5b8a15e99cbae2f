//===- IOOps.cpp - Verifiers of the I/O ops -------------------------------===//
//
// The ops of Ops/IO.td that need more than ODS checks: print's format
// (split at its placeholders), files' formats and shapes, and save's and
// load's names, one per tensor.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tfl;

//===----------------------------------------------------------------------===//
// PrintOp
//===----------------------------------------------------------------------===//

/// Splits a print format at its `{}` / `{:spec}` placeholders, unescaping
/// `{{` and `}}`. Fails on a lone brace.
static LogicalResult splitFormat(StringRef format,
                                 SmallVectorImpl<std::string> &pieces,
                                 SmallVectorImpl<std::string> &specs) {
  pieces.assign(1, "");
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    char next = i + 1 < format.size() ? format[i + 1] : '\0';
    if ((c == '{' && next == '{') || (c == '}' && next == '}')) {
      pieces.back() += c;
      ++i;
    } else if (c == '{') {
      size_t close = format.find('}', i);
      if (close == StringRef::npos || (next != '}' && next != ':'))
        return failure();
      StringRef spec = format.slice(i + 1, close);
      if (spec.contains('{'))
        return failure();
      specs.push_back(spec.empty() ? "" : spec.drop_front().str());
      pieces.emplace_back();
      i = close;
    } else if (c == '}') {
      return failure();
    } else {
      pieces.back() += c;
    }
  }
  return success();
}

SmallVector<std::string> PrintOp::getTextPieces() {
  SmallVector<std::string> pieces, specs;
  (void)splitFormat(getFormat(), pieces, specs);
  return pieces;
}

SmallVector<std::string> PrintOp::getSpecs() {
  SmallVector<std::string> pieces, specs;
  (void)splitFormat(getFormat(), pieces, specs);
  return specs;
}

LogicalResult PrintOp::verify() {
  SmallVector<std::string> pieces, specs;
  if (failed(splitFormat(getFormat(), pieces, specs)))
    return emitOpError("format has a lone '{' or '}': \"")
           << getFormat() << "\"";
  if (specs.size() != getInputs().size())
    return emitOpError("format has ") << specs.size() << " placeholders for "
                                      << getInputs().size() << " inputs";
  for (auto [spec, input] : llvm::zip(specs, getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    // "s" writes a 1-D tensor of bytes as text (decode(x)).
    if (spec == "s" && type.getRank() == 1 &&
        type.getElementType().isInteger(8))
      continue;
    if (!spec.empty() && type.getRank() != 0)
      return emitOpError("a format spec applies to scalars, or \"s\" to "
                         "1-D bytes, not ")
             << input.getType();
  }
  return success();
}

LogicalResult LoadDataOp::verify() {
  if (getFormat() != "idx" && getFormat() != "npy" && getFormat() != "bytes")
    return emitOpError("format must be \"idx\", \"npy\" or \"bytes\", got \"")
           << getFormat() << "\"";
  auto type = cast<RankedTensorType>(getResult().getType());
  if (getFormat() == "bytes" &&
      (type.getRank() != 1 || !type.getElementType().isInteger(8)))
    return emitOpError("reads bytes into a 1-D u8 tensor, not ") << type;
  if (!getResult().getType().hasStaticShape())
    return emitOpError("needs a static shape");
  return success();
}

LogicalResult EncodeTextOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (type.getRank() != 1 || !type.getElementType().isInteger(8) ||
      !type.hasStaticShape())
    return emitOpError("gives a 1-D u8 tensor of a static size, not ") << type;
  return success();
}

LogicalResult SaveOp::verify() {
  if (getNames().size() != getInputs().size())
    return emitOpError("has ") << getNames().size() << " names for "
                               << getInputs().size() << " tensors";
  return success();
}

LogicalResult LoadOp::verify() {
  if (getNames().size() != getResults().size())
    return emitOpError("has ") << getNames().size() << " names for "
                               << getResults().size() << " tensors";
  for (Type t : getResultTypes())
    if (!cast<RankedTensorType>(t).hasStaticShape())
      return emitOpError("needs static shapes");
  return success();
}
