//===- BatchCustomRules.cpp - vmap of a function with a custom rule -------===//
//
// A @custom_gradient or @custom_jvp function, batched, keeps its rule: the
// rule is batched as the function's arguments and residuals are, and
// wrapped so that each of its results is batched as the batched function's
// derivative needs it (broadcast to the batch, or, for the cotangent of an
// argument the batch shares, summed over the batch).
//
//===----------------------------------------------------------------------===//

#include "BatchBuilder.h"

namespace mlir::tfl::autodiff {

void BatchBuilder::batchValues(Batched &fb, ArrayRef<bool> tangents,
                               MutableArrayRef<bool> out) {
  auto ret = cast<func::ReturnOp>(fb.fn.front().getTerminator());
  OpBuilder b(ret);
  bool changed = false;
  for (size_t k = 0; k < out.size(); ++k) {
    if (!tangents[k] || fb.results[k])
      continue;
    Value v = broadcastToBatch(b, ret.getLoc(), ret.getOperand(k), size);
    batched.insert(v);
    ret.setOperand(k, v);
    fb.results[k] = out[k] = changed = true;
  }
  if (changed)
    fb.fn.setFunctionType(FunctionType::get(
        fb.fn.getContext(), fb.fn.getArgumentTypes(), ret.getOperandTypes()));
}

LogicalResult BatchBuilder::batchRule(func::FuncOp f, Batched &fb,
                                      ArrayRef<bool> mask) {
  auto [rule, tangent, leaves, lead] = customRuleOf(symbols, f);
  StringRef name = tangent ? "tfl.custom_tangent" : "tfl.custom_pullback";
  size_t residuals = rule.getNumArguments() - lead;
  // The rule's inputs (the arguments' tangents, or the value's cotangent,
  // then the residuals) are batched as the batched function's arguments
  // and results are; its results must be as the value (tangents) or the
  // arguments (cotangents) are.
  SmallVector<bool> in, out(rule.getNumResults(), false);
  for (size_t i = 0; i < lead; ++i)
    in.push_back(tangent ? mask[i] : fb.results[i]);
  for (size_t j = 0; j < residuals; ++j)
    in.push_back(fb.results[leaves + j]);
  if (tangent) {
    for (size_t k = 0; k < leaves; ++k)
      out[k] = fb.results[k];
  } else {
    for (auto [i, c] : llvm::enumerate(
             f->getAttrOfType<DenseI64ArrayAttr>("tfl.custom_cotangents")
                 .asArrayRef()))
      if (c >= 0)
        out[c] = mask[i];
  }
  FailureOr<Batched> batchedRule = tryBatchedOf(rule, in, size);
  if (failed(batchedRule)) {
    // The rule cannot be batched (it prints what differs per example): the
    // batched function itself is fine, a derivative of it is an error
    // (VjpBuilder::vjpOf, JvpBuilder::jvpOf), never the body's derivative.
    fb.fn->setAttr(kUnbatchedRuleAttr, FlatSymbolRefAttr::get(rule));
    return success();
  }
  if (tangent)
    batchValues(fb, batchedRule->results, out);
  // The batched rule, its results broadcast to the batch or (a shared
  // argument's cotangent) summed over it where they must be.
  func::FuncOp inner = batchedRule->fn;
  SmallVector<Type> outTypes;
  for (auto [t, on] : llvm::zip(rule.getFunctionType().getResults(), out))
    outTypes.push_back(typeAs(t, on));
  OpBuilder b(module.getContext());
  b.setInsertionPointAfter(inner);
  Location loc = f.getLoc();
  auto wrapper = func::FuncOp::create(
      b, loc, (inner.getSymName() + ".rule").str(),
      b.getFunctionType(inner.getFunctionType().getInputs(), outTypes));
  wrapper.setPrivate();
  symbols.insert(wrapper);
  b.setInsertionPointToStart(wrapper.addEntryBlock());
  auto call =
      func::CallOp::create(b, loc, inner, wrapper.front().getArguments());
  SmallVector<Value> results;
  for (auto [k, r] : llvm::enumerate(call.getResults())) {
    bool got = batchedRule->results[k];
    if (got == out[k]) {
      results.push_back(r);
    } else if (out[k]) {
      results.push_back(broadcastToBatch(b, loc, r, size));
    } else {
      // (Only a cotangent: batchValues batched the values whose tangents
      // differ per example.)
      results.push_back(ReduceSumOp::create(b, loc, outTypes[k], r,
                                            b.getDenseI64ArrayAttr(0),
                                            b.getBoolAttr(false)));
    }
  }
  func::ReturnOp::create(b, loc, results);
  fb.fn->setAttr(name, FlatSymbolRefAttr::get(wrapper));
  fb.fn->setAttr("tfl.custom_value_leaves",
                 f->getAttr("tfl.custom_value_leaves"));
  if (Attribute cotangents = f->getAttr("tfl.custom_cotangents"))
    fb.fn->setAttr("tfl.custom_cotangents", cotangents);
  return success();
}

} // namespace mlir::tfl::autodiff
