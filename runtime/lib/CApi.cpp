//===- CApi.cpp - The C ABI compiled TFL code calls -----------------------===//
//
// Thin adapters from MLIR memref descriptors to libtflrt's C++ functions.
//
//===----------------------------------------------------------------------===//

#include "tflrt/CApi.h"
#include "Descriptors.h"
#include "tflrt/Attention.h"
#include "tflrt/Conv.h"
#include "tflrt/DataIO.h"
#include "tflrt/Flags.h"
#include "tflrt/Kernels.h"
#include "tflrt/Memory.h"
#include "tflrt/Output.h"
#include "tflrt/Parallel.h"
#include "tflrt/Random.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <malloc.h>

namespace {

using tflrt::failAt;
using tflrt::viewOf;

/// Runs a file operation, turning its IoError into a stop at `where`.
template <typename Fn> void fileOp(const char *where, Fn fn) {
  try {
    fn();
  } catch (const tflrt::IoError &e) {
    failAt(where, e.what());
  }
}

/// The tensors of a checkpoint being written, copied: compiled code may
/// free a buffer right after it is added.
struct PendingCheckpoint {
  std::vector<std::string> names;
  std::vector<tflrt::Tensor> tensors;
};

PendingCheckpoint &pendingCheckpoint() {
  static PendingCheckpoint p;
  return p;
}

/// C (+)= op(A) @ op(B) for each leading index of the views (none for 2-D).
template <typename T, typename Fn>
void gemm(tflrt::DType dtype, Fn product, int64_t flags, int64_t rankA, void *a,
          int64_t rankB, void *b, int64_t rankC, void *c) {
  tflrt::TensorView va = viewOf(dtype, rankA, a);
  tflrt::TensorView vb = viewOf(dtype, rankB, b);
  tflrt::TensorView vc = viewOf(dtype, rankC, c);
  bool transA = flags & TFLRT_GEMM_TRANSPOSE_A;
  bool transB = flags & TFLRT_GEMM_TRANSPOSE_B;
  bool accumulate = !(flags & TFLRT_GEMM_OVERWRITE);
  size_t r = static_cast<size_t>(rankC);
  int64_t m = vc.shape[r - 2], n = vc.shape[r - 1];
  int64_t k = transA ? va.shape[r - 2] : va.shape[r - 1];
  int64_t batch = r == 3 ? vc.shape[0] : 1;
  tflrt::forEachProduct(
      batch,
      [&](int64_t i) {
        int64_t offA = r == 3 ? i * va.strides[0] : 0;
        int64_t offB = r == 3 ? i * vb.strides[0] : 0;
        int64_t offC = r == 3 ? i * vc.strides[0] : 0;
        product(static_cast<const T *>(va.data) + offA,
                static_cast<const T *>(vb.data) + offB,
                static_cast<T *>(const_cast<void *>(vc.data)) + offC, m, n, k,
                va.strides[r - 2], vb.strides[r - 2], vc.strides[r - 2],
                accumulate, transA, transB);
      },
      [&] { return tflrt::productName(dtype, m, n, k, transA, transB); });
}

/// C (+)= op(A) @ op(B) on 16-bit floats (`dtype`), summed in f32 and
/// rounded once, as cuBLAS computes them: the CUDA target's 16-bit
/// products whose buffers tfl-host-scalars keeps on the host (one
/// element); elsewhere tfl-widen-half widens 16-bit products.
auto halfProduct(tflrt::DType dtype) {
  return [dtype](const uint16_t *a, const uint16_t *b, uint16_t *c, int64_t m,
                 int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                 bool accumulate, bool transA, bool transB) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float sum = accumulate ? tflrt::halfToFloat(dtype, c[i * ldc + j]) : 0;
        for (int64_t l = 0; l < k; ++l)
          sum += tflrt::halfToFloat(dtype,
                                    transA ? a[l * lda + i] : a[i * lda + l]) *
                 tflrt::halfToFloat(dtype,
                                    transB ? b[j * ldb + l] : b[l * ldb + j]);
        c[i * ldc + j] = tflrt::floatToHalf(dtype, sum);
      }
  };
}

} // namespace

