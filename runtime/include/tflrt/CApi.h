/*===- CApi.h - The C ABI compiled TFL code calls -----------------*- C -*-===*\
|*                                                                            *|
|* Compiled programs reach libtflrt only through these functions. Tensors    *|
|* cross as MLIR unranked memrefs, which the LLVM lowering passes as a rank  *|
|* and a pointer to a ranked descriptor:                                     *|
|*   { T *allocated; T *aligned; int64_t offset; int64_t sizes[rank];        *|
|*     int64_t strides[rank]; }                                              *|
|* The entry point a program defines is `void tfl_main(void)`.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TFLRT_CAPI_H
#define TFLRT_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Printing: literal text, and a tensor as NumPy's str() shows it (or a
   scalar with a Python format spec, when `spec` is not empty). */
void tflrt_print_text(const char *text);
/* Text whose `{name}` fields are string flags' values (tflrt::expandPath). */
void tflrt_print_template(const char *text);
void tflrt_print_f32(int64_t rank, void *desc, const char *spec);
void tflrt_print_f64(int64_t rank, void *desc, const char *spec);
void tflrt_print_i32(int64_t rank, void *desc, const char *spec);
void tflrt_print_i64(int64_t rank, void *desc, const char *spec);
void tflrt_print_u8(int64_t rank, void *desc, const char *spec);
void tflrt_print_bool(int64_t rank, void *desc, const char *spec);
void tflrt_print_bf16(int64_t rank, void *desc, const char *spec);
void tflrt_print_f16(int64_t rank, void *desc, const char *spec);

/* The products of compiled code (linalg.matmul's and linalg.batch_matmul's
   C += A @ B): C (+)= op(A) @ op(B) on 2-D memrefs (or
   for each leading index of 3-D ones), where `flags` holds
   TFLRT_GEMM_TRANSPOSE_A (A is stored K x M), TFLRT_GEMM_TRANSPOSE_B (B is
   N x K) and TFLRT_GEMM_OVERWRITE (C = ..., not C += ...). */
enum {
  TFLRT_GEMM_TRANSPOSE_A = 1,
  TFLRT_GEMM_TRANSPOSE_B = 2,
  TFLRT_GEMM_OVERWRITE = 4
};
void tflrt_gemm_f32(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                    void *b, int64_t rankC, void *c);
void tflrt_gemm_f64(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                    void *b, int64_t rankC, void *c);
/* 16-bit products (the CUDA target's, on host buffers): f32 sums, one
   rounding. */
void tflrt_gemm_bf16(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                     void *b, int64_t rankC, void *c);
void tflrt_gemm_f16(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                    void *b, int64_t rankC, void *c);

/* The copy between strided memrefs that MLIR's memref-to-llvm lowering
   calls (its runner library's entry point, provided here so executables
   need only libtflrt). `src` and `dst` point to unranked descriptors
   { int64_t rank; void *descriptor }. */
void memrefCopy(int64_t elemSize, void *src, void *dst);

/* The source location ("file.tfl:LINE:COL", then "called from" notes, one
   a line) of the op the program is running, or NULL: compiled code sets it
   before each op that may fail inside the runtime without a location of
   its own (an allocation, a GPU launch or copy, a library call), and the
   runtime's errors name it. One per thread: a library's exported
   functions run on their callers' threads. */
#ifdef __cplusplus
extern thread_local const char *tflrt_where;
#else
extern _Thread_local const char *tflrt_where;
#endif

/* MLIR's memref-to-llvm lowering allocates and frees host buffers through
   these (its `use-generic-functions` option; it aligns the pointer
   itself): an allocation the system cannot give stops the program with
   "where: error: out of memory". */
