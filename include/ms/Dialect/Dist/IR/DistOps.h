//===- DistOps.h - msdist operations and attributes -------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_DIST_IR_DISTOPS_H
#define MS_DIALECT_DIST_IR_DISTOPS_H

#include "ms/Dialect/Dist/IR/DistDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#define GET_ATTRDEF_CLASSES
#include "ms/Dialect/Dist/IR/DistAttrs.h.inc"

#define GET_OP_CLASSES
#include "ms/Dialect/Dist/IR/DistOps.h.inc"

namespace mlir::ms::dist {
/// The module attribute holding the mesh (#msdist.mesh) of a sharded compile.
inline constexpr StringLiteral kMeshAttrName = "msdist.mesh";
/// The argument and result attribute holding a spec (#msdist.spec).
inline constexpr StringLiteral kSpecAttrName = "msdist.spec";
/// The name of the `shard.grid` msdist-materialize creates for the mesh.
inline constexpr StringLiteral kGridName = "mesh";

/// Parses a spec written as on the command line, one entry per dim
/// separated by commas: a mesh axis name, several joined by '+', or '-' for
/// a whole dim ("dp,-", "dp+tp,-"). Returns null and sets `error` when the
/// text is malformed; axis names are checked later, against the mesh.
SpecAttr parseSpec(MLIRContext *context, StringRef text, std::string &error);

/// Checks `spec` against `mesh` and a tensor of `rank` dims; returns an
/// empty string when it fits, else what is wrong.
std::string checkSpec(SpecAttr spec, MeshAttr mesh, int64_t rank);

/// Parses a mesh written as on the command line: `shape` as "2x2" (or
/// "4"), `axes` as "dp,tp" (default when empty: d0, d1, ...). Returns null
/// and sets `error` when malformed.
MeshAttr parseMesh(MLIRContext *context, StringRef shape, StringRef axes,
                   std::string &error);

/// What a user asks for (ms-compile --mesh/--shard, ms.jit's mesh and
/// shardings): a mesh and specs by value name.
struct ShardingRequest {
  MeshAttr mesh;
  llvm::StringMap<SpecAttr> specs;
};

/// Records `request` on `module`: the mesh as `msdist.mesh`, the specs of
/// entry arguments and results (by their `ms.name`) as `msdist.spec`
/// attributes. Adds the names it applied to `applied`.
void applyShardingRequest(ModuleOp module, func::FuncOp entry,
                          const ShardingRequest &request,
                          llvm::StringSet<> &applied);
} // namespace mlir::ms::dist

#endif // MS_DIALECT_DIST_IR_DISTOPS_H
