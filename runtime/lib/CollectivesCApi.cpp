//===- CollectivesCApi.cpp - The collectives' C ABI -----------------------===//
//
// The tflrt_collective_* and tflrt_rank/world_size entry points of CApi.h:
// compiled code's memref descriptors onto tflrt/Collectives.h. A collective
// of one dense tensor goes straight to runDense, without building views;
// errors stop the program at tflrt_where.
//
//===----------------------------------------------------------------------===//

#include "Descriptors.h"
#include "tflrt/CApi.h"
#include "tflrt/Collectives.h"
#include "tflrt/Output.h"

namespace {

using tflrt::viewOf;
namespace dist = tflrt::dist;

/// Runs a collective's step, turning its error into a stop at the op.
template <typename Fn> auto collectiveStep(Fn fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const dist::CollectiveError &e) {
    tflrt::failAt(tflrt_where, e.what());
  }
}

/// The buffer of a fresh (contiguous) result memref.
void *dataOf(const tflrt::TensorView &v) { return const_cast<void *>(v.data); }

/// One collective from the memref `in` to `out` (the same: in place).
void runDescriptors(dist::Kind kind, dist::Reduction op, int64_t root,
                    tflrt::DType dtype, int64_t rankIn, void *in,
                    int64_t rankOut, void *out) {
  size_t esize = tflrt::dtypeSize(dtype);
  tflrt::DenseData i = tflrt::denseData(rankIn, in, esize);
  tflrt::DenseData o = tflrt::denseData(rankOut, out, esize);
  if (i.dense && o.dense && i.count == o.count &&
      dist::runDense(kind, op, root, dtype, i.data, o.data, i.count))
    return;
  dist::runInto(kind, op, root, viewOf(dtype, rankIn, in),
                viewOf(dtype, rankOut, out));
}

} // namespace

extern "C" {

int64_t tflrt_rank(void) { return dist::rank(); }
int64_t tflrt_world_size(void) { return dist::worldSize(); }

int64_t tflrt_collective_begin(int64_t kind, int64_t op, int64_t root) {
  return collectiveStep([&] {
    return dist::begin(static_cast<dist::Kind>(kind),
                       static_cast<dist::Reduction>(op), root);
  });
}

void tflrt_collective_start(int64_t request) {
  collectiveStep([&] { dist::start(request); });
}

void tflrt_collective_wait(int64_t request) {
  collectiveStep([&] { dist::wait(request); });
}

#define TFLRT_COLLECTIVE_DTYPE(SUFFIX, DTYPE)                                  \
  void tflrt_collective_add_##SUFFIX(int64_t request, int64_t rankIn,          \
                                     void *in) {                               \
    collectiveStep(                                                            \
        [&] { dist::add(request, viewOf(tflrt::DType::DTYPE, rankIn, in)); }); \
  }                                                                            \
  void tflrt_collective_take_##SUFFIX(int64_t request, int64_t index,          \
                                      int64_t rankOut, void *out) {            \
    collectiveStep([&] {                                                       \
      dist::take(request, index,                                               \
                 dataOf(viewOf(tflrt::DType::DTYPE, rankOut, out)));           \
    });                                                                        \
  }                                                                            \
  void tflrt_collective_run_##SUFFIX(int64_t kind, int64_t op, int64_t root,   \
                                     int64_t rankIn, void *in,                 \
                                     int64_t rankOut, void *out) {             \
    collectiveStep([&] {                                                       \
      runDescriptors(static_cast<dist::Kind>(kind),                            \
                     static_cast<dist::Reduction>(op), root,                   \
                     tflrt::DType::DTYPE, rankIn, in, rankOut, out);           \
    });                                                                        \
  }
TFLRT_COLLECTIVE_DTYPE(f32, F32)
TFLRT_COLLECTIVE_DTYPE(f64, F64)
TFLRT_COLLECTIVE_DTYPE(i32, I32)
TFLRT_COLLECTIVE_DTYPE(i64, I64)
#undef TFLRT_COLLECTIVE_DTYPE

} // extern "C"
