//===- DataIO.cpp - Reading and writing tensors in files ------------------===//
//
// Formats as documented in DataIO.h. Multi-byte IDX values are big-endian;
// .npy and safetensors data are little-endian (the host order here). Writes
// go to "<path>.tmp-<pid>" and are renamed over `path` only once complete.
//
//===----------------------------------------------------------------------===//

#include "tflrt/DataIO.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>
#include <type_traits>
#include <unistd.h>

namespace tflrt {

namespace {

[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw IoError(path + ": " + what);
}

std::string expectedText(const TensorView &out) {
  return std::string(dtypeName(out.dtype)) + shapeToString(out.shape);
}

/// The number of elements of a shape read from a file's header, refusing
/// negative sizes and shapes past 2^60 elements (no tensor can hold them),
/// counting only the nonzero dims: strides multiply those even when
/// another dim is 0.
int64_t headerElements(const Shape &shape, const std::string &path) {
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0)
      fail(path,
           "its header gives a negative size in shape " + shapeToString(shape));
    empty |= d == 0;
    if (d != 0 && (__builtin_mul_overflow(n, d, &n) || n > (int64_t(1) << 60)))
      fail(path, "its header's shape " + shapeToString(shape) +
                     " has more elements than any tensor can hold");
  }
  return empty ? 0 : n;
}

void checkContiguous(const TensorView &v) {
  if (v.strides != contiguousStrides(v.shape))
    throw IoError("internal error: a file tensor must be contiguous");
}

//===--------------------------------------------------------------------===//
// IDX
//===--------------------------------------------------------------------===//

struct GzFile {
  gzFile file = nullptr;
  ~GzFile() {
    if (file)
      gzclose(file);
  }
};

/// Reads exactly `n` bytes; false at a premature end. A stream that is not
/// valid gzip data is an error naming the file.
bool gzReadAll(gzFile f, void *data, size_t n, const std::string &path) {
  auto *p = static_cast<char *>(data);
  while (n > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    int got = gzread(f, p, chunk);
    if (got < 0) {
      int code = 0;
      const char *what = gzerror(f, &code);
      if (code == Z_BUF_ERROR) // the compressed stream ends early
        return false;
      std::string message = what ? what : "read error";
      if (message.rfind(path + ": ", 0) == 0) // zlib names the file too
        message.erase(0, path.size() + 2);
      fail(path, "is not valid gzip data (" + message + ")");
    }
    if (got == 0)
      return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

ArrayHeader idxHeader(gzFile f, const std::string &path) {
  unsigned char magic[4];
  if (!gzReadAll(f, magic, 4, path))
    fail(path, "not an IDX file (it is empty or truncated)");
  if (magic[0] != 0 || magic[1] != 0)
    fail(path, "not an IDX file (bad magic number)");
  ArrayHeader h;
  switch (magic[2]) {
  case 0x08:
    h.dtype = DType::U8;
    break;
  case 0x0C:
    h.dtype = DType::I32;
    break;
  case 0x0D:
    h.dtype = DType::F32;
    break;
  case 0x0E:
    h.dtype = DType::F64;
    break;
  default:
    fail(path, "IDX element type " + std::to_string(magic[2]) +
                   " is not supported (u8, i32, f32 and f64 are)");
  }
  for (int d = 0; d < magic[3]; ++d) {
    unsigned char b[4];
    if (!gzReadAll(f, b, 4, path))
      fail(path, "truncated IDX header");
    h.shape.push_back((int64_t(b[0]) << 24) | (int64_t(b[1]) << 16) |
                      (int64_t(b[2]) << 8) | int64_t(b[3]));
  }
  headerElements(h.shape, path);
  return h;
}

GzFile openGz(const std::string &path) {
  GzFile f;
  f.file = gzopen(path.c_str(), "rb");
  if (!f.file)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  return f;
}

//===--------------------------------------------------------------------===//
// .npy
//===--------------------------------------------------------------------===//

const char *npyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::U8:
    return "|u1";
  case DType::Bool:
    return "|b1";
  case DType::F16:
    return "<f2";
  case DType::BF16: // NumPy has no bf16; programs save such tensors as f32
    return "";
  }
  return "";
}

