//===- Conv.cpp - Convolution and pooling through oneDNN ------------------===//
//
// oneDNN (2.x API) describes tensors by logical NCHW dims plus strides, so
// an NHWC view with any strides maps to a memory descriptor without a copy:
// strides (n, c, h, w) = (s0, s3, s1, s2); an HWIO filter's logical OIHW
// strides are (s3, s2, s0, s1). Primitives are cached by their geometry.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Conv.h"

#include "ConvVectors.h"
#include "FewChannels.h"
#include "KernelChoice.h"
#include "Winograd.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace tflrt {

namespace {

using dnnl::memory;

/// A convolution primitive, with the filter in the layout it works in when
/// that is not the plain HWIO view's: oneDNN's fast direct kernels want a
/// blocked filter (its layout is left to oneDNN), so a filter is reordered
/// to it (forward, backward data) or from it (backward filter); filters are
/// small next to activations.
struct ConvPrimitive {
  dnnl::primitive primitive;
  std::optional<memory> blocked;
};

struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<std::vector<int64_t>, dnnl::primitive> cache;
  std::map<std::vector<int64_t>, ConvPrimitive> convs;
};

Context &context() {
  // Per thread (a library's exports run concurrently): oneDNN's streams
  // and this cache are not shared.
  thread_local Context c;
  return c;
}

memory::desc nhwc(const TensorView &v) {
  if (v.dtype != DType::F32 || v.rank() != 4)
    throw std::runtime_error("conv2d and pooling take f32 NHWC tensors");
  return memory::desc({v.shape[0], v.shape[3], v.shape[1], v.shape[2]},
                      memory::data_type::f32,
                      {v.strides[0], v.strides[3], v.strides[1], v.strides[2]});
}

memory::desc hwio(const TensorView &v) {
  return memory::desc({v.shape[3], v.shape[2], v.shape[0], v.shape[1]},
                      memory::data_type::f32,
                      {v.strides[3], v.strides[2], v.strides[0], v.strides[1]});
}

memory wrap(const memory::desc &md, const TensorView &v) {
  return memory(md, context().engine, const_cast<void *>(v.data));
}

/// A window's strides and its padding before and after, as oneDNN takes
/// them ((h, w) each).
memory::dims strides(const Window &w) { return {w.strides[0], w.strides[1]}; }
memory::dims padBefore(const Window &w) { return {w.padding[0], w.padding[2]}; }
memory::dims padAfter(const Window &w) { return {w.padding[1], w.padding[3]}; }

/// The cache key of a primitive: its kind and every dim, stride and
/// window parameter.
std::vector<int64_t> key(int64_t kind,
                         std::initializer_list<const TensorView *> views,
                         const Window &window,
                         std::array<int64_t, 2> size = {0, 0}) {
  std::vector<int64_t> k = {kind, size[0], size[1], window.strides[0],
                            window.strides[1]};
  k.insert(k.end(), window.padding.begin(), window.padding.end());
  for (const TensorView *v : views) {
    k.insert(k.end(), v->shape.begin(), v->shape.end());
    k.insert(k.end(), v->strides.begin(), v->strides.end());
  }
  return k;
}

bool empty(const TensorView &v) { return numElements(v.shape) == 0; }

/// The kernels of a convolution of `x` by `w` into `y` (or of one of its
/// adjoints): TFL's own for the stride-1 3x3 convolutions they take
/// (Winograd's with 16 or more channels each side, the few-channel ones
/// for one to four input channels, each for the passes it takes), where
/// they beat oneDNN's on this machine (KernelChoice.h), else oneDNN's
/// direct kernels.
enum class Kernels { OneDnn, Winograd, FewChannels };

/// TFL's kernel that takes the pass, if one does.
Kernels ownKernelsFor(const TensorView &x, const TensorView &w,
                      const TensorView &y, const Window &window,
                      winograd::Pass pass) {
  if (winograd::applies(x, w, y, window, pass))
    return Kernels::Winograd;
  if (fewchannels::applies(x, w, y, window, pass == winograd::Pass::Forward))
    return Kernels::FewChannels;
  return Kernels::OneDnn;
}

