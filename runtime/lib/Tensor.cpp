//===- Tensor.cpp - Runtime tensors of libtflrt ---------------------------===//
//
// Allocation (64-byte aligned, zero-filled) and element access of tensors.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace tflrt {

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::U8:
  case DType::Bool:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "u8";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

bool isFloat(DType dtype) { return dtype == DType::F32 || dtype == DType::F64; }

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Shape contiguousStrides(const Shape &shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::string shapeToString(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

static int64_t offsetOf(const TensorView &v, const int64_t *index) {
  int64_t off = 0;
  for (int64_t i = 0; i < v.rank(); ++i)
    off += index[i] * v.strides[i];
  return off;
}

double TensorView::getAsDouble(const int64_t *index) const {
  int64_t off = offsetOf(*this, index);
  switch (dtype) {
  case DType::F32:
    return static_cast<const float *>(data)[off];
  case DType::F64:
    return static_cast<const double *>(data)[off];
  default:
    return static_cast<double>(getAsInt(index));
  }
}

int64_t TensorView::getAsInt(const int64_t *index) const {
  int64_t off = offsetOf(*this, index);
  switch (dtype) {
  case DType::I32:
    return static_cast<const int32_t *>(data)[off];
  case DType::I64:
    return static_cast<const int64_t *>(data)[off];
  case DType::U8:
    return static_cast<const uint8_t *>(data)[off];
  case DType::Bool:
    return static_cast<const uint8_t *>(data)[off] != 0;
  case DType::F32:
    return static_cast<int64_t>(static_cast<const float *>(data)[off]);
  case DType::F64:
    return static_cast<int64_t>(static_cast<const double *>(data)[off]);
  }
  return 0;
}

Tensor::Tensor(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  size_t bytes = byteSize();
  // Round up so aligned_alloc's size is a multiple of the alignment; never 0.
  size_t alloc = ((bytes + 63) / 64) * 64;
  if (alloc == 0)
    alloc = 64;
  void *p = std::aligned_alloc(64, alloc);
  if (!p)
    throw std::bad_alloc();
  std::memset(p, 0, alloc);
  storage_ = std::shared_ptr<void>(p, [](void *q) { std::free(q); });
}

Tensor Tensor::reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

TensorView Tensor::view() const {
  return TensorView{dtype_, shape_, contiguousStrides(shape_), data()};
}

} // namespace tflrt
