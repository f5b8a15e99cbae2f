//===- SemaControl.cpp - Types through if, for and while ------------------===//
//
// An `if` analyzes each branch from the bindings before it and merges what
// they bind: a name bound by both keeps one type (a literal's weakness
// dropped, or two tensors of one shape unified), a name bound by one is
// conditional afterwards (using it is an error). A loop's body is analyzed
// until the types of its carried names (bound before it and rebound in it)
// settle, so that `total = 0` takes the dtype the body gives it; names
// first bound in the body are conditional after it. `for` takes range(...),
// a tensor's first axis, a tuple (unrolled) or enumerate/zip of tensors.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::sema;

/// Whether two recorded bindings are the same place (unrecorded ones,
/// line 0, are not).
static bool sameBinding(Position a, Position b) {
  return a.line != 0 && a.line == b.line && a.col == b.col;
}

/// The names `blocks` assign, sorted (a deterministic order of the values
/// an scf.if or a loop carries).
static std::vector<std::string>
sortedAssigned(std::initializer_list<const Block *> blocks) {
  llvm::StringSet<> assigned;
  for (const Block *b : blocks)
    collectAssigned(*b, assigned);
  std::vector<std::string> names;
  for (const auto &entry : assigned)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

SemaImpl::PathBindings SemaImpl::takeBindings() {
  return {std::move(frame->vars), std::move(frame->bound),
          std::move(frame->conditional)};
}

void SemaImpl::setBindings(const PathBindings &b) {
  frame->vars = b.vars;
  frame->bound = b.bound;
  frame->conditional = b.conditional;
}

LogicalResult SemaImpl::checkCondition(const Expr *cond, llvm::StringRef what) {
  return requireBoolScalar(cond, ("the condition of " + what).str());
}

LogicalResult SemaImpl::analyzeIf(const IfStmt *stmt) {
  if (failed(checkCondition(stmt->cond.get(), "'if'")))
    return failure();
  PathBindings before{frame->vars, frame->bound, frame->conditional};
  ++frame->controlDepth;
  if (failed(analyzeBlock(stmt->body)))
    return failure();
  PathBindings thenPath = takeBindings();
  setBindings(before);
  if (failed(analyzeBlock(stmt->orelse)))
    return failure();
  PathBindings elsePath = takeBindings();
  --frame->controlDepth;
  setBindings(before);

  std::vector<CarriedVar> yielded;
  for (const std::string &name : sortedAssigned({&stmt->body, &stmt->orelse}))
    if (failed(mergeBranches(stmt, name, thenPath, elsePath, yielded)))
      return failure();
  frame->spec->carried[stmt] = std::move(yielded);
  return success();
}

LogicalResult SemaImpl::mergeBranches(const IfStmt *stmt,
                                      const std::string &name,
                                      PathBindings &thenPath,
                                      PathBindings &elsePath,
                                      std::vector<CarriedVar> &yielded) {
  bool inThen =
      thenPath.vars.count(name) && !thenPath.conditional.contains(name);
  bool inElse =
      elsePath.vars.count(name) && !elsePath.conditional.contains(name);
  if (!inThen && !inElse)
    return success();
  if (!inThen || !inElse) {
    frame->vars[name] = inThen ? thenPath.vars[name] : elsePath.vars[name];
    if (Position at = (inThen ? thenPath : elsePath).bound.lookup(name);
        at.line)
      frame->bound[name] = at;
    frame->conditional.insert(name);
    return success();
  }
  const Type &a = thenPath.vars[name], &b = elsePath.vars[name];
  std::optional<Type> merged;
  if (a == b)
    merged = a;
  else if (a.strong() == b.strong())
    merged = a.strong();
  else if (a.isTensor() && b.isTensor() && a.shape == b.shape)
    if (std::optional<Type> u = unifyOperands(a, b))
      merged = u->strong();
  Position thenAt = thenPath.bound.lookup(name);
  Position elseAt = elsePath.bound.lookup(name);
  bool elseRebinds = !sameBinding(elseAt, frame->bound.lookup(name));
  if (!merged) {
    // The error sits at the 'else' branch's binding and the note at the
    // 'if' branch's; a branch that did not rebind the name keeps the
    // binding from before the 'if'.
    Position errorAt = elseRebinds ? elseAt : thenAt;
    Position noteAt = elseRebinds ? thenAt : elseAt;
    mlir::InFlightDiagnostic diag =
        error(errorAt.line ? errorAt : stmt->getBegin());
    diag << "'" << name << "' is " << a.str() << " after the 'if' branch but "
         << b.str() << " after the 'else' branch";
    if (noteAt.line)
      note(diag, noteAt) << "'" << name << "' is "
                         << (elseRebinds ? a : b).str() << " here"
                         << (sameBinding(noteAt, frame->bound.lookup(name))
                                 ? ", before the 'if'"
                                 : "");
    return failure();
  }
  frame->vars[name] = *merged;
  frame->bound[name] = elseRebinds ? elseAt : thenAt;
  // A function value's leaves (a closure's captures, a linear map's
  // primals) may differ between the branches, as a tensor's value may.
  if (merged->hasValues() ||
      (merged->isCallableValue() && merged->leafCount() > 0))
    yielded.push_back({name, *merged});
  return success();
}

LogicalResult SemaImpl::analyzeLoop(const Stmt *stmt, const Block &body,
                                    const Expr *cond, const Expr *target,
                                    const Type &targetType) {
  llvm::StringSet<> targetNames;
  if (target) {
    ast::collectTargetNames(target, targetNames);
    frame->spec->loopTargetTypes[stmt] = targetType;
  }
  PathBindings before{frame->vars, frame->bound, frame->conditional};
  std::vector<std::string> names = sortedAssigned({&body});

  // Variables bound before the loop and rebound in it are loop-carried.
  std::vector<CarriedVar> carried;
  for (const std::string &name : names) {
    if (targetNames.contains(name) || !before.vars.count(name) ||
        before.conditional.contains(name))
      continue;
    const Type &t = before.vars[name];
    if (!t.hasValues()) {
      error(stmt->getBegin()) << "'" << name << "' is " << t.str()
                              << " and cannot change inside a loop";
      return failure();
    }
    carried.push_back({name, t});
  }

  // Analyze the body until the carried types are stable: a weak literal's
  // initial value (`total = 0`) takes the dtype the body gives it.
  ++frame->controlDepth;
  ++frame->loopDepth;
  for (int round = 0;; ++round) {
    setBindings(before);
    for (const CarriedVar &c : carried)
      frame->vars[c.name] = c.type;
    if (target && failed(bindTarget(target, targetType)))
      return failure();
    if (cond && failed(checkCondition(cond, "'while'")))
      return failure();
    if (failed(analyzeBlock(body)))
      return failure();
    FailureOr<bool> changed = settleCarried(stmt, carried, before, round);
    if (failed(changed))
      return failure();
    if (!*changed)
      break;
  }
  --frame->controlDepth;
  --frame->loopDepth;

  // After the loop: carried variables keep their type; names first bound in
  // the body (and the loop variable) may be unbound.
  PathBindings bodyPath = takeBindings();
  setBindings(before);
  for (const CarriedVar &c : carried)
    frame->vars[c.name] = c.type;
  for (const std::string &name : names) {
    if (frame->vars.count(name) && !frame->conditional.contains(name) &&
        !targetNames.contains(name))
      continue;
    frame->vars[name] = bodyPath.vars[name];
    if (Position at = bodyPath.bound.lookup(name); at.line)
      frame->bound[name] = at;
    frame->conditional.insert(name);
  }
  frame->spec->carried[stmt] = std::move(carried);
  return success();
}

FailureOr<bool> SemaImpl::settleCarried(const Stmt *stmt,
                                        std::vector<CarriedVar> &carried,
                                        const PathBindings &before, int round) {
  bool changed = false;
  for (CarriedVar &c : carried) {
    const Type &after = frame->vars[c.name];
    if (after == c.type)
      continue;
    if (after.strong() == c.type.strong()) {
      changed |= c.type.weak || c.type.known.has_value();
      c.type = c.type.strong();
      continue;
    }
    if (c.type.weak && after.isTensor() && after.shape == c.type.shape &&
        round < 3) {
      c.type = after.strong();
      changed = true;
      continue;
    }
    // The error sits at the binding in the body that gives the new type;
    // notes show the loop and the binding before it.
    Position inBody = frame->bound.lookup(c.name);
    if (sameBinding(inBody, before.bound.lookup(c.name)))
      inBody = Position();
    mlir::InFlightDiagnostic diag =
        error(inBody.line ? inBody : stmt->getBegin());
    diag << "loop-carried '" << c.name
         << "' changes type in the loop: " << c.type.str()
         << " before an iteration, " << after.str() << " after it";
    if (inBody.line)
      note(diag, stmt->getBegin()) << "in this loop";
    if (Position at = before.bound.lookup(c.name); at.line)
      note(diag, at) << "'" << c.name << "' is " << c.type.str()
                     << " here, before the loop";
    return failure();
  }
  return changed;
}

std::optional<LogicalResult> SemaImpl::analyzeRowLoop(const ForStmt *stmt) {
  // enumerate(x, start=0) and zip(x, y, ...) of tensors: a loop over their
  // rows (of tuples, an unrolled one: the iterable is a tuple then).
  auto *call = dyn_cast<CallExpr>(stmt->iter.get());
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (!callee || (callee->name != "enumerate" && callee->name != "zip") ||
      frame->vars.count(callee->name) || call->args.empty())
    return std::nullopt;
  std::vector<Type> types;
  for (const ExprPtr &arg : call->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    if (!t->isTensor())
      return std::nullopt; // tuples: zip/enumerate as built-ins
    types.push_back(*t);
  }
  FailureOr<std::optional<int64_t>> start = zipStart(call, callee->name);
  if (failed(start))
    return failure();
  int64_t rows = -1;
  std::vector<Type> element;
  if (*start)
    element.push_back(Type::tensor(DType::I64, {}));
  for (size_t i = 0; i < types.size(); ++i) {
    const Type &t = types[i];
    if (t.rank() == 0 || t.shape[0] == kDynamicDim) {
      error(call->args[i]->getBegin())
          << callee->name << "() iterates over the first axis of a tensor "
          << "of static size, not " << t.str();
      return failure();
    }
    rows = rows < 0 ? t.shape[0] : std::min(rows, t.shape[0]);
    element.push_back(Type::tensor(
        t.dtype, std::vector<int64_t>(t.shape.begin() + 1, t.shape.end()),
        t.weak));
  }
  frame->spec->rowLoops[stmt] = *start;
  return analyzeLoop(stmt, stmt->body, nullptr, stmt->target.get(),
                     Type::tuple(std::move(element)));
}

LogicalResult SemaImpl::analyzeFor(const ForStmt *stmt) {
  if (std::optional<LogicalResult> rows = analyzeRowLoop(stmt))
    return *rows;
  auto *target = dyn_cast<NameExpr>(stmt->target.get());
  auto *call = dyn_cast<CallExpr>(stmt->iter.get());
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (!callee || callee->name != "range" || frame->vars.count("range")) {
    // for x in t: the first axis of a tensor, or the elements of a tuple.
    FailureOr<Type> seq = analyzeExpr(stmt->iter.get());
    if (failed(seq))
      return failure();
    if (seq->kind == Type::Kind::Tuple) // unrolled, any target
      return analyzeUnrolledFor(stmt, seq->elements);
    if (!target) {
      error(stmt->target->getBegin())
          << "the target of a 'for' must be one name";
      return failure();
    }
    if (seq->isTensor() && seq->rank() > 0 && seq->shape[0] != kDynamicDim) {
      std::vector<int64_t> rowShape(seq->shape.begin() + 1, seq->shape.end());
      return analyzeLoop(stmt, stmt->body, nullptr, target,
                         Type::tensor(seq->dtype, rowShape, seq->weak));
    }
    error(stmt->iter->getBegin())
        << "'for' iterates over range(...), a tensor's first axis or a "
           "tuple, not "
        << seq->str();
    return failure();
  }
  if (!target) {
    error(stmt->target->getBegin())
        << "the target of a 'for' over range(...) must be one name";
    return failure();
  }
  if (call->args.empty() || call->args.size() > 3 || !call->keywords.empty()) {
    error(call->getBegin())
        << "range() takes 1 to 3 positional arguments, got "
        << call->args.size() << (call->keywords.empty() ? "" : " and keywords");
    return failure();
  }
  for (const ExprPtr &arg : call->args) {
    FailureOr<Type> t = analyzeExpr(arg.get());
    if (failed(t))
      return failure();
    if (!t->isScalar() || !isInteger(t->dtype)) {
      error(arg->getBegin()) << "range() arguments must be integer scalars, "
                                "got "
                             << t->str();
      return failure();
    }
    coerce(arg.get(), DType::I64);
    if (auto *lit = dyn_cast<IntExpr>(arg.get());
        lit && lit->value == 0 && call->args.size() == 3 &&
        arg.get() == call->args[2].get()) {
      error(arg->getBegin()) << "range() step must not be zero";
      return failure();
    }
  }
  return analyzeLoop(stmt, stmt->body, nullptr, target);
}
