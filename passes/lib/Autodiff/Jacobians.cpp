//===- Jacobians.cpp - jacfwd and jacrev as loops of jvps and vjps --------===//
//
// A `tfl.jacobian` becomes a loop: forward, over the elements of each
// differentiated operand, calling the callee's jvp on that element's basis
// tangent; reverse, over the elements of each result, calling its vjp on
// that element's basis cotangent. Each iteration adds its column (or row)
// into the [result elements, operand elements] matrix as an outer product
// with the basis vector, which is reshaped to the result's dims then the
// operand's (JAX's layout). `hessian` is jacfwd of jacrev: the pass
// expands the inner first, then pushes tangents through its loop.
//
//===----------------------------------------------------------------------===//

#include "JvpBuilder.h"

namespace mlir::tfl::autodiff {

namespace {

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
