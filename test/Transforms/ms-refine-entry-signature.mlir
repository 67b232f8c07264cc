// RUN: ms-opt %s -split-input-file -ms-refine-entry-signature -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @main(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: tensor.cast
// CHECK: return %{{.*}} : tensor<4xf32>
func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = msgraph.exp %x : tensor<4xf32>
  %1 = tensor.cast %0 : tensor<4xf32> to tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// A cast that is also used elsewhere stays.
// CHECK-LABEL: func @main(%{{.*}}: tensor<4xf32>) -> (tensor<4xf32>, tensor<?xf32>)
// CHECK: %[[C:.+]] = tensor.cast
// CHECK: msgraph.neg %[[C]]
// CHECK: return %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<?xf32>
func.func @main(%x: tensor<4xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = msgraph.exp %x : tensor<4xf32>
  %1 = tensor.cast %0 : tensor<4xf32> to tensor<?xf32>
  %2 = msgraph.neg %1 : tensor<?xf32>
  return %1, %2 : tensor<?xf32>, tensor<?xf32>
}

// -----

// expected-error @+1 {{expected @main or exactly one public function as the entry, but found 0 public functions}}
module {
  func.func private @helper()
}
