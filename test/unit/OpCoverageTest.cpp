//===- OpCoverageTest.cpp - Each op's kernel, lowering and rule -----------===//
//
// Every op of the tfl dialect has an eager kernel (registerTflKernels), a
// lowering (a tfl-to-linalg pattern rooted at it, or a bufferization model
// that calls libtflrt) and a reverse rule (ReverseOpInterface), unless a
// list below names it with the reason it needs none; a listed op that has
// gained what it lacked must leave its list. Every built-in of
// Builtins.def resolves by its name. An op or built-in added without its
// pieces fails here, not in a user's program.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/Registration.h"
#include "tfl/Eager/Interpreter.h"
#include "tfl/Frontend/Builtins.h"
#include "tfl/IR/TflDialect.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// Ops with no eager kernel of registerTflKernels.
const llvm::StringMap<const char *> kNoKernel = {
    {"tfl.grad", "the autodiff pass replaces it before any run"},
    {"tfl.jvp", "the autodiff pass replaces it before any run"},
    {"tfl.jacobian", "the autodiff pass replaces it before any run"},
    {"tfl.vmap", "the autodiff pass replaces it before any run"},
    {"tfl.debug_point", "the interpreter's own: its debugger's stops"},
    {"tfl.session_value", "the REPL's session runs it"},
    {"tfl.session_store", "the REPL's session runs it"},
};

/// Ops with no tfl-to-linalg pattern and no bufferization model.
const llvm::StringMap<const char *> kNoLowering = {
    {"tfl.grad", "the autodiff pass replaces it"},
    {"tfl.jvp", "the autodiff pass replaces it"},
    {"tfl.jacobian", "the autodiff pass replaces it"},
    {"tfl.vmap", "the autodiff pass replaces it"},
    {"tfl.debug_point", "only eager programs have them (--debug)"},
    {"tfl.session_value", "only the REPL's eager sessions have them"},
    {"tfl.session_store", "only the REPL's eager sessions have them"},
    {"tfl.print_template", "tfl-runtime-calls makes it a libtflrt call"},
};

/// Ops with no reverse rule: none of their operands or results carries a
/// gradient, or the reverse pass made them.
const llvm::StringMap<const char *> kNoRule = [] {
  llvm::StringMap<const char *> ops;
  for (const char *op : {"constant", "random_normal", "random_uniform", "seed",
                         "shuffle_indices", "random_state", "set_random_state",
                         "load", "load_data", "flag", "now", "encode_text",
                         "rank", "world_size", "dim", "session_value"})
    ops[std::string("tfl.") + op] = "a source: no operand carries a gradient";
  for (const char *op : {"compare", "not", "argmin", "argmax"})
    ops[std::string("tfl.") + op] = "integer or boolean results";
  for (const char *op :
       {"print", "print_template", "save", "save_npy", "log_scalar", "assert",
        "debug_point", "session_store"})
    ops[std::string("tfl.") + op] = "an effect, with no result";
  for (const char *op : {"tape_enter", "tape_exit", "tape_push", "tape_read",
                         "tape_write", "tape_add", "tape_size", "tape_rewind",
                         "tape_accumulated", "grad", "jvp", "jacobian", "vmap"})
    ops[std::string("tfl.") + op] = "the reverse pass's own";
  ops["tfl.attention_backward"] =
      "a derivative of it differentiates its decomposition (the autodiff "
      "pass rewrites it first)";
  for (const char *op : {"all_reduce_start", "all_reduce_wait"})
    ops[std::string("tfl.") + op] = "made after autodiff (overlapped "
                                    "all_reduce)";
  return ops;
}();

/// Ops with no batching rule (vmap): neither Tfl_Elementwise nor a
/// Tfl_BatchOpInterface rule.
const llvm::StringMap<const char *> kNoBatchRule = [] {
  llvm::StringMap<const char *> ops;
  for (const char *op : {"constant", "random_normal", "random_uniform",
                         "shuffle_indices", "random_state", "load", "load_data",
                         "flag", "now", "rank", "world_size", "session_value"})
    ops[std::string("tfl.") + op] =
        "a source: no operand, the same for every example";
  ops["tfl.dim"] = "the pass's own: an example's dims are every example's";
  ops["tfl.optimization_barrier"] =
      "the pass's own: each operand stays batched or not, as it was";
  for (const char *op :
       {"print", "print_template", "save", "save_npy", "log_scalar", "assert",
        "debug_point", "session_store", "seed", "set_random_state",
        "encode_text", "check_numerics"})
    ops[std::string("tfl.") + op] =
        "an effect: one per example would be one for the batch";
  for (const char *op :
       {"tape_enter", "tape_exit", "tape_push", "tape_read", "tape_write",
        "tape_add", "tape_size", "tape_rewind", "tape_accumulated"})
    ops[std::string("tfl.") + op] =
        "the pass's own: a tape holds batched entries once one is stored";
  for (const char *op : {"grad", "jvp", "jacobian", "vmap"})
    ops[std::string("tfl.") + op] = "expanded before the vmap around it";
  for (const char *op : {"all_reduce", "broadcast", "reduce_to_root",
                         "all_gather", "all_reduce_start", "all_reduce_wait"})
    ops[std::string("tfl.") + op] = "a collective: across ranks, not examples";
  ops["tfl.conv2d_backward_filter"] =
      "the pass's own: a loop over the examples (each sums over its images)";
  return ops;
}();

