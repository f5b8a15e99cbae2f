//===- Kernels.cpp - Tensor kernels of libtflrt ---------------------------===//
//
// Broadcasting elementwise kernels (templated per dtype) and matmul on BLAS.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include "VectorMath.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tflrt {

std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

/// Strides of `shape` read as if broadcast to `outShape` (0 on broadcast
/// dims), in elements.
Shape broadcastStrides(const Shape &shape, const Shape &outShape) {
  Shape strides = contiguousStrides(shape);
  Shape out(outShape.size(), 0);
  size_t lead = outShape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    out[lead + i] = shape[i] == 1 ? 0 : strides[i];
  return out;
}

/// A walk over an elementwise op's output (contiguous, row-major) whose
/// N operands are read through element strides (0 where broadcast). Dims
/// are merged where every operand continues across them as one stride (or
/// stays broadcast), so that the innermost dim, which the kernels' inner
/// loops run along, is as long as it can be; dims of size 1 drop out.
template <size_t N> struct Walk {
  Shape shape; // the merged dims, innermost last (at least one)
  std::array<Shape, N> strides;

  Walk(const Shape &outShape, const std::array<const Shape *, N> &in) {
    for (size_t d = 0; d < outShape.size(); ++d) {
      if (outShape[d] == 1)
        continue;
      bool merge = !shape.empty();
      for (size_t k = 0; k < N && merge; ++k)
        merge = strides[k].back() == (*in[k])[d] * outShape[d];
      if (merge)
        shape.back() *= outShape[d];
      else
        shape.push_back(outShape[d]);
      for (size_t k = 0; k < N; ++k) {
        if (merge)
          strides[k].back() = (*in[k])[d];
        else
          strides[k].push_back((*in[k])[d]);
      }
    }
    if (shape.empty()) {
      shape.push_back(1);
      for (Shape &st : strides)
        st.push_back(0);
    }
  }

  /// The innermost stride of operand k.
  int64_t step(size_t k) const { return strides[k].back(); }

  /// Calls span(offsets, at, len) for the output elements [begin, end),
  /// one call per run along the innermost dim: the operands' element
  /// offsets where the run starts, its first output element and length.
  template <typename Span>
  void run(int64_t begin, int64_t end, Span &&span) const {
    int64_t inner = shape.back();
    int64_t row = begin / inner, col = begin % inner;
    std::array<int64_t, N> off;
    while (begin < end) {
      off.fill(0);
      int64_t r = row;
      for (size_t d = shape.size() - 1; d-- > 0;) {
        int64_t i = r % shape[d];
        r /= shape[d];
        for (size_t k = 0; k < N; ++k)
          off[k] += i * strides[k][d];
      }
      for (size_t k = 0; k < N; ++k)
        off[k] += col * step(k);
      int64_t len = std::min(inner - col, end - begin);
      span(off, begin, len);
      begin += len;
      ++row;
      col = 0;
    }
  }
};

/// Elementwise work below this many elements stays on the calling thread.
constexpr int64_t kParallelGrain = int64_t(1) << 15;

/// fn(W()) with W the unsigned word of `elem` bytes (1, 2, 4 or 8): the
/// kernels that only move elements move them as words.
template <typename Fn> void byWord(size_t elem, Fn &&fn) {
  switch (elem) {
  case 1:
    return fn(uint8_t());
  case 2:
    return fn(uint16_t());
  case 4:
    return fn(uint32_t());
  default:
    return fn(uint64_t());
  }
}

/// c = op(a, b) elementwise over outShape, a and b read through strides sa
/// and sb (0 where broadcast), c contiguous: runs along the innermost dim,
/// specialized for contiguous and broadcast operands so that the compiler
/// vectorizes them, split among the cores when large.
template <typename T, typename R, typename Op>
void binaryLoop(const T *a, const T *b, R *c, const Shape &outShape,
                const Shape &sa, const Shape &sb, Op op) {
  Walk<2> walk(outShape, {&sa, &sb});
  int64_t ia = walk.step(0), ib = walk.step(1);
  parallelFor(numElements(outShape), kParallelGrain,
              [&](int64_t begin, int64_t end) {
                walk.run(begin, end,
                         [&](const std::array<int64_t, 2> &off, int64_t at,
                             int64_t len) {
                           const T *x = a + off[0], *y = b + off[1];
                           R *z = c + at;
                           if (ia == 1 && ib == 1) {
                             for (int64_t i = 0; i < len; ++i)
                               z[i] = op(x[i], y[i]);
                           } else if (ia == 1 && ib == 0) {
                             T v = *y;
                             for (int64_t i = 0; i < len; ++i)
                               z[i] = op(x[i], v);
                           } else if (ia == 0 && ib == 1) {
                             T u = *x;
                             for (int64_t i = 0; i < len; ++i)
                               z[i] = op(u, y[i]);
                           } else {
                             for (int64_t i = 0; i < len; ++i)
                               z[i] = op(x[i * ia], y[i * ib]);
                           }
                         });
              });
}

} // namespace

double ieeeMaximum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<double>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}

double ieeeMinimum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<double>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

namespace {

template <typename T> T maximumOf(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(ieeeMaximum(x, y));
  else
    return x > y ? x : y;
}

template <typename T> T minimumOf(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(ieeeMinimum(x, y));
  else
    return x < y ? x : y;
}

/// Python's `//`, `%` and `**` on one element type.
template <typename T> T floorDiv(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::floor(x / y);
  } else {
    if (y == 0)
      return 0;
    T q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? T(q - 1) : q;
  }
}