/// The value of `key` in a Python dict literal's text (`'shape': (2, 3)`).
std::string dictValue(const std::string &dict, const std::string &key,
                      const std::string &path) {
  size_t k = dict.find("'" + key + "'");
  if (k == std::string::npos)
    fail(path, "the .npy header has no '" + key + "'");
  size_t colon = dict.find(':', k + key.size() + 2);
  size_t start = colon == std::string::npos
                     ? colon
                     : dict.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    fail(path, "the .npy header has no value for '" + key + "'");
  size_t end = dict[start] == '(' ? dict.find(')', start)
                                  : dict.find_first_of(",}", start);
  if (end == std::string::npos)
    fail(path, "the .npy header's '" + key + "' is not terminated");
  if (dict[start] == '(')
    ++end;
  return dict.substr(start, end - start);
}

/// The dimensions of a .npy header's shape tuple, `(60000, 28, 28)` or `()`.
Shape npyShape(const std::string &text, const std::string &path) {
  auto bad = [&]() -> Shape {
    fail(path, "the .npy header's shape " + text + " is not a tuple of sizes");
  };
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return bad();
  Shape shape;
  std::string_view rest(text);
  rest = rest.substr(1, rest.size() - 2);
  while (true) {
    size_t i = rest.find_first_not_of(' ');
    if (i == std::string_view::npos)
      break;
    rest.remove_prefix(i);
    int64_t d = 0;
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
      if (__builtin_mul_overflow(d, 10, &d) ||
          __builtin_add_overflow(d, rest[digits] - '0', &d))
        fail(path,
             "the .npy header's shape " + text + " has a size past 64 bits");
      ++digits;
    }
    if (digits == 0)
      return bad();
    shape.push_back(d);
    rest.remove_prefix(digits);
    i = rest.find_first_not_of(' ');
    if (i == std::string_view::npos)
      break;
    if (rest[i] != ',')
      return bad();
    rest.remove_prefix(i + 1);
  }
  headerElements(shape, path);
  return shape;
}

struct NpyFile {
  std::ifstream in;
  ArrayHeader header;
};

void openNpy(const std::string &path, NpyFile &f) {
  f.in.open(path, std::ios::binary);
  if (!f.in)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  char magic[8];
  if (!f.in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    fail(path, "not a .npy file (bad magic string)");
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    if (!f.in.read(reinterpret_cast<char *>(b), 2))
      fail(path, "truncated .npy header");
    headerLen = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    if (!f.in.read(reinterpret_cast<char *>(b), 4))
      fail(path, "truncated .npy header");
    headerLen = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  }
  // NumPy itself refuses headers past 10000 bytes unless told otherwise.
  if (headerLen > 10000)
    fail(path, "not a .npy file (its header claims " +
                   std::to_string(headerLen) + " bytes, over NumPy's 10000)");
  std::string dict(headerLen, '\0');
  if (!f.in.read(dict.data(), headerLen))
    fail(path, "truncated .npy header");
  std::string descr = dictValue(dict, "descr", path);
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"'))
    descr = descr.substr(1, descr.size() - 2);
  bool found = false;
  for (DType d :
       {DType::F32, DType::F64, DType::I32, DType::I64, DType::U8, DType::Bool})
    if (descr == npyDescr(d) || (descr == "<u1" && d == DType::U8) ||
        (descr == "<b1" && d == DType::Bool)) {
      f.header.dtype = d;
      found = true;
    }
  if (!found)
    fail(path, "dtype '" + descr +
                   "' is not supported (f32, f64, i32, i64, u8 and bool, "
                   "little-endian, are)");
  if (dictValue(dict, "fortran_order", path) != "False")
    fail(path, "Fortran-ordered arrays are not supported");
  f.header.shape = npyShape(dictValue(dict, "shape", path), path);
}

//===--------------------------------------------------------------------===//
// Atomic writes and safetensors
//===--------------------------------------------------------------------===//

/// Writes `bytes` pieces to `path` through a temporary file and a rename.
void writeAtomically(
    const std::string &path,
    const std::vector<std::pair<const void *, size_t>> &parts) {
  std::string tmp = path + ".tmp-" + std::to_string(getpid());
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    fail(path, std::string("cannot write: ") + std::strerror(errno));
  bool ok = true;
  for (const auto &[data, size] : parts)
    ok = ok && (size == 0 || std::fwrite(data, 1, size, f) == size);
  ok = (std::fflush(f) == 0) && ok;
  ok = (fsync(fileno(f)) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    fail(path, "cannot write: " + reason);
  }
}

