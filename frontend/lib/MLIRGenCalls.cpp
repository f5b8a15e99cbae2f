//===- MLIRGenCalls.cpp - Calls, print and the debugger's points ----------===//
//
// Calls of user functions (func.call of the specialization Sema chose,
// with the callee's captured values after its arguments), record
// constructions and methods, tree_map (a call per leaf), and the built-in
// calls' entry into MLIRGenBuiltinCalls.cpp; print and the prompt's
// displays as tfl.print of a format and its values; the debugger's
// breakpoints and trace points.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace tfl;
using namespace tfl::ast;
using namespace tfl::mlirgen;

Values MLIRGenImpl::genCall(const CallExpr *expr) {
  auto method = spec->methodCalls.find(expr); // x.sum(): sum(x)
  if (method != spec->methodCalls.end())
    return genExpr(method->second);
  if (const Type *callee = spec->findType(expr->callee.get());
      callee && callee->kind == Type::Kind::Builtin) {
    if (Builtin::named(callee->name) == Builtin(StatementBuiltin::Breakpoint)) {
      // A stop of the eager debugger; nothing without it.
      if (std::optional<size_t> scope = spec->findDebugScope(expr))
        genDebugPoint(*scope, /*stop=*/true, loc(expr->getBegin()));
      return {};
    }
    if (Builtin::named(callee->name) == Builtin(StatementBuiltin::Export))
      return {}; // what a library builds; a program's run does nothing
  }

  auto builtin = spec->builtinCalls.find(expr);
  if (builtin != spec->builtinCalls.end())
    return genBuiltinCall(expr, builtin->second.builtin);
  auto construction = spec->constructions.find(expr);
  if (construction != spec->constructions.end()) {
    const Type &record = typeOf(expr);
    Values leaves;
    for (size_t i = 0; i < construction->second.size(); ++i)
      llvm::append_range(leaves,
                         castLeaves(genExpr(construction->second[i]),
                                    record.elements[i], loc(expr->getBegin())));
    return leaves;
  }
  auto replacement = spec->replacements.find(expr);
  if (replacement != spec->replacements.end()) {
    auto *attr = cast<AttributeExpr>(expr->callee.get());
    const Type &before = typeOf(attr->value.get());
    const Type &after = typeOf(expr);
    Values old = genExpr(attr->value.get());
    Values leaves;
    for (size_t i = 0; i < replacement->second.size(); ++i) {
      const Expr *value = replacement->second[i];
      llvm::append_range(leaves,
                         value ? castLeaves(genExpr(value), after.elements[i],
                                            loc(value->getBegin()))
                               : element(old, before, i));
    }
    return leaves;
  }
  auto calleeIt = spec->callees.find(expr);
  if (calleeIt == spec->callees.end()) {
    genPrint(expr);
    return {};
  }
  // Python's order: the callee value, then the arguments.
  Values calleeLeaves = genExpr(expr->callee.get());
  std::vector<Values> argValues;
  for (const Expr *arg : spec->callArgs.find(expr)->second)
    argValues.push_back(genExpr(arg));
  return emitUserCall(calleeIt->second, typeOf(expr->callee.get()),
                      calleeLeaves, argValues, loc(expr->getBegin()));
}

