// RUN: %check %s --work-dir %t
// RUN: ms-compile %s -O0 --compile-to=llvm | FileCheck %s --implicit-check-not=llvm.intr.exp --implicit-check-not=llvm.intr.log --implicit-check-not=@expf --implicit-check-not=@logf --implicit-check-not=@erff --implicit-check-not=@tanhf
// exp, log, erf, tanh and sigmoid (exp underneath) run as polynomial
// approximations (ms-cpu-approximate-math), no libm call: checked against
// float64 NumPy over a sweep of 4096 arguments covering their whole f32
// range (exp up to overflow at 88.72 and into the subnormals, log from the
// subnormals to the largest float) and the special values inf, -inf, NaN,
// -0, 0 and log's negative arguments. The tolerance is 8 ulp (rtol 1e-6;
// measured: exp 4.6 ulp near overflow, tanh 3.7, erf 2.2, sigmoid 1.6, log
// 0.7); the absolute 1e-37 admits subnormal results flushed to zero.
// CHECK-COUNT-5: llvm.func internal @kernel_{{.*}}
// CHECK: llvm.intr.fma

// INPUT 0: np.concatenate([np.linspace(-103.0, 88.7, 4080), [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.73, -87.3, -88.0, -100.0, 1e-7, -1e-7, 0.5, -0.5, 3.0, -3.0]]).astype(dtype)
// INPUT 1: np.concatenate([np.geomspace(1.2e-38, 3.4e38, 4080), [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 2.0, 0.5, 1e-45, 1e-40, 0.999999, 1.000001, 10.0, 100.0, 1e30]]).astype(dtype)
// REFERENCE: np.exp(a0.astype(np.float64)).astype(np.float32)
// REFERENCE: np.log(a1.astype(np.float64))
// REFERENCE: erf(a0)
// REFERENCE: np.tanh(a0.astype(np.float64))
// REFERENCE: sigmoid(a0)
// TOLERANCE: rtol=1e-06 atol=1e-37
func.func @main(%a0: tensor<4096xf32>, %a1: tensor<4096xf32>) -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %e = msgraph.exp %a0 : tensor<4096xf32>
  %l = msgraph.log %a1 : tensor<4096xf32>
  %f = msgraph.erf %a0 : tensor<4096xf32>
  %t = msgraph.tanh %a0 : tensor<4096xf32>
  %s = msgraph.sigmoid %a0 : tensor<4096xf32>
  return %e, %l, %f, %t, %s : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}
