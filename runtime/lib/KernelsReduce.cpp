//===- KernelsReduce.cpp - Reductions of libtflrt -------------------------===//
//
// Reductions over any axes (sums of floats accumulate in double), and
// argmax and argmin along one axis, templated per dtype.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include "KernelLoops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace tflrt {

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

} // namespace tflrt
