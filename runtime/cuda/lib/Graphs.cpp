//===- Graphs.cpp - A loop's device work replayed as CUDA graphs ----------===//
//
// A training step issues the same kernels, copies and library calls every
// iteration, and issuing them one by one costs the host a few microseconds
// each: small-batch steps are bound by it. The compiler marks the body of
// each innermost loop that issues device work (`tfl-step-graphs`:
// tflrt_cuda_step_begin(site) ... tflrt_cuda_step_end(site)). Between the
// markers this file records the device work instead of issuing it, and at
// the end of the iteration:
//
//  - when an earlier iteration's graph of this loop holds the same work
//    (the same kernels with the same grids, copies and fills of the same
//    sizes, library calls with the same arguments), the kernel arguments
//    and copy addresses that differ (a batch's start, a pinned slot) are
//    updated in the instantiated graph and the graph is launched: one call
//    instead of dozens;
//  - otherwise the recorded work is captured into a new graph (stream
//    capture, so cuBLAS's and cuDNN's kernels are captured as they run) and
//    launched; a loop keeps its last few graphs, since values carried from
//    step to step alternate between buffers.
//
// The first iteration of a loop runs directly (libraries create their
// handles and plans there). Anything that needs the stream's results on
// the host, or issues work directly (a wait, a copy to or from host memory,
// a host function on device tensors), first issues what was recorded, in
// order, so recording never changes what a program computes; the rest of
// that iteration runs directly. A loop whose iterations keep differing (or
// keep waiting) stops being recorded. TFL_CUDA_GRAPHS=0 in the environment
// turns recording off; TFL_CUDA_GRAPHS=stats prints, at exit, how many
// graphs were launched and how many of those were captured anew, and
// TFL_CUDA_GRAPHS=trace also says why each iteration that was not replayed
// missed (the first piece of work no kept graph matched).
//
// Library calls make their allocations (cuDNN's workspace, a reordered
// filter) when the host reaches them, not when they are issued, so that
// the caching allocator hands out blocks in the same program order as
// without recording.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Libraries.h"
#include "tflrt/CudaApi.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tflrt::cuda {
namespace {

/// Where each parameter of a kernel lies in a packed argument buffer.
struct ParamLayout {
  std::vector<size_t> offsets, sizes;
  size_t bytes = 0;
  bool known = false;
};

/// The layout of `function`'s parameters, from the driver (CUDA 12.4 and
/// later); unknown when it cannot say.
const ParamLayout &layoutOf(CUfunction function, size_t count) {
  static std::unordered_map<CUfunction, ParamLayout> layouts;
  auto [it, inserted] = layouts.try_emplace(function);
  ParamLayout &layout = it->second;
  if (!inserted)
    return layout;
  layout.known = true;
  for (size_t i = 0; i < count; ++i) {
    size_t offset = 0, size = 0;
    if (driver().cuFuncGetParamInfo(function, i, &offset, &size) !=
        CUDA_SUCCESS) {
      layout.known = false;
      break;
    }
    layout.offsets.push_back(offset);
    layout.sizes.push_back(size);
    layout.bytes = std::max(layout.bytes, offset + size);
  }
  return layout;
}

/// One piece of recorded device work.
struct Op {
  enum Kind { Kernel, Copy, Memset, Library } kind;
  // Kernel: the function, grid and block, shared memory, packed arguments.
  CUfunction function = nullptr;
  unsigned dims[7] = {};
  std::vector<char> args;
  const ParamLayout *layout = nullptr;
  // Copy and Memset.
  void *dst = nullptr;
  const void *src = nullptr;
  size_t bytes = 0;
  cudaMemcpyKind direction = cudaMemcpyDefault;
  unsigned value = 0, elemSize = 0;
  // Library: what identifies the call, and the call.
  std::string key;
  std::function<void()> run;

  /// The parameter pointers for the driver, into `args`.
  std::vector<void *> params() {
    std::vector<void *> ptrs;
    for (size_t offset : layout->offsets)
      ptrs.push_back(args.data() + offset);
    return ptrs;
  }

