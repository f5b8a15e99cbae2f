//===- Precision.cpp - Mixed precision and 16-bit floats ------------------===//
//
// tfl-autocast rewrites f32 matmuls and convolutions to a low precision, as
// PyTorch's autocast; tfl-widen-half runs the ops that have no 16-bit
// kernels on f32 copies of their 16-bit operands (on the GPU, products
// keep theirs: cuBLAS on tensor cores).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLAUTOCAST
#define GEN_PASS_DEF_TFLWIDENHALF
#include "tfl/Passes/Passes.h.inc"

namespace {

/// The element type of a tensor type (null for other types).
Type elementTypeOf(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor ? tensor.getElementType() : Type();
}

/// Clones `op` with each tensor operand whose element type satisfies
/// `from` cast to `to`, and each such result computed as `to` and cast
/// back to its own type; replaces `op` with the clone. A product's
/// transposed operand is cast before its transpose (the two commute): it
/// then still reads a transpose, which tfl-matmul-operands makes a GEMM's
/// flag, and the cast of the untransposed tensor is the one its other
/// uses (the forward pass's product) make, which CSE shares.
void retype(Operation *op, function_ref<bool(Type)> from, Type to) {
  OpBuilder b(op);
  ReverseBuilder casts(b, op->getLoc());
  IRMapping mapping;
  for (Value operand : op->getOperands()) {
    Type elem = elementTypeOf(operand.getType());
    if (!elem || !from(elem))
      continue;
    auto transpose = operand.getDefiningOp<TransposeOp>();
    if (transpose && isa<MatmulOp>(op))
      mapping.map(operand,
                  casts.transpose(casts.castTo(transpose.getInput(), to),
                                  transpose.getPerm()));
    else
      mapping.map(operand, casts.castTo(operand, to));
  }
  Operation *clone = b.clone(*op, mapping);
  b.setInsertionPointAfter(clone);
  for (auto [old, now] : llvm::zip(op->getResults(), clone->getResults())) {
    Type elem = elementTypeOf(old.getType());
    if (!elem || !from(elem)) {
      old.replaceAllUsesWith(now);
      continue;
    }
    now.setType(cast<RankedTensorType>(old.getType()).clone(to));
    old.replaceAllUsesWith(casts.castTo(now, elem));
  }
  op->erase();
}

/// True when some tensor among `types` has an element type satisfying
/// `pred`.
bool anyElementType(TypeRange types, function_ref<bool(Type)> pred) {
  return llvm::any_of(types, [&](Type t) {
    Type elem = elementTypeOf(t);
    return elem && pred(elem);
  });
}

struct Autocast : impl::TflAutocastBase<Autocast> {
  using TflAutocastBase::TflAutocastBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string wanted = precision;
    if (wanted.empty())
      if (auto attr = module->getAttrOfType<StringAttr>("tfl.precision"))
        wanted = attr.getValue().str();
    if (wanted.empty() || wanted == "f32")
      return;
    Builder b(module.getContext());
    Type low;
    if (wanted == "bf16")
      low = b.getBF16Type();
    else if (wanted == "f16")
      low = b.getF16Type();
    else {
      module.emitError("unknown precision '")
          << wanted << "' (bf16, f16 or f32)";
      return signalPassFailure();
    }
    auto isF32 = [](Type t) { return t.isF32(); };
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<MatmulOp, Conv2DOp, Conv2DBackwardInputOp, Conv2DBackwardFilterOp,
              AttentionOp, AttentionBackwardOp>(op) &&
          llvm::all_of(op->getOperandTypes(), [](Type t) {
            Type elem = elementTypeOf(t);
            return elem && elem.isF32();
          }))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      retype(op, isF32, low);
  }
};

/// Whether `op` is a product or a convolution of 16-bit operands into a
/// 16-bit result that the module's target computes as it is (or a fused
/// attention, with --gpu-attention=fused): cuBLAS, cuDNN and libtflrt_cuda's
/// attention take bf16 and f16 operands on tensor cores and accumulate in f32,
/// so the result rounds as the f32 product's or convolution's would (up
/// to the order of the sums); the CPU's libraries widen them. A
/// convolution padded more on one side than the other (cuDNN pads evenly;
/// the GPU runs those on the host, in f32) is widened too.
bool keepsHalfFloatsOnGpu(Operation *op, ModuleOp module) {
  auto target = module->getAttrOfType<StringAttr>("tfl.target");
  if (!target || target.getValue() != "cuda")
    return false;
  // A fused attention stays 16-bit where tfl-decompose-attention left it
  // (--gpu-attention=fused): libtflrt_cuda's tensor-core kernels.
  auto attention = module->getAttrOfType<StringAttr>("tfl.gpu_attention");
  bool fusedAttention = isa<AttentionOp, AttentionBackwardOp>(op) &&
                        attention && attention.getValue() == "fused";
  if (!fusedAttention &&
      !isa<MatmulOp, Conv2DOp, Conv2DBackwardInputOp, Conv2DBackwardFilterOp>(
          op))
    return false;
  if (auto padding = op->getAttrOfType<DenseI64ArrayAttr>("padding")) {
    ArrayRef<int64_t> pad = padding.asArrayRef();
    if (pad.size() != 4 || pad[0] != pad[1] || pad[2] != pad[3])
      return false;
  }
  Type elem = elementTypeOf(op->getResult(0).getType());
  return elem && isHalfFloat(elem) &&
         llvm::all_of(op->getOperandTypes(),
                      [&](Type t) { return elementTypeOf(t) == elem; });
}

struct WidenHalf : impl::TflWidenHalfBase<WidenHalf> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    ModuleOp module = getOperation();
    module.walk([&](Operation *op) {
      if (isa<TflDialect>(op->getDialect()) && !runsOnHalfFloats(op) &&
          !keepsHalfFloatsOnGpu(op, module) &&
          (anyElementType(op->getOperandTypes(), isHalfFloat) ||
           anyElementType(op->getResultTypes(), isHalfFloat)))
        ops.push_back(op);
    });
    Type f32 = Float32Type::get(&getContext());
    for (Operation *op : ops)
      retype(op, isHalfFloat, f32);
  }
};

} // namespace
} // namespace mlir::tfl
