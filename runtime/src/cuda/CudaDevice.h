//===- CudaDevice.h - the CUDA backend --------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CUDA_CUDADEVICE_H
#define MS_RUNTIME_CUDA_CUDADEVICE_H

#include "core/HAL.h"

namespace ms::rt::impl {
/// Creates a device on the first CUDA GPU; MS_UNAVAILABLE, saying why, when
/// there is no driver (libcuda.so.1) or no GPU.
Status createCudaDevice(std::shared_ptr<Device> &out);
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CUDA_CUDADEVICE_H
