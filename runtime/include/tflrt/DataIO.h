//===- DataIO.h - Reading and writing tensors in files ----------*- C++ -*-===//
//
// The file formats TFL programs read and write, shared by the eager
// interpreter, compiled code and the compiler (which reads a data file's
// header to type `load_idx`/`load_npy` when a dim is left open):
//   - IDX (MNIST's format), gzipped or not;
//   - NumPy's .npy (version 1.0 written; 1.x to 3.x read), C order;
//   - safetensors checkpoints (a JSON header of named tensors, then their
//     little-endian bytes), written to a temporary file and renamed, so a
//     checkpoint is never left half written;
//   - training curves as JSON lines ({"name": ..., "step": ..., "value":
//     ..., "time": ...}).
// Every error is an IoError whose message names the file.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_DATAIO_H
#define TFLRT_DATAIO_H

#include "tflrt/Tensor.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace tflrt {

/// A file that is missing, unreadable, truncated, malformed, or not of the
/// dtype and shape the program expects.
class IoError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The element type and shape a data file holds.
struct ArrayHeader {
  DType dtype;
  Shape shape;
};

/// The header of an IDX file (gzipped or not).
ArrayHeader readIdxHeader(const std::string &path);
/// The header of a .npy file.
ArrayHeader readNpyHeader(const std::string &path);

/// Reads a whole IDX or .npy file into `out`, whose dtype and shape it must
/// have (an IDX file may also have any shape of the same size, as
/// `shape=[-1, 784]` reads 28x28 images as rows).
void readIdx(const std::string &path, const TensorView &out);
void readNpy(const std::string &path, const TensorView &out);

/// The size of a file in bytes (load_bytes's, read when compiling).
int64_t fileBytes(const std::string &path);
/// Reads a whole file's bytes into the 1-D u8 `out`, whose size it must
/// have.
void readBytes(const std::string &path, const TensorView &out);

/// Writes `x` as a .npy file (atomically).
void writeNpy(const std::string &path, const TensorView &x);

/// Writes named tensors as one safetensors file (atomically).
void writeCheckpoint(const std::string &path,
                     const std::vector<std::string> &names,
                     const std::vector<TensorView> &tensors);
/// Reads tensor `name` of a safetensors file into `out`, whose dtype and
/// shape it must have.
void readCheckpointTensor(const std::string &path, const std::string &name,
                          const TensorView &out);

/// Appends one point of a training curve to the scalars file: the program's
/// `--log_dir` directory (default: the working directory), file
/// `scalars.jsonl`.
void logScalar(const std::string &name, double value, int64_t step);
/// Where logScalar writes (set from the command line).
void setLogDir(const std::string &dir);

} // namespace tflrt

#endif // TFLRT_DATAIO_H
