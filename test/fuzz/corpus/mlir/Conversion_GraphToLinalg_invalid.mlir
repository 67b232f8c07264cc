
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = msgraph.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
