//===- FuzzReaders.cpp - libFuzzer target: the runtime's file readers -----===//
//
// The first byte picks a reader, the rest is the file: IDX (gzipped or
// not), .npy, or a safetensors checkpoint (tensor "w", f32[2, 3], as the
// seed corpus holds). Every input must be read or refused with an IoError
// naming the file; a crash, a sanitizer report, a leak, a timeout or an
// allocation past libFuzzer's -malloc_limit_mb is a bug.
//
//===----------------------------------------------------------------------===//

#include "tflrt/DataIO.h"
#include "tflrt/Tensor.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

/// The file the readers open: one per fuzzing process, in $TMPDIR.
const std::string &scratchPath() {
  static const std::string path = [] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/tfl-fuzz-readers-" +
           std::to_string(getpid());
  }();
  return path;
}

/// Reads a whole array file as its header says, when it is small enough to
/// hold (the header alone is checked otherwise).
template <typename HeaderFn, typename ReadFn>
void readArray(const std::string &path, HeaderFn header, ReadFn read) {
  tflrt::ArrayHeader h = header(path);
  int64_t n = 1;
  for (int64_t d : h.shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      std::abort(); // a header the reader accepted must have a real size
  size_t bytes = static_cast<size_t>(n) * tflrt::dtypeSize(h.dtype);
  if (bytes > (size_t(64) << 20))
    return;
  std::vector<unsigned char> data(bytes);
  tflrt::TensorView out{h.dtype, h.shape, tflrt::contiguousStrides(h.shape),
                        data.data()};
  read(path, out);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const std::string &path = scratchPath();
  {
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
      std::abort();
    std::fwrite(data + 1, 1, size - 1, f);
    std::fclose(f);
  }
  try {
    switch (data[0] % 3) {
    case 0:
      readArray(path, tflrt::readIdxHeader, tflrt::readIdx);
      break;
    case 1:
      readArray(path, tflrt::readNpyHeader, tflrt::readNpy);
      break;
    default: {
      std::vector<float> w(6);
      tflrt::TensorView out{tflrt::DType::F32, {2, 3}, {3, 1}, w.data()};
      tflrt::readCheckpointTensor(path, "w", out);
      break;
    }
    }
  } catch (const tflrt::IoError &e) {
    // Refused: the message must name the file.
    if (std::string(e.what()).rfind(path, 0) != 0)
      std::abort();
  }
  return 0;
}
