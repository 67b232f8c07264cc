func.func @main(%x: tensor<4x!msgraph.string>) -> (tensor<?x!msgraph.string>, tensor<4xi1>) {
  %r = msgraph.string_normalizer %x {case_change_action = "UPPER", stopwords = ["monday"]} : (tensor<4x!msgraph.string>) -> tensor<?x!msgraph.string>
  %e = msgraph.string_equal %x, %x : (tensor<4x!msgraph.string>, tensor<4x!msgraph.string>) -> tensor<4xi1>
  return %r, %e : tensor<?x!msgraph.string>, tensor<4xi1>
}
