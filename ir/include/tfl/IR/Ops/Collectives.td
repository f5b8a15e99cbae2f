//===- Collectives.td - Collectives across processes -------*- tablegen -*-===//
//
// Collectives across processes. Included by TflOps.td, which includes what they
// use.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_OPS_COLLECTIVES_TD
#define TFL_OPS_COLLECTIVES_TD

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

#endif // TFL_OPS_COLLECTIVES_TD
