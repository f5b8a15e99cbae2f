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

namespace tflrt {

/// NumPy's `str(array)` of a tensor; for a 0-d tensor, `str` of its scalar.
std::string formatTensor(const TensorView &view);

/// Python's `str()` of one float: shortest round-trip digits, positional in
/// [1e-4, 1e16), scientific outside ("1e+20").
std::string formatFloatScalar(double value, bool isF32);

} // namespace tflrt

#endif // TFLRT_FORMAT_H