extern "C" {

thread_local const char *tflrt_where = nullptr;

void *_mlir_memref_to_llvm_alloc(size_t size) {
  void *ptr = tflrt::allocateHostBuffer(size);
  if (!ptr && size)
    failAt(tflrt_where, tflrt::outOfMemoryMessage(size));
  if (ptr && tflrt::countingMemory())
    tflrt::noteHostAllocated(malloc_usable_size(ptr));
  return ptr;
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (ptr && tflrt::countingMemory())
    tflrt::noteHostFreed(malloc_usable_size(ptr));
  tflrt::freeHostBuffer(ptr);
}

void tflrt_print_text(const char *text) { tflrt::writeText(text); }
void tflrt_print_template(const char *text) {
  tflrt::writeText(tflrt::expandPath(text));
}

double tflrt_now(void) { return tflrt::nowSeconds(); }

void tflrt_seed(int64_t seed) { tflrt::seedRandom(seed); }

int64_t tflrt_random_key(void) {
  return static_cast<int64_t>(tflrt::randomState()[0]);
}

int64_t tflrt_random_draws(void) {
  return static_cast<int64_t>(tflrt::randomState()[1]);
}

void tflrt_set_random_state(int64_t key, int64_t draws) {
  tflrt::setRandomState(static_cast<uint64_t>(key),
                        static_cast<uint64_t>(draws));
}

void tflrt_attention_f32(int64_t rankQ, void *q, int64_t rankK, void *k,
                         int64_t rankV, void *v, int64_t rankOut, void *out,
                         int64_t causal, double scale) {
  const tflrt::DType f32 = tflrt::DType::F32;
  tflrt::attention(viewOf(f32, rankQ, q), viewOf(f32, rankK, k),
                   viewOf(f32, rankV, v), viewOf(f32, rankOut, out),
                   {causal != 0, scale});
}

void tflrt_attention_backward_f32(int64_t rankQ, void *q, int64_t rankK,
                                  void *k, int64_t rankV, void *v,
                                  int64_t rankOut, void *out, int64_t rankDy,
                                  void *dy, int64_t rankDq, void *dq,
                                  int64_t rankDk, void *dk, int64_t rankDv,
                                  void *dv, int64_t causal, double scale) {
  const tflrt::DType f32 = tflrt::DType::F32;
  tflrt::attentionBackward(viewOf(f32, rankQ, q), viewOf(f32, rankK, k),
                           viewOf(f32, rankV, v), viewOf(f32, rankOut, out),
                           viewOf(f32, rankDy, dy), viewOf(f32, rankDq, dq),
                           viewOf(f32, rankDk, dk), viewOf(f32, rankDv, dv),
                           {causal != 0, scale});
}

void tflrt_conv2d_f32(int64_t rankX, void *x, int64_t rankW, void *w,
                      int64_t rankOut, void *out, int64_t strideH,
                      int64_t strideW, int64_t padTop, int64_t padBottom,
                      int64_t padLeft, int64_t padRight) {
  tflrt::conv2d(viewOf(tflrt::DType::F32, rankX, x),
                viewOf(tflrt::DType::F32, rankW, w),
                viewOf(tflrt::DType::F32, rankOut, out),
                {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});
}

void tflrt_conv2d_bias_f32(int64_t rankX, void *x, int64_t rankW, void *w,
                           int64_t rankB, void *b, int64_t rankOut, void *out,
                           int64_t strideH, int64_t strideW, int64_t padTop,
                           int64_t padBottom, int64_t padLeft,
                           int64_t padRight) {
  tflrt::conv2dBias(
      viewOf(tflrt::DType::F32, rankX, x), viewOf(tflrt::DType::F32, rankW, w),
      viewOf(tflrt::DType::F32, rankB, b),
      viewOf(tflrt::DType::F32, rankOut, out),
      {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});
}

void tflrt_conv2d_bias_relu_f32(int64_t rankX, void *x, int64_t rankW, void *w,
                                int64_t rankB, void *b, int64_t rankOut,
                                void *out, int64_t strideH, int64_t strideW,
                                int64_t padTop, int64_t padBottom,
                                int64_t padLeft, int64_t padRight) {
  tflrt::conv2dBiasRelu(
      viewOf(tflrt::DType::F32, rankX, x), viewOf(tflrt::DType::F32, rankW, w),
      viewOf(tflrt::DType::F32, rankB, b),
      viewOf(tflrt::DType::F32, rankOut, out),
      {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});
}

void tflrt_conv2d_backward_input_f32(int64_t rankDy, void *dy, int64_t rankW,
                                     void *w, int64_t rankDx, void *dx,
                                     int64_t strideH, int64_t strideW,
                                     int64_t padTop, int64_t padBottom,
                                     int64_t padLeft, int64_t padRight) {
  tflrt::conv2dBackwardInput(
      viewOf(tflrt::DType::F32, rankDy, dy),
      viewOf(tflrt::DType::F32, rankW, w),
      viewOf(tflrt::DType::F32, rankDx, dx),
      {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});
}

void tflrt_conv2d_backward_filter_f32(int64_t rankX, void *x, int64_t rankDy,
                                      void *dy, int64_t rankDw, void *dw,
                                      int64_t strideH, int64_t strideW,
                                      int64_t padTop, int64_t padBottom,
                                      int64_t padLeft, int64_t padRight) {
  tflrt::conv2dBackwardFilter(
      viewOf(tflrt::DType::F32, rankX, x),
      viewOf(tflrt::DType::F32, rankDy, dy),
      viewOf(tflrt::DType::F32, rankDw, dw),
      {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});
}

void tflrt_conv2d_backward_filter_bias_f32(
    int64_t rankX, void *x, int64_t rankDy, void *dy, int64_t rankDw, void *dw,
    int64_t rankDb, void *db, int64_t strideH, int64_t strideW, int64_t padTop,
    int64_t padBottom, int64_t padLeft, int64_t padRight) {
  tflrt::TensorView dbias = viewOf(tflrt::DType::F32, rankDb, db);
  tflrt::conv2dBackwardFilter(
      viewOf(tflrt::DType::F32, rankX, x),
      viewOf(tflrt::DType::F32, rankDy, dy),
      viewOf(tflrt::DType::F32, rankDw, dw),
      {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}}, &dbias);
}