void *_mlir_memref_to_llvm_alloc(size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

/* Counts tensor memory from now on and prints "peak memory: host N MiB"
   (and a GPU runtime's part) to stderr at exit; tflc --report-memory
   calls it first thing (tflrt/Memory.h). */
void tflrt_report_memory(void);

/* Run-time checks of compiled code: a slice reading `size` elements from
   `start` with `stride` must stay inside a dim of `dim` elements; otherwise
   the program stops with an error at `where` ("file.tfl:LINE:COL"). */
void tflrt_check_slice(int64_t start, int64_t size, int64_t stride, int64_t dim,
                       const char *where);

/* `assert`: when `cond` is 0, stops with "where: error: assertion failed:
   message" (`where` as for tflrt_check_slice). */
void tflrt_assert(int8_t cond, const char *message, const char *where);

/* check_numerics: when `finite` is 0, stops with "where: error:
   check_numerics failed: message (...)". */
void tflrt_check_numerics(int8_t finite, const char *message,
                          const char *where);

/* Runs `body(ctx, begin, end)` on contiguous chunks of the loop from `lb`
   to `ub` by `step` (each begin is lb plus a multiple of step), one chunk
   per thread of OpenMP's pool (the one oneDNN uses), and returns when all
   are done; the first error a body throws on any thread is rethrown on the
   caller's. Compiled code outlines the bodies of large parallel loops. */
void tflrt_parallel_for(void (*body)(void *ctx, int64_t begin, int64_t end),
                        void *ctx, int64_t lb, int64_t ub, int64_t step);

/* conv2d (NHWC input, HWIO filter, NHWC output) and pooling, f32, through
   oneDNN (tflrt/Conv.h); padding is top, bottom, left, right. */
void tflrt_conv2d_f32(int64_t rankX, void *x, int64_t rankW, void *w,
                      int64_t rankOut, void *out, int64_t strideH,
                      int64_t strideW, int64_t padTop, int64_t padBottom,
                      int64_t padLeft, int64_t padRight);
/* conv2d plus a bias [O] over the output channels, in one call. */
void tflrt_conv2d_bias_f32(int64_t rankX, void *x, int64_t rankW, void *w,
                           int64_t rankB, void *b, int64_t rankOut, void *out,
                           int64_t strideH, int64_t strideW, int64_t padTop,
                           int64_t padBottom, int64_t padLeft,
                           int64_t padRight);
/* The same, then relu (max(v, +0.0), NaN kept). */
void tflrt_conv2d_bias_relu_f32(int64_t rankX, void *x, int64_t rankW, void *w,
                                int64_t rankB, void *b, int64_t rankOut,
                                void *out, int64_t strideH, int64_t strideW,
                                int64_t padTop, int64_t padBottom,
                                int64_t padLeft, int64_t padRight);
void tflrt_conv2d_backward_input_f32(int64_t rankDy, void *dy, int64_t rankW,
                                     void *w, int64_t rankDx, void *dx,
                                     int64_t strideH, int64_t strideW,
                                     int64_t padTop, int64_t padBottom,
                                     int64_t padLeft, int64_t padRight);
void tflrt_conv2d_backward_filter_f32(int64_t rankX, void *x, int64_t rankDy,
                                      void *dy, int64_t rankDw, void *dw,
                                      int64_t strideH, int64_t strideW,
                                      int64_t padTop, int64_t padBottom,
                                      int64_t padLeft, int64_t padRight);
/* The filter's gradient and, into `db` ([O]), that of a bias added to the
   convolution's result (dy summed over N, H and W), in one call. */
void tflrt_conv2d_backward_filter_bias_f32(
    int64_t rankX, void *x, int64_t rankDy, void *dy, int64_t rankDw, void *dw,
    int64_t rankDb, void *db, int64_t strideH, int64_t strideW, int64_t padTop,
    int64_t padBottom, int64_t padLeft, int64_t padRight);
/* gather's adjoint (tflrt::scatterAdd), i64 indices. */
void tflrt_scatter_add_f32(int64_t rankDy, void *dy, int64_t rankIdx, void *idx,
                           int64_t rankOut, void *out, int64_t axis);
void tflrt_scatter_add_f64(int64_t rankDy, void *dy, int64_t rankIdx, void *idx,
                           int64_t rankOut, void *out, int64_t axis);
void tflrt_max_pool2d_backward_f32(int64_t rankX, void *x, int64_t rankDy,
                                   void *dy, int64_t rankDx, void *dx,
                                   int64_t sizeH, int64_t sizeW,
                                   int64_t strideH, int64_t strideW,
                                   int64_t padTop, int64_t padBottom,
                                   int64_t padLeft, int64_t padRight);
void tflrt_avg_pool2d_backward_f32(int64_t rankX, void *x, int64_t rankDy,
                                   void *dy, int64_t rankDx, void *dx,
                                   int64_t sizeH, int64_t sizeW,
                                   int64_t strideH, int64_t strideW,
                                   int64_t padTop, int64_t padBottom,
                                   int64_t padLeft, int64_t padRight);
void tflrt_max_pool2d_gather_f32(int64_t rankX, void *x, int64_t rankG, void *g,
                                 int64_t rankOut, void *out, int64_t sizeH,
                                 int64_t sizeW, int64_t strideH,
                                 int64_t strideW, int64_t padTop,
                                 int64_t padBottom, int64_t padLeft,
                                 int64_t padRight);
void tflrt_max_pool2d_f32(int64_t rankX, void *x, int64_t rankOut, void *out,
                          int64_t sizeH, int64_t sizeW, int64_t strideH,
                          int64_t strideW, int64_t padTop, int64_t padBottom,
                          int64_t padLeft, int64_t padRight);
void tflrt_avg_pool2d_f32(int64_t rankX, void *x, int64_t rankOut, void *out,
                          int64_t sizeH, int64_t sizeW, int64_t strideH,
                          int64_t strideW, int64_t padTop, int64_t padBottom,
                          int64_t padLeft, int64_t padRight);

/* Scaled dot-product attention (tflrt/Attention.h), f32: out =
   softmax(scale q k^T) v, keys after each query masked when `causal` is 1;
   and its adjoint, the cotangents of q, k and v from out and its
   cotangent dy. */
void tflrt_attention_f32(int64_t rankQ, void *q, int64_t rankK, void *k,
                         int64_t rankV, void *v, int64_t rankOut, void *out,
                         int64_t causal, double scale);
void tflrt_attention_backward_f32(int64_t rankQ, void *q, int64_t rankK,
                                  void *k, int64_t rankV, void *v,
                                  int64_t rankOut, void *out, int64_t rankDy,
                                  void *dy, int64_t rankDq, void *dq,
                                  int64_t rankDk, void *dk, int64_t rankDv,
                                  void *dv, int64_t causal, double scale);

/* Flags: tfl_main declares each flag, then parses the command line once
   (which may print --help or an error and exit); then reads values. */
/* dtype: the flag's dtype's code, or -1 for a string flag (tflrt/Flags.h). */
void tflrt_declare_flag(const char *name, int32_t dtype,
                        const char *defaultText, const char *help);
void tflrt_parse_flags(void);
int64_t tflrt_flag_i64(const char *name);
float tflrt_flag_f32(const char *name);
double tflrt_flag_f64(const char *name);
int8_t tflrt_flag_bool(const char *name);

/* The random generator (tflrt/Random.h): seed(n), and one draw filling a
   fresh contiguous memref. */
void tflrt_seed(int64_t seed);
/* The generator's state (key, draws made), read and set again by the
   autodiff pass around a computation it runs twice. */
int64_t tflrt_random_key(void);
int64_t tflrt_random_draws(void);
void tflrt_set_random_state(int64_t key, int64_t draws);
void tflrt_random_uniform_f32(int64_t rank, void *desc);
void tflrt_random_uniform_f64(int64_t rank, void *desc);
void tflrt_random_normal_f32(int64_t rank, void *desc);
void tflrt_random_normal_f64(int64_t rank, void *desc);
void tflrt_shuffle_indices(int64_t rank, void *desc);

/* Files (tflrt/DataIO.h), one function per element type T in f32 f64 i32
   i64 u8 bool. Errors stop the program with the message at `where`.
     tflrt_load_idx_T / tflrt_load_npy_T(path, memref, where): fills the
       memref from the file, which must match its dtype and shape;
     tflrt_save_npy_T(path, memref, where);
     tflrt_checkpoint_add_T(name, memref) queues a copy of a tensor, and
       tflrt_checkpoint_write(path, where) writes the queued ones;
     tflrt_checkpoint_read_T(path, name, memref, where). */
#define TFLRT_FILE_FUNCTIONS(T)                                                \
  void tflrt_load_idx_##T(const char *path, int64_t rank, void *desc,          \
                          const char *where);                                  \
  void tflrt_load_npy_##T(const char *path, int64_t rank, void *desc,          \
                          const char *where);                                  \
  void tflrt_save_npy_##T(const char *path, int64_t rank, void *desc,          \
                          const char *where);                                  \
  void tflrt_checkpoint_add_##T(const char *name, int64_t rank, void *desc);   \
  void tflrt_checkpoint_read_##T(const char *path, const char *name,           \
                                 int64_t rank, void *desc, const char *where);