Values MLIRGenImpl::emitUserCall(const Specialization *callee,
                                 const Type &calleeType,
                                 const Values &calleeLeaves,
                                 llvm::ArrayRef<Values> args,
                                 mlir::Location l) {
  Values operands;
  auto pass = [&](const Values &values, const Type &type) {
    llvm::append_range(operands, castLeaves(values, type, l));
  };
  // The callee value's leaves: a bound method's receiver (its first
  // argument), or a closure's captures (after the arguments).
  // (A checkpoint of a bound method is bound too.)
  const Type *fn = &calleeType;
  while (fn->kind == Type::Kind::Checkpoint)
    fn = &fn->elements.front();
  bool bound = fn->kind == Type::Kind::Record || fn->boundSelf;
  if (bound)
    pass(calleeLeaves, callee->argTypes.front());
  for (size_t i = 0; i < args.size(); ++i)
    pass(args[i], callee->argTypes[i + (bound ? 1 : 0)]);
  if (!bound)
    pass(calleeLeaves, Type::tuple(callee->captureTypes));
  llvm::SmallVector<mlir::Type> resultTypes;
  flatTypes(callee->resultType, resultTypes);
  auto call = mlir::func::CallOp::create(builder, l, callee->symbol,
                                         resultTypes, operands);
  Values results(call.getResults().begin(), call.getResults().end());
  if (callee->customPullback || callee->customTangent) {
    // A @custom_gradient or @custom_jvp function also returns its residuals.
    llvm::SmallVector<mlir::Type> value;
    flatTypes(callee->valueType, value);
    results.resize(value.size());
  }
  return results;
}

Values MLIRGenImpl::genJvp(const CallExpr *expr) {
  const Specialization *s = spec->builtinCalls.find(expr)->second.jvp;
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  // Python's order: the function value, the primals, the tangents.
  Values fnLeaves = genExpr(args[0]);
  std::vector<Values> operands;
  operands.push_back(genExpr(args[1]));
  operands.push_back(genExpr(args[2]));
  return emitUserCall(s, typeOf(args[0]), fnLeaves, operands,
                      loc(expr->getBegin()));
}

void MLIRGenImpl::genJvpBody(const Specialization &s, mlir::Block *entry,
                             llvm::ArrayRef<mlir::Type> resultTypes,
                             mlir::Location l) {
  // The entry's arguments: the primals' leaves, the tangents', the
  // captures'; f takes the primals', then the captures'.
  size_t primals = s.argTypes[0].leafCount();
  size_t captures = entry->getNumArguments() - 2 * primals;
  auto args = entry->getArguments();
  Values operands(args.begin(), args.begin() + primals);
  llvm::append_range(operands, args.take_back(captures));
  llvm::append_range(operands, args.slice(primals, primals));
  for (mlir::BlockArgument capture : args.take_back(captures))
    operands.push_back(zerosOf(capture.getType(), l));
  auto jvp = mlir::tfl::JvpOp::create(
      builder, l, resultTypes,
      mlir::FlatSymbolRefAttr::get(&ctx, s.jvpOf->symbol), operands);
  mlir::func::ReturnOp::create(builder, l, jvp.getResults());
}

Values MLIRGenImpl::genLinearize(const CallExpr *expr) {
  const Specialization *f = spec->builtinCalls.find(expr)->second.primal;
  const std::vector<const Expr *> &args = spec->callArgs.find(expr)->second;
  mlir::Location l = loc(expr->getBegin());
  // Python's order: the function value, then the primals; then the call,
  // from the generator's state that the linear map starts from again.
  Values fnLeaves = genExpr(args[0]);
  std::vector<Values> primals;
  for (const Expr *arg : llvm::ArrayRef(args).drop_front())
    primals.push_back(genExpr(arg));
  Value state = mlir::tfl::RandomStateOp::create(
      builder, l, mlir::RankedTensorType::get({2}, builder.getI64Type()));
  const Type &result = typeOf(expr);
  Values leaves =
      castLeaves(emitUserCall(f, typeOf(args[0]), fnLeaves, primals, l),
                 result.elements[0], l);
  llvm::append_range(leaves, fnLeaves);
  for (auto [values, arg] :
       llvm::zip(primals, llvm::ArrayRef(args).drop_front()))
    llvm::append_range(leaves, castLeaves(values, typeOf(arg), l));
  leaves.push_back(state);
  return leaves;
}

