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
