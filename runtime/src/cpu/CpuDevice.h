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
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CPU_CPUDEVICE_H
