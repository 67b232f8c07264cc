// RUN: ms-opt %s -split-input-file -ms-build-plan -verify-diagnostics | FileCheck %s

// Kernels move into the executable; the entry becomes the plan. The last
// kernel writes the caller's output directly.
// CHECK-LABEL: msexec.executable @cpu target("cpu")
// CHECK: func.func @kernel_0
// CHECK: func.func @kernel_1
// CHECK-LABEL: msexec.plan @main target("cpu") opt_level(0)
// CHECK: %[[X:.+]] = msexec.input 0 "x" : <tensor<4xf32>>
// CHECK: %[[W:.+]] = msexec.weight dense<1.000000e+00> : tensor<4xf32> : <tensor<4xf32>>
// CHECK: %[[T:.+]] = msexec.alloc : <tensor<4xf32>>
// CHECK: msexec.launch @cpu::@kernel_0(%[[X]], %[[W]], %[[T]]) {source_op = "msgraph.add"}
// CHECK: %[[Y:.+]] = msexec.output 0 "output_0" : <tensor<4xf32>>
// CHECK: msexec.launch @cpu::@kernel_1(%[[T]], %[[Y]])
// CHECK-NOT: func.func @main
func.func @main(%x: tensor<4xf32> {ms.name = "x"}) -> tensor<4xf32> {
  %c = msgraph.constant dense<1.0> : tensor<4xf32>
  %0 = call @kernel_0(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = call @kernel_1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func @kernel_0(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
  %0 = msgraph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @kernel_1(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
  %0 = msgraph.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An input returned directly, and a value returned twice, are copied.
// CHECK-LABEL: msexec.plan @main
// CHECK: %[[X:.+]] = msexec.input 0
// CHECK: %[[Y0:.+]] = msexec.output 0 "output_0"
// CHECK: msexec.launch @cpu::@kernel_0(%[[X]], %[[Y0]])
// CHECK: %[[Y1:.+]] = msexec.output 1 "output_1"
// CHECK: msexec.copy %[[Y0]] to %[[Y1]]
// CHECK: %[[Y2:.+]] = msexec.output 2 "output_2"
// CHECK: msexec.copy %[[X]] to %[[Y2]]
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = call @kernel_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %0, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func @kernel_0(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
  %0 = msgraph.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Host-executed ops become host steps; a data-dependent result gets a
// capacity and may only be returned.
// CHECK-LABEL: msexec.plan @main
// CHECK: %[[S:.+]] = msexec.input 0
// CHECK: %[[O:.+]] = msexec.output 0 "output_0" {capacity = 3 : i64} : <tensor<?x!msgraph.string>>
// CHECK: msexec.host "msgraph.string_normalizer" ins(%[[S]] : !msexec.buffer<tensor<3x!msgraph.string>>) outs(%[[O]] : !msexec.buffer<tensor<?x!msgraph.string>>) {case_change_action = "LOWER"
func.func @main(%s: tensor<3x!msgraph.string>) -> tensor<?x!msgraph.string> {
  %0 = msgraph.string_normalizer %s {case_change_action = "LOWER", stopwords = []} : (tensor<3x!msgraph.string>) -> tensor<?x!msgraph.string>
  return %0 : tensor<?x!msgraph.string>
}

// -----

func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @-1 {{expected a statically shaped tensor of a supported element type, but found 'tensor<?xf32>'}}
  return %x : tensor<?xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected a call of an outlined kernel, but found a call of @helper}}
  %0 = call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unexpected op in the entry function after kernel outlining: msgraph.exp}}
  %0 = msgraph.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Collectives of a partitioned graph become collective steps over the groups
// of ranks their grid axes name: on a 2x2 grid, axis 1 pairs ranks 0-1 and
// 2-3, axis 0 pairs 0-2 and 1-3. The plan runs on 4 ranks; the grid is gone.
// CHECK-LABEL: msexec.plan @main target("cpu") opt_level(0) attributes {ranks = 4 : i64}
// CHECK: %[[X:.+]] = msexec.input 0
// CHECK: %[[S:.+]] = msexec.alloc : <tensor<4x4xf32>>
// CHECK: msexec.collective "all_slice" %[[X]] to %[[S]] {axis = 1 : i64} {groups = [array<i64: 0, 1>, array<i64: 2, 3>]}
// CHECK: %[[R:.+]] = msexec.alloc : <tensor<4x4xf32>>
// CHECK: msexec.collective "all_reduce" %[[S]] to %[[R]] {reduction = "sum"} {groups = [array<i64: 0, 2>, array<i64: 1, 3>]}
// CHECK: %[[O:.+]] = msexec.output 0
// CHECK: msexec.collective "all_gather" %[[R]] to %[[O]] {axis = 1 : i64} {groups = [array<i64: 0, 1>, array<i64: 2, 3>]}
// CHECK-NOT: shard.grid
shard.grid @mesh(shape = 2x2)
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = shard.all_slice %x on @mesh grid_axes = [1] slice_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
  %r = shard.all_reduce %s on @mesh grid_axes = [0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %g = shard.all_gather %r on @mesh grid_axes = [1] gather_axis = 1 : tensor<4x4xf32> -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

// A weight's all_slice is cut at compile time: one block per rank (rank r's
// at position r of the leading dim), and the whole weight is not stored.
// On a 2x2 grid, slicing over axis 0 gives ranks 0 and 1 row 0, ranks 2
// and 3 row 1.
// CHECK-LABEL: msexec.plan @main
// CHECK-NOT: tensor<2x32xf32>
// CHECK: %[[W:.+]] = msexec.weight dense<"0x000000000000803F{{[0-9A-F]+}}"> : tensor<4x1x32xf32> {per_rank} : <tensor<1x32xf32>>
// CHECK-NOT: msexec.collective
// CHECK: msexec.launch @cpu::@kernel_0(%{{.*}}, %[[W]], %{{.*}})
shard.grid @mesh(shape = 2x2)
func.func @main(%x: tensor<1x32xf32>) -> tensor<1x32xf32> {
  %w = msgraph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<2x32xf32>
  %s = shard.all_slice %w on @mesh grid_axes = [0] slice_axis = 0 : tensor<2x32xf32> -> tensor<1x32xf32>
  %y = call @kernel_0(%x, %s) : (tensor<1x32xf32>, tensor<1x32xf32>) -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}
func.func private @kernel_0(%a: tensor<1x32xf32>, %b: tensor<1x32xf32>) -> tensor<1x32xf32> attributes {ms.kernel} {
  %0 = msgraph.add %a, %b : (tensor<1x32xf32>, tensor<1x32xf32>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected a sum, product, max or min reduction, but found average}}
  %r = shard.all_reduce %x on @mesh grid_axes = [0] reduction = average : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A constant whose bytes lie in an external-data file (msgraph.external_data,
// which the pass consumes) stays there when its offset is 64-byte aligned;
// one at an unaligned offset is held in the module, with a warning. A
// constant computed from it (another value) is not in the file.
// CHECK-LABEL: module {
// CHECK-NOT: msgraph.external_data
// CHECK-LABEL: msexec.plan @main
// CHECK: msexec.weight dense<1.000000e+00> : tensor<16xf32> {file = "/d/m.onnx.data", file_offset = 4096 : i64}
// CHECK: msexec.weight dense<2.000000e+00> : tensor<16xf32> :
// CHECK: msexec.weight dense<3.000000e+00> : tensor<16xf32> :
// A relayout of a constant in the file (a packed weight) refers to the
// file too: the runtime lays it out as it loads the module.
// CHECK: msexec.weight #msgraph.relayout<dense<1.000000e+00> : tensor<16xf32>, shape = [2, 8], permutation = [1, 0]> : tensor<8x2xf32> {file = "/d/m.onnx.data", file_offset = 4096 : i64}
module attributes {msgraph.external_data = [
    ["/d/m.onnx.data", 4096 : i64, 64 : i64, dense<1.0> : tensor<16xf32>],
    ["/d/m.onnx.data", 100 : i64, 64 : i64, dense<2.0> : tensor<16xf32>]]} {
  // expected-warning @+1 {{1 weights (64 bytes) from external-data files are copied into the module: expected their offsets in the file to be multiples of 64 (utils/onnx-external-data aligns them)}}
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %a = msgraph.constant dense<1.0> : tensor<16xf32>
    %b = msgraph.constant dense<2.0> : tensor<16xf32>
    %c = msgraph.constant dense<3.0> : tensor<16xf32>
    %d = msgraph.constant #msgraph.relayout<dense<1.0> : tensor<16xf32>, shape = [2, 8], permutation = [1, 0]> : tensor<8x2xf32>
    %0 = call @kernel_0(%x, %a, %b, %c, %d) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x2xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
  func.func @kernel_0(%x: tensor<16xf32>, %a: tensor<16xf32>, %b: tensor<16xf32>, %c: tensor<16xf32>, %d: tensor<8x2xf32>) -> tensor<16xf32> attributes {ms.kernel} {
    return %x : tensor<16xf32>
  }
}

// -----

// expected-error @+1 {{expected entry 0 of msgraph.external_data to be [path, offset, length, value], but found ["/d/m.onnx.data", 4096]}}
module attributes {msgraph.external_data = [["/d/m.onnx.data", 4096]]} {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    return %x : tensor<16xf32>
  }
}
