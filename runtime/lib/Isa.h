//===- Isa.h - The ISAs TFL's own kernels are built for ---------*- C++ -*-===//
//
// TFL's own CPU kernels (Winograd, few-channel convolutions, VectorMath)
// are built three times: for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and
// the baseline (x86-64). Each runs the build of kernelIsa(): the widest
// this CPU runs, or the one TFL_ISA names (avx512, avx2, baseline), so that
// one machine runs and measures every variant it can execute.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_ISA_H
#define TFLRT_ISA_H

namespace tflrt {

enum class Isa { Baseline, Avx2, Avx512 };

/// The widest of the three this CPU runs.
Isa cpuIsa();

/// The variant the kernels run: TFL_ISA's when set (checked when the
/// library loads: a name that is not one of the three, or an ISA this CPU
/// does not run, stops the program with an error; avx2 and baseline also
/// cap oneDNN's kernels, DNNL_MAX_CPU_ISA, unless that is set), else
/// cpuIsa().
Isa kernelIsa();

/// For tests: the kernels run `isa`'s variant (one the CPU runs) from now
/// on.
void setKernelIsa(Isa isa);

/// "avx512", "avx2" or "baseline", as TFL_ISA spells them.
const char *isaName(Isa isa);

} // namespace tflrt

/// A kernel's body: inlined into each ISA's build of the kernel calling it.
#define TFL_INLINE inline __attribute__((always_inline))

/// Defines `void name params` running the AVX-512, AVX2 or baseline build
/// of `nameBody<L> args` (an always-inlined template, compiled into each)
/// as kernelIsa() says, L the floats in one of the build's vector
/// registers (16, 8 and 4: SSE2's), so that its vectors stay in registers.
#define TFL_ISA_LANE_VARIANTS(name, params, args)                              \
  __attribute__((target("arch=x86-64-v4"))) void name##Avx512 params {         \
    name##Body<16> args;                                                       \
  }                                                                            \
  __attribute__((target("arch=x86-64-v3"))) void name##Avx2 params {           \
    name##Body<8> args;                                                        \
  }                                                                            \
  void name##Baseline params { name##Body<4> args; }                           \
  void name params {                                                           \
    switch (::tflrt::kernelIsa()) {                                            \
    case ::tflrt::Isa::Avx512:                                                 \
      return name##Avx512 args;                                                \
    case ::tflrt::Isa::Avx2:                                                   \
      return name##Avx2 args;                                                  \
    case ::tflrt::Isa::Baseline:                                               \
      break;                                                                   \
    }                                                                          \
    name##Baseline args;                                                       \
  }

#endif // TFLRT_ISA_H
