//===- ReverseBuilder.h - Building pullbacks out of tfl ops -----*- C++ -*-===//
//
// The vocabulary reverse rules are written in: tfl ops created at a
// builder's insertion point with result types inferred (NumPy
// broadcasting), and `sumTo`, which sum-reduces a cotangent back to the
// shape of an operand that was broadcast.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_IR_REVERSEBUILDER_H
#define TFL_IR_REVERSEBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tfl {

/// A tensor of `type` whose every element is `value`: a constant, or, for
/// a type with a dynamic (batch) dim, the scalar broadcast to it.
Value filled(OpBuilder &b, Location loc, RankedTensorType type,
             TypedAttr value);

class ReverseBuilder {
public:
  ReverseBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, Value y);
  Value pow(Value x, Value y);
  Value neg(Value x);
  Value exp(Value x);
  Value log(Value x);
  Value sin(Value x);
  Value cos(Value x);
  Value sign(Value x);
  Value floor(Value x);
  /// where(cond, x, y), broadcasting.
  Value select(Value cond, Value x, Value y);
  /// Elementwise comparisons giving i1 tensors.
  Value eq(Value x, Value y);
  Value gt(Value x, Value y);
  /// 1 where x > y, 0.5 where x == y, 0 elsewhere, in x's element type: the
  /// share of a maximum's cotangent going to x (ties split evenly).
  Value winMask(Value x, Value y);
  /// A 0-d tensor of `value` in `like`'s element type.
  Value scalar(Value like, double value);
  /// zeros and ones of `like`'s type.
  Value zeros(Value like);
  Value ones(Value like);
  /// `x` cast to `elementType` (itself when it has that type).
  Value castTo(Value x, Type elementType);
  /// `x` cast to the element type of `like`.
  Value castLike(Value x, Value like);
  /// Sums `x` over the dims that broadcasting added or stretched, giving
  /// `like`'s shape.
  Value sumTo(Value x, Value like);
  /// `x` (reduced over `axes` without keepdims) broadcast back to `like`'s
  /// shape.
  Value unreduce(Value x, Value like, ArrayRef<int64_t> axes);
  Value reshape(Value x, ArrayRef<int64_t> shape);
  Value transpose(Value x, ArrayRef<int64_t> perm);
  Value matmul(Value x, Value y);

  OpBuilder &builder() { return b; }
  Location location() { return loc; }

private:
  OpBuilder &b;
  Location loc;
};

} // namespace mlir::tfl

#endif // TFL_IR_REVERSEBUILDER_H