  void issue(cudaStream_t s) {
    switch (kind) {
    case Kernel: {
      std::vector<void *> ptrs = params();
      checkDriver(driver().cuLaunchKernel(function, dims[0], dims[1], dims[2],
                                          dims[3], dims[4], dims[5], dims[6],
                                          reinterpret_cast<CUstream>(s),
                                          ptrs.data(), nullptr),
                  "a GPU kernel could not be launched");
      return;
    }
    case Copy:
      check(cudaMemcpyAsync(dst, src, bytes, direction, s),
            "a GPU copy failed");
      return;
    case Memset:
      checkDriver(
          elemSize == 4
              ? driver().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst),
                                          value, bytes,
                                          reinterpret_cast<CUstream>(s))
              : driver().cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst),
                                          static_cast<unsigned short>(value),
                                          bytes, reinterpret_cast<CUstream>(s)),
          "a GPU memset failed");
      return;
    case Library:
      run();
      return;
    }
  }

  /// Whether a graph node made for `o` can do this op's work once its
  /// arguments or addresses are updated.
  bool fits(const Op &o) const {
    if (kind != o.kind)
      return false;
    switch (kind) {
    case Kernel:
      return function == o.function &&
             std::memcmp(dims, o.dims, sizeof dims) == 0 &&
             args.size() == o.args.size();
    case Copy:
      return bytes == o.bytes && direction == o.direction;
    case Memset:
      return bytes == o.bytes && elemSize == o.elemSize;
    case Library:
      return key == o.key;
    }
    return false;
  }
};

struct Graph {
  std::vector<Op> ops; // as the graph's nodes do them now
  std::vector<CUgraphNode> nodes;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  uint64_t lastUse = 0;

  ~Graph() {
    if (exec)
      (void)cudaGraphExecDestroy(exec);
    if (graph)
      (void)cudaGraphDestroy(graph);
  }
};

struct Site {
  std::vector<std::unique_ptr<Graph>> graphs;
  int64_t iterations = 0, hits = 0, misses = 0;
  bool off = false;
};

/// Graphs kept per loop, and the misses after which a loop whose
/// iterations rarely repeat stops being recorded.
constexpr size_t kGraphsPerSite = 4;
constexpr int64_t kMissesBeforeGivingUp = 8;

struct Recorder {
  bool enabled = true;
  bool recording = false;
  int64_t site = -1;
  std::vector<Op> pending;
  std::unordered_map<int64_t, Site> sites;
  uint64_t clock = 0;

  /// Graph launches and captures over the run (TFL_CUDA_GRAPHS=stats
  /// prints them at exit; =trace also each miss).
  int64_t launched = 0, captured = 0;
  bool stats = false, trace = false;

  Recorder() {
    const char *env = std::getenv("TFL_CUDA_GRAPHS");
    enabled = !(env && std::strcmp(env, "0") == 0) && !launchBlocking() &&
              !profiling();
    trace = env && std::strcmp(env, "trace") == 0;
    stats = trace || (env && std::strcmp(env, "stats") == 0);
  }

  /// TFL_CUDA_GRAPHS=trace: why iteration `s.iterations` of loop `id`
  /// was not replayed.
  void traceMiss(int64_t id, const Site &s, const std::string &why) {
    if (trace)
      std::fprintf(stderr, "step graphs: loop %lld, iteration %lld: %s\n",
                   static_cast<long long>(id),
                   static_cast<long long>(s.iterations), why.c_str());
  }

