func.func @main(%x: tensor<4x!msgraph.string>) -> tensor<?xi1> {
  %r = msgraph.string_normalizer %x {stopwords = ["monday"]} : (tensor<4x!msgraph.string>) -> tensor<?x!msgraph.string>
  // The count of words kept is only known at run time.
  %e = msgraph.string_equal %r, %r : (tensor<?x!msgraph.string>, tensor<?x!msgraph.string>) -> tensor<?xi1>
  return %e : tensor<?xi1>
}
