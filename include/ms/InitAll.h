//===- InitAll.h - register every ms dialect, pass and pipeline -*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// One place that tools and the Python module call to see the whole
// toolchain: our dialects, passes and pipelines plus the upstream ones the
// toolchain lowers through.
//
//===----------------------------------------------------------------------===//

#ifndef MS_INITALL_H
#define MS_INITALL_H

namespace mlir {
class DialectRegistry;
namespace ms {

/// Adds the ms dialects, the upstream dialects the toolchain uses and their
/// interface extensions to `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Registers the ms passes and pipelines and the upstream passes with the
/// global pass registry (idempotent).
void registerAllPasses();

/// Registers every target backend built into the compiler (cpu). Adding a
/// target means adding one line here.
void registerAllTargetBackends();

} // namespace ms
} // namespace mlir

#endif // MS_INITALL_H
