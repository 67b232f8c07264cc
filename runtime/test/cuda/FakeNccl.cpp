//===- FakeNccl.cpp - an NCCL stand-in for the runtime tests --------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Built as libnccl.so.2 beside the CUDA driver stand-in (FakeCuda.cpp, whose
// device memory is host memory); the cuda backend's tests load both through
// LD_LIBRARY_PATH. It implements the NCCL calls the backend makes between
// the processes of one machine: the members of a communicator share a
// POSIX shared-memory segment named by the unique id, each writes its part
// into its own slot, meets the others at a barrier, reads what it needs and
// meets them again. Operations run synchronously in the call (the stream is
// ignored). Reductions combine the members' slots in member order, so every
// member computes the same result. A barrier gives up after
// MS_COMM_TIMEOUT seconds (60 when unset) with ncclRemoteError.
// MS_FAKE_NCCL_INIT_ERROR=<code> makes ncclCommInitRank fail;
// MS_FAKE_NCCL_VERSION=<code> changes the version it reports.
//
//===----------------------------------------------------------------------===//

#include "comm/Reduce.h"
#include "cuda/NcclApi.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

// The entry points have exactly the backend's declared types (NcclApi.h),
// which -fsanitize=function checks on every call through a pointer.
using ms::rt::impl::Reduction;
using namespace ms::rt::impl::cuda;

namespace {
constexpr ncclResult_t kSuccess = 0, kSystemError = 2, kInvalidArgument = 4,
                       kInvalidUsage = 5, kRemoteError = 6;

/// The bytes of one member's slot.
constexpr size_t kSlotBytes = size_t(16) << 20;
/// The bytes before the slots (the barrier).
constexpr size_t kHeaderBytes = 4096;

/// The start of the shared segment.
struct Header {
  std::atomic<uint32_t> arrived;
  std::atomic<uint32_t> generation;
};

/// A send or a receive queued between ncclGroupStart and ncclGroupEnd.
struct PointToPoint {
  ncclComm_t comm;
  bool send;
  int peer;
  void *data;
  size_t bytes;
};

thread_local int groupDepth = 0;
thread_local std::vector<PointToPoint> queued;

/// The size in bytes of NCCL data type `type`, or 0.
size_t typeSize(int type) {
  static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return type >= 0 && type < 10 ? sizes[type] : 0;
}

/// The runtime's dtype of NCCL data type `type`.
ms_dtype_t msType(int type) {
  static const ms_dtype_t types[] = {
      MS_DTYPE_I8,  MS_DTYPE_U8,  MS_DTYPE_I32, MS_DTYPE_U32, MS_DTYPE_I64,
      MS_DTYPE_U64, MS_DTYPE_F16, MS_DTYPE_F32, MS_DTYPE_F64, MS_DTYPE_BF16};
  return types[type];
}

/// The runtime's reduction of NCCL reduction `op`.
bool msReduction(int op, Reduction &out) {
  static const Reduction reductions[] = {Reduction::Sum, Reduction::Prod,
                                         Reduction::Max, Reduction::Min};
  if (op < 0 || op > 3)
    return false;
  out = reductions[op];
  return true;
}

/// Copies `bytes` bytes (none: the pointers may be null, as for an empty
/// tensor).
void copyBytes(void *dst, const void *src, size_t bytes) {
  if (bytes > 0)
    std::memmove(dst, src, bytes);
}

/// The version reported: MS_FAKE_NCCL_VERSION (2708: NCCL 2.7.8, whose
/// reductions refuse bf16), else 2.28.0.
int fakeVersion() {
  const char *text = std::getenv("MS_FAKE_NCCL_VERSION");
  return text ? std::atoi(text) : 22800;
}

/// Whether the reported version reduces `type`.
bool reducesType(int type) {
  return type != ncclBfloat16 || fakeVersion() >= kNcclBf16Version;
}

/// The limit of a barrier.
std::chrono::milliseconds barrierTimeout() {
  const char *text = std::getenv("MS_COMM_TIMEOUT");
  double seconds = text ? std::atof(text) : 60.0;
  return std::chrono::milliseconds(int64_t((seconds > 0 ? seconds : 60) * 1e3));
}
} // namespace

