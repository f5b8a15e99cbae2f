//===- DecomposeAttention.cpp - tfl.attention as products and a softmax ---===//
//
// The CPU runtime fuses every tfl.attention and its adjoint. On the GPU
// they become products and a softmax, unless the module's
// tfl.gpu_attention is "fused" (tflc's --gpu-attention=fused): then
// libtflrt_cuda's kernels take the f32 ones whose heads have at most
// kGpuAttentionMaxHead features, and only the others (16-bit precision,
// whose products run on tensor cores; wider or dynamic heads) are
// decomposed. With `all`, every one on any target.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/Attention.h"
#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLDECOMPOSEATTENTION
#include "tfl/Passes/Passes.h.inc"

namespace {

bool hasStringAttr(ModuleOp module, StringRef name, StringRef value) {
  auto attr = module->getAttrOfType<StringAttr>(name);
  return attr && attr.getValue() == value;
}

/// Whether libtflrt_cuda's kernels take `op`: f32 operands, and heads (the
/// last dim of q and of v) of a known size no wider than they take.
bool fusedOnGpu(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (!cast<RankedTensorType>(type).getElementType().isF32())
      return false;
  for (unsigned i : {0u, 2u}) {
    int64_t head =
        cast<RankedTensorType>(op->getOperand(i).getType()).getShape().back();
    if (ShapedType::isDynamic(head) || head > kGpuAttentionMaxHead)
      return false;
  }
  return true;
}

struct DecomposeAttention
    : impl::TflDecomposeAttentionBase<DecomposeAttention> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (all)
      return decomposeAttention(module, /*forwardToo=*/true);
    if (!hasStringAttr(module, "tfl.target", "cuda"))
      return;
    bool products = !hasStringAttr(module, "tfl.gpu_attention", "fused") ||
                    hasStringAttr(module, "tfl.precision", "bf16") ||
                    hasStringAttr(module, "tfl.precision", "f16");
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionBackwardOp>(op) &&
          (products || !fusedOnGpu(op)))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      decomposeAttentionOp(op);
  }
};

} // namespace
} // namespace mlir::tfl
