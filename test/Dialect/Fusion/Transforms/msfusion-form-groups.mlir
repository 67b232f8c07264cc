// RUN: ms-opt %s -split-input-file -msfusion-form-groups | FileCheck %s

// An elementwise chain becomes one group; a broadcast operand stays outside.
// CHECK-LABEL: func @main
// CHECK-SAME: (%[[X:.+]]: tensor<64x128xf32>, %[[B:.+]]: tensor<128xf32>)
// CHECK: %[[G:.+]] = msfusion.group(%[[X]], %[[B]] : tensor<64x128xf32>, tensor<128xf32>) -> (tensor<64x128xf32>) {
// CHECK: msgraph.add
// CHECK-NEXT: msgraph.tanh
// CHECK-NEXT: msgraph.mul
// CHECK-NEXT: msgraph.gelu
// CHECK-NEXT: msfusion.yield
// CHECK: return %[[G]]
func.func @main(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = msgraph.add %x, %b : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %1 = msgraph.tanh %0 : tensor<64x128xf32>
  %2 = msgraph.mul %1, %x : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %3 = msgraph.gelu %2 : tensor<64x128xf32>
  return %3 : tensor<64x128xf32>
}

// -----

// A matmul takes its bias add and activation (its epilogue).
// CHECK-LABEL: func @main
// CHECK: msfusion.group(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> (tensor<8x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msgraph.gelu
// CHECK-NEXT: msfusion.yield
// CHECK-NOT: msfusion.group
func.func @main(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = msgraph.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = msgraph.add %0, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %2 = msgraph.gelu %1 : tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

// -----

// A reduction of trailing axes absorbs its single-use elementwise
// producers, and its consumers that read the reduced value along the rows
// it reduced join it (F2b): one kernel computes each row's sum once, then
// the row.
// CHECK-LABEL: func @main
// CHECK: msfusion.group(%{{.*}} : tensor<4x16xf32>) -> (tensor<4x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.neg
// CHECK-NEXT: msgraph.exp
// CHECK-NEXT: msgraph.reduce_sum
// CHECK-NEXT: msgraph.sqrt
// CHECK-NEXT: msgraph.div
// CHECK-NEXT: msgraph.abs
// CHECK-NEXT: msfusion.yield
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = msgraph.neg %x : tensor<4x16xf32>
  %1 = msgraph.exp %0 : tensor<4x16xf32>
  %2 = msgraph.reduce_sum %1 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %3 = msgraph.sqrt %2 : tensor<4x1xf32>
  %4 = msgraph.div %x, %3 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %5 = msgraph.abs %4 : tensor<4x16xf32>
  return %5 : tensor<4x16xf32>
}

// -----

// A reduction of a leading axis is not a row reduction: its consumer of a
// larger shape (which would recompute the sum per element) starts a chain
// of its own.
// CHECK-LABEL: func @main
// CHECK: %[[SUM:.+]] = msfusion.group(%{{.*}} : tensor<4x16xf32>) -> (tensor<1x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.exp
// CHECK-NEXT: msgraph.reduce_sum
// CHECK-NEXT: msgraph.sqrt
// CHECK-NEXT: msfusion.yield
// CHECK: msfusion.group(%{{.*}}, %[[SUM]] : tensor<4x16xf32>, tensor<1x16xf32>) -> (tensor<4x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.div
// CHECK-NEXT: msgraph.abs
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %1 = msgraph.exp %x : tensor<4x16xf32>
  %2 = msgraph.reduce_sum %1 {axes = array<i64: 0>} : (tensor<4x16xf32>) -> tensor<1x16xf32>
  %3 = msgraph.sqrt %2 : tensor<1x16xf32>
  %4 = msgraph.div %x, %3 : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %5 = msgraph.abs %4 : tensor<4x16xf32>
  return %5 : tensor<4x16xf32>
}

// -----