std::string dims(const TensorView &v) {
  std::string s = "[";
  for (size_t d = 0; d < v.shape.size(); ++d)
    s += (d ? "," : "") + std::to_string(v.shape[d]);
  return s + "]";
}

/// A pass and its shapes, as the kernel choice's cache keys it.
std::string describe(const char *pass, const TensorView &x, const TensorView &w,
                     const TensorView &y, const Window &window,
                     const char *extra) {
  return std::string("conv2d ") + pass + " x" + dims(x) + " w" + dims(w) +
         " y" + dims(y) + " strides " + std::to_string(window.strides[0]) +
         "," + std::to_string(window.strides[1]) + " padding " +
         std::to_string(window.padding[0]) + "," +
         std::to_string(window.padding[1]) + "," +
         std::to_string(window.padding[2]) + "," +
         std::to_string(window.padding[3]) + extra;
}

const char *kernelName(Kernels k) {
  return k == Kernels::Winograd ? "winograd" : "few-channel";
}

/// The filter's logical dims with the layout left to oneDNN.
memory::desc anyLayout(const memory::desc &plain) {
  return memory::desc(plain.dims(), memory::data_type::f32,
                      memory::format_tag::any);
}

/// The convolution primitive cached under `k`; the first time, `make`
/// builds it and names the filter layout it wants (`plain` is the filter's
/// own view).
template <typename Make>
ConvPrimitive &cachedConv(const std::vector<int64_t> &k,
                          const memory::desc &plain, Make make) {
  auto &convs = context().convs;
  auto it = convs.find(k);
  if (it == convs.end()) {
    auto [primitive, filter] = make();
    ConvPrimitive p{std::move(primitive), std::nullopt};
    if (filter != plain)
      p.blocked = memory(filter, context().engine);
    it = convs.emplace(k, std::move(p)).first;
  }
  return it->second;
}

/// The forward primitive descriptor of a convolution, with a bias when `bd`
/// describes one; backward ones are built from it.
dnnl::convolution_forward::primitive_desc
forwardDesc(dnnl::prop_kind kind, const memory::desc &xd,
            const memory::desc &wd, const memory::desc &od,
            const Window &window, const memory::desc *bd = nullptr) {
  auto d =
      bd ? dnnl::convolution_forward::desc(
               kind, dnnl::algorithm::convolution_direct, xd, anyLayout(wd),
               *bd, od, strides(window), padBefore(window), padAfter(window))
         : dnnl::convolution_forward::desc(
               kind, dnnl::algorithm::convolution_direct, xd, anyLayout(wd), od,
               strides(window), padBefore(window), padAfter(window));
  return dnnl::convolution_forward::primitive_desc(d, context().engine);
}

/// A bias's memory descriptor ([O], strided).
memory::desc biasDesc(const TensorView &bias) {
  return memory::desc({bias.shape[0]}, memory::data_type::f32,
                      {bias.strides[0]});
}

/// The filter `w` (plain view `wd`) as primitive `p` reads it.
memory filterFor(ConvPrimitive &p, const memory::desc &wd,
                 const TensorView &w) {
  memory plain = wrap(wd, w);
  if (!p.blocked)
    return plain;
  dnnl::reorder(plain, *p.blocked).execute(context().stream, plain, *p.blocked);
  return *p.blocked;
}

/// relu as compiled code computes it: max(v, +0.0), NaN kept (oneDNN's
/// relu post-op would make NaN 0).
inline float reluOf(float v) { return v > 0.0f || v != v ? v : 0.0f; }

/// relu over `n` contiguous floats (a loop GCC vectorizes).
void reluRun(float *__restrict p, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    p[k] = reluOf(p[k]);
}

/// relu over `out` in place, after oneDNN's kernels, a row of it at a time.
void reluInPlace(const TensorView &out) {
  int64_t width = out.shape[2], channels = out.shape[3];
  int64_t sn = out.strides[0], sh = out.strides[1], sw = out.strides[2],
          sc = out.strides[3];
  float *data = static_cast<float *>(const_cast<void *>(out.data));
  inParallel(out.shape[0] * out.shape[1], [&](int64_t lb, int64_t ub) {
    for (int64_t r = lb; r < ub; ++r) {
      float *row = data + (r / out.shape[1]) * sn + (r % out.shape[1]) * sh;
      if (sc == 1 && sw == channels) {
        reluRun(row, width * channels); // an NHWC buffer's row
        continue;
      }
      for (int64_t w = 0; w < width; ++w)
        for (int64_t k = 0; k < channels; ++k)
          row[w * sw + k * sc] = reluOf(row[w * sw + k * sc]);
    }
  });
}

