//===- Export.cpp - The boundary of a library's exported functions --------===//
//
// `tflc build --shared` makes a function per export that hands the
// caller's tensors to tflrt_export_call with the export's signature. Here
// they are checked (rank and dims), wrapped in memref descriptors without a
// copy, and the compiled code runs inside an ExportBoundary: a run-time
// error throws out of it (compiled code has unwind tables) and becomes an
// error code, its message kept per thread.
//
//===----------------------------------------------------------------------===//

#include "tflrt/CApi.h"
#include "tflrt/DataIO.h"
#include "tflrt/Output.h"
#include "tflrt/Tensor.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

thread_local std::string lastError;

std::string shapeText(int64_t rank, const int64_t *shape) {
  std::string s = "(";
  for (int64_t i = 0; i < rank; ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (rank == 1 ? ",)" : ")");
}

/// The mismatch between a caller's tensor and a leaf, or empty.
std::string checkLeaf(const tflrt_export_leaf &leaf, const tfl_tensor *t) {
  std::string what = std::string(leaf.output ? "result " : "argument ") + "'" +
                     leaf.name + "'";
  if (!t)
    return what + " is missing (a null tensor)";
  if (t->rank < 0 || (t->rank > 0 && !t->shape))
    return what + " has no shape";
  bool same = t->rank == leaf.rank;
  for (int64_t i = 0; same && i < leaf.rank; ++i)
    same = t->shape[i] == leaf.shape[i];
  if (!same) {
    // As TFL writes types: f32[6, 4].
    std::string type = tflrt::dtypeName(static_cast<tflrt::DType>(leaf.dtype));
    for (int64_t i = 0; i < leaf.rank; ++i)
      type += (i ? ", " : "[") + std::to_string(leaf.shape[i]);
    return what + " has shape " + shapeText(t->rank, t->shape) +
           ", but it is " + type + (leaf.rank ? "]" : "");
  }
  int64_t n = 1;
  for (int64_t i = 0; i < leaf.rank; ++i)
    n *= leaf.shape[i];
  if (!t->data && n > 0)
    return what + " has no data (a null pointer)";
  return "";
}

} // namespace

extern "C" int tflrt_export_call(const tflrt_export *e,
                                 const tfl_tensor *const *tensors) {
  lastError.clear();
  // A descriptor per leaf: { allocated, aligned, offset, sizes, strides },
  // row-major strides over the caller's data.
  std::vector<std::vector<int64_t>> descriptors(e->numLeaves);
  std::vector<void *> pointers(e->numLeaves);
  for (int64_t k = 0; k < e->numLeaves; ++k) {
    const tflrt_export_leaf &leaf = e->leaves[k];
    std::string problem = checkLeaf(leaf, tensors[k]);
    if (!problem.empty()) {
      lastError = std::string(e->name) + "(): " + problem;
      return 1;
    }
    std::vector<int64_t> &d = descriptors[k];
    d.assign(3 + 2 * leaf.rank, 0);
    void *data = tensors[k]->data;
    std::memcpy(&d[0], &data, sizeof data);
    std::memcpy(&d[1], &data, sizeof data);
    int64_t stride = 1;
    for (int64_t i = leaf.rank - 1; i >= 0; --i) {
      d[3 + i] = leaf.shape[i];
      d[3 + leaf.rank + i] = stride;
      stride *= leaf.shape[i];
    }
    pointers[k] = d.data();
  }
  try {
    tflrt::ExportBoundary boundary;
    e->entry(pointers.data());
  } catch (const std::exception &error) {
    lastError = error.what();
    return 1;
  }
  tflrt::flushOutput();
  return 0;
}

extern "C" const char *tflrt_export_last_error(void) {
  return lastError.c_str();
}

extern "C" int tflrt_export_load(const char *path, int64_t numLeaves,
                                 const tflrt_export_leaf *leaves,
                                 const tfl_tensor *const *tensors) {
  lastError.clear();
  for (int64_t k = 0; k < numLeaves; ++k) {
    const tflrt_export_leaf &leaf = leaves[k];
    std::string problem = checkLeaf(leaf, tensors[k]);
    if (!problem.empty()) {
      lastError = std::string("load ") + path + ": " + problem;
      return 1;
    }
    tflrt::TensorView out;
    out.dtype = static_cast<tflrt::DType>(leaf.dtype);
    out.shape.assign(leaf.shape, leaf.shape + leaf.rank);
    out.strides.assign(leaf.rank, 1);
    for (int64_t i = leaf.rank - 2; i >= 0; --i)
      out.strides[i] = out.strides[i + 1] * leaf.shape[i + 1];
    out.data = tensors[k]->data;
    try {
      tflrt::ExportBoundary boundary;
      tflrt::readCheckpointTensor(path, leaf.name, out);
    } catch (const std::exception &error) {
      lastError = error.what();
      return 1;
    }
  }
  return 0;
}
