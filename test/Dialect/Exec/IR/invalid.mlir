// RUN: ms-opt %s -split-input-file -verify-diagnostics

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{expected a capacity for a buffer of dynamic type 'tensor<?xf32>'}}
  %a = msexec.alloc : !msexec.buffer<tensor<?xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{expected a non-negative capacity, but found -2}}
  %a = msexec.alloc {capacity = -2 : i64} : !msexec.buffer<tensor<?xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{expected a value of type 'tensor<4xf32>', but found 'tensor<2xf32>'}}
  %w = msexec.weight dense<1.0> : tensor<2xf32> : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{expected both file and file_offset, or neither}}
  %w = msexec.weight dense<1.0> : tensor<4xf32> {file = "w.bin"} : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{expected a weight in a file to have no per_rank and no offset in the weights section}}
  %w = msexec.weight dense<1.0> : tensor<4xf32> {file = "w.bin", file_offset = 0 : i64, offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{expected a file_offset that is a non-negative multiple of 64, but found 100}}
  %w = msexec.weight dense<1.0> : tensor<4xf32> {file = "w.bin", file_offset = 100 : i64} : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  %b = msexec.alloc : !msexec.buffer<tensor<2xf32>>
  // expected-error @+1 {{expected buffers of one type, but found '!msexec.buffer<tensor<4xf32>>' and '!msexec.buffer<tensor<2xf32>>'}}
  msexec.copy %a to %b : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<2xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  // expected-error @+1 {{expected a kernel @executable::@function, but found @cpu::@nope, which names none}}
  msexec.launch @cpu::@nope(%a) : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  // expected-error @+1 {{expected 2 buffers for kernel @cpu::@k (its operands, then its results), but found 1}}
  msexec.launch @cpu::@k(%a) : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  %b = msexec.alloc : !msexec.buffer<tensor<8xf32>>
  // expected-error @+1 {{expected buffer 1 of kernel @cpu::@k to hold 'tensor<4xf32>', but found 'tensor<8xf32>'}}
  msexec.launch @cpu::@k(%a, %b) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<8xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %e = msexec.signal : !msexec.event
  msexec.offload {
    // expected-error @+1 {{is not allowed in an offloaded graph; expected launches and copies}}
    msexec.wait %e
  }
}

// -----

// expected-error @+1 {{expected the body to hold exactly one builtin.module}}
msexec.executable @cpu target("cpu") {
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{is not allowed in a plan; expected msexec ops}}
  %c = arith.constant 0 : i32
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  // expected-error @+1 {{expected a body, but found @layer, which names none}}
  msexec.call @layer(%a) : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.body @layer {
^bb0(%a: !msexec.buffer<tensor<4xf32>>):
}
msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<8xf32>>
  // expected-error @+1 {{expected buffers '!msexec.buffer<tensor<4xf32>>' for body @layer, but found '!msexec.buffer<tensor<8xf32>>'}}
  msexec.call @layer(%a) : !msexec.buffer<tensor<8xf32>>
}

// -----

// expected-error @+1 {{expected buffer arguments, but argument 0 is 'i32'}}
msexec.body @layer {
^bb0(%a: i32):
}

// -----

msexec.body @layer {
^bb0(%a: !msexec.buffer<tensor<4xf32>>):
  // expected-error @+1 {{is not allowed in a body; expected launches and copies}}
  %e = msexec.signal : !msexec.event
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  // expected-error @+1 {{expects parent op 'builtin.module'}}
  msexec.body @layer {
  ^bb0(%a: !msexec.buffer<tensor<4xf32>>):
  }
}