// LayerNorm written as ops (PyTorch's export below opset 17): the mean,
// the variance of the centered rows and the normalization are one group,
// with the residual add that produces its input (all of whose users are
// members once the consumers have joined).
// CHECK-LABEL: func @main
// CHECK: msfusion.group(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x8x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msgraph.reduce_mean
// CHECK-NEXT: msgraph.sub
// CHECK-NEXT: msgraph.constant
// CHECK-NEXT: msgraph.pow
// CHECK-NEXT: msgraph.reduce_mean
// CHECK-NEXT: msgraph.constant
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msgraph.sqrt
// CHECK-NEXT: msgraph.div
// CHECK-NEXT: msgraph.mul
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msfusion.yield
// CHECK-NOT: msfusion.group
func.func @main(%x: tensor<2x8x32xf32>, %r: tensor<2x8x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %h = msgraph.add %x, %r : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %mean = msgraph.reduce_mean %h {axes = array<i64: -1>} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %d = msgraph.sub %h, %mean : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %two = msgraph.constant dense<2.0> : tensor<f32>
  %sq = msgraph.pow %d, %two : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8x32xf32>
  %var = msgraph.reduce_mean %sq {axes = array<i64: -1>} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %eps = msgraph.constant dense<1.0e-5> : tensor<f32>
  %ve = msgraph.add %var, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %s = msgraph.sqrt %ve : tensor<2x8x1xf32>
  %n = msgraph.div %d, %s : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %m = msgraph.mul %n, %g : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %o = msgraph.add %m, %b : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  return %o : tensor<2x8x32xf32>
}

// -----

