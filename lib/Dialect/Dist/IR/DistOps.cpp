//===- DistOps.cpp - msdist attributes and operations ---------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/IR/DistOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::ms::dist;

//===----------------------------------------------------------------------===//
// MeshAttr
//===----------------------------------------------------------------------===//

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               DenseI64ArrayAttr shape, ArrayAttr axes) {
  if (!shape || !axes || shape.size() != static_cast<int64_t>(axes.size()))
    return emitError() << "expected one axis name per mesh dim (mesh_c1), but "
                          "found "
                       << (shape ? shape.size() : 0) << " dims and "
                       << (axes ? axes.size() : 0) << " names";
  if (shape.empty())
    return emitError() << "expected a mesh of at least one dim";
  int64_t size = 1;
  for (int64_t dim : shape.asArrayRef()) {
    if (dim < 1 || dim > 4096)
      return emitError() << "expected mesh dims in [1, 4096] (mesh_c2), but "
                            "found "
                         << dim;
    size *= dim;
    if (size > 4096)
      return emitError() << "expected at most 4096 devices in a mesh";
  }
  llvm::StringSet<> seen;
  for (Attribute axis : axes) {
    auto name = dyn_cast<StringAttr>(axis);
    if (!name || name.getValue().empty() ||
        !seen.insert(name.getValue()).second)
      return emitError() << "expected distinct non-empty axis names "
                            "(mesh_c3), but found "
                         << axis;
  }
  return success();
}

int64_t MeshAttr::getSize() const {
  int64_t size = 1;
  for (int64_t dim : getShape().asArrayRef())
    size *= dim;
  return size;
}

int64_t MeshAttr::lookupAxis(StringRef name) const {
  for (auto [i, axis] : llvm::enumerate(getAxes()))
    if (cast<StringAttr>(axis).getValue() == name)
      return static_cast<int64_t>(i);
  return -1;
}

//===----------------------------------------------------------------------===//
// SpecAttr
//===----------------------------------------------------------------------===//

LogicalResult SpecAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayAttr dims) {
  for (Attribute dim : dims) {
    auto axes = dyn_cast<ArrayAttr>(dim);
    if (!axes || !llvm::all_of(axes, [](Attribute a) {
          return isa<StringAttr>(a) && !cast<StringAttr>(a).empty();
        }))
      return emitError() << "expected each dim of a spec to be a list of "
                            "axis names, but found "
                         << dim;
  }
  return success();
}

SpecAttr mlir::ms::dist::parseSpec(MLIRContext *context, StringRef text,
                                   std::string &error) {
  SmallVector<Attribute> dims;
  if (!text.trim().empty()) {
    SmallVector<StringRef> parts;
    text.split(parts, ',');
    for (StringRef part : parts) {
      part = part.trim();
      SmallVector<Attribute> axes;
      if (part != "-" && part != "none") {
        SmallVector<StringRef> names;
        part.split(names, '+');
        for (StringRef name : names) {
          name = name.trim();
          if (name.empty()) {
            error = "expected a mesh axis name or '-' for each dim, but "
                    "found '" +
                    part.str() + "' in '" + text.str() + "'";
            return nullptr;
          }
          axes.push_back(StringAttr::get(context, name));
        }
      }
      dims.push_back(ArrayAttr::get(context, axes));
    }
  }
  return SpecAttr::get(context, ArrayAttr::get(context, dims));
}

std::string mlir::ms::dist::checkSpec(SpecAttr spec, MeshAttr mesh,
                                      int64_t rank) {
  if (static_cast<int64_t>(spec.getDims().size()) > rank)
    return "expected at most " + std::to_string(rank) +
           " dims in the spec of a rank-" + std::to_string(rank) +
           " tensor (spec_c3), but found " +
           std::to_string(spec.getDims().size());
  llvm::StringSet<> used;
  for (Attribute dim : spec.getDims())
    for (Attribute axis : cast<ArrayAttr>(dim)) {
      StringRef name = cast<StringAttr>(axis).getValue();
      if (mesh.lookupAxis(name) < 0) {
        std::string known;
        for (Attribute a : mesh.getAxes())
          known += (known.empty() ? "" : ", ") +
                   cast<StringAttr>(a).getValue().str();
        return "mesh axis '" + name.str() +
               "' does not exist (spec_c1); the mesh's axes are " + known;
      }
      if (!used.insert(name).second)
        return "mesh axis '" + name.str() +
               "' splits more than one dim (spec_c2)";
    }
  return "";
}

MeshAttr mlir::ms::dist::parseMesh(MLIRContext *context, StringRef shape,
                                   StringRef axes, std::string &error) {
  SmallVector<int64_t> dims;
  SmallVector<StringRef> parts;
  shape.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t dim = 0;
    if (part.trim().getAsInteger(10, dim) || dim < 1 || dim > 4096) {
      error = "expected a mesh shape such as 4 or 2x2 (dims in [1, 4096]), "
              "but found '" +
              shape.str() + "'";
      return nullptr;
    }
    dims.push_back(dim);
  }
  SmallVector<Attribute> names;
  if (axes.trim().empty()) {
    for (size_t d = 0; d < dims.size(); ++d)
      names.push_back(StringAttr::get(context, "d" + std::to_string(d)));
  } else {
    SmallVector<StringRef> list;
    axes.split(list, ',');
    for (StringRef name : list)
      names.push_back(StringAttr::get(context, name.trim()));
  }
  std::string problem;
  auto emit = [&]() { return mlir::emitError(UnknownLoc::get(context)); };
  // Verify without emitting: report through `error`.
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    problem = diag.str();
    return success();
  });
  if (failed(MeshAttr::verify(emit, DenseI64ArrayAttr::get(context, dims),
                              ArrayAttr::get(context, names)))) {
    error = problem;
    return nullptr;
  }
  return MeshAttr::get(context, DenseI64ArrayAttr::get(context, dims),
                       ArrayAttr::get(context, names));
}

void mlir::ms::dist::applyShardingRequest(ModuleOp module, func::FuncOp entry,
                                          const ShardingRequest &request,
                                          llvm::StringSet<> &applied) {
  module->setAttr(kMeshAttrName, request.mesh);
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    auto name = entry.getArgAttrOfType<StringAttr>(i, "ms.name");
    auto it = name ? request.specs.find(name.getValue()) : request.specs.end();
    if (it == request.specs.end())
      continue;
    entry.setArgAttr(i, kSpecAttrName, it->second);
    applied.insert(it->first());
  }
  for (unsigned j = 0; j < entry.getNumResults(); ++j) {
    auto name = entry.getResultAttrOfType<StringAttr>(j, "ms.name");
    auto it = name ? request.specs.find(name.getValue()) : request.specs.end();
    if (it == request.specs.end())
      continue;
    entry.setResultAttr(j, kSpecAttrName, it->second);
    applied.insert(it->first());
  }
}

#define GET_OP_CLASSES
#include "ms/Dialect/Dist/IR/DistOps.cpp.inc"
