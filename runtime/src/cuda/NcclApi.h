//===- NcclApi.h - the NCCL API, opened at run time -------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The part of NCCL's API (nccl.h, NCCL 2.x) the cuda backend calls,
// declared here (no nccl.h at build time) and resolved from libnccl.so.2
// with dlopen (cuda/Nccl.cpp). The NCCL stand-in of the tests
// (test/cuda/FakeNccl.cpp) defines its entry points with exactly these
// types.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CUDA_NCCLAPI_H
#define MS_RUNTIME_CUDA_NCCLAPI_H

#include "cuda/CudaDriver.h"

#include <cstddef>

namespace ms::rt::impl::cuda {
using ncclResult_t = int;
using ncclComm_t = struct ncclComm *;
/// The id member 0 creates and the others join with.
struct ncclUniqueId {
  char internal[128];
};
inline constexpr ncclResult_t ncclSuccess = 0, ncclInProgress = 7;
/// The first NCCL version with bf16 (ncclGetVersion's code of 2.10.0).
inline constexpr int kNcclBf16Version = 21000;
/// ncclDataType_t.
enum : int {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
};
/// ncclRedOp_t.
enum : int { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3 };

/// NCCL's entry points, under their own names.
struct NcclApi {
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId *id);
  ncclResult_t (*ncclCommInitRank)(ncclComm_t *comm, int size, ncclUniqueId id,
                                   int rank);
  ncclResult_t (*ncclCommDestroy)(ncclComm_t comm);
  ncclResult_t (*ncclCommAbort)(ncclComm_t comm);
  ncclResult_t (*ncclCommGetAsyncError)(ncclComm_t comm, ncclResult_t *error);
  const char *(*ncclGetErrorString)(ncclResult_t result);
  ncclResult_t (*ncclGetVersion)(int *version);
  ncclResult_t (*ncclAllReduce)(const void *src, void *dst, size_t count,
                                int dtype, int op, ncclComm_t comm,
                                CUstream stream);
  ncclResult_t (*ncclBroadcast)(const void *src, void *dst, size_t count,
                                int dtype, int root, ncclComm_t comm,
                                CUstream stream);
  ncclResult_t (*ncclReduceScatter)(const void *src, void *dst, size_t count,
                                    int dtype, int op, ncclComm_t comm,
                                    CUstream stream);
  ncclResult_t (*ncclAllGather)(const void *src, void *dst, size_t count,
                                int dtype, ncclComm_t comm, CUstream stream);
  ncclResult_t (*ncclSend)(const void *src, size_t count, int dtype, int peer,
                           ncclComm_t comm, CUstream stream);
  ncclResult_t (*ncclRecv)(void *dst, size_t count, int dtype, int peer,
                           ncclComm_t comm, CUstream stream);
  ncclResult_t (*ncclGroupStart)();
  ncclResult_t (*ncclGroupEnd)();
};
} // namespace ms::rt::impl::cuda

#endif // MS_RUNTIME_CUDA_NCCLAPI_H
