//===- TflOps.td - Ops of the tfl dialect ------------------*- tablegen -*-===//
//
// Every op: a summary, a description with an example, a verifier where
// shapes or dtypes can disagree, and a declarative assembly format.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_OPS_TD
#define TFL_OPS_TD

include "tfl/IR/TflDialect.td"
include "tfl/IR/TflInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Tfl_ConstantOp : Tfl_Op<"constant",
    [Tfl_RunsOnHalfFloats, ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor";
  let description = [{
    A tensor known at compile time: a literal, a nested list literal, or a
    folded value.

    ```mlir
    %0 = tfl.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Binary elementwise ops broadcast their operands as NumPy does: shapes are
// aligned on the right, and a dim of size 1 stretches to the other's size.
// Both operands and the result share one element type (the frontend inserts
// casts and gives literals the type of their partner).
//
// Reverse rules: `lhsPullback` and `rhsPullback` are C++ expressions over a
// ReverseBuilder `r`, the operands `l` and `rr`, the result `y` and its
// cotangent `dy` (see TflInterfaces.td); cotangents are summed back to the
// operand's shape (`r.sumTo`).
class Tfl_BroadcastingBinaryOp<string mnemonic, Type operandType,
                               list<Trait> traits = [],
                               code lhsPullback = "", code rhsPullback = "">
    : Tfl_Op<mnemonic, !listconcat(traits, [Pure, Tfl_RunsOnHalfFloats],
          !if(!empty(lhsPullback), [],
              [DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]))> {
  let extraClassDefinition = !if(!empty(lhsPullback), "", [{
    ::mlir::LogicalResult $cppClass::reverse(::mlir::OpBuilder &b,
        ::mlir::ValueRange dResults,
        ::llvm::SmallVectorImpl<::mlir::Value> &dOperands) {
      ::mlir::tfl::ReverseBuilder r(b, getLoc());
      ::mlir::Value l = getLhs(), rr = getRhs(), y = getResult(),
                    dy = dResults[0];
      (void)y;
      (void)dy;
      dOperands.push_back(r.sumTo(}] # lhsPullback # [{, l));
      dOperands.push_back(r.sumTo(}] # rhsPullback # [{, rr));
      return ::mlir::success();
    }
  }]);
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfl_AddOp : Tfl_BroadcastingBinaryOp<"add", Tfl_Tensor, [Commutative],
    [{dy}],
    [{dy}]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    `lhs + rhs`, elementwise, after NumPy broadcasting.

    ```mlir
    %2 = tfl.add %0, %1 : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
    ```
  }];  let hasCanonicalizeMethod = 1;
}

def Tfl_SubOp : Tfl_BroadcastingBinaryOp<"sub", Tfl_Tensor, [],
    [{dy}],
    [{r.neg(dy)}]> {
  let summary = "elementwise subtraction with broadcasting";
  let description = [{
    `lhs - rhs`, elementwise, after NumPy broadcasting.

    ```mlir
    %2 = tfl.sub %0, %1 : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
    ```
  }];
}

def Tfl_MulOp : Tfl_BroadcastingBinaryOp<"mul", Tfl_Tensor, [Commutative],
    [{r.mul(dy, rr)}],
    [{r.mul(dy, l)}]> {
  let summary = "elementwise multiplication with broadcasting";
  let description = [{
    `lhs * rhs`, elementwise, after NumPy broadcasting.

    ```mlir
    %2 = tfl.mul %0, %1 : tensor<2x2xi64>, tensor<2x2xi64> -> tensor<2x2xi64>
    ```
  }];
}

def Tfl_DivOp : Tfl_BroadcastingBinaryOp<"div", Tfl_FloatTensor, [],
    [{r.div(dy, rr)}],
    [{r.neg(r.div(r.mul(dy, y), rr))}]> {
  let summary = "elementwise true division with broadcasting";
  let description = [{
    `lhs / rhs` on floats, elementwise, after NumPy broadcasting. (`/` on
    integers is cast to `f32` by the frontend first.)

    ```mlir
    %2 = tfl.div %0, %1 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    ```
  }];
}

def Tfl_FloorDivOp : Tfl_BroadcastingBinaryOp<"floordiv", Tfl_Tensor, [],
    [{r.zeros(y)}],
    [{r.zeros(y)}]> {
  let summary = "elementwise floor division with broadcasting";
  let description = [{
    `lhs // rhs`: the quotient rounded toward negative infinity, as Python
    and NumPy's `floor_divide`. Integer division by zero gives 0 (NumPy's
    result) rather than trapping.

    ```mlir
    %2 = tfl.floordiv %0, %1 : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
    ```
  }];
}

def Tfl_ModOp : Tfl_BroadcastingBinaryOp<"mod", Tfl_Tensor, [],
    [{dy}],
    [{r.neg(r.mul(dy, r.floor(r.div(l, rr))))}]> {
  let summary = "elementwise remainder with the divisor's sign";
  let description = [{
    `lhs % rhs` as Python and NumPy's `remainder`: the result has the sign
    of `rhs`, and `lhs == (lhs // rhs) * rhs + lhs % rhs`. Integer `x % 0`
    is 0; float `x % 0.0` is NaN.

    ```mlir
    %2 = tfl.mod %0, %1 : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
    ```
  }];
}

def Tfl_PowOp : Tfl_BroadcastingBinaryOp<"pow", Tfl_Tensor, [],
    [{r.mul(dy, r.mul(rr, r.pow(l, r.sub(rr, r.scalar(l, 1)))))}],
    [{r.select(r.gt(l, r.scalar(l, 0)), r.mul(dy, r.mul(y, r.log(l))), r.scalar(l, 0))}]> {
  let summary = "elementwise power with broadcasting";
  let description = [{
    `lhs ** rhs`. Floats follow C's `pow`; integers raise exactly, and a
    negative integer exponent gives `1 // lhs ** -rhs` (0 unless `lhs` is 1
    or -1).

    ```mlir
    %2 = tfl.pow %0, %1 : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    ```
  }];
}