template <typename T> T pyMod(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(x, y);
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
  } else {
    if (y == 0)
      return 0;
    T r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? T(r + y) : r;
  }
}

template <typename T> T power(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(x, y);
  } else {
    if (y < 0)
      return x == 1 ? 1 : (x == T(-1) ? ((y % 2) ? T(-1) : 1) : 0);
    // Products wrap around, as NumPy's and compiled code's do: computed
    // unsigned (a signed overflow is undefined in C++).
    using U = std::make_unsigned_t<T>;
    U result = 1, base = static_cast<U>(x);
    for (; y > 0; y >>= 1, base = static_cast<U>(base * base))
      if (y & 1)
        result = static_cast<U>(result * base);
    return static_cast<T>(result);
  }
}

template <typename T>
void binaryTyped(BinaryKind kind, const Tensor &a, const Tensor &b,
                 Tensor &out) {
  Shape sa = broadcastStrides(a.shape(), out.shape());
  Shape sb = broadcastStrides(b.shape(), out.shape());
  const T *pa = a.data<T>(), *pb = b.data<T>();
  T *pc = out.data<T>();
  switch (kind) {
  case BinaryKind::Add:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb,
                      [](T x, T y) { return T(x + y); });
  case BinaryKind::Sub:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb,
                      [](T x, T y) { return T(x - y); });
  case BinaryKind::Mul:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb,
                      [](T x, T y) { return T(x * y); });
  case BinaryKind::Div:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb,
                      [](T x, T y) { return T(x / y); });
  case BinaryKind::FloorDiv:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb, floorDiv<T>);
  case BinaryKind::Mod:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb, pyMod<T>);
  case BinaryKind::Pow:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb, power<T>);
  case BinaryKind::Maximum:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb, maximumOf<T>);
  case BinaryKind::Minimum:
    return binaryLoop(pa, pb, pc, out.shape(), sa, sb, minimumOf<T>);
  }
}

template <typename Fn> void dispatchNumeric(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(float());
  case DType::F64:
    return fn(double());
  case DType::I32:
    return fn(int32_t());
  case DType::I64:
    return fn(int64_t());
  case DType::U8:
  case DType::Bool:
    return fn(uint8_t());
  case DType::BF16:
  case DType::F16:
    // The 16-bit floats compute in f32: callers widen them first.
    throw std::logic_error(std::string("no kernel computes in ") +
                           dtypeName(dtype));
  }
}

} // namespace

Tensor binary(BinaryKind kind, const Tensor &a, const Tensor &b) {
  std::optional<Shape> shape = broadcastShapes(a.shape(), b.shape());
  if (!shape)
    throw std::runtime_error("cannot broadcast shapes " +
                             shapeToString(a.shape()) + " and " +
                             shapeToString(b.shape()));
  Tensor out = Tensor::uninitialized(a.dtype(), *shape);
  dispatchNumeric(a.dtype(), [&](auto tag) {
    binaryTyped<decltype(tag)>(kind, a, b, out);
  });
  return out;
}

Tensor compare(CompareKind kind, const Tensor &a, const Tensor &b) {
  std::optional<Shape> shape = broadcastShapes(a.shape(), b.shape());
  if (!shape)
    throw std::runtime_error("cannot broadcast shapes " +
                             shapeToString(a.shape()) + " and " +
                             shapeToString(b.shape()));
  Tensor out = Tensor::uninitialized(DType::Bool, *shape);
  dispatchNumeric(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Shape sa = broadcastStrides(a.shape(), *shape);
    Shape sb = broadcastStrides(b.shape(), *shape);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    uint8_t *pc = out.data<uint8_t>();
    auto run = [&](auto op) { binaryLoop(pa, pb, pc, *shape, sa, sb, op); };
    switch (kind) {
    case CompareKind::Lt:
      return run([](T x, T y) -> uint8_t { return x < y; });
    case CompareKind::Le:
      return run([](T x, T y) -> uint8_t { return x <= y; });
    case CompareKind::Gt:
      return run([](T x, T y) -> uint8_t { return x > y; });
    case CompareKind::Ge:
      return run([](T x, T y) -> uint8_t { return x >= y; });
    case CompareKind::Eq:
      return run([](T x, T y) -> uint8_t { return x == y; });
    case CompareKind::Ne:
      return run([](T x, T y) -> uint8_t { return x != y; });
    }
  });
  return out;
}

Tensor logicalNot(const Tensor &a) {
  Tensor out(DType::Bool, a.shape());
  const uint8_t *pa = a.data<uint8_t>();
  uint8_t *pc = out.data<uint8_t>();
  for (int64_t i = 0, n = a.numElements(); i < n; ++i)
    pc[i] = !pa[i];
  return out;
}

namespace {

/// One element of a unary kind. Float formulas match the compiled code's
/// lowering (TflToLinalg/Elementwise.cpp) operation for operation.
template <typename T> T unaryOf(UnaryKind kind, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (kind) {
    case UnaryKind::Exp:
      // Below these, exp rounds to +0 (libm's too, through its slow
      // underflow path: softmax's masked -1e30 scores take it often).
      if (x < (std::is_same_v<T, float> ? T(-104) : T(-746)))
        return T(0);
      return std::exp(x);
    case UnaryKind::Log:
      return std::log(x);
    case UnaryKind::Log1p:
      return std::log1p(x);
    case UnaryKind::Expm1:
      return std::expm1(x);
    case UnaryKind::Erf:
      return std::erf(x);
    case UnaryKind::Sqrt:
      return std::sqrt(x);
    case UnaryKind::Rsqrt:
      return T(1) / std::sqrt(x);
    case UnaryKind::Tanh:
      return std::tanh(x);
    case UnaryKind::Sigmoid:
      return T(1) / (T(1) + std::exp(-x));
    case UnaryKind::Sin:
      return std::sin(x);
    case UnaryKind::Cos:
      return std::cos(x);
    case UnaryKind::Floor:
      return std::floor(x);
    case UnaryKind::Round:
      return std::nearbyint(x);
    case UnaryKind::Abs:
      return std::fabs(x);
    default:
      break;
    }
  } else {
    if (kind == UnaryKind::Abs)
      return x < 0 ? T(-x) : x;
  }
  switch (kind) {
  case UnaryKind::Neg:
    return T(-x);
  case UnaryKind::Sign:
    return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
  case UnaryKind::Square:
    return T(x * x);
  case UnaryKind::Relu:
    return maximumOf<T>(x, T(0));
  default:
    throw std::runtime_error("a float-only function on integers");
  }
}

} // namespace