const char *safetensorsDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  case DType::U8:
    return "U8";
  case DType::Bool:
    return "BOOL";
  case DType::BF16:
    return "BF16";
  case DType::F16:
    return "F16";
  }
  return "";
}

std::string &logDir() {
  static std::string dir = ".";
  return dir;
}

} // namespace

ArrayHeader readIdxHeader(const std::string &path) {
  GzFile f = openGz(path);
  ArrayHeader h = idxHeader(f.file, path);
  // A header is trusted with an allocation only when the file can hold the
  // data it promises: all of it when stored plainly, or within deflate's
  // best ratio (1032:1) when compressed.
  std::error_code ec;
  uint64_t fileSize = std::filesystem::file_size(path, ec);
  if (ec)
    return h;
  // (idxHeader checked the shape: its product fits.)
  uint64_t bytes = uint64_t(numElements(h.shape)) * dtypeSize(h.dtype);
  uint64_t headerBytes = 4 + 4 * h.shape.size();
  bool direct = gzdirect(f.file) != 0;
  uint64_t room = fileSize < headerBytes ? 0 : fileSize - headerBytes;
  if (direct ? bytes > room : bytes / 1032 > fileSize)
    fail(path, "is truncated: its header promises " + std::to_string(bytes) +
                   " bytes of data (shape " + shapeToString(h.shape) +
                   "), more than the " + std::to_string(fileSize) +
                   "-byte file " + (direct ? "holds" : "can inflate to"));
  return h;
}

void readIdx(const std::string &path, const TensorView &out) {
  checkContiguous(out);
  GzFile f = openGz(path);
  ArrayHeader h = idxHeader(f.file, path);
  if (h.dtype != out.dtype || numElements(h.shape) != numElements(out.shape))
    fail(path, "holds " + std::string(dtypeName(h.dtype)) +
                   shapeToString(h.shape) + ", but the program reads " +
                   expectedText(out));
  size_t size = dtypeSize(h.dtype);
  size_t n = static_cast<size_t>(numElements(h.shape));
  auto *data = static_cast<unsigned char *>(const_cast<void *>(out.data));
  if (!gzReadAll(f.file, data, n * size, path))
    fail(path, "is truncated: its header promises " + std::to_string(n) +
                   " elements");
  // IDX is big-endian.
  if (size > 1)
    for (size_t i = 0; i < n; ++i)
      std::reverse(data + i * size, data + (i + 1) * size);
}

ArrayHeader readNpyHeader(const std::string &path) {
  NpyFile f;
  openNpy(path, f);
  uint64_t dataStart = static_cast<uint64_t>(f.in.tellg());
  f.in.seekg(0, std::ios::end);
  uint64_t fileSize = static_cast<uint64_t>(f.in.tellg());
  // (openNpy checked the shape: its product fits.)
  uint64_t bytes =
      uint64_t(numElements(f.header.shape)) * dtypeSize(f.header.dtype);
  if (bytes > fileSize - dataStart)
    fail(path, "is truncated: its header promises " + std::to_string(bytes) +
                   " bytes of data (shape " + shapeToString(f.header.shape) +
                   "), but the file holds " +
                   std::to_string(fileSize - dataStart));
  return f.header;
}

void readNpy(const std::string &path, const TensorView &out) {
  checkContiguous(out);
  NpyFile f;
  openNpy(path, f);
  if (f.header.dtype != out.dtype || f.header.shape != out.shape)
    fail(path, "holds " + std::string(dtypeName(f.header.dtype)) +
                   shapeToString(f.header.shape) + ", but the program reads " +
                   expectedText(out));
  size_t bytes = numElements(out.shape) * dtypeSize(out.dtype);
  if (!f.in.read(static_cast<char *>(const_cast<void *>(out.data)),
                 static_cast<std::streamsize>(bytes)))
    fail(path, "is truncated: its header promises " +
                   std::to_string(numElements(out.shape)) + " elements");
}

/// `path` opened for reading, at its end: tellg() is its size.
static std::ifstream openAtEnd(const std::string &path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  return in;
}

