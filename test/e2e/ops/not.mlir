// RUN: %check %s --work-dir %t

// REFERENCE: ~a0
func.func @main(%a0: tensor<6xi1>) -> (tensor<6xi1>) {
  %r = msgraph.not %a0 : tensor<6xi1>
  return %r : tensor<6xi1>
}