#define TFLRT_POOL(NAME, KIND)                                                 \
  void tflrt_##NAME##_f32(int64_t rankX, void *x, int64_t rankOut, void *out,  \
                          int64_t sizeH, int64_t sizeW, int64_t strideH,       \
                          int64_t strideW, int64_t padTop, int64_t padBottom,  \
                          int64_t padLeft, int64_t padRight) {                 \
    tflrt::pool2d(                                                             \
        tflrt::PoolKind::KIND, viewOf(tflrt::DType::F32, rankX, x),            \
        viewOf(tflrt::DType::F32, rankOut, out), {sizeH, sizeW},               \
        {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});         \
  }
TFLRT_POOL(max_pool2d, Max)
TFLRT_POOL(avg_pool2d, Avg)
#undef TFLRT_POOL

#define TFLRT_SCATTER_ADD(T, DTYPE)                                            \
  void tflrt_scatter_add_##T(int64_t rankDy, void *dy, int64_t rankIdx,        \
                             void *idx, int64_t rankOut, void *out,            \
                             int64_t axis) {                                   \
    tflrt::scatterAdd(viewOf(tflrt::DType::DTYPE, rankDy, dy),                 \
                      viewOf(tflrt::DType::I64, rankIdx, idx),                 \
                      viewOf(tflrt::DType::DTYPE, rankOut, out), axis);        \
  }
TFLRT_SCATTER_ADD(f32, F32)
TFLRT_SCATTER_ADD(f64, F64)
#undef TFLRT_SCATTER_ADD

#define TFLRT_POOL_BACKWARD(NAME, KIND)                                        \
  void tflrt_##NAME##_backward_f32(                                            \
      int64_t rankX, void *x, int64_t rankDy, void *dy, int64_t rankDx,        \
      void *dx, int64_t sizeH, int64_t sizeW, int64_t strideH,                 \
      int64_t strideW, int64_t padTop, int64_t padBottom, int64_t padLeft,     \
      int64_t padRight) {                                                      \
    tflrt::pool2dBackward(                                                     \
        tflrt::PoolKind::KIND, viewOf(tflrt::DType::F32, rankX, x),            \
        viewOf(tflrt::DType::F32, rankDy, dy),                                 \
        viewOf(tflrt::DType::F32, rankDx, dx), {sizeH, sizeW},                 \
        {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});         \
  }
TFLRT_POOL_BACKWARD(max_pool2d, Max)
TFLRT_POOL_BACKWARD(avg_pool2d, Avg)
#undef TFLRT_POOL_BACKWARD