namespace {

/// pc[i] = kind(pa[i]) for i < n, split among the cores. The switch on the
/// kind is outside the loop, so each kind's loop is its own (vectorized
/// where its formula allows); exp, erf and sigmoid of f32 run VectorMath's
/// eight-lane kernels.
template <typename T>
void unaryLoop(UnaryKind kind, const T *pa, T *pc, int64_t n) {
  auto each = [&](auto fn) {
    parallelFor(n, kParallelGrain, [&](int64_t begin, int64_t end) {
      fn(pa + begin, pc + begin, end - begin);
    });
  };
  if constexpr (std::is_same_v<T, float>) {
    if (kind == UnaryKind::Exp)
      return each(expF32);
    if (kind == UnaryKind::Erf)
      return each(erfF32);
    if (kind == UnaryKind::Sigmoid)
      return each(sigmoidF32);
  }
  auto loop = [&](auto k) {
    each([](const T *x, T *y, int64_t len) {
      for (int64_t i = 0; i < len; ++i)
        y[i] = unaryOf<T>(decltype(k)::value, x[i]);
    });
  };
  if constexpr (!std::is_floating_point_v<T>) {
    // Checked here: the loops must not throw.
    if (kind != UnaryKind::Neg && kind != UnaryKind::Sign &&
        kind != UnaryKind::Square && kind != UnaryKind::Relu &&
        kind != UnaryKind::Abs)
      throw std::runtime_error("a float-only function on integers");
  }
#define TFL_UNARY_CASE(K)                                                      \
  case UnaryKind::K:                                                           \
    return loop(std::integral_constant<UnaryKind, UnaryKind::K>{});
  switch (kind) {
    TFL_UNARY_CASE(Neg)
    TFL_UNARY_CASE(Exp)
    TFL_UNARY_CASE(Log)
    TFL_UNARY_CASE(Log1p)
    TFL_UNARY_CASE(Expm1)
    TFL_UNARY_CASE(Erf)
    TFL_UNARY_CASE(Sqrt)
    TFL_UNARY_CASE(Rsqrt)
    TFL_UNARY_CASE(Tanh)
    TFL_UNARY_CASE(Sigmoid)
    TFL_UNARY_CASE(Sin)
    TFL_UNARY_CASE(Cos)
    TFL_UNARY_CASE(Floor)
    TFL_UNARY_CASE(Round)
    TFL_UNARY_CASE(Abs)
    TFL_UNARY_CASE(Sign)
    TFL_UNARY_CASE(Square)
    TFL_UNARY_CASE(Relu)
  }
#undef TFL_UNARY_CASE
}

} // namespace

Tensor unary(UnaryKind kind, const Tensor &a) {
  Tensor out = Tensor::uninitialized(a.dtype(), a.shape());
  dispatchNumeric(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    unaryLoop<T>(kind, a.data<T>(), out.data<T>(), a.numElements());
  });
  return out;
}

Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b) {
  std::optional<Shape> ab = broadcastShapes(a.shape(), b.shape());
  std::optional<Shape> shape =
      ab ? broadcastShapes(cond.shape(), *ab) : std::nullopt;
  if (!shape)
    throw std::runtime_error(
        "where() of shapes " + shapeToString(cond.shape()) + ", " +
        shapeToString(a.shape()) + " and " + shapeToString(b.shape()));
  Tensor out = Tensor::uninitialized(a.dtype(), *shape);
  Shape sc = broadcastStrides(cond.shape(), *shape);
  Shape sa = broadcastStrides(a.shape(), *shape);
  Shape sb = broadcastStrides(b.shape(), *shape);
  Walk<3> walk(*shape, {&sc, &sa, &sb});
  int64_t ic = walk.step(0), ia = walk.step(1), ib = walk.step(2);
  const uint8_t *pc = cond.data<uint8_t>();
  // Elements move as words of their size (fixed-size copies: loads and
  // stores).
  auto select = [&](auto word) {
    using W = decltype(word);
    // Signed: offsets run backwards for negative steps.
    constexpr int64_t w = sizeof(W);
    const char *pa = static_cast<const char *>(a.data());
    const char *pb = static_cast<const char *>(b.data());
    char *po = static_cast<char *>(out.data());
    parallelFor(
        out.numElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
          walk.run(
              begin, end,
              [&](const std::array<int64_t, 3> &off, int64_t at, int64_t len) {
                const uint8_t *c = pc + off[0];
                const char *x = pa + off[1] * w, *y = pb + off[2] * w;
                char *z = po + at * w;
                for (int64_t i = 0; i < len; ++i)
                  std::memcpy(z + i * w,
                              c[i * ic] ? x + i * ia * w : y + i * ib * w, w);
              });
        });
  };
  byWord(dtypeSize(a.dtype()), select);
  return out;
}

