//===- TflDialect.td - The tfl dialect ---------------------*- tablegen -*-===//
//
// The dialect definition and the base classes its ops share.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_DIALECT_TD
#define TFL_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tfl_Dialect : Dialect {
  let name = "tfl";
  let cppNamespace = "::mlir::tfl";
  let summary = "Tensor ops of the TFL language, with value semantics";
  let description = [{
    The `tfl` dialect is what TFL's frontend emits: tensor ops with value
    semantics on builtin ranked tensor types (a scalar is a 0-d tensor).
    Control flow is `scf`, functions are `func`. Every op carries the `.tfl`
    location it came from. The same IR is interpreted op by op by the eager
    runtime and lowered to linalg for native code.

    Element types: `f32 f64 bf16 f16` are themselves (the 16-bit floats
    are storage types: each op computes in f32 and rounds its result),
    `i32 i64` are signless `i32 i64`, `bool` is `i1`, and `u8` is `i8`: TFL
    has no signed 8-bit type, so ops read `i8` as unsigned (MLIR's `arith`
    works on signless integers).
  }];
  // Folded values become tfl.constant ops.
  let hasConstantMaterializer = 1;
}

class Tfl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfl_Dialect, mnemonic, traits>;

// The element types TFL programs use.
def Tfl_Float : AnyTypeOf<[F32, F64, BF16, F16]>;
def Tfl_Int : AnyTypeOf<[I32, I64, I8, I1]>;
def Tfl_Element : AnyTypeOf<[F32, F64, BF16, F16, I32, I64, I8, I1]>;

def Tfl_Tensor : RankedTensorOf<[F32, F64, BF16, F16, I32, I64, I8, I1]>;
def Tfl_FloatTensor : RankedTensorOf<[F32, F64, BF16, F16]>;
// Convolutions and pooling: f32 (cuDNN and oneDNN), or 16-bit floats.
def Tfl_ConvTensor : RankedTensorOf<[F32, BF16, F16]>;

#endif // TFL_DIALECT_TD
