//===- Collectives.cpp - Collectives across processes ---------------------===//
//
// The communication engine behind tflrt/Collectives.h: a world of one
// process (every collective a copy) unless an MPI launcher started the
// run, and then a thread that initializes MPI (MPI_THREAD_SERIALIZED) and
// runs the requests in the order they start; a collective that compiled
// code waits for at once runs on the program's thread while that thread
// is idle, one MPI call at a time. Built without MPI (TFL_HAVE_MPI
// unset), a run that mpirun launched stops with an error saying so. The
// C ABI's entry points are in CollectivesCApi.cpp, the copies and the MPI
// calls in CollectivesMpi.cpp.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Collectives.h"
#include "CollectivesMpi.h" // <mpi.h>, when built with MPI
#include "tflrt/CApi.h"     // tflrt_where
#include "tflrt/Kernels.h"
#include "tflrt/Output.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <time.h>

namespace tflrt::dist {

using namespace transport;

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::AllReduce:
    return "all_reduce";
  case Kind::Broadcast:
    return "broadcast";
  case Kind::ReduceToRoot:
    return "reduce_to_root";
  case Kind::AllGather:
    return "all_gather";
  }
  return "collective";
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int64_t nanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

/// A monotonic clock to the scheduler's tick, a few nanoseconds to read:
/// the watchdog of direct calls needs no more.
int64_t coarseNanoseconds() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/// A tensor of a request. A staged request holds a copy of its input (at
/// `offset` elements into its dtype's group) until take() copies the
/// result out; a direct one reads `input` and writes `output` itself.
struct Item {
  DType dtype;
  int64_t count;
  int64_t offset = 0;
  TensorView input;
  void *output = nullptr;
};

/// The tensors of one dtype: one MPI call moves them all.
struct Group {
  DType dtype;
  int64_t count = 0;
  std::vector<char> staging;
  std::vector<const Item *> items;
};

struct Request {
  Kind kind;
  Reduction op;
  int64_t root;
  bool staged;
  std::vector<Item> items;
  std::vector<Group> groups;
  bool done = false;
  int64_t taken = 0;

  Group &group(DType dtype) {
    for (Group &g : groups)
      if (g.dtype == dtype)
        return g;
    groups.push_back(Group{dtype, 0, {}, {}});
    return groups.back();
  }
};

/// What the communication thread did, for TFL_COLLECTIVE_STATS=1: the
/// requests it ran, the bytes they reduced or moved, the seconds it spent
/// in MPI, and the seconds the program waited for it.
struct Stats {
  int64_t requests = 0;
  int64_t bytes = 0;
  double commSeconds = 0;
  double waitSeconds = 0;
};

/// The engine: the world, the requests, and (with MPI) the thread that
/// runs them.
class Engine {
public:
  static Engine &get() {
    // Made on first use and never destroyed: the communication thread may
    // still be blocked in MPI when a failed run exits.
    static Engine *engine = new Engine();
    return *engine;
  }

  int64_t rank = 0;
  int64_t size = 1;
  bool mpi = false;

  int64_t begin(Kind kind, Reduction op, int64_t root, bool staged);
  /// Runs a direct request on the calling thread when the communication
  /// thread has nothing to do (MPI_THREAD_SERIALIZED), that thread
  /// watching the time; false when it must go through the queue.
  bool runHere(Request &r);
  /// runHere for one contiguous tensor of `count` elements (`in` may be
  /// `out`): no request to build.
  bool runHere(Kind kind, Reduction op, int64_t root, DType dtype,
               const void *in, void *out, int64_t count);
  void checkRoot(Kind kind, int64_t root);
  void addItem(Request &r, const TensorView &input, void *output);
  void add(int64_t id, const TensorView &input, void *output);
  void start(int64_t id);
  void wait(int64_t id);
  void take(int64_t id, int64_t index, void *output);
  void runOnThread(std::function<void()> job);
  void finish();
  Stats stats() {
    std::lock_guard<std::mutex> lock(mutex);
    return counters;
  }

private:
  Engine();
  void loop();
  void enqueue(std::function<void()> job);
  void execute(Request &r);
  void executeGroup(const Request &r, Group &g);
  Request &request(int64_t id);
  void close(int64_t id);
  std::string timeoutMessage(Kind kind);