void MLIRGenImpl::genLinearBody(const Specialization &s, mlir::Block *entry,
                                llvm::ArrayRef<mlir::Type> resultTypes,
                                mlir::Location l) {
  // The entry's arguments: the cotangent's (or the tangents') leaves, f's
  // captures', the primals', the state.
  const Specialization &f = *s.linearOf;
  size_t given = 0;
  for (const Type &t : s.argTypes)
    given += t.leafCount();
  size_t captures = 0;
  for (const Type &t : f.captureTypes)
    captures += t.leafCount();
  auto args = entry->getArguments();
  Values primals =
      castLeaves(Values(args.begin() + given + captures, args.end() - 1),
                 Type::tuple(f.argTypes), l);
  Values operands = primals;
  llvm::append_range(operands, args.slice(given, captures));
  llvm::append_range(operands, args.take_front(given));
  // f runs again (its forward sweep): from the value's state, so that it
  // draws what the value drew; the generator is left where it was.
  mlir::Type stateType = args.back().getType();
  Value saved = mlir::tfl::RandomStateOp::create(builder, l, stateType);
  mlir::tfl::SetRandomStateOp::create(builder, l, args.back());
  auto callee = mlir::FlatSymbolRefAttr::get(&ctx, f.symbol);
  Values results;
  if (s.linearReverse) {
    llvm::SmallVector<int64_t> argnums;
    llvm::SmallVector<mlir::Type> types;
    for (size_t i = 0; i < primals.size(); ++i) {
      argnums.push_back(static_cast<int64_t>(i));
      types.push_back(primals[i].getType());
    }
    auto grad = mlir::tfl::GradOp::create(builder, l, types, callee, operands,
                                          builder.getDenseI64ArrayAttr(argnums),
                                          builder.getBoolAttr(false),
                                          builder.getUnitAttr());
    results.assign(grad.getResults().begin(), grad.getResults().end());
  } else {
    // tfl.jvp takes the captures' tangents too: zeros.
    for (mlir::BlockArgument capture : args.slice(given, captures))
      operands.push_back(zerosOf(capture.getType(), l));
    llvm::SmallVector<mlir::Type> types(resultTypes);
    llvm::append_range(types, resultTypes);
    auto jvp = mlir::tfl::JvpOp::create(builder, l, types, callee, operands);
    results.assign(jvp.getResults().begin() + resultTypes.size(),
                   jvp.getResults().end());
  }
  mlir::tfl::SetRandomStateOp::create(builder, l, saved);
  mlir::func::ReturnOp::create(builder, l,
                               castLeaves(results, s.resultType, l));
}

void MLIRGenImpl::genCheckpointBody(const Specialization &s,
                                    mlir::func::FuncOp fn,
                                    llvm::ArrayRef<mlir::Type> resultTypes,
                                    mlir::Location l) {
  fn->setAttr("tfl.checkpoint", builder.getUnitAttr());
  // The callee's results: its value's leaves (then, for a
  // @custom_gradient function, its residuals, which a call does not see).
  llvm::SmallVector<mlir::Type> calleeResults;
  flatTypes(s.checkpointOf->resultType, calleeResults);
  auto call =
      mlir::func::CallOp::create(builder, l, s.checkpointOf->symbol,
                                 calleeResults, fn.getBody().getArguments());
  mlir::func::ReturnOp::create(
      builder, l, call.getResults().take_front(resultTypes.size()));
}

void MLIRGenImpl::genVmapBody(const Specialization &s, mlir::Block *entry,
                              llvm::ArrayRef<mlir::Type> resultTypes,
                              mlir::Location l) {
  // tfl.vmap of the mapped specialization, which the autodiff pass turns
  // into a batched function. The captures are the same for every example.
  std::vector<int64_t> inAxes = s.vmapInAxes;
  inAxes.resize(entry->getNumArguments(), -1);
  auto vmap = mlir::tfl::VmapOp::create(
      builder, l, resultTypes,
      mlir::FlatSymbolRefAttr::get(&ctx, s.vmapOf->symbol),
      entry->getArguments(), builder.getDenseI64ArrayAttr(inAxes),
      builder.getDenseI64ArrayAttr(s.vmapOutAxes));
  mlir::func::ReturnOp::create(builder, l, vmap.getResults());
}

