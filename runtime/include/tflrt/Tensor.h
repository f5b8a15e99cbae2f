//===- Tensor.h - Runtime tensors of libtflrt -------------------*- C++ -*-===//
//
// The runtime's value type: a dense, row-major tensor with a dtype and a
// shape, its storage shared by copies (values are immutable, so sharing is
// safe). Used by the eager interpreter and by the C ABI that compiled code
// calls. Nothing here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_TENSOR_H
#define TFLRT_TENSOR_H

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace tflrt {

/// Element types. The numbering is part of the C ABI (see CApi.h).
enum class DType : int32_t {
  F32 = 0,
  F64 = 1,
  I32 = 2,
  I64 = 3,
  U8 = 4,
  Bool = 5,
  BF16 = 6,
  F16 = 7
};

/// Size in bytes of one element.
size_t dtypeSize(DType dtype);
/// The language's name of a dtype ("f32", "i64", ...).
const char *dtypeName(DType dtype);
bool isFloat(DType dtype);
/// bf16 and f16: stored in 16 bits, computed in f32 (each op's result is
/// rounded to the 16-bit type, to nearest even).
bool isHalf(DType dtype);

/// Conversions between the 16-bit float formats and f32, rounding to
/// nearest even (NaN stays NaN, overflow gives infinity).
float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float x);
float f16ToFloat(uint16_t bits);
uint16_t floatToF16(float x);
/// Reads or writes one element of a 16-bit float dtype.
float halfToFloat(DType dtype, uint16_t bits);
uint16_t floatToHalf(DType dtype, float x);

/// One number converted to another numeric type as compiled code converts
/// it (`cast`): a float into an integer type rounds toward zero and
/// saturates at the type's bounds, NaN giving 0 (as XLA, WebAssembly's
/// trunc_sat and the GPU's cvt.rzi); every other conversion is C++'s.
template <typename Out, typename In> Out convertNumber(In v) {
  if constexpr (std::is_floating_point_v<In> && std::is_integral_v<Out>) {
    if (v != v)
      return Out(0);
    // The bounds as the float type holds them: the minimum exactly (0 or a
    // power of two), the maximum rounded up to one where it must be.
    if (v <= static_cast<In>(std::numeric_limits<Out>::min()))
      return std::numeric_limits<Out>::min();
    if (v >= static_cast<In>(std::numeric_limits<Out>::max()))
      return std::numeric_limits<Out>::max();
  }
  return static_cast<Out>(v);
}

using Shape = std::vector<int64_t>;

/// Number of elements of a shape (1 for rank 0).
int64_t numElements(const Shape &shape);
/// Row-major strides, in elements.
Shape contiguousStrides(const Shape &shape);
/// "[2, 3]" for error messages.
std::string shapeToString(const Shape &shape);

/// A non-owning, possibly strided view of tensor data: how both the eager
/// interpreter's tensors and compiled code's memrefs are read by shared code.
struct TensorView {
  DType dtype;
  Shape shape;
  Shape strides; // in elements
  const void *data;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// Reads element `index` (a full multi-index) converted to double.
  double getAsDouble(const int64_t *index) const;
  /// Reads element `index` as a signed 64-bit integer.
  int64_t getAsInt(const int64_t *index) const;
  /// The MLIR memref descriptor compiled code takes for this view:
  /// { allocated, aligned, offset, sizes..., strides... } as 64-bit words.
  std::vector<int64_t> memrefDescriptor() const;
};

/// An accelerator's memory, for tensors that live there (eager mode on a
/// GPU). The device's runtime supplies it; libtflrt knows no device. Both
/// copies wait: on return the destination holds the bytes and the source
/// may be reused.
struct DeviceMemory {
  void *(*allocate)(size_t bytes);
  void (*release)(void *pointer);
  void (*copyToHost)(void *host, const void *device, size_t bytes);
  void (*copyToDevice)(void *device, const void *host, size_t bytes);
};

namespace detail {
/// A tensor's elements: in host memory, in a device's, or in both (the
/// second copy made when first asked for and kept, tensors being
/// immutable).
struct TensorStorage {
  TensorStorage() = default;
  TensorStorage(const TensorStorage &) = delete;
  TensorStorage &operator=(const TensorStorage &) = delete;
  ~TensorStorage();

  // 64-byte aligned, inside hostBuffer; set once (a kernel's threads may
  // ask for a device tensor's host copy together: one makes it).
  std::atomic<void *> host{nullptr};
  void *hostBuffer = nullptr; // allocateHostBuffer's
  size_t hostBytes = 0;       // counted for --report-memory when `counted`
  bool counted = false;
  void *device = nullptr;
  const DeviceMemory *memory = nullptr;
  size_t bytes = 0; // the elements'
};
} // namespace detail

/// An owning, contiguous, row-major tensor with shared immutable storage.
/// Its elements live in host memory, or, made by a device's kernel, in the
/// device's memory until the host reads them (data() copies them over
/// once); deviceData() likewise copies host elements to the device once.
class Tensor {
public:
  Tensor() = default;
  /// Allocates a zero-filled tensor.
  Tensor(DType dtype, Shape shape) : Tensor(dtype, std::move(shape), true) {}
  /// Allocates a tensor whose every element the caller writes (a kernel's
  /// output): no zero fill, and its pages are first touched by the kernel.
  static Tensor uninitialized(DType dtype, Shape shape) {
    return Tensor(dtype, std::move(shape), false);
  }
  /// Allocates, in `memory`, a tensor whose every element a device kernel
  /// writes.
  static Tensor uninitializedOn(const DeviceMemory &memory, DType dtype,
                                Shape shape);

  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numElements() const { return tflrt::numElements(shape_); }
  size_t byteSize() const { return numElements() * dtypeSize(dtype_); }
  bool isValid() const { return storage_ != nullptr; }

  /// The elements in host memory (copied from the device first if they
  /// are only there). Written only by the kernel that made the tensor.
  void *data() { return hostData() || !storage_ ? hostData() : hostCopy(); }
  const void *data() const {
    return hostData() || !storage_ ? hostData() : hostCopy();
  }
  template <typename T> T *data() { return static_cast<T *>(data()); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(data());
  }
  /// The elements in `memory` (copied there first if they are only on the
  /// host). A tensor lives on one device at most.
  void *deviceData(const DeviceMemory &memory) const;
  /// Whether the elements are in host memory now (data() copies nothing).
  bool onHost() const { return hostData() != nullptr; }

  TensorView view() const;
  /// The same elements in another shape of as many elements, sharing the
  /// storage (tensors are immutable).
  Tensor reshaped(Shape shape) const;

private:
  Tensor(DType dtype, Shape shape, bool zeroed);
  void *hostCopy() const;
  void *hostData() const {
    return storage_ ? storage_->host.load(std::memory_order_acquire) : nullptr;
  }

  DType dtype_ = DType::F32;
  Shape shape_;
  std::shared_ptr<detail::TensorStorage> storage_;
};

} // namespace tflrt

#endif // TFLRT_TENSOR_H
