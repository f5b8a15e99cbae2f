//===- UpstreamKernels.cpp - Eager kernels of upstream scalar ops ---------===//
//
// The few arith and tensor ops MLIRGen emits around structured control flow
// (loop bounds, trip counts, conditions), or canonicalization makes of them:
// integer scalar arithmetic and comparisons, index casts, select, and moving
// scalars in and out of tensors. Scalars are 0-d tensors, an `index` is an i64.
//
//===----------------------------------------------------------------------===//

#include "tfl/Eager/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace tfl::eager {
namespace {

Tensor scalarOfType(Type type, int64_t value) {
  Tensor t(toRuntimeDType(type), {});
  switch (t.dtype()) {
  case tflrt::DType::I32:
    t.data<int32_t>()[0] = static_cast<int32_t>(value);
    break;
  case tflrt::DType::I64:
    t.data<int64_t>()[0] = value;
    break;
  default:
    t.data<uint8_t>()[0] = static_cast<uint8_t>(value);
  }
  return t;
}

int64_t intOf(const Tensor &t) { return t.view().getAsInt(nullptr); }

/// Registers an integer binary op on scalars.
template <typename OpTy>
void addIntBinary(KernelRegistry &registry, int64_t (*fn)(int64_t, int64_t)) {
  registry.add(
      OpTy::getOperationName(),
      [fn](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(scalarOfType(op->getResult(0).getType(),
                                   fn(intOf(in[0]), intOf(in[1]))));
      });
}

int64_t divide(int64_t a, int64_t b) {
  if (b == 0)
    throw RuntimeError("integer division by zero");
  return a / b;
}

int64_t ceilDiv(int64_t a, int64_t b) {
  if (b == 0)
    throw RuntimeError("integer division by zero");
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

/// arith.cmpi of two integer scalars (signed predicates).
void compare(Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
  int64_t a = intOf(in[0]), b = intOf(in[1]);
  bool holds = false;
  switch (cast<arith::CmpIOp>(op).getPredicate()) {
  case arith::CmpIPredicate::eq:
    holds = a == b;
    break;
  case arith::CmpIPredicate::ne:
    holds = a != b;
    break;
  case arith::CmpIPredicate::slt:
    holds = a < b;
    break;
  case arith::CmpIPredicate::sle:
    holds = a <= b;
    break;
  case arith::CmpIPredicate::sgt:
    holds = a > b;
    break;
  case arith::CmpIPredicate::sge:
    holds = a >= b;
    break;
  default:
    throw RuntimeError("eager arith.cmpi with an unsigned predicate");
  }
  out.push_back(scalarOfType(op->getResult(0).getType(), holds));
}

} // namespace

void registerUpstreamKernels(KernelRegistry &registry) {
  registry.add(
      arith::ConstantOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor>, SmallVectorImpl<Tensor> &out) {
        // Canonicalization also makes dense and float constants.
        Attribute value = cast<arith::ConstantOp>(op).getValue();
        if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
          out.push_back(tensorFromAttr(dense));
        } else if (auto f = dyn_cast<FloatAttr>(value)) {
          Tensor t(toRuntimeDType(f.getType()), {});
          if (f.getType().isF32())
            t.data<float>()[0] = static_cast<float>(f.getValueAsDouble());
          else
            t.data<double>()[0] = f.getValueAsDouble();
          out.push_back(t);
        } else {
          auto i = cast<IntegerAttr>(value);
          out.push_back(scalarOfType(i.getType(), i.getInt()));
        }
      });
  addIntBinary<arith::AddIOp>(registry,
                              [](int64_t a, int64_t b) { return a + b; });
  addIntBinary<arith::SubIOp>(registry,
                              [](int64_t a, int64_t b) { return a - b; });
  addIntBinary<arith::MulIOp>(registry,
                              [](int64_t a, int64_t b) { return a * b; });
  addIntBinary<arith::MaxSIOp>(
      registry, [](int64_t a, int64_t b) { return std::max(a, b); });
  addIntBinary<arith::MinSIOp>(
      registry, [](int64_t a, int64_t b) { return std::min(a, b); });
  addIntBinary<arith::DivSIOp>(registry, divide);
  addIntBinary<arith::CeilDivSIOp>(registry, ceilDiv);
  // A reverse loop's test of whether an iteration ran (one vmap may have
  // run past an example's range).
  registry.add(arith::CmpIOp::getOperationName(), compare);
  registry.add(
      arith::IndexCastOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        out.push_back(scalarOfType(op->getResult(0).getType(), intOf(in[0])));
      });
  // Canonicalization folds an scf.if of two values into a select.
  registry.add(
      arith::SelectOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        if (in[0].rank() != 0)
          throw RuntimeError("eager arith.select with a tensor "
                             "condition");
        out.push_back(intOf(in[0]) ? in[1] : in[2]);
      });
  // A 0-d tensor and its scalar have the same runtime value.
  registry.add(
      tensor::ExtractOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        if (in[0].rank() != 0)
          throw RuntimeError("eager tensor.extract of a "
                             "non-scalar tensor");
        out.push_back(in[0]);
      });
  registry.add(
      tensor::FromElementsOp::getOperationName(),
      [](Operation *op, ArrayRef<Tensor> in, SmallVectorImpl<Tensor> &out) {
        if (in.size() != 1 ||
            cast<RankedTensorType>(op->getResult(0).getType()).getRank() != 0)
          throw RuntimeError("eager tensor.from_elements of more "
                             "than one scalar");
        out.push_back(in[0]);
      });
}

} // namespace tfl::eager