void tflrt_max_pool2d_gather_f32(int64_t rankX, void *x, int64_t rankG, void *g,
                                 int64_t rankOut, void *out, int64_t sizeH,
                                 int64_t sizeW, int64_t strideH,
                                 int64_t strideW, int64_t padTop,
                                 int64_t padBottom, int64_t padLeft,
                                 int64_t padRight) {
  tflrt::maxPool2dGather(
      viewOf(tflrt::DType::F32, rankX, x), viewOf(tflrt::DType::F32, rankG, g),
      viewOf(tflrt::DType::F32, rankOut, out), {sizeH, sizeW},
      {{strideH, strideW}, {padTop, padBottom, padLeft, padRight}});
}

void tflrt_load_bytes_u8(const char *path, int64_t rank, void *desc,
                         const char *where) {
  fileOp(where, [&] {
    tflrt::readBytes(tflrt::expandPath(path),
                     viewOf(tflrt::DType::U8, rank, desc));
  });
}

void tflrt_encode_text_u8(const char *text, int64_t rank, void *desc) {
  tflrt::encodeText(tflrt::expandPath(text),
                    viewOf(tflrt::DType::U8, rank, desc));
}

#define TFLRT_FILE_FUNCTIONS(T, DTYPE)                                         \
  void tflrt_load_idx_##T(const char *path, int64_t rank, void *desc,          \
                          const char *where) {                                 \
    fileOp(where, [&] {                                                        \
      tflrt::readIdx(tflrt::expandPath(path),                                  \
                     viewOf(tflrt::DType::DTYPE, rank, desc));                 \
    });                                                                        \
  }                                                                            \
  void tflrt_load_npy_##T(const char *path, int64_t rank, void *desc,          \
                          const char *where) {                                 \
    fileOp(where, [&] {                                                        \
      tflrt::readNpy(tflrt::expandPath(path),                                  \
                     viewOf(tflrt::DType::DTYPE, rank, desc));                 \
    });                                                                        \
  }                                                                            \
  void tflrt_save_npy_##T(const char *path, int64_t rank, void *desc,          \
                          const char *where) {                                 \
    fileOp(where, [&] {                                                        \
      tflrt::writeNpy(tflrt::expandPath(path),                                 \
                      viewOf(tflrt::DType::DTYPE, rank, desc));                \
    });                                                                        \
  }                                                                            \
  void tflrt_checkpoint_add_##T(const char *name, int64_t rank, void *desc) {  \
    pendingCheckpoint().names.push_back(name);                                 \
    pendingCheckpoint().tensors.push_back(                                     \
        tflrt::materialize(viewOf(tflrt::DType::DTYPE, rank, desc)));          \
  }                                                                            \
  void tflrt_checkpoint_read_##T(const char *path, const char *name,           \
                                 int64_t rank, void *desc,                     \
                                 const char *where) {                          \
    fileOp(where, [&] {                                                        \
      tflrt::readCheckpointTensor(tflrt::expandPath(path), name,               \
                                  viewOf(tflrt::DType::DTYPE, rank, desc));    \
    });                                                                        \
  }
TFLRT_FILE_FUNCTIONS(f32, F32)
TFLRT_FILE_FUNCTIONS(f64, F64)
TFLRT_FILE_FUNCTIONS(i32, I32)
TFLRT_FILE_FUNCTIONS(i64, I64)
TFLRT_FILE_FUNCTIONS(u8, U8)
TFLRT_FILE_FUNCTIONS(bool, Bool)
#undef TFLRT_FILE_FUNCTIONS

void tflrt_tape_enter(void) { tflrt::tapeEnter(); }
void tflrt_tape_exit(void) { tflrt::tapeExit(); }
int64_t tflrt_tape_size(int64_t tape) { return tflrt::tapeSize(tape); }
void tflrt_tape_rewind(int64_t tape, int64_t position) {
  tflrt::tapeRewind(tape, position, /*release=*/false);
}
void tflrt_tape_release(int64_t tape, int64_t position) {
  tflrt::tapeRewind(tape, position, /*release=*/true);
}

namespace {
/// Copies `t` into the fresh contiguous buffer `out`.
void fill(const tflrt::TensorView &out, const tflrt::Tensor &t) {
  std::memcpy(const_cast<void *>(out.data), t.data(), t.byteSize());
}
} // namespace