/// One member's view of a communicator.
struct ms::rt::impl::cuda::ncclComm {
  int size = 0, rank = 0;
  uint8_t *base = nullptr;
  size_t mapped = 0;

  Header *header() { return reinterpret_cast<Header *>(base); }
  uint8_t *slot(int member) {
    return base + kHeaderBytes + size_t(member) * kSlotBytes;
  }

  /// Waits until every member has arrived.
  ncclResult_t barrier() {
    Header *h = header();
    uint32_t generation = h->generation.load();
    if (h->arrived.fetch_add(1) + 1 == uint32_t(size)) {
      h->arrived.store(0);
      h->generation.fetch_add(1);
      return kSuccess;
    }
    auto deadline = std::chrono::steady_clock::now() + barrierTimeout();
    while (h->generation.load() == generation) {
      if (std::chrono::steady_clock::now() > deadline)
        return kRemoteError;
      std::this_thread::yield();
    }
    return kSuccess;
  }
};

extern "C" {
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  static std::atomic<int> counter{0};
  *id = ncclUniqueId{};
  std::snprintf(id->internal, sizeof(id->internal), "/ms-fake-nccl-%d-%d-%lld",
                int(getpid()), counter++,
                static_cast<long long>(
                    std::chrono::steady_clock::now().time_since_epoch().count()));
  return kSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *out, int size, ncclUniqueId id,
                              int rank) {
  if (const char *code = std::getenv("MS_FAKE_NCCL_INIT_ERROR"))
    return std::atoi(code);
  if (size < 1 || rank < 0 || rank >= size || id.internal[0] != '/')
    return kInvalidArgument;
  auto *comm = new ncclComm;
  comm->size = size;
  comm->rank = rank;
  comm->mapped = kHeaderBytes + size_t(size) * kSlotBytes;
  int fd = shm_open(id.internal, O_CREAT | O_RDWR, 0600);
  if (fd < 0 || ftruncate(fd, off_t(comm->mapped)) != 0) {
    if (fd >= 0)
      close(fd);
    delete comm;
    return kSystemError;
  }
  void *base =
      mmap(nullptr, comm->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    delete comm;
    return kSystemError;
  }
  comm->base = static_cast<uint8_t *>(base);
  // Every member has opened the segment once all have arrived.
  ncclResult_t result = comm->barrier();
  if (rank == 0)
    shm_unlink(id.internal);
  if (result != kSuccess) {
    munmap(comm->base, comm->mapped);
    delete comm;
    return result;
  }
  *out = comm;
  return kSuccess;
}

ncclResult_t ncclGetVersion(int *version) {
  *version = fakeVersion();
  return kSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return kInvalidArgument;
  munmap(comm->base, comm->mapped);
  delete comm;
  return kSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }
ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *error) {
  *error = kSuccess;
  return kSuccess;
}
const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case kSuccess:
    return "no error";
  case kSystemError:
    return "unhandled system error";
  case kInvalidArgument:
    return "invalid argument";
  case kInvalidUsage:
    return "invalid usage";
  case kRemoteError:
    return "remote process exited or there was a network error";
  default:
    return "unknown result code";
  }
}

ncclResult_t ncclAllReduce(const void *src, void *dst, size_t count, int type,
                           int op, ncclComm_t comm, CUstream) {
  size_t bytes = count * typeSize(type);
  Reduction reduction;
  if (!comm || !typeSize(type) || !reducesType(type) ||
      !msReduction(op, reduction) || bytes > kSlotBytes)
    return kInvalidArgument;
  copyBytes(comm->slot(comm->rank), src, bytes);
  if (ncclResult_t result = comm->barrier(); result != kSuccess)
    return result;
  copyBytes(dst, comm->slot(0), bytes);
  for (int member = 1; member < comm->size; ++member)
    ms::rt::impl::comm::reduceElements(msType(type), reduction, dst, dst,
                                       comm->slot(member), count);
  return comm->barrier();
}

