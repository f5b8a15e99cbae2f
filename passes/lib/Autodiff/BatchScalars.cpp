//===- BatchScalars.cpp - vmap of scalar arithmetic and of ranges ---------===//
//
// A scalar read out of a batched 0-d tensor (a `for`'s bound, a value its
// range starts from) is the batch's [size] tensor (BatchBuilder's
// `batched`). The arith ops on such scalars become the tfl ops that compute
// the same per example on that tensor (an index as an i64), and a `for`
// whose trip count differs per example runs to the largest, each example's
// carried values kept from its own last iteration on (maskedFor), as a
// `while` on a condition that differs per example does. Inside such loops
// (and a gradient's reverse loop past an example's iterations) the
// examples that run on past their own range index at 0 (`maskIndices`):
// their loop variable may lie past a tensor's end, and what they compute
// is discarded.
//
//===----------------------------------------------------------------------===//

#include "BatchBuilder.h"

namespace mlir::tfl::autodiff {

namespace {

/// The element type a batched scalar of `type` has: an index is an i64.
Type elementOf(Type type) {
  return type.isIndex() ? IntegerType::get(type.getContext(), 64) : type;
}

/// An unbatched scalar `v` as a 0-d tensor (an index as an i64).
Value scalarTensor(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
}

std::optional<ComparePredicate> predicateOf(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::slt:
    return ComparePredicate::lt;
  case arith::CmpIPredicate::sle:
    return ComparePredicate::le;
  case arith::CmpIPredicate::sgt:
    return ComparePredicate::gt;
  case arith::CmpIPredicate::sge:
    return ComparePredicate::ge;
  case arith::CmpIPredicate::eq:
    return ComparePredicate::eq;
  case arith::CmpIPredicate::ne:
    return ComparePredicate::ne;
  default:
    return std::nullopt;
  }
}

} // namespace

/// True when the ops `op` holds only compute values (no print, no draw,
/// no file written; with `tapes`, tape ops too): what may run for
/// examples that would not run it.
bool onlyComputes(Operation *op, bool tapes) {
  WalkResult r = op->walk([&](Operation *inner) {
    return inner == op || isMemoryEffectFree(inner) ||
                   isa<scf::YieldOp, scf::ConditionOp>(inner) ||
                   (tapes && inner->hasAttr("tape"))
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

LogicalResult runsPastExit(Operation *loop, StringRef what, StringRef until) {
  // A gradient's forward loop stores every example's state at each
  // iteration, an example past its exit the state it stopped with; the
  // reverse loop passes those iterations through (finishReverseLoop's
  // `ran`): tape ops are fine.
  if (onlyComputes(loop, /*tapes=*/true))
    return success();
  return loop->emitError("vmap: ")
         << what << " runs until " << until
         << ", and this one's body does more than compute values (print, "
            "draw random numbers, write files)";
}

std::optional<LogicalResult> BatchBuilder::batchScalarPlumbing(
    OpBuilder &b, Operation &op, ArrayRef<Value> operands,
    ArrayRef<bool> operandBatched, IRMapping &map) {
  Location loc = op.getLoc();
  // An example's dims are the same for every example.
  if (auto dim = dyn_cast<DimOp>(op)) {
    map.map(dim.getResult(),
            DimOp::create(b, loc, dim.getType(), operands[0],
                          b.getI64IntegerAttr(dim.getAxis() + 1)));
    return success();
  }
  // A condition read out of a batched 0-d tensor stays the batch's
  // tensor; an if or a while reads it.
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    if (!extract.getIndices().empty())
      return LogicalResult(
          op.emitError("vmap: reading an element of a tensor that differs "
                       "per example at an index is not supported yet"));
    map.map(extract.getResult(), operands[0]);
    return success();
  }
  if (auto elements = dyn_cast<tensor::FromElementsOp>(op)) {
    if (operands.size() != 1 || !operandBatched[0])
      return LogicalResult(
          op.emitError("vmap: a tensor of several scalars that differ per "
                       "example is not supported yet"));
    Value v = ReverseBuilder(b, loc).reshape(
        operands[0], batchedType(elements.getType(), size).getShape());
    batched.insert(v);
    map.map(elements.getResult(), v);
    return success();
  }
  return std::nullopt;
}

FailureOr<Value> BatchBuilder::batchScalarOp(OpBuilder &b, Operation &op,
                                             ArrayRef<Value> operands) {
  if (op.getNumResults() != 1 || !op.getResult(0).getType().isIntOrIndex())
    return failure();
  Location loc = op.getLoc();
  Type resultType = op.getResult(0).getType();
  auto type = RankedTensorType::get({size}, elementOf(resultType));
  SmallVector<Value> xs;
  for (Value v : operands)
    xs.push_back(isBatched(v) ? v : scalarTensor(b, loc, v));
  auto binary = [&](auto tag) -> Value {
    using OpTy = decltype(tag);
    return OpTy::create(b, loc, type, xs[0], xs[1]);
  };
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return xs[0];
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op))
    return Value(CastOp::create(b, loc, type, xs[0]));
  if (isa<arith::AddIOp>(op))
    return binary(AddOp());
  if (isa<arith::SubIOp>(op))
    return binary(SubOp());
  if (isa<arith::MulIOp>(op))
    return binary(MulOp());
  if (isa<arith::MaxSIOp>(op))
    return binary(MaximumOp());
  if (isa<arith::MinSIOp>(op))
    return binary(MinimumOp());
  if (isa<arith::FloorDivSIOp>(op))
    return binary(FloorDivOp());
  if (isa<arith::CeilDivSIOp>(op)) { // ceil(x / y) = -floor(-x / y)
    Value negated = NegOp::create(b, loc, xs[0].getType(), xs[0]);
    Value floor = FloorDivOp::create(b, loc, type, negated, xs[1]);
    return Value(NegOp::create(b, loc, type, floor));
  }
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return Value(WhereOp::create(b, loc, type, xs[0], xs[1], xs[2]));
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    std::optional<ComparePredicate> p = predicateOf(cmp.getPredicate());
    if (!p)
      return failure();
    return Value(CompareOp::create(b, loc, type, *p, xs[0], xs[1]));
  }
  return failure();
}