Tensor cast(const Tensor &a, DType dtype) {
  // The 16-bit floats convert through f32 (exactly from them, rounding to
  // nearest even into them).
  if (isHalf(a.dtype()) && dtype == a.dtype())
    return a;
  if (isHalf(a.dtype())) {
    Tensor wide(DType::F32, a.shape());
    const uint16_t *pa = a.data<uint16_t>();
    float *pw = wide.data<float>();
    for (int64_t i = 0, n = a.numElements(); i < n; ++i)
      pw[i] = halfToFloat(a.dtype(), pa[i]);
    return dtype == DType::F32 ? wide : cast(wide, dtype);
  }
  if (isHalf(dtype)) {
    Tensor wide = a.dtype() == DType::F32 ? a : cast(a, DType::F32);
    Tensor out(dtype, a.shape());
    const float *pw = wide.data<float>();
    uint16_t *po = out.data<uint16_t>();
    for (int64_t i = 0, n = a.numElements(); i < n; ++i)
      po[i] = floatToHalf(dtype, pw[i]);
    return out;
  }
  Tensor out(dtype, a.shape());
  int64_t n = a.numElements();
  dispatchNumeric(a.dtype(), [&](auto inTag) {
    using In = decltype(inTag);
    const In *pa = a.data<In>();
    if (dtype == DType::Bool) {
      uint8_t *pc = out.data<uint8_t>();
      for (int64_t i = 0; i < n; ++i)
        pc[i] = pa[i] != In(0);
      return;
    }
    dispatchNumeric(dtype, [&](auto outTag) {
      using Out = decltype(outTag);
      Out *pc = out.data<Out>();
      for (int64_t i = 0; i < n; ++i)
        pc[i] = static_cast<Out>(pa[i]);
    });
  });
  return out;
}

namespace {

/// For each element of `shape` in row-major order, calls fn(linear, out)
/// with `out` the offset in the reduced tensor (axes dropped).
template <typename Fn>
void forEachReduced(const Shape &shape, const std::vector<int64_t> &axes,
                    Fn fn) {
  size_t rank = shape.size();
  Shape outShape;
  for (size_t d = 0; d < rank; ++d)
    if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end())
      outShape.push_back(shape[d]);
  Shape outStrides = contiguousStrides(outShape);
  Shape strideOf(rank, 0);
  for (size_t d = 0, k = 0; d < rank; ++d)
    if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end())
      strideOf[d] = outStrides[k++];
  std::vector<int64_t> idx(rank, 0);
  int64_t out = 0;
  for (int64_t linear = 0, n = numElements(shape); linear < n; ++linear) {
    fn(linear, out);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < shape[d]) {
        out += strideOf[d];
        break;
      }
      out -= strideOf[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

Shape reducedShapeOf(const Shape &shape, const std::vector<int64_t> &axes,
                     bool keepdims) {
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    bool reduced =
        std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
    if (!reduced)
      out.push_back(shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

} // namespace

namespace {

/// acc combined with x by a reduction other than a float sum (which
/// accumulates in double).
template <typename T> T combine(ReduceKind kind, T acc, T x) {
  switch (kind) {
  case ReduceKind::Sum:
    return T(acc + x);
  case ReduceKind::Prod:
    return T(acc * x);
  case ReduceKind::Max:
    return maximumOf<T>(acc, x);
  case ReduceKind::Min:
    return minimumOf<T>(acc, x);
  }
  return acc;
}

} // namespace

Tensor reduce(ReduceKind kind, const Tensor &a,
              const std::vector<int64_t> &axes, bool keepdims) {
  // Every output is written: by the rows' or columns' loops, or after the
  // fill below.
  Tensor out = Tensor::uninitialized(a.dtype(),
                                     reducedShapeOf(a.shape(), axes, keepdims));
  dispatchNumeric(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T init = T(0);
    switch (kind) {
    case ReduceKind::Sum:
      init = T(0);
      break;
    case ReduceKind::Prod:
      init = T(1);
      break;
    case ReduceKind::Max:
      init = std::numeric_limits<T>::has_infinity
                 ? -std::numeric_limits<T>::infinity()
                 : std::numeric_limits<T>::lowest();
      break;
    case ReduceKind::Min:
      init = std::numeric_limits<T>::has_infinity
                 ? std::numeric_limits<T>::infinity()
                 : std::numeric_limits<T>::max();
      break;
    }
    T *po = out.data<T>();
    const T *pa = a.data<T>();
    // f32 and f64 sums accumulate in double, then round once: a sequential
    // f32 sum of 2^17 terms drifts by 1e-5 relative, where compiled code's
    // (vector lanes, partial sums per thread) and NumPy's (pairwise) stay
    // near the exact sum. Each output adds its elements in index order,
    // whichever of the three paths below runs.
    // The reduced axes the innermost ones (softmax's and layer norm's
    // rows): each output reduces a contiguous run, in the same order as
    // below, its outputs split among the cores.
    std::vector<int64_t> sorted(axes);
    std::sort(sorted.begin(), sorted.end());
    bool trailing = !sorted.empty();
    for (size_t k = 0; k < sorted.size(); ++k)
      trailing = trailing && sorted[k] == int64_t(a.rank() - sorted.size() + k);
    if (trailing) {
      int64_t run = 1;
      for (int64_t d : sorted)
        run *= a.shape()[d];
      int64_t grain =
          std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(run, 1));
      parallelFor(out.numElements(), grain, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          const T *x = pa + o * run;
          if constexpr (std::is_floating_point_v<T>) {
            if (kind == ReduceKind::Sum) {
              double sum = 0;
              for (int64_t i = 0; i < run; ++i)
                sum += double(x[i]);
              po[o] = T(sum);
              continue;
            }
          }
          T acc = init;
          for (int64_t i = 0; i < run; ++i)
            acc = combine<T>(kind, acc, x[i]);
          po[o] = acc;
        }
      });
      return;
    }
    // The reduced axes the outermost ones (a bias's gradient, summed over
    // the batch): the input is [rows, columns] with a column per output;
    // each thread takes a range of columns and adds the rows in order (the
    // order below), its sums vectorized across the columns.
    bool leading = !sorted.empty();
    for (size_t k = 0; k < sorted.size(); ++k)
      leading = leading && sorted[k] == int64_t(k);
    if (leading) {
      int64_t rows = 1;
      for (int64_t d : sorted)
        rows *= a.shape()[d];
      int64_t columns = out.numElements();
      int64_t grain =
          std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(rows, 1));
      parallelFor(columns, grain, [&](int64_t begin, int64_t end) {
        int64_t n = end - begin;
        if constexpr (std::is_floating_point_v<T>) {
          if (kind == ReduceKind::Sum) {
            std::vector<double> sum(n, 0.0);
            for (int64_t r = 0; r < rows; ++r) {
              const T *x = pa + r * columns + begin;
              for (int64_t c = 0; c < n; ++c)
                sum[c] += double(x[c]);
            }
            for (int64_t c = 0; c < n; ++c)
              po[begin + c] = T(sum[c]);
            return;
          }
        }
        T *acc = po + begin;
        std::fill(acc, acc + n, init);
        for (int64_t r = 0; r < rows; ++r) {
          const T *x = pa + r * columns + begin;
          for (int64_t c = 0; c < n; ++c)
            acc[c] = combine<T>(kind, acc[c], x[c]);
        }
      });
      return;
    }
    std::fill(po, po + out.numElements(), init);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    std::vector<Acc> sums;
    if (kind == ReduceKind::Sum && std::is_floating_point_v<T>)
      sums.assign(out.numElements(), Acc(0));
    forEachReduced(a.shape(), axes, [&](int64_t i, int64_t o) {
      if (!sums.empty())
        sums[o] += Acc(pa[i]);
      else
        po[o] = combine<T>(kind, po[o], pa[i]);
    });
    for (size_t o = 0; o < sums.size(); ++o)
      po[o] = T(sums[o]);
  });
  return out;
}

