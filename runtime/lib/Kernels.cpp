//===- Kernels.cpp - Tensor kernels of libtflrt ---------------------------===//
//
// Broadcasting elementwise kernels, selection and casts, templated per dtype
// (reductions, data movement, tapes and products are in KernelsReduce.cpp,
// KernelsData.cpp, KernelsTape.cpp and KernelsMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include "KernelLoops.h"
#include "VectorMath.h"

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
        pc[i] = convertNumber<Out>(pa[i]);
    });
  });
  return out;
}

} // namespace tflrt
