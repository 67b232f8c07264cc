// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.attention (attention_c1 .. attention_c5).

func.func @invalid(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) {
  // expected-error @+1 {{expected query of rank 4 (batch x heads x sequence x head size), but found 'tensor<4x8x16xf32>'}}
  %r = msgraph.attention %q, %k, %v : (tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected key element type 'f32', but found 'f16'}}
  %r = msgraph.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<2x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected one batch size, but found}}
  %r = msgraph.attention %q, %k, %v : (tensor<2x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x9x16xf32>) {
  // expected-error @+1 {{expected key and value of the same heads and length, but found 'tensor<1x4x8x16xf32>' and 'tensor<1x4x9x16xf32>'}}
  %r = msgraph.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x9x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x6x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected query heads (6) to be a multiple of key/value heads (4)}}
  %r = msgraph.attention %q, %k, %v : (tensor<1x6x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x6x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x32xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected query and key of one head size, but found 16 and 32}}
  %r = msgraph.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<1x4x8x16xf16>) {
  // expected-error @+1 {{expected mask element type 'f32', but found 'f16'}}
  %r = msgraph.attention %q, %k, %v, %m : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf16>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<8x8xf32>) {
  // expected-error @+1 {{expected a rank-4 mask whose dims are 1 or [1, 4, 8, 8], but found 'tensor<8x8xf32>'}}
  %r = msgraph.attention %q, %k, %v, %m : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<8x8xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected a finite non-zero scale, but found 0}}
  %r = msgraph.attention %q, %k, %v {scale = 0.0 : f64} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected a finite non-negative softcap, but found -1}}
  %r = msgraph.attention %q, %k, %v {softcap = -1.0 : f64} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected a non-negative causal_offset, but found -2}}
  %r = msgraph.attention %q, %k, %v {is_causal = true, causal_offset = -2 : i64} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @invalid(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{expected result type 'tensor<1x4x8x16xf32>' (or a refinement of it), but found 'tensor<1x4x8x8xf32>'}}
  %r = msgraph.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
  return
}
