//===- CollectivesMpi.h - What the collectives' engine runs on ------------===//
//
// Shared by Collectives.cpp (the engine) and CollectivesMpi.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_COLLECTIVESMPI_H
#define TFLRT_COLLECTIVESMPI_H

#include "tflrt/Collectives.h"

#ifdef TFL_HAVE_MPI
// MPI's C API only (Open MPI's and MPICH's headers add C++ bindings that
// need a library of their own).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

#include <cstdint>

namespace tflrt::dist::transport {

bool isContiguous(const TensorView &v);
/// Copies a view's elements, in row-major order, to `dst`.
void copyOut(const TensorView &v, void *dst);
/// Writes the contiguous elements at `src` into the (strided) view `dst`.
void copyIn(const void *src, const TensorView &dst);
/// Divides `count` floats at `data` by `n` (all_reduce's mean).
void divide(DType dtype, void *data, int64_t count, int64_t n);
/// Whether an MPI launcher (Open MPI's mpirun, MPICH's Hydra, a PMIx
/// launcher) started this process.
bool launchedByMpi();
/// TFL_COLLECTIVE_TIMEOUT: how long a wait may last, in seconds.
double timeoutSeconds();
#ifdef TFL_HAVE_MPI
/// One collective on the group's buffer (in place), or, for a lone direct
/// item, from its input to its output.
void mpiCollective(Kind kind, int64_t rootRank, int64_t rank, DType dtype,
                   const char *in, char *buffer, int64_t total);
#endif

} // namespace tflrt::dist::transport

#endif // TFLRT_COLLECTIVESMPI_H
