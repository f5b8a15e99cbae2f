//===- Output.h - Program output of libtflrt --------------------*- C++ -*-===//
//
// Everything a TFL program prints goes through here, in both modes, so that
// eager and compiled runs produce byte-identical text.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_OUTPUT_H
#define TFLRT_OUTPUT_H

#include "tflrt/Tensor.h"

#include <string_view>

namespace tflrt {

/// Writes text to the program's standard output.
void writeText(std::string_view text);
/// Writes a tensor as NumPy's str() shows it, or a scalar formatted with a
/// Python format spec when `spec` is not empty.
void writeTensor(const TensorView &view, std::string_view spec = {});
/// Seconds on a monotonic clock (now()).
double nowSeconds();

/// Flushes the program's standard output.
void flushOutput();

/// Errors still in flight: a GPU runtime queues some checks on its stream
/// and reports them when it next waits. It installs `hook`, which
/// reportPendingErrors calls before any output and before any other
/// error, so that errors come in program order.
void setPendingErrorsHook(void (*hook)());
void reportPendingErrors();

} // namespace tflrt

#endif // TFLRT_OUTPUT_H
