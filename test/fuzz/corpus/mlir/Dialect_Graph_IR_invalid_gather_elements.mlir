
// Verifier errors of msgraph.gather_elements.

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) {
  %y = msgraph.gather_elements %x, %i {axis = 2 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<6xi64>) {
  %y = msgraph.gather_elements %x, %i : (tensor<3x4xf32>, tensor<6xi64>) -> tensor<6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<2x5xi64>) {
  %y = msgraph.gather_elements %x, %i : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) {
  %y = msgraph.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf16>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<3x2xf32>) {
  %y = msgraph.gather_elements %x, %i : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return
}
