//===- NativeTarget.cpp - The CPU that native code is built for ----------===//
//
// The host's CPU and features, or the level of x86-64 that TFL_ISA names,
// and what the code generator's choices depend on: the width of its
// vector registers, and the vectorizer's tiles.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/NativeCode.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>

namespace mlir::tfl {

std::string nativeCpu(std::string &features) {
  std::string cpu = llvm::sys::getHostCPUName().str();
  features.clear();
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features += (feature.second ? "+" : "-") + feature.first().str() + ",";
  if (const char *isa = std::getenv("TFL_ISA"); isa && *isa) {
    cpu = llvm::StringSwitch<std::string>(isa)
              .Case("avx512", "x86-64-v4")
              .Case("avx2", "x86-64-v3")
              .Case("baseline", "x86-64")
              .Default(cpu);
    if (cpu != llvm::sys::getHostCPUName())
      features.clear();
  }
  return cpu;
}

unsigned nativeVectorRegisterBits() {
  static const unsigned bits = [] {
    std::string features;
    std::string cpu = nativeCpu(features);
    if (features.empty()) // a level of x86-64 (TFL_ISA)
      return cpu == "x86-64-v4" ? 512u : (cpu == "x86-64-v3" ? 256u : 128u);
    // A '+' only starts a feature's name.
    auto has = [&](const std::string &feature) {
      return features.find("+" + feature + ",") != std::string::npos;
    };
    return has("avx512f") ? 512u : (has("avx") ? 256u : 128u);
  }();
  return bits;
}

int64_t vectorTileBits() {
  // A tile's ops are independent lane by lane, so a wider tile gives the
  // out-of-order core more independent chains to overlap (a polynomial's
  // FMAs wait 4 cycles on each other, and two 256-bit FMA pipes need 8
  // chains in flight), at the cost of spills. Tiles of 2048 bits are eight
  // 256-bit chains: eight AVX2 registers, or four AVX-512 ones, each of
  // which a core with 256-bit units (AMD's Zen 4) runs as two halves. On a
  // Zen 3 (AVX2), 2048 bits ran GELU's gradient 11% faster than 1024 and
  // W7's transcendentals 3% faster; 512 bits were 30% and 33% slower, and
  // 4096 no faster than 2048. On a Zen 4 (AVX-512), 2048 bits ran GELU's
  // gradient 4% and W7 5-7% faster than 1024, and W8's step faster in 18
  // of 30 alternations; 4096 bits (eight AVX-512 registers) ran GELU
  // 12-16% and W7 3-7% faster, but W8's step (whose fused loops spill) no
  // faster than 1024. Below AVX, 1024.
  return nativeVectorRegisterBits() >= 256 ? 2048 : 1024;
}

} // namespace mlir::tfl