  std::mutex mutex;
  std::condition_variable wake, completed;
  std::deque<std::function<void()>> jobs;
  std::map<int64_t, std::unique_ptr<Request>> requests;
  int64_t nextId = 1;
  double timeout = 300.0;
  Stats counters;
  std::thread thread;
  bool stopping = false;
  bool finished = false;
  // MPI may be called from the program's thread too, one call at a time.
  bool serialized = false;
  // TFL_COLLECTIVE_STATS: direct calls time themselves only then.
  bool statsWanted = false;
  // The jobs queued or running on the communication thread (only the
  // program's thread adds any: at 0 the communication thread is idle and
  // stays so). Or the program's thread runs one, since directSince
  // (coarse monotonic nanoseconds; 0: none), which the idle communication
  // thread checks now and then against the timeout (so a direct call costs
  // no lock and no signal between the threads).
  std::atomic<int64_t> pending{0};
  std::atomic<int64_t> directSince{0};
  std::atomic<const char *> directWhere{nullptr};
  std::atomic<Kind> directKind{Kind::AllReduce};
};

Engine::Engine() {
  timeout = timeoutSeconds();
  const char *stats = std::getenv("TFL_COLLECTIVE_STATS");
  statsWanted = stats && *stats && *stats != '0';
  if (!launchedByMpi())
    return;
#ifdef TFL_HAVE_MPI
  mpi = true;
  bool ready = false;
  thread = std::thread([this, &ready] {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    int r = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    {
      std::lock_guard<std::mutex> lock(mutex);
      rank = r;
      size = n;
      serialized = provided >= MPI_THREAD_SERIALIZED;
      ready = true;
    }
    completed.notify_all();
    loop();
  });
  std::unique_lock<std::mutex> lock(mutex);
  if (!completed.wait_for(lock, std::chrono::duration<double>(timeout),
                          [&] { return ready; }))
    failAt(nullptr, "MPI did not start within " +
                        std::to_string(static_cast<int>(timeout)) +
                        " s (TFL_COLLECTIVE_TIMEOUT)");
  atSuccessfulFinish([] { Engine::get().finish(); });
#else
  failAt(nullptr,
         "this program was started by an MPI launcher, but this TFL was "
         "built without MPI: install Open MPI (libopenmpi-dev) and build "
         "TFL again to run it on several processes");
#endif
}

void Engine::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex);
      auto period = std::chrono::duration<double>(std::min(timeout / 2, 1.0));
      wake.wait_for(lock, period, [&] { return !jobs.empty() || stopping; });
      // The program's thread may be in MPI: stop it if it stays too long.
      int64_t since = directSince.load(std::memory_order_acquire);
      if (since && coarseNanoseconds() - since > timeout * 1e9)
        failAt(directWhere.load(std::memory_order_relaxed),
               timeoutMessage(directKind.load(std::memory_order_relaxed)));
      if (jobs.empty()) {
        if (stopping)
          break;
        continue;
      }
      job = std::move(jobs.front());
      jobs.pop_front();
    }
    job();
    pending.fetch_sub(1, std::memory_order_release);
  }
#ifdef TFL_HAVE_MPI
  MPI_Finalize();
#endif
}

void Engine::enqueue(std::function<void()> job) {
  pending.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex);
    jobs.push_back(std::move(job));
  }
  wake.notify_one();
}

Request &Engine::request(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = requests.find(id);
  if (it == requests.end())
    throw CollectiveError("no collective request " + std::to_string(id) +
                          " is open (internal error)");
  return *it->second;
}

void Engine::close(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex);
  requests.erase(id);
}

void Engine::checkRoot(Kind kind, int64_t root) {
  if ((kind == Kind::Broadcast || kind == Kind::ReduceToRoot) &&
      (root < 0 || root >= size))
    throw CollectiveError(
        std::string(kindName(kind)) + "'s root " + std::to_string(root) +
        " is not a rank of this run (" + std::to_string(size) + " process" +
        (size == 1 ? "" : "es") + ")");
}

int64_t Engine::begin(Kind kind, Reduction op, int64_t root, bool staged) {
  checkRoot(kind, root);
  auto r = std::make_unique<Request>();
  r->kind = kind;
  r->op = op;
  r->root = root;
  r->staged = staged;
  std::lock_guard<std::mutex> lock(mutex);
  int64_t id = nextId++;
  requests[id] = std::move(r);
  return id;
}

