//===- NpuDevice.h - the simulated NPU backend ------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_NPU_NPUDEVICE_H
#define MS_RUNTIME_NPU_NPUDEVICE_H

#include "core/HAL.h"

namespace ms::rt::impl {
/// Creates the simulated NPU device ("npu"): host memory, CPU queues whose
/// launches run the simulator (npu/Simulator.h) on the host, executables
/// from npu-program sections, and a profile and timeline of what it ran.
Status createNpuDevice(std::shared_ptr<Device> &out);
} // namespace ms::rt::impl

#endif // MS_RUNTIME_NPU_NPUDEVICE_H
