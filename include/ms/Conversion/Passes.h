//===- Passes.h - ms conversion passes --------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_CONVERSION_PASSES_H
#define MS_CONVERSION_PASSES_H

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"

namespace mlir::ms {

#define GEN_PASS_REGISTRATION
#include "ms/Conversion/Passes.h.inc"

} // namespace mlir::ms

#endif // MS_CONVERSION_PASSES_H