Tensor argReduce(bool isMax, const Tensor &a, int64_t axis, bool keepdims) {
  Shape shape = a.shape();
  std::vector<int64_t> axes;
  if (axis < 0) {
    shape = {a.numElements()};
    axes = {0};
  } else {
    axes = {axis};
  }
  Shape outShape = reducedShapeOf(shape, axes, false);
  Shape resultShape = axis < 0 ? (keepdims ? Shape(a.rank(), 1) : Shape{})
                               : reducedShapeOf(a.shape(), axes, keepdims);
  Tensor out(DType::I64, resultShape);
  int64_t *idxOut = out.data<int64_t>();
  int64_t axisLen = shape[axes[0]];
  int64_t inner = 1;
  for (size_t d = axes[0] + 1; d < shape.size(); ++d)
    inner *= shape[d];
  dispatchNumeric(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> best(numElements(outShape));
    std::fill(best.begin(), best.end(),
              std::numeric_limits<T>::has_infinity
                  ? (isMax ? -std::numeric_limits<T>::infinity()
                           : std::numeric_limits<T>::infinity())
                  : (isMax ? std::numeric_limits<T>::lowest()
                           : std::numeric_limits<T>::max()));
    std::fill(idxOut, idxOut + numElements(outShape), 0);
    const T *pa = a.data<T>();
    forEachReduced(shape, axes, [&](int64_t i, int64_t o) {
      T x = pa[i];
      bool take = isMax ? x > best[o] : x < best[o];
      if constexpr (std::is_floating_point_v<T>)
        take = take || (std::isnan(x) && !std::isnan(best[o]));
      if (take) {
        best[o] = x;
        idxOut[o] = (i / inner) % axisLen;
      }
    });
  });
  return out;
}

void moveStrided(const void *src, const Shape &srcStrides, int64_t srcBase,
                 void *dst, const Shape &dstStrides, int64_t dstBase,
                 const Shape &shape, size_t elem) {
  Walk<2> walk(shape, {&srcStrides, &dstStrides});
  int64_t is = walk.step(0), os = walk.step(1);
  byWord(elem, [&](auto word) {
    constexpr int64_t w = sizeof(word); // signed: steps may be negative
    const char *from = static_cast<const char *>(src) + srcBase * w;
    char *to = static_cast<char *>(dst) + dstBase * w;
    parallelFor(numElements(shape), kParallelGrain,
                [&](int64_t begin, int64_t end) {
                  walk.run(begin, end,
                           [&](const std::array<int64_t, 2> &off, int64_t,
                               int64_t len) {
                             const char *x = from + off[0] * w;
                             char *z = to + off[1] * w;
                             if (is == 1 && os == 1)
                               std::memcpy(z, x, len * w);
                             else
                               for (int64_t i = 0; i < len; ++i)
                                 std::memcpy(z + i * os * w, x + i * is * w, w);
                           });
                });
  });
}

namespace {

/// Copies the elements of a strided source (element strides `srcStrides`
/// from offset `base`) into a contiguous `shape`, in row-major order.
void copyStrided(const void *src, void *dst, const Shape &shape,
                 const Shape &srcStrides, int64_t base, size_t elem) {
  moveStrided(src, srcStrides, base, dst, contiguousStrides(shape), 0, shape,
              elem);
}

} // namespace

