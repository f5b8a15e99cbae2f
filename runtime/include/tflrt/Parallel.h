//===- Parallel.h - The threads of libtflrt's parallel work -----*- C++ -*-===//
//
// Compiled parallel loops, oneDNN and OpenBLAS share OpenMP's one pool
// (tflrt_parallel_for in CApi.h runs compiled loops on it).
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_PARALLEL_H
#define TFLRT_PARALLEL_H

namespace tflrt {

/// Processes that an MPI launcher started several of on one machine share
/// its cores: unless OMP_NUM_THREADS says otherwise, each runs on its share
/// of the cores the pool would use (at least one thread), as torchrun sets
/// OMP_NUM_THREADS=1. Called at a program's start, before any parallel
/// work.
void shareCoresAmongLocalRanks();

} // namespace tflrt

#endif // TFLRT_PARALLEL_H