#define TFLRT_TAPE_FUNCTIONS(T, DTYPE)                                         \
  void tflrt_tape_push_##T(int64_t tape, int64_t rank, void *desc) {           \
    tflrt::tapePush(                                                           \
        tape, tflrt::materialize(viewOf(tflrt::DType::DTYPE, rank, desc)));    \
  }                                                                            \
  void tflrt_tape_write_##T(int64_t tape, int64_t position, int64_t rank,      \
                            void *desc) {                                      \
    tflrt::tapeWrite(                                                          \
        tape, position,                                                        \
        tflrt::materialize(viewOf(tflrt::DType::DTYPE, rank, desc)));          \
  }                                                                            \
  void tflrt_tape_read_##T(int64_t tape, int64_t position, int64_t rank,       \
                           void *desc) {                                       \
    tflrt::TensorView out = viewOf(tflrt::DType::DTYPE, rank, desc);           \
    fill(out, tflrt::tapeRead(tape, position, out.dtype, out.shape));          \
  }
TFLRT_TAPE_FUNCTIONS(f32, F32)
TFLRT_TAPE_FUNCTIONS(f64, F64)
TFLRT_TAPE_FUNCTIONS(i32, I32)
TFLRT_TAPE_FUNCTIONS(i64, I64)
TFLRT_TAPE_FUNCTIONS(u8, U8)
TFLRT_TAPE_FUNCTIONS(bool, Bool)
#undef TFLRT_TAPE_FUNCTIONS

#define TFLRT_TAPE_SUM_FUNCTIONS(T, DTYPE)                                     \
  void tflrt_tape_add_##T(int64_t tape, int64_t position, int64_t rank,        \
                          void *desc) {                                        \
    tflrt::tapeAdd(                                                            \
        tape, position,                                                        \
        tflrt::materialize(viewOf(tflrt::DType::DTYPE, rank, desc)));          \
  }                                                                            \
  void tflrt_tape_accumulated_##T(int64_t tape, int64_t position,              \
                                  int64_t rank, void *desc) {                  \
    tflrt::TensorView out = viewOf(tflrt::DType::DTYPE, rank, desc);           \
    fill(out, tflrt::tapeAccumulated(tape, position, out.dtype, out.shape));   \
  }
TFLRT_TAPE_SUM_FUNCTIONS(f32, F32)
TFLRT_TAPE_SUM_FUNCTIONS(f64, F64)
#undef TFLRT_TAPE_SUM_FUNCTIONS

void tflrt_checkpoint_write(const char *path, const char *where) {
  PendingCheckpoint pending = std::move(pendingCheckpoint());
  pendingCheckpoint() = {};
  std::vector<tflrt::TensorView> views;
  for (const tflrt::Tensor &t : pending.tensors)
    views.push_back(t.view());
  fileOp(where, [&] {
    tflrt::writeCheckpoint(tflrt::expandPath(path), pending.names, views);
  });
}

void tflrt_log_scalar(const char *name, double value, int64_t step,
                      const char *where) {
  fileOp(where, [&] { tflrt::logScalar(name, value, step); });
}

#define TFLRT_RANDOM(NAME, DTYPE, CTYPE, FILL)                                 \
  void tflrt_##NAME(int64_t rank, void *desc) {                                \
    tflrt::TensorView v = viewOf(tflrt::DType::DTYPE, rank, desc);             \
    FILL(static_cast<CTYPE *>(const_cast<void *>(v.data)),                     \
         tflrt::numElements(v.shape));                                         \
  }
TFLRT_RANDOM(random_uniform_f32, F32, float, tflrt::randomUniform)
TFLRT_RANDOM(random_uniform_f64, F64, double, tflrt::randomUniform)
TFLRT_RANDOM(random_normal_f32, F32, float, tflrt::randomNormal)
TFLRT_RANDOM(random_normal_f64, F64, double, tflrt::randomNormal)
TFLRT_RANDOM(shuffle_indices, I64, int64_t, tflrt::shuffleIndices)
#undef TFLRT_RANDOM

#define TFLRT_PRINT(NAME, DTYPE)                                               \
  void tflrt_print_##NAME(int64_t rank, void *desc, const char *spec) {        \
    tflrt::writeTensor(viewOf(tflrt::DType::DTYPE, rank, desc), spec);         \
  }
