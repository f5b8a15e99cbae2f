//===- DecomposeAttention.cpp - tfl.attention as products and a softmax ---===//

#include "tfl/IR/Attention.h"
#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLDECOMPOSEATTENTION
#include "tfl/Passes/Passes.h.inc"

namespace {

struct DecomposeAttention
    : impl::TflDecomposeAttentionBase<DecomposeAttention> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target = module->getAttrOfType<StringAttr>("tfl.target");
    if (all || (target && target.getValue() == "cuda"))
      decomposeAttention(module, /*forwardToo=*/true);
  }
};

} // namespace
} // namespace mlir::tfl
