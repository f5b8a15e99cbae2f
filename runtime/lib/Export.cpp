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

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace {

thread_local std::string lastError;

/// The size of a call's batch: every `?` (-1) dim of an export's leaves
/// has it, the first argument with one gives it.
struct Batch {
  int64_t size = -1;
  std::string from; // the leaf that gave it
};

/// The caller's tensor for `leaf`, as a view of its data (row-major); or
/// nullopt, with what is wrong with it in `problem`.
std::optional<tflrt::TensorView> viewOf(const tflrt_export_leaf &leaf,
                                        const tfl_tensor *t, Batch &batch,
                                        std::string &problem) {
  std::string what = std::string(leaf.output ? "result " : "argument ") + "'" +
                     leaf.name + "'";
  tflrt::Shape shape(leaf.shape, leaf.shape + leaf.rank);
  if (!t) {
    problem = what + " is missing (a null tensor)";
    return std::nullopt;
  }
  if (t->rank < 0 || (t->rank > 0 && !t->shape)) {
    problem = what + " has no shape";
    return std::nullopt;
  }
  tflrt::Shape given(t->shape, t->shape + t->rank);
  if (std::any_of(given.begin(), given.end(),
                  [](int64_t d) { return d < 0; })) {
    problem = what + " has a negative size in its shape";
    return std::nullopt;
  }
  auto dtype = static_cast<tflrt::DType>(leaf.dtype);
  // The batch: the first argument with a `?` gives it, the others agree.
  bool batchMismatch = false;
  if (given.size() == shape.size())
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] != -1)
        continue;
      if (batch.size < 0 && !leaf.output) {
        batch.size = given[i];
        batch.from = leaf.name;
      }
      batchMismatch |= given[i] != batch.size;
      shape[i] = given[i];
    }
  if (given != shape || batchMismatch) {
    // The caller's as a NumPy shape, the leaf's as TFL writes types.
    std::string tuple = "(";
    for (size_t i = 0; i < given.size(); ++i)
      tuple += (i ? ", " : "") + std::to_string(given[i]);
    tuple += given.size() == 1 ? ",)" : ")";
    std::string type = tflrt::dtypeName(dtype);
    for (int64_t i = 0; i < leaf.rank; ++i)
      type += (i ? ", " : "[") +
              (leaf.shape[i] == -1 ? std::string("?")
                                   : std::to_string(leaf.shape[i])) +
              (i + 1 == leaf.rank ? "]" : "");
    problem = what + " has shape " + tuple + ", but it is " + type;
    if (batchMismatch)
      problem += ", with ? the batch size " + std::to_string(batch.size) +
                 " that argument '" + batch.from + "' gives";
    return std::nullopt;
  }
  if (!t->data && tflrt::numElements(shape) > 0) {
    problem = what + " has no data (a null pointer)";
    return std::nullopt;
  }
  tflrt::Shape strides = tflrt::contiguousStrides(shape);
  return tflrt::TensorView{dtype, std::move(shape), std::move(strides),
                           t->data};
}

/// Runs `body` inside an export's boundary: 0, or 1 with its error kept.
template <typename Body> int guarded(Body body) {
  try {
    tflrt::ExportBoundary boundary;
    body();
  } catch (const std::exception &error) {
    lastError = error.what();
    return 1;
  }
  return 0;
}

} // namespace

extern "C" int tflrt_export_call(const tflrt_export *e,
                                 const tfl_tensor *const *tensors) {
  lastError.clear();
  // A memref descriptor per leaf, over the caller's data: { allocated,
  // aligned, offset, sizes, strides }.
  std::vector<std::vector<int64_t>> descriptors(e->numLeaves);
  std::vector<void *> pointers(e->numLeaves);
  Batch batch;
  for (int64_t k = 0; k < e->numLeaves; ++k) {
    std::string problem;
    std::optional<tflrt::TensorView> v =
        viewOf(e->leaves[k], tensors[k], batch, problem);
    if (!v) {
      lastError = std::string(e->name) + "(): " + problem;
      return 1;
    }
    descriptors[k] = v->memrefDescriptor();
    pointers[k] = descriptors[k].data();
  }
  int rc = guarded([&] { e->entry(pointers.data()); });
  tflrt::flushOutput();
  return rc;
}

extern "C" const char *tflrt_export_last_error(void) {
  return lastError.c_str();
}

extern "C" int tflrt_export_load(const char *path, int64_t numLeaves,
                                 const tflrt_export_leaf *leaves,
                                 const tfl_tensor *const *tensors) {
  lastError.clear();
  for (int64_t k = 0; k < numLeaves; ++k) {
    std::string problem;
    Batch batch;
    std::optional<tflrt::TensorView> v =
        viewOf(leaves[k], tensors[k], batch, problem);
    if (!v) {
      lastError = std::string("load ") + path + ": " + problem;
      return 1;
    }
    if (guarded([&] {
          tflrt::readCheckpointTensor(path, leaves[k].name, *v);
        }) != 0)
      return 1;
  }
  return 0;
}