// Softmax written as ops: the row maximum, the shifted exponentials, their
// row sum and the division are one group.
// CHECK-LABEL: func @main
// CHECK: msfusion.group(%{{.*}} : tensor<4x16xf32>) -> (tensor<4x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.reduce_max
// CHECK-NEXT: msgraph.sub
// CHECK-NEXT: msgraph.exp
// CHECK-NEXT: msgraph.reduce_sum
// CHECK-NEXT: msgraph.div
// CHECK-NEXT: msfusion.yield
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %m = msgraph.reduce_max %x {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %d = msgraph.sub %x, %m : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %e = msgraph.exp %d : tensor<4x16xf32>
  %s = msgraph.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %o = msgraph.div %e, %s : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// RMSNorm as LLaMA writes it: the squares, their row mean, the reciprocal
// square root and both scalings are one group. A reduction of other rows
// (here a column sum of the output) does not join: it starts its own.
// CHECK-LABEL: func @main
// CHECK: %[[N:.+]] = msfusion.group(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.mul
// CHECK-NEXT: msgraph.reduce_mean
// CHECK-NEXT: msgraph.constant
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msgraph.sqrt
// CHECK-NEXT: msgraph.reciprocal
// CHECK-NEXT: msgraph.mul
// CHECK-NEXT: msgraph.mul
// CHECK-NEXT: msfusion.yield
// CHECK: msgraph.reduce_sum %[[N]]
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<1x16xf32>) {
  %sq = msgraph.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ms = msgraph.reduce_mean %sq {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %eps = msgraph.constant dense<1.0e-6> : tensor<f32>
  %a = msgraph.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = msgraph.sqrt %a : tensor<4x1xf32>
  %r = msgraph.reciprocal %s : tensor<4x1xf32>
  %n = msgraph.mul %x, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %o = msgraph.mul %n, %w : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %c = msgraph.reduce_sum %o {axes = array<i64: 0>} : (tensor<4x16xf32>) -> tensor<1x16xf32>
  return %o, %c : tensor<4x16xf32>, tensor<1x16xf32>
}

// -----

// Two heavy ops never share a group; a matmul does not absorb producers
// (they would be recomputed for every output column).
// CHECK-LABEL: func @main
// CHECK: msgraph.exp
// CHECK-NEXT: msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: msgraph.relu
// CHECK-NEXT: msfusion.yield
// CHECK: msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: msgraph.relu
// CHECK-NEXT: msfusion.yield
func.func @main(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = msgraph.exp %x : tensor<8x8xf32>
  %0 = msgraph.matmul %e, %x : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = msgraph.relu %0 : tensor<8x8xf32>
  %2 = msgraph.matmul %1, %x : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = msgraph.relu %2 : tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// -----

// A member used outside the group becomes an extra result; a value used
// twice inside is computed once.
// CHECK-LABEL: func @main
// CHECK: %[[G:.+]]:2 = msfusion.group(%{{.*}} : tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
// CHECK: %[[E:.+]] = msgraph.exp
// CHECK: %[[M:.+]] = msgraph.mul %[[E]], %[[E]]
// CHECK: msfusion.yield %[[E]], %[[M]]
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @main(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = msgraph.exp %x : tensor<16xf32>
  %1 = msgraph.mul %0, %0 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<16xf32>
}

// -----

// A transpose (computed in its own kernel) between two members would make
// the group depend on itself: the add starts a second chain.
// CHECK-LABEL: func @main
// CHECK: %[[A:.+]] = msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.exp
// CHECK-NEXT: msgraph.neg
// CHECK-NEXT: msfusion.yield
// CHECK: %[[T:.+]] = msgraph.transpose %[[A]]
// CHECK: msfusion.group(%[[A]], %[[T]] : tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msgraph.abs
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = msgraph.exp %x : tensor<4x4xf32>
  %1 = msgraph.neg %0 : tensor<4x4xf32>
  %2 = msgraph.transpose %1 {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = msgraph.add %1, %2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = msgraph.abs %3 : tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}

// -----

// Small constants and splats are cloned into the group (the originals,
// now unused, disappear); a large constant stays a weight and an input.
// CHECK-LABEL: func @main
// CHECK: %[[W:.+]] = msgraph.constant dense<{{.*}}> : tensor<16x2xf32>
// CHECK-NOT: msgraph.constant
// CHECK: msfusion.group(%{{.*}}, %[[W]] : tensor<16x2xf32>, tensor<16x2xf32>)
// CHECK: msgraph.constant dense<2.000000e+00> : tensor<16x2xf32>
// CHECK: msgraph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @main(%x: tensor<16x2xf32>) -> tensor<16x2xf32> {
  %two = msgraph.constant dense<2.0> : tensor<16x2xf32>
  %small = msgraph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %big = msgraph.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0], [20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0], [30.0, 31.0]]> : tensor<16x2xf32>
  %0 = msgraph.mul %x, %two : (tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
  %1 = msgraph.add %0, %small : (tensor<16x2xf32>, tensor<2xf32>) -> tensor<16x2xf32>
  %2 = msgraph.add %1, %big : (tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
  %3 = msgraph.exp %2 : tensor<16x2xf32>
  return %3 : tensor<16x2xf32>
}

// -----

// Nothing to fuse: a lone op, a host-executed op, a dynamic shape and an
// empty tensor each stay as at O0.
// CHECK-LABEL: func @main
// CHECK-NOT: msfusion.group
func.func @main(%x: tensor<4xf32>, %s: tensor<4x!msgraph.string>, %d: tensor<?xf32>, %e: tensor<0xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<?xf32>, tensor<0xf32>) {
  %0 = msgraph.exp %x : tensor<4xf32>
  %1 = msgraph.string_equal %s, %s : (tensor<4x!msgraph.string>, tensor<4x!msgraph.string>) -> tensor<4xi1>
  %2 = msgraph.not %1 : tensor<4xi1>
  %3 = msgraph.exp %d : tensor<?xf32>
  %4 = msgraph.neg %3 : tensor<?xf32>
  %5 = msgraph.exp %e : tensor<0xf32>
  %6 = msgraph.neg %5 : tensor<0xf32>
  return %0, %2, %4, %6 : tensor<4xf32>, tensor<4xi1>, tensor<?xf32>, tensor<0xf32>
}

// -----

// F7's exception: a lone softmax or layer normalization is a group of one,
// whose loop nests (maxima, exponentials, sums, quotients) fuse into one
// kernel; a lone matmul stays as at O0.
// CHECK-LABEL: func @alone
// CHECK: msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.softmax
// CHECK-NEXT: msfusion.yield
// CHECK: msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.layer_norm
// CHECK-NEXT: msfusion.yield
// CHECK-NOT: msfusion.group
// CHECK: msgraph.matmul
func.func @alone(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = msgraph.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  %1 = msgraph.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = msgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Two chains meet: the op that joins them merges them into one group.
// CHECK-LABEL: func @main
// CHECK: msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.exp
// CHECK-NEXT: msgraph.neg
// CHECK-NEXT: msgraph.abs
// CHECK-NEXT: msgraph.sqrt
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msfusion.yield
// CHECK-NOT: msfusion.group
func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = msgraph.exp %x : tensor<8xf32>
  %1 = msgraph.neg %0 : tensor<8xf32>
  %2 = msgraph.abs %y : tensor<8xf32>
  %3 = msgraph.sqrt %2 : tensor<8xf32>
  %4 = msgraph.add %1, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// Attention heads: the projection's bias add, the split into heads
// (reshape) and the transpose join the matmul's group, which writes the
// heads' layout directly; an elementwise op after the transpose does not
// (another shape).
// CHECK-LABEL: func @main
// CHECK: %[[G:.+]] = msfusion.group(%{{.*}}, %{{.*}}, %{{.*}} : tensor<128x96xf32>, tensor<96x96xf32>, tensor<96xf32>) -> (tensor<4x128x24xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msgraph.reshape
// CHECK-NEXT: msgraph.transpose
// CHECK-NEXT: msfusion.yield
// CHECK: msgraph.exp %[[G]]
func.func @main(%x: tensor<128x96xf32>, %w: tensor<96x96xf32>, %b: tensor<96xf32>) -> tensor<4x128x24xf32> {
  %0 = msgraph.matmul %x, %w : (tensor<128x96xf32>, tensor<96x96xf32>) -> tensor<128x96xf32>
  %1 = msgraph.add %0, %b : (tensor<128x96xf32>, tensor<96xf32>) -> tensor<128x96xf32>
  %2 = msgraph.reshape %1 : (tensor<128x96xf32>) -> tensor<128x4x24xf32>
  %3 = msgraph.transpose %2 {permutation = array<i64: 1, 0, 2>} : (tensor<128x4x24xf32>) -> tensor<4x128x24xf32>
  %4 = msgraph.exp %3 : tensor<4x128x24xf32>
  return %4 : tensor<4x128x24xf32>
}

// -----

// F2c: the residual sum after a matmul is written out anyway (the norm and
// the next residual read it), so the square only the RMSNorm's reduction
// reads is left to the norm's group, which computes it in its loop.
// Without other users (next case), the matmul's group takes the consumer
// as usual.
// CHECK-LABEL: func @main
// CHECK: %[[H:.+]] = msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: msfusion.yield
// CHECK: msfusion.group(%[[H]], %{{.*}} : tensor<4x16xf32>, tensor<16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.mul
// CHECK-NEXT: msgraph.reduce_mean
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %g: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %m = msgraph.matmul %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %h = msgraph.add %x, %m : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sq = msgraph.mul %h, %h : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ms = msgraph.reduce_mean %sq {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r = msgraph.sqrt %ms : tensor<4x1xf32>
  %n = msgraph.div %h, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %o = msgraph.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %h, %o : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @main
// CHECK: msfusion.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: msgraph.exp
// CHECK-NEXT: msfusion.yield
// CHECK: msgraph.reduce_sum
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<4x1xf32> {
  %m = msgraph.matmul %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %e = msgraph.exp %m : tensor<4x16xf32>
  %s = msgraph.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}