Tensor broadcastTo(const Tensor &a, const Shape &shape) {
  Tensor out = Tensor::uninitialized(a.dtype(), shape);
  copyStrided(a.data(), out.data(), shape, broadcastStrides(a.shape(), shape),
              0, dtypeSize(a.dtype()));
  return out;
}

Tensor transpose(const Tensor &a, const std::vector<int64_t> &perm) {
  Shape shape(perm.size()), strides(perm.size());
  Shape inStrides = contiguousStrides(a.shape());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = a.shape()[perm[i]];
    strides[i] = inStrides[perm[i]];
  }
  Tensor out = Tensor::uninitialized(a.dtype(), shape);
  copyStrided(a.data(), out.data(), shape, strides, 0, dtypeSize(a.dtype()));
  return out;
}

Tensor embedSlice(const Tensor &a, const Shape &shape,
                  const std::vector<int64_t> &starts,
                  const std::vector<int64_t> &strides) {
  Tensor out(a.dtype(), shape);
  // a's elements, in order, go to the slice's places in `out` (distinct: a
  // slice's steps are never 0).
  Shape outStrides = contiguousStrides(shape), places(shape.size());
  int64_t base = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    places[d] = strides[d] * outStrides[d];
    base += starts[d] * outStrides[d];
  }
  moveStrided(a.data(), contiguousStrides(a.shape()), 0, out.data(), places,
              base, a.shape(), dtypeSize(a.dtype()));
  return out;
}

Tensor materialize(const TensorView &v) {
  Tensor out = Tensor::uninitialized(v.dtype, v.shape);
  const char *base = static_cast<const char *>(v.data);
  copyStrided(base, out.data(), v.shape, v.strides, 0, dtypeSize(v.dtype));
  return out;
}

namespace {
struct Tape {
  std::vector<Tensor> entries;
  std::vector<Tensor> sums;
  int64_t cursor = 0;
};

std::vector<std::vector<Tape>> &tapeFrames() {
  // Per thread: a library's exported functions run on their callers'
  // threads, each with its own tapes.
  thread_local std::vector<std::vector<Tape>> frames;
  return frames;
}

Tape &tapeNamed(int64_t tape) {
  auto &frames = tapeFrames();
  if (frames.empty() || tape < 0)
    throw std::runtime_error("internal error: a tape used outside a frame");
  std::vector<Tape> &frame = frames.back();
  if (static_cast<size_t>(tape) >= frame.size())
    frame.resize(tape + 1);
  return frame[tape];
}

/// The valid tensor at `position` of `slots`, checked against the type the
/// op expects, or zeros of it.
Tensor slotOrZeros(const std::vector<Tensor> &slots, int64_t position,
                   DType dtype, const Shape &shape) {
  if (position < 0)
    throw std::runtime_error("internal error: a negative tape position");
  if (static_cast<size_t>(position) >= slots.size() ||
      !slots[position].isValid())
    return Tensor(dtype, shape);
  const Tensor &t = slots[position];
  if (t.dtype() != dtype || t.numElements() != numElements(shape))
    throw std::runtime_error("internal error: a tape entry read as another "
                             "type than it was written");
  return t;
}

void store(std::vector<Tensor> &slots, int64_t position, const Tensor &t) {
  if (position < 0)
    throw std::runtime_error("internal error: a negative tape position");
  if (static_cast<size_t>(position) >= slots.size())
    slots.resize(position + 1);
  slots[position] = t;
}

template <typename T> Tensor added(const Tensor &a, const Tensor &b) {
  Tensor out(a.dtype(), a.shape());
  for (int64_t i = 0, n = a.numElements(); i < n; ++i)
    out.data<T>()[i] = a.data<T>()[i] + b.data<T>()[i];
  return out;
}
} // namespace

void tapeEnter() { tapeFrames().emplace_back(); }

void tapeExit() {
  if (tapeFrames().empty())
    throw std::runtime_error("internal error: no tape frame to close");
  tapeFrames().pop_back();
}

void tapePush(int64_t tape, const Tensor &t) {
  Tape &named = tapeNamed(tape);
  store(named.entries, named.cursor++, t);
}

int64_t tapeSize(int64_t tape) { return tapeNamed(tape).cursor; }

void tapeWrite(int64_t tape, int64_t position, const Tensor &t) {
  store(tapeNamed(tape).entries, position, t);
}

Tensor tapeRead(int64_t tape, int64_t position, DType dtype,
                const Shape &shape) {
  return slotOrZeros(tapeNamed(tape).entries, position, dtype, shape);
}

void tapeRewind(int64_t tape, int64_t position, bool release) {
  Tape &named = tapeNamed(tape);
  named.cursor = position;
  if (!release)
    return;
  auto keep = static_cast<size_t>(position);
  if (named.entries.size() > keep)
    named.entries.resize(keep);
  if (named.sums.size() > keep)
    named.sums.resize(keep);
}

void tapeAdd(int64_t tape, int64_t position, const Tensor &t) {
  std::vector<Tensor> &sums = tapeNamed(tape).sums;
  bool held = position >= 0 && static_cast<size_t>(position) < sums.size() &&
              sums[position].isValid();
  if (!held)
    return store(sums, position, t);
  Tensor sum = slotOrZeros(sums, position, t.dtype(), t.shape());
  sums[position] =
      t.dtype() == DType::F64 ? added<double>(sum, t) : added<float>(sum, t);
}

