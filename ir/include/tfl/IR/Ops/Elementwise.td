//===- Elementwise.td - Elementwise tfl ops ----------------*- tablegen -*-===//
//
// Constants and the elementwise ops: arithmetic, comparisons, selection and the
// math built-ins. Included by TflOps.td, which includes what they use.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_OPS_ELEMENTWISE_TD
#define TFL_OPS_ELEMENTWISE_TD

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
    : Tfl_Op<mnemonic, !listconcat(traits, [Pure, Tfl_RunsOnHalfFloats, Tfl_Elementwise],
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

def Tfl_NegOp : Tfl_Op<"neg", [Tfl_Elementwise, Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure, SameOperandsAndResultType]> {
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

def Tfl_CastOp : Tfl_Op<"cast", [Tfl_Elementwise, Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
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

def Tfl_CompareOp : Tfl_Op<"compare", [Tfl_Elementwise, Tfl_RunsOnHalfFloats, Pure]> {
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

def Tfl_NotOp : Tfl_Op<"not", [Tfl_Elementwise, Tfl_RunsOnHalfFloats, Pure, SameOperandsAndResultType]> {
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
    : Tfl_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType, Tfl_RunsOnHalfFloats, Tfl_Elementwise],
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

def Tfl_WhereOp : Tfl_Op<"where", [Tfl_Elementwise, Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
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

#endif // TFL_OPS_ELEMENTWISE_TD
