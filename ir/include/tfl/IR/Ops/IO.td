//===- IO.td - Files, output, checks, sessions -------------*- tablegen -*-===//
//
// Files, output, checks and interactive sessions. Included by TflOps.td, which
// includes what they use.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_OPS_IO_TD
#define TFL_OPS_IO_TD

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

#endif // TFL_OPS_IO_TD