Tensor tapeAccumulated(int64_t tape, int64_t position, DType dtype,
                       const Shape &shape) {
  return slotOrZeros(tapeNamed(tape).sums, position, dtype, shape);
}

bool allFinite(const Tensor &a) {
  int64_t n = a.numElements();
  if (a.dtype() == DType::F32)
    return std::all_of(a.data<float>(), a.data<float>() + n,
                       [](float v) { return std::isfinite(v); });
  if (a.dtype() == DType::F64)
    return std::all_of(a.data<double>(), a.data<double>() + n,
                       [](double v) { return std::isfinite(v); });
  return true;
}

std::string checkNumericsMessage(const std::string &message) {
  return "check_numerics failed" + (message.empty() ? "" : ": " + message) +
         " (the tensor holds a NaN or an infinity)";
}

std::string outOfRangeMessage(int64_t start, int64_t size, int64_t stride,
                              int64_t dim) {
  if (size == 1)
    return "index " + std::to_string(start) +
           " is out of range for an axis of size " + std::to_string(dim);
  return "slice [" + std::to_string(start) + ":" +
         std::to_string(start + size * stride) +
         (stride != 1 ? ":" + std::to_string(stride) : "") +
         "] is out of range for an axis of size " + std::to_string(dim);
}

Tensor slice(const Tensor &a, const std::vector<int64_t> &starts,
             const std::vector<int64_t> &sizes,
             const std::vector<int64_t> &strides) {
  size_t rank = a.shape().size();
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      continue;
    int64_t last = starts[d] + (sizes[d] - 1) * strides[d];
    int64_t n = a.shape()[d];
    if (starts[d] < 0 || starts[d] >= n || last < 0 || last >= n)
      throw std::out_of_range(
          outOfRangeMessage(starts[d], sizes[d], strides[d], n));
  }
  Tensor out =
      Tensor::uninitialized(a.dtype(), Shape(sizes.begin(), sizes.end()));
  Shape inStrides = contiguousStrides(a.shape());
  int64_t base = 0;
  Shape step(rank);
  for (size_t d = 0; d < rank; ++d) {
    base += starts[d] * inStrides[d];
    step[d] = strides[d] * inStrides[d];
  }
  copyStrided(a.data(), out.data(), out.shape(), step, base,
              dtypeSize(a.dtype()));
  return out;
}

Tensor gather(const Tensor &a, const Tensor &indices, int64_t axis) {
  int64_t outer = 1, inner = 1, n = a.shape()[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= a.shape()[d];
  for (int64_t d = axis + 1; d < a.rank(); ++d)
    inner *= a.shape()[d];
  Shape shape(a.shape().begin(), a.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), a.shape().begin() + axis + 1, a.shape().end());
  Tensor out(a.dtype(), shape);
  int64_t count = indices.numElements();
  size_t row = inner * dtypeSize(a.dtype());
  const char *src = static_cast<const char *>(a.data());
  char *dst = static_cast<char *>(out.data());
  TensorView iv = indices.view();
  std::vector<int64_t> picks(count);
  for (int64_t k = 0; k < count; ++k) {
    std::vector<int64_t> index(indices.rank());
    for (int64_t d = indices.rank() - 1, rest = k; d >= 0; --d) {
      index[d] = rest % indices.shape()[d];
      rest /= indices.shape()[d];
    }
    picks[k] = iv.getAsInt(index.data());
    if (picks[k] < 0 || picks[k] >= n)
      throw std::out_of_range(outOfRangeMessage(picks[k], 1, 1, n));
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k)
      std::memcpy(dst + (o * count + k) * row, src + (o * n + picks[k]) * row,
                  row);
  return out;
}

namespace {
template <typename T>
void scatterAddTyped(const T *dy, const std::vector<int64_t> &picks, T *out,
                     int64_t outer, int64_t n, int64_t inner) {
  int64_t count = static_cast<int64_t>(picks.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k)
      for (int64_t i = 0; i < inner; ++i)
        out[(o * n + picks[k]) * inner + i] += dy[(o * count + k) * inner + i];
}
} // namespace

void scatterAdd(const TensorView &dy, const TensorView &indices,
                const TensorView &out, int64_t axis) {
  Tensor g = materialize(dy), idx = materialize(indices);
  int64_t outer = 1, inner = 1, n = out.shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= out.shape[d];
  for (size_t d = axis + 1; d < out.shape.size(); ++d)
    inner *= out.shape[d];
  std::vector<int64_t> picks(idx.data<int64_t>(),
                             idx.data<int64_t>() + idx.numElements());
  void *data = const_cast<void *>(out.data);
  std::memset(data, 0, numElements(out.shape) * dtypeSize(out.dtype));
  if (out.dtype == DType::F32)
    scatterAddTyped(g.data<float>(), picks, static_cast<float *>(data), outer,
                    n, inner);
  else
    scatterAddTyped(g.data<double>(), picks, static_cast<double *>(data), outer,
                    n, inner);
}

Tensor concat(const std::vector<Tensor> &inputs, int64_t axis) {
  Shape shape = inputs.front().shape();
  shape[axis] = 0;
  for (const Tensor &t : inputs)
    shape[axis] += t.shape()[axis];
  Tensor out(inputs.front().dtype(), shape);
  size_t elem = dtypeSize(out.dtype());
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  char *dst = static_cast<char *>(out.data());
  int64_t rowBytes = shape[axis] * inner * elem, offset = 0;
  for (const Tensor &t : inputs) {
    int64_t chunk = t.shape()[axis] * inner * elem;
    const char *src = static_cast<const char *>(t.data());
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + o * rowBytes + offset, src + o * chunk, chunk);
    offset += chunk;
  }
  return out;
}

