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

/// Views an MLIR ranked memref descriptor of `rank` dims as a TensorView.
inline TensorView viewOf(DType dtype, int64_t rank, void *desc) {
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
  };
  auto *header = static_cast<Header *>(desc);
  auto *dims = reinterpret_cast<int64_t *>(header + 1);
  TensorView v;
  v.dtype = dtype;
  v.shape.assign(dims, dims + rank);
  v.strides.assign(dims + rank, dims + 2 * rank);
  v.data = header->aligned + header->offset * dtypeSize(dtype);
  return v;
}

} // namespace tflrt

#endif // TFLRT_LIB_DESCRIPTORS_H
