//===- Output.cpp - Program output of libtflrt ----------------------------===//

#include "tflrt/Output.h"
#include "tflrt/Format.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tflrt {

namespace {
void (*pendingErrorsHook)() = nullptr;
std::vector<void (*)()> &finishHooks() {
  static auto *hooks = new std::vector<void (*)()>();
  return *hooks;
}
} // namespace

void atSuccessfulFinish(void (*hook)()) { finishHooks().push_back(hook); }

void finishRun() {
  flushOutput();
  std::vector<void (*)()> hooks;
  hooks.swap(finishHooks());
  for (void (*hook)() : hooks)
    hook();
  flushOutput();
}

void setPendingErrorsHook(void (*hook)()) { pendingErrorsHook = hook; }

void reportPendingErrors() {
  if (pendingErrorsHook)
    pendingErrorsHook();
}

namespace {
thread_local int exportDepth = 0;
} // namespace

ExportBoundary::ExportBoundary() { ++exportDepth; }
ExportBoundary::~ExportBoundary() { --exportDepth; }
bool insideExport() { return exportDepth > 0; }

void failAt(const char *where, const std::string &message) {
  std::string text = where ? where : "";
  size_t end = text.find('\n');
  std::string head = text.substr(0, end);
  if (exportDepth > 0)
    throw ExportError(head + (head.empty() ? "" : ": ") + "error: " + message +
                      (end == std::string::npos ? "" : text.substr(end)));
  reportPendingErrors();
  flushOutput();
  std::fprintf(stderr, "%s%serror: %s%s\n", head.c_str(),
               head.empty() ? "" : ": ", message.c_str(),
               end == std::string::npos ? "" : text.substr(end).c_str());
  std::fflush(stderr);
  // No exit handlers: a GPU runtime's would wait for work that failed.
  std::_Exit(1);
}

std::string formatBytes(size_t bytes) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[64];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%zu bytes", bytes);
  else
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

std::string outOfMemoryMessage(size_t bytes) {
  return "out of memory: cannot allocate " + formatBytes(bytes);
}

void writeText(std::string_view text) {
  reportPendingErrors();
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void writeTensor(const TensorView &view, std::string_view spec) {
  if (spec == "s" && view.dtype == DType::U8 && view.rank() == 1) {
    // decode(x): the bytes as they are.
    std::string text(static_cast<size_t>(view.shape[0]), '\0');
    const auto *bytes = static_cast<const unsigned char *>(view.data);
    for (int64_t i = 0; i < view.shape[0]; ++i)
      text[i] = static_cast<char>(bytes[i * view.strides[0]]);
    writeText(text);
    return;
  }
  writeText(spec.empty() ? formatTensor(view) : formatWithSpec(view, spec));
}

void flushOutput() { std::fflush(stdout); }

double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

} // namespace tflrt
