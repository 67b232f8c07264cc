//===- Nccl.h - collectives on cuda memory through NCCL ---------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// NCCL's API, declared in Nccl.cpp (no nccl.h at build time) and resolved
// from libnccl.so.2 with dlopen the first time a cuda context connects a
// group of several ranks, so that the runtime builds, loads and runs
// without NCCL. A group's members agree over their host communicator (Gloo
// or MPI) whether all of them have NCCL (and whether all of them reduce
// bf16: NCCL 2.10); then the first sends the others the NCCL id, all agree
// that they are ready, and each joins the NCCL communicator
// (ncclCommInitRank blocks until all have joined: a member failing inside
// it can leave the others waiting on NCCL's own bootstrap timeout). Without
// NCCL on every member (or with MS_NCCL=0) the group's collectives run on
// host copies.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CUDA_NCCL_H
#define MS_RUNTIME_CUDA_NCCL_H

#include "core/Collective.h"
#include "cuda/CudaDriver.h"

#include <functional>
#include <memory>

namespace ms::rt::impl::cuda {
/// Creates the NCCL communicator of the members of `group` (collective over
/// `group`), or leaves `out` empty when a member lacks NCCL. `makeCurrent`
/// makes the device's context current on the calling thread; every
/// operation of the result calls it first.
Status createNcclGroup(const Driver &driver,
                       std::function<Status()> makeCurrent, CommGroup &group,
                       std::unique_ptr<DeviceCommGroup> &out);
} // namespace ms::rt::impl::cuda

#endif // MS_RUNTIME_CUDA_NCCL_H
