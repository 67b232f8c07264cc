// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for the string ops (string_normalizer, string_equal,
// string_concat) and the !msgraph.string type.

// CHECK-LABEL: func @normalizer_stopwords
// CHECK: msgraph.string_normalizer %{{.*}} {case_change_action = "UPPER", stopwords = ["monday"]} : (tensor<4x!msgraph.string>) -> tensor<?x!msgraph.string>
func.func @normalizer_stopwords(%x: tensor<4x!msgraph.string>) -> tensor<?x!msgraph.string> {
  %r = msgraph.string_normalizer %x {case_change_action = "UPPER", stopwords = ["monday"]} : (tensor<4x!msgraph.string>) -> tensor<?x!msgraph.string>
  return %r : tensor<?x!msgraph.string>
}

// -----

// Without stop words every word is kept: the result has the input's shape.
// CHECK-LABEL: func @normalizer_two_dim
// CHECK: msgraph.string_normalizer %{{.*}} {case_change_action = "LOWER", is_case_sensitive = true} : (tensor<1x3x!msgraph.string>) -> tensor<1x3x!msgraph.string>
func.func @normalizer_two_dim(%x: tensor<1x3x!msgraph.string>) -> tensor<1x3x!msgraph.string> {
  %r = msgraph.string_normalizer %x {case_change_action = "LOWER", is_case_sensitive = true} : (tensor<1x3x!msgraph.string>) -> tensor<1x3x!msgraph.string>
  return %r : tensor<1x3x!msgraph.string>
}

// -----

// CHECK-LABEL: func @equal_concat
// CHECK: msgraph.string_equal %{{.*}}, %{{.*}} : (tensor<2x3x!msgraph.string>, tensor<3x!msgraph.string>) -> tensor<2x3xi1>
// CHECK: msgraph.string_concat %{{.*}}, %{{.*}} : (tensor<2x3x!msgraph.string>, tensor<!msgraph.string>) -> tensor<2x3x!msgraph.string>
func.func @equal_concat(%x: tensor<2x3x!msgraph.string>, %y: tensor<3x!msgraph.string>, %s: tensor<!msgraph.string>) -> (tensor<2x3xi1>, tensor<2x3x!msgraph.string>) {
  %e = msgraph.string_equal %x, %y : (tensor<2x3x!msgraph.string>, tensor<3x!msgraph.string>) -> tensor<2x3xi1>
  %c = msgraph.string_concat %x, %s : (tensor<2x3x!msgraph.string>, tensor<!msgraph.string>) -> tensor<2x3x!msgraph.string>
  return %e, %c : tensor<2x3xi1>, tensor<2x3x!msgraph.string>
}
