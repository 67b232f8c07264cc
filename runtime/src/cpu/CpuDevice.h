//===- CpuDevice.h - the CPU backend ----------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CPU_CPUDEVICE_H
#define MS_RUNTIME_CPU_CPUDEVICE_H

#include "core/HAL.h"

namespace ms::rt::impl {
/// Creates the CPU device: host memory, a thread pool for its queues, and
/// executables dlopen'ed from cpu-elf sections.
Status createCpuDevice(std::shared_ptr<Device> &out);

/// A device whose memory is host memory (the CPU, the simulated NPU): the
/// memory half of Device, shared.
class HostMemoryDevice : public Device {
public:
  /// Allocates zeroed host memory, 64-byte aligned.
  Status allocate(size_t size, void **out) override;
  void deallocate(void *ptr) override;
  bool hostVisible() const override { return true; }
  Status copyToDevice(void *dst, const void *src, size_t size) override;
  Status copyToHost(void *dst, const void *src, size_t size) override;
  Status copyOnDevice(void *dst, const void *src, size_t size) override;
};
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CPU_CPUDEVICE_H
