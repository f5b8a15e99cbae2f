//===- Format.h - NumPy-style text for tensors ------------------*- C++ -*-===//
//
// `print(x)` shows a tensor exactly as NumPy's `print(np_array)` does
// (numpy 1.24 defaults: precision 8, 'maxprec' float mode, line width 75,
// summarization above 1000 elements with 3 edge items). Shared by the eager
// interpreter and compiled programs so both print the same text.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_FORMAT_H
#define TFLRT_FORMAT_H

#include "tflrt/Tensor.h"

#include <string>
#include <string_view>

namespace tflrt {

/// NumPy's `str(array)` of a tensor; for a 0-d tensor, `str` of its scalar.
std::string formatTensor(const TensorView &view);

/// Python's `format(value, spec)` of a 0-d tensor (the format-spec
/// mini-language: fill, align, sign, `#`, `0`, width, `,`/`_` grouping,
/// precision, and the types d b o x X e E f F g G %). An integer or bool
/// formats as a Python int, a float as a Python float. The spec is assumed
/// valid (the compiler checks it).
std::string formatWithSpec(const TensorView &scalar, std::string_view spec);

/// Python's `str()` of one float: shortest round-trip digits, positional in
/// [1e-4, 1e16), scientific outside ("1e+20").
std::string formatFloatScalar(double value, DType dtype);

} // namespace tflrt

#endif // TFLRT_FORMAT_H
