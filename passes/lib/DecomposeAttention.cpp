//===- DecomposeAttention.cpp - tfl.attention as products and a softmax ---===//
//
// The CPU runtime fuses every tfl.attention and its adjoint. On the GPU
// they become products and a softmax, unless the module's
// tfl.gpu_attention is "fused" (tflc's --gpu-attention=fused): then
// libtflrt_cuda's kernels take those whose heads have at most
// kGpuAttentionMaxHead features, f32 ones on CUDA cores and bf16 or f16
// ones (16-bit precision's too) on tensor cores, where the heads must be
// a multiple of 16 features; the others (wider, dynamic or odd heads) are
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

/// Whether libtflrt_cuda's kernels take `op` in a module of 16-bit
/// precision or not (`half`): f32 operands (16-bit ones after autocast
/// when `half`) or bf16 or f16 ones, and heads (the last dim of q and of v)
/// of a known size no wider than the kernels take, a multiple of 16 for
/// 16-bit elements (the tensor cores' tiles).
bool fusedOnGpu(Operation *op, bool half) {
  Type elem =
      cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
  if (!elem.isF32() && !elem.isBF16() && !elem.isF16())
    return false;
  for (Type type : op->getOperandTypes())
    if (cast<RankedTensorType>(type).getElementType() != elem)
      return false;
  bool sixteen = half || !elem.isF32();
  for (unsigned i : {0u, 2u}) {
    int64_t head =
        cast<RankedTensorType>(op->getOperand(i).getType()).getShape().back();
    if (ShapedType::isDynamic(head) || head > kGpuAttentionMaxHead ||
        (sixteen && head % 16 != 0))
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
    bool products = !hasStringAttr(module, "tfl.gpu_attention", "fused");
    bool half = hasStringAttr(module, "tfl.precision", "bf16") ||
                hasStringAttr(module, "tfl.precision", "f16");
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionBackwardOp>(op) &&
          (products || !fusedOnGpu(op, half)))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      decomposeAttentionOp(op);
  }
};

} // namespace
} // namespace mlir::tfl
