// RUN: ms-opt %s -split-input-file -verify-diagnostics

func.func @arg_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected the body's arguments to have the inputs' types (group_c1), but found 1 arguments for 1 inputs}}
  %r = msfusion.group(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %0 = msgraph.exp %a : tensor<8xf32>
    %1 = msgraph.neg %0 : tensor<8xf32>
    msfusion.yield %1 : tensor<8xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected msfusion.yield to yield the results' types (group_c2), but found 2 values for 1 results}}
  %r = msfusion.group(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %0 = msgraph.exp %a : tensor<4xf32>
    %1 = msgraph.neg %0 : tensor<4xf32>
    msfusion.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected at least one result (group_c2)}}
  "msfusion.group"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %0 = msgraph.exp %a : tensor<4xf32>
    msfusion.yield
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @yield_argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected each result to be computed in the body, but a block argument is yielded (group_c3)}}
  %r = msfusion.group(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %0 = msgraph.exp %a : tensor<4xf32>
    msfusion.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{expected each value to be yielded once (group_c3)}}
  %r:2 = msfusion.group(%x : tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %0 = msgraph.exp %a : tensor<4xf32>
    msfusion.yield %0, %0 : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @not_msgraph(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = msfusion.group(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{expected only msgraph ops in an msfusion.group (group_c4)}}
    %0 = tensor.empty() : tensor<4xf32>
    %1 = msgraph.add %a, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    msfusion.yield %1 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @host_op(%x: tensor<4x!msgraph.string>) -> tensor<4xi1> {
  %r = msfusion.group(%x : tensor<4x!msgraph.string>) -> (tensor<4xi1>) {
  ^bb0(%a: tensor<4x!msgraph.string>):
    // expected-error @+1 {{expected no host-executed or side-effecting op in an msfusion.group (group_c4)}}
    %0 = msgraph.string_equal %a, %a : (tensor<4x!msgraph.string>, tensor<4x!msgraph.string>) -> tensor<4xi1>
    %1 = msgraph.not %0 : tensor<4xi1>
    msfusion.yield %1 : tensor<4xi1>
  }
  return %r : tensor<4xi1>
}

// -----

func.func @only_constants() -> tensor<4xf32> {
  // expected-error @+1 {{expected at least one op other than a constant (group_c5)}}
  %r = msfusion.group() -> (tensor<4xf32>) {
    %c = msgraph.constant dense<1.0> : tensor<4xf32>
    msfusion.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @two_roots(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected at most one root op, or row reductions of one shape, but found 2 (group_c6)}}
  %r = msfusion.group(%x : tensor<4x4xf32>) -> (tensor<4x4xf32>) {
  ^bb0(%a: tensor<4x4xf32>):
    %0 = msgraph.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = msgraph.matmul %0, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    msfusion.yield %1 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

func.func @reduction_of_reduced_rows(%x: tensor<4x4xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{expected at most one root op, or row reductions of one shape, but found 2 (group_c6)}}
  %r = msfusion.group(%x : tensor<4x4xf32>) -> (tensor<4x1xf32>) {
  ^bb0(%a: tensor<4x4xf32>):
    %0 = msgraph.reduce_sum %a {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %1 = msgraph.reduce_max %0 {axes = array<i64: 1>} : (tensor<4x1xf32>) -> tensor<4x1xf32>
    msfusion.yield %1 : tensor<4x1xf32>
  }
  return %r : tensor<4x1xf32>
}

// -----

func.func @empty_input(%x: tensor<0xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{expected statically shaped inputs and results with elements (group_c7), but found 'tensor<0xf32>'}}
  %r = msfusion.group(%x : tensor<0xf32>) -> (tensor<0xf32>) {
  ^bb0(%a: tensor<0xf32>):
    %0 = msgraph.exp %a : tensor<0xf32>
    msfusion.yield %0 : tensor<0xf32>
  }
  return %r : tensor<0xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'msfusion.yield' op expects parent op 'msfusion.group'}}
  msfusion.yield %x : tensor<4xf32>
}