void Engine::add(int64_t id, const TensorView &input, void *output) {
  addItem(request(id), input, output);
}

void Engine::addItem(Request &r, const TensorView &input, void *output) {
  if (r.kind == Kind::AllReduce && r.op == Reduction::Mean &&
      !isFloat(input.dtype))
    throw CollectiveError(std::string("all_reduce's mean needs float "
                                      "tensors, got ") +
                          dtypeName(input.dtype));
  if (r.staged && r.kind == Kind::AllGather)
    throw CollectiveError("all_gather runs one tensor at a time (internal "
                          "error)");
  Item item{input.dtype, numElements(input.shape), 0, {}, nullptr};
  if (r.staged) {
    // The copy, so that the program may free the input at once.
    Group &g = r.group(input.dtype);
    item.offset = g.count;
    g.count += item.count;
    g.staging.resize(g.count * dtypeSize(input.dtype));
    copyOut(input, g.staging.data() + item.offset * dtypeSize(input.dtype));
  } else {
    item.input = input;
    item.output = output;
  }
  r.items.push_back(item);
}

/// The request's groups point at its items: made once every item is in.
void groupItems(Request &r) {
  if (!r.staged)
    for (const Item &item : r.items)
      r.group(item.dtype).count += item.count;
  for (const Item &item : r.items)
    r.group(item.dtype).items.push_back(&item);
}

void Engine::start(int64_t id) {
  Request *r = &request(id);
  groupItems(*r);
  if (!mpi) {
    execute(*r);
    r->done = true;
    return;
  }
  enqueue([this, r] {
    Clock::time_point t0 = Clock::now();
    execute(*r);
    double seconds = secondsSince(t0);
    {
      std::lock_guard<std::mutex> lock(mutex);
      r->done = true;
      counters.commSeconds += seconds;
    }
    completed.notify_all();
  });
}

std::string Engine::timeoutMessage(Kind kind) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeout);
  return std::string(kindName(kind)) + " on rank " + std::to_string(rank) +
         " of " + std::to_string(size) +
         ": the other ranks did not take part within " + seconds +
         " s (one may have stopped, or taken another path through the "
         "program); TFL_COLLECTIVE_TIMEOUT sets the limit";
}

void Engine::wait(int64_t id) {
  Request &r = request(id);
  Clock::time_point t0 = Clock::now();
  {
    std::unique_lock<std::mutex> lock(mutex);
    if (!completed.wait_for(lock, std::chrono::duration<double>(timeout),
                            [&] { return r.done; }))
      throw CollectiveError(timeoutMessage(r.kind));
    counters.waitSeconds += secondsSince(t0);
  }
  if (!r.staged)
    close(id);
}

bool Engine::runHere(Request &r) {
  if (!serialized || pending.load(std::memory_order_acquire) != 0)
    return false;
  directWhere.store(tflrt_where, std::memory_order_relaxed);
  directKind.store(r.kind, std::memory_order_relaxed);
  groupItems(r);
  int64_t t0 = nanoseconds();
  directSince.store(coarseNanoseconds(), std::memory_order_release);
  execute(r);
  directSince.store(0, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mutex);
    double seconds = (nanoseconds() - t0) * 1e-9;
    counters.commSeconds += seconds;
    counters.waitSeconds += seconds;
  }
  return true;
}

bool Engine::runHere(Kind kind, Reduction op, int64_t root, DType dtype,
                     const void *in, void *out, int64_t count) {
#ifdef TFL_HAVE_MPI
  checkRoot(kind, root);
  if (op == Reduction::Mean && !isFloat(dtype))
    throw CollectiveError(std::string("all_reduce's mean needs float "
                                      "tensors, got ") +
                          dtypeName(dtype));
  if (!serialized || pending.load(std::memory_order_acquire) != 0)
    return false;
  directWhere.store(tflrt_where, std::memory_order_relaxed);
  directKind.store(kind, std::memory_order_relaxed);
  int64_t t0 = statsWanted ? nanoseconds() : 0;
  directSince.store(coarseNanoseconds(), std::memory_order_release);
  mpiCollective(kind, root, rank, dtype,
                in == out ? nullptr : static_cast<const char *>(in),
                static_cast<char *>(out), count);
  directSince.store(0, std::memory_order_release);
  if (kind == Kind::AllReduce && op == Reduction::Mean && size > 1)
    divide(dtype, out, count, size);
  if (statsWanted) {
    std::lock_guard<std::mutex> lock(mutex);
    double seconds = (nanoseconds() - t0) * 1e-9;
    counters.requests += 1;
    counters.bytes += count * static_cast<int64_t>(dtypeSize(dtype));
    counters.commSeconds += seconds;
    counters.waitSeconds += seconds;
  }
  return true;
#else
  (void)kind, (void)op, (void)root, (void)dtype, (void)in, (void)out,
      (void)count;
  return false;
#endif
}