int64_t fileBytes(const std::string &path) {
  return static_cast<int64_t>(openAtEnd(path).tellg());
}

void readBytes(const std::string &path, const TensorView &out) {
  checkContiguous(out);
  std::ifstream in = openAtEnd(path);
  auto size = static_cast<int64_t>(in.tellg());
  int64_t want = numElements(out.shape);
  if (out.dtype != DType::U8 || out.shape.size() != 1 || size != want)
    fail(path, "holds " + std::to_string(size) +
                   " bytes, but the program reads " + expectedText(out));
  in.seekg(0);
  if (want && !in.read(static_cast<char *>(const_cast<void *>(out.data)),
                       static_cast<std::streamsize>(want)))
    fail(path, "could not be read whole");
}

void writeNpy(const std::string &path, const TensorView &x) {
  checkContiguous(x);
  std::string shape = "(";
  for (size_t i = 0; i < x.shape.size(); ++i)
    shape += std::to_string(x.shape[i]) + (x.shape.size() == 1 ? "," : "") +
             (i + 1 < x.shape.size() ? ", " : "");
  shape += ")";
  std::string dict = "{'descr': '" + std::string(npyDescr(x.dtype)) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic, version 1.0, header length, then the dict padded with spaces to
  // a multiple of 64 bytes and ended by a newline.
  size_t total = 10 + dict.size() + 1;
  dict += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string head = std::string("\x93NUMPY\x01\x00", 8);
  head += static_cast<char>(dict.size() & 0xff);
  head += static_cast<char>(dict.size() >> 8);
  head += dict;
  writeAtomically(path, {{head.data(), head.size()},
                         {x.data, numElements(x.shape) * dtypeSize(x.dtype)}});
}

void writeCheckpoint(const std::string &path,
                     const std::vector<std::string> &names,
                     const std::vector<TensorView> &tensors) {
  nlohmann::ordered_json header;
  header["__metadata__"] = {{"format", "tfl"}};
  size_t offset = 0;
  std::vector<std::pair<const void *, size_t>> parts(1);
  for (size_t i = 0; i < tensors.size(); ++i) {
    checkContiguous(tensors[i]);
    size_t bytes = numElements(tensors[i].shape) * dtypeSize(tensors[i].dtype);
    header[names[i]] = {{"dtype", safetensorsDType(tensors[i].dtype)},
                        {"shape", tensors[i].shape},
                        {"data_offsets", {offset, offset + bytes}}};
    parts.push_back({tensors[i].data, bytes});
    offset += bytes;
  }
  std::string text = header.dump();
  text += std::string((8 - text.size() % 8) % 8, ' ');
  uint64_t size = text.size();
  unsigned char prefix[8];
  for (int i = 0; i < 8; ++i)
    prefix[i] = static_cast<unsigned char>(size >> (8 * i));
  std::string head(reinterpret_cast<char *>(prefix), 8);
  head += text;
  parts[0] = {head.data(), head.size()};
  writeAtomically(path, parts);
}

/// The integers of the array `key` of a checkpoint header's entry into
/// `out` (sizes, or offsets: unsigned), or false when it is missing or
/// holds anything else: a string, a fraction, a number past 64 bits (which
/// JSON reads as a float), a negative offset. Converting such a number
/// would be undefined.
template <typename Int>
bool jsonInts(const nlohmann::json &entry, const char *key,
              std::vector<Int> &out) {
  auto it = entry.find(key);
  if (it == entry.end() || !it->is_array())
    return false;
  for (const nlohmann::json &v : *it) {
    bool fits = std::is_signed_v<Int>
                    ? v.is_number_integer() &&
                          (!v.is_number_unsigned() ||
                           v.get<uint64_t>() <= uint64_t(INT64_MAX))
                    : v.is_number_unsigned();
    if (!fits)
      return false;
    out.push_back(v.get<Int>());
  }
  return true;
}

