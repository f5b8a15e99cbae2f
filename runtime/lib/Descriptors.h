//===- Descriptors.h - MLIR memref descriptors as tensor views --*- C++ -*-===//
//
// Compiled code passes tensors to libtflrt as MLIR memref descriptors (the
// layout is in CApi.h); the C ABI's adapters view them as TensorViews.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_LIB_DESCRIPTORS_H
#define TFLRT_LIB_DESCRIPTORS_H

#include "tflrt/Tensor.h"

namespace tflrt {

/// The fixed part of a ranked memref descriptor; sizes and strides follow.
struct DescriptorHeader {
  char *allocated;
  char *aligned;
  int64_t offset;
};

/// Views an MLIR ranked memref descriptor of `rank` dims as a TensorView.
inline TensorView viewOf(DType dtype, int64_t rank, void *desc) {
  auto *header = static_cast<DescriptorHeader *>(desc);
  auto *dims = reinterpret_cast<int64_t *>(header + 1);
  TensorView v;
  v.dtype = dtype;
  v.shape.assign(dims, dims + rank);
  v.strides.assign(dims + rank, dims + 2 * rank);
  v.data = header->aligned + header->offset * dtypeSize(dtype);
  return v;
}

/// A descriptor's first element and element count, and whether its
/// elements are dense in row-major order (read without building a view).
struct DenseData {
  char *data;
  int64_t count;
  bool dense;
};
inline DenseData denseData(int64_t rank, void *desc, size_t elemSize) {
  auto *header = static_cast<DescriptorHeader *>(desc);
  auto *dims = reinterpret_cast<int64_t *>(header + 1);
  DenseData d{header->aligned + header->offset * int64_t(elemSize), 1, true};
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (dims[i] != 1 && dims[rank + i] != d.count)
      d.dense = false;
    d.count *= dims[i];
  }
  return d;
}

} // namespace tflrt

#endif // TFLRT_LIB_DESCRIPTORS_H
