//===- Backends.cpp - the backends built into the runtime -----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The one place that names backends. Adding one is a folder src/<name>/
// implementing core/HAL.h, its sources in CMakeLists.txt, and one entry
// below (guarded by its build option when it is optional). A device kind
// with no entry is reported as unavailable.
//
//===----------------------------------------------------------------------===//

#include "core/HAL.h"
#include "cpu/CpuDevice.h"
#include "cuda/CudaDevice.h"
#include "npu/NpuDevice.h"

using namespace ms::rt::impl;

const std::vector<Backend> &ms::rt::impl::backends() {
  static const std::vector<Backend> table = {
      {MS_DEVICE_CPU, createCpuDevice},
      // libcuda.so.1 is opened when a device is created: the runtime builds
      // and loads without it.
      {MS_DEVICE_CUDA, createCudaDevice},
      // The NPU is simulated on the host (docs/NPU.md).
      {MS_DEVICE_NPU_SIM, createNpuDevice},
  };
  return table;
}
