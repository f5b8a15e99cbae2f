// RUN: tfl-opt %s -split-input-file -verify-diagnostics

// Tests that operands of different element types are rejected.
func.func @binary_element_types(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{operands have different element types}}
  %0 = tfl.add %a, %b : tensor<2xf32>, tensor<2xf64> -> tensor<2xf32>
  return
}

// -----

// Tests that a result element type unlike the operands' is rejected.
func.func @binary_result_element_type(%a: tensor<2xf32>) {
  // expected-error @+1 {{result element type 'f64' is not 'f32'}}
  %0 = "tfl.sub"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----

// Tests that shapes that do not broadcast are rejected.
func.func @binary_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand shapes do not broadcast}}
  %0 = tfl.mul %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return
}

// -----

// Tests that a result shape other than the broadcast shape is rejected.
func.func @binary_wrong_result_shape(%a: tensor<3x1xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{is not the broadcast of}}
  %0 = tfl.add %a, %b : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x1xf32>
  return
}

// -----

// Tests that division is only for floats.
func.func @div_on_ints(%a: tensor<2xi64>) {
  // expected-error @+1 {{must be ranked tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values}}
  %0 = tfl.div %a, %a : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return
}

// -----

// Tests that a cast may not change the shape.
func.func @cast_shape(%a: tensor<2xf32>) {
  // expected-error @+1 {{result shape differs from the input's}}
  %0 = tfl.cast %a : tensor<2xf32> -> tensor<3xi64>
  return
}

// -----

// Tests that matmul needs 2-D operands, or 3-D ones of one rank.
func.func @matmul_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects 2-D operands, or 3-D batched ones}}
  %0 = "tfl.matmul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

// Tests that batched matmul's batch dims must agree.
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{batch dimensions differ}}
  %0 = tfl.matmul %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x5xf32>
  return
}

// -----

// Tests that matmul operands share an element type.
func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{operands and result must share one element type}}
  %0 = tfl.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf64> -> tensor<2x4xf32>
  return
}

// -----

// Tests that matmul's inner dimensions must agree.
func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{inner dimensions differ}}
  %0 = tfl.matmul %a, %b : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

// Tests that matmul's result must be [M, N].
func.func @matmul_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{is not the product's shape}}
  %0 = tfl.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<4x2xf32>
  return
}

// -----

// Tests that a lone brace in a print format is rejected.
func.func @print_lone_brace(%a: tensor<f32>) {
  // expected-error @+1 {{format has a lone '{' or '}'}}
  tfl.print %a : tensor<f32> {format = "{} }"}
  return
}

// -----

// Tests that placeholders and inputs must match in number.
func.func @print_count(%a: tensor<f32>) {
  // expected-error @+1 {{format has 2 placeholders for 1 inputs}}
  tfl.print %a : tensor<f32> {format = "{} {}"}
  return
}

// -----

// Tests that constants take the tfl element types only.
func.func @constant_element_type() {
  // expected-error @+1 {{must be ranked tensor of}}
  %0 = tfl.constant dense<1> : tensor<2xi16>
  return
}

// -----

// Tests that a comparison gives bool.
func.func @compare_result(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = "tfl.compare"(%a, %a) {predicate = 0 : i32} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that compared shapes must broadcast.
func.func @compare_broadcast(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operand shapes do not broadcast}}
  %0 = tfl.compare lt, %a, %b : tensor<2xf32>, tensor<3xf32> -> tensor<3xi1>
  return
}

// -----

// Tests that float functions reject integers.
func.func @exp_on_ints(%a: tensor<2xi64>) {
  // expected-error @+1 {{must be ranked tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values}}
  %0 = tfl.exp %a : tensor<2xi64>
  return
}

// -----

// Tests that where's values share an element type.
func.func @where_types(%c: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{values and result must share one element type}}
  %0 = tfl.where %c, %a, %b : tensor<2xi1>, tensor<2xf32>, tensor<2xf64> -> tensor<2xf32>
  return
}

// -----

