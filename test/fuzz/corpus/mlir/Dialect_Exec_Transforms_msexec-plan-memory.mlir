
// A chain: %a (steps 0..1) and %c (steps 2..3) do not overlap and share
// offset 0; %b (steps 1..2) overlaps both. Weights are packed 64-byte
// aligned.
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<16xf32>) -> tensor<16xf32> attributes {ms.kernel} {
      return %a : tensor<16xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<16xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<16xf32>>
  %w0 = msexec.weight dense<1.0> : tensor<4xf32> : !msexec.buffer<tensor<4xf32>>
  %w1 = msexec.weight dense<2.0> : tensor<20xf32> : !msexec.buffer<tensor<20xf32>>
  %a = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  %b = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  %c = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%x, %a) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%a, %b) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%b, %c) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%c, %y) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
}
