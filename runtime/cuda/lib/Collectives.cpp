//===- Collectives.cpp - Collectives on device tensors over NCCL ----------===//
//
// The tflrt_cuda_ versions of libtflrt's collective entry points (CApi.h):
// the tensors stay in device memory and NCCL moves them, on the program's
// stream, so a collective is ordered with the kernels around it and the
// host never waits for it. NCCL's communicator is made at the first
// collective, bootstrapped over MPI (rank 0's ncclUniqueId broadcast by
// libtflrt's engine), one GPU per rank: the rank's local rank picks the
// device (Device.cpp). A process no MPI launcher started is a world of one
// with a communicator of one rank.
//
// A request's add copies its tensor into a block of its own (the program
// may free the tensor at once; the copy is queued before the free), start
// runs one NCCL group over the request's blocks (NCCL fuses a group's
// operations), and take copies each result out and frees its block. The
// calls go through libraryCall, so a training step's collectives are
// captured in its CUDA graph with the rest of its work.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Collectives.h"
#include "Device.h"
#include "Libraries.h"
#include "tflrt/CApi.h"
#include "tflrt/CudaApi.h"
#include "tflrt/Kernels.h"

#include <nccl.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using tflrt::cuda::descOf;
using tflrt::cuda::MemrefDesc;
using tflrt::cuda::nccl;
namespace dist = tflrt::dist;
namespace cuda = tflrt::cuda;

void checkNccl(ncclResult_t r, const char *what) {
  if (r == ncclSuccess)
    return;
  cuda::fail(std::string(what) + ": " + nccl().ncclGetErrorString(r) + " (" +
             nccl().ncclGetLastError(nullptr) + ")");
}

/// The run's NCCL communicator. A world of one has one too (of one rank,
/// made without MPI), so that its collectives take the same path.
ncclComm_t communicator() {
  static ncclComm_t comm = [] {
    ncclComm_t c = nullptr;
    ncclUniqueId id{};
    if (dist::rank() == 0)
      checkNccl(nccl().ncclGetUniqueId(&id), "NCCL could not start");
    if (dist::worldSize() > 1)
      dist::broadcastBytes(&id, sizeof id, 0);
    cuda::rawStream(); // the rank's device, current
    checkNccl(nccl().ncclCommInitRank(&c, static_cast<int>(dist::worldSize()),
                                      id, static_cast<int>(dist::rank())),
              "NCCL could not join the run's ranks");
    return c;
  }();
  return comm;
}

/// A tensor of a request: its device block and elements.
struct Item {
  ncclDataType_t type;
  size_t elemSize;
  int64_t count;
  void *block;
};

struct Request {
  dist::Kind kind;
  dist::Reduction op;
  int64_t root;
  std::vector<Item> items;
  int64_t taken = 0;
};

std::map<int64_t, std::unique_ptr<Request>> &requests() {
  static auto *open = new std::map<int64_t, std::unique_ptr<Request>>();
  return *open;
}
int64_t nextRequest = 1;

Request &request(int64_t id) {
  auto it = requests().find(id);
  if (it == requests().end())
    cuda::fail("no collective request " + std::to_string(id) +
               " is open (internal error)");
  return *it->second;
}

int64_t elementsOf(int64_t rank, const MemrefDesc *d) {
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i)
    n *= d->dims[i];
  return n;
}

/// The address of a memref's first element, and whether its elements are
/// dense in row-major order.
char *dataOf(int64_t rank, const MemrefDesc *d, size_t elemSize, bool &dense) {
  int64_t expected = 1;
  dense = true;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (d->dims[i] != 1 && d->dims[rank + i] != expected)
      dense = false;
    expected *= d->dims[i];
  }
  return d->aligned + d->offset * static_cast<int64_t>(elemSize);
}

/// Copies a memref's elements, dense, into the device block `dst`: a
/// strided device view (a transposed gradient) by a kernel, a scalar in
/// host memory (one the host computed) through a pinned slot, a larger
/// host tensor across (the host waits).
void toBlock(void *dst, int64_t rank, void *desc, tflrt::DType dtype,
             size_t elemSize) {
  const MemrefDesc *d = descOf(desc);
  int64_t count = elementsOf(rank, d);
  if (count == 0)
    return;
  bool dense = false;
  char *src = dataOf(rank, d, elemSize, dense);
  bool onDevice = cuda::isDeviceMemory(src);
  if (dense && onDevice) {
    cuda::copyAsync(dst, src, count * elemSize, cudaMemcpyDeviceToDevice);
    return;
  }
  if (onDevice) { // a strided view (a transposed gradient): a kernel
    cuda::copyDense(dst, rank, desc, elemSize);
    return;
  }
  if (count * elemSize <= sizeof(int64_t)) {
    // A host scalar: through a pinned slot, without waiting.
    int64_t bits = 0;
    std::memcpy(&bits, src, count * elemSize);
    tflrt_cuda_write_scalar(static_cast<int64_t>(count * elemSize),
                            reinterpret_cast<int64_t>(dst), bits);
    return;
  }
  // The span the view addresses, on the host; there, the dense copy.
  int64_t lo = 0, hi = 0;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t reach = (d->dims[i] - 1) * d->dims[rank + i];
    (reach < 0 ? lo : hi) += reach;
  }
  std::vector<char> span;
  const char *base = src + lo * static_cast<int64_t>(elemSize);
  if (onDevice) {
    span.resize((hi - lo + 1) * elemSize);
    cuda::copyToHost(span.data(), base, span.size());
    base = span.data();
  }
  tflrt::TensorView v;
  v.dtype = dtype;
  v.shape.assign(d->dims, d->dims + rank);
  v.strides.assign(d->dims + rank, d->dims + 2 * rank);
  v.data = base - lo * static_cast<int64_t>(elemSize);
  tflrt::Tensor t = tflrt::materialize(v);
  cuda::copyToDevice(dst, t.data(), count * elemSize);
}

