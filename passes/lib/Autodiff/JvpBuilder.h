//===- JvpBuilder.h - Forward mode's builder of jvp functions ---*- C++ -*-===//
//
// Forward mode (Forward.cpp): for a function `f(x...) -> (y...)`, its
// Jacobian-vector product `f.jvp(x..., tx...) -> (y..., ty...)`, one pass
// over f's ops in order with each active value's tangent computed next to
// it. The activity analysis is reverse mode's (VjpBuilder::markActive).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_PASSES_AUTODIFF_JVPBUILDER_H
#define TFL_PASSES_AUTODIFF_JVPBUILDER_H

#include "VjpBuilder.h"

namespace mlir::tfl::autodiff {

class BatchBuilder;

class JvpBuilder {
public:
  JvpBuilder(ModuleOp module, VjpBuilder &reverse)
      : module(module), symbols(reverse.symbols), reverse(reverse) {}

  /// Which jvp of a @custom_gradient function: from its rule (the
  /// residuals' tangents zeros), of its body as written, or both (the
  /// rule's value tangent, the body's residual tangents: a second
  /// derivative reads the residuals).
  enum class JvpKind { Custom, Primal, Full };
  /// The jvp function of `f`, built on first use, with the arguments
  /// marked in `differentiated` active (all float arguments when empty):
  /// the others' tangents are read as zeros.
  FailureOr<func::FuncOp> jvpOf(func::FuncOp f,
                                ArrayRef<bool> differentiated = {},
                                JvpKind kind = JvpKind::Custom);

