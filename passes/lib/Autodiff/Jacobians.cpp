//===- Jacobians.cpp - jacfwd and jacrev as batched jvps and vjps ---------===//
//
// A `tfl.jacobian` becomes, as in JAX, the callee's jvp batched over the
// basis tangents of each differentiated operand (jacfwd), or its vjp
// batched over the basis cotangents of each result (jacrev): one call of
// the batched function (vmap's, BatchBuilder) on the identity, whose
// [basis, result or operand dims] result is the Jacobian's columns or
// rows, reshaped to the result's dims then the operand's (JAX's layout).
// `hessian` is jacfwd of jacrev: the pass expands the inner first, then
// batches the jvp of the batched vjp.
//
// Where the function cannot be batched (an op without a batching rule, a
// print) or the basis is too large (kMaxBasis), it is a loop over the
// basis vectors instead, each iteration calling the jvp (vjp) on one and
// adding its column (row) into the [result elements, operand elements]
// matrix as an outer product with the basis vector.
//
//===----------------------------------------------------------------------===//

#include "BatchBuilder.h"
#include "JvpBuilder.h"

namespace mlir::tfl::autodiff {

namespace {

/// The most basis vectors batched into one call, and the most elements
/// of a batched basis: above, a loop of calls keeps the memory a
/// Jacobian's intermediates take to one basis vector's.
constexpr int64_t kMaxBasis = 4096;
constexpr int64_t kMaxBasisElements = int64_t(1) << 22;

bool batchable(RankedTensorType type) {
  int64_t n = type.getNumElements();
  return n <= kMaxBasis && n * n <= kMaxBasisElements;
}

/// The n basis tensors of `type` (n its elements) as one [n, dims...]
/// tensor: the identity, in `type`'s element type.
Value basisBatch(OpBuilder &b, Location loc, RankedTensorType type) {
  ReverseBuilder r(b, loc);
  int64_t n = type.getNumElements();
  SmallVector<int64_t> iota(n);
  for (int64_t i = 0; i < n; ++i)
    iota[i] = i;
  Value range = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({n}, b.getI64Type()),
                             ArrayRef<int64_t>(iota)));
  Value identity =
      r.castTo(r.eq(r.reshape(range, {n, 1}), r.reshape(range, {1, n})),
               type.getElementType());
  SmallVector<int64_t> shape{n};
  llvm::append_range(shape, type.getShape());
  return r.reshape(identity, shape);
}

/// The basis tensor of `type` that is 1 at flat element `k` (an index),
/// zero elsewhere, in `type`'s element type.
Value basis(OpBuilder &b, Location loc, RankedTensorType type, Value k) {
  ReverseBuilder r(b, loc);
  int64_t n = type.getNumElements();
  SmallVector<int64_t> iota(n);
  for (int64_t i = 0; i < n; ++i)
    iota[i] = i;
  auto flat = RankedTensorType::get({n}, b.getI64Type());
  Value range = ConstantOp::create(
      b, loc, DenseElementsAttr::get(flat, ArrayRef<int64_t>(iota)));
  Value index = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, b.getI64Type()),
      ValueRange{arith::IndexCastOp::create(b, loc, b.getI64Type(), k)});
  Value hot = r.castTo(r.eq(range, index), type.getElementType());
  return r.reshape(hot, type.getShape());
}

/// `acc` ([m, n]) plus the outer product of `column` (m elements) and
/// `row` (n elements), both cast to acc's element type.
Value addOuter(OpBuilder &b, Location loc, Value acc, Value column, Value row) {
  ReverseBuilder r(b, loc);
  auto type = cast<RankedTensorType>(acc.getType());
  Type element = type.getElementType();
  Value c = r.reshape(r.castTo(column, element), {type.getDimSize(0), 1});
  Value w = r.reshape(r.castTo(row, element), {1, type.getDimSize(1)});
  return r.add(acc, r.mul(c, w));
}

/// A loop of `n` iterations carrying `inits`, with `body(b, k, carried)`
/// giving what each iteration yields.
scf::ForOp countedLoop(
    OpBuilder &b, Location loc, int64_t n, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value count = arith::ConstantIndexOp::create(b, loc, n);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return scf::ForOp::create(
      b, loc, zero, count, one, inits,
      [&](OpBuilder &lb, Location l, Value k, ValueRange carried) {
        scf::YieldOp::create(lb, l, body(lb, k, carried));
      });
}

