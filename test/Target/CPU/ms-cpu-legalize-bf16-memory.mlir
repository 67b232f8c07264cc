// RUN: ms-opt %s -ms-cpu-legalize-bf16-memory | FileCheck %s

// A masked store and a masked load of bf16 vectors move i16 bits (bitcasts
// around them); the pass-through value of the load too. Masked operations
// on other element types stay.
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
