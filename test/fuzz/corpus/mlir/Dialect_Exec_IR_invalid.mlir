
msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<?xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc {capacity = -2 : i64} : !msexec.buffer<tensor<?xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %w = msexec.weight dense<1.0> : tensor<2xf32> : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  %b = msexec.alloc : !msexec.buffer<tensor<2xf32>>
  msexec.copy %a to %b : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<2xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
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
  msexec.launch @cpu::@k(%a, %b) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<8xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %e = msexec.signal : !msexec.event
  msexec.offload {
    msexec.wait %e
  }
}

// -----

msexec.executable @cpu target("cpu") {
}

// -----

msexec.plan @main target("cpu") opt_level(0) {
  %c = arith.constant 0 : i32
}