void oneDnnForward(const TensorView &x, const TensorView &w,
                   const TensorView *bias, const TensorView &out,
                   const Window &window, bool relu) {
  Context &c = context();
  memory::desc xd = nhwc(x), wd = hwio(w), od = nhwc(out);
  std::vector<int64_t> k = bias ? key(5, {&x, &w, bias, &out}, window)
                                : key(0, {&x, &w, &out}, window);
  std::optional<memory::desc> bd;
  if (bias)
    bd = biasDesc(*bias);
  ConvPrimitive &p = cachedConv(k, wd, [&] {
    auto pd = forwardDesc(dnnl::prop_kind::forward_inference, xd, wd, od,
                          window, bd ? &*bd : nullptr);
    return std::pair<dnnl::primitive, memory::desc>(
        dnnl::convolution_forward(pd), pd.weights_desc());
  });
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, wrap(xd, x)},
      {DNNL_ARG_WEIGHTS, filterFor(p, wd, w)},
      {DNNL_ARG_DST, wrap(od, out)}};
  if (bias)
    args.emplace(DNNL_ARG_BIAS, wrap(*bd, *bias));
  p.primitive.execute(c.stream, args);
  c.stream.wait();
  if (relu)
    reluInPlace(out);
}

void oneDnnBackwardInput(const TensorView &dy, const TensorView &w,
                         const TensorView &dx, const Window &window) {
  Context &c = context();
  memory::desc yd = nhwc(dy), wd = hwio(w), xd = nhwc(dx);
  ConvPrimitive &p = cachedConv(key(3, {&dy, &w, &dx}, window), wd, [&] {
    dnnl::convolution_backward_data::desc d(
        dnnl::algorithm::convolution_direct, xd, anyLayout(wd), yd,
        strides(window), padBefore(window), padAfter(window));
    dnnl::convolution_backward_data::primitive_desc pd(
        d, c.engine,
        forwardDesc(dnnl::prop_kind::forward_training, xd, wd, yd, window));
    return std::pair<dnnl::primitive, memory::desc>(
        dnnl::convolution_backward_data(pd), pd.weights_desc());
  });
  p.primitive.execute(c.stream, {{DNNL_ARG_DIFF_DST, wrap(yd, dy)},
                                 {DNNL_ARG_WEIGHTS, filterFor(p, wd, w)},
                                 {DNNL_ARG_DIFF_SRC, wrap(xd, dx)}});
  c.stream.wait();
}

void oneDnnBackwardFilter(const TensorView &x, const TensorView &dy,
                          const TensorView &dw, const Window &window,
                          const TensorView *dbias) {
  Context &c = context();
  memory::desc xd = nhwc(x), yd = nhwc(dy), wd = hwio(dw);
  std::vector<int64_t> k = dbias ? key(6, {&x, &dy, &dw, dbias}, window)
                                 : key(4, {&x, &dy, &dw}, window);
  std::optional<memory::desc> bd;
  if (dbias)
    bd = biasDesc(*dbias);
  ConvPrimitive &p = cachedConv(k, wd, [&] {
    auto d =
        bd ? dnnl::convolution_backward_weights::desc(
                 dnnl::algorithm::convolution_direct, xd, anyLayout(wd), *bd,
                 yd, strides(window), padBefore(window), padAfter(window))
           : dnnl::convolution_backward_weights::desc(
                 dnnl::algorithm::convolution_direct, xd, anyLayout(wd), yd,
                 strides(window), padBefore(window), padAfter(window));
    // The hint outlives the iteration over implementations below.
    dnnl::convolution_forward::primitive_desc hint =
        forwardDesc(dnnl::prop_kind::forward_training, xd, wd, yd, window,
                    bd ? &*bd : nullptr);
    dnnl::convolution_backward_weights::primitive_desc pd(d, c.engine, hint);
    // oneDNN 2.6's 1x1 backward-weights kernels (jit_1x1) compute wrong,
    // run-to-run different filter gradients for strided 1x1 convolutions
    // on AVX2 machines: the next implementation oneDNN offers is used.
    bool strided = window.strides[0] > 1 || window.strides[1] > 1;
    while (strided &&
           std::string(pd.impl_info_str()).find("jit_1x1") != std::string::npos)
      if (!pd.next_impl())
        break;
    return std::pair<dnnl::primitive, memory::desc>(
        dnnl::convolution_backward_weights(pd), pd.diff_weights_desc());
  });
  memory plain = wrap(wd, dw);
  memory filter = p.blocked ? *p.blocked : plain;
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, wrap(xd, x)},
                                          {DNNL_ARG_DIFF_DST, wrap(yd, dy)},
                                          {DNNL_ARG_DIFF_WEIGHTS, filter}};
  if (dbias)
    args.emplace(DNNL_ARG_DIFF_BIAS, wrap(*bd, *dbias));
  p.primitive.execute(c.stream, args);
  if (p.blocked)
    dnnl::reorder(filter, plain).execute(c.stream, filter, plain);
  c.stream.wait();
}

