//===- KernelChoice.h - TFL's or oneDNN's kernels, measured -----*- C++ -*-===//
//
// Where TFL's own convolution kernels apply (Winograd's, the few-channel
// ones), whether they or oneDNN's run a pass on a shape is measured on this
// machine, as cudnn.benchmark and oneDNN's own dispatch do, not decided by
// a rule fitted on another: on first use both run on the call's own
// tensors (a warm-up, then the best of three runs each, alternating), the
// faster wins, and the choice holds for the process; a clear one (the
// loser 25% slower or more) is kept in a cache file keyed by the CPU's
// model and the kernels' ISA, so that a second run starts on it. Choices
// made by a rule (a product's kernel, KernelsMatmul.cpp) are reported the
// same way.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_KERNELCHOICE_H
#define TFLRT_KERNELCHOICE_H

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tflrt {

/// A pass, its shapes, windows and options as numbers: its key within the
/// process, which a caller makes on every call without building strings.
using KernelKey = std::array<int64_t, 20>;

/// The choice tflKernelWins made for `key` in this process, if it made one
/// (a convolution asks on every call: the seed CNN's step makes five).
std::optional<bool> knownKernelChoice(const KernelKey &key);

/// Whether TFL's kernel (named `tflName`, e.g. "winograd") runs the pass
/// `key`, spelled out as `what` (the pass and its shapes, windows and
/// options: the cache file's key), rather than oneDNN's: TFL_CONV=tfl or
/// =onednn forces a side, else the measured choice (remembered, or
/// measured now by calling `runTfl` and `runOneDnn`, each of which computes
/// the pass in full). The answer holds for `key` for the rest of the
/// process (knownKernelChoice). Under TFL_REPORT_KERNELS=1 each new choice
/// is reported on stderr with its reason and times. The cache file is
/// TFL_KERNEL_CACHE (`off`: none), by default
/// $XDG_CACHE_HOME/tfl/conv-kernels.tsv (~/.cache when unset).
bool tflKernelWins(const KernelKey &key, const std::string &what,
                   const char *tflName, const std::function<void()> &runTfl,
                   const std::function<void()> &runOneDnn);

/// Whether TFL_REPORT_KERNELS asks for each kernel choice on stderr.
bool reportingKernels();

/// Reports, once per process for each `what` (an op and its shapes), that
/// it runs `kernel` and why, on stderr: "tfl: WHAT: KERNEL (WHY)". Both a
/// convolution's measured choice and a product's rule report through it;
/// a caller checks reportingKernels() first.
void reportKernelChoice(const std::string &what, const std::string &kernel,
                        const std::string &why);

} // namespace tflrt

#endif // TFLRT_KERNELCHOICE_H