TFLRT_FILE_FUNCTIONS(f32)
TFLRT_FILE_FUNCTIONS(f64)
TFLRT_FILE_FUNCTIONS(i32)
TFLRT_FILE_FUNCTIONS(i64)
TFLRT_FILE_FUNCTIONS(u8)
/* load_bytes: a whole file's bytes into a 1-D u8 memref of its size. */
void tflrt_load_bytes_u8(const char *path, int64_t rank, void *desc,
                         const char *where);
/* encode(s, size=N) of text holding string flags' values: the first N bytes
   of the filled-in text, zero-padded, into a 1-D u8 memref of size N. */
void tflrt_encode_text_u8(const char *text, int64_t rank, void *desc);
TFLRT_FILE_FUNCTIONS(bool)
#undef TFLRT_FILE_FUNCTIONS
void tflrt_checkpoint_write(const char *path, const char *where);
/* log_scalar(name, value, step). */
void tflrt_log_scalar(const char *name, double value, int64_t step,
                      const char *where);

/* The autodiff tapes (tflrt/Kernels.h): push, write and add copy a
   memref's elements; read and accumulated copy into a fresh contiguous
   memref. */
void tflrt_tape_enter(void);
void tflrt_tape_exit(void);
int64_t tflrt_tape_size(int64_t tape);
void tflrt_tape_rewind(int64_t tape, int64_t position);
void tflrt_tape_release(int64_t tape, int64_t position);
#define TFLRT_TAPE_FUNCTIONS(T)                                                \
  void tflrt_tape_push_##T(int64_t tape, int64_t rank, void *desc);            \
  void tflrt_tape_write_##T(int64_t tape, int64_t position, int64_t rank,      \
                            void *desc);                                       \
  void tflrt_tape_read_##T(int64_t tape, int64_t position, int64_t rank,       \
                           void *desc);
