// RUN: ms-opt %s -split-input-file -verify-diagnostics
// Each msdist attribute verifier diagnostic (docs/spec/msdist.md).

// expected-error @+1 {{expected one axis name per mesh dim (mesh_c1), but found 2 dims and 1 names}}
module attributes {msdist.mesh = #msdist.mesh<shape = [2, 2], axes = ["dp"]>} {}

// -----

// expected-error @+1 {{expected mesh dims in [1, 4096] (mesh_c2), but found 0}}
module attributes {msdist.mesh = #msdist.mesh<shape = [0], axes = ["dp"]>} {}

// -----

// expected-error @+1 {{expected distinct non-empty axis names (mesh_c3), but found "dp"}}
module attributes {msdist.mesh = #msdist.mesh<shape = [2, 2], axes = ["dp", "dp"]>} {}

// -----

// expected-error @+1 {{expected each dim of a spec to be a list of axis names, but found 0 : i64}}
func.func @spec(%x: tensor<8xf32> {msdist.spec = #msdist.spec<[0]>}) {
  return
}