/// Copies `bytes` from the device block `src` to a fresh (dense) result
/// memref, in device or host memory.
void fromBlock(int64_t rank, void *desc, const void *src, size_t elemSize) {
  const MemrefDesc *d = descOf(desc);
  size_t bytes = static_cast<size_t>(elementsOf(rank, d)) * elemSize;
  if (bytes == 0)
    return;
  char *dst = d->aligned + d->offset * static_cast<int64_t>(elemSize);
  if (cuda::isDeviceMemory(dst))
    cuda::copyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
  else
    cuda::copyToHost(dst, src, bytes);
}

/// One NCCL operation: `count` elements from `in` to `out` (the same
/// block for a request's in-place ones).
struct Transfer {
  ncclDataType_t type;
  size_t elemSize;
  const void *in;
  void *out;
  int64_t count;
};

/// The request's kind of collective on each transfer, as one NCCL group in
/// one library call of the stream; copies in a world of one.
void issue(const Request &r, const std::vector<Transfer> &transfers) {
  ncclComm_t comm = communicator();
  if (!comm) {
    for (const Transfer &t : transfers)
      if (t.in != t.out && t.count > 0)
        cuda::copyAsync(t.out, t.in, t.count * t.elemSize,
                        cudaMemcpyDeviceToDevice);
    return;
  }
  cuda::Key key;
  key.add(static_cast<int64_t>(r.kind))
      .add(static_cast<int64_t>(r.op))
      .add(r.root);
  for (const Transfer &t : transfers)
    key.add(t.type).add(t.in).add(t.out).add(t.count);
  dist::Kind kind = r.kind;
  ncclRedOp_t op = r.op == dist::Reduction::Mean ? ncclAvg : ncclSum;
  int root = static_cast<int>(r.root);
  cuda::libraryCall("NCCL collective", key.str(), [=] {
    cudaStream_t s = cuda::rawStream();
    checkNccl(nccl().ncclGroupStart(), dist::kindName(kind));
    for (const Transfer &t : transfers) {
      size_t n = static_cast<size_t>(t.count);
      switch (kind) {
      case dist::Kind::AllReduce:
        checkNccl(nccl().ncclAllReduce(t.in, t.out, n, t.type, op, comm, s),
                  "all_reduce");
        break;
      case dist::Kind::Broadcast:
        checkNccl(nccl().ncclBroadcast(t.in, t.out, n, t.type, root, comm, s),
                  "broadcast");
        break;
      case dist::Kind::ReduceToRoot:
        checkNccl(
            nccl().ncclReduce(t.in, t.out, n, t.type, ncclSum, root, comm, s),
            "reduce_to_root");
        break;
      case dist::Kind::AllGather:
        checkNccl(nccl().ncclAllGather(t.in, t.out, n, t.type, comm, s),
                  "all_gather");
        break;
      }
    }
    checkNccl(nccl().ncclGroupEnd(), dist::kindName(kind));
  });
  // reduce_to_root leaves zeros off the root.
  if (kind == dist::Kind::ReduceToRoot && dist::rank() != r.root)
    for (const Transfer &t : transfers)
      if (t.count > 0)
        cuda::memsetAsync(t.out, 0, t.count * t.elemSize / 4, 4);
}

void checkRoot(const Request &r) {
  if ((r.kind == dist::Kind::Broadcast || r.kind == dist::Kind::ReduceToRoot) &&
      (r.root < 0 || r.root >= dist::worldSize()))
    cuda::fail(std::string(dist::kindName(r.kind)) + "'s root " +
               std::to_string(r.root) + " is not a rank of this run (" +
               std::to_string(dist::worldSize()) + " processes)");
}

