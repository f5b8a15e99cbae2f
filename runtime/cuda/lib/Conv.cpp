//===- Conv.cpp - conv2d and its adjoints on cuDNN ------------------------===//
//
// conv2d (NHWC input and output, HWIO filter, TensorFlow's padding) and its
// two adjoints on cuDNN 9's convolution API. Activations are described to
// cuDNN with their own strides (NHWC); the filter is reordered to cuDNN's
// KRSC (NHWC filter format) by cudnnTransformTensor, and a filter gradient
// is reordered back. Per shape (the cache key holds every dim, stride and
// window parameter), descriptors and the algorithm cuDNN's heuristics rank
// first are made once; workspaces come from the caching allocator. The math
// is f32 (CUDNN_FMA_MATH: no TF32) unless the program was built with
// --allow-tf32. cuDNN pads symmetrically: a window padded more on one side
// (TensorFlow's "same" with an even total) runs on the host instead
// (libtflrt's oneDNN convolution).
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Libraries.h"
#include "tflrt/CudaApi.h"

#include <cudnn.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using tflrt::cuda::cudnn;
using tflrt::cuda::descOf;
using tflrt::cuda::fail;
using tflrt::cuda::MemrefDesc;
using tflrt::cuda::Scratch;

void checkDnn(cudnnStatus_t status, const char *what) {
  if (status != CUDNN_STATUS_SUCCESS)
    fail(std::string(what) +
         " failed on cuDNN: " + cudnn().cudnnGetErrorString(status));
}

cudnnHandle_t handle() {
  static cudnnHandle_t h = nullptr;
  if (!h) {
    cudaStream_t s = tflrt::cuda::rawStream();
    checkDnn(cudnn().cudnnCreate(&h), "initializing cuDNN");
    checkDnn(cudnn().cudnnSetStream(h, s), "initializing cuDNN");
  }
  return h;
}

} // namespace

void tflrt::cuda::startCudnn() { handle(); }

namespace {

/// An element type cuDNN convolves: f32, or bf16 and f16 on tensor cores
/// (f32 accumulation).
struct Dtype {
  cudnnDataType_t type;
  size_t bytes;
};
constexpr Dtype kF32 = {CUDNN_DATA_FLOAT, 4};
constexpr Dtype kBf16 = {CUDNN_DATA_BFLOAT16, 2};
constexpr Dtype kF16 = {CUDNN_DATA_HALF, 2};

/// An NHWC memref of rank 4: its dims and strides, and its first element.
struct Nhwc {
  int n, h, w, c;
  int sn, sh, sw, sc;
  char *data;
};

Nhwc nhwc(void *desc, const Dtype &dt) {
  MemrefDesc *d = descOf(desc);
  const int64_t *s = d->dims, *st = d->dims + 4;
  return {static_cast<int>(s[0]),
          static_cast<int>(s[1]),
          static_cast<int>(s[2]),
          static_cast<int>(s[3]),
          static_cast<int>(st[0]),
          static_cast<int>(st[1]),
          static_cast<int>(st[2]),
          static_cast<int>(st[3]),
          d->aligned + d->offset * static_cast<int64_t>(dt.bytes)};
}

/// A tensor descriptor of an NHWC view (cuDNN's dims are N, C, H, W).
cudnnTensorDescriptor_t tensorDesc(const Nhwc &v, const Dtype &dt) {
  cudnnTensorDescriptor_t t;
  checkDnn(cudnn().cudnnCreateTensorDescriptor(&t), "a tensor descriptor");
  checkDnn(cudnn().cudnnSetTensor4dDescriptorEx(t, dt.type, v.n, v.c, v.h, v.w,
                                                v.sn, v.sc, v.sh, v.sw),
           "a tensor descriptor");
  return t;
}

/// The HWIO filter (dims H, W, I, O) as a strided tensor with dims
/// (O, I, H, W), and the dense KRSC tensor cuDNN's NHWC filters are.
cudnnTensorDescriptor_t hwioDesc(const Nhwc &f, const Dtype &dt) {
  cudnnTensorDescriptor_t t;
  checkDnn(cudnn().cudnnCreateTensorDescriptor(&t), "a filter descriptor");
  checkDnn(cudnn().cudnnSetTensor4dDescriptorEx(t, dt.type, f.c, f.w, f.n, f.h,
                                                f.sc, f.sw, f.sn, f.sh),
           "a filter descriptor");
  return t;
}

cudnnTensorDescriptor_t krscDesc(const Nhwc &f, const Dtype &dt) {
  cudnnTensorDescriptor_t t;
  checkDnn(cudnn().cudnnCreateTensorDescriptor(&t), "a filter descriptor");
  checkDnn(cudnn().cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, dt.type,
                                              f.c, f.w, f.n, f.h),
           "a filter descriptor");
  return t;
}