namespace {

/// The leading dimensions BLAS asks for: at least a row's length. A matrix
/// of one row may carry any stride for it (a unit dim's stride is free).
void blasLeadingDims(int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                     int64_t &lda, int64_t &ldb, int64_t &ldc) {
  auto fix = [](int64_t &ld, int64_t rows, int64_t cols) {
    if (rows <= 1)
      ld = std::max<int64_t>({ld, cols, 1});
  };
  transA ? fix(lda, k, m) : fix(lda, m, k);
  transB ? fix(ldb, n, k) : fix(ldb, k, n);
  fix(ldc, m, n);
}

/// C = 0 for a product over K = 0 that overwrites C.
template <typename T>
void zeroRows(T *c, int64_t m, int64_t n, int64_t ldc, bool accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < m; ++i)
      std::memset(c + i * ldc, 0, n * sizeof(T));
}

} // namespace

/// Products of at most this many multiply-adds run as plain loops: a BLAS
/// call's fixed cost outweighs them (the seed CNN's dense layer, 32 x 16
/// by 16 x 10, and its gradients), and oneDNN's sgemm compiles its
/// kernels on its first call (28 of the 31 ms of the seed CNN's first
/// training step).
constexpr int64_t kSmallProduct = int64_t{1} << 15;

/// C (+)= op(A) op(B), row-major, as plain loops (GCC vectorizes the
/// inner one); the sums over K in order, one row of C at a time.
template <typename T>
void smallProduct(const T *a, const T *b, T *c, int64_t m, int64_t n, int64_t k,
                  int64_t lda, int64_t ldb, int64_t ldc, bool accumulate,
                  bool transA, bool transB) {
  for (int64_t i = 0; i < m; ++i) {
    T *row = c + i * ldc;
    if (!accumulate)
      std::fill(row, row + n, T(0));
    for (int64_t p = 0; p < k; ++p) {
      T aip = transA ? a[p * lda + i] : a[i * lda + p];
      if (transB)
        for (int64_t j = 0; j < n; ++j)
          row[j] += aip * b[j * ldb + p];
      else
        for (int64_t j = 0; j < n; ++j)
          row[j] += aip * b[p * ldb + j];
    }
  }
}

void matmulF32(const float *a, const float *b, float *c, int64_t m, int64_t n,
               int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
               bool accumulate, bool transA, bool transB) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return zeroRows(c, m, n, ldc, accumulate);
  blasLeadingDims(m, n, k, transA, transB, lda, ldb, ldc);
  if (m * n * k <= kSmallProduct)
    return smallProduct(a, b, c, m, n, k, lda, ldb, ldc, accumulate, transA,
                        transB);
  dnnl_status_t status =
      dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, 1.0f, a, lda,
                 b, ldb, accumulate ? 1.0f : 0.0f, c, ldc);
  if (status != dnnl_success)
    throw std::runtime_error("matmul: oneDNN's sgemm refused a product of " +
                             std::to_string(m) + "x" + std::to_string(k) +
                             " by " + std::to_string(k) + "x" +
                             std::to_string(n));
}

void matmulF64(const double *a, const double *b, double *c, int64_t m,
               int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
               bool accumulate, bool transA, bool transB) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return zeroRows(c, m, n, ldc, accumulate);
  blasLeadingDims(m, n, k, transA, transB, lda, ldb, ldc);
  if (m * n * k <= kSmallProduct)
    return smallProduct(a, b, c, m, n, k, lda, ldb, ldc, accumulate, transA,
                        transB);
  cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
              transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb,
              accumulate ? 1.0 : 0.0, c, ldc);
}

Tensor matmul(const Tensor &a, const Tensor &b) {
  if (a.rank() == 3 && b.rank() == 3) {
    // Batched: one product per leading index.
    int64_t batch = a.shape()[0], m = a.shape()[1], n = b.shape()[2];
    Tensor c(a.dtype(), {batch, m, n});
    size_t elem = dtypeSize(a.dtype());
    for (int64_t i = 0; i < batch; ++i) {
      Tensor slice_a(a.dtype(), {m, a.shape()[2]});
      Tensor slice_b(b.dtype(), {b.shape()[1], n});
      std::memcpy(slice_a.data(),
                  static_cast<const char *>(a.data()) + i * slice_a.byteSize(),
                  slice_a.byteSize());
      std::memcpy(slice_b.data(),
                  static_cast<const char *>(b.data()) + i * slice_b.byteSize(),
                  slice_b.byteSize());
      Tensor ci = matmul(slice_a, slice_b);
      std::memcpy(static_cast<char *>(c.data()) + i * m * n * elem, ci.data(),
                  ci.byteSize());
    }
    return c;
  }
  if (a.rank() != 2 || b.rank() != 2 || a.shape()[1] != b.shape()[0])
    throw std::runtime_error("matmul of shapes " + shapeToString(a.shape()) +
                             " and " + shapeToString(b.shape()));
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  Tensor c(a.dtype(), {m, n});
  switch (a.dtype()) {
  case DType::F32:
    matmulF32(a.data<float>(), b.data<float>(), c.data<float>(), m, n, k, k, n,
              n, false);
    return c;
  case DType::F64:
    matmulF64(a.data<double>(), b.data<double>(), c.data<double>(), m, n, k, k,
              n, n, false);
    return c;
  default:
    break;
  }
  dispatchNumeric(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    T *pc = c.data<T>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          pc[i * n + j] = T(pc[i * n + j] + pa[i * k + p] * pb[p * n + j]);
  });
  return c;
}

} // namespace tflrt