  /// A library call's key (raw bytes: its plan and buffers) in hex, in
  /// 8-byte words.
  static std::string hex(const std::string &key) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (size_t word = 0; word < key.size(); word += 8) {
      if (word)
        out += ' ';
      size_t end = std::min(key.size(), word + 8);
      for (size_t i = end; i-- > word;) { // little-endian words
        unsigned char c = static_cast<unsigned char>(key[i]);
        out += digits[c >> 4];
        out += digits[c & 15];
      }
    }
    return out;
  }

  /// The first piece of `ops` that graph `g` cannot do, described.
  static std::string firstMismatch(const Graph &g, const std::vector<Op> &ops) {
    if (g.ops.size() != ops.size())
      return std::to_string(ops.size()) + " pieces of work against " +
             std::to_string(g.ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
      if (!g.ops[i].fits(ops[i]))
        return "piece " + std::to_string(i) + " differs" +
               (ops[i].kind == Op::Library && g.ops[i].kind == Op::Library
                    ? " (library call " + hex(ops[i].key) + " against " +
                          hex(g.ops[i].key) + ")"
                    : "");
    return "a node could not be updated";
  }

  void miss(Site &s) {
    ++s.misses;
    if (s.misses >= kMissesBeforeGivingUp && s.hits < s.misses) {
      s.off = true;
      s.graphs.clear();
    }
  }

  /// Issues the recorded work directly; the rest of the iteration runs
  /// directly too.
  void issuePending(const char *why = "an iteration left early") {
    recording = false;
    std::vector<Op> ops = std::move(pending);
    pending.clear();
    cudaStream_t s = rawStream();
    for (Op &op : ops)
      op.issue(s);
    if (!ops.empty()) {
      traceMiss(site, sites[site],
                std::string(why) + " after " + std::to_string(ops.size()) +
                    " recorded pieces of work");
      miss(sites[site]);
    }
  }

  /// The node a kernel, copy or fill just captured on `s` became.
  static CUgraphNode lastNode(cudaStream_t s) {
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = nullptr;
    size_t count = 0;
    check(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr,
                                   &count),
          "cannot capture a CUDA graph");
    return count == 1 ? reinterpret_cast<CUgraphNode>(deps[0]) : nullptr;
  }

  std::unique_ptr<Graph> capture(std::vector<Op> ops) {
    cudaStream_t s = rawStream();
    auto g = std::make_unique<Graph>();
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed),
          "cannot capture a CUDA graph");
    for (Op &op : ops) {
      op.issue(s);
      g->nodes.push_back(op.kind == Op::Library ? nullptr : lastNode(s));
    }
    check(cudaStreamEndCapture(s, &g->graph), "cannot capture a CUDA graph");
    check(cudaGraphInstantiate(&g->exec, g->graph, 0),
          "cannot instantiate a CUDA graph");
    g->ops = std::move(ops);
    return g;
  }

  /// Brings `g`'s nodes to the arguments and addresses of `ops`; false
  /// when a node cannot be updated.
  static bool update(Graph &g, std::vector<Op> &ops) {
    for (size_t i = 0; i < ops.size(); ++i) {
      Op &now = ops[i], &was = g.ops[i];
      CUgraphNode node = g.nodes[i];
      switch (now.kind) {
      case Op::Kernel: {
        if (now.args == was.args)
          break;
        if (!node)
          return false;
        std::vector<void *> ptrs = now.params();
        CUDA_KERNEL_NODE_PARAMS p = {};
        p.func = now.function;
        p.gridDimX = now.dims[0];
        p.gridDimY = now.dims[1];
        p.gridDimZ = now.dims[2];
        p.blockDimX = now.dims[3];
        p.blockDimY = now.dims[4];
        p.blockDimZ = now.dims[5];
        p.sharedMemBytes = now.dims[6];
        p.kernelParams = ptrs.data();
        if (driver().cuGraphExecKernelNodeSetParams(
                reinterpret_cast<CUgraphExec>(g.exec), node, &p) !=
            CUDA_SUCCESS)
          return false;
        was.args = now.args;
        break;
      }
      case Op::Copy:
        if (now.dst == was.dst && now.src == was.src)
          break;
        if (!node ||
            cudaGraphExecMemcpyNodeSetParams1D(
                g.exec, reinterpret_cast<cudaGraphNode_t>(node), now.dst,
                now.src, now.bytes, now.direction) != cudaSuccess)
          return false;
        was.dst = now.dst;
        was.src = now.src;
        break;
      case Op::Memset: {
        if (now.dst == was.dst && now.value == was.value)
          break;
        if (!node)
          return false;
        CUDA_MEMSET_NODE_PARAMS p = {};
        p.dst = reinterpret_cast<CUdeviceptr>(now.dst);
        p.elementSize = now.elemSize;
        p.width = now.bytes;
        p.height = 1;
        p.value = now.value;
        CUcontext ctx = nullptr;
        driver().cuCtxGetCurrent(&ctx);
        if (driver().cuGraphExecMemsetNodeSetParams(
                reinterpret_cast<CUgraphExec>(g.exec), node, &p, ctx) !=
            CUDA_SUCCESS)
          return false;
        was.dst = now.dst;
        was.value = now.value;
        break;
      }
      case Op::Library:
        break;
      }
    }
    return true;
  }

  static bool fits(const Graph &g, const std::vector<Op> &ops) {
    if (g.ops.size() != ops.size())
      return false;
    for (size_t i = 0; i < ops.size(); ++i)
      if (!g.ops[i].fits(ops[i]))
        return false;
    return true;
  }

  void end(int64_t id) {
    if (!recording || id != site) {
      if (recording)
        issuePending();
      return;
    }
    recording = false;
    std::vector<Op> ops = std::move(pending);
    pending.clear();
    if (ops.empty())
      return;
    Site &s = sites[id];
    cudaStream_t st = rawStream();
    for (auto &g : s.graphs) {
      if (!fits(*g, ops))
        continue;
      if (!update(*g, ops))
        break; // a node that cannot change: capture anew
      check(cudaGraphLaunch(g->exec, st), "cannot launch a CUDA graph");
      g->lastUse = ++clock;
      ++s.hits;
      ++launched;
      return;
    }
    if (trace) {
      std::string why = s.graphs.empty() ? "no graph kept yet" : "";
      for (auto &g : s.graphs)
        why += (why.empty() ? "" : "; ") + firstMismatch(*g, ops);
      traceMiss(id, s, why);
    }
    miss(s);
    if (s.off) {
      for (Op &op : ops)
        op.issue(st);
      return;
    }
    std::unique_ptr<Graph> g = capture(std::move(ops));
    check(cudaGraphLaunch(g->exec, st), "cannot launch a CUDA graph");
    g->lastUse = ++clock;
    ++launched;
    ++captured;
    if (s.graphs.size() < kGraphsPerSite) {
      s.graphs.push_back(std::move(g));
      return;
    }
    auto oldest = std::min_element(
        s.graphs.begin(), s.graphs.end(),
        [](const auto &a, const auto &b) { return a->lastUse < b->lastUse; });
    *oldest = std::move(g);
  }

  void begin(int64_t id) {
    if (recording)
      issuePending(); // an iteration left early
    site = id;
    if (!enabled)
      return;
    Site &s = sites[id];
    if (++s.iterations < 2 || s.off)
      return; // the first iteration warms the libraries up
    recording = true;
  }

  void record(Op op) { pending.push_back(std::move(op)); }
};