enum class Kind { Forward, BackwardData, BackwardFilter };

/// One convolution shape's descriptors, algorithm and workspace size.
struct Plan {
  cudnnTensorDescriptor_t x, y, hwio, krsc;
  cudnnFilterDescriptor_t filter;
  cudnnConvolutionDescriptor_t conv;
  int algo = 0;
  size_t workspace = 0;
  size_t filterBytes = 0;
};

template <typename Perf, typename Get>
int firstAlgorithm(Get get, const char *what) {
  Perf perf[16];
  int count = 0;
  checkDnn(get(16, &count, perf), what);
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS)
      return static_cast<int>(perf[i].algo);
  fail(std::string("cuDNN has no algorithm for this ") + what);
}

/// The plan for convolving `x` (NHWC) with filter `f` (HWIO) into `y`, of
/// element type `dt`. 16-bit convolutions run on tensor cores; f32 ones
/// in f32 unless TF32 is allowed.
Plan &plan(Kind kind, const Nhwc &x, const Nhwc &f, const Nhwc &y,
           const int64_t window[6], const Dtype &dt) {
  static std::map<std::vector<int64_t>, std::unique_ptr<Plan>> plans;
  std::vector<int64_t> key = {static_cast<int64_t>(kind),
                              static_cast<int64_t>(dt.type)};
  for (const Nhwc *v : {&x, &f, &y})
    key.insert(key.end(), {v->n, v->h, v->w, v->c, v->sn, v->sh, v->sw, v->sc});
  key.insert(key.end(), window, window + 6);
  std::unique_ptr<Plan> &slot = plans[key];
  if (slot)
    return *slot;
  slot = std::make_unique<Plan>();
  Plan &p = *slot;
  p.x = tensorDesc(x, dt);
  p.y = tensorDesc(y, dt);
  p.hwio = hwioDesc(f, dt);
  p.krsc = krscDesc(f, dt);
  p.filterBytes = dt.bytes * f.n * f.h * f.w * f.c;
  checkDnn(cudnn().cudnnCreateFilterDescriptor(&p.filter),
           "a filter descriptor");
  checkDnn(cudnn().cudnnSetFilter4dDescriptor(
               p.filter, dt.type, CUDNN_TENSOR_NHWC, f.c, f.w, f.n, f.h),
           "a filter descriptor");
  checkDnn(cudnn().cudnnCreateConvolutionDescriptor(&p.conv), "a convolution");
  checkDnn(cudnn().cudnnSetConvolution2dDescriptor(
               p.conv, static_cast<int>(window[2]), static_cast<int>(window[4]),
               static_cast<int>(window[0]), static_cast<int>(window[1]), 1, 1,
               CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
           "a convolution");
  bool tensorCores = dt.type != CUDNN_DATA_FLOAT || tflrt_cuda_tf32_allowed();
  checkDnn(cudnn().cudnnSetConvolutionMathType(
               p.conv, tensorCores ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
           "a convolution");
  cudnnHandle_t h = handle();
  switch (kind) {
  case Kind::Forward:
    p.algo = firstAlgorithm<cudnnConvolutionFwdAlgoPerf_t>(
        [&](int n, int *count, cudnnConvolutionFwdAlgoPerf_t *perf) {
          return cudnn().cudnnGetConvolutionForwardAlgorithm_v7(
              h, p.x, p.filter, p.conv, p.y, n, count, perf);
        },
        "convolution");
    checkDnn(cudnn().cudnnGetConvolutionForwardWorkspaceSize(
                 h, p.x, p.filter, p.conv, p.y,
                 static_cast<cudnnConvolutionFwdAlgo_t>(p.algo), &p.workspace),
             "convolution");
    break;
  case Kind::BackwardData:
    p.algo = firstAlgorithm<cudnnConvolutionBwdDataAlgoPerf_t>(
        [&](int n, int *count, cudnnConvolutionBwdDataAlgoPerf_t *perf) {
          return cudnn().cudnnGetConvolutionBackwardDataAlgorithm_v7(
              h, p.filter, p.y, p.conv, p.x, n, count, perf);
        },
        "convolution's input gradient");
    checkDnn(cudnn().cudnnGetConvolutionBackwardDataWorkspaceSize(
                 h, p.filter, p.y, p.conv, p.x,
                 static_cast<cudnnConvolutionBwdDataAlgo_t>(p.algo),
                 &p.workspace),
             "convolution's input gradient");
    break;
  case Kind::BackwardFilter:
    p.algo = firstAlgorithm<cudnnConvolutionBwdFilterAlgoPerf_t>(
        [&](int n, int *count, cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
          return cudnn().cudnnGetConvolutionBackwardFilterAlgorithm_v7(
              h, p.x, p.y, p.conv, p.filter, n, count, perf);
        },
        "convolution's filter gradient");
    checkDnn(cudnn().cudnnGetConvolutionBackwardFilterWorkspaceSize(
                 h, p.x, p.y, p.conv, p.filter,
                 static_cast<cudnnConvolutionBwdFilterAlgo_t>(p.algo),
                 &p.workspace),
             "convolution's filter gradient");
    break;
  }
  return p;
}

/// Queues a planned convolution's cuDNN calls (`run`), which use the
/// scratch blocks allocated for it now; they are keyed by the plan (the
/// shapes) and every buffer.
template <typename Run>
void issue(const Plan &p, const Nhwc &a, const Nhwc &b, const Nhwc &out,
           const Scratch &filter, const Scratch &workspace, Run run) {
  std::string key = tflrt::cuda::Key()
                        .add(&p)
                        .add(a.data)
                        .add(b.data)
                        .add(out.data)
                        .add(filter.ptr)
                        .add(workspace.ptr)
                        .str();
  tflrt::cuda::libraryCall("cuDNN convolution", std::move(key), std::move(run));
}

bool symmetric(const int64_t window[6]) {
  return window[2] == window[3] && window[4] == window[5];
}

bool empty(const Nhwc &v) {
  return v.n == 0 || v.h == 0 || v.w == 0 || v.c == 0;
}

const float kOne = 1.0f, kZero = 0.0f;

/// Copies a filter between its HWIO layout and cuDNN's KRSC.
void reorder(cudnnHandle_t h, cudnnTensorDescriptor_t fromDesc,
             const void *from, cudnnTensorDescriptor_t toDesc, void *to) {
  checkDnn(cudnn().cudnnTransformTensor(h, &kOne, fromDesc, from, &kZero,
                                        toDesc, to),
           "conv2d's filter reorder");
}

/// A libtflrt convolution entry point (two tensors in, one out, window).
using StagedConv = void (*)(int64_t, void *, int64_t, void *, int64_t, void *,
                            int64_t, int64_t, int64_t, int64_t, int64_t,
                            int64_t);

/// What every convolution entry point does before its cuDNN call: a window
/// cuDNN cannot pad runs `staged` on the host (f32 only: a 16-bit
/// convolution with such a window is compiled as an f32 one, on copies);
/// an empty output needs nothing, and an empty input gives zeros; else
/// `run(a, b, out)`.
template <typename Run>
void convolve(StagedConv staged, const Dtype &dt, int64_t rankA, void *a,
              int64_t rankB, void *b, int64_t rankOut, void *out,
              const int64_t window[6], const char *what, Run run) {
  if (!symmetric(window)) {
    if (!staged)
      fail(std::string(what) + ": a 16-bit convolution with uneven padding "
                               "(internal error: it should run in f32)");
    return staged(rankA, a, rankB, b, rankOut, out, window[0], window[1],
                  window[2], window[3], window[4], window[5]);
  }
  Nhwc va = nhwc(a, dt), vb = nhwc(b, dt), vo = nhwc(out, dt);
  if (empty(vo))
    return;
  if (empty(va) || empty(vb)) {
    size_t bytes = dt.bytes * vo.n * vo.h * vo.w * vo.c;
    tflrt::cuda::check(
        cudaMemsetAsync(vo.data, 0, bytes, tflrt::cuda::stream()), what);
    return;
  }
  run(va, vb, vo);
}

void forward(StagedConv staged, const Dtype &dt, int64_t rankX, void *x,
             int64_t rankW, void *w, int64_t rankOut, void *out,
             const int64_t window[6]) {
  convolve(staged, dt, rankX, x, rankW, w, rankOut, out, window, "conv2d",
           [&](const Nhwc &x, const Nhwc &w, const Nhwc &y) {
             Plan &p = plan(Kind::Forward, x, w, y, window, dt);
             Scratch filter(p.filterBytes), workspace(p.workspace);
             issue(p, x, w, y, filter, workspace,
                   [&p, x, w, y, f = filter.ptr, ws = workspace.ptr] {
                     cudnnHandle_t h = handle();
                     reorder(h, p.hwio, w.data, p.krsc, f);
                     checkDnn(
                         cudnn().cudnnConvolutionForward(
                             h, &kOne, p.x, x.data, p.filter, f, p.conv,
                             static_cast<cudnnConvolutionFwdAlgo_t>(p.algo), ws,
                             p.workspace, &kZero, p.y, y.data),
                         "conv2d");
                   });
           });
}

void backwardInput(StagedConv staged, const Dtype &dt, int64_t rankDy, void *dy,
                   int64_t rankW, void *w, int64_t rankDx, void *dx,
                   const int64_t window[6]) {
  convolve(staged, dt, rankDy, dy, rankW, w, rankDx, dx, window,
           "conv2d's input gradient",
           [&](const Nhwc &dy, const Nhwc &w, const Nhwc &dx) {
             Plan &p = plan(Kind::BackwardData, dx, w, dy, window, dt);
             Scratch filter(p.filterBytes), workspace(p.workspace);
             issue(p, dy, w, dx, filter, workspace,
                   [&p, dy, w, dx, f = filter.ptr, ws = workspace.ptr] {
                     cudnnHandle_t h = handle();
                     reorder(h, p.hwio, w.data, p.krsc, f);
                     checkDnn(
                         cudnn().cudnnConvolutionBackwardData(
                             h, &kOne, p.filter, f, p.y, dy.data, p.conv,
                             static_cast<cudnnConvolutionBwdDataAlgo_t>(p.algo),
                             ws, p.workspace, &kZero, p.x, dx.data),
                         "conv2d's input gradient");
                   });
           });
}

void backwardFilter(StagedConv staged, const Dtype &dt, int64_t rankX, void *x,
                    int64_t rankDy, void *dy, int64_t rankDw, void *dw,
                    const int64_t window[6]) {
  convolve(staged, dt, rankX, x, rankDy, dy, rankDw, dw, window,
           "conv2d's filter gradient",
           [&](const Nhwc &x, const Nhwc &dy, const Nhwc &dw) {
             Plan &p = plan(Kind::BackwardFilter, x, dw, dy, window, dt);
             Scratch filter(p.filterBytes), workspace(p.workspace);
             issue(p, x, dy, dw, filter, workspace,
                   [&p, x, dy, dw, f = filter.ptr, ws = workspace.ptr] {
                     cudnnHandle_t h = handle();
                     checkDnn(cudnn().cudnnConvolutionBackwardFilter(
                                  h, &kOne, p.x, x.data, p.y, dy.data, p.conv,
                                  static_cast<cudnnConvolutionBwdFilterAlgo_t>(
                                      p.algo),
                                  ws, p.workspace, &kZero, p.filter, f),
                              "conv2d's filter gradient");
                     reorder(h, p.krsc, f, p.hwio, dw.data);
                   });
           });
}

} // namespace

extern "C" {

// The entry points: conv2d, its input gradient and its filter gradient, of
// f32, bf16 and f16 tensors (x or dy, w or dy, the result; the window:
// strides h, w, padding top, bottom, left, right).
#define TFLRT_CUDA_CONV(NAME, IMPL, STAGED, DTYPE)                             \
  void tflrt_cuda_##NAME(int64_t rankA, void *a, int64_t rankB, void *b,       \
                         int64_t rankOut, void *out, int64_t strideH,          \
                         int64_t strideW, int64_t padTop, int64_t padBottom,   \
                         int64_t padLeft, int64_t padRight) {                  \
    const int64_t window[6] = {strideH,   strideW, padTop,                     \
                               padBottom, padLeft, padRight};                  \
    IMPL(STAGED, DTYPE, rankA, a, rankB, b, rankOut, out, window);             \
  }
TFLRT_CUDA_CONV(conv2d_f32, forward, tflrt::cuda::staged_conv2d_f32, kF32)
TFLRT_CUDA_CONV(conv2d_backward_input_f32, backwardInput,
                tflrt::cuda::staged_conv2d_backward_input_f32, kF32)
TFLRT_CUDA_CONV(conv2d_backward_filter_f32, backwardFilter,
                tflrt::cuda::staged_conv2d_backward_filter_f32, kF32)
TFLRT_CUDA_CONV(conv2d_bf16, forward, nullptr, kBf16)
TFLRT_CUDA_CONV(conv2d_backward_input_bf16, backwardInput, nullptr, kBf16)
TFLRT_CUDA_CONV(conv2d_backward_filter_bf16, backwardFilter, nullptr, kBf16)
TFLRT_CUDA_CONV(conv2d_f16, forward, nullptr, kF16)
TFLRT_CUDA_CONV(conv2d_backward_input_f16, backwardInput, nullptr, kF16)
TFLRT_CUDA_CONV(conv2d_backward_filter_f16, backwardFilter, nullptr, kF16)
#undef TFLRT_CUDA_CONV

} // extern "C"
