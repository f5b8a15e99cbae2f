//===- BatchBuilder.h - vmap's builder of batched functions -----*- C++ -*-===//
//
// Batching (Batching.cpp): for a function `f(x...) -> (y...)` and a mask of
// which arguments are batched, `f.vmap(x...) -> (y...)` where each batched
// argument and result has a batch dim first. One pass over f's ops in
// order: an op none of whose operands is batched is copied as it is; the
// others go through their batching rule (Tfl_BatchOpInterface, or the
// generic one of the Tfl_Elementwise ops). Control flow: an `if` on a
// batched condition runs both branches and selects per example; a `while`
// on one runs until no example's condition holds, each example's state
// kept from where its own condition failed; loops carry a value batched
// once an iteration makes it so. A call calls the callee's batched
// function.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_PASSES_AUTODIFF_BATCHBUILDER_H
#define TFL_PASSES_AUTODIFF_BATCHBUILDER_H

#include "VjpBuilder.h"

#include "tfl/IR/BatchRules.h"

namespace mlir::tfl::autodiff {

/// True when the ops `op` holds only compute values (no print, no draw,
/// no file written; with `tapes`, tape ops too): what may run for
/// examples that would not run it.
bool onlyComputes(Operation *op, bool tapes = false);

/// For a `loop` (`what`) that vmap runs for every example until `until`:
/// an error at it unless its body only computes values (and uses tapes).
LogicalResult runsPastExit(Operation *loop, StringRef what, StringRef until);

class BatchBuilder {
public:
  /// Shares reverse mode's table of functions.
  BatchBuilder(ModuleOp module, VjpBuilder &reverse)
      : module(module), symbols(reverse.symbols) {}

  /// Replaces `vmap` by a call of its callee's batched function, with the
  /// batch dims moved first before it and to `out_axes` after it.
  LogicalResult expand(VmapOp vmap);

  /// A batched function and which of its results are batched.
  struct Batched {
    func::FuncOp fn;
    SmallVector<bool> results;
  };
  /// batchedOf, or failure without a diagnostic and without a trace in the
  /// module where `f` cannot be batched (the functions the attempt made
  /// are erased): for a caller that has another way (Jacobians' loops).
  FailureOr<Batched> tryBatchedOf(func::FuncOp f, ArrayRef<bool> batched,
                                  int64_t size);

private:
  /// The batched function of `f` for a batch of `size` with the arguments
  /// marked in `batched` batched, built on first use.
  FailureOr<Batched> batchedOf(func::FuncOp f, ArrayRef<bool> batched,
                               int64_t size);
  /// For `f` with a custom rule, batched as `fb` for the arguments marked
  /// in `mask`: gives `fb` the rule batched to match (its residuals as
  /// `fb` returns them), so that derivatives of the batched function use
  /// the rule too. Where a @custom_jvp rule's tangent differs per example
  /// and `fb`'s value does not, `fb` returns its value broadcast to the
  /// batch instead, so that it can carry those tangents.
  LogicalResult batchRule(func::FuncOp f, Batched &fb, ArrayRef<bool> mask);
  /// Broadcasts to the batch the values `fb` returns unbatched (its first
  /// `out.size()` results) whose tangents are batched (`tangents`),
  /// marking them in `fb.results` and `out`.
  void batchValues(Batched &fb, ArrayRef<bool> tangents,
                   MutableArrayRef<bool> out);

