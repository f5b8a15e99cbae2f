//===- TflOps.td - Ops of the tfl dialect ------------------*- tablegen -*-===//
//
// Every op: a summary, a description with an example, a verifier where
// shapes or dtypes can disagree, and a declarative assembly format. The ops
// are in one file per family under Ops/, included here after what they
// use.
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

include "tfl/IR/Ops/Elementwise.td"
include "tfl/IR/Ops/Arrays.td"
include "tfl/IR/Ops/Autodiff.td"
include "tfl/IR/Ops/NN.td"
include "tfl/IR/Ops/Collectives.td"
include "tfl/IR/Ops/IO.td"

#endif // TFL_OPS_TD