/// A pass (its name's first letter and its options) and its shapes and
/// window as numbers: what `describe` spells out (KernelChoice.h's key).
KernelKey keyOf(char pass, int64_t options, const TensorView &x,
                const TensorView &w, const TensorView &y,
                const Window &window) {
  KernelKey k{pass, options};
  size_t i = 2;
  for (const TensorView *v : {&x, &w, &y})
    for (int64_t d = 0; d < 4; ++d)
      k[i++] = v->shape[d];
  for (int64_t stride : window.strides)
    k[i++] = stride;
  for (int64_t pad : window.padding)
    k[i++] = pad;
  return k;
}

/// Runs a pass on TFL's kernel `own` (`runOwn`) where one takes it and it
/// measures faster than oneDNN's on this machine (KernelChoice.h), else on
/// oneDNN's (`runOneDnn`); `key` and `what()` name the pass and its shapes.
template <typename What, typename Own, typename OneDnn>
void runFaster(Kernels own, const KernelKey &key, What what, Own runOwn,
               OneDnn runOneDnn) {
  if (own != Kernels::OneDnn) {
    std::optional<bool> known = knownKernelChoice(key);
    if (known ? *known
              : tflKernelWins(key, what(), kernelName(own), runOwn, runOneDnn))
      return runOwn();
  }
  runOneDnn();
}

/// A convolution over no input channels (the one way an empty x or w
/// makes a non-empty output): every sum is empty, so each output is its
/// channel's bias (or 0), relu'd if asked, as the sums over K = 0 of a
/// product are.
void withoutInputChannels(const TensorView *bias, const TensorView &out,
                          bool relu) {
  float *data = static_cast<float *>(const_cast<void *>(out.data));
  const float *b = bias ? static_cast<const float *>(bias->data) : nullptr;
  for (int64_t n = 0; n < out.shape[0]; ++n)
    for (int64_t h = 0; h < out.shape[1]; ++h)
      for (int64_t w = 0; w < out.shape[2]; ++w)
        for (int64_t k = 0; k < out.shape[3]; ++k) {
          float v = b ? b[k * bias->strides[0]] : 0.0f;
          data[n * out.strides[0] + h * out.strides[1] + w * out.strides[2] +
               k * out.strides[3]] = relu ? reluOf(v) : v;
        }
}

/// dbias = the sum of dy over its batch and positions, in that order: the
/// bias's gradient where the filter's is empty (no input channels).
void biasGradient(const TensorView &dy, const TensorView &dbias) {
  float *db = static_cast<float *>(const_cast<void *>(dbias.data));
  const float *g = static_cast<const float *>(dy.data);
  for (int64_t k = 0; k < dy.shape[3]; ++k) {
    float sum = 0.0f;
    for (int64_t n = 0; n < dy.shape[0]; ++n)
      for (int64_t h = 0; h < dy.shape[1]; ++h)
        for (int64_t w = 0; w < dy.shape[2]; ++w)
          sum += g[n * dy.strides[0] + h * dy.strides[1] + w * dy.strides[2] +
                   k * dy.strides[3]];
    db[k * dbias.strides[0]] = sum;
  }
}

