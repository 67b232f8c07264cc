// RUN: %check %s --work-dir %t

// REFERENCE: a0 & a1
// REFERENCE: a0 | a1
func.func @main(%a0: tensor<4xi1>, %a1: tensor<2x4xi1>) -> (tensor<2x4xi1>, tensor<2x4xi1>) {
  %r = msgraph.and %a0, %a1 : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %s = msgraph.or %a0, %a1 : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  return %r, %s : tensor<2x4xi1>, tensor<2x4xi1>
}
