// RUN: tfl-opt %s -split-input-file -tfl-to-linalg | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// bf16 and f16 on the CPU: each elementwise op computes in f32 between
// conversions (rounded once per op, as the eager interpreter does), and
// the llvm stage lowers the bf16 conversions to integer arithmetic, so no
// bf16 arithmetic (and no library call for it) reaches LLVM.

// Tests that a bf16 add reads its operands into f32, adds in f32, and
// rounds the sum once.
// CHECK-LABEL: func.func @add(
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %{{.*}}: bf16):
// CHECK: %[[WA:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK: %[[WB:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[WA]], %[[WB]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK: linalg.yield %[[R]] : bf16
// LLVM-LABEL: llvm.func @add(
// LLVM-NOT: llvm.fpext
// LLVM-NOT: llvm.fptrunc
// LLVM: llvm.bitcast %{{.*}} : bf16 to i16
// LLVM: llvm.fadd %{{.*}} : f32
// LLVM: llvm.bitcast %{{.*}} : i16 to bf16
// LLVM-NOT: llvm.fptrunc
// LLVM: llvm.return
func.func @add(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tfl.add %x, %y : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Tests that a conversion from f64 goes through f32 (as the runtime's
// does), and that an f16 sigmoid is one f32 computation rounded once.
// CHECK-LABEL: func.func @narrow(
// CHECK: %[[F:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %[[F]] : f32 to bf16
// CHECK-LABEL: func.func @sigmoid(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: f16
// CHECK: math.exp %{{.*}} : f32
// CHECK-NOT: f16
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: linalg.yield
// LLVM-LABEL: llvm.func @narrow(
// LLVM: llvm.fptrunc %{{.*}} : f64 to f32
// LLVM-NOT: llvm.fptrunc
// LLVM: llvm.bitcast %{{.*}} : i16 to bf16
// LLVM-LABEL: llvm.func @sigmoid(
// LLVM: llvm.fpext %{{.*}} : f16 to f32
// LLVM: llvm.fptrunc %{{.*}} : f32 to f16
func.func @narrow(%x: tensor<4xf64>) -> tensor<4xbf16> {
  %0 = tfl.cast %x : tensor<4xf64> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
func.func @sigmoid(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tfl.sigmoid %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}