void forward(const TensorView &x, const TensorView &w, const TensorView *bias,
             const TensorView &out, const Window &window, bool relu = false) {
  if (empty(out))
    return;
  if (empty(x) || empty(w))
    return withoutInputChannels(bias, out, relu);
  Kernels own = ownKernelsFor(x, w, out, window, winograd::Pass::Forward);
  runFaster(
      own, keyOf('f', (bias ? 1 : 0) + (relu ? 2 : 0), x, w, out, window),
      [&] {
        return describe("forward", x, w, out, window,
                        bias ? (relu ? " +bias +relu" : " +bias") : "");
      },
      [&] {
        if (own == Kernels::Winograd)
          winograd::forward(x, w, bias, out, window, relu);
        else
          fewchannels::forward(x, w, bias, out, window, relu);
      },
      [&] { oneDnnForward(x, w, bias, out, window, relu); });
}

} // namespace

void conv2d(const TensorView &x, const TensorView &w, const TensorView &out,
            const Window &window) {
  forward(x, w, nullptr, out, window);
}

void conv2dBias(const TensorView &x, const TensorView &w,
                const TensorView &bias, const TensorView &out,
                const Window &window) {
  forward(x, w, &bias, out, window);
}

void conv2dBiasRelu(const TensorView &x, const TensorView &w,
                    const TensorView &bias, const TensorView &out,
                    const Window &window) {
  forward(x, w, &bias, out, window, /*relu=*/true);
}

void conv2dBackwardInput(const TensorView &dy, const TensorView &w,
                         const TensorView &dx, const Window &window) {
  if (empty(dx))
    return;
  if (empty(dy) || empty(w)) {
    std::memset(const_cast<void *>(dx.data), 0,
                numElements(dx.shape) * sizeof(float));
    return;
  }
  // Only the Winograd kernels take an input's gradient.
  runFaster(
      ownKernelsFor(dx, w, dy, window, winograd::Pass::Input),
      keyOf('i', 0, dx, w, dy, window),
      [&] { return describe("input gradient", dx, w, dy, window, ""); },
      [&] { winograd::backwardInput(dy, w, dx, window); },
      [&] { oneDnnBackwardInput(dy, w, dx, window); });
}

void conv2dBackwardFilter(const TensorView &x, const TensorView &dy,
                          const TensorView &dw, const Window &window,
                          const TensorView *dbias) {
  if (dbias && empty(dy))
    std::memset(const_cast<void *>(dbias->data), 0,
                numElements(dbias->shape) * sizeof(float));
  else if (dbias && empty(x))
    biasGradient(dy, *dbias); // no input channels
  if (empty(dw))
    return;
  if (empty(dy) || empty(x)) {
    std::memset(const_cast<void *>(dw.data), 0,
                numElements(dw.shape) * sizeof(float));
    return;
  }
  Kernels own = ownKernelsFor(x, dw, dy, window, winograd::Pass::Filter);
  runFaster(
      own, keyOf('w', dbias ? 1 : 0, x, dw, dy, window),
      [&] {
        return describe("filter gradient", x, dw, dy, window,
                        dbias ? " +bias" : "");
      },
      [&] {
        if (own == Kernels::Winograd)
          winograd::backwardFilter(x, dy, dw, window, dbias);
        else
          fewchannels::backwardFilter(x, dy, dw, window, dbias);
      },
      [&] { oneDnnBackwardFilter(x, dy, dw, window, dbias); });
}

void pool2d(PoolKind kind, const TensorView &x, const TensorView &out,
            std::array<int64_t, 2> size, const Window &window) {
  if (empty(out))
    return;
  Context &c = context();
  memory::desc xd = nhwc(x), od = nhwc(out);
  std::vector<int64_t> k =
      key(kind == PoolKind::Max ? 1 : 2, {&x, &out}, window, size);
  auto it = c.cache.find(k);
  if (it == c.cache.end()) {
    dnnl::pooling_forward::desc d(
        dnnl::prop_kind::forward_inference,
        kind == PoolKind::Max ? dnnl::algorithm::pooling_max
                              : dnnl::algorithm::pooling_avg_exclude_padding,
        xd, od, strides(window), {size[0], size[1]}, padBefore(window),
        padAfter(window));
    dnnl::pooling_forward::primitive_desc pd(d, c.engine);
    it = c.cache.emplace(k, dnnl::pooling_forward(pd)).first;
  }
  it->second.execute(
      c.stream, {{DNNL_ARG_SRC, wrap(xd, x)}, {DNNL_ARG_DST, wrap(od, out)}});
  c.stream.wait();
}

