//===- Autodiff.td - Flags and autodiff's ops --------------*- tablegen -*-===//
//
// Command-line flags, and what autodiff builds on: grad, jvp, jacobian, the
// tapes, stop_gradient and the copies between devices. Included by
// TflOps.td, which includes what they use.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_OPS_AUTODIFF_TD
#define TFL_OPS_AUTODIFF_TD

//===----------------------------------------------------------------------===//
// Flags
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

    With `seeded` (`vjp(f, *primals)`'s `vjp_fn`), the callee's operands
    are followed by one cotangent per result of the callee (or per leaf of
    a `@custom_gradient` callee's value; its residuals' are zeros): the
    results are the vector-Jacobian product with those cotangents instead
    of the gradient of a scalar, and the callee may return anything.

    ```mlir
    %dx = tfl.grad @f(%x, %dy) {argnums = array<i64: 0>, seeded, with_value = false} : (tensor<3xf32>, tensor<2xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Tfl_Tensor>:$operands,
                   DenseI64ArrayAttr:$argnums, BoolAttr:$with_value,
                   UnitAttr:$seeded);
  let results = (outs Variadic<Tfl_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

def Tfl_JvpOp : Tfl_Op<"jvp"> {
  let summary = "a Jacobian-vector product, built by the autodiff pass";
  let description = [{
    `jvp(f, primals, tangents)`: calls `callee` on its first half of
    operands (the primals) and gives its results, then their tangents:
    the derivative of `callee` at the primals in the direction of the
    second half (one tangent per primal, of its type; an integer primal's
    is ignored, an integer result's tangent is zeros). The `tfl-autodiff`
    pass replaces it by a call of a generated function (forward mode, at
    compile time); no later pass or the eager interpreter sees it.

    ```mlir
    %y, %ty = tfl.jvp @f(%x, %t) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<Tfl_Tensor>:$operands);
  let results = (outs Variadic<Tfl_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

def Tfl_JacobianOp : Tfl_Op<"jacobian"> {
  let summary = "a Jacobian, built by the autodiff pass";
  let description = [{
    `jacfwd(f, argnums)(args)` (`forward`) and `jacrev(f, argnums)(args)`:
    the Jacobian of `callee` at `operands` with respect to the operands at
    `argnums`: for each of them in order, one result per result of the
    callee, of that result's dims then the operand's (JAX's layout). The
    `tfl-autodiff` pass replaces it by a loop over the operand's elements
    calling the callee's jvp (forward) or over the result's elements
    calling its vjp; no later pass or the eager interpreter sees it.

    ```mlir
    %j = tfl.jacobian @f(%x) {argnums = array<i64: 0>, forward = true} : (tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<Tfl_Tensor>:$operands,
                       DenseI64ArrayAttr:$argnums, BoolAttr:$forward);
  let results = (outs Variadic<Tfl_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

def Tfl_VmapOp : Tfl_Op<"vmap"> {
  let summary = "a function mapped over a batch dim, built by the batching pass";
  let description = [{
    `vmap(f, in_axes, out_axes)(args)`: calls `callee` once per index of
    the batch dim of `operands` and stacks the results: operand `i` is
    mapped over its dim `in_axes[i]` (all mapped ones have the same size
    there, the batch size) or, where that is -1, passed whole to every
    call; result `j` has the batch dim at `out_axes[j]`. The `tfl-autodiff`
    pass replaces it by a call of a generated batched function (each op by
    its batching rule, the batch dim first: a product becomes one batched
    product, not a loop); no later pass or the eager interpreter sees it.

    ```mlir
    %y = tfl.vmap @f(%w, %xs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>} : (tensor<3x4xf32>, tensor<8x3xf32>) -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<Tfl_Tensor>:$operands,
                       DenseI64ArrayAttr:$in_axes, DenseI64ArrayAttr:$out_axes);
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
    [Tfl_Elementwise, Tfl_RunsOnHalfFloats, Pure, SameOperandsAndResultType,
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

def Tfl_OptimizationBarrierOp : Tfl_Op<"optimization_barrier",
    [Pure, Tfl_RunsOnHalfFloats,
     DeclareOpInterfaceMethods<Tfl_ReverseOpInterface>,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "its operands, as values no pass may see through";
  let description = [{
    The identity, as StableHLO's `optimization_barrier`: its results are
    its operands, but no fold, canonicalization or CSE sees that, so the
    ops that read its results are not merged with the same ops on its
    operands. The reverse sweep passes a `checkpoint` call's arguments and
    cotangents through one before the callee's vjp, so the callee's forward
    ops are recomputed there instead of merged with the forward sweep's
    (whose intermediates would then be kept until the reverse). Bufferized
    as its operands' buffers (no copy); its pullback and tangent are the
    identity.

    A constant operand is the one exception: the canonicalizer replaces
    its result by the constant and drops it from the barrier. A constant
    holds nothing of the forward sweep, and what depends on it alone must
    fold (a checkpointed layer's `if drop == 0.0` picks its branch in the
    recomputation as in the forward sweep, instead of keeping both).

    ```mlir
    %0:2 = tfl.optimization_barrier %x, %dy : tensor<16x128xf32>, tensor<16x128xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfl_Tensor>:$inputs);
  let results = (outs Variadic<Tfl_Tensor>:$results);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasCanonicalizer = 1;
}

def Tfl_ToDeviceOp : Tfl_Op<"to_device",
    [Tfl_Elementwise, Pure, SameOperandsAndResultType,
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

#endif // TFL_OPS_AUTODIFF_TD
