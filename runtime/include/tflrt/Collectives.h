//===- Collectives.h - Collectives across processes -------------*- C++ -*-===//
//
// all_reduce, broadcast, reduce_to_root and all_gather across the processes
// of a run that `mpirun` launched, on Open MPI (any MPI with
// MPI_THREAD_FUNNELED). A process that no MPI launcher started is a world
// of one: rank 0, and every collective is a copy, so programs that use
// them run unchanged alone.
//
// MPI is run by a thread of the runtime's own, started at the first
// collective (or rank()/world_size()): it initializes MPI, then runs the
// collectives in the order they are started, one request at a time. The
// program's thread starts a request and goes on computing until it waits
// for it, which is how the gradients of a training step are reduced while
// the backward pass still runs (the compiler starts each bucket of
// gradients as soon as the reverse pass has made them). A collective that
// compiled code waits for at once runs on the program's thread instead
// when that thread is idle (MPI_THREAD_SERIALIZED: one MPI call at a
// time), saving the hand-over.
//
// A request is built by begin() and one add() per tensor, which copies the
// tensor into the request (the program may free it at once), then start();
// wait() returns once the collective is done, and take() copies each
// result out. A request's tensors of one dtype travel as one MPI call: a
// bucket costs one message however many tensors it holds. (PyTorch's DDP
// copies its gradients into and out of its buckets the same way.) run()
// does a whole collective at once, without the copies when a dtype has one
// contiguous tensor.
//
// Errors (a root that is no rank, a wait that runs past
// TFL_COLLECTIVE_TIMEOUT seconds because another rank stopped or took
// another path through the program) throw CollectiveError; the C ABI
// reports them at the op's .tfl line.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_COLLECTIVES_H
#define TFLRT_COLLECTIVES_H

#include "tflrt/Tensor.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tflrt::dist {

/// The collectives. The numbering is part of the C ABI (CApi.h).
enum class Kind : int64_t {
  /// Every rank gets the reduction of every rank's input.
  AllReduce = 0,
  /// Every rank gets the root's input.
  Broadcast = 1,
  /// The root gets the sum of every rank's input, the others zeros
  /// (broadcast's adjoint).
  ReduceToRoot = 2,
  /// Every rank gets every rank's input, stacked in rank order on a new
  /// leading axis.
  AllGather = 3
};

/// How all_reduce combines. The numbering is part of the C ABI.
enum class Reduction : int64_t { Sum = 0, Mean = 1 };

/// A collective that cannot complete; reported at the op that started it.
class CollectiveError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The language's name of a collective ("all_reduce", ...).
const char *kindName(Kind kind);

/// This process's rank, and the number of processes in the run (MPI's
/// COMM_WORLD; 0 and 1 for a process no launcher started).
int64_t rank();
int64_t worldSize();

/// Opens a request for a collective (`root` for broadcast and
/// reduce_to_root). Requests are numbered from 1 in the order they begin.
int64_t begin(Kind kind, Reduction op, int64_t root);
/// Adds a copy of a tensor to a request that has not started.
void add(int64_t request, const TensorView &input);
/// Queues the request for the communication thread.
void start(int64_t request);
/// Waits until the request is done.
void wait(int64_t request);
/// Copies the result of the request's `index`-th tensor (of its dtype and
/// size) to `output`, after wait(); the last take closes the request.
void take(int64_t request, int64_t index, void *output);

/// One collective, started and waited for: each input's result goes to the
/// contiguous buffer at the same position of `outputs` (world_size() times
/// the input's elements for all_gather). With `here`, the calling thread
/// makes the MPI calls itself when the communication thread is idle (no
/// hand-over to pay), that thread stopping the program at the timeout
/// with an error at tflrt_where.
void run(Kind kind, Reduction op, int64_t root,
         const std::vector<TensorView> &inputs,
         const std::vector<void *> &outputs, bool here = false);
/// One collective of one dense tensor of `count` elements (`output` may be
/// `input`: in place), run at once on the calling thread when MPI is idle;
/// false, having done nothing, when it must take runInto's way.
bool runDense(Kind kind, Reduction op, int64_t root, DType dtype,
              const void *input, void *output, int64_t count);
/// One collective of one tensor into a view of any strides (the output
/// may be the input itself: in place).
void runInto(Kind kind, Reduction op, int64_t root, const TensorView &input,
             const TensorView &output);
/// The same on tensors, giving new tensors: the eager interpreter's way.
std::vector<Tensor> run(Kind kind, Reduction op, int64_t root,
                        const std::vector<Tensor> &inputs);

/// Throws unless the run has `size` processes: a program compiled for a
/// number of processes (tflc --world-size, all_gather's rows) checks it.
void checkWorldSize(int64_t size);

/// The number of processes an MPI launcher says it started (Open MPI's
/// and MPICH's environment), 1 for a process no launcher started, or
/// nullopt when a launcher started it without saying how many (PMIx):
/// read without starting MPI, as tflc run does when it compiles.
std::optional<int64_t> launchedSize();

/// Whether MPI runs this process (it was launched by mpirun; false for a
/// world of one process).
bool usesMpi();
/// Broadcasts raw bytes from `root` to every rank, in order with the
/// collectives started before (a GPU runtime bootstraps NCCL over MPI this
/// way; usesMpi() only).
void broadcastBytes(void *data, size_t size, int64_t root);

// At a run's successful end (tflrt::finishRun) the engine waits for the
// queued collectives, prints the statistics TFL_COLLECTIVE_STATS asks for
// (each rank's requests, bytes, seconds in MPI and seconds waited for it),
// and finalizes MPI. A run that fails exits without it, and the launcher
// stops the other ranks.

} // namespace tflrt::dist

#endif // TFLRT_COLLECTIVES_H
