//===- Activity.cpp - What reverse mode has work for ----------------------===//
//
// Which values of a function being differentiated are active (floats that
// depend on a differentiated argument, through ops, regions and tapes),
// which active values a region reads from outside, which loops keep their
// iterations' states on a tape, and which ops draw random numbers (the
// reverse sweep runs them again with the same draws).
//
//===----------------------------------------------------------------------===//

#include "VjpBuilder.h"

namespace mlir::tfl::autodiff {

void VjpBuilder::markActive(Block &block) {
  auto isActive = [&](Value v) { return active.contains(v); };
  for (Operation &op : block) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      // A carried value is active when its initial value or the value the
      // body yields for it is: iterate to a fixed point.
      Block &body = *loop.getBody();
      for (bool changed = true; changed;) {
        markActive(body);
        changed = false;
        for (auto [init, arg, yielded] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                       body.getTerminator()->getOperands()))
          if ((isActive(init) || isActive(yielded)) && !isActive(arg) &&
              isFloatTensor(arg.getType())) {
            active.insert(arg);
            changed = true;
          }
      }
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      // Before's arguments take the initial values and after's yields;
      // after's arguments take what the condition forwards.
      Block &before = loop.getBefore().front(),
            &after = loop.getAfter().front();
      for (bool changed = true; changed;) {
        markActive(before);
        markActive(after);
        changed = false;
        auto mark = [&](Value v) {
          if (!isActive(v) && isFloatTensor(v.getType())) {
            active.insert(v);
            changed = true;
          }
        };
        for (auto [init, arg, yielded] :
             llvm::zip(loop.getInits(), before.getArguments(),
                       after.getTerminator()->getOperands()))
          if (isActive(init) || isActive(yielded))
            mark(arg);
        for (auto [fwd, arg] :
             llvm::zip(loop.getConditionOp().getArgs(), after.getArguments()))
          if (isActive(fwd))
            mark(arg);
      }
      for (auto [fwd, r] :
           llvm::zip(loop.getConditionOp().getArgs(), loop.getResults()))
        if (isActive(fwd) && isFloatTensor(r.getType()))
          active.insert(r);
      continue;
    }
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        markActive(inner);
    // What a tape op reads is active when active values were written there
    // (a fixed point over the function, in build).
    if (Value stored = storedOnTape(op); stored && isActive(stored))
      (isa<TapeAddOp>(op) ? activeSums : activeEntries)
          .insert(op.getAttrOfType<IntegerAttr>("tape").getInt());
    if (auto read = dyn_cast<TapeReadOp>(op);
        read && activeEntries.contains(read.getTape()) &&
        isFloatTensor(read.getType()))
      active.insert(read.getResult());
    if (auto sum = dyn_cast<TapeAccumulatedOp>(op);
        sum && activeSums.contains(sum.getTape()))
      active.insert(sum.getResult());
    bool any = llvm::any_of(op.getOperands(), isActive);
    // A region op's results are active when a yielded value is.
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        if (Operation *term = inner.getTerminator())
          any |= llvm::any_of(term->getOperands(), isActive);
    if (any)
      for (Value r : op.getResults())
        if (isFloatTensor(r.getType()))
          active.insert(r);
  }
}

SmallVector<Value> VjpBuilder::activeUsedAbove(Operation *op) {
  SetVector<Value> used;
  getUsedValuesDefinedAbove(op->getRegions(), used);
  SmallVector<Value> outside;
  for (Value v : used)
    if (active.contains(v))
      outside.push_back(v);
  return outside;
}

bool VjpBuilder::usesTape(Operation &op) {
  if (!isa<scf::ForOp, scf::WhileOp>(op))
    return false;
  if (llvm::any_of(op.getResults(),
                   [&](Value v) { return active.contains(v); }))
    return true;
  WalkResult writes = op.walk([&](Operation *inner) {
    Value stored = storedOnTape(*inner);
    return stored && active.contains(stored) ? WalkResult::interrupt()
                                             : WalkResult::advance();
  });
  return writes.wasInterrupted();
}

bool VjpBuilder::drawsRandom(Operation *op) {
  WalkResult found = op->walk([&](Operation *inner) {
    if (isa<RandomNormalOp, RandomUniformOp, ShuffleIndicesOp, SeedOp,
            SetRandomStateOp>(inner))
      return WalkResult::interrupt();
    if (auto call = dyn_cast<func::CallOp>(inner))
      if (auto f = symbols.lookup<func::FuncOp>(call.getCallee()))
        if (drawsRandom(f))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool VjpBuilder::drawsRandom(func::FuncOp f) {
  auto [it, inserted] = functionDraws.try_emplace(f, false);
  if (!inserted)
    return it->second;
  bool draws = drawsRandom(f.getOperation());
  return functionDraws[f] = draws;
}

} // namespace mlir::tfl::autodiff
