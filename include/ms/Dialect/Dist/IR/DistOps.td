//===- DistOps.td - msdist dialect: meshes and sharding specs -*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The msdist dialect is how a user says how a graph is spread over devices:
// a mesh of devices with named axes (JAX's Mesh, MindSpore's device
// matrix) and, per tensor, a spec naming the mesh axes each dim is split
// over (JAX's PartitionSpec, MindSpore's tensor map). msdist-materialize
// turns them into upstream `shard` annotations, which upstream propagation
// and partitioning complete and apply. Specification: docs/spec/msdist.md.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_DIST_IR_DISTOPS_TD
#define MS_DIALECT_DIST_IR_DISTOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dist_Dialect : Dialect {
  let name = "msdist";
  let cppNamespace = "::mlir::ms::dist";
  let summary = "device meshes and sharding specs of a graph";
  let description = [{
    A module compiled for several devices carries `msdist.mesh =
    #msdist.mesh<...>`; entry arguments and results may carry `msdist.spec
    = #msdist.spec<...>` (results default to replicated: every rank gets
    the whole value), and `msdist.constraint` pins the layout of any value
    in between.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Dist_Attr<string name, string attrMnemonic>
    : AttrDef<Dist_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Dist_MeshAttr : Dist_Attr<"Mesh", "mesh"> {
  let summary = "a mesh of devices with named axes";
  let description = [{
    `#msdist.mesh<shape = [2, 2], axes = ["dp", "tp"]>`: 4 devices (ranks)
    in a 2x2 grid, rank = linear index in row-major order. Constraints
    (mesh_c1..mesh_c3): as many names as dims, each dim at least 1, names
    distinct and non-empty.
  }];
  let parameters = (ins "::mlir::DenseI64ArrayAttr":$shape,
                        "::mlir::ArrayAttr":$axes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Returns the number of devices of the mesh.
    int64_t getSize() const;
    /// Returns the index of the axis named `name`, or -1.
    int64_t lookupAxis(::llvm::StringRef name) const;
  }];
}

def Dist_SpecAttr : Dist_Attr<"Spec", "spec"> {
  let summary = "the mesh axes each dim of a tensor is split over";
  let description = [{
    `#msdist.spec<[["dp"], []]>`: dim 0 split over mesh axis "dp", dim 1
    whole. A dim may be split over several axes (major first); dims beyond
    the list are whole; `#msdist.spec<[]>` is replicated. Checked against
    a mesh and a tensor by msdist-materialize (spec_c1..spec_c3: known
    axes, each axis at most once, no more dims than the tensor).
  }];
  let parameters = (ins "::mlir::ArrayAttr":$dims);
  let assemblyFormat = "`<` $dims `>`";
  let genVerifyDecl = 1;
}

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

def Dist_ConstraintOp : Dist_Op<"constraint", [Pure, SameOperandsAndResultType]> {
  let summary = "pins the layout of a value (ms.shard, --shard NAME=...)";
  let description = [{
    The result is the operand, laid out over the module's mesh as `spec`
    says; propagation starts from it. msdist-materialize replaces it with a
    `shard.shard` pair.

    ```mlir
    %y = msdist.constraint %x {spec = #msdist.spec<[["dp"]]>} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Dist_SpecAttr:$spec);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

#endif // MS_DIALECT_DIST_IR_DISTOPS_TD