// Tests that where's operands must broadcast.
func.func @where_broadcast(%c: tensor<3xi1>, %a: tensor<2xf32>) {
  // expected-error @+1 {{operand shapes do not broadcast}}
  %0 = tfl.where %c, %a, %a : tensor<3xi1>, tensor<2xf32>, tensor<2xf32> -> tensor<3xf32>
  return
}

// -----

// Tests that where's result is the broadcast shape.
func.func @where_result(%c: tensor<2xi1>, %a: tensor<2xf32>) {
  // expected-error @+1 {{is not the broadcast shape}}
  %0 = tfl.where %c, %a, %a : tensor<2xi1>, tensor<2xf32>, tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

// Tests that reduction axes must be in range.
func.func @reduce_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range}}
  %0 = tfl.reduce_sum %x {axes = array<i64: 2>, keepdims = false} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// Tests that reduction axes must be sorted and distinct.
func.func @reduce_axis_order(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axes must be sorted and distinct}}
  %0 = tfl.reduce_sum %x {axes = array<i64: 1, 0>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

// Tests that the result must be the reduced shape.
func.func @reduce_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{is not 'tensor<2x3xf32>' reduced over the axes}}
  %0 = tfl.reduce_min %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

// Tests that a reduction keeps the element type.
func.func @reduce_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result element type differs from the input's}}
  %0 = tfl.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf64>
  return
}

// -----

// Tests that an arg-reduction over all axes gives a scalar.
func.func @arg_all_axes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result of a reduction over all axes must be a scalar}}
  %0 = tfl.argmax %x {keepdims = false} : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// -----

// Tests that a format spec applies to scalars only.
func.func @print_spec_tensor(%a: tensor<2xf32>) {
  // expected-error @+1 {{a format spec applies to scalars, or "s" to 1-D bytes, not 'tensor<2xf32>'}}
  tfl.print %a : tensor<2xf32> {format = "{:.3f}"}
  return
}

// -----

// Tests that broadcast_to needs a broadcastable target.
func.func @broadcast_to_bad(%x: tensor<3xf32>) {
  // expected-error @+1 {{cannot broadcast 'tensor<3xf32>' to 'tensor<4xf32>'}}
  %0 = tfl.broadcast_to %x : tensor<3xf32> -> tensor<4xf32>
  return
}

// -----

// Tests that reshape keeps the number of elements.
func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot reshape 'tensor<2x3xf32>' (6 elements) to 'tensor<4xf32>'}}
  %0 = tfl.reshape %x : tensor<2x3xf32> -> tensor<4xf32>
  return
}

// -----

// Tests that transpose takes a permutation.
func.func @transpose_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm is not a permutation}}
  %0 = tfl.transpose %x {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

// Tests that transpose's result is the permuted shape.
func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{is not 'tensor<2x3xf32>' permuted}}
  %0 = tfl.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// Tests that concat's inputs agree off the axis.
func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{differs from 'tensor<4x3xf32>' in dim 1}}
  %0 = tfl.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

// Tests that concat's result adds up along the axis.
func.func @concat_total(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{inputs add up to 4 along axis 0, not 5}}
  %0 = tfl.concat %a, %a {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<5x3xf32>
  return
}

// -----

// Tests that a static slice must stay inside its input.
func.func @slice_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{reads outside dim 0}}
  %0 = tfl.slice %x[] {static_starts = array<i64: 2>, strides = array<i64: 1>} : tensor<4xf32> -> tensor<3xf32>
  return
}

// -----

// Tests that dynamic starts and start operands agree in number.
func.func @slice_operands(%x: tensor<4xf32>) {
  // expected-error @+1 {{has 0 start operands for 1 dynamic starts}}
  %0 = tfl.slice %x[] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 1>} : tensor<4xf32> -> tensor<2xf32>
  return
}

// -----

// Tests that a stride may not be zero.
func.func @slice_stride(%x: tensor<4xf32>) {
  // expected-error @+1 {{stride of dim 0 is zero}}
  %0 = tfl.slice %x[] {static_starts = array<i64: 0>, strides = array<i64: 0>} : tensor<4xf32> -> tensor<2xf32>
  return
}

// -----

