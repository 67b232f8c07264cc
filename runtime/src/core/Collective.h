//===- Collective.h - running the plan's collective steps ------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A collective step (docs/ModuleFormat.md) on host memory: the blocks of a
// tensor along an axis other than the outermost are strided, so they are
// packed into (or unpacked from) contiguous member-order blocks in a scratch
// buffer around the communicator's contiguous operations. A group of one
// member needs no communicator: each operation is then a copy (all_slice is
// never more than one).
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_COLLECTIVE_H
#define MS_RUNTIME_CORE_COLLECTIVE_H

#include "core/Communicator.h"
#include "core/Module.h"

namespace ms::rt::impl {
/// Returns the bytes of host scratch memory `op` needs on this rank.
uint64_t collectiveScratchBytes(const CollectiveOp &op);

/// Returns true when `op` exchanges data with other ranks (a group of more
/// than one member, and not all_slice).
bool collectiveCommunicates(const CollectiveOp &op);

/// Runs `op` on this rank from host memory `src` into `dst`. `group` is this
/// rank's group (NULL when collectiveCommunicates(op) is false), `position`
/// this rank's position in it, and `scratch` holds at least
/// collectiveScratchBytes(op) bytes.
Status runCollective(const CollectiveOp &op, const void *src, void *dst,
                     CommGroup *group, uint32_t position, uint8_t *scratch);
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_COLLECTIVE_H