ncclResult_t ncclAllGather(const void *src, void *dst, size_t count, int type,
                           ncclComm_t comm, CUstream) {
  size_t bytes = count * typeSize(type);
  if (!comm || !typeSize(type) || bytes > kSlotBytes)
    return kInvalidArgument;
  copyBytes(comm->slot(comm->rank), src, bytes);
  if (ncclResult_t result = comm->barrier(); result != kSuccess)
    return result;
  for (int member = 0; member < comm->size; ++member)
    copyBytes(static_cast<uint8_t *>(dst) + member * bytes,
                comm->slot(member), bytes);
  return comm->barrier();
}

ncclResult_t ncclReduceScatter(const void *src, void *dst, size_t count,
                               int type, int op, ncclComm_t comm, CUstream) {
  size_t bytes = count * typeSize(type);
  Reduction reduction;
  if (!comm || !typeSize(type) || !reducesType(type) ||
      !msReduction(op, reduction) || bytes * size_t(comm->size) > kSlotBytes)
    return kInvalidArgument;
  copyBytes(comm->slot(comm->rank), src, bytes * size_t(comm->size));
  if (ncclResult_t result = comm->barrier(); result != kSuccess)
    return result;
  size_t offset = size_t(comm->rank) * bytes;
  copyBytes(dst, comm->slot(0) + offset, bytes);
  for (int member = 1; member < comm->size; ++member)
    ms::rt::impl::comm::reduceElements(msType(type), reduction, dst, dst,
                                       comm->slot(member) + offset, count);
  return comm->barrier();
}

ncclResult_t ncclBroadcast(const void *src, void *dst, size_t count, int type,
                           int root, ncclComm_t comm, CUstream) {
  size_t bytes = count * typeSize(type);
  if (!comm || !typeSize(type) || bytes > kSlotBytes || root < 0 ||
      root >= comm->size)
    return kInvalidArgument;
  if (comm->rank == root)
    copyBytes(comm->slot(root), src, bytes);
  if (ncclResult_t result = comm->barrier(); result != kSuccess)
    return result;
  copyBytes(dst, comm->slot(root), bytes);
  return comm->barrier();
}

ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return kSuccess;
}

ncclResult_t ncclSend(const void *src, size_t count, int type, int peer,
                      ncclComm_t comm, CUstream) {
  if (!groupDepth || !comm || !typeSize(type) || peer < 0 ||
      peer >= comm->size)
    return kInvalidUsage;
  queued.push_back({comm, true, peer, const_cast<void *>(src),
                    count * typeSize(type)});
  return kSuccess;
}

ncclResult_t ncclRecv(void *dst, size_t count, int type, int peer,
                      ncclComm_t comm, CUstream) {
  if (!groupDepth || !comm || !typeSize(type) || peer < 0 ||
      peer >= comm->size)
    return kInvalidUsage;
  queued.push_back({comm, false, peer, dst, count * typeSize(type)});
  return kSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (!groupDepth)
    return kInvalidUsage;
  if (--groupDepth > 0 || queued.empty())
    return kSuccess;
  // Each send goes to the sender's slot at the receiver's part of it; one
  // communicator per group.
  std::vector<PointToPoint> work;
  work.swap(queued);
  ncclComm_t comm = work.front().comm;
  size_t part = kSlotBytes / size_t(comm->size);
  for (const PointToPoint &p : work) {
    if (p.comm != comm || p.bytes > part)
      return kInvalidArgument;
    if (p.send)
      copyBytes(comm->slot(comm->rank) + size_t(p.peer) * part, p.data,
                  p.bytes);
  }
  if (ncclResult_t result = comm->barrier(); result != kSuccess)
    return result;
  for (const PointToPoint &p : work)
    if (!p.send)
      copyBytes(p.data, comm->slot(p.peer) + size_t(comm->rank) * part,
                  p.bytes);
  return comm->barrier();
}
}
