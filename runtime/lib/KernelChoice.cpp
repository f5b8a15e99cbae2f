//===- KernelChoice.cpp - TFL's or oneDNN's kernels, measured -------------===//

#include "KernelChoice.h"

#include "Isa.h"

#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace tflrt {
namespace {

/// TFL_CONV: "tfl" or "onednn" force a side; anything else measures.
enum class Forced { None, Tfl, OneDnn };

Forced forced() {
  static const Forced f = [] {
    const char *v = std::getenv("TFL_CONV");
    std::string s = v ? v : "";
    return s == "tfl" ? Forced::Tfl
                      : (s == "onednn" ? Forced::OneDnn : Forced::None);
  }();
  return f;
}

/// The cache's scope: the CPU's model name (/proc/cpuinfo), the ISA of
/// the kernels, and the kernels themselves (a hash of TFL's sources, set
/// by the build, and oneDNN's version), so that another build's choices
/// are measured again.
std::string machine() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos)
        model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  const dnnl_version_t *dnnl = dnnl_version();
  return model + " (" + isaName(kernelIsa()) + ", TFL " +
         TFL_CONV_KERNELS_HASH + ", oneDNN " + std::to_string(dnnl->major) +
         "." + std::to_string(dnnl->minor) + "." + std::to_string(dnnl->patch) +
         ")";
}

std::string cachePath() {
  const char *env = std::getenv("TFL_KERNEL_CACHE");
  if (env)
    return std::string(env) == "off" ? std::string() : std::string(env);
  std::string base;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    base = std::string(home) + "/.cache";
  else
    return "";
  return base + "/tfl/conv-kernels.tsv";
}

/// The process's choices (true: TFL's kernel), loaded from the cache file
/// on first use; lines are "machine<TAB>pass<TAB>tfl|onednn".
struct Choices {
  std::mutex mutex;
  bool loaded = false;
  std::string machine, path;
  std::map<std::string, bool> choice;
  /// The choices made in this process, by the callers' numeric keys.
  std::map<KernelKey, bool> known;

  void load() {
    if (loaded)
      return;
    loaded = true;
    machine = tflrt::machine();
    path = cachePath();
    if (reportingKernels())
      std::fprintf(stderr, "tfl: kernel choices for %s: %s%s\n",
                   machine.c_str(), path.empty() ? "not cached" : "cached in ",
                   path.c_str());
    if (path.empty())
      return;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      size_t a = line.find('\t'), b = line.rfind('\t');
      if (a == std::string::npos || a == b || line.compare(0, a, machine) != 0)
        continue;
      std::string side = line.substr(b + 1);
      if (side == "tfl" || side == "onednn")
        choice[line.substr(a + 1, b - a - 1)] = side == "tfl";
    }
  }

  /// Appends a choice (best effort: a cache that cannot be written only
  /// costs the next run a measurement).
  void save(const std::string &what, bool tfl) {
    if (path.empty())
      return;
    std::error_code ec;
    std::filesystem::create_directories(
        std::filesystem::path(path).parent_path(), ec);
    std::ofstream out(path, std::ios::app);
    out << machine << '\t' << what << '\t' << (tfl ? "tfl" : "onednn") << '\n';
  }
};

Choices &choices() {
  static Choices c;
  return c;
}

/// How much slower the loser must measure for the choice to be cached.
constexpr double kClearMargin = 1.25;

/// Milliseconds `run` takes.
double timeMs(const std::function<void()> &run) {
  auto start = std::chrono::steady_clock::now();
  run();
  std::chrono::duration<double, std::milli> took =
      std::chrono::steady_clock::now() - start;
  return took.count();
}

/// The best times of `a` and `b` over three rounds that alternate them,
/// after a warm-up of each (a burst of other work on the machine then
/// slows one run of each, not all of one side's).
std::pair<double, double> bestOfAlternating(const std::function<void()> &a,
                                            const std::function<void()> &b) {
  a();
  b();
  double ta = std::numeric_limits<double>::infinity(), tb = ta;
  for (int round = 0; round < 3; ++round) {
    ta = std::min(ta, timeMs(a));
    tb = std::min(tb, timeMs(b));
  }
  return {ta, tb};
}

void report(const std::string &what, const char *tflName, bool tfl,
            const std::string &why) {
  reportKernelChoice(what, tfl ? tflName : "onednn", why);
}

} // namespace

namespace {

/// tflKernelWins's choice for `what`, with the choices' lock held.
bool choose(Choices &c, const std::string &what, const char *tflName,
            const std::function<void()> &runTfl,
            const std::function<void()> &runOneDnn) {
  Forced f = forced();
  if (f != Forced::None) {
    bool tfl = f == Forced::Tfl;
    if (reportingKernels())
      report(what, tflName, tfl, tfl ? "TFL_CONV=tfl" : "TFL_CONV=onednn");
    return tfl;
  }
  c.load();
  auto it = c.choice.find(what);
  if (it != c.choice.end()) {
    if (reportingKernels())
      report(what, tflName, it->second, "chosen before, " + c.path);
    return it->second;
  }
  auto [tflMs, oneDnnMs] = bestOfAlternating(runTfl, runOneDnn);
  bool tfl = tflMs <= oneDnnMs;
  c.choice[what] = tfl;
  // Only a clear winner is kept for later runs: a close call (either side
  // is then about as good) or a measurement a burst of other work on the
  // machine spoiled is measured again by the next run.
  if (std::max(tflMs, oneDnnMs) >= kClearMargin * std::min(tflMs, oneDnnMs))
    c.save(what, tfl);
  if (reportingKernels()) {
    char times[96];
    std::snprintf(times, sizeof times, "measured: %s %.3f ms, onednn %.3f ms",
                  tflName, tflMs, oneDnnMs);
    report(what, tflName, tfl, times);
  }
  return tfl;
}

} // namespace

std::optional<bool> knownKernelChoice(const KernelKey &key) {
  Choices &c = choices();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.known.find(key);
  if (it == c.known.end())
    return std::nullopt;
  return it->second;
}

bool tflKernelWins(const KernelKey &key, const std::string &what,
                   const char *tflName, const std::function<void()> &runTfl,
                   const std::function<void()> &runOneDnn) {
  Choices &c = choices();
  std::lock_guard<std::mutex> lock(c.mutex);
  bool tfl = choose(c, what, tflName, runTfl, runOneDnn);
  c.known.emplace(key, tfl);
  return tfl;
}

bool reportingKernels() {
  static const bool on = [] {
    const char *v = std::getenv("TFL_REPORT_KERNELS");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

void reportKernelChoice(const std::string &what, const std::string &kernel,
                        const std::string &why) {
  static std::mutex mutex;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mutex);
  if (reported.insert(what).second)
    std::fprintf(stderr, "tfl: %s: %s (%s)\n", what.c_str(), kernel.c_str(),
                 why.c_str());
}

} // namespace tflrt
