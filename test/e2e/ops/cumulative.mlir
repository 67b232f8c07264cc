// RUN: %check %s --work-dir %t

// Scans in every mode: inclusive/exclusive, forward/reverse, on the first,
// middle and last axis, float and (wrapping) integer.
// REFERENCE: cumulative(a0, 2)
// REFERENCE: cumulative(a0, 1, exclusive=True)
// REFERENCE: cumulative(a0, 0, reverse=True)
// REFERENCE: cumulative(a1, 1, exclusive=True, reverse=True, prod=True)
// REFERENCE: cumulative(a2, 0, prod=True)
// REFERENCE: cumulative(a3, 0)
// INPUT 1: rng.uniform(0.5, 1.5, shape)
// INPUT 2: rng.integers(-9, 9, shape)
// INPUT 3: rng.integers(0, 256, shape)
// TOLERANCE: rtol=1e-5 atol=1e-5
func.func @main(%a0: tensor<3x5x7xf32>, %a1: tensor<2x9xf64>, %a2: tensor<12x3xi32>, %a3: tensor<20xui8>) -> (tensor<3x5x7xf32>, tensor<3x5x7xf32>, tensor<3x5x7xf32>, tensor<2x9xf64>, tensor<12x3xi32>, tensor<20xui8>) {
  %0 = msgraph.cumsum %a0 {axis = -1 : i64} : tensor<3x5x7xf32>
  %1 = msgraph.cumsum %a0 {axis = 1 : i64, exclusive = true} : tensor<3x5x7xf32>
  %2 = msgraph.cumsum %a0 {axis = 0 : i64, reverse = true} : tensor<3x5x7xf32>
  %3 = msgraph.cumprod %a1 {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x9xf64>
  %4 = msgraph.cumprod %a2 {axis = 0 : i64} : tensor<12x3xi32>
  %5 = msgraph.cumsum %a3 {axis = 0 : i64} : tensor<20xui8>
  return %0, %1, %2, %3, %4, %5 : tensor<3x5x7xf32>, tensor<3x5x7xf32>, tensor<3x5x7xf32>, tensor<2x9xf64>, tensor<12x3xi32>, tensor<20xui8>
}