Values MLIRGenImpl::genTreeMap(const CallExpr *expr) {
  const std::vector<Specialization *> &callees =
      spec->builtinCalls.find(expr)->second.treeMap;
  const Type &fnType = typeOf(expr->args[0].get());
  Values fnLeaves = genExpr(expr->args[0].get());
  std::vector<Values> trees;
  for (size_t k = 1; k < expr->args.size(); ++k)
    trees.push_back(genExpr(expr->args[k].get()));
  mlir::Location l = loc(expr->getBegin());
  Values results;
  for (size_t i = 0; i < callees.size(); ++i) {
    std::vector<Values> args;
    for (const Values &tree : trees)
      args.push_back({tree[i]});
    llvm::append_range(results,
                       emitUserCall(callees[i], fnType, fnLeaves, args, l));
  }
  return results;
}

/// Appends run-time string `t`, whose values are `leaves`, to a print
/// format: its text, a `{}` (or `{:spec}`) input per value; each `{flag}`
/// goes to `flag` (which prints what came before, then the flag's value),
/// or without one is shown as it is written.
static void appendTemplate(const Type &t, llvm::ArrayRef<Value> leaves,
                           std::string &format, Values &inputs,
                           llvm::function_ref<void(llvm::StringRef)> flag) {
  size_t next = 0;
  llvm::StringRef s = t.name;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if ((c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
      format += std::string(2, c); // a brace, escaped as print's are
      ++i;
      continue;
    }
    if (c != '{') {
      format += c;
      continue;
    }
    size_t close = s.find('}', i);
    llvm::StringRef field = s.slice(i, close + 1);
    llvm::StringRef inner = field.drop_front().drop_back();
    if (inner.empty() || inner.starts_with(":")) {
      format += field.str();
      inputs.push_back(leaves[next++]);
    } else if (flag) {
      flag(field);
    } else {
      format += escapeBraces(field);
    }
    i = close;
  }
}

/// Appends how print shows a value of type `t` (leaves from `values`, from
/// `next` on): a tensor as NumPy does, a tuple as Python does ("(a, b)",
/// "(a,)"), a record as a dataclass does ("Dense(w=..., b=...)"), a string
/// inside a tree quoted.
static void formatTree(const Type &t, const Values &values, size_t &next,
                       std::string &format, Values &inputs) {
  if (t.kind == Type::Kind::String) {
    format += escapeBraces("'" + t.name + "'");
    return;
  }
  if (t.isTensor()) {
    inputs.push_back(values[next++]);
    format += "{}";
    return;
  }
  if (!t.isTree()) {
    // What only the prompt shows (print takes none of these but text): a
    // dtype as TFL names it, None, a function or a class by name.
    next += t.leafCount();
    if (t.kind == Type::Kind::DType)
      format += dtypeName(t.dtype);
    else if (t.kind == Type::Kind::None)
      format += "None";
    else if (t.kind == Type::Kind::RuntimeString) {
      format += "'";
      appendTemplate(t,
                     llvm::ArrayRef<Value>(values).slice(
                         next - t.elements.size(), t.elements.size()),
                     format, inputs, nullptr);
      format += "'";
    } else
      format += escapeBraces("<" + t.str() + ">");
    return;
  }
  std::vector<const AnnAssignStmt *> fields;
  if (t.kind == Type::Kind::Record) {
    fields = fieldsOf(*t.cls);
    format += escapeBraces(t.cls->name);
  }
  format += "(";
  for (size_t k = 0; k < t.elements.size(); ++k) {
    if (k)
      format += ", ";
    if (!fields.empty())
      format += cast<NameExpr>(fields[k]->target.get())->name + "=";
    formatTree(t.elements[k], values, next, format, inputs);
  }
  format += t.kind == Type::Kind::Tuple && t.elements.size() == 1 ? ",)" : ")";
}

