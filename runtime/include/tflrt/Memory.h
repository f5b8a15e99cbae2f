//===- Memory.h - The peak memory of a run ----------------------*- C++ -*-===//
//
// `--report-memory`: the bytes a program holds in tensor buffers, counted
// as they are allocated and freed (compiled code's heap buffers, the eager
// interpreter's tensors, and through a hook a GPU runtime's device
// memory), and their peak, printed to stderr when the program exits.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_MEMORY_H
#define TFLRT_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tflrt {

/// Whether allocations are counted (tflrt_report_memory was called).
bool countingMemory();
/// Counts host tensor memory: `bytes` more, or fewer, in use.
void noteHostAllocated(size_t bytes);
void noteHostFreed(size_t bytes);
/// Host tensor memory counted now in use, and its peak.
int64_t hostMemoryInUse();
int64_t hostMemoryPeak();

/// Makes a host tensor of more than `bytes` an out-of-memory error, as
/// if the machine had no more (0, the default: no limit but the
/// machine's). The fuzzers bound the memory of the programs they run so.
void setTensorByteLimit(size_t bytes);
size_t tensorByteLimit();

/// A GPU runtime's part of the report ("GPU 48.0 MiB (64.0 MiB
/// reserved)"), asked for at exit.
void setDeviceMemoryReport(std::string (*report)());

} // namespace tflrt

#endif // TFLRT_MEMORY_H
