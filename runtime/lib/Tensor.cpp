//===- Tensor.cpp - Runtime tensors of libtflrt ---------------------------===//
//
// Allocation (64-byte aligned, zero-filled) and element access of tensors.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Tensor.h"
#include "tflrt/Memory.h"
#include "tflrt/Output.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

// Under AddressSanitizer (-DTFL_SANITIZE=address), an allocation too large
// to serve returns null as the C library's does, so that TFL's own
// out-of-memory error, naming the .tfl line, is what the tests see; ASan
// would abort the process instead. This is allocator behaviour, not a
// suppression: every report stays on.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFL_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TFL_ADDRESS_SANITIZER 1
#endif
#ifdef TFL_ADDRESS_SANITIZER
extern "C" const char *__asan_default_options() {
  return "allocator_may_return_null=1";
}
#endif

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
  case DType::BF16:
  case DType::F16:
    return 2;
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
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  }
  return "?";
}

bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || isHalf(dtype);
}

bool isHalf(DType dtype) { return dtype == DType::BF16 || dtype == DType::F16; }

namespace {
/// The bits of an f32, and the f32 of bits.
uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}
float floatOf(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}
} // namespace

float bf16ToFloat(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

uint16_t floatToBf16(float x) {
  uint32_t u = bitsOf(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet and a NaN
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

float f16ToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    u = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    u = sign;
  } else { // subnormal: normalize
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 0x400));
    u = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  return floatOf(u);
}

uint16_t floatToF16(float x) {
  uint32_t u = bitsOf(x);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t absBits = u & 0x7fffffffu;
  if (absBits > 0x7f800000u) // NaN
    return static_cast<uint16_t>(sign | 0x7e00 | ((absBits >> 13) & 0x3ff));
  if (absBits >= 0x477ff000u) // rounds to infinity (65520 and up)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (absBits < 0x38800000u) { // below the smallest normal: subnormal or 0
    // Scale by 2^24 so the subnormal's units are integers, round to even.
    float scaled = floatOf(absBits) * 16777216.0f; // exact: a power of two
    uint32_t q = static_cast<uint32_t>(scaled);
    float frac = scaled - static_cast<float>(q);
    if (frac > 0.5f || (frac == 0.5f && (q & 1)))
      ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t mant = absBits + 0xfffu + ((absBits >> 13) & 1);
  return static_cast<uint16_t>(sign | ((mant - 0x38000000u) >> 13));
}

float halfToFloat(DType dtype, uint16_t bits) {
  return dtype == DType::BF16 ? bf16ToFloat(bits) : f16ToFloat(bits);
}

uint16_t floatToHalf(DType dtype, float x) {
  return dtype == DType::BF16 ? floatToBf16(x) : floatToF16(x);
}

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
  case DType::BF16:
  case DType::F16:
    return halfToFloat(dtype, static_cast<const uint16_t *>(data)[off]);
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
    return convertNumber<int64_t>(static_cast<const float *>(data)[off]);
  case DType::F64:
    return convertNumber<int64_t>(static_cast<const double *>(data)[off]);
  case DType::BF16:
  case DType::F16:
    return convertNumber<int64_t>(
        halfToFloat(dtype, static_cast<const uint16_t *>(data)[off]));
  }
  return 0;
}

namespace {

/// Host memory for `bytes` of elements in `storage` (zero-filled when
/// `zeroed`), returned, for the caller to publish as `storage.host`:
/// 64-byte aligned, from the buffer cache compiled code's
/// allocations use (a freed large buffer serves the next tensor of its
/// size, where fresh memory from the system would be page-faulted in
/// again).
void *allocateHost(detail::TensorStorage &storage, size_t bytes, bool zeroed) {
  // Rounded up to the alignment; never 0.
  size_t alloc = ((bytes + 63) / 64) * 64;
  if (alloc == 0)
    alloc = 64;
  size_t limit = tensorByteLimit();
  void *raw = alloc >= bytes && (limit == 0 || bytes <= limit)
                  ? allocateHostBuffer(alloc + 64)
                  : nullptr;
  if (!raw)
    throw std::runtime_error(outOfMemoryMessage(bytes));
  storage.hostBuffer = raw;
  void *host = reinterpret_cast<void *>(
      (reinterpret_cast<uintptr_t>(raw) + 63) & ~uintptr_t(63));
  if (zeroed)
    std::memset(host, 0, alloc);
  storage.hostBytes = alloc;
  storage.counted = countingMemory();
  if (storage.counted)
    noteHostAllocated(alloc);
  return host;
}

} // namespace

detail::TensorStorage::~TensorStorage() {
  if (hostBuffer) {
    if (counted)
      noteHostFreed(hostBytes);
    freeHostBuffer(hostBuffer);
  }
  if (device)
    memory->release(device);
}

Tensor::Tensor(DType dtype, Shape shape, bool zeroed)
    : dtype_(dtype), shape_(std::move(shape)),
      storage_(std::make_shared<detail::TensorStorage>()) {
  storage_->bytes = byteSize();
  storage_->host.store(allocateHost(*storage_, storage_->bytes, zeroed),
                       std::memory_order_release);
}

Tensor Tensor::uninitializedOn(const DeviceMemory &memory, DType dtype,
                               Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.storage_ = std::make_shared<detail::TensorStorage>();
  t.storage_->bytes = t.byteSize();
  t.storage_->memory = &memory;
  // Never a null pointer, even for no elements (a kernel's buffer).
  t.storage_->device = memory.allocate(std::max<size_t>(t.storage_->bytes, 1));
  return t;
}

void *Tensor::hostCopy() const {
  // One copy, made by the first thread that asks (copies from a device
  // are rare and wait for it anyway: one lock serves them all).
  static std::mutex copying;
  std::lock_guard<std::mutex> lock(copying);
  detail::TensorStorage &s = *storage_;
  if (void *host = s.host.load(std::memory_order_acquire))
    return host;
  void *host = allocateHost(s, s.bytes, /*zeroed=*/false);
  if (s.bytes)
    s.memory->copyToHost(host, s.device, s.bytes);
  s.host.store(host, std::memory_order_release);
  return host;
}

void *Tensor::deviceData(const DeviceMemory &memory) const {
  detail::TensorStorage &s = *storage_;
  if (s.device) {
    if (s.memory != &memory)
      throw std::runtime_error(
          "internal error: a tensor used on two devices' memories");
    return s.device;
  }
  void *device = memory.allocate(std::max<size_t>(s.bytes, 1));
  if (s.bytes) {
    try {
      memory.copyToDevice(device, s.host.load(std::memory_order_acquire),
                          s.bytes);
    } catch (...) {
      memory.release(device);
      throw;
    }
  }
  s.device = device;
  s.memory = &memory;
  return device;
}

Tensor Tensor::reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

std::vector<int64_t> TensorView::memrefDescriptor() const {
  std::vector<int64_t> d(3, 0);
  std::memcpy(&d[0], &data, sizeof data);
  std::memcpy(&d[1], &data, sizeof data);
  d.insert(d.end(), shape.begin(), shape.end());
  d.insert(d.end(), strides.begin(), strides.end());
  return d;
}

TensorView Tensor::view() const {
  return TensorView{dtype_, shape_, contiguousStrides(shape_), data()};
}

} // namespace tflrt