RankedTensorType matrixOf(Type element, int64_t m, int64_t n) {
  return RankedTensorType::get({m, n}, element);
}

} // namespace

LogicalResult JvpBuilder::expand(JacobianOp op) {
  auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
  if (!callee)
    return op.emitError("unknown function @") << op.getCallee();
  FunctionType type = callee.getFunctionType();
  size_t outputs = op.getNumResults() / op.getArgnums().size();
  for (Value v : op.getOperands())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op.emitError("a Jacobian needs arguments of static shapes");
  for (size_t j = 0; j < outputs; ++j)
    if (!cast<RankedTensorType>(type.getResult(j)).hasStaticShape())
      return op.emitError("a Jacobian needs results of static shapes");
  OpBuilder b(op);
  FailureOr<SmallVector<Value>> matrices = op.getForward()
                                               ? jacobianColumns(b, op, callee)
                                               : jacobianRows(b, op, callee);
  if (failed(matrices))
    return failure();
  ReverseBuilder r(b, op.getLoc());
  SmallVector<Value> results;
  for (auto [matrix, result] : llvm::zip(*matrices, op.getResults())) {
    auto t = cast<RankedTensorType>(result.getType());
    results.push_back(
        r.reshape(r.castTo(matrix, t.getElementType()), t.getShape()));
  }
  op.replaceAllUsesWith(results);
  op.erase();
  return success();
}

FailureOr<SmallVector<Value>> JvpBuilder::callOnBasis(OpBuilder &b,
                                                      JacobianOp op,
                                                      func::FuncOp fn,
                                                      size_t at) {
  FunctionType type = fn.getFunctionType();
  auto basisType = cast<RankedTensorType>(type.getInput(at));
  if (!batching || !batchable(basisType))
    return failure();
  SmallVector<bool> mask(type.getNumInputs(), false);
  mask[at] = true;
  int64_t n = basisType.getNumElements();
  FailureOr<BatchBuilder::Batched> batched =
      batching->tryBatchedOf(fn, mask, n);
  if (failed(batched))
    return failure();
  Location loc = op.getLoc();
  SmallVector<Value> args(op.getOperands());
  for (size_t i = args.size(); i < type.getNumInputs(); ++i)
    args.push_back(i == at ? basisBatch(b, loc, basisType)
                           : zerosOf(b, loc, type.getInput(i)));
  auto call = func::CallOp::create(b, loc, batched->fn, args);
  SmallVector<Value> results;
  for (auto [r, on] : llvm::zip(call.getResults(), batched->results))
    results.push_back(on ? r : broadcastToBatch(b, loc, r, n));
  return results;
}

SmallVector<Value> JvpBuilder::batchedColumns(OpBuilder &b, JacobianOp op,
                                              func::FuncOp jvp,
                                              int64_t argnum) {
  size_t numInputs = op.getNumOperands();
  FailureOr<SmallVector<Value>> results =
      callOnBasis(b, op, jvp, numInputs + argnum);
  if (failed(results))
    return {};
  FunctionType type = jvp.getFunctionType();
  size_t numResults = type.getNumResults() / 2;
  int64_t n = cast<RankedTensorType>(type.getInput(numInputs + argnum))
                  .getNumElements();
  ReverseBuilder r(b, op.getLoc());
  SmallVector<Value> columns;
  size_t outputs = op.getNumResults() / op.getArgnums().size();
  for (size_t j = 0; j < outputs; ++j) {
    int64_t m = cast<RankedTensorType>(type.getResult(j)).getNumElements();
    // [basis, result elements] to the matrix's [result elements, basis].
    Value t = r.reshape((*results)[numResults + j], {n, m});
    columns.push_back(r.transpose(t, {1, 0}));
  }
  return columns;
}

SmallVector<Value> JvpBuilder::batchedRows(OpBuilder &b, JacobianOp op,
                                           func::FuncOp vjp, size_t output) {
  size_t numInputs = op.getNumOperands();
  FailureOr<SmallVector<Value>> results =
      callOnBasis(b, op, vjp, numInputs + output);
  if (failed(results))
    return {};
  FunctionType type = vjp.getFunctionType();
  size_t numResults = type.getNumInputs() - numInputs;
  int64_t m = cast<RankedTensorType>(type.getInput(numInputs + output))
                  .getNumElements();
  ReverseBuilder r(b, op.getLoc());
  SmallVector<Value> rows;
  for (int64_t a : op.getArgnums()) {
    int64_t n =
        cast<RankedTensorType>(op.getOperand(a).getType()).getNumElements();
    rows.push_back(r.reshape((*results)[numResults + a], {m, n}));
  }
  return rows;
}

