//===- Collective.cpp - running the plan's collective steps ---------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Collective.h"
#include "core/HAL.h"
#include "core/Util.h"

#include <cstring>

using ms::rt::Status;
using namespace ms::rt::impl;

namespace {
/// A tensor seen as [outer, extent, inner]: `outer` is the product of the
/// extents before the axis, `inner` the bytes of one step along it.
struct AxisView {
  uint64_t outer = 1;
  uint64_t extent = 1;
  uint64_t inner = 1;
};

/// Returns the view of `shape` (elements of `elementSize` bytes) around
/// `axis`.
AxisView viewAround(const std::vector<int64_t> &shape, uint32_t axis,
                    uint64_t elementSize) {
  AxisView view;
  view.inner = elementSize;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < axis)
      view.outer *= uint64_t(shape[d]);
    else if (d == axis)
      view.extent = uint64_t(shape[d]);
    else
      view.inner *= uint64_t(shape[d]);
  }
  return view;
}

/// Copies the `groups` blocks of `chunk` bytes that alternate in each of
/// `outer` rows of `strided` ([outer][groups][chunk]) into member-order
/// contiguous blocks of `packed` ([groups][outer][chunk]), or back when
/// `unpack`: one copy of `outer` rows per member.
Status rearrange(const RowCopier &copier, const uint8_t *from, uint8_t *to,
                 uint64_t outer, uint64_t groups, uint64_t chunk, bool unpack) {
  for (uint64_t j = 0; j < groups; ++j) {
    uint64_t strided = j * chunk, packed = j * outer * chunk;
    if (unpack)
      MS_RETURN_IF_ERROR(copier.copyRows(to + strided, groups * chunk,
                                         from + packed, chunk, chunk, outer));
    else
      MS_RETURN_IF_ERROR(copier.copyRows(to + packed, chunk, from + strided,
                                         groups * chunk, chunk, outer));
  }
  return Status();
}

/// Copies `bytes` bytes (the whole operation on a group of one).
Status copyAll(const RowCopier &copier, const void *src, void *dst,
               uint64_t bytes) {
  if (src == dst || bytes == 0)
    return Status();
  return copier.copyRows(dst, bytes, src, bytes, bytes, 1);
}

/// Copies with memcpy (memmove for one row).
class HostRowCopier final : public RowCopier {
public:
  Status copyRows(void *dst, uint64_t dstPitch, const void *src,
                  uint64_t srcPitch, uint64_t width,
                  uint64_t rows) const override {
    auto *to = static_cast<uint8_t *>(dst);
    const auto *from = static_cast<const uint8_t *>(src);
    if (rows == 1 && width > 0) {
      std::memmove(to, from, width);
      return Status();
    }
    for (uint64_t r = 0; r < rows && width > 0; ++r)
      std::memcpy(to + r * dstPitch, from + r * srcPitch, width);
    return Status();
  }
};
} // namespace

const RowCopier &ms::rt::impl::hostRowCopier() {
  static const HostRowCopier copier;
  return copier;
}

Status ms::rt::impl::DeviceRowCopier::copyRows(void *dst, uint64_t dstPitch,
                                               const void *src,
                                               uint64_t srcPitch,
                                               uint64_t width,
                                               uint64_t rows) const {
  if (width == 0 || rows == 0)
    return Status();
  return device.copyRowsOnDevice(dst, dstPitch, src, srcPitch, width, rows);
}

bool ms::rt::impl::collectiveCommunicates(const CollectiveOp &op) {
  return op.groupSize > 1 && op.kind != CollectiveKind::AllSlice;
}

uint64_t ms::rt::impl::collectiveScratchBytes(const CollectiveOp &op) {
  if (!collectiveCommunicates(op))
    return 0;
  uint64_t elementSize = ms_dtype_size(op.dtype);
  switch (op.kind) {
  case CollectiveKind::AllGather:
    return viewAround(op.shape, op.axis, elementSize).outer > 1 ? op.dstBytes
                                                                : 0;
  case CollectiveKind::ReduceScatter:
    return viewAround(op.shape, op.axis, elementSize).outer > 1 ? op.srcBytes
                                                                : 0;
  case CollectiveKind::AllToAll:
    // The packed blocks to send, and those received.
    return 2 * op.srcBytes;
  case CollectiveKind::AllReduce:
  case CollectiveKind::AllSlice:
  case CollectiveKind::Broadcast:
    break;
  }
  return 0;
}

