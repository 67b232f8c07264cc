func.func @f() attributes {a = array<index: 2, 2>} { return }