  /// Copies `block`'s ops (not its terminator) at `b` through `map`,
  /// batching those that read a batched value; with `mask` (a masked
  /// loop's body), for the examples it holds for (`activeMask`).
  LogicalResult batchBlock(OpBuilder &b, Block &block, IRMapping &map,
                           Value mask = {});
  LogicalResult batchOp(OpBuilder &b, Operation &op, IRMapping &map);
  LogicalResult batchIf(OpBuilder &b, scf::IfOp op, IRMapping &map);
  /// An if whose condition is batched: both branches, then a select.
  LogicalResult selectBranches(OpBuilder &b, scf::IfOp op, Value condition,
                               IRMapping &map);
  LogicalResult batchFor(OpBuilder &b, scf::ForOp op, IRMapping &map);
  LogicalResult batchWhile(OpBuilder &b, scf::WhileOp op, IRMapping &map);
  /// A while whose condition is batched: every carried value batched,
  /// the loop runs while any example's condition holds and an iteration
  /// changes only the examples whose condition held.
  LogicalResult maskedWhile(OpBuilder &b, scf::WhileOp op, IRMapping &map);
  /// A masked loop's next state: the copies of `yielded` (batched) where
  /// the [size] i1 `mask` holds, `old` elsewhere.
  SmallVector<Value> maskedYields(OpBuilder &b, Location loc,
                                  ValueRange yielded, Value mask,
                                  ValueRange old, IRMapping &map);
  /// A `for` whose upper bound differs per example: it runs to the
  /// largest, every carried value batched, and an iteration changes only
  /// the examples whose range holds it.
  LogicalResult maskedFor(OpBuilder &b, scf::ForOp op, IRMapping &map);
  /// The ops that move scalars between tensors and values (tensor.extract
  /// of a 0-d tensor, from_elements of one scalar) and an example's dims
  /// (`dim`), batched; nullopt for other ops.
  std::optional<LogicalResult>
  batchScalarPlumbing(OpBuilder &b, Operation &op, ArrayRef<Value> operands,
                      ArrayRef<bool> operandBatched, IRMapping &map);
  /// An arith op on scalars some of which differ per example (a `for`'s
  /// trip count, an index): the tfl op computing it on the batch's [size]
  /// tensors; failure for the ops that have none.
  FailureOr<Value> batchScalarOp(OpBuilder &b, Operation &op,
                                 ArrayRef<Value> operands);
  LogicalResult batchCall(OpBuilder &b, func::CallOp op, IRMapping &map);
  /// conv2d_backward_filter per example: a loop over the examples, each
  /// a filter gradient (oneDNN's) added into its row of the batch's (a
  /// filter's gradient sums over an example's images, so the images of
  /// the batch cannot be one batch of images).
  Value filterGradients(OpBuilder &b, Conv2DBackwardFilterOp op,
                        ArrayRef<Value> operands,
                        ArrayRef<bool> operandBatched);
  /// A tape op (a gradient's loop): a tape holds batched entries once a
  /// batched value is stored on it, and its reads give batched values.
  LogicalResult batchTapeOp(OpBuilder &b, Operation &op, IRMapping &map);
  /// An optimization barrier over the batched operands: each result is
  /// batched where its operand is (it keeps each as it is).
  LogicalResult batchBarrier(OpBuilder &b, Operation &op,
                             ArrayRef<Value> operands,
                             ArrayRef<bool> operandBatched, IRMapping &map);

  /// Narrows `activeMask` to the examples where the [size] i1 `mask`
  /// holds too, returning the mask it was.
  Value narrowActive(OpBuilder &b, Location loc, Value mask);
  /// The copies of an index op's integer `operands` (slice starts, gather
  /// indices) with 0 for the examples `activeMask` leaves out: a masked
  /// loop runs its body for examples past their range, on values that
  /// may index past a tensor's end; 0 is in range, and what they compute
  /// is discarded.
  void maskIndices(OpBuilder &b, Location loc,
                   SmallVectorImpl<Value> &operands);

  /// Whether the copy of `v` is batched.
  bool isBatched(Value copy) const { return batched.contains(copy); }
  /// The copies of `values` through `map`, those marked in `toBatch` but
  /// not batched broadcast to the batch.
  SmallVector<Value> mappedAs(OpBuilder &b, Location loc, ValueRange values,
                              ArrayRef<bool> toBatch, IRMapping &map);
  /// The copy of an example's `type`, batched or not.
  Type typeAs(Type type, bool batch) const {
    return batch ? batchedType(type, size) : type;
  }
  /// Whether `op` reads a batched value, as an operand or from inside its
  /// regions, or touches a tape that holds batched entries; when it does
  /// not, the tapes it touches count as used unbatched.
  bool readsBatched(Operation &op, IRMapping &map);
  /// A block at the end of `to` with arguments of `types` standing for
  /// `from`'s, those marked in `on` batched.
  Block *blockCopy(Region &to, Block &from, TypeRange types, ArrayRef<bool> on,
                   IRMapping &map);
  /// Erases `op`, a copy given up, and forgets its values.
  void discard(Operation *op);
  /// Forgets the values of `op` and of the ops in it (before erasing it).
  void forget(Operation *op);
  void discard(Block *block);

  ModuleOp module;
  SymbolTable &symbols;
  /// Built batched functions by function, mask ('1'/'0') and size.
  std::map<std::tuple<Operation *, std::string, int64_t>, Batched> built;
  /// The batch size of the function being built.
  int64_t size = 0;
  /// The examples a masked loop's body runs for (a [size] i1 tensor), null
  /// outside one.
  Value activeMask;
  /// The copies that have the batch dim first; for an i1 or integer
  /// scalar read out of a batched 0-d tensor (a condition), the copy is
  /// the batch's [size] tensor.
  DenseSet<Value> batched;
  /// The function being built's tapes whose entries (or accumulators) are
  /// batched; those it used unbatched; and whether a tape became batched
  /// after an unbatched use, so that the function is built again.
  struct Tapes {
    DenseSet<int64_t> entries, sums, usedUnbatched;
    bool again = false;
  } tapes;
};

} // namespace mlir::tfl::autodiff

#endif // TFL_PASSES_AUTODIFF_BATCHBUILDER_H
