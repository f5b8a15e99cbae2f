//===- Output.cpp - Program output of libtflrt ----------------------------===//

#include "tflrt/Output.h"
#include "tflrt/Format.h"

#include <chrono>
#include <cstdio>

namespace tflrt {

namespace {
void (*pendingErrorsHook)() = nullptr;
} // namespace

void setPendingErrorsHook(void (*hook)()) { pendingErrorsHook = hook; }

void reportPendingErrors() {
  if (pendingErrorsHook)
    pendingErrorsHook();
}

void writeText(std::string_view text) {
  reportPendingErrors();
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void writeTensor(const TensorView &view, std::string_view spec) {
  writeText(spec.empty() ? formatTensor(view) : formatWithSpec(view, spec));
}

void flushOutput() { std::fflush(stdout); }

double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

} // namespace tflrt
