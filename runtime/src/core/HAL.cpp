//===- HAL.cpp - the default behaviours of the device interface -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/HAL.h"
#include "core/Collective.h"
#include "core/Util.h"

using ms::rt::Status;
using namespace ms::rt::impl;

Status ms::rt::impl::Device::copyRowsOnDevice(void *dst, uint64_t dstPitch,
                                              const void *src,
                                              uint64_t srcPitch,
                                              uint64_t width, uint64_t rows) {
  auto *to = static_cast<uint8_t *>(dst);
  const auto *from = static_cast<const uint8_t *>(src);
  for (uint64_t r = 0; r < rows; ++r)
    MS_RETURN_IF_ERROR(
        copyOnDevice(to + r * dstPitch, from + r * srcPitch, width));
  return Status();
}

Status ms::rt::impl::Device::createDeviceGroup(
    CommGroup &group, std::unique_ptr<DeviceCommGroup> &out) {
  (void)group;
  out.reset();
  return Status();
}
