//===- KernelsData.cpp - Data movement kernels of libtflrt ----------------===//
//
// Strided moves (copies, transposes, broadcasts, slices and their
// gradients), gathers and scatter-adds, concatenation.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include "KernelLoops.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tflrt {

/// Moves the elements of `shape` (Kernels.h).
void moveStrided(const void *src, const Shape &srcStrides, int64_t srcBase,
                 void *dst, const Shape &dstStrides, int64_t dstBase,
                 const Shape &shape, size_t elem) {
  Walk<2> walk(shape, {&srcStrides, &dstStrides});
  int64_t is = walk.step(0), os = walk.step(1);
  byWord(elem, [&](auto word) {
    // The elements' bits, as any type may alias them.
    typedef decltype(word) Word __attribute__((may_alias));
    const Word *from = static_cast<const Word *>(src) + srcBase;
    Word *to = static_cast<Word *>(dst) + dstBase;
    // Runs along the innermost dim: copies, fills (a broadcast source) and
    // strided moves (transposes), each its own loop so that the compiler
    // vectorizes the first two.
    parallelFor(numElements(shape), kParallelGrain,
                [&](int64_t begin, int64_t end) {
                  walk.run(begin, end,
                           [&](const std::array<int64_t, 2> &off, int64_t,
                               int64_t len) {
                             const Word *x = from + off[0];
                             Word *z = to + off[1];
                             if (is == 1 && os == 1)
                               std::memcpy(z, x, len * sizeof(Word));
                             else if (is == 0 && os == 1)
                               std::fill(z, z + len, *x);
                             else
                               for (int64_t i = 0; i < len; ++i)
                                 z[i * os] = x[i * is];
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

} // namespace tflrt