// Tests that gather's result shape follows the indices.
func.func @gather_shape(%x: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{is not the gather of}}
  %0 = tfl.gather %x, %i {axis = 0 : i64} : tensor<10x4xf32>, tensor<3xi64> -> tensor<4x3xf32>
  return
}

// -----

// Tests that a random draw has a static shape.
func.func @random_dynamic() {
  // expected-error @+1 {{needs a static shape}}
  %0 = tfl.random_uniform : tensor<?xf32>
  return
}

// -----

// Tests that a data file's format is idx, npy or bytes.
func.func @load_format() {
  // expected-error @+1 {{format must be "idx", "npy" or "bytes", got "csv"}}
  %0 = tfl.load_data {format = "csv", path = "a.csv"} : tensor<2xf32>
  return
}

// -----

// Tests that bytes are read into a 1-D u8 tensor.
func.func @load_bytes_type() {
  // expected-error @+1 {{reads bytes into a 1-D u8 tensor, not 'tensor<2x2xi8>'}}
  %0 = tfl.load_data {format = "bytes", path = "a.txt"} : tensor<2x2xi8>
  return
}

// -----

// Tests that encode_text gives a 1-D u8 tensor of a static size.
func.func @encode_text_type() {
  // expected-error @+1 {{gives a 1-D u8 tensor of a static size, not 'tensor<?xi8>'}}
  %0 = tfl.encode_text {text = "{prompt}"} : tensor<?xi8>
  return
}

// -----

func.func @encode_text_dtype() {
  // expected-error @+1 {{gives a 1-D u8 tensor of a static size, not 'tensor<4xf32>'}}
  %0 = tfl.encode_text {text = "{prompt}"} : tensor<4xf32>
  return
}

// -----

// Tests that a checkpoint names each tensor.
func.func @save_names(%x: tensor<2xf32>) {
  // expected-error @+1 {{has 2 names for 1 tensors}}
  tfl.save %x {names = ["a", "b"], path = "c.st"} : tensor<2xf32>
  return
}

// -----

// Tests that conv2d's result shape follows its window.
func.func @conv_shape(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{result should be 'tensor<1x6x6x4xf32>'}}
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<1x8x8x4xf32>
  return
}

// -----

// Tests that a conv2d filter takes the input's channels.
func.func @conv_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{is not HWIO over the input's channels}}
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32> -> tensor<1x6x6x4xf32>
  return
}

// -----

// Tests that a random generator state is two i64s.
func.func @random_state_shape() {
  // expected-error @+1 {{needs a tensor<2xi64> state, got 'tensor<3xi64>'}}
  %0 = tfl.random_state : tensor<3xi64>
  return
}

// -----

// Tests that all_reduce's mean is refused on integers.
func.func @all_reduce_mean_of_ints(%x: tensor<3xi32>) {
  // expected-error @+1 {{mean needs float tensors, got 'tensor<3xi32>'}}
  %0 = tfl.all_reduce mean %x : tensor<3xi32>
  return
}

// -----

// Tests that a collective's tensors are of the dtypes collectives move.
func.func @all_reduce_of_bools(%x: tensor<3xi1>) {
  // expected-error @+1 {{operand #0 must be variadic of ranked tensor of}}
  %0 = tfl.all_reduce sum %x : tensor<3xi1>
  return
}

// -----

// Tests that a broadcast's root is a rank.
func.func @broadcast_negative_root(%x: tensor<3xf32>) {
  // expected-error @+1 {{root must be a rank (0 or more), not -1}}
  %0 = tfl.broadcast %x {root = -1 : i64} : tensor<3xf32>
  return
}

// -----

// Tests that a wait gives the types its start took.
func.func @all_reduce_wait_types(%x: tensor<3xf32>) {
  %req = tfl.all_reduce_start sum %x : tensor<3xf32>
  // expected-error @+1 {{result types differ from the inputs of the all_reduce_start that made its request}}
  %0 = tfl.all_reduce_wait %req : tensor<4xf32>
  return
}

// -----