Recorder &recorder() {
  static Recorder *r = new Recorder(); // outlives atexit
  return *r;
}

} // namespace

bool recording() { return recorder().recording; }

void reportStepGraphs() {
  Recorder &r = recorder();
  if (r.stats)
    std::fprintf(stderr, "step graphs: %lld launched, %lld captured\n",
                 static_cast<long long>(r.launched),
                 static_cast<long long>(r.captured));
}

void issueRecorded(const char *why) {
  Recorder &r = recorder();
  if (r.recording)
    r.issuePending(why);
}

void launchKernel(CUfunction function, const unsigned dims[7], void **params,
                  size_t count) {
  Recorder &r = recorder();
  const ParamLayout *layout =
      r.recording ? &layoutOf(function, count) : nullptr;
  if (!layout || !layout->known) {
    ProfileScope timed("kernel", function);
    checkDriver(driver().cuLaunchKernel(function, dims[0], dims[1], dims[2],
                                        dims[3], dims[4], dims[5], dims[6],
                                        reinterpret_cast<CUstream>(stream()),
                                        params, nullptr),
                "a GPU kernel could not be launched");
    return waitIfBlocking();
  }
  Op op{Op::Kernel};
  op.function = function;
  std::memcpy(op.dims, dims, sizeof op.dims);
  op.layout = layout;
  op.args.assign(layout->bytes, 0);
  for (size_t i = 0; i < count; ++i)
    std::memcpy(op.args.data() + layout->offsets[i], params[i],
                layout->sizes[i]);
  r.record(std::move(op));
}

void copyAsync(void *dst, const void *src, size_t bytes,
               cudaMemcpyKind direction) {
  if (bytes == 0)
    return;
  Recorder &r = recorder();
  if (!r.recording) {
    ProfileScope timed("copy");
    check(cudaMemcpyAsync(dst, src, bytes, direction, stream()),
          "a GPU copy failed");
    return waitIfBlocking();
  }
  Op op{Op::Copy};
  op.dst = dst;
  op.src = src;
  op.bytes = bytes;
  op.direction = direction;
  r.record(std::move(op));
}

void memsetAsync(void *dst, unsigned value, size_t count, unsigned elemSize) {
  if (count == 0)
    return;
  Recorder &r = recorder();
  Op op{Op::Memset};
  op.dst = dst;
  op.value = value;
  op.bytes = count;
  op.elemSize = elemSize;
  if (!r.recording) {
    ProfileScope timed("fill");
    op.issue(stream());
    return waitIfBlocking();
  }
  r.record(std::move(op));
}

void libraryCall(const char *what, std::string key, std::function<void()> run) {
  Recorder &r = recorder();
  if (!r.recording) {
    stream(); // issues nothing recorded (none is), sets the device up
    ProfileScope timed(what);
    run();
    return waitIfBlocking();
  }
  Op op{Op::Library};
  op.key = std::move(key);
  op.run = std::move(run);
  r.record(std::move(op));
}

} // namespace tflrt::cuda

extern "C" {

void tflrt_cuda_step_begin(int64_t site) {
  tflrt::cuda::recorder().begin(site);
}

void tflrt_cuda_step_end(int64_t site) { tflrt::cuda::recorder().end(site); }

} // extern "C"