void readCheckpointTensor(const std::string &path, const std::string &name,
                          const TensorView &out) {
  checkContiguous(out);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  unsigned char prefix[8];
  if (!in.read(reinterpret_cast<char *>(prefix), 8))
    fail(path, "not a safetensors checkpoint (it is truncated)");
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i)
    size |= uint64_t(prefix[i]) << (8 * i);
  // The header is read whole only when the file holds it and it is within
  // the format's limit (100 MB, as the safetensors library's).
  in.seekg(0, std::ios::end);
  uint64_t fileSize = static_cast<uint64_t>(in.tellg());
  if (size > 100'000'000)
    fail(path, "not a safetensors checkpoint (its header claims " +
                   std::to_string(size) + " bytes, over the format's 100 MB)");
  if (size > fileSize - 8)
    fail(path, "not a safetensors checkpoint (its header claims " +
                   std::to_string(size) + " bytes, but the file has " +
                   std::to_string(fileSize - 8) + " after the size)");
  in.seekg(8);
  std::string text(size, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(size)))
    fail(path, "not a safetensors checkpoint (truncated header)");
  nlohmann::json header = nlohmann::json::parse(text, nullptr, false);
  if (header.is_discarded() || !header.is_object())
    fail(path, "not a safetensors checkpoint (bad header)");
  if (!header.contains(name)) {
    std::string names;
    int listed = 0;
    for (const auto &[key, value] : header.items()) {
      if (key == "__metadata__")
        continue;
      if (listed == 8) {
        names += ", ...";
        break;
      }
      names += (listed++ ? ", '" : "'") + key + "'";
    }
    fail(path, "has no tensor '" + name + "' (it holds " +
                   (listed ? names : std::string("none")) + ")");
  }
  const nlohmann::json &t = header[name];
  std::string dtype;
  Shape shape;
  std::vector<uint64_t> offsets;
  bool wellFormed = t.is_object();
  if (wellFormed) {
    const nlohmann::json &d = t.value("dtype", nlohmann::json(""));
    wellFormed = d.is_string() && jsonInts(t, "shape", shape) &&
                 jsonInts(t, "data_offsets", offsets);
    if (wellFormed)
      dtype = d.get<std::string>();
  }
  if (!wellFormed)
    fail(path, "not a safetensors checkpoint (tensor '" + name +
                   "' has a malformed entry in the header)");
  if (dtype != safetensorsDType(out.dtype) || shape != out.shape) {
    // The file's dtype by TFL's name where it has one (F32 is f32).
    std::string fileDType = dtype;
    for (DType d : {DType::F32, DType::F64, DType::I32, DType::I64, DType::U8,
                    DType::Bool, DType::BF16, DType::F16})
      if (dtype == safetensorsDType(d))
        fileDType = dtypeName(d);
    fail(path, "tensor '" + name + "' is " + fileDType + shapeToString(shape) +
                   ", but the program expects " + expectedText(out));
  }
  size_t bytes = numElements(out.shape) * dtypeSize(out.dtype);
  uint64_t dataSize = fileSize - 8 - size;
  if (offsets.size() != 2 || offsets[0] > offsets[1] ||
      offsets[1] - offsets[0] != bytes)
    fail(path, "tensor '" + name + "' has bad data offsets");
  if (offsets[1] > dataSize)
    fail(path, "is truncated (tensor '" + name + "' ends at byte " +
                   std::to_string(offsets[1]) + " of the data, which has " +
                   std::to_string(dataSize) + ")");
  in.seekg(static_cast<std::streamoff>(8 + size + offsets[0]));
  if (!in.read(static_cast<char *>(const_cast<void *>(out.data)),
               static_cast<std::streamsize>(bytes)))
    fail(path, "is truncated (tensor '" + name + "')");
}

void setLogDir(const std::string &dir) { logDir() = dir; }

void logScalar(const std::string &name, double value, int64_t step) {
  std::string path = logDir() + "/scalars.jsonl";
  std::FILE *f = std::fopen(path.c_str(), "a");
  if (!f && errno == ENOENT) {
    // The log directory is made on first use, as TensorBoard's writers do.
    std::error_code ec;
    std::filesystem::create_directories(logDir(), ec);
    f = std::fopen(path.c_str(), "a");
  }
  if (!f)
    fail(path, std::string("cannot write: ") + std::strerror(errno));
  double time = std::chrono::duration<double>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  nlohmann::json line = {
      {"name", name}, {"step", step}, {"value", value}, {"time", time}};
  std::string text = line.dump() + "\n";
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if ((std::fclose(f) != 0) || !ok)
    fail(path, std::string("cannot write: ") + std::strerror(errno));
}

} // namespace tflrt
