//===- CollectivesMpi.cpp - What the collectives' engine runs on ----------===//
//
// The pieces of the engine in Collectives.cpp that touch memory and MPI:
// views copied to and from contiguous buffers, a mean's division, whether
// an MPI launcher started this process, the collectives' time limit, and
// one collective as MPI calls (in pieces MPI's int counts can hold).
//
//===----------------------------------------------------------------------===//

#include "CollectivesMpi.h"
#include "tflrt/Kernels.h"
#include "tflrt/Output.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tflrt::dist::transport {

bool isContiguous(const TensorView &v) {
  return v.strides == contiguousStrides(v.shape);
}

/// Copies a view's elements, in row-major order, to `dst`.
void copyOut(const TensorView &v, void *dst) {
  size_t bytes = static_cast<size_t>(numElements(v.shape)) * dtypeSize(v.dtype);
  if (bytes == 0)
    return;
  if (isContiguous(v)) {
    std::memcpy(dst, v.data, bytes);
    return;
  }
  Tensor dense = materialize(v);
  std::memcpy(dst, dense.data(), bytes);
}

/// Writes the contiguous elements at `src` into the (strided) view `dst`.
void copyIn(const void *src, const TensorView &dst) {
  size_t esize = dtypeSize(dst.dtype);
  int64_t n = numElements(dst.shape), rank = dst.rank();
  std::vector<int64_t> index(rank, 0);
  const char *from = static_cast<const char *>(src);
  char *base = static_cast<char *>(const_cast<void *>(dst.data));
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * dst.strides[d];
    std::memcpy(base + offset * static_cast<int64_t>(esize), from + k * esize,
                esize);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == dst.shape[d]; --d)
      index[d] = 0;
  }
}

/// Divides `count` floats at `data` by `n` (all_reduce's mean).
void divide(DType dtype, void *data, int64_t count, int64_t n) {
  if (dtype == DType::F32) {
    auto *p = static_cast<float *>(data);
    for (int64_t i = 0; i < count; ++i)
      p[i] /= static_cast<float>(n);
  } else if (dtype == DType::F64) {
    auto *p = static_cast<double *>(data);
    for (int64_t i = 0; i < count; ++i)
      p[i] /= static_cast<double>(n);
  }
}

/// Whether an MPI launcher (Open MPI's mpirun, MPICH's Hydra, a PMIx
/// launcher) started this process.
bool launchedByMpi() {
  for (const char *var :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"})
    if (std::getenv(var))
      return true;
  return false;
}

/// TFL_COLLECTIVE_TIMEOUT: how long a wait may last, in seconds.
double timeoutSeconds() {
  const char *text = std::getenv("TFL_COLLECTIVE_TIMEOUT");
  if (!text || !*text)
    return 300.0;
  char *end = nullptr;
  double seconds = std::strtod(text, &end);
  if (*end || !(seconds > 0))
    failAt(nullptr, std::string("TFL_COLLECTIVE_TIMEOUT must be a positive "
                                "number of seconds, not '") +
                        text + "'");
  return seconds;
}

#ifdef TFL_HAVE_MPI
static MPI_Datatype mpiType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return MPI_FLOAT;
  case DType::F64:
    return MPI_DOUBLE;
  case DType::I32:
    return MPI_INT32_T;
  case DType::I64:
    return MPI_INT64_T;
  default:
    return MPI_UINT8_T;
  }
}

/// Runs `fn(offset, count)` over [0, total) in pieces MPI's int counts
/// can hold.
template <typename Fn> static void inPieces(int64_t total, Fn fn) {
  constexpr int64_t kMax = INT_MAX / 2;
  for (int64_t offset = 0; offset < total; offset += kMax)
    fn(offset, static_cast<int>(std::min(kMax, total - offset)));
}

/// One collective on the group's buffer (in place), or, for a lone direct
/// item, from its input to its output.
void mpiCollective(Kind kind, int64_t rootRank, int64_t rank, DType dtype,
                   const char *in, char *buffer, int64_t total) {
  MPI_Datatype type = mpiType(dtype);
  MPI_Comm world = MPI_COMM_WORLD;
  size_t esize = dtypeSize(dtype);
  int root = static_cast<int>(rootRank);
  bool isRoot = rank == rootRank;
  switch (kind) {
  case Kind::AllReduce:
    inPieces(total, [&](int64_t off, int count) {
      MPI_Allreduce(in ? in + off * esize : MPI_IN_PLACE, buffer + off * esize,
                    count, type, MPI_SUM, world);
    });
    break;
  case Kind::Broadcast:
    if (in && isRoot)
      std::memcpy(buffer, in, total * esize);
    inPieces(total, [&](int64_t off, int count) {
      MPI_Bcast(buffer + off * esize, count, type, root, world);
    });
    break;
  case Kind::ReduceToRoot:
    inPieces(total, [&](int64_t off, int count) {
      char *here = buffer + off * esize;
      if (isRoot)
        MPI_Reduce(in ? in + off * esize : MPI_IN_PLACE, here, count, type,
                   MPI_SUM, root, world);
      else
        MPI_Reduce(in ? in + off * esize : here, nullptr, count, type, MPI_SUM,
                   root, world);
    });
    if (!isRoot)
      std::memset(buffer, 0, total * esize);
    break;
  case Kind::AllGather:
    if (total > INT_MAX)
      throw CollectiveError("all_gather of more than 2^31 elements");
    MPI_Allgather(in, static_cast<int>(total), type, buffer,
                  static_cast<int>(total), type, world);
    break;
  }
}
#endif

} // namespace tflrt::dist::transport
