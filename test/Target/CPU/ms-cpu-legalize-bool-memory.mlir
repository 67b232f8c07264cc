// RUN: ms-opt %s -ms-cpu-legalize-bool-memory | FileCheck %s

// Loads and stores of vectors of i1, masked or not, move a byte per
// element: compared with zero after a load, zero-extended before a store
// (the pass-through value of a masked load too). Scalar i1, the masks of
// masked accesses and other element types stay.
// CHECK-LABEL: llvm.func @vectors
// CHECK-SAME: (%[[P:.+]]: !llvm.ptr, %[[M:.+]]: vector<16xi1>, %[[F:.+]]: vector<16xf32>)
// CHECK: %[[BYTES:.+]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: %[[ZERO:.+]] = llvm.mlir.zero : vector<16xi8>
// CHECK: %[[V:.+]] = llvm.icmp "ne" %[[BYTES]], %[[ZERO]] : vector<16xi8>
// CHECK: %[[S:.+]] = llvm.load %[[P]] : !llvm.ptr -> i1
// CHECK: %[[W:.+]] = llvm.zext %[[V]] : vector<16xi1> to vector<16xi8>
// CHECK: llvm.store %[[W]], %[[P]] {alignment = 1 : i64} : vector<16xi8>, !llvm.ptr
// CHECK: llvm.store %[[S]], %[[P]] : i1, !llvm.ptr
// CHECK: %[[WM:.+]] = llvm.zext %[[V]] : vector<16xi1> to vector<16xi8>
// CHECK: llvm.intr.masked.store %[[WM]], %[[P]], %[[M]] {alignment = 1 : i32} : vector<16xi8>, vector<16xi1> into !llvm.ptr
// CHECK: %[[PASS:.+]] = llvm.zext %[[M]] : vector<16xi1> to vector<16xi8>
// CHECK: %[[LM:.+]] = llvm.intr.masked.load %[[P]], %[[M]], %[[PASS]] {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi8>) -> vector<16xi8>
// CHECK: %[[ZM:.+]] = llvm.mlir.zero : vector<16xi8>
// CHECK: %[[R:.+]] = llvm.icmp "ne" %[[LM]], %[[ZM]] : vector<16xi8>
// CHECK: llvm.intr.masked.store %[[F]], %[[P]], %[[R]] {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.ptr
// CHECK: llvm.return %[[R]]
llvm.func @vectors(%p: !llvm.ptr, %m: vector<16xi1>, %f: vector<16xf32>) -> vector<16xi1> {
  %v = llvm.load %p {alignment = 1 : i64} : !llvm.ptr -> vector<16xi1>
  %s = llvm.load %p : !llvm.ptr -> i1
  llvm.store %v, %p {alignment = 1 : i64} : vector<16xi1>, !llvm.ptr
  llvm.store %s, %p : i1, !llvm.ptr
  llvm.intr.masked.store %v, %p, %m {alignment = 1 : i32} : vector<16xi1>, vector<16xi1> into !llvm.ptr
  %l = llvm.intr.masked.load %p, %m, %m {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi1>) -> vector<16xi1>
  llvm.intr.masked.store %f, %p, %l {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.ptr
  llvm.return %l : vector<16xi1>
}
