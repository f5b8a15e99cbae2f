//===- Options.h - tflc's command-line options ------------------*- C++ -*-===//
//
// tflc's options (llvm::cl), defined in Options.cpp, read by the driver
// (tflc.cpp) and by its eager runs.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TOOLS_TFLC_OPTIONS_H
#define TFL_TOOLS_TFLC_OPTIONS_H

#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <string>

namespace tfl::tflc {

/// --device: where build, run and eager mode put the program.
enum class Device { Cpu, Cuda };

extern llvm::cl::OptionCategory tflcCategory;
extern llvm::cl::list<std::string> positionals;
extern llvm::cl::opt<bool> eager;
extern llvm::cl::opt<bool> trace;
extern llvm::cl::opt<bool> checkNumerics;
extern llvm::cl::opt<bool> pdb;
extern llvm::cl::opt<uint64_t> maxOps;
extern llvm::cl::opt<bool> verifyEach;
extern llvm::cl::opt<bool> testCudaPlacement;
extern llvm::cl::opt<std::string> gpuAttention;
extern llvm::cl::opt<std::string> gpuRows;
extern llvm::cl::opt<bool> testGpuRowsOnCpu;
extern llvm::cl::opt<bool> testCompiledOps;
extern llvm::cl::opt<unsigned> glueInstructions;
extern llvm::cl::opt<unsigned> buildThreads;
extern llvm::cl::opt<unsigned> moduleInstructions;
extern llvm::cl::opt<std::string> outputFile;
extern llvm::cl::opt<bool> shared;
extern llvm::cl::opt<bool> staticLibrary;
extern llvm::cl::opt<bool> python;
extern llvm::cl::list<std::string> exportList;
extern llvm::cl::opt<std::string> afterStage;
extern llvm::cl::opt<Device> device;
extern llvm::cl::opt<bool> allowTf32;
extern llvm::cl::opt<std::string> precision;
extern llvm::cl::opt<double> bucketMb;
extern llvm::cl::opt<int64_t> worldSize;
extern llvm::cl::opt<bool> reportMemory;
extern llvm::cl::opt<bool> timeReport;
extern llvm::cl::opt<bool> verifyDiagnostics;
extern llvm::cl::opt<int64_t> checkSeed;
extern llvm::cl::opt<double> checkTolerance;

} // namespace tfl::tflc

#endif // TFL_TOOLS_TFLC_OPTIONS_H