struct OpCoverage : ::testing::Test {
  OpCoverage() {
    DialectRegistry registry;
    mlir::tfl::registerCompilerDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    for (RegisteredOperationName name : ctx.getRegisteredOperations())
      if (name.getDialectNamespace() == "tfl")
        ops.push_back(name);
  }

  /// Checks that `op` has what `has` says, or is listed in `exempt`, not
  /// both.
  static void expectCovered(RegisteredOperationName op, bool has,
                            const llvm::StringMap<const char *> &exempt,
                            const char *what) {
    bool listed = exempt.contains(op.getStringRef());
    EXPECT_TRUE(has || listed) << op.getStringRef().str() << " has no " << what;
    EXPECT_FALSE(has && listed) << op.getStringRef().str() << " has " << what
                                << " now: take it off its list";
  }

  MLIRContext ctx;
  std::vector<RegisteredOperationName> ops;
};

TEST_F(OpCoverage, TheDialectIsThere) { EXPECT_GT(ops.size(), 80u); }

TEST_F(OpCoverage, EveryOpHasAnEagerKernel) {
  ::tfl::eager::KernelRegistry kernels;
  ::tfl::eager::registerTflKernels(kernels);
  for (RegisteredOperationName op : ops)
    expectCovered(op, kernels.lookup(op.getStringRef()), kNoKernel,
                  "eager kernel");
}

TEST_F(OpCoverage, EveryOpHasALowering) {
  RewritePatternSet patterns(&ctx);
  mlir::tfl::populateTflToLinalgPatterns(patterns);
  llvm::StringSet<> roots;
  for (const auto &pattern : patterns.getNativePatterns())
    if (std::optional<OperationName> root = pattern->getRootKind())
      roots.insert(root->getStringRef());
  for (RegisteredOperationName op : ops)
    expectCovered(op,
                  roots.contains(op.getStringRef()) ||
                      op.hasInterface<bufferization::BufferizableOpInterface>(),
                  kNoLowering, "lowering");
}

TEST_F(OpCoverage, EveryOpHasAReverseRule) {
  for (RegisteredOperationName op : ops)
    expectCovered(op, op.hasInterface<mlir::tfl::ReverseOpInterface>(), kNoRule,
                  "reverse rule");
}

TEST_F(OpCoverage, EveryOpHasABatchingRule) {
  for (RegisteredOperationName op : ops)
    expectCovered(op,
                  op.hasTrait<mlir::tfl::OpTrait::Elementwise>() ||
                      op.hasInterface<mlir::tfl::BatchOpInterface>(),
                  kNoBatchRule, "batching rule");
}

TEST_F(OpCoverage, TheListsNameOps) {
  llvm::StringSet<> names;
  for (RegisteredOperationName op : ops)
    names.insert(op.getStringRef());
  for (const auto *list : {&kNoKernel, &kNoLowering, &kNoRule, &kNoBatchRule})
    for (const auto &entry : *list)
      EXPECT_TRUE(names.contains(entry.getKey()))
          << entry.getKey().str() << " is not an op of the dialect";
}

TEST(Builtins, EachResolvesByItsName) {
  int count = 0;
#define TFL_BUILTIN(Family, Name, Spelling)                                    \
  {                                                                            \
    ::tfl::Builtin b = ::tfl::Family##Builtin::Name;                           \
    std::optional<::tfl::Builtin> named = ::tfl::Builtin::named(Spelling);     \
    ASSERT_TRUE(named.has_value()) << Spelling;                                \
    EXPECT_TRUE(*named == b) << Spelling;                                      \
    EXPECT_EQ(b.name(), Spelling);                                             \
    EXPECT_EQ(b.family(), ::tfl::BuiltinFamily::Family);                       \
    ++count;                                                                   \
  }
#include "tfl/Frontend/Builtins.def"
  EXPECT_GT(count, 100);
  EXPECT_FALSE(::tfl::Builtin::named("replace")); // a record's method
  EXPECT_TRUE(::tfl::Builtin(::tfl::MathBuiltin::Exp).takesFloats());
  EXPECT_FALSE(::tfl::Builtin(::tfl::MathBuiltin::Abs).takesFloats());
}

} // namespace