FailureOr<SmallVector<Value>>
JvpBuilder::jacobianColumns(OpBuilder &b, JacobianOp op, func::FuncOp callee) {
  FailureOr<func::FuncOp> jvp = jvpOf(callee);
  if (failed(jvp))
    return failure();
  FunctionType type = callee.getFunctionType();
  ArrayRef<int64_t> argnums = op.getArgnums();
  size_t outputs = op.getNumResults() / argnums.size();
  Location loc = op.getLoc();
  SmallVector<Value> operands(op.getOperands());
  SmallVector<Value> matrices;
  for (int64_t a : argnums) {
    SmallVector<Value> columns = batchedColumns(b, op, *jvp, a);
    if (!columns.empty()) {
      llvm::append_range(matrices, columns);
      continue;
    }
    auto in = cast<RankedTensorType>(operands[a].getType());
    SmallVector<Value> inits;
    for (size_t j = 0; j < outputs; ++j) {
      auto out = cast<RankedTensorType>(type.getResult(j));
      inits.push_back(
          zerosOf(b, loc,
                  matrixOf(out.getElementType(), out.getNumElements(),
                           in.getNumElements())));
    }
    auto loop = countedLoop(
        b, loc, in.getNumElements(), inits,
        [&](OpBuilder &lb, Value index, ValueRange acc) {
          Value e = basis(lb, loc, in, index);
          SmallVector<Value> args(operands);
          for (auto [i, v] : llvm::enumerate(operands))
            args.push_back(static_cast<int64_t>(i) == a
                               ? e
                               : zerosOf(lb, loc, v.getType()));
          auto call = func::CallOp::create(lb, loc, *jvp, args);
          SmallVector<Value> next;
          for (size_t j = 0; j < outputs; ++j)
            next.push_back(addOuter(
                lb, loc, acc[j], call.getResult(type.getNumResults() + j), e));
          return next;
        });
    llvm::append_range(matrices, loop.getResults());
  }
  return matrices;
}

FailureOr<SmallVector<Value>>
JvpBuilder::jacobianRows(OpBuilder &b, JacobianOp op, func::FuncOp callee) {
  FunctionType type = callee.getFunctionType();
  ArrayRef<int64_t> argnums = op.getArgnums();
  size_t outputs = op.getNumResults() / argnums.size();
  SmallVector<bool> differentiated(type.getNumInputs(), false);
  for (int64_t a : argnums)
    differentiated[a] = true;
  FailureOr<func::FuncOp> vjp =
      reverse.vjpOf(callee, VjpBuilder::VjpKind::Custom, differentiated);
  if (failed(vjp))
    return failure();
  Location loc = op.getLoc();
  SmallVector<Value> operands(op.getOperands());
  // matrices[k * outputs + j]: d result j / d operand argnums[k].
  SmallVector<Value> matrices(op.getNumResults());
  for (size_t j = 0; j < outputs; ++j) {
    SmallVector<Value> rows = batchedRows(b, op, *vjp, j);
    if (!rows.empty()) {
      for (size_t k = 0; k < argnums.size(); ++k)
        matrices[k * outputs + j] = rows[k];
      continue;
    }
    auto out = cast<RankedTensorType>(type.getResult(j));
    SmallVector<Value> inits;
    for (int64_t a : argnums)
      inits.push_back(zerosOf(
          b, loc,
          matrixOf(
              out.getElementType(), out.getNumElements(),
              cast<RankedTensorType>(operands[a].getType()).getNumElements())));
    auto loop = countedLoop(
        b, loc, out.getNumElements(), inits,
        [&](OpBuilder &lb, Value index, ValueRange acc) {
          Value e = basis(lb, loc, out, index);
          SmallVector<Value> args(operands);
          for (auto [i, t] : llvm::enumerate(type.getResults()))
            args.push_back(i == j ? e : zerosOf(lb, loc, t));
          auto call = func::CallOp::create(lb, loc, *vjp, args);
          SmallVector<Value> next;
          for (auto [k, a] : llvm::enumerate(argnums))
            next.push_back(addOuter(lb, loc, acc[k], e,
                                    call.getResult(type.getNumResults() + a)));
          return next;
        });
    for (size_t k = 0; k < argnums.size(); ++k)
      matrices[k * outputs + j] = loop.getResult(k);
  }
  return matrices;
}

} // namespace mlir::tfl::autodiff