TFLRT_PRINT(f32, F32)
TFLRT_PRINT(f64, F64)
TFLRT_PRINT(i32, I32)
TFLRT_PRINT(i64, I64)
TFLRT_PRINT(u8, U8)
TFLRT_PRINT(bool, Bool)
TFLRT_PRINT(bf16, BF16)
TFLRT_PRINT(f16, F16)
#undef TFLRT_PRINT

void tflrt_gemm_f32(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                    void *b, int64_t rankC, void *c) {
  gemm<float>(tflrt::DType::F32, tflrt::matmulF32, flags, rankA, a, rankB, b,
              rankC, c);
}
void tflrt_gemm_f64(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                    void *b, int64_t rankC, void *c) {
  gemm<double>(tflrt::DType::F64, tflrt::matmulF64, flags, rankA, a, rankB, b,
               rankC, c);
}
void tflrt_gemm_bf16(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                     void *b, int64_t rankC, void *c) {
  gemm<uint16_t>(tflrt::DType::BF16, halfProduct(tflrt::DType::BF16), flags,
                 rankA, a, rankB, b, rankC, c);
}
void tflrt_gemm_f16(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                    void *b, int64_t rankC, void *c) {
  gemm<uint16_t>(tflrt::DType::F16, halfProduct(tflrt::DType::F16), flags,
                 rankA, a, rankB, b, rankC, c);
}

void memrefCopy(int64_t elemSize, void *src, void *dst) {
  struct Unranked {
    int64_t rank;
    void *descriptor;
  };
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
  };
  auto *s = static_cast<Unranked *>(src);
  auto *d = static_cast<Unranked *>(dst);
  int64_t rank = s->rank;
  auto *sh = static_cast<Header *>(s->descriptor);
  auto *dh = static_cast<Header *>(d->descriptor);
  auto *sizes = reinterpret_cast<int64_t *>(sh + 1);
  auto *sStrides = sizes + rank;
  auto *dStrides = reinterpret_cast<int64_t *>(dh + 1) + rank;
  tflrt::Shape shape(sizes, sizes + rank);
  if (tflrt::numElements(shape) == 0)
    return;
  tflrt::moveStrided(sh->aligned, tflrt::Shape(sStrides, sStrides + rank),
                     sh->offset, dh->aligned,
                     tflrt::Shape(dStrides, dStrides + rank), dh->offset, shape,
                     static_cast<size_t>(elemSize));
}

void tflrt_check_slice(int64_t start, int64_t size, int64_t stride, int64_t dim,
                       const char *where) {
  if (size == 0)
    return;
  int64_t last = start + (size - 1) * stride;
  if (start >= 0 && start < dim && last >= 0 && last < dim)
    return;
  failAt(where, tflrt::outOfRangeMessage(start, size, stride, dim));
}

void tflrt_check_numerics(int8_t finite, const char *message,
                          const char *where) {
  if (finite)
    return;
  failAt(where, tflrt::checkNumericsMessage(message));
}

void tflrt_assert(int8_t cond, const char *message, const char *where) {
  if (cond)
    return;
  failAt(where,
         std::string("assertion failed") + (*message ? ": " : "") + message);
}

namespace {
std::string programName = "program";
std::vector<std::string> programArgs;
} // namespace

void tflrt_declare_flag(const char *name, int32_t dtype,
                        const char *defaultText, const char *help) {
  tflrt::declareFlag(name, static_cast<int>(dtype), defaultText, help);
}

void tflrt_parse_flags(void) {
  int rc = tflrt::parseFlags(programName, programArgs);
  if (rc != 0)
    std::exit(rc == 2 ? 0 : 1);
}

int64_t tflrt_flag_i64(const char *name) {
  return tflrt::flagValue(name).data<int64_t>()[0];
}
float tflrt_flag_f32(const char *name) {
  return tflrt::flagValue(name).data<float>()[0];
}
double tflrt_flag_f64(const char *name) {
  return tflrt::flagValue(name).data<double>()[0];
}
int8_t tflrt_flag_bool(const char *name) {
  return tflrt::flagValue(name).data<uint8_t>()[0];
}

void tflrt_init(int argc, char **argv) {
  tflrt::shareCoresAmongLocalRanks();
  programName = argc > 0 ? argv[0] : "program";
  programArgs.assign(argv + (argc > 0 ? 1 : 0), argv + argc);
}

void tflrt_finish(void) { tflrt::finishRun(); }

} // extern "C"
