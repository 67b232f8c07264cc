// RUN: ms-opt %s -split-input-file -convert-msgraph-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @broadcast_add
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: tensor<2x3xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf32>
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: arith.addf
func.func @broadcast_add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = msgraph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A size-1 dimension that broadcasts is collapsed away before the generic.
// CHECK-LABEL: func @broadcast_unit_dim
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: linalg.generic
// CHECK: arith.mulf
func.func @broadcast_unit_dim(%a: tensor<4x1xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = msgraph.mul %a, %b : (tensor<4x1xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Unsigned integers become signless; the ops keep the unsigned meaning.
// CHECK-LABEL: func @unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi1>)
// CHECK: arith.divui
// CHECK: arith.cmpi ult
func.func @unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xi1>) {
  %0 = msgraph.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = msgraph.less %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %0, %1 : tensor<4xui8>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @unary_math
// CHECK: math.erf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: arith.maximumf
func.func @unary_math(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = msgraph.gelu %x : tensor<8xf32>
  %1 = msgraph.tanh %0 : tensor<8xf32>
  %2 = msgraph.sigmoid %1 : tensor<8xf32>
  %3 = msgraph.relu %2 : tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @cast_and_where
// CHECK: arith.fptosi
// CHECK: arith.select
func.func @cast_and_where(%x: tensor<4xf32>, %c: tensor<4xi1>) -> tensor<4xi32> {
  %0 = msgraph.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  %z = msgraph.constant dense<0> : tensor<i32>
  %1 = msgraph.where %c, %0, %z : (tensor<4xi1>, tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @identity
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK-NEXT: return %[[X]]
func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = msgraph.identity %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @trig_and_rounding
// CHECK: math.sin
// CHECK: math.acos
// CHECK: math.atanh
// CHECK: math.floor
// CHECK: math.roundeven
func.func @trig_and_rounding(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = msgraph.sin %x : tensor<8xf32>
  %1 = msgraph.acos %0 : tensor<8xf32>
  %2 = msgraph.atanh %1 : tensor<8xf32>
  %3 = msgraph.floor %2 : tensor<8xf32>
  %4 = msgraph.round %3 : tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// Shifts select 0 (or the sign fill) when the amount reaches the bit width;
// not on integers flips every bit.
// CHECK-LABEL: func @bitwise
// CHECK: %[[W:.+]] = arith.constant 8 : i8
// CHECK: %[[IN:.+]] = arith.cmpi ult, %{{.*}}, %[[W]] : i8
// CHECK: %[[S:.+]] = arith.shli
// CHECK: arith.select %[[IN]], %[[S]], %{{.*}} : i8
// CHECK: arith.shrui
// CHECK: %[[SIGN:.+]] = arith.constant 7 : i8
// CHECK: arith.shrsi %{{.*}}, %[[SIGN]] : i8
// CHECK: arith.constant -1 : i8
// CHECK: arith.xori
func.func @bitwise(%u: tensor<4xui8>, %s: tensor<4xi8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xi8>, tensor<4xi8>) {
  %0 = msgraph.shift_left %u, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = msgraph.shift_right %u, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = msgraph.shift_right %s, %s : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %3 = msgraph.not %2 : tensor<4xi8>
  return %0, %1, %2, %3 : tensor<4xui8>, tensor<4xui8>, tensor<4xi8>, tensor<4xi8>
}
