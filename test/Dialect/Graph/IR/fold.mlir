// RUN: ms-opt %s -split-input-file -canonicalize | FileCheck %s

// Folders of msgraph ops: no-op removal and constant evaluation.

// CHECK-LABEL: func @identity
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK-NEXT: return %[[X]]
func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = msgraph.identity %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @arith_identities
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @arith_identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = msgraph.constant dense<0.0> : tensor<f32>
  %one = msgraph.constant dense<1.0> : tensor<3xf32>
  %0 = msgraph.add %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = msgraph.sub %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = msgraph.mul %one, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = msgraph.div %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @broadcast_add_constants
// CHECK-NEXT: %[[C:.+]] = msgraph.constant dense<{{\[}}[1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_add_constants() -> tensor<2x2xf32> {
  %a = msgraph.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b = msgraph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %c = msgraph.constant dense<[[0.0, 1.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %0 = msgraph.add %a, %b : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %1 = msgraph.add %0, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func @integer_arith
// CHECK-DAG: msgraph.constant dense<[2, 2, 3]> : tensor<3xi32>
// CHECK-DAG: msgraph.constant dense<[5, 0, 0]> : tensor<3xi32>
// CHECK-DAG: msgraph.constant dense<[255, 1, 0]> : tensor<3xui8>
func.func @integer_arith() -> (tensor<3xi32>, tensor<3xi32>, tensor<3xui8>) {
  %a = msgraph.constant dense<[-7, 5, 9]> : tensor<3xi32>
  %b = msgraph.constant dense<[2, 2, 3]> : tensor<3xi32>
  // Signed division truncates toward zero.
  %0 = msgraph.div %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = msgraph.max %0, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %2 = msgraph.sub %0, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %3 = msgraph.neg %0 : tensor<3xi32>
  %4 = msgraph.add %3, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %u = msgraph.constant dense<[0, 1, 2]> : tensor<3xui8>
  %v = msgraph.constant dense<[1, 0, 2]> : tensor<3xui8>
  // Unsigned subtraction wraps.
  %5 = msgraph.sub %u, %v : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %1, %4, %5 : tensor<3xi32>, tensor<3xi32>, tensor<3xui8>
}

// -----

// CHECK-LABEL: func @integer_division_by_zero_is_kept
// CHECK: msgraph.div
func.func @integer_division_by_zero_is_kept() -> tensor<2xi32> {
  %a = msgraph.constant dense<[1, 2]> : tensor<2xi32>
  %b = msgraph.constant dense<[1, 0]> : tensor<2xi32>
  %0 = msgraph.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func @unary_chain
// CHECK-NEXT: %[[C:.+]] = msgraph.constant dense<[0.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]]
func.func @unary_chain() -> tensor<3xf32> {
  %a = msgraph.constant dense<[-4.0, 4.0, 9.0]> : tensor<3xf32>
  %0 = msgraph.relu %a : tensor<3xf32>
  %1 = msgraph.sqrt %0 : tensor<3xf32>
  %2 = msgraph.exp %1 : tensor<3xf32>
  %3 = msgraph.log %2 : tensor<3xf32>
  return %3 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @compare_and_where
// CHECK-NEXT: %[[C:.+]] = msgraph.constant dense<[1.000000e+00, 5.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[C]]
func.func @compare_and_where() -> tensor<3xf32> {
  %a = msgraph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = msgraph.constant dense<2.0> : tensor<f32>
  %five = msgraph.constant dense<5.0> : tensor<f32>
  %c = msgraph.equal %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %0 = msgraph.where %c, %five, %a : (tensor<3xi1>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @where_splat_condition
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4xf32>
// CHECK-NEXT: return %[[X]]
func.func @where_splat_condition(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %t = msgraph.constant dense<true> : tensor<4xi1>
  %0 = msgraph.where %t, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @cast
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2xf32>
// CHECK-DAG: msgraph.constant dense<[1, -2, 0]> : tensor<3xi32>
// CHECK-DAG: msgraph.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK: return %{{.+}}, %{{.+}}, %[[X]]
func.func @cast(%x: tensor<2xf32>) -> (tensor<3xi32>, tensor<3xi1>, tensor<2xf32>) {
  %a = msgraph.constant dense<[1.9, -2.5, 0.0]> : tensor<3xf32>
  %0 = msgraph.cast %a : (tensor<3xf32>) -> tensor<3xi32>
  %1 = msgraph.cast %a : (tensor<3xf32>) -> tensor<3xi1>
  %2 = msgraph.cast %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2 : tensor<3xi32>, tensor<3xi1>, tensor<2xf32>
}

// -----

// Shape arithmetic folds to constants once the input shape is static.
// CHECK-LABEL: func @shape_arith
// CHECK-NEXT: %[[C:.+]] = msgraph.constant dense<[6, 4]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_arith(%x: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %s = msgraph.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %a = msgraph.slice %s {starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64: 1>} : (tensor<3xi64>) -> tensor<2xi64>
  %b = msgraph.reduce_prod %a {axes = array<i64: 0>} : (tensor<2xi64>) -> tensor<1xi64>
  %idx = msgraph.constant dense<[2]> : tensor<1xi64>
  %c = msgraph.gather %s, %idx {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %d = msgraph.concat %b, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %e = msgraph.constant dense<[0, 1]> : tensor<2xi64>
  %f = msgraph.sub %d, %e : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %l = msgraph.add %f, %e : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %l : tensor<2xi64>
}

// -----

// CHECK-LABEL: func @shape_of_dynamic_is_kept
// CHECK: msgraph.shape
func.func @shape_of_dynamic_is_kept(%x: tensor<?x3xf32>) -> tensor<2xi64> {
  %s = msgraph.shape %x : (tensor<?x3xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

// CHECK-LABEL: func @constant_of_shape_and_range
// CHECK-DAG: msgraph.constant dense<7> : tensor<2x3xi32>
// CHECK-DAG: msgraph.constant dense<[1.000000e+00, 1.500000e+00, 2.000000e+00, 2.500000e+00]> : tensor<4xf32>
func.func @constant_of_shape_and_range(%s: tensor<2xi64>) -> (tensor<2x3xi32>, tensor<4xf32>) {
  %0 = msgraph.constant_of_shape %s {value = 7 : i32} : (tensor<2xi64>) -> tensor<2x3xi32>
  %a = msgraph.constant dense<1.0> : tensor<f32>
  %b = msgraph.constant dense<3.0> : tensor<f32>
  %c = msgraph.constant dense<0.5> : tensor<f32>
  %1 = msgraph.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<2x3xi32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @data_movement
// CHECK-DAG: msgraph.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: msgraph.constant dense<[6, 4]> : tensor<2xi32>
// CHECK-DAG: msgraph.constant dense<{{\[}}[1, 2, 3, 1, 2, 3]]> : tensor<1x6xi32>
// CHECK-DAG: msgraph.constant dense<{{\[}}[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
func.func @data_movement() -> (tensor<3x2xi32>, tensor<2xi32>, tensor<1x6xi32>, tensor<2x3xi32>) {
  %a = msgraph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = msgraph.transpose %a {permutation = array<i64: 1, 0>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %r = msgraph.reshape %a : (tensor<2x3xi32>) -> tensor<6xi32>
  %1 = msgraph.slice %r {starts = array<i64: 5>, ends = array<i64: 2>, steps = array<i64: -2>} : (tensor<6xi32>) -> tensor<2xi32>
  %b = msgraph.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %2 = msgraph.tile %b {repeats = array<i64: 1, 2>} : (tensor<1x3xi32>) -> tensor<1x6xi32>
  %3 = msgraph.expand %b : (tensor<1x3xi32>) -> tensor<2x3xi32>
  return %0, %1, %2, %3 : tensor<3x2xi32>, tensor<2xi32>, tensor<1x6xi32>, tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func @reductions
// CHECK-DAG: msgraph.constant dense<[6.000000e+00, 1.500000e+01]> : tensor<2xf32>
// CHECK-DAG: msgraph.constant dense<{{\[}}[2.500000e+00, 3.500000e+00, 4.500000e+00]]> : tensor<1x3xf32>
// CHECK-DAG: msgraph.constant dense<6> : tensor<i32>
// CHECK-DAG: msgraph.constant dense<[3, 200]> : tensor<2xui8>
func.func @reductions() -> (tensor<2xf32>, tensor<1x3xf32>, tensor<i32>, tensor<2xui8>) {
  %a = msgraph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = msgraph.reduce_sum %a {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = msgraph.reduce_mean %a {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %i = msgraph.constant dense<[[1, 6], [-3, 2]]> : tensor<2x2xi32>
  %2 = msgraph.reduce_max %i {axes = array<i64>, keep_dims = false} : (tensor<2x2xi32>) -> tensor<i32>
  %u = msgraph.constant dense<[[3, 200], [4, 250]]> : tensor<2x2xui8>
  %3 = msgraph.reduce_min %u {axes = array<i64: 0>, keep_dims = false} : (tensor<2x2xui8>) -> tensor<2xui8>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<1x3xf32>, tensor<i32>, tensor<2xui8>
}

// -----

// CHECK-LABEL: func @gather_out_of_range_is_kept
// CHECK: msgraph.gather
func.func @gather_out_of_range_is_kept() -> tensor<1xf32> {
  %a = msgraph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %i = msgraph.constant dense<[5]> : tensor<1xi64>
  %0 = msgraph.gather %a, %i : (tensor<2xf32>, tensor<1xi64>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// mod takes the divisor's sign, fmod the dividend's; a remainder by zero
// folds to 0, as the lowering computes it.
// CHECK-LABEL: func @remainders
// CHECK-DAG: msgraph.constant dense<[1, 2, -1, 0]> : tensor<4xi32>
// CHECK-DAG: msgraph.constant dense<[1, -1, 3, 0]> : tensor<4xi32>
// CHECK-DAG: msgraph.constant dense<[1.500000e+00, -5.000000e-01]> : tensor<2xf32>
func.func @remainders() -> (tensor<4xi32>, tensor<4xi32>, tensor<2xf32>) {
  %a = msgraph.constant dense<[7, -7, 7, 5]> : tensor<4xi32>
  %b = msgraph.constant dense<[3, 3, -4, 0]> : tensor<4xi32>
  %0 = msgraph.mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = msgraph.fmod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %x = msgraph.constant dense<[-2.5, 3.5]> : tensor<2xf32>
  %y = msgraph.constant dense<[2.0, -2.0]> : tensor<2xf32>
  %2 = msgraph.mod %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<2xf32>
}

// -----

// Rounding halves to even; floor and ceil of negative values.
// CHECK-LABEL: func @fold_rounding
// CHECK-DAG: msgraph.constant dense<[2.000000e+00, -2.000000e+00, 0.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG: msgraph.constant dense<[2.000000e+00, -2.000000e+00, 0.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK-DAG: msgraph.constant dense<[3.000000e+00, -1.000000e+00, 1.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NOT: msgraph.round
func.func @fold_rounding() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = msgraph.constant dense<[2.5, -1.5, 0.25, 3.5]> : tensor<4xf32>
  %0 = msgraph.round %c : tensor<4xf32>
  %1 = msgraph.floor %c : tensor<4xf32>
  %2 = msgraph.ceil %c : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @fold_trig
// CHECK-NEXT: %[[C:.+]] = msgraph.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]], %[[C]]
func.func @fold_trig() -> (tensor<2xf32>, tensor<2xf32>) {
  %c = msgraph.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %s = msgraph.sin %c : tensor<2xf32>
  %o = msgraph.cos %c : tensor<2xf32>
  %r = msgraph.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %a = msgraph.add %s, %r : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %m = msgraph.mul %o, %r : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %a, %m : tensor<2xf32>, tensor<2xf32>
}

// -----

// Bitwise ops on integers; shifts past the bit width move every bit out.
// CHECK-LABEL: func @fold_bitwise
// CHECK-DAG: msgraph.constant dense<[8, 0, 0, 128]> : tensor<4xui8>
// CHECK-DAG: msgraph.constant dense<[0, 1, 0, 0]> : tensor<4xui8>
// CHECK-DAG: msgraph.constant dense<[-1, -1, 0, 15]> : tensor<4xi8>
// CHECK-DAG: msgraph.constant dense<[-13, 6, 5, -1]> : tensor<4xi8>
// CHECK-DAG: msgraph.constant dense<[9, -5, -3, 1]> : tensor<4xi8>
// CHECK-DAG: msgraph.constant dense<[1, 2, 5, 1]> : tensor<4xi8>
// CHECK-DAG: msgraph.constant dense<[13, -5, -1, 1]> : tensor<4xi8>
// CHECK-NOT: msgraph.{{(shift|xor|and|or|not)}}
func.func @fold_bitwise() -> (tensor<4xui8>, tensor<4xui8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) {
  %u = msgraph.constant dense<[1, 16, 255, 1]> : tensor<4xui8>
  %s = msgraph.constant dense<[3, 4, 8, 7]> : tensor<4xui8>
  %0 = msgraph.shift_left %u, %s : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = msgraph.shift_right %u, %s : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %x = msgraph.constant dense<[-128, -8, 12, 120]> : tensor<4xi8>
  %n = msgraph.constant dense<[7, 8, 9, 3]> : tensor<4xi8>
  %2 = msgraph.shift_right %x, %n : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %y = msgraph.constant dense<[12, -7, -6, 0]> : tensor<4xi8>
  %3 = msgraph.not %y : tensor<4xi8>
  %z = msgraph.constant dense<[5, 2, 7, 1]> : tensor<4xi8>
  %4 = msgraph.xor %y, %z : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %5 = msgraph.and %4, %z : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %6 = msgraph.or %y, %z : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xui8>, tensor<4xui8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
}