def Tfl_NegOp : Tfl_Op<"neg", [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure, SameOperandsAndResultType]> {
  let summary = "elementwise negation";
  let description = [{
    `-x`, elementwise.

    ```mlir
    %1 = tfl.neg %0 : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfl_CastOp : Tfl_Op<"cast", [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts each element to the result's element type, as NumPy's
    `astype`: floats to integers truncate toward zero, `bool` is 0 or 1, and
    anything to `bool` is `x != 0`. The shape does not change.

    ```mlir
    %1 = tfl.cast %0 : tensor<3xi64> -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tfl_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "an elementwise comparison", [
      I32EnumAttrCase<"lt", 0>, I32EnumAttrCase<"le", 1>,
      I32EnumAttrCase<"gt", 2>, I32EnumAttrCase<"ge", 3>,
      I32EnumAttrCase<"eq", 4>, I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::mlir::tfl";
}

def Tfl_CompareOp : Tfl_Op<"compare", [Tfl_RunsOnHalfFloats, Pure]> {
  let summary = "elementwise comparison with broadcasting, giving bool";
  let description = [{
    `lhs < rhs` (and `<= > >= == !=`), elementwise, after NumPy
    broadcasting; the result is a `bool` (`i1`) tensor. Floats compare as
    IEEE ordered comparisons, except `ne`, which is true for NaN; `u8`
    (`i8`) and `bool` compare unsigned.

    ```mlir
    %2 = tfl.compare lt, %0, %1 : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
    ```
  }];
  let arguments = (ins Tfl_ComparePredicate:$predicate, Tfl_Tensor:$lhs,
                       Tfl_Tensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tfl_NotOp : Tfl_Op<"not", [Tfl_RunsOnHalfFloats, Pure, SameOperandsAndResultType]> {
  let summary = "elementwise logical not";
  let description = [{
    `not x` on booleans.

    ```mlir
    %1 = tfl.not %0 : tensor<i1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$input);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise math built-ins
//===----------------------------------------------------------------------===//

// `pullback`: the input's cotangent, a C++ expression over a ReverseBuilder
// `r`, the input `x`, the result `y` and its cotangent `dy`.
class Tfl_UnaryOp<string mnemonic, Type type, string what,
                  code pullback = "">
    : Tfl_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType, Tfl_RunsOnHalfFloats],
          !if(!empty(pullback), [],
              [DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]))> {
  let extraClassDefinition = !if(!empty(pullback), "", [{
    ::mlir::LogicalResult $cppClass::reverse(::mlir::OpBuilder &b,
        ::mlir::ValueRange dResults,
        ::llvm::SmallVectorImpl<::mlir::Value> &dOperands) {
      ::mlir::tfl::ReverseBuilder r(b, getLoc());
      ::mlir::Value x = getInput(), y = getResult(), dy = dResults[0];
      (void)x; (void)y; (void)dy;
      dOperands.push_back(}] # pullback # [{);
      return ::mlir::success();
    }
  }]);
  let summary = "elementwise " # what;
  let description = "`" # mnemonic # "(x)`: " # what # ", elementwise.\n\n"
      "```mlir\n%1 = tfl." # mnemonic # " %0 : tensor<3xf32>\n```";
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfl_ExpOp : Tfl_UnaryOp<"exp", Tfl_FloatTensor, "e to the power of x",
    [{r.mul(dy, y)}]>;
def Tfl_LogOp : Tfl_UnaryOp<"log", Tfl_FloatTensor, "the natural logarithm",
    [{r.div(dy, x)}]>;
def Tfl_Log1pOp : Tfl_UnaryOp<"log1p", Tfl_FloatTensor, "log(1 + x), accurate for small x",
    [{r.div(dy, r.add(x, r.scalar(x, 1)))}]>;
def Tfl_Expm1Op : Tfl_UnaryOp<"expm1", Tfl_FloatTensor, "exp(x) - 1, accurate for small x",
    [{r.mul(dy, r.add(y, r.scalar(x, 1)))}]>;
def Tfl_ErfOp : Tfl_UnaryOp<"erf", Tfl_FloatTensor, "the error function",
    [{r.mul(dy, r.mul(r.scalar(x, 1.1283791670955126),
                      r.exp(r.neg(r.mul(x, x)))))}]>;
def Tfl_SqrtOp : Tfl_UnaryOp<"sqrt", Tfl_FloatTensor, "the square root",
    [{r.div(dy, r.mul(r.scalar(x, 2), y))}]>;
def Tfl_RsqrtOp : Tfl_UnaryOp<"rsqrt", Tfl_FloatTensor, "1 / sqrt(x)",
    [{r.mul(dy, r.mul(r.scalar(x, -0.5), r.div(y, x)))}]>;
def Tfl_TanhOp : Tfl_UnaryOp<"tanh", Tfl_FloatTensor, "the hyperbolic tangent",
    [{r.mul(dy, r.sub(r.scalar(x, 1), r.mul(y, y)))}]>;
def Tfl_SigmoidOp : Tfl_UnaryOp<"sigmoid", Tfl_FloatTensor, "1 / (1 + exp(-x))",
    [{r.mul(dy, r.mul(y, r.sub(r.scalar(x, 1), y)))}]>;
def Tfl_SinOp : Tfl_UnaryOp<"sin", Tfl_FloatTensor, "the sine",
    [{r.mul(dy, r.cos(x))}]>;
def Tfl_CosOp : Tfl_UnaryOp<"cos", Tfl_FloatTensor, "the cosine",
    [{r.neg(r.mul(dy, r.sin(x)))}]>;
def Tfl_FloorOp : Tfl_UnaryOp<"floor", Tfl_FloatTensor, "the largest integer not above x",
    [{r.zeros(x)}]>;
def Tfl_RoundOp : Tfl_UnaryOp<"round", Tfl_FloatTensor, "x rounded to the nearest integer, halves to even (as NumPy)",
    [{r.zeros(x)}]>;
def Tfl_AbsOp : Tfl_UnaryOp<"abs", Tfl_Tensor, "the absolute value",
    [{r.mul(dy, r.sign(x))}]>;
def Tfl_SignOp : Tfl_UnaryOp<"sign", Tfl_Tensor, "-1, 0 or 1 by the sign of x (NaN and zeros pass through)",
    [{r.zeros(x)}]>;
def Tfl_SquareOp : Tfl_UnaryOp<"square", Tfl_Tensor, "x * x",
    [{r.mul(dy, r.mul(r.scalar(x, 2), x))}]>;
// The pullback masks by the result (y > 0 exactly where x > 0), so x is
// used once and a bias add before the relu fuses into it.
def Tfl_ReluOp : Tfl_UnaryOp<"relu", Tfl_Tensor, "max(x, 0), NaN propagating",
    [{r.select(r.gt(y, r.scalar(y, 0)), dy, r.scalar(x, 0))}]>;

def Tfl_MaximumOp : Tfl_BroadcastingBinaryOp<"maximum", Tfl_Tensor,
    [Commutative], [{r.mul(dy, r.winMask(l, rr))}],
    [{r.mul(dy, r.winMask(rr, l))}]> {
  let summary = "elementwise maximum with broadcasting";
  let description = [{
    `maximum(a, b)` as NumPy's: NaN propagates, and +0.0 is above -0.0.

    ```mlir
    %2 = tfl.maximum %0, %1 : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    ```
  }];
}

def Tfl_MinimumOp : Tfl_BroadcastingBinaryOp<"minimum", Tfl_Tensor,
    [Commutative], [{r.mul(dy, r.winMask(rr, l))}],
    [{r.mul(dy, r.winMask(l, rr))}]> {
  let summary = "elementwise minimum with broadcasting";
  let description = [{
    `minimum(a, b)` as NumPy's: NaN propagates, and -0.0 is below +0.0.

    ```mlir
    %2 = tfl.minimum %0, %1 : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    ```
  }];
}

def Tfl_WhereOp : Tfl_Op<"where", [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
  let summary = "elementwise choice between two tensors, with broadcasting";
  let description = [{
    `where(cond, a, b)`: `a` where `cond` is true, `b` elsewhere. The three
    operands broadcast together as in NumPy.

    ```mlir
    %3 = tfl.where %c, %a, %b : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$cond, Tfl_Tensor:$lhs,
                       Tfl_Tensor:$rhs);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($lhs) `,`
    type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Reductions over a sorted set of distinct axes; `keepdims` keeps each
// reduced axis as a dim of size 1. The result's element type is the
// input's.
class Tfl_ReductionOp<string mnemonic, string what, list<Trait> traits = []>
    : Tfl_Op<mnemonic, !listconcat([Pure], traits)> {
  let summary = what # " over axes";
  let description = "The " # what # " of `input` over `axes` (NumPy's `" #
      mnemonic # "(x, axis=axes, keepdims=keepdims)`).\n\n"
      "```mlir\n%1 = tfl." # mnemonic #
      " %0 {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> "
      "tensor<2xf32>\n```";
  let arguments = (ins Tfl_Tensor:$input, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keepdims);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfl_ReduceSumOp : Tfl_ReductionOp<"reduce_sum", "the sum",
    [DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]>;
def Tfl_ReduceProdOp : Tfl_ReductionOp<"reduce_prod", "the product",
    [DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]>;
def Tfl_ReduceMaxOp : Tfl_ReductionOp<"reduce_max",
    "the maximum (NaN propagating)",
    [DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]>;
def Tfl_ReduceMinOp : Tfl_ReductionOp<"reduce_min",
    "the minimum (NaN propagating)",
    [DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]>;

class Tfl_ArgReductionOp<string mnemonic, string what>
    : Tfl_Op<mnemonic, [Pure]> {
  let summary = "the index of " # what # " along an axis";
  let description = "The first index of " # what # " of `input` along "
      "`axis` (NumPy's `" # mnemonic # "`; a NaN counts as the extreme, so "
      "the first NaN's index is returned). Without `axis`, the index into "
      "the flattened input.\n\n"
      "```mlir\n%1 = tfl." # mnemonic #
      " %0 {axis = 1 : i64, keepdims = false} : tensor<2x3xf32> -> "
      "tensor<2xi64>\n```";
  let arguments = (ins Tfl_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                       BoolAttr:$keepdims);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfl_ArgmaxOp : Tfl_ArgReductionOp<"argmax", "the maximum">;
def Tfl_ArgminOp : Tfl_ArgReductionOp<"argmin", "the minimum">;

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tfl_DimOp : Tfl_Op<"dim", [Pure]> {
  let summary = "the size of one dim of a tensor, as an i64 scalar";
  let description = [{
    The run-time size of dim `axis` of `input`: what counts a batch whose
    size is given when an exported function is called (`mean` over a
    `?` dim divides by it).

    ```mlir
    %1 = tfl.dim %0 {axis = 0 : i64} : tensor<?x4xf32> -> tensor<i64>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, I64Attr:$axis);
  let results = (outs 0DTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tfl_BroadcastToOp : Tfl_Op<"broadcast_to", [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
  let summary = "broadcast a tensor to a shape";
  let description = [{
    NumPy's `broadcast_to(x, shape)`: the result's shape, with `x`'s dims
    aligned on the right and size-1 dims stretched.

    ```mlir
    %1 = tfl.broadcast_to %0 : tensor<3x1xf32> -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tfl_ReshapeOp : Tfl_Op<"reshape", [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
  let summary = "the same elements, in row-major order, in another shape";
  let description = [{
    NumPy's `reshape`: the result has the input's elements in row-major
    order and the same number of them.

    ```mlir
    %1 = tfl.reshape %0 : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tfl_TransposeOp : Tfl_Op<"transpose", [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
  let summary = "permute the dims of a tensor";
  let description = [{
    NumPy's `transpose(x, perm)`: result dim `i` is input dim `perm[i]`.

    ```mlir
    %1 = tfl.transpose %0 {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tfl_SliceOp : Tfl_Op<"slice",
    [Tfl_RunsOnHalfFloats, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "a strided window of a tensor, of static size";
  let description = [{
    Result element `[i0, i1, ...]` is `input[s0 + i0 * t0, s1 + i1 * t1,
    ...]` with starts `s`, strides `t` (nonzero, possibly negative) and the
    result's static shape as sizes. A start is static (`static_starts`) or,
    where that holds `kDynamic`, the next of the `starts` operands (an i64
    scalar tensor). Every element read must lie inside `input`: a dynamic
    start that breaks this is a run-time error (indexing out of range). This
    is what `x[i]`, `x[a:b:c]` and `x[s : s + K]` become (with a reshape
    dropping integer-indexed dims).

    ```mlir
    %2 = tfl.slice %0[%1] {static_starts = array<i64: -9223372036854775808, 0>, strides = array<i64: 1, 1>} : tensor<10x3xf32>, tensor<i64> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, Variadic<RankedTensorOf<[I64]>>:$starts,
                       DenseI64ArrayAttr:$static_starts,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $starts `]` attr-dict `:` type($input) (`,` type($starts)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfl_EmbedSliceOp : Tfl_Op<"embed_slice",
    [Tfl_RunsOnHalfFloats, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "zeros with a tensor written into a strided window";
  let description = [{
    The adjoint of `tfl.slice`: a tensor of the result's shape, zero
    except `result[s0 + i0 * t0, ...] = input[i0, ...]`, with starts as in
    `tfl.slice` (static, or the next of the `starts` operands) and positive
    strides. The window lies inside the result (the slice it reverses was
    checked).

    ```mlir
    %2 = tfl.embed_slice %0[%1] {static_starts = array<i64: -9223372036854775808, 0>, strides = array<i64: 1, 1>} : tensor<4x3xf32>, tensor<i64> -> tensor<10x3xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, Variadic<RankedTensorOf<[I64]>>:$starts,
                       DenseI64ArrayAttr:$static_starts,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $starts `]` attr-dict `:` type($input) (`,` type($starts)^)? `->` type($result)
  }];
  let hasVerifier = 1;  let hasFolder = 1;
}

def Tfl_ScatterAddOp : Tfl_Op<"scatter_add",
    [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "gather's adjoint: slices added into zeros at indices";
  let description = [{
    The cotangent of a `gather`'s input (the result's type): zeros, with
    each slice of `dy` along the gathered dims added at its index along
    `axis` (repeated indices accumulate). Runs in libtflrt in both modes.

    ```mlir
    %dx = tfl.scatter_add %dy, %idx {axis = 0 : i64} : tensor<3x4xf32>, tensor<3xi64> -> tensor<10x4xf32>
    ```
  }];
  let arguments = (ins Tfl_FloatTensor:$dy,
                   RankedTensorOf<[I64]>:$indices, I64Attr:$axis);
  let results = (outs Tfl_FloatTensor:$result);
  let assemblyFormat = [{
    $dy `,` $indices attr-dict `:` type($dy) `,` type($indices) `->` type($result)
  }];
}

def Tfl_GatherOp : Tfl_Op<"gather",
    [Tfl_RunsOnHalfFloats, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "take slices of a tensor at integer indices along an axis";
  let description = [{
    TensorFlow's `gather(x, indices, axis)`: the result's shape is
    `x.shape[:axis] + indices.shape + x.shape[axis+1:]`, and each index
    picks a slice of `x` along `axis`. An index outside `[0, x.shape[axis])`
    is a run-time error.

    ```mlir
    %2 = tfl.gather %0, %1 {axis = 0 : i64} : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, RankedTensorOf<[I32, I64]>:$indices,
                       I64Attr:$axis);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` type($input) `,` type($indices) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tfl_ConcatOp : Tfl_Op<"concat", [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
  let summary = "join tensors along an axis";
  let description = [{
    NumPy's `concatenate(inputs, axis)`: inputs of one rank and element type
    whose dims agree except along `axis`.

    ```mlir
    %2 = tfl.concat %0, %1 {axis = 0 : i64} : tensor<1x3xf32>, tensor<2x3xf32> -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfl_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Tfl_MatmulOp : Tfl_Op<"matmul", [DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
  let summary = "matrix product";
  let description = [{
    `lhs @ rhs` for 2-D operands of one element type: `[M, K] @ [K, N]`
    gives `[M, N]`; or batched, 3-D: `[B, M, K] @ [B, K, N]` gives
    `[B, M, N]` (the frontend reshapes and broadcasts NumPy's other forms to
    these). Lowered to a tuned library call (BLAS) for floats.

    ```mlir
    %2 = tfl.matmul %0, %1 : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$lhs, Tfl_Tensor:$rhs);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Output and checks
//===----------------------------------------------------------------------===//

def Tfl_FlagOp : Tfl_Op<"flag", [Pure]> {
  let summary = "the value of a command-line flag";
  let description = [{
    The value of `--name=value` on the program's command line, or the
    flag's default. The module's `tfl.flags` attribute lists every flag
    (name, dtype, default, help), declared before the program starts so that
    `--help` can list them.

    ```mlir
    %0 = tfl.flag {name = "epochs"} : tensor<i64>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs RankedTensorOf<[I64, F32, F64, I1]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Autodiff
//===----------------------------------------------------------------------===//

def Tfl_GradOp : Tfl_Op<"grad"> {
  let summary = "the gradient of a function, built by the autodiff pass";
  let description = [{
    `grad(f, argnums)(args)` and `value_and_grad(...)`: calls `callee` on
    `operands` (its scalar float result, with `with_value`) and gives the
    gradient with respect to the operands at `argnums`. The `tfl-autodiff`
    pass replaces it by a call of a generated function (reverse mode, at
    compile time); no later pass or the eager interpreter sees it.

    ```mlir
    %g = tfl.grad @loss(%w, %x) {argnums = array<i64: 0>, with_value = false} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Tfl_Tensor>:$operands,
                   DenseI64ArrayAttr:$argnums, BoolAttr:$with_value);
  let results = (outs Variadic<Tfl_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

// The tapes: what the forward sweep of a differentiated loop keeps for the
// reverse loop. A function that uses tapes opens a frame of them on entry
// and closes it on return, so a call never sees its caller's. Each tape of
// a frame (named by the `tape` attribute) is a growable array of tensors
// with a cursor: `tape_push` writes at the cursor and advances it,
// `tape_read` reads any entry without removing it, and `tape_rewind` moves
// the cursor back (freeing the entries above with `release`), so loops of
// any trip count (and while loops) are reversed in time and memory linear
// in the iterations run. A tape also has an accumulator per entry
// (`tape_add`, `tape_accumulated`): the reverse of a read adds its
// cotangent there, and the reverse of the push takes the sum, which makes
// the tape ops differentiable and second and higher derivatives go through
// loops (docs/RationaleAutodiff.md).
def Tfl_Tape : Resource<"::mlir::tfl::TapeResource">;

def Tfl_TapeEnterOp : Tfl_Op<"tape_enter",
    [MemoryEffects<[MemWrite<Tfl_Tape>]>]> {
  let summary = "opens a frame of empty tapes for the function it starts";
  let description = [{
    ```mlir
    tfl.tape_enter
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tfl_TapeExitOp : Tfl_Op<"tape_exit",
    [MemoryEffects<[MemWrite<Tfl_Tape>]>]> {
  let summary = "closes the frame the function's tape_enter opened";
  let description = [{
    ```mlir
    tfl.tape_exit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tfl_TapePushOp : Tfl_Op<"tape_push",
    [MemoryEffects<[MemRead<Tfl_Tape>, MemWrite<Tfl_Tape>]>]> {
  let summary = "writes a copy of a tensor at a tape's cursor, advancing it";
  let description = [{
    Made by the autodiff pass in the forward sweep of a loop, for the
    reverse loop to read. A `replay` push writes again an entry an earlier
    push wrote (with the same value: a reverse sweep runs an iteration
    again after a `tape_rewind`); differentiating it gives nothing, as the
    reads' cotangents all go to the first push.

    ```mlir
    tfl.tape_push %0 {tape = 0} : tensor<2xf32>
    tfl.tape_push %0 {replay, tape = 0} : tensor<2xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, I64Attr:$tape, UnitAttr:$replay);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfl_TapeSizeOp : Tfl_Op<"tape_size", [MemoryEffects<[MemRead<Tfl_Tape>]>]> {
  let summary = "a tape's cursor: the position the next push writes at";
  let description = [{
    ```mlir
    %0 = tfl.tape_size {tape = 0} : i64
    ```
  }];
  let arguments = (ins I64Attr:$tape);
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tfl_TapeReadOp : Tfl_Op<"tape_read", [MemoryEffects<[MemRead<Tfl_Tape>]>]> {
  let summary = "the tensor at a position of a tape";
  let description = [{
    The result type must be the type that was pushed there; reading a
    position nothing was written at gives zeros (what an accumulator's
    reverse reads when no cotangent reached it).

    ```mlir
    %0 = tfl.tape_read %p {tape = 0} : tensor<2xf32>
    ```
  }];
  let arguments = (ins I64:$position, I64Attr:$tape);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$position attr-dict `:` type($result)";
}

def Tfl_TapeWriteOp : Tfl_Op<"tape_write",
    [MemoryEffects<[MemRead<Tfl_Tape>, MemWrite<Tfl_Tape>]>]> {
  let summary = "writes a copy of a tensor at a position of a tape";
  let description = [{
    The reverse of `tape_accumulated`; leaves the cursor where it is.

    ```mlir
    tfl.tape_write %p, %0 {tape = 1} : tensor<2xf32>
    ```
  }];
  let arguments = (ins I64:$position, Tfl_Tensor:$input, I64Attr:$tape);
  let assemblyFormat = "$position `,` $input attr-dict `:` type($input)";
}

def Tfl_TapeRewindOp : Tfl_Op<"tape_rewind",
    [MemoryEffects<[MemRead<Tfl_Tape>, MemWrite<Tfl_Tape>]>]> {
  let summary = "moves a tape's cursor back to a position";
  let description = [{
    Before a reverse sweep runs an iteration or a branch again, so that it
    pushes at the positions it pushed at the first time. With `release`,
    the entries at and above the position are freed (and their
    accumulators cleared): after a reverse loop, which read them last.

    ```mlir
    tfl.tape_rewind %p {tape = 0} : i64
    tfl.tape_rewind %p {release, tape = 0} : i64
    ```
  }];
  let arguments = (ins I64:$position, I64Attr:$tape, UnitAttr:$release);
  let assemblyFormat = "$position attr-dict `:` type($position)";
}

def Tfl_TapeAddOp : Tfl_Op<"tape_add",
    [MemoryEffects<[MemRead<Tfl_Tape>, MemWrite<Tfl_Tape>]>]> {
  let summary = "adds a tensor into the accumulator of a tape position";
  let description = [{
    The reverse of `tape_read`: the read value's cotangent.

    ```mlir
    tfl.tape_add %p, %0 {tape = 1} : tensor<2xf32>
    ```
  }];
  let arguments = (ins I64:$position, Tfl_FloatTensor:$input, I64Attr:$tape);
  let assemblyFormat = "$position `,` $input attr-dict `:` type($input)";
}

def Tfl_TapeAccumulatedOp : Tfl_Op<"tape_accumulated",
    [MemoryEffects<[MemRead<Tfl_Tape>]>]> {
  let summary = "the sum added into the accumulator of a tape position";
  let description = [{
    The reverse of `tape_push`: the pushed value's cotangent, zeros when
    nothing was added. Reading it leaves it in place.

    ```mlir
    %0 = tfl.tape_accumulated %p {tape = 1} : tensor<2xf32>
    ```
  }];
  let arguments = (ins I64:$position, I64Attr:$tape);
  let results = (outs Tfl_FloatTensor:$result);
  let assemblyFormat = "$position attr-dict `:` type($result)";
}

def Tfl_StopGradientOp : Tfl_Op<"stop_gradient",
    [Tfl_RunsOnHalfFloats, Pure, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "the identity, through which no gradient flows";
  let description = [{
    `stop_gradient(x)`: `x`, with a zero derivative (its pullback gives its
    operand no cotangent).

    ```mlir
    %1 = tfl.stop_gradient %0 : tensor<3xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfl_ToDeviceOp : Tfl_Op<"to_device",
    [Pure, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "a copy of a tensor on a device";
  let description = [{
    `to_device(x, "cpu")`, and the copies `tfl-place-devices` inserts where
    a value computed on one device is used on another: the same value, on
    `device` ("cpu" or "cuda"). Ops run on the device their `tfl.device`
    attribute names (inherited from the enclosing op or function; the
    program's target when none does).

    Its pullback hands the cotangent back unchanged: the ops that consume
    it (the pullbacks of the operand's producer) run on the operand's
    device, where the placement copies it.

    ```mlir
    %1 = tfl.to_device %0 to "cpu" : tensor<3xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, StrAttr:$device);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "$input `to` $device attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

def Tfl_Conv2DOp : Tfl_Op<"conv2d",
    [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "2-D convolution, NHWC input and HWIO filter";
  let description = [{
    TensorFlow's `conv2d` (a cross-correlation): `out[n, i, j, o]` sums
    `x[n, i*sh + a - top, j*sw + b - left, c] * w[a, b, c, o]` over the
    window, zero outside `x`. `strides` are (h, w); `padding` is explicit
    (top, bottom, left, right), as Sema computes it from "valid"/"same".
    Runs on oneDNN in both modes.

    ```mlir
    %0 = tfl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<8x28x28x1xf32>, tensor<3x3x1x16xf32> -> tensor<8x28x28x16xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$input,
                   Tfl_ConvTensor:$filter, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$padding);
  let results = (outs Tfl_ConvTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter attr-dict `:` type($input) `,` type($filter) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tfl_Conv2DBackwardInputOp : Tfl_Op<"conv2d_backward_input",
    [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "conv2d's adjoint with respect to its input";
  let description = [{
    The cotangent of a `conv2d`'s input (the result's type) from its
    result's cotangent `dy` and its filter, with that conv's strides and
    padding (oneDNN's backward data, in both modes).

    ```mlir
    %dx = tfl.conv2d_backward_input %dy, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<8x28x28x16xf32>, tensor<3x3x1x16xf32> -> tensor<8x28x28x1xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$dy, Tfl_ConvTensor:$filter,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Tfl_ConvTensor:$result);
  let assemblyFormat = [{
    $dy `,` $filter attr-dict `:` type($dy) `,` type($filter) `->` type($result)
  }];
}

def Tfl_Conv2DBackwardFilterOp : Tfl_Op<"conv2d_backward_filter",
    [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "conv2d's adjoint with respect to its filter";
  let description = [{
    The cotangent of a `conv2d`'s filter (the result's type) from its input
    and its result's cotangent `dy`, with that conv's strides and padding
    (oneDNN's backward weights, in both modes).

    ```mlir
    %dw = tfl.conv2d_backward_filter %x, %dy {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<8x28x28x1xf32>, tensor<8x28x28x16xf32> -> tensor<3x3x1x16xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$input, Tfl_ConvTensor:$dy,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Tfl_ConvTensor:$result);
  let assemblyFormat = [{
    $input `,` $dy attr-dict `:` type($input) `,` type($dy) `->` type($result)
  }];
}

class Tfl_Pool2DOp<string mnemonic, string what>
    : Tfl_Op<mnemonic,
             [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = what # " pooling over 2-D windows of an NHWC tensor";
  let description = [{
    Windows of `size` (h, w) every `strides` (h, w), with explicit
    `padding` (top, bottom, left, right); padded positions are excluded
    (TensorFlow's "same" pooling). Runs on oneDNN in both modes.

    ```mlir
    %0 = tfl.max_pool2d %x {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x28x28x16xf32> -> tensor<8x14x14x16xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$input, DenseI64ArrayAttr:$size,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Tfl_ConvTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tfl_MaxPool2DOp : Tfl_Pool2DOp<"max_pool2d", "max">;
def Tfl_AvgPool2DOp : Tfl_Pool2DOp<"avg_pool2d", "average">;

class Tfl_Pool2DBackwardOp<string mnemonic, string what>
    : Tfl_Op<mnemonic,
             [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = what # " pooling's adjoint";
  let description = [{
    The cotangent of a pooling op's input (the result's type) from its
    input and its result's cotangent `dy`, with that op's window: max
    routes each window's cotangent to its first maximum, average spreads it
    over the window's unpadded elements.

    ```mlir
    %dx = tfl.max_pool2d_backward %x, %dy {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x28x28x16xf32>, tensor<8x14x14x16xf32> -> tensor<8x28x28x16xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$input, Tfl_ConvTensor:$dy,
                   DenseI64ArrayAttr:$size, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$padding);
  let results = (outs Tfl_ConvTensor:$result);
  let assemblyFormat = [{
    $input `,` $dy attr-dict `:` type($input) `,` type($dy) `->` type($result)
  }];
}

def Tfl_MaxPool2DBackwardOp : Tfl_Pool2DBackwardOp<"max_pool2d_backward", "max">;
def Tfl_AvgPool2DBackwardOp : Tfl_Pool2DBackwardOp<"avg_pool2d_backward", "average">;

def Tfl_MaxPool2DGatherOp : Tfl_Op<"max_pool2d_gather",
    [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "a tensor's values where max pooling takes each maximum";
  let description = [{
    For each window of a `max_pool2d` of `input`, the element of `tangent`
    (shaped as `input`) at the window's first maximum: max pooling's
    tangent map, and the adjoint of `max_pool2d_backward` (its reverse
    rule, for second derivatives).

    ```mlir
    %0 = tfl.max_pool2d_gather %x, %g {padding = array<i64: 0, 0, 0, 0>, size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x28x28x16xf32>, tensor<8x28x28x16xf32> -> tensor<8x14x14x16xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$input,
                   Tfl_ConvTensor:$tangent, DenseI64ArrayAttr:$size,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Tfl_ConvTensor:$result);
  let assemblyFormat = [{
    $input `,` $tangent attr-dict `:` type($input) `,` type($tangent) `->`
    type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

// The generator's state (its seed and how many draws it has made): random
// ops read and advance it, so they are never merged, dropped or reordered,
// and a program draws the same numbers eagerly and compiled.
def Tfl_RandomState : Resource<"::mlir::tfl::RandomStateResource">;

class Tfl_RandomOp<string mnemonic, list<Trait> traits = []>
    : Tfl_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead<Tfl_RandomState>, MemWrite<Tfl_RandomState>]>])> {
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tfl_SeedOp : Tfl_Op<"seed",
    [MemoryEffects<[MemWrite<Tfl_RandomState>]>]> {
  let summary = "restarts the random generator from a seed";
  let description = [{
    `seed(n)`: the generator (counter-based Philox-4x32-10) takes key `n`
    and restarts its draw count at 0, so the draws after it are a function
    of `n` alone.

    ```mlir
    tfl.seed %0 : tensor<i64>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$seed);
  let assemblyFormat = "$seed attr-dict `:` type($seed)";
}

def Tfl_RandomStateOp : Tfl_Op<"random_state",
    [MemoryEffects<[MemRead<Tfl_RandomState>]>]> {
  let summary = "the random generator's state: its key and draw count";
  let description = [{
    Made by the autodiff pass before a computation it runs again in the
    reverse sweep (an iteration, a branch, a call); `tfl.set_random_state`
    with this value before the second run makes it draw the same numbers.

    ```mlir
    %0 = tfl.random_state : tensor<2xi64>
    ```
  }];
  let results = (outs TensorOf<[I64]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tfl_SetRandomStateOp : Tfl_Op<"set_random_state",
    [MemoryEffects<[MemWrite<Tfl_RandomState>]>]> {
  let summary = "sets the random generator's key and draw count";
  let description = [{
    The operand is a value `tfl.random_state` gave.

    ```mlir
    tfl.set_random_state %0 : tensor<2xi64>
    ```
  }];
  let arguments = (ins TensorOf<[I64]>:$state);
  let assemblyFormat = "$state attr-dict `:` type($state)";
  let hasVerifier = 1;
}

def Tfl_RandomUniformOp : Tfl_RandomOp<"random_uniform"> {
  let summary = "a tensor of uniform random numbers in [0, 1)";
  let description = [{
    One draw of the generator: element `i` comes from Philox block
    `(draw, i)` (see RationaleTfl.md), so it does not depend on how the
    elements are computed. `random_uniform(shape, lo, hi)` scales it.

    ```mlir
    %0 = tfl.random_uniform : tensor<2x3xf32>
    ```
  }];
  let results = (outs RankedTensorOf<[F32, F64]>:$result);
}

def Tfl_RandomNormalOp : Tfl_RandomOp<"random_normal"> {
  let summary = "a tensor of standard normal random numbers";
  let description = [{
    One draw of the generator, Box-Muller on Philox blocks (element `i`
    from block `(draw, i / 2)`). `random_normal(shape, mean, stddev)`
    scales it.

    ```mlir
    %0 = tfl.random_normal : tensor<128x10xf32>
    ```
  }];
  let results = (outs RankedTensorOf<[F32, F64]>:$result);
}

def Tfl_ShuffleIndicesOp : Tfl_RandomOp<"shuffle_indices"> {
  let summary = "a random permutation of 0 .. n-1";
  let description = [{
    One draw of the generator: a Fisher-Yates shuffle of `0 .. n-1`, `n` the
    result's static size (for epoch orders: `gather(x, perm)`).

    ```mlir
    %0 = tfl.shuffle_indices : tensor<60000xi64>
    ```
  }];
  let results = (outs 1DTensorOf<[I64]>:$result);
}

//===----------------------------------------------------------------------===//
// Collectives across processes
//===----------------------------------------------------------------------===//

// A run launched by mpirun runs the same program in each process (rank);
// collectives combine their tensors. Every rank must reach the same
// collectives in the same order, so they all act on one resource: they are
// never merged, dropped, reordered or moved across each other. A program
// run as one process (a world of one) gets each collective's inputs back.
def Tfl_Communicator : Resource<"::mlir::tfl::CommunicatorResource">;

class Tfl_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Tfl_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead<Tfl_Communicator>,
                       MemWrite<Tfl_Communicator>]>])>;

// The tensors collectives move: f32, f64, i32, i64 (16-bit floats travel
// as f32 copies, tfl-widen-half).
def Tfl_CollectiveTensor : RankedTensorOf<[F32, F64, BF16, F16, I32, I64]>;

def Tfl_CollectiveReduction : I32EnumAttr<"CollectiveReduction",
    "how all_reduce combines the ranks' tensors", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>]> {
  let cppNamespace = "::mlir::tfl";
}

def Tfl_RankOp : Tfl_Op<"rank", [Pure]> {
  let summary = "this process's rank in the run";
  let description = [{
    `rank()`: 0 to `world_size() - 1` under mpirun, 0 for a process no MPI
    launcher started. Fixed for the run, hence pure.

    ```mlir
    %0 = tfl.rank : tensor<i64>
    ```
  }];
  let results = (outs 0DTensorOf<[I64]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tfl_WorldSizeOp : Tfl_Op<"world_size", [Pure]> {
  let summary = "the number of processes in the run";
  let description = [{
    `world_size()`: mpirun's process count, 1 for a process no MPI launcher
    started.

    ```mlir
    %0 = tfl.world_size : tensor<i64>
    ```
  }];
  let results = (outs 0DTensorOf<[I64]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tfl_AllReduceOp : Tfl_CollectiveOp<"all_reduce", [
    DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "the sum or mean over ranks of each tensor";
  let description = [{
    `all_reduce(tree, op="sum"|"mean")`: every rank gets, for each input,
    the elementwise sum (or mean) of that input over all ranks. Its
    pullback is an all_reduce of the cotangents with the same op: rank s's
    input reaches every rank's result. `tfl-overlap-collectives` splits
    the all_reduce of a gradient into buckets that start as soon as the
    reverse pass has made them.

    ```mlir
    %0:2 = tfl.all_reduce mean %w, %b : tensor<3x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Tfl_CollectiveReduction:$op,
                       Variadic<Tfl_CollectiveTensor>:$inputs);
  let results = (outs Variadic<Tfl_CollectiveTensor>:$results);
  let assemblyFormat = "$op $inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Tfl_BroadcastOp : Tfl_CollectiveOp<"broadcast", [
    DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "the root rank's tensors, on every rank";
  let description = [{
    `broadcast(tree, root=0)`: every rank gets the root's inputs (the other
    ranks' inputs give only the shapes). Its pullback is a
    `reduce_to_root` of the cotangents: every rank's result came from the
    root's input.

    ```mlir
    %0:2 = tfl.broadcast %w, %b {root = 0 : i64} : tensor<3x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfl_CollectiveTensor>:$inputs,
                       I64Attr:$root);
  let results = (outs Variadic<Tfl_CollectiveTensor>:$results);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Tfl_ReduceToRootOp : Tfl_CollectiveOp<"reduce_to_root", [
    DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "the sum over ranks on the root, zeros elsewhere";
  let description = [{
    The adjoint of `broadcast`: the root rank gets the elementwise sum of
    every rank's inputs, the other ranks zeros. Its pullback is a
    `broadcast` from the same root.

    ```mlir
    %0 = tfl.reduce_to_root %g {root = 0 : i64} : tensor<3xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfl_CollectiveTensor>:$inputs,
                       I64Attr:$root);
  let results = (outs Variadic<Tfl_CollectiveTensor>:$results);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Tfl_AllGatherOp : Tfl_CollectiveOp<"all_gather", [
    DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "every rank's tensor, stacked in rank order";
  let description = [{
    `all_gather(x)`: every rank gets the ranks' inputs stacked on a new
    leading axis, row r from rank r. The program is compiled for a number
    of processes (the result's leading size; `tflc --world-size`). Its
    pullback sums the cotangents over the ranks and takes this rank's row:
    rank r's input reached row r of every rank's result.

    ```mlir
    %0 = tfl.all_gather %x : tensor<3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tfl_CollectiveTensor:$input);
  let results = (outs Tfl_CollectiveTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tfl_AllReduceStartOp : Tfl_CollectiveOp<"all_reduce_start"> {
  let summary = "starts an all_reduce that a later all_reduce_wait finishes";
  let description = [{
    An `all_reduce` split in two by `tfl-overlap-collectives`: this op
    hands copies of its inputs to the runtime's communication thread and
    gives a request number; the program computes on while the ranks
    reduce, and `tfl.all_reduce_wait` on the request gives the results
    (PyTorch's DDP reduces its gradient buckets so).

    ```mlir
    %req = tfl.all_reduce_start sum %w, %b : tensor<3x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Tfl_CollectiveReduction:$op,
                       Variadic<Tfl_CollectiveTensor>:$inputs);
  let results = (outs I64:$request);
  let assemblyFormat = "$op $inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Tfl_AllReduceWaitOp : Tfl_CollectiveOp<"all_reduce_wait"> {
  let summary = "the results of an all_reduce_start";
  let description = [{
    Waits for the request an `all_reduce_start` gave and returns its
    results, one per input of the start, of the same types.

    ```mlir
    %0:2 = tfl.all_reduce_wait %req : tensor<3x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins I64:$request);
  let results = (outs Variadic<Tfl_CollectiveTensor>:$results);
  let assemblyFormat = "$request attr-dict `:` type($results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

// File ops read and write the file system: effects on the default resource
// keep them in program order with each other and with output. Their `path`
// is a template that the program fills in when it runs (tflrt::expandPath):
// `{name}` is the value of the string flag `name`, `{{` and `}}` are
// braces (`{data_dir}train.gz`).

def Tfl_LoadDataOp : Tfl_Op<"load_data", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "reads a data file into a tensor";
  let description = [{
    `load_idx(path, ...)` (`format = "idx"`, gzipped or not) and
    `load_npy(path, ...)` (`format = "npy"`): the file must hold the result's
    dtype and shape (an IDX file: any shape of the same size), or the
    program stops with an error naming the file at this op's location.
    `load_bytes(path)` (`format = "bytes"`): the file's bytes as a 1-D u8
    tensor, of the file's size.

    ```mlir
    %0 = tfl.load_data {format = "idx", path = "train-images-idx3-ubyte.gz"} : tensor<60000x28x28xi8>
    ```
  }];
  let arguments = (ins StrAttr:$path, StrAttr:$format);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tfl_EncodeTextOp : Tfl_Op<"encode_text", [MemoryEffects<[MemRead]>]> {
  let summary = "a text's bytes, known when the program runs";
  let description = [{
    `encode(s, size=N)` of a string that holds string flags' values: `text`
    is a template as a file op's path (`{name}` is the value of the string
    flag `name`), and the result holds the first N bytes of the text the
    program fills in, zero-padded (TF's `decode_raw(fixed_length=N)`).
    It reads the flags, which keeps it on the host.

    ```mlir
    %0 = tfl.encode_text {text = "Q: {prompt}"} : tensor<64xi8>
    ```
  }];
  let arguments = (ins StrAttr:$text);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tfl_SaveNpyOp : Tfl_Op<"save_npy", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes a tensor as a .npy file";
  let description = [{
    `save_npy(path, x)`: NumPy's format, version 1.0, C order, written to a
    temporary file and renamed over `path`.

    ```mlir
    tfl.save_npy %0 {path = "w.npy"} : tensor<784x10xf32>
    ```
  }];
  let arguments = (ins Tfl_Tensor:$input, StrAttr:$path);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfl_SaveOp : Tfl_Op<"save", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes a checkpoint of named tensors";
  let description = [{
    `save(path, tree)`: the tree's leaves, named by their paths in the tree
    (`layer.w`, `0.1`), as one safetensors file, written to a temporary file
    and renamed over `path` (never left half written).

    ```mlir
    tfl.save %0, %1 {names = ["w", "b"], path = "ckpt.safetensors"} : tensor<784x10xf32>, tensor<10xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfl_Tensor>:$inputs, StrAttr:$path,
                   StrArrayAttr:$names);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Tfl_LoadOp : Tfl_Op<"load", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "reads named tensors of a checkpoint";
  let description = [{
    `load(path, like=tree)`: each leaf of `tree`'s type, read by name from a
    safetensors file; a missing tensor or one of another dtype or shape
    stops the program with an error naming the file.

    ```mlir
    %0:2 = tfl.load {names = ["w", "b"], path = "ckpt.safetensors"} : tensor<784x10xf32>, tensor<10xf32>
    ```
  }];
  let arguments = (ins StrAttr:$path, StrArrayAttr:$names);
  let results = (outs Variadic<Tfl_Tensor>:$results);
  let assemblyFormat = "attr-dict `:` type($results)";
  let hasVerifier = 1;
}

def Tfl_LogScalarOp : Tfl_Op<"log_scalar", [MemoryEffects<[MemWrite]>]> {
  let summary = "appends a point to a training curve";
  let description = [{
    `log_scalar(name, value, step)`: one JSON line `{"name", "step",
    "value", "time"}` appended to `scalars.jsonl` in the directory of the
    `--log_dir` flag (default: the working directory).

    ```mlir
    tfl.log_scalar %loss, %step {name = "loss"} : tensor<f64>, tensor<i64>
    ```
  }];
  let arguments = (ins 0DTensorOf<[F64]>:$value, 0DTensorOf<[I64]>:$step,
                   StrAttr:$name);
  let assemblyFormat =
      "$value `,` $step attr-dict `:` type($value) `,` type($step)";
}

def Tfl_NowOp : Tfl_Op<"now", [MemoryEffects<[MemWrite]>]> {
  let summary = "the time in seconds, for timing";
  let description = [{
    Seconds on a monotonic clock (its origin is arbitrary: subtract two
    readings). Marked as having an effect, so two readings are never merged
    or moved.

    ```mlir
    %0 = tfl.now : tensor<f64>
    ```
  }];
  let results = (outs RankedTensorOf<[F64]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tfl_CheckNumericsOp : Tfl_Op<"check_numerics",
    [Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, MemoryEffects<[MemWrite]>, AllTypesMatch<["input", "result"]>]> {
  let summary = "stop the program when a tensor holds a NaN or an Inf";
  let description = [{
    `check_numerics(x, "message")`: the result is `x`; when `x` holds a NaN
    or an infinity, the program stops with an error at this op's `.tfl`
    location and `message`. Marked as having an effect, so the check runs
    even when its result is unused.

    ```mlir
    %1 = tfl.check_numerics %0 {message = "logits"} : tensor<32x10xf32>
    ```
  }];
  let arguments = (ins Tfl_FloatTensor:$input, StrAttr:$message);
  let results = (outs Tfl_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfl_AssertOp : Tfl_Op<"assert", [Tfl_RunsOnHalfFloats, MemoryEffects<[MemWrite]>]> {
  let summary = "stop the program when a condition is false";
  let description = [{
    `assert cond, "message"`: when `cond` (a bool scalar) is false, the
    program stops with an error at this op's `.tfl` location and `message`.

    ```mlir
    tfl.assert %0 {message = "loss must be finite"} : tensor<i1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$cond, StrAttr:$message);
  let assemblyFormat = "$cond attr-dict `:` type($cond)";
  let hasCanonicalizeMethod = 1;
}

def Tfl_PrintOp : Tfl_Op<"print", [Tfl_RunsOnHalfFloats, MemoryEffects<[MemWrite]>]> {
  let summary = "writes text and tensors to standard output";
  let description = [{
    Writes `format` with each `{}` replaced by the next input, shown as
    NumPy's `str()` shows an array (a 0-d tensor as a Python scalar), and
    each `{:spec}` by the next input (a scalar) formatted with Python's
    format-spec mini-language (`{:.3f}`, `{:03d}`); `{:s}` writes a 1-D
    `i8` tensor's bytes as text (`decode(x)`). `{{` and `}}` stand for
    literal braces. `print(a, b)` in TFL becomes the format `"{} {}\n"`.

    ```mlir
    tfl.print %0, %1 {format = "x = {}, y = {}\n"} : tensor<2x2xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins Variadic<Tfl_Tensor>:$inputs, StrAttr:$format);
  let assemblyFormat = "($inputs^ `:` type($inputs))? attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The literal text pieces between placeholders, unescaped: one more
    /// than there are inputs.
    ::llvm::SmallVector<std::string> getTextPieces();
    /// The format spec of each placeholder ("" for `{}`).
    ::llvm::SmallVector<std::string> getSpecs();
  }];
}

def Tfl_PrintTemplateOp : Tfl_Op<"print_template", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes text holding string flags' values to standard output";
  let description = [{
    Writes `text`, a template as file ops' paths are (tflrt::expandPath):
    `{name}` is the value the run gives string flag `name`, `{{` and `}}`
    are braces. `print(f"reading {data_dir}")` becomes a `tfl.print` of what
    comes before the flag's value, this op, and a `tfl.print` of the rest.

    ```mlir
    tfl.print_template {text = "{data_dir}train.gz"}
    ```
  }];
  let arguments = (ins StrAttr:$text);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Interactive sessions and the debugger (eager mode only)
//===----------------------------------------------------------------------===//

def Tfl_SessionValueOp : Tfl_Op<"session_value", [MemoryEffects<[MemRead]>]> {
  let summary = "a leaf of a variable an interactive session holds";
  let description = [{
    At the prompt (`tflc repl`, the debugger's), each input is compiled as
    a script whose variables start as the session's: this op reads leaf
    `leaf` (in flattened order) of variable `name` from the session. Only
    the eager interpreter runs it; compiled programs never hold it.

    ```mlir
    %0 = tfl.session_value {leaf = 0 : i64, name = "w"} : tensor<3x2xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$leaf);
  let results = (outs Tfl_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tfl_SessionStoreOp : Tfl_Op<"session_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "keeps a variable's leaves in the interactive session";
  let description = [{
    At the end of an input at the prompt, each variable of its script is
    stored back into the session (its leaves, flattened), so the next input
    starts with it. Only the eager interpreter runs it.

    ```mlir
    tfl.session_store %0, %1 {name = "params"} : tensor<3x2xf32>, tensor<2xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfl_Tensor>:$values, StrAttr:$name);
  let assemblyFormat = "$values attr-dict (`:` type($values)^)?";
}

def Tfl_DebugPointOp : Tfl_Op<"debug_point",
                               [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a statement's start, where the eager debugger may stop";
  let description = [{
    Emitted before each statement of a program run eagerly under the
    debugger (a program that calls `breakpoint()`, or `--pdb`), and for
    each `breakpoint()` call (`stop`): `values` are the leaves of the
    variables `names` in scope there, in the order of the program's debug
    scope `scope` (a table the frontend keeps with their types). The
    interpreter stops at a `stop` point, or at any point when stepping, and
    shows the prompt with those variables. Compiled programs never hold it
    (`breakpoint()` there is a warning and does nothing).

    ```mlir
    tfl.debug_point %0, %1 {names = ["w", "i"], scope = 3 : i64, stop} : tensor<4xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins Variadic<Tfl_Tensor>:$values, StrArrayAttr:$names,
                       I64Attr:$scope, UnitAttr:$stop);
  let assemblyFormat = "$values attr-dict (`:` type($values)^)?";
}

#endif // TFL_OPS_TD
