// RUN: ms-opt %s | ms-opt | FileCheck %s
// msdist attributes and ops round-trip.

// CHECK: module attributes {msdist.mesh = #msdist.mesh<shape = [2, 2], axes = ["dp", "tp"]>}
module attributes {msdist.mesh = #msdist.mesh<shape = [2, 2], axes = ["dp", "tp"]>} {
  // CHECK: func.func @main(%{{.*}}: tensor<8x16xf32> {msdist.spec = #msdist.spec<{{\[}}["dp"], []]>})
  func.func @main(%x: tensor<8x16xf32> {msdist.spec = #msdist.spec<[["dp"], []]>}) -> tensor<8x16xf32> {
    // CHECK: msdist.constraint %{{.*}} {spec = #msdist.spec<{{\[}}["dp", "tp"]]>} : tensor<8x16xf32>
    %y = msdist.constraint %x {spec = #msdist.spec<[["dp", "tp"]]>} : tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