void add(int64_t id, int64_t rank, void *in, tflrt::DType dtype,
         ncclDataType_t type, size_t elemSize) {
  Request &r = request(id);
  int64_t count = elementsOf(rank, descOf(in));
  void *block = cuda::allocate(std::max<size_t>(count * elemSize, 4));
  toBlock(block, rank, in, dtype, elemSize);
  r.items.push_back({type, elemSize, count, block});
}

void take(int64_t id, int64_t index, int64_t rank, void *out) {
  Request &r = request(id);
  const Item &item = r.items.at(static_cast<size_t>(index));
  fromBlock(rank, out, item.block, item.elemSize);
  cuda::release(item.block);
  if (++r.taken == static_cast<int64_t>(r.items.size()))
    requests().erase(id);
}

void run(int64_t kind, int64_t op, int64_t root, int64_t rankIn, void *in,
         int64_t rankOut, void *out, tflrt::DType dtype, ncclDataType_t type,
         size_t elemSize) {
  Request r{static_cast<dist::Kind>(kind),
            static_cast<dist::Reduction>(op),
            root,
            {},
            0};
  checkRoot(r);
  if (r.kind == dist::Kind::AllGather) {
    // The output's rows are the ranks the program was compiled for.
    try {
      dist::checkWorldSize(rankOut > 0 ? descOf(out)->dims[0] : 0);
    } catch (const dist::CollectiveError &e) {
      cuda::fail(e.what());
    }
  }
  int64_t count = elementsOf(rankIn, descOf(in));
  size_t bytes = std::max<size_t>(count * elemSize, 4);
  // The tensors as they are when both are dense device memory, else
  // through blocks of the device.
  bool inDense = false, outDense = false;
  const char *src = dataOf(rankIn, descOf(in), elemSize, inDense);
  char *dst = dataOf(rankOut, descOf(out), elemSize, outDense);
  void *inBlock = nullptr, *outBlock = nullptr;
  if (!inDense || !cuda::isDeviceMemory(src)) {
    inBlock = cuda::allocate(bytes);
    toBlock(inBlock, rankIn, in, dtype, elemSize);
    src = static_cast<const char *>(inBlock);
  }
  if (!cuda::isDeviceMemory(dst)) {
    outBlock = cuda::allocate(bytes * (kind == int64_t(dist::Kind::AllGather)
                                           ? dist::worldSize()
                                           : 1));
    dst = static_cast<char *>(outBlock);
  }
  issue(r, {{type, elemSize, src, dst, count}});
  if (outBlock) {
    fromBlock(rankOut, out, outBlock, elemSize);
    cuda::release(outBlock);
  }
  if (inBlock)
    cuda::release(inBlock);
}

} // namespace

extern "C" {

int64_t tflrt_cuda_collective_begin(int64_t kind, int64_t op, int64_t root) {
  auto r = std::make_unique<Request>();
  r->kind = static_cast<dist::Kind>(kind);
  r->op = static_cast<dist::Reduction>(op);
  r->root = root;
  checkRoot(*r);
  int64_t id = nextRequest++;
  requests()[id] = std::move(r);
  return id;
}

void tflrt_cuda_collective_start(int64_t id) {
  Request &r = request(id);
  std::vector<Transfer> transfers;
  for (const Item &item : r.items)
    transfers.push_back(
        {item.type, item.elemSize, item.block, item.block, item.count});
  issue(r, transfers);
}

/// The device work is ordered on the stream: nothing to wait for here.
void tflrt_cuda_collective_wait(int64_t id) { request(id); }

#define TFLRT_CUDA_COLLECTIVE(SUFFIX, DTYPE, NCCL_TYPE, CTYPE)                 \
  void tflrt_cuda_collective_add_##SUFFIX(int64_t request, int64_t rankIn,     \
                                          void *in) {                          \
    add(request, rankIn, in, tflrt::DType::DTYPE, NCCL_TYPE, sizeof(CTYPE));   \
  }                                                                            \
  void tflrt_cuda_collective_take_##SUFFIX(int64_t request, int64_t index,     \
                                           int64_t rankOut, void *out) {       \
    take(request, index, rankOut, out);                                        \
  }                                                                            \
  void tflrt_cuda_collective_run_##SUFFIX(                                     \
      int64_t kind, int64_t op, int64_t root, int64_t rankIn, void *in,        \
      int64_t rankOut, void *out) {                                            \
    run(kind, op, root, rankIn, in, rankOut, out, tflrt::DType::DTYPE,         \
        NCCL_TYPE, sizeof(CTYPE));                                             \
  }
TFLRT_CUDA_COLLECTIVE(f32, F32, ncclFloat32, float)
TFLRT_CUDA_COLLECTIVE(f64, F64, ncclFloat64, double)
TFLRT_CUDA_COLLECTIVE(i32, I32, ncclInt32, int32_t)
TFLRT_CUDA_COLLECTIVE(i64, I64, ncclInt64, int64_t)
#undef TFLRT_CUDA_COLLECTIVE

} // extern "C"
