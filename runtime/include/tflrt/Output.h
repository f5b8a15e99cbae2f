//===- Output.h - Program output of libtflrt --------------------*- C++ -*-===//
//
// Everything a TFL program prints goes through here, in both modes, so that
// eager and compiled runs produce byte-identical text.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_OUTPUT_H
#define TFLRT_OUTPUT_H

#include "tflrt/Tensor.h"

#include <cstddef>
#include <stdexcept>
#include <string>
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

/// Work for the end of a run that succeeded (tflrt_finish in an
/// executable, tflc after an eager run): `hook` runs once then, after the
/// hooks registered before it. A run that fails skips them (failAt).
void atSuccessfulFinish(void (*hook)());
/// Flushes the output and runs the hooks atSuccessfulFinish registered.
void finishRun();

/// Stops the program (exit code 1) with "where: error: message", the
/// "called from" notes of `where` below it, or with "error: message" when
/// `where` is null; pending errors and the output so far come first.
/// Inside a library's exported function (an ExportBoundary on this
/// thread), throws that text as an ExportError instead, which the export's
/// caller gets as an error code and message.
[[noreturn]] void failAt(const char *where, const std::string &message);

class ExportError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Marks this thread as running a library's exported function.
class ExportBoundary {
public:
  ExportBoundary();
  ~ExportBoundary();
};
/// True inside an ExportBoundary on this thread.
bool insideExport();

/// "12 bytes", "3.5 KiB", "372529.0 GiB": one decimal, in the largest unit
/// (up to TiB) the size reaches. Sizes in errors are rounded so: an
/// allocation's request may carry alignment padding.
std::string formatBytes(size_t bytes);
/// How an allocation of `bytes` that the system refused is reported.
std::string outOfMemoryMessage(size_t bytes);

} // namespace tflrt

#endif // TFLRT_OUTPUT_H
