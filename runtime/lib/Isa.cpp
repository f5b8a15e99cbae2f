//===- Isa.cpp - The ISAs TFL's own kernels are built for -----------------===//

#include "Isa.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace tflrt {
namespace {

Isa detect() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4"))
    return Isa::Avx512;
  if (__builtin_cpu_supports("x86-64-v3"))
    return Isa::Avx2;
  return Isa::Baseline;
}

/// TFL_ISA's variant, or the CPU's; an error stops the program when the
/// library loads, before any kernel runs on another thread.
int chosen() {
  Isa cpu = detect();
  const char *env = std::getenv("TFL_ISA");
  if (!env || !*env)
    return static_cast<int>(cpu);
  for (Isa isa : {Isa::Avx512, Isa::Avx2, Isa::Baseline}) {
    if (std::strcmp(env, isaName(isa)) != 0)
      continue;
    // oneDNN's kernels too, unless its own variable says otherwise: a
    // forced ISA measures what a machine with that ISA would run.
    if (isa != Isa::Avx512)
      ::setenv("DNNL_MAX_CPU_ISA", isa == Isa::Avx2 ? "AVX2" : "SSE41",
               /*overwrite=*/0);
    if (isa > cpu) {
      std::fprintf(stderr,
                   "error: TFL_ISA=%s: this CPU does not run it (its widest "
                   "is %s)\n",
                   env, isaName(cpu));
      std::exit(2);
    }
    return static_cast<int>(isa);
  }
  std::fprintf(stderr,
               "error: TFL_ISA=%s is not an instruction set TFL builds "
               "kernels for (avx512, avx2, baseline)\n",
               env);
  std::exit(2);
}

std::atomic<int> current{chosen()};

} // namespace

Isa cpuIsa() {
  static const Isa cpu = detect();
  return cpu;
}

Isa kernelIsa() {
  return static_cast<Isa>(current.load(std::memory_order_relaxed));
}

void setKernelIsa(Isa isa) {
  current.store(static_cast<int>(isa), std::memory_order_relaxed);
}

const char *isaName(Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return "avx512";
  case Isa::Avx2:
    return "avx2";
  case Isa::Baseline:
    break;
  }
  return "baseline";
}

} // namespace tflrt
