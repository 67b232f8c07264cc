// RUN: ms-opt %s -split-input-file -msdist-materialize -verify-diagnostics | FileCheck %s

// Arguments are whole where the caller passes them; a spec splits them for
// their users. Constraints become a shard.shard pair (a constant stays
// whole where it is defined). Results are whole unless a spec says
// otherwise.
// CHECK-LABEL: module attributes
// CHECK: shard.grid @mesh(shape = 2x2)
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[WHOLE:.*]] = shard.sharding @mesh split_axes = [] : !shard.sharding
// CHECK-DAG: %[[DP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK: %[[A:.*]] = shard.shard %arg0 to %[[WHOLE]] : tensor<8x16xf32>
// CHECK: %[[X:.*]] = shard.shard %[[A]] to %[[DP]] annotate_for_users : tensor<8x16xf32>
// CHECK: %[[C:.*]] = msgraph.constant
// CHECK: %[[TP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [1]] : !shard.sharding
// CHECK: %[[CD:.*]] = shard.shard %[[C]] to %{{.*}} : tensor<16x32xf32>
// CHECK: %[[W:.*]] = shard.shard %[[CD]] to %[[TP]] annotate_for_users : tensor<16x32xf32>
// CHECK: %[[M:.*]] = msgraph.matmul %[[X]], %[[W]]
// CHECK: %[[R:.*]] = shard.shard %[[M]] to %{{.*}} annotate_for_users : tensor<8x32xf32>
// CHECK: return %[[R]]
module attributes {msdist.mesh = #msdist.mesh<shape = [2, 2], axes = ["dp", "tp"]>} {
  func.func @main(%x: tensor<8x16xf32> {msdist.spec = #msdist.spec<[["dp"]]>}) -> tensor<8x32xf32> {
    %c = msgraph.constant dense<1.0> : tensor<16x32xf32>
    %w = msdist.constraint %c {spec = #msdist.spec<[[], ["tp"]]>} : tensor<16x32xf32>
    %y = msgraph.matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %y : tensor<8x32xf32>
  }
}

// -----

// A constrained constant read only through a transpose (ONNX Gemm's transB
// weight) is transposed at compile time; the spec follows its dims.
// CHECK-LABEL: func.func @transposed_weight
// CHECK: %[[C:.*]] = msgraph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[S:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [0]]
// CHECK: shard.shard %{{.*}} to %[[S]] annotate_for_users
// CHECK-NOT: msgraph.transpose
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
  func.func @transposed_weight(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %c = msgraph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %w = msdist.constraint %c {spec = #msdist.spec<[["tp"]]>} : tensor<2x2xf32>
    %t = msgraph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %y = msgraph.matmul %x, %t : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
    return %y : tensor<4x2xf32>
  }
}

// -----

// Without a mesh the pass changes nothing.
// CHECK-LABEL: func.func @unsharded
// CHECK-NOT: shard.
func.func @unsharded(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
  // expected-error @+1 {{input 'x': mesh axis 'dp' does not exist (spec_c1); the mesh's axes are tp}}
  func.func @main(%x: tensor<8xf32> {ms.name = "x", msdist.spec = #msdist.spec<[["dp"]]>}) -> tensor<8xf32> {
    return %x : tensor<8xf32>
  }
}

// -----

module attributes {msdist.mesh = #msdist.mesh<shape = [2, 2], axes = ["dp", "tp"]>} {
  // expected-error @+1 {{argument 0: mesh axis 'dp' splits more than one dim (spec_c2)}}
  func.func @main(%x: tensor<8x8xf32> {msdist.spec = #msdist.spec<[["dp"], ["dp"]]>}) -> tensor<8x8xf32> {
    return %x : tensor<8x8xf32>
  }
}

// -----

module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
  // expected-error @+1 {{argument 0: expected at most 1 dims in the spec of a rank-1 tensor (spec_c3), but found 2}}
  func.func @main(%x: tensor<8xf32> {msdist.spec = #msdist.spec<[["tp"], []]>}) -> tensor<8xf32> {
    return %x : tensor<8xf32>
  }
}

// -----

module attributes {msdist.mesh = #msdist.mesh<shape = [4], axes = ["tp"]>} {
  func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {
    // expected-error @+1 {{msdist.constraint: dim 0 (size 6) is not divisible by the 4 devices of its mesh axes}}
    %y = msdist.constraint %x {spec = #msdist.spec<[["tp"]]>} : tensor<6xf32>
    return %y : tensor<6xf32>
  }
}

// -----

module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
  // expected-error @+1 {{argument 0: expected a ranked tensor of rank >= 1 to shard, but found 'tensor<f32>'}}
  func.func @main(%x: tensor<f32> {msdist.spec = #msdist.spec<[]>}) -> tensor<f32> {
    return %x : tensor<f32>
  }
}

// -----

// expected-error @+1 {{expected msdist.mesh to be an #msdist.mesh attribute}}
module attributes {msdist.mesh = 2 : i64} {
  func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
    return %x : tensor<8xf32>
  }
}
