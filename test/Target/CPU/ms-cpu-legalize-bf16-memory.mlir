// RUN: ms-opt %s -ms-cpu-legalize-bf16-memory | FileCheck %s

// Loads and stores of bf16, scalars and vectors, masked or not, move i16
// bits (bitcasts around them); the pass-through value of a masked load
// too. Other element types stay.
// CHECK-LABEL: llvm.func @masked
// CHECK-SAME: (%[[P:.+]]: !llvm.ptr, %[[V:.+]]: vector<16xbf16>, %[[M:.+]]: vector<16xi1>, %[[F:.+]]: vector<16xf32>)
// CHECK: %[[BITS:.+]] = llvm.bitcast %[[V]] : vector<16xbf16> to vector<16xi16>
// CHECK: llvm.intr.masked.store %[[BITS]], %[[P]], %[[M]] {alignment = 2 : i32} : vector<16xi16>, vector<16xi1> into !llvm.ptr
// CHECK: %[[PASS:.+]] = llvm.bitcast %[[V]] : vector<16xbf16> to vector<16xi16>
// CHECK: %[[LOADED:.+]] = llvm.intr.masked.load %[[P]], %[[M]], %[[PASS]] {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi16>) -> vector<16xi16>
// CHECK: %[[R:.+]] = llvm.bitcast %[[LOADED]] : vector<16xi16> to vector<16xbf16>
// CHECK: llvm.intr.masked.store %[[F]], %[[P]], %[[M]] {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.ptr
// CHECK: llvm.return %[[R]]
llvm.func @masked(%p: !llvm.ptr, %v: vector<16xbf16>, %m: vector<16xi1>, %f: vector<16xf32>) -> vector<16xbf16> {
  llvm.intr.masked.store %v, %p, %m {alignment = 2 : i32} : vector<16xbf16>, vector<16xi1> into !llvm.ptr
  %0 = llvm.intr.masked.load %p, %m, %v {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xbf16>) -> vector<16xbf16>
  llvm.intr.masked.store %f, %p, %m {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.ptr
  llvm.return %0 : vector<16xbf16>
}

// CHECK-LABEL: llvm.func @plain
// CHECK-SAME: (%[[P:.+]]: !llvm.ptr, %[[S:.+]]: bf16)
// CHECK: %[[V:.+]] = llvm.load %[[P]] {alignment = 2 : i64} : !llvm.ptr -> vector<8xi16>
// CHECK: %[[VB:.+]] = llvm.bitcast %[[V]] : vector<8xi16> to vector<8xbf16>
// CHECK: %[[X:.+]] = llvm.load volatile %[[P]] : !llvm.ptr -> i16
// CHECK: %[[XB:.+]] = llvm.bitcast %[[X]] : i16 to bf16
// CHECK: %[[SB:.+]] = llvm.bitcast %[[S]] : bf16 to i16
// CHECK: llvm.store %[[SB]], %[[P]] : i16, !llvm.ptr
// CHECK: %[[VS:.+]] = llvm.bitcast %[[VB]] : vector<8xbf16> to vector<8xi16>
// CHECK: llvm.store %[[VS]], %[[P]] {alignment = 2 : i64} : vector<8xi16>, !llvm.ptr
// CHECK: %[[F:.+]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK: llvm.return %[[XB]]
llvm.func @plain(%p: !llvm.ptr, %s: bf16) -> bf16 {
  %v = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> vector<8xbf16>
  %x = llvm.load volatile %p : !llvm.ptr -> bf16
  llvm.store %s, %p : bf16, !llvm.ptr
  llvm.store %v, %p {alignment = 2 : i64} : vector<8xbf16>, !llvm.ptr
  %f = llvm.load %p : !llvm.ptr -> f32
  llvm.return %x : bf16
}