  /// Replaces `jvp` by a call of its callee's jvp function.
  LogicalResult expand(JvpOp jvp);
  /// Replaces `jacobian` by a call of its callee's jvp (jacfwd) or vjp
  /// (jacrev) batched over the basis vectors, or where that cannot be
  /// (a function vmap does not batch, a basis too large), by loops of
  /// calls, one per basis vector (Jacobians.cpp).
  LogicalResult expand(JacobianOp jacobian);
  /// The builder of batched functions the Jacobians use.
  BatchBuilder *batching = nullptr;

private:
  /// The Jacobian's [result elements, operand elements] matrices, per
  /// differentiated operand then result: by a loop of jvps over the
  /// operand's basis tangents, or of vjps over the result's basis
  /// cotangents.
  FailureOr<SmallVector<Value>> jacobianColumns(OpBuilder &b, JacobianOp op,
                                                func::FuncOp callee);
  FailureOr<SmallVector<Value>> jacobianRows(OpBuilder &b, JacobianOp op,
                                             func::FuncOp callee);
  /// The same by one call of the jvp (vjp) batched over a basis: none
  /// where the function cannot be batched.
  SmallVector<Value> batchedColumns(OpBuilder &b, JacobianOp op,
                                    func::FuncOp jvp, int64_t argnum);
  SmallVector<Value> batchedRows(OpBuilder &b, JacobianOp op, func::FuncOp vjp,
                                 size_t output);
  /// The results of `fn` (a jvp or vjp of the Jacobian's callee) batched
  /// over the basis of its input `at`, passed the op's operands, the basis
  /// and zeros for its other inputs, each broadcast to the basis where the
  /// batched function's is not; failure where it cannot be batched.
  FailureOr<SmallVector<Value>> callOnBasis(OpBuilder &b, JacobianOp op,
                                            func::FuncOp fn, size_t at);

private:
  FailureOr<func::FuncOp> build(func::FuncOp f, StringRef suffix,
                                ArrayRef<bool> differentiated);
  /// An empty jvp function of `f` named with `suffix`, of signature (args,
  /// their tangents) -> (results, their tangents), with `b` at the start
  /// of its body.
  func::FuncOp createJvpFunction(OpBuilder &b, func::FuncOp f,
                                 StringRef suffix);
  /// The jvp of a @custom_gradient function, derived from its rule: the
  /// rule's vjp is linear in the value's cotangent, and reverse mode
  /// through it with respect to that cotangent is its transpose, J t. The
  /// residuals' tangents are zeros (callers see the value only). A
  /// @custom_jvp function's applies its rule (the user's jvp_fn) to the
  /// tangents and the residuals.
  FailureOr<func::FuncOp> buildCustom(func::FuncOp f);
  FailureOr<func::FuncOp> buildFromTangentRule(func::FuncOp f);
  FailureOr<func::FuncOp> buildFull(func::FuncOp f);
  /// Copies `block`'s ops (not its terminator) at `b` through `map`, each
  /// active value's tangent computed after its copy into `tangent` (keyed
  /// by the original value; absent means zero).
  LogicalResult forwardBlock(OpBuilder &b, Block &block, IRMapping &map,
                             DenseMap<Value, Value> &tangent);
  LogicalResult forwardOp(OpBuilder &b, Operation &op, IRMapping &map,
                          DenseMap<Value, Value> &tangent);
  /// The tangents of a copied op's results (null for none) from its
  /// operands' tangents (null for zero), by transposing the op's pullback:
  /// the pullback, built on placeholder cotangents, is linear in them, so
  /// reverse mode over its ops, seeded with the operands' tangents, gives
  /// at the placeholders J t. The pullback's ops left dead are erased.
  FailureOr<SmallVector<Value>> tangentOf(OpBuilder &b, Operation *copy,
                                          ArrayRef<Value> operandTangents);
  /// scf.if, scf.for, scf.while: the same op, with the tangents of the
  /// active values it yields or carries as extra results (and iteration
  /// arguments): tangents ride along, nothing is kept for later.
  LogicalResult forwardIf(OpBuilder &b, scf::IfOp op, IRMapping &map,
                          DenseMap<Value, Value> &tangent);
  LogicalResult forwardFor(OpBuilder &b, scf::ForOp op, IRMapping &map,
                           DenseMap<Value, Value> &tangent);
  LogicalResult forwardWhile(OpBuilder &b, scf::WhileOp op, IRMapping &map,
                             DenseMap<Value, Value> &tangent);
  /// A tape op of f (a gradient's loop): its entries' tangents are on the
  /// tangent tape, at the same positions; reads there give the tangents
  /// of what was read.
  void forwardTapeOp(OpBuilder &b, Operation &op, IRMapping &map,
                     DenseMap<Value, Value> &tangent);
  /// A call of a user function: a call of the callee's jvp.
  LogicalResult forwardCall(OpBuilder &b, func::CallOp op, IRMapping &map,
                            DenseMap<Value, Value> &tangent);
  /// The tangent of `v`, or zeros of its type.
  Value tangentOrZeros(OpBuilder &b, Location loc,
                       const DenseMap<Value, Value> &tangent, Value v);
  /// Copies into `into` the mapped values of `values`, then the tangents
  /// (or zeros) of those at `indices`.
  void withTangents(OpBuilder &b, Location loc, ValueRange values,
                    ArrayRef<unsigned> indices, IRMapping &map,
                    const DenseMap<Value, Value> &tangent,
                    SmallVectorImpl<Value> &into);
  /// Copies `from`'s ops to the end of `to` and ends it with an scf.yield
  /// of what `from` yields, then the tangents of those at `indices`.
  LogicalResult forwardAndYield(OpBuilder &b, Block &from, Block *to,
                                ArrayRef<unsigned> indices, IRMapping &map,
                                DenseMap<Value, Value> &tangent);
  /// Maps `op`'s results to `copy`'s first ones, and the tangents of those
  /// at `indices` to `copy`'s results after them, in order.
  void mapResults(Operation *op, Operation *copy, ArrayRef<unsigned> indices,
                  IRMapping &map, DenseMap<Value, Value> &tangent);
  /// The positions of `values` that are active.
  SmallVector<unsigned> activeIndices(ValueRange values) const;

  ModuleOp module;
  /// Reverse mode's table: it holds the vjps built so far.
  SymbolTable &symbols;
  VjpBuilder &reverse;
  /// Built jvps by function, kind and active arguments ('1'/'0').
  std::map<std::tuple<Operation *, int, std::string>, func::FuncOp> jvps;
  /// The active values of the function being differentiated, and its
  /// tapes whose entries, or whose accumulators, hold active values.
  DenseSet<Value> active;
  DenseSet<int64_t> activeEntries, activeSums;
  /// The tangent tape of tape k is tangentTapes + k: above f's own.
  int64_t tangentTapes = 0;
};

} // namespace mlir::tfl::autodiff

#endif // TFL_PASSES_AUTODIFF_JVPBUILDER_H
