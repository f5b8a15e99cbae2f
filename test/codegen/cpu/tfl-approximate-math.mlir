// RUN: tfl-opt %s -tfl-approximate-math | FileCheck %s

// Tests that f32 exp, log and tanh, scalar or vector, become polynomial
// arithmetic (no math op left for libm), with exp and log guarded for
// subnormals by exact scalings; and that f64 keeps its libm functions.

// exp(x) is exp(x / 2)^2 where it is below 2^-126 or above 2^127.
// CHECK-LABEL: func.func @exp_vector
// CHECK-SAME: (%[[X:.*]]: vector<32xf32>)
// CHECK-DAG: %[[LOW:.*]] = arith.constant dense<-87.3365402> : vector<32xf32>
// CHECK-DAG: %[[HIGH:.*]] = arith.constant dense<88.0296936> : vector<32xf32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : vector<32xf32>
// (The two comparisons come in either order: C++ argument order.)
// CHECK-DAG: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[LOW]]
// CHECK-DAG: %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %[[HIGH]]
// CHECK: %[[TINY:.*]] = arith.ori
// CHECK: %[[HALVED:.*]] = arith.mulf %[[X]], %[[HALF]]
// CHECK: %[[IN:.*]] = arith.select %[[TINY]], %[[HALVED]], %[[X]]
// CHECK-NOT: math.exp
// CHECK: math.fma
// CHECK: arith.bitcast %{{.*}} : vector<32xi32> to vector<32xf32>
// CHECK-NEXT: %[[E:.*]] = arith.mulf
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[E]], %[[E]]
// CHECK-NEXT: arith.select %[[TINY]], %[[SQ]], %[[E]]
func.func @exp_vector(%x: vector<32xf32>) -> vector<32xf32> {
  %0 = math.exp %x : vector<32xf32>
  return %0 : vector<32xf32>
}

// log(x) is log(x * 2^24) - 24 ln 2 for a subnormal x.
// CHECK-LABEL: func.func @log_scalar
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-DAG: %[[NORMAL:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0x4B800000 : f32
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[X]]
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[NORMAL]]
// CHECK: %[[SUB:.*]] = arith.andi %[[POS]], %[[BELOW]]
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]]
// CHECK: arith.select %[[SUB]], %[[SCALED]], %[[X]]
// CHECK-NOT: math.log
// CHECK: arith.subf
// CHECK: arith.select %[[SUB]]
func.func @log_scalar(%x: f32) -> f32 {
  %0 = math.log %x : f32
  return %0 : f32
}

// tanh, log1p and expm1 of f32 are polynomials; f64's stay.
// CHECK-LABEL: func.func @others
// CHECK-NOT: math.tanh %{{.*}} : vector<8xf32>
// CHECK-NOT: math.log1p %{{.*}} : vector<8xf32>
// CHECK-NOT: math.expm1 %{{.*}} : vector<8xf32>
// CHECK: math.exp %{{.*}} : vector<4xf64>
// CHECK: math.tanh %{{.*}} : vector<4xf64>
func.func @others(%x: vector<8xf32>, %y: vector<4xf64>) -> (vector<8xf32>, vector<4xf64>) {
  %0 = math.tanh %x : vector<8xf32>
  %1 = math.log1p %0 : vector<8xf32>
  %2 = math.expm1 %1 : vector<8xf32>
  %3 = math.exp %y : vector<4xf64>
  %4 = math.tanh %3 : vector<4xf64>
  return %2, %4 : vector<8xf32>, vector<4xf64>
}

// erf of f32 is x P(x^2) / Q(x^2) on x clamped to +-3.9192059, clamped
// to [-1, 1]: two Horner chains (six and five multiply-adds), one
// division, no selects; a vector erf of f64 becomes one libm call per lane
// (LLVM has no erf intrinsic that would scalarize it).
// CHECK-LABEL: func.func @erf_vectors
// CHECK-SAME: (%[[X:.*]]: vector<8xf32>
// CHECK-DAG: %[[HI:.*]] = arith.constant dense<3.9192059> : vector<8xf32>
// CHECK-DAG: %[[LO:.*]] = arith.constant dense<-3.9192059> : vector<8xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK-DAG: %[[MONE:.*]] = arith.constant dense<-1.000000e+00> : vector<8xf32>
// CHECK: %[[MIN:.*]] = arith.minimumf %[[X]], %[[HI]]
// CHECK: %[[C:.*]] = arith.maximumf %[[MIN]], %[[LO]]
// CHECK: %[[T:.*]] = arith.mulf %[[C]], %[[C]]
// CHECK-COUNT-6: math.fma %[[T]]
// CHECK: %[[NUM:.*]] = arith.mulf %[[C]], %{{.*}}
// CHECK-COUNT-5: math.fma %[[T]]
// CHECK: %[[R:.*]] = arith.divf %[[NUM]], %{{.*}}
// CHECK: %[[RMIN:.*]] = arith.minimumf %[[R]], %[[ONE]]
// CHECK: %[[RES:.*]] = arith.maximumf %[[RMIN]], %[[MONE]]
// CHECK-NOT: arith.select
// CHECK-NOT: math.erf %{{.*}} : vector<8xf32>
// CHECK-COUNT-2: call @erf(%{{.*}}) : (f64) -> f64
// CHECK-NOT: math.erf
// CHECK: return %[[RES]]
func.func @erf_vectors(%x: vector<8xf32>, %y: vector<2xf64>) -> (vector<8xf32>, vector<2xf64>) {
  %0 = math.erf %x : vector<8xf32>
  %1 = math.erf %y : vector<2xf64>
  return %0, %1 : vector<8xf32>, vector<2xf64>
}

// A scalar f32 erf takes the same form.
// CHECK-LABEL: func.func @erf_scalar
// CHECK-NOT: math.erf
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: math.erf
func.func @erf_scalar(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  return %0 : f32
}