TFLRT_TAPE_FUNCTIONS(f32)
TFLRT_TAPE_FUNCTIONS(f64)
TFLRT_TAPE_FUNCTIONS(i32)
TFLRT_TAPE_FUNCTIONS(i64)
TFLRT_TAPE_FUNCTIONS(u8)
TFLRT_TAPE_FUNCTIONS(bool)
#undef TFLRT_TAPE_FUNCTIONS
#define TFLRT_TAPE_SUM_FUNCTIONS(T)                                            \
  void tflrt_tape_add_##T(int64_t tape, int64_t position, int64_t rank,        \
                          void *desc);                                         \
  void tflrt_tape_accumulated_##T(int64_t tape, int64_t position,              \
                                  int64_t rank, void *desc);
TFLRT_TAPE_SUM_FUNCTIONS(f32)
TFLRT_TAPE_SUM_FUNCTIONS(f64)
#undef TFLRT_TAPE_SUM_FUNCTIONS

/* now(): seconds on a monotonic clock. */
double tflrt_now(void);

/* Collectives across the processes of a run (tflrt/Collectives.h): this
   process's rank and the run's size (0 and 1 without an MPI launcher).
   A request is begun (kind and op as tflrt::dist::Kind and Reduction, root
   for broadcast and reduce_to_root), given a copy of each tensor, started,
   waited for, and each result taken out by its position (the last take
   closes it). tflrt_collective_run_X does a collective on one tensor at
   once. Errors stop at tflrt_where. */