Status ms::rt::impl::runCollective(const CollectiveOp &op, const void *src,
                                   void *dst, CommGroup *group,
                                   uint32_t position, uint8_t *scratch,
                                   const RowCopier &copier) {
  uint64_t elementSize = ms_dtype_size(op.dtype);
  uint64_t groups = op.groupSize;
  const auto *from = static_cast<const uint8_t *>(src);
  auto *to = static_cast<uint8_t *>(dst);
  if (op.kind == CollectiveKind::AllSlice) {
    // Block `position` of the source along the axis: no communication.
    AxisView view = viewAround(op.shape, op.axis, elementSize);
    uint64_t chunk = view.extent / groups * view.inner;
    return copier.copyRows(to, chunk, from + position * chunk, groups * chunk,
                           chunk, view.outer);
  }
  if (!collectiveCommunicates(op))
    return copyAll(copier, src, dst, op.srcBytes);
  if (!group)
    return Status::error(MS_INTERNAL, "no communicator for the group");

  switch (op.kind) {
  case CollectiveKind::AllReduce:
    return group->allReduce(src, dst, op.srcBytes / elementSize, op.dtype,
                            op.reduction);
  case CollectiveKind::Broadcast:
    return group->broadcast(src, dst, op.srcBytes, int32_t(op.root));
  case CollectiveKind::AllGather: {
    // Member i's source is block i of the destination along the axis.
    AxisView view = viewAround(op.shape, op.axis, elementSize);
    if (view.outer == 1)
      return group->allGather(src, dst, op.srcBytes);
    MS_RETURN_IF_ERROR(group->allGather(src, scratch, op.srcBytes));
    return rearrange(copier, scratch, to, view.outer, groups,
                     view.extent * view.inner, /*unpack=*/true);
  }
  case CollectiveKind::ReduceScatter: {
    // Member i gets the reduction of block i of the sources along the axis.
    AxisView view = viewAround(op.shape, op.axis, elementSize);
    uint64_t count = op.dstBytes / elementSize;
    if (view.outer == 1)
      return group->reduceScatter(src, dst, count, op.dtype, op.reduction);
    MS_RETURN_IF_ERROR(rearrange(copier, from, scratch, view.outer, groups,
                                 view.extent / groups * view.inner,
                                 /*unpack=*/false));
    return group->reduceScatter(scratch, dst, count, op.dtype, op.reduction);
  }
  case CollectiveKind::AllToAll: {
    // Block j of the source along the split axis goes to member j; the
    // blocks received are concatenated along the concatenation axis in
    // member order.
    uint64_t blockBytes = op.srcBytes / groups;
    AxisView split = viewAround(op.shape, op.axis, elementSize);
    std::vector<int64_t> blockShape = op.shape;
    blockShape[op.axis] /= int64_t(groups);
    AxisView concat = viewAround(blockShape, op.concatAxis, elementSize);
    const uint8_t *send = from;
    if (split.outer > 1) {
      MS_RETURN_IF_ERROR(rearrange(copier, from, scratch, split.outer, groups,
                                   split.extent / groups * split.inner,
                                   /*unpack=*/false));
      send = scratch;
    }
    uint8_t *receive = concat.outer > 1 ? scratch + op.srcBytes : to;
    MS_RETURN_IF_ERROR(group->allToAll(send, receive, blockBytes));
    if (concat.outer > 1)
      return rearrange(copier, receive, to, concat.outer, groups,
                       concat.extent * concat.inner, /*unpack=*/true);
    return Status();
  }
  case CollectiveKind::AllSlice:
    break;
  }
  return Status();
}
