// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<8f', *range(8)))" %t.bin
// RUN: sed "s|@FILE@|%t.bin|" %s | ms-opt | ms-opt | FileCheck %s -DFILE=%t.bin
// RUN: sed "s|@FILE@|%t.bin|" %s | ms-opt -canonicalize | FileCheck %s --check-prefix=FOLD -DFILE=%t.bin

// A constant read in place from a mapped file (#msgraph.mapped)
// round-trips; the file holds the floats 0..7.

// CHECK-LABEL: func.func @mapped
// CHECK: msgraph.constant #msgraph.mapped<"[[FILE]]", offset = 8> : tensor<2x3xf32>
// CHECK: msgraph.constant #msgraph.relayout<#msgraph.mapped<"[[FILE]]", offset = 0> : tensor<2x4xf32>, shape = [2, 4], permutation = [1, 0]> : tensor<4x2xf32>

// Folding: a reshape keeps the bytes where they are; other folds read the
// values (floats 2..7, transposed).
// FOLD-LABEL: func.func @mapped
// FOLD-DAG: msgraph.constant #msgraph.mapped<"[[FILE]]", offset = 8> : tensor<6xf32>
// FOLD-DAG: msgraph.constant dense<{{\[}}[2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00], [4.000000e+00, 7.000000e+00]]> : tensor<3x2xf32>
func.func @mapped() -> (tensor<2x3xf32>, tensor<4x2xf32>, tensor<6xf32>, tensor<3x2xf32>) {
  %a = msgraph.constant #msgraph.mapped<"@FILE@", offset = 8> : tensor<2x3xf32>
  %b = msgraph.constant #msgraph.relayout<#msgraph.mapped<"@FILE@", offset = 0> : tensor<2x4xf32>, shape = [2, 4], permutation = [1, 0]> : tensor<4x2xf32>
  %c = msgraph.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>
  %d = msgraph.transpose %a {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %a, %b, %c, %d : tensor<2x3xf32>, tensor<4x2xf32>, tensor<6xf32>, tensor<3x2xf32>
}