void Engine::take(int64_t id, int64_t index, void *output) {
  Request &r = request(id);
  if (!r.done || index < 0 || index >= static_cast<int64_t>(r.items.size()))
    throw CollectiveError("no result " + std::to_string(index) +
                          " of collective request " + std::to_string(id) +
                          " (internal error)");
  const Item &item = r.items[index];
  size_t esize = dtypeSize(item.dtype);
  std::memcpy(output, r.group(item.dtype).staging.data() + item.offset * esize,
              item.count * esize);
  if (++r.taken == static_cast<int64_t>(r.items.size()))
    close(id);
}

void Engine::runOnThread(std::function<void()> job) {
  std::mutex doneMutex;
  std::condition_variable doneCv;
  bool done = false;
  enqueue([&] {
    job();
    std::lock_guard<std::mutex> lock(doneMutex);
    done = true;
    doneCv.notify_all();
  });
  std::unique_lock<std::mutex> lock(doneMutex);
  doneCv.wait(lock, [&] { return done; });
}

void Engine::execute(Request &r) {
  int64_t bytes = 0;
  for (Group &g : r.groups) {
    executeGroup(r, g);
    bytes += g.count * static_cast<int64_t>(dtypeSize(g.dtype));
  }
  std::lock_guard<std::mutex> lock(mutex);
  counters.requests += 1;
  counters.bytes += bytes;
}

void Engine::executeGroup(const Request &r, Group &g) {
  size_t esize = dtypeSize(g.dtype);
  bool lone = !r.staged && g.items.size() == 1;
  if (r.kind == Kind::AllGather || (lone && isContiguous(g.items[0]->input))) {
    // Straight from the input to the output (all_gather has one tensor).
    const Item &item = *g.items[0];
    if (!isContiguous(item.input)) {
      Tensor dense = materialize(item.input);
      Item copy = item;
      copy.input = dense.view();
      Group single{g.dtype, g.count, {}, {&copy}};
      executeGroup(r, single);
      return;
    }
    // In place (MPI_IN_PLACE) when the output is the input's buffer.
    const char *in = static_cast<const char *>(item.input.data);
    if (in == item.output)
      in = nullptr;
    if (!mpi) {
      if (in)
        copyOut(item.input, item.output);
      return;
    }
#ifdef TFL_HAVE_MPI
    mpiCollective(r.kind, r.root, rank, g.dtype, in,
                  static_cast<char *>(item.output), item.count);
#endif
  } else {
    // In place on one buffer: the staged copies, or the direct inputs
    // packed (on this thread, which may be the communication thread).
    if (!r.staged) {
      g.staging.resize(g.count * esize);
      int64_t offset = 0;
      for (const Item *item : g.items) {
        copyOut(item->input, g.staging.data() + offset * esize);
        offset += item->count;
      }
    }
#ifdef TFL_HAVE_MPI
    if (mpi)
      mpiCollective(r.kind, r.root, rank, g.dtype, nullptr, g.staging.data(),
                    g.count);
#endif
    if (!r.staged) {
      int64_t offset = 0;
      for (const Item *item : g.items) {
        std::memcpy(item->output, g.staging.data() + offset * esize,
                    item->count * esize);
        offset += item->count;
      }
    }
  }
  if (r.kind == Kind::AllReduce && r.op == Reduction::Mean && size > 1) {
    if (r.staged)
      divide(g.dtype, g.staging.data(), g.count, size);
    else
      for (const Item *item : g.items)
        divide(g.dtype, item->output, item->count, size);
  }
}