int64_t tflrt_rank(void);
int64_t tflrt_world_size(void);
int64_t tflrt_collective_begin(int64_t kind, int64_t op, int64_t root);
void tflrt_collective_start(int64_t request);
void tflrt_collective_wait(int64_t request);
#define TFLRT_DECLARE_COLLECTIVE(SUFFIX)                                       \
  void tflrt_collective_add_##SUFFIX(int64_t request, int64_t rankIn,          \
                                     void *in);                                \
  void tflrt_collective_take_##SUFFIX(int64_t request, int64_t index,          \
                                      int64_t rankOut, void *out);             \
  void tflrt_collective_run_##SUFFIX(int64_t kind, int64_t op, int64_t root,   \
                                     int64_t rankIn, void *in,                 \
                                     int64_t rankOut, void *out);
TFLRT_DECLARE_COLLECTIVE(f32)
TFLRT_DECLARE_COLLECTIVE(f64)
TFLRT_DECLARE_COLLECTIVE(i32)
TFLRT_DECLARE_COLLECTIVE(i64)
#undef TFLRT_DECLARE_COLLECTIVE

/* Process set-up and tear-down around tfl_main (flushes output; at a
   successful end, finishes what the run started, e.g. MPI). */
void tflrt_init(int argc, char **argv);
void tflrt_finish(void);

/* Libraries (tflc build --shared). A caller's tensor: `data` points to its
   elements, row-major and contiguous; `shape` to its `rank` sizes. The
   caller owns both. (A library's header defines it too.) */
#ifndef TFL_TENSOR_DEFINED
#define TFL_TENSOR_DEFINED
typedef struct tfl_tensor {
  void *data;
  int64_t rank;
  const int64_t *shape;
} tfl_tensor;
#endif

/* One tensor an exported function takes or writes (a leaf of an argument
   or of the result), with its name in messages ("params.w"). */
typedef struct tflrt_export_leaf {
  const char *name;
  int32_t dtype; /* tflrt::DType */
  int32_t output;
  int64_t rank;
  const int64_t *shape;
} tflrt_export_leaf;

/* An exported function: its leaves in order (arguments', then the
   result's), and the compiled code's entry, called with a memref
   descriptor per leaf (the result's written in place). */
typedef struct tflrt_export {
  const char *name;
  int64_t numLeaves;
  const tflrt_export_leaf *leaves;
  void (*entry)(void **descriptors);
} tflrt_export;

/* Checks `tensors` (one per leaf) against the export's signature and runs
   it on them: 0, or 1 after a bad argument or a run-time error, whose
   message ("file.tfl:LINE:COL: error: ...") tflrt_export_last_error gives
   on this thread. Calls on several threads run concurrently. */
int tflrt_export_call(const tflrt_export *e, const tfl_tensor *const *tensors);
/* Reads each leaf (its name the one `save` gave it) from safetensors
   checkpoint `path` into the caller's tensors: 0, or 1 with the message. */
int tflrt_export_load(const char *path, int64_t numLeaves,
                      const tflrt_export_leaf *leaves,
                      const tfl_tensor *const *tensors);
const char *tflrt_export_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TFLRT_CAPI_H */
