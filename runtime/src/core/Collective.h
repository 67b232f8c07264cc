//===- Collective.h - running the plan's collective steps ------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A collective step (docs/ModuleFormat.md): the blocks of a tensor along an
// axis other than the outermost are strided, so they are packed into (or
// unpacked from) contiguous member-order blocks in a scratch buffer around
// the communicator's contiguous operations. A group of one member needs no
// communicator: each operation is then a copy (all_slice is never more than
// one). The same code runs on host memory with a host communicator (Gloo,
// MPI) and on a device's memory with the device's own (NCCL), given how to
// copy rows in that memory.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_COLLECTIVE_H
#define MS_RUNTIME_CORE_COLLECTIVE_H

#include "core/Communicator.h"
#include "core/Module.h"

namespace ms::rt::impl {
class Device;

/// A communicator group whose operations read and write one device's
/// memory (NCCL on cuda), created by Device::createDeviceGroup.
class DeviceCommGroup : public CommGroup {
public:
  /// Returns true when allReduce and reduceScatter take `dtype` (the other
  /// operations move bytes of any type). The same on every member.
  virtual bool reduces(ms_dtype_t dtype) const = 0;
};

/// Copies rows of bytes within one rank's memory for a collective.
class RowCopier {
public:
  virtual ~RowCopier() = default;
  /// Copies `rows` rows of `width` bytes, `srcPitch` bytes apart from
  /// `src`, to rows `dstPitch` bytes apart at `dst` (not overlapping unless
  /// `src` equals `dst` and the pitches are equal).
  virtual Status copyRows(void *dst, uint64_t dstPitch, const void *src,
                          uint64_t srcPitch, uint64_t width,
                          uint64_t rows) const = 0;
};

/// Returns the copier of host memory (memcpy).
const RowCopier &hostRowCopier();

/// A copier of `device`'s memory (Device::copyRowsOnDevice).
class DeviceRowCopier final : public RowCopier {
public:
  explicit DeviceRowCopier(Device &device) : device(device) {}
  Status copyRows(void *dst, uint64_t dstPitch, const void *src,
                  uint64_t srcPitch, uint64_t width,
                  uint64_t rows) const override;

private:
  Device &device;
};

/// Returns the bytes of scratch memory `op` needs on this rank.
uint64_t collectiveScratchBytes(const CollectiveOp &op);

/// Returns true when `op` exchanges data with other ranks (a group of more
/// than one member, and not all_slice).
bool collectiveCommunicates(const CollectiveOp &op);

/// Runs `op` on this rank from `src` into `dst`, memory that `copier`
/// copies (host memory by default) and `group`'s operations read and write.
/// `group` is this rank's group (NULL when collectiveCommunicates(op) is
/// false), `position` this rank's position in it, and `scratch` (in the
/// same memory) holds at least collectiveScratchBytes(op) bytes.
Status runCollective(const CollectiveOp &op, const void *src, void *dst,
                     CommGroup *group, uint32_t position, uint8_t *scratch,
                     const RowCopier &copier = hostRowCopier());
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_COLLECTIVE_H
