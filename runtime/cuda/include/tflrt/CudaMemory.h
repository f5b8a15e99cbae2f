//===- CudaMemory.h - GPU memory for the eager interpreter ------*- C++ -*-===//
//
// `tflc run --eager --device cuda` keeps tensors in GPU memory: the
// interpreter's tensors (tflrt::Tensor) reach it through this, libtflrt_cuda's
// caching allocator and its copies on the program's stream.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CUDAMEMORY_H
#define TFLRT_CUDAMEMORY_H

#include "tflrt/Tensor.h"

#include <cstdint>

namespace tflrt::cuda {

/// The GPU's memory: blocks of the caching allocator, copies that wait for
/// the stream (a copy to the host waits for the work that computes it).
const DeviceMemory &deviceMemory();

/// Starts the GPU as a --device cuda executable does first thing
/// (tflrt_cuda_start's flags): the driver, the device and its stream. An
/// error (no driver, no GPU) stops as the executable's would, or throws
/// inside an ExportBoundary.
void startDevice(int64_t flags);

} // namespace tflrt::cuda

#endif // TFLRT_CUDAMEMORY_H
