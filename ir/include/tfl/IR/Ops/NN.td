//===- NN.td - Convolutions, pooling, random numbers -------*- tablegen -*-===//
//
// Convolutions, pooling and their gradients, and random numbers. Included by
// TflOps.td, which includes what they use.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_OPS_NN_TD
#define TFL_OPS_NN_TD

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

def Tfl_Conv2DOp : Tfl_Op<"conv2d",
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
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
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
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
             [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>,
              DeclareOpInterfaceMethods<Tfl_BatchOpInterface>]> {
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
             [Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>,
              DeclareOpInterfaceMethods<Tfl_BatchOpInterface>]> {
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
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
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
// Attention
//===----------------------------------------------------------------------===//

def Tfl_AttentionOp : Tfl_Op<"attention",
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Pure, DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>]> {
  let summary = "scaled dot-product attention, fused";
  let description = [{
    `softmax(scale * q @ k^T) @ v` over the last two dims, the leading
    dims (the same in all three) a batch: q `[..., T, E]`, k `[..., S,
    E]`, v `[..., S, F]` give `[..., T, F]`. With `causal`, query `i` sees
    keys `j <= i` (PyTorch's `is_causal`). One runtime call in both modes
    keeps no `[T, S]` matrix (tflrt/Attention.h); `tfl-decompose-attention`
    rewrites it into products and a softmax where that call is not at hand
    (on the GPU, for forward mode).

    With `seq_major`, every operand and the result hold the sequence dim
    before the heads dim, FlashAttention's layout: q `[..., T, H, E]`, k
    `[..., S, H, E]`, v `[..., S, H, F]` give `[..., T, H, F]` (H, like
    the leading dims, a batch dim). The kernels read and write that layout
    in place through strides; `tfl-attention-layout` folds the head
    transposes around an attention into it.

    ```mlir
    %o = tfl.attention %q, %k, %v {causal = true, scale = 0.17677669529663687 : f64} : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32> -> tensor<16x4x64x32xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$q, Tfl_ConvTensor:$k, Tfl_ConvTensor:$v,
                   BoolAttr:$causal, F64Attr:$scale, UnitAttr:$seq_major);
  let results = (outs Tfl_ConvTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v attr-dict `:` type($q) `,` type($k) `,` type($v) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tfl_AttentionBackwardOp : Tfl_Op<"attention_backward",
    [DeclareOpInterfaceMethods<Tfl_BatchOpInterface>, Pure]> {
  let summary = "tfl.attention's adjoint";
  let description = [{
    The cotangents of an attention's q, k and v from its operands, its
    result `out` and the result's cotangent `dy`, with its `causal` and
    `scale`; the softmax is recomputed block by block. With `seq_major`,
    every operand and result in tfl.attention's `seq_major` layout. A
    derivative of it differentiates its decomposition
    (`tfl-decompose-attention`).

    ```mlir
    %dq, %dk, %dv = tfl.attention_backward %q, %k, %v, %o, %dy {causal = true, scale = 0.5 : f64} : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
    ```
  }];
  let arguments = (ins Tfl_ConvTensor:$q, Tfl_ConvTensor:$k, Tfl_ConvTensor:$v,
                   Tfl_ConvTensor:$out, Tfl_ConvTensor:$dy, BoolAttr:$causal,
                   F64Attr:$scale, UnitAttr:$seq_major);
  let results = (outs Tfl_ConvTensor:$dq, Tfl_ConvTensor:$dk,
                 Tfl_ConvTensor:$dv);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $out `,` $dy attr-dict `:` type($q) `,` type($k) `,`
    type($v) `,` type($out) `,` type($dy) `->` type($dq) `,` type($dk) `,`
    type($dv)
  }];
  let hasVerifier = 1;
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

#endif // TFL_OPS_NN_TD