namespace {

float &at(const TensorView &v, int64_t n, int64_t h, int64_t w, int64_t c) {
  auto *base = static_cast<float *>(const_cast<void *>(v.data));
  return base[n * v.strides[0] + h * v.strides[1] + w * v.strides[2] +
              c * v.strides[3]];
}

/// Calls `visit(n, i, j, c, h0, h1, w0, w1)` for each window of a pooling
/// of `x` into `out`: its unpadded rows [h0, h1) and columns [w0, w1).
template <typename Visit>
void forEachWindow(const TensorView &x, const TensorView &out,
                   std::array<int64_t, 2> size, const Window &window,
                   Visit visit) {
  int64_t height = x.shape[1], width = x.shape[2];
  for (int64_t n = 0; n < out.shape[0]; ++n)
    for (int64_t i = 0; i < out.shape[1]; ++i)
      for (int64_t j = 0; j < out.shape[2]; ++j)
        for (int64_t c = 0; c < out.shape[3]; ++c) {
          int64_t h0 = i * window.strides[0] - window.padding[0];
          int64_t w0 = j * window.strides[1] - window.padding[2];
          int64_t h1 = std::min(h0 + size[0], height);
          int64_t w1 = std::min(w0 + size[1], width);
          visit(n, i, j, c, std::max<int64_t>(h0, 0), h1,
                std::max<int64_t>(w0, 0), w1);
        }
}

/// The row and column of the first maximum of `x` in a window.
std::pair<int64_t, int64_t> firstMax(const TensorView &x, int64_t n, int64_t c,
                                     int64_t h0, int64_t h1, int64_t w0,
                                     int64_t w1) {
  int64_t bh = h0, bw = w0;
  for (int64_t h = h0; h < h1; ++h)
    for (int64_t w = w0; w < w1; ++w)
      if (at(x, n, h, w, c) > at(x, n, bh, bw, c))
        bh = h, bw = w;
  return {bh, bw};
}

} // namespace

void pool2dBackward(PoolKind kind, const TensorView &x, const TensorView &dy,
                    const TensorView &dx, std::array<int64_t, 2> size,
                    const Window &window) {
  for (int64_t n = 0; n < dx.shape[0]; ++n)
    for (int64_t h = 0; h < dx.shape[1]; ++h)
      for (int64_t w = 0; w < dx.shape[2]; ++w)
        for (int64_t c = 0; c < dx.shape[3]; ++c)
          at(dx, n, h, w, c) = 0.0f;
  forEachWindow(x, dy, size, window,
                [&](int64_t n, int64_t i, int64_t j, int64_t c, int64_t h0,
                    int64_t h1, int64_t w0, int64_t w1) {
                  float g = at(dy, n, i, j, c);
                  if (kind == PoolKind::Avg) {
                    float share = g / static_cast<float>((h1 - h0) * (w1 - w0));
                    for (int64_t h = h0; h < h1; ++h)
                      for (int64_t w = w0; w < w1; ++w)
                        at(dx, n, h, w, c) += share;
                    return;
                  }
                  auto [bh, bw] = firstMax(x, n, c, h0, h1, w0, w1);
                  at(dx, n, bh, bw, c) += g;
                });
}

void maxPool2dGather(const TensorView &x, const TensorView &g,
                     const TensorView &out, std::array<int64_t, 2> size,
                     const Window &window) {
  forEachWindow(x, out, size, window,
                [&](int64_t n, int64_t i, int64_t j, int64_t c, int64_t h0,
                    int64_t h1, int64_t w0, int64_t w1) {
                  auto [bh, bw] = firstMax(x, n, c, h0, h1, w0, w1);
                  at(out, n, i, j, c) = at(g, n, bh, bw, c);
                });
}

} // namespace tflrt