// Tests that a start has something to reduce.
func.func @all_reduce_start_empty() {
  // expected-error @+1 {{starts an all_reduce of at least one tensor}}
  %req = "tfl.all_reduce_start"() <{op = 0 : i32}> : () -> i64
  return
}

// -----

// Tests that all_gather stacks its input's type.
func.func @all_gather_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{result must stack the input's type on a leading axis of the world's size, got 'tensor<2x4xf32>' for 'tensor<3xf32>'}}
  %0 = tfl.all_gather %x : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

// Tests that a dim's axis is within the input's rank.
func.func @dim_axis(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for 'tensor<?x4xf32>'}}
  %0 = tfl.dim %x {axis = 2 : i64} : tensor<?x4xf32> -> tensor<i64>
  return
}

// -----

// Tests that a convolution's batch may be dynamic, its other dims not.
func.func @conv_dynamic_width(%x: tensor<1x8x?x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{needs static H, W and C dims}}
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x?x3xf32>, tensor<3x3x3x4xf32> -> tensor<1x6x?x4xf32>
  return
}

// -----

// Tests that a jvp's tangents have their primals' types.
func.func private @jvp_callee(%x: tensor<3xf32>) -> tensor<f32>
func.func @jvp_tangent_type(%x: tensor<3xf32>, %t: tensor<2xf32>) {
  // expected-error @+1 {{tangent 0 does not have its primal's type}}
  %0, %1 = tfl.jvp @jvp_callee(%x, %t) : (tensor<3xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

// Tests that a Jacobian's results end in its argument's dims.
func.func private @jacobian_callee(%x: tensor<3xf32>) -> tensor<2xf32>
func.func @jacobian_dims(%x: tensor<3xf32>) {
  // expected-error @+1 {{result 0 does not end in operand 0's dims}}
  %0 = tfl.jacobian @jacobian_callee(%x) {argnums = array<i64: 0>, forward = false} : (tensor<3xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that an attention's keys must have its queries' features.
func.func @attention_features(%q: tensor<2x8x4xf32>, %k: tensor<2x8x3xf32>, %v: tensor<2x8x5xf32>) {
  // expected-error @+1 {{needs q [..., T, E], k [..., S, E], v [..., S, F] and a result [..., T, F]}}
  %0 = tfl.attention %q, %k, %v {causal = false, scale = 1.0 : f64} : tensor<2x8x4xf32>, tensor<2x8x3xf32>, tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  return
}

// -----

// Tests that a seq_major attention reads [..., T, H, E]: its heads dim
// (r-2) is a batch dim that q and k share.
func.func @attention_seq_major_heads(%q: tensor<2x8x3x4xf32>, %k: tensor<2x8x2x4xf32>, %v: tensor<2x8x3x5xf32>) {
  // expected-error @+1 {{with seq_major needs q [..., T, H, E], k [..., S, H, E], v [..., S, H, F] and a result [..., T, H, F]}}
  %0 = tfl.attention %q, %k, %v {causal = false, scale = 1.0 : f64, seq_major} : tensor<2x8x3x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x3x5xf32> -> tensor<2x8x3x5xf32>
  return
}

// -----

// Tests that seq_major needs a heads dim.
func.func @attention_seq_major_rank(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>, %v: tensor<8x5xf32>) {
  // expected-error @+1 {{with seq_major takes q, k and v of rank 3 or more}}
  %0 = tfl.attention %q, %k, %v {causal = false, scale = 1.0 : f64, seq_major} : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x5xf32> -> tensor<8x5xf32>
  return
}

// -----

// Tests that an attention's adjoint gives cotangents of its operands'
// types.
func.func @attention_backward_types(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x5xf32>, %o: tensor<2x8x5xf32>) {
  // expected-error @+1 {{gives dq, dk and dv of q's, k's and v's types}}
  %dq, %dk, %dv = tfl.attention_backward %q, %k, %v, %o, %o {causal = false, scale = 1.0 : f64} : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x5xf32>, tensor<2x8x5xf32>, tensor<2x8x5xf32> -> tensor<2x8x4xf32>, tensor<2x8x5xf32>, tensor<2x8x5xf32>
  return
}
