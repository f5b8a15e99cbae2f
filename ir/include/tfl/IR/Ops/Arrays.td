//===- Arrays.td - Reductions, data movement, products -----*- tablegen -*-===//
//
// Reductions, data movement (shapes, transposes, slices, gathers,
// concatenation) and products. Included by TflOps.td, which includes what they
// use.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_OPS_ARRAYS_TD
#define TFL_OPS_ARRAYS_TD

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Reductions over a sorted set of distinct axes; `keepdims` keeps each
// reduced axis as a dim of size 1. The result's element type is the
// input's.
class Tfl_ReductionOp<string mnemonic, string what, list<Trait> traits = []>
    : Tfl_Op<mnemonic, !listconcat([Pure, DeclareOpInterfaceMethods<Tfl_BatchOpInterface>], traits)> {
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
    : Tfl_Op<mnemonic, [Pure, DeclareOpInterfaceMethods<Tfl_BatchOpInterface>]> {
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

def Tfl_BroadcastToOp : Tfl_Op<"broadcast_to", [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
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

def Tfl_ReshapeOp : Tfl_Op<"reshape", [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
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

def Tfl_TransposeOp : Tfl_Op<"transpose", [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
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
  // The identity folds away; a transpose of a transpose becomes one (the
  // reverse rule of a product transposes twice in a second derivative or
  // a forward rule).
  let hasFolder = 1;
}

def Tfl_SliceOp : Tfl_Op<"slice",
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Tfl_RunsOnHalfFloats, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
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
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Tfl_RunsOnHalfFloats, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
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
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
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
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Tfl_RunsOnHalfFloats, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
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

def Tfl_ConcatOp : Tfl_Op<"concat", [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Tfl_RunsOnHalfFloats, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
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

def Tfl_MatmulOp : Tfl_Op<"matmul", [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>, Pure]> {
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

#endif // TFL_OPS_ARRAYS_TD
