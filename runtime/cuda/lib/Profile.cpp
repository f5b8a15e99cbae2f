//===- Profile.cpp - TFL_CUDA_PROFILE: where the GPU's time goes ----------===//
//
// With TFL_CUDA_PROFILE=1 in the environment, each piece of device work the
// program issues (a kernel, a library call, a copy, a fill) is bracketed by
// two CUDA events on the stream, and the time between them is added to a
// row: what ran (the kernel's name, or the library call's) and where (the
// .tfl line that issued it, tflrt_where). At exit the rows print to
// stderr, the longest total first, as PyTorch's profiler's key_averages
// table does. The events are read when the host waits anyway (and every
// few thousand operations), so the program runs as it would, but for
// one thing: loop steps are not replayed as CUDA graphs while profiling
// (a graph's kernels cannot be timed one by one), so the profile shows
// each kernel's own time, and the launches' cost is what the total
// leaves out.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Libraries.h"
#include "tflrt/CApi.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tflrt::cuda {
namespace {

/// What a row adds up.
struct Row {
  double ms = 0;
  int64_t calls = 0;
};

/// Work issued and not yet read: its events and its row.
struct Pending {
  cudaEvent_t start, end;
  std::string row;
};

struct Profiler {
  std::vector<Pending> pending;
  std::vector<cudaEvent_t> spare;
  std::map<std::string, Row> rows; // "what (where)"
  int64_t operations = 0;

  cudaEvent_t event() {
    if (!spare.empty()) {
      cudaEvent_t e = spare.back();
      spare.pop_back();
      return e;
    }
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cannot create a GPU event for the profile");
    return e;
  }

  /// Adds the pending work's times to their rows (the host waits for the
  /// last of it first).
  void collect() {
    if (pending.empty())
      return;
    check(cudaEventSynchronize(pending.back().end), "a GPU computation failed");
    for (Pending &p : pending) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, p.start, p.end),
            "cannot read the profile's GPU events");
      Row &row = rows[p.row];
      row.ms += ms;
      ++row.calls;
      spare.push_back(p.start);
      spare.push_back(p.end);
    }
    operations += static_cast<int64_t>(pending.size());
    pending.clear();
  }

  void report() {
    collect();
    std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) {
      return a.second.ms > b.second.ms;
    });
    double total = 0;
    for (const auto &[label, row] : sorted)
      total += row.ms;
    std::fprintf(stderr,
                 "GPU profile: %lld operations, %.3f ms on the GPU (step "
                 "graphs off)\n%10s %6s %8s %10s  %s\n",
                 static_cast<long long>(operations), total, "total ms", "%",
                 "calls", "avg us", "work (where)");
    const size_t shown = 40;
    for (size_t i = 0; i < sorted.size() && i < shown; ++i) {
      const auto &[label, row] = sorted[i];
      std::fprintf(stderr, "%10.3f %5.1f%% %8lld %10.1f  %s\n", row.ms,
                   total > 0 ? 100.0 * row.ms / total : 0.0,
                   static_cast<long long>(row.calls),
                   1000.0 * row.ms / static_cast<double>(row.calls),
                   label.c_str());
    }
    if (sorted.size() > shown) {
      double rest = 0;
      for (size_t i = shown; i < sorted.size(); ++i)
        rest += sorted[i].second.ms;
      std::fprintf(stderr, "%10.3f %5.1f%%  (%zu more rows)\n", rest,
                   total > 0 ? 100.0 * rest / total : 0.0,
                   sorted.size() - shown);
    }
  }
};

Profiler &profiler() {
  static Profiler p;
  return p;
}

/// " (file.tfl:LINE:COL)": the .tfl line of the work issued now
/// (tflrt_where's first line, its file without the directory), or "".
std::string location() {
  if (!tflrt_where)
    return "";
  std::string where = tflrt_where;
  where = where.substr(0, where.find('\n'));
  size_t slash = where.rfind('/');
  return " (" + (slash == std::string::npos ? where : where.substr(slash + 1)) +
         ")";
}

/// A kernel's name, demangled.
std::string kernelName(CUfunction function) {
  const char *name = nullptr;
  if (driver().cuFuncGetName(&name, function) != CUDA_SUCCESS || !name)
    return "kernel";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> plain(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  std::string text = status == 0 && plain ? plain.get() : name;
  // A template's arguments and a function's parameters say little here.
  return text.substr(0, text.find('('));
}

} // namespace

bool profiling() {
  static const bool on = [] {
    const char *env = std::getenv("TFL_CUDA_PROFILE");
    return env && std::strcmp(env, "0") != 0 && *env;
  }();
  return on;
}

ProfileScope::ProfileScope(const char *what, CUfunction function) {
  if (!profiling())
    return;
  Profiler &p = profiler();
  row = (function ? kernelName(function) : std::string(what)) + location();
  start = p.event();
  check(cudaEventRecord(start, rawStream()), "cannot record a GPU event");
}

ProfileScope::~ProfileScope() {
  if (!start)
    return;
  Profiler &p = profiler();
  cudaEvent_t end = p.event();
  check(cudaEventRecord(end, rawStream()), "cannot record a GPU event");
  p.pending.push_back({start, end, std::move(row)});
  if (p.pending.size() >= 4096)
    p.collect();
}

void collectProfile() {
  if (profiling())
    profiler().collect();
}

void reportProfile() {
  if (profiling())
    profiler().report();
}

} // namespace tflrt::cuda
