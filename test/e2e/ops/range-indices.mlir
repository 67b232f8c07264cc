// RUN: %check %s --work-dir %t

// Ranges whose start is a graph input (not folded): one kernel each, whose
// value is its loop's index. On the cuda target a thread takes a group of
// adjacent indices as one vector (ms-cuda-map-to-gpu: `first + [0, W)`),
// 2 for the i64 range, 4 for the f32 one. A causal mask built from the i64
// range (a boolean tensor) finishes a matrix product.
// INPUT 2: np.array(-3, np.int64)
// INPUT 3: np.array(-1.5, np.float32)
// REFERENCE: np.arange(-3, 61, dtype=np.int64)
// REFERENCE: np.arange(-1.5, 30.5, 0.5, dtype=np.float32)
// REFERENCE: np.arange(-3, 61, dtype=np.int64).astype(np.int32)
// REFERENCE: np.where(np.arange(64)[None, :] > np.arange(64)[:, None], np.float32(-1e4), a0 @ a1)
// TOLERANCE: rtol=1e-05 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs: docs/NPU.md)
func.func @main(%a0: tensor<64x32xf32>, %a1: tensor<32x64xf32>, %a2: tensor<i64>, %a3: tensor<f32>) -> (tensor<64xi64>, tensor<64xf32>, tensor<64xi32>, tensor<64x64xf32>) {
  %n = msgraph.constant dense<61> : tensor<i64>
  %one = msgraph.constant dense<1> : tensor<i64>
  %r = msgraph.range %a2, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<64xi64>
  %fn = msgraph.constant dense<30.5> : tensor<f32>
  %half = msgraph.constant dense<0.5> : tensor<f32>
  %f = msgraph.range %a3, %fn, %half : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<64xf32>
  %i = msgraph.cast %r : (tensor<64xi64>) -> tensor<64xi32>
  %three = msgraph.constant dense<3> : tensor<i64>
  %cols = msgraph.add %r, %three : (tensor<64xi64>, tensor<i64>) -> tensor<64xi64>
  %rows = msgraph.reshape %cols : (tensor<64xi64>) -> tensor<64x1xi64>
  %hidden = msgraph.greater %cols, %rows : (tensor<64xi64>, tensor<64x1xi64>) -> tensor<64x64xi1>
  %ninf = msgraph.constant dense<-1.0e+04> : tensor<f32>
  %s = msgraph.matmul %a0, %a1 : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %w = msgraph.where %hidden, %ninf, %s : (tensor<64x64xi1>, tensor<f32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r, %f, %i, %w : tensor<64xi64>, tensor<64xf32>, tensor<64xi32>, tensor<64x64xf32>
}
