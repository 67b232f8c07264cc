// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<8f', *range(8)))" %t.bin
// RUN: sed "s|@FILE@|%t.bin|" %s | ms-opt -split-input-file -verify-diagnostics

// Errors of the #msgraph.mapped attribute (mapped_c1, mapped_c2) and of a
// file that cannot be mapped. The file holds 32 bytes.

func.func @invalid() {
  // expected-error @+1 {{expected a static type of integers or floats of whole bytes, but found 'tensor<2xi1>'}}
  %c = msgraph.constant #msgraph.mapped<"@FILE@", offset = 0> : tensor<2xi1>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected the 32 bytes of 'tensor<8xf32>' at offset 4 of}}
  %c = msgraph.constant #msgraph.mapped<"@FILE@", offset = 4> : tensor<8xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected the bytes of 'tensor<4611686018427387904x8xf32>' at offset 0 of}}
  %c = msgraph.constant #msgraph.mapped<"@FILE@", offset = 0> : tensor<4611686018427387904x8xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{cannot map '@FILE@.missing': No such file or directory}}
  %c = msgraph.constant #msgraph.mapped<"@FILE@.missing", offset = 0> : tensor<2xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected a dense or mapped source, but found}}
  %r = msgraph.constant #msgraph.relayout<#msgraph.relayout<dense<1.0> : tensor<2x2xf32>, shape = [2, 2], permutation = [1, 0]> : tensor<2x2xf32>, shape = [2, 2], permutation = [1, 0]> : tensor<2x2xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{cannot map '/': not a regular file}}
  %c = msgraph.constant #msgraph.mapped<"/", offset = 0> : tensor<2xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected a ranked tensor type after #msgraph.mapped, but found 'memref<2xf32>'}}
  %c = msgraph.constant #msgraph.mapped<"@FILE@", offset = 0> : memref<2xf32>
  return
}
