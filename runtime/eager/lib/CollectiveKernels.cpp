//===- CollectiveKernels.cpp - Eager kernels of the collectives -----------===//
//
// The collective ops on libtflrt's engine (tflrt/Collectives.h), as
// compiled code calls it: all_reduce, broadcast and reduce_to_root run at
// once on the op's tensors; all_reduce_start and all_reduce_wait (which
// only tfl-overlap-collectives makes) keep their split.
//
//===----------------------------------------------------------------------===//

#include "tfl/Eager/Interpreter.h"
#include "tfl/IR/TflOps.h"
#include "tflrt/Collectives.h"

using namespace mlir;

namespace tfl::eager {

namespace {

namespace dist = tflrt::dist;

/// Runs a collective's step, its errors reported at the op.
template <typename Fn> auto collective(Fn fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const dist::CollectiveError &e) {
    throw RuntimeError(e.what());
  }
}

dist::Reduction reductionOf(mlir::tfl::CollectiveReduction op) {
  return op == mlir::tfl::CollectiveReduction::mean ? dist::Reduction::Mean
                                                    : dist::Reduction::Sum;
}

Tensor scalarI64(int64_t v) {
  Tensor t(tflrt::DType::I64, {});
  t.data<int64_t>()[0] = v;
  return t;
}

/// An all_gather's rows are the world's ranks.
void checkWorld(int64_t rows) {
  collective([&] { dist::checkWorldSize(rows); });
}

/// A kernel running collective `kind` on all of the op's operands.
template <typename OpTy>
void addCollective(KernelRegistry &registry, dist::Kind kind) {
  registry.add(
      OpTy::getOperationName(),
      [kind](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto c = cast<OpTy>(op);
        dist::Reduction reduction = dist::Reduction::Sum;
        int64_t root = 0;
        if constexpr (std::is_same_v<OpTy, mlir::tfl::AllReduceOp>)
          reduction = reductionOf(c.getOp());
        else if constexpr (std::is_same_v<OpTy, mlir::tfl::AllGatherOp>)
          checkWorld(c.getType().getDimSize(0));
        else
          root = static_cast<int64_t>(c.getRoot());
        std::vector<Tensor> inputs(in.begin(), in.end());
        llvm::append_range(out, collective([&] {
                             return dist::run(kind, reduction, root, inputs);
                           }));
      });
}

} // namespace

void registerCollectiveKernels(KernelRegistry &registry) {
  using namespace mlir::tfl;
  registry.add(RankOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
                 out.push_back(scalarI64(dist::rank()));
               });
  registry.add(WorldSizeOp::getOperationName(),
               [](Operation *, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
                 out.push_back(scalarI64(dist::worldSize()));
               });
  addCollective<AllReduceOp>(registry, dist::Kind::AllReduce);
  addCollective<BroadcastOp>(registry, dist::Kind::Broadcast);
  addCollective<ReduceToRootOp>(registry, dist::Kind::ReduceToRoot);
  addCollective<AllGatherOp>(registry, dist::Kind::AllGather);
  registry.add(
      AllReduceStartOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        auto start = cast<AllReduceStartOp>(op);
        int64_t request = collective([&] {
          int64_t r =
              dist::begin(dist::Kind::AllReduce, reductionOf(start.getOp()), 0);
          for (const Tensor &t : in)
            dist::add(r, t.view());
          dist::start(r);
          return r;
        });
        out.push_back(scalarI64(request));
      });
  registry.add(
      AllReduceWaitOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        int64_t request = in[0].data<int64_t>()[0];
        collective([&] {
          dist::wait(request);
          for (auto [i, type] : llvm::enumerate(op->getResultTypes())) {
            auto t = cast<RankedTensorType>(type);
            Tensor result(
                toRuntimeDType(t.getElementType()),
                tflrt::Shape(t.getShape().begin(), t.getShape().end()));
            dist::take(request, static_cast<int64_t>(i), result.data());
            out.push_back(result);
          }
        });
      });
}

} // namespace tfl::eager