void Engine::finish() {
  if (!mpi || finished)
    return;
  finished = true;
  if (statsWanted) {
    Stats st = stats();
    double hidden =
        st.commSeconds > 0
            ? 1.0 - std::min(st.waitSeconds, st.commSeconds) / st.commSeconds
            : 0.0;
    std::fprintf(stderr,
                 "collectives on rank %lld: %lld requests, %.1f MiB, %.3f s "
                 "communicating, %.3f s waited (%.0f%% hidden)\n",
                 static_cast<long long>(rank),
                 static_cast<long long>(st.requests), st.bytes / 1048576.0,
                 st.commSeconds, st.waitSeconds, 100.0 * hidden);
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_one();
  thread.join();
}

} // namespace

int64_t rank() { return Engine::get().rank; }
int64_t worldSize() { return Engine::get().size; }
bool usesMpi() { return Engine::get().mpi; }

std::optional<int64_t> launchedSize() {
  for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char *n = std::getenv(var))
      return std::max<int64_t>(1, std::atoll(n));
  return launchedByMpi() ? std::nullopt : std::optional<int64_t>(1);
}

int64_t begin(Kind kind, Reduction op, int64_t root) {
  return Engine::get().begin(kind, op, root, /*staged=*/true);
}
void add(int64_t request, const TensorView &input) {
  Engine::get().add(request, input, nullptr);
}
void start(int64_t request) { Engine::get().start(request); }
void wait(int64_t request) { Engine::get().wait(request); }
void take(int64_t request, int64_t index, void *output) {
  Engine::get().take(request, index, output);
}

void checkWorldSize(int64_t size) {
  int64_t actual = worldSize();
  if (size != actual)
    throw CollectiveError(
        "this program was compiled for " + std::to_string(size) + " process" +
        (size == 1 ? "" : "es") + " (tflc --world-size), but " + "runs on " +
        std::to_string(actual));
}

void runInto(Kind kind, Reduction op, int64_t root, const TensorView &input,
             const TensorView &output) {
  if (kind == Kind::AllGather) // the output's rows are the ranks
    checkWorldSize(output.shape.empty() ? 0 : output.shape[0]);
  if (isContiguous(output)) {
    run(kind, op, root, {input}, {const_cast<void *>(output.data)},
        /*here=*/true);
    return;
  }
  // A strided result (in place on a view of a larger buffer): computed
  // contiguous, then written into the view.
  Tensor dense(output.dtype, output.shape);
  run(kind, op, root, {input}, {dense.data()}, /*here=*/true);
  copyIn(dense.data(), output);
}

void run(Kind kind, Reduction op, int64_t root,
         const std::vector<TensorView> &inputs,
         const std::vector<void *> &outputs, bool here) {
  Engine &engine = Engine::get();
  if (here && engine.mpi) {
    Request r{kind, op, root, /*staged=*/false, {}, {}};
    engine.checkRoot(kind, root);
    for (size_t i = 0; i < inputs.size(); ++i)
      engine.addItem(r, inputs[i], outputs[i]);
    if (engine.runHere(r))
      return;
  }
  int64_t id = engine.begin(kind, op, root, /*staged=*/false);
  for (size_t i = 0; i < inputs.size(); ++i)
    engine.add(id, inputs[i], outputs[i]);
  engine.start(id);
  engine.wait(id);
}

std::vector<Tensor> run(Kind kind, Reduction op, int64_t root,
                        const std::vector<Tensor> &inputs) {
  std::vector<Tensor> outputs;
  std::vector<TensorView> views;
  std::vector<void *> buffers;
  for (const Tensor &in : inputs) {
    Shape shape = in.shape();
    if (kind == Kind::AllGather)
      shape.insert(shape.begin(), worldSize());
    outputs.emplace_back(in.dtype(), shape);
    views.push_back(in.view());
    buffers.push_back(outputs.back().data());
  }
  run(kind, op, root, views, buffers);
  return outputs;
}

bool runDense(Kind kind, Reduction op, int64_t root, DType dtype,
              const void *input, void *output, int64_t count) {
  Engine &engine = Engine::get();
  return engine.mpi && kind != Kind::AllGather &&
         engine.runHere(kind, op, root, dtype, input, output, count);
}

void broadcastBytes(void *data, size_t size, int64_t root) {
#ifdef TFL_HAVE_MPI
  Engine::get().runOnThread([=] {
    MPI_Bcast(data, static_cast<int>(size), MPI_BYTE, static_cast<int>(root),
              MPI_COMM_WORLD);
  });
#else
  (void)data;
  (void)size;
  (void)root;
#endif
}

} // namespace tflrt::dist
