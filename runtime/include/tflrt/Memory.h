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

/// Compiled code's heap buffers. A buffer of at least 64 KiB goes, when
/// freed, into a cache of free buffers by size (at most 1 GiB of them),
/// and the next request of that size takes it back: a training step
/// allocates the same sizes every step, and glibc returned them to the
/// system (munmap, or trimming the heap) only to take them back page by
/// page, a page fault each (the seed CNN's step went from 2.8 to 1.5 ms).
/// Smaller buffers are malloc's. Null for 0 bytes or when the system
/// has no more memory (after the cache was given back to it). With
/// AddressSanitizer every buffer is malloc's, so that it sees each free.
void *allocateHostBuffer(size_t bytes);
void freeHostBuffer(void *ptr);
/// Whether freed buffers are cached (not under AddressSanitizer).
bool cachingHostBuffers();
/// The bytes of the free buffers cached now.
size_t cachedHostBytes();
/// Gives the cached free buffers back to the system (as an allocation the
/// system refuses does before it is tried again).
void releaseCachedHostBuffers();

/// A GPU runtime's part of the report ("GPU 48.0 MiB (64.0 MiB
/// reserved)"), asked for at exit.
void setDeviceMemoryReport(std::string (*report)());

} // namespace tflrt

#endif // TFLRT_MEMORY_H
