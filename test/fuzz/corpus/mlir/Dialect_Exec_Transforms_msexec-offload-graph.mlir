
// Declarations move to the top; launches and copies around a host step
// form two offloaded graphs.
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
      return %a : tensor<4xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(2) {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %s = msexec.input 1 "s" : !msexec.buffer<tensor<2x!msgraph.string>>
  %a = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@k(%x, %a) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  msexec.copy %a to %y : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
  %e = msexec.output 1 "e" : !msexec.buffer<tensor<2xi1>>
  msexec.host "msgraph.string_equal" ins(%s, %s : !msexec.buffer<tensor<2x!msgraph.string>>, !msexec.buffer<tensor<2x!msgraph.string>>) outs(%e : !msexec.buffer<tensor<2xi1>>) {}
  msexec.launch @cpu::@k(%a, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}

// -----

// Steps on different queues are separate graphs.
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
      return %a : tensor<4xf32>
    }
  }
}
msexec.plan @queues target("cpu") opt_level(2) {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %z = msexec.output 1 "z" : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@k(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@k(%x, %z) {queue = 1 : i64} : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}