Value BatchBuilder::narrowActive(OpBuilder &b, Location loc, Value mask) {
  Value old = activeMask;
  activeMask =
      old ? WhereOp::create(b, loc, mask.getType(), old, mask, old).getResult()
          : mask;
  return old;
}

void BatchBuilder::maskIndices(OpBuilder &b, Location loc,
                               SmallVectorImpl<Value> &operands) {
  if (!activeMask)
    return;
  for (Value &v : operands) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !isBatched(v) || !type.getElementType().isInteger())
      continue;
    Value c = alignExamples(b, loc, activeMask, type.getRank() - 1);
    v = WhereOp::create(b, loc, type, c, v, zerosOf(b, loc, type));
    batched.insert(v);
  }
}

SmallVector<Value> BatchBuilder::maskedYields(OpBuilder &b, Location loc,
                                              ValueRange yielded, Value mask,
                                              ValueRange old, IRMapping &map) {
  SmallVector<Value> next;
  for (auto [v, kept] : llvm::zip(yielded, old)) {
    Value updated = mappedAs(b, loc, {v}, {true}, map).front();
    auto type = cast<RankedTensorType>(updated.getType());
    Value c = alignExamples(b, loc, mask, type.getRank() - 1);
    next.push_back(WhereOp::create(b, loc, type, c, updated, kept));
  }
  return next;
}

LogicalResult BatchBuilder::maskedFor(OpBuilder &b, scf::ForOp op,
                                      IRMapping &map) {
  Location loc = op.getLoc();
  Value lb = map.lookupOrDefault(op.getLowerBound()),
        ub = map.lookupOrDefault(op.getUpperBound()),
        step = map.lookupOrDefault(op.getStep());
  if (isBatched(lb) || isBatched(step))
    return op.emitError("vmap: a loop whose start or step differs per "
                        "example is not supported");
  if (llvm::any_of(op.getInitArgs().getTypes(),
                   [](Type t) { return !isa<RankedTensorType>(t); }))
    return op.emitError("vmap: a loop over a range that differs per example "
                        "carries a value that is not a tensor");
  if (failed(runsPastExit(op, "a loop over a range that differs per example",
                          "the longest range ends")))
    return failure();
  // The largest of the examples' ends.
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  Value largest = tensor::ExtractOp::create(
      b, loc,
      ReduceMaxOp::create(b, loc, i64, ub, b.getDenseI64ArrayAttr(0),
                          b.getBoolAttr(false)),
      ValueRange{});
  Value end = arith::IndexCastOp::create(b, loc, b.getIndexType(), largest);
  size_t numArgs = op.getInitArgs().size();
  SmallVector<bool> all(numArgs, true);
  SmallVector<Value> inits = mappedAs(b, loc, op.getInitArgs(), all, map);
  auto loop = scf::ForOp::create(b, loc, lb, end, step, inits);
  Block *body = loop.getBody();
  if (!body->empty() && body->mightHaveTerminator())
    body->getTerminator()->erase();
  map.map(op.getInductionVar(), loop.getInductionVar());
  for (auto [arg, copyArg] :
       llvm::zip(op.getRegionIterArgs(), loop.getRegionIterArgs())) {
    map.map(arg, copyArg);
    batched.insert(copyArg);
  }
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  // The examples whose range holds this iteration.
  Value runs = CompareOp::create(
      inner, loc, RankedTensorType::get({size}, inner.getI1Type()),
      ComparePredicate::lt, scalarTensor(inner, loc, loop.getInductionVar()),
      ub);
  if (failed(batchBlock(inner, *op.getBody(), map, runs)))
    return failure();
  scf::YieldOp::create(
      inner, loc,
      maskedYields(inner, loc, op.getBody()->getTerminator()->getOperands(),
                   runs, loop.getRegionIterArgs(), map));
  for (auto [r, copyResult] : llvm::zip(op.getResults(), loop.getResults())) {
    map.map(r, copyResult);
    batched.insert(copyResult);
  }
  return success();
}

} // namespace mlir::tfl::autodiff