void MLIRGenImpl::genDebugPoint(size_t scope, bool stop, mlir::Location l) {
  Values values;
  llvm::SmallVector<llvm::StringRef> names;
  for (const CarriedVar &v : program.debugScopes[scope]) {
    llvm::SmallVector<mlir::Type> leaves;
    flatTypes(v.type, leaves);
    auto it = env.find(v.name);
    if (leaves.empty() || it == env.end())
      continue;
    Values cast = castLeaves(it->second, v.type, l);
    if (cast.size() != leaves.size())
      continue;
    llvm::append_range(values, cast);
    names.push_back(v.name);
  }
  auto point = mlir::tfl::DebugPointOp::create(
      builder, l, values, builder.getStrArrayAttr(names),
      builder.getI64IntegerAttr(scope));
  if (stop)
    point.setStop(true);
}

namespace {
/// The text a print writes, built piece by piece: its format and inputs
/// go out as one tfl.print when flushed, which a string flag's value (a
/// tfl.print_template of its own) does before it.
class PrintText {
public:
  PrintText(mlir::OpBuilder &builder, mlir::Location l)
      : builder(builder), l(l) {}
  std::string format;
  Values inputs;
  void flush() {
    if (!format.empty() || !inputs.empty())
      mlir::tfl::PrintOp::create(builder, l, inputs,
                                 builder.getStringAttr(format));
    format.clear();
    inputs.clear();
  }
  /// Run-time string `t`, its values `leaves`.
  void appendText(const Type &t, llvm::ArrayRef<Value> leaves) {
    appendTemplate(t, leaves, format, inputs, [&](llvm::StringRef field) {
      flush();
      mlir::tfl::PrintTemplateOp::create(builder, l,
                                         builder.getStringAttr(field));
    });
  }

private:
  mlir::OpBuilder &builder;
  mlir::Location l;
};
} // namespace

void MLIRGenImpl::genDisplay(const Expr *expr) {
  const Type &t = typeOf(expr);
  PrintText text(builder, loc(expr->getBegin()));
  if (t.kind == Type::Kind::RuntimeString) { // quoted, flags' values shown
    text.format = "'";
    text.appendText(t, genExpr(expr));
    text.format += "'";
  } else {
    Values values = genExpr(expr);
    size_t next = 0;
    formatTree(t, values, next, text.format, text.inputs);
  }
  text.format += "\n";
  text.flush();
}

void MLIRGenImpl::genPrint(const CallExpr *expr) {
  std::string sep = " ", end = "\n";
  for (const Keyword &kw : expr->keywords)
    (kw.name == "sep" ? sep : end) = typeOf(kw.value.get()).name;
  PrintText text(builder, loc(expr->getBegin()));
  auto appendText = [&](const Expr *e) {
    text.appendText(typeOf(e), genExpr(e));
  };
  for (size_t i = 0; i < expr->args.size(); ++i) {
    if (i)
      text.format += escapeBraces(sep);
    if (auto *f = dyn_cast<FStringExpr>(expr->args[i].get())) {
      for (const FStringExpr::Part &part : f->parts) {
        if (!part.expr) {
          text.format += escapeBraces(part.text);
          continue;
        }
        const Type &pt = typeOf(part.expr.get());
        if (pt.kind == Type::Kind::String) {
          text.format += escapeBraces(pt.name);
          continue;
        }
        if (pt.kind == Type::Kind::RuntimeString) {
          appendText(part.expr.get());
          continue;
        }
        text.inputs.push_back(genExpr(part.expr.get())[0]);
        text.format += part.spec.empty() ? "{}" : "{:" + part.spec + "}";
      }
      continue;
    }
    const Type &t = typeOf(expr->args[i].get());
    if (t.kind == Type::Kind::String) {
      text.format += escapeBraces(t.name);
      continue;
    }
    if (t.kind == Type::Kind::RuntimeString) {
      appendText(expr->args[i].get());
      continue;
    }
    Values values = genExpr(expr->args[i].get());
    size_t next = 0;
    formatTree(t, values, next, text.format, text.inputs);
  }
  text.format += escapeBraces(end);
  text.flush();
}
