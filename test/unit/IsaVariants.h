//===- IsaVariants.h - Tests over each ISA build of a kernel ----*- C++ -*-===//

#ifndef TFL_TEST_UNIT_ISAVARIANTS_H
#define TFL_TEST_UNIT_ISAVARIANTS_H

#include "Isa.h"

#include <gtest/gtest.h>

/// Runs `check` once for each build of TFL's own kernels (Isa.h) this CPU
/// runs, as TFL_ISA would pick it, then restores the kernels' ISA.
template <typename F> void forEachIsa(F check) {
  tflrt::Isa saved = tflrt::kernelIsa();
  for (tflrt::Isa isa :
       {tflrt::Isa::Baseline, tflrt::Isa::Avx2, tflrt::Isa::Avx512}) {
    if (isa > tflrt::cpuIsa())
      continue;
    SCOPED_TRACE(tflrt::isaName(isa));
    tflrt::setKernelIsa(isa);
    check();
  }
  tflrt::setKernelIsa(saved);
}

#endif // TFL_TEST_UNIT_ISAVARIANTS_H
