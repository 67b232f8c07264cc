//===- Nccl.cpp - collectives on cuda memory through NCCL -----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Each operation is queued on the group's own stream and waited for by
// polling the stream and the communicator's asynchronous error, so that a
// peer that never arrives fails the operation after MS_COMM_TIMEOUT (the
// communicator is then aborted: later operations fail at once) instead of
// hanging the rank.
//
//===----------------------------------------------------------------------===//

#include "cuda/Nccl.h"
#include "cuda/NcclApi.h"
#include "core/Util.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <thread>

using ms::rt::Status;
using namespace ms::rt::impl;
using namespace ms::rt::impl::cuda;

namespace {
/// Opens libnccl.so.2 (once per process). Returns NCCL, or null with
/// `error` saying why.
const NcclApi *openNccl(std::string &error) {
  static std::once_flag once;
  static NcclApi nccl;
  static std::string failure;
  static bool opened = false;
  std::call_once(once, [] {
    void *library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *text = dlerror();
      failure = std::string("cannot load libnccl.so.2: ") +
                (text ? text : "dlopen failed");
      return;
    }
    const char *missing = nullptr;
    auto need = [&](const char *symbol, auto &slot) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
          dlsym(library, symbol));
      if (!slot && !missing)
        missing = symbol;
    };
    need("ncclGetUniqueId", nccl.ncclGetUniqueId);
    need("ncclCommInitRank", nccl.ncclCommInitRank);
    need("ncclCommDestroy", nccl.ncclCommDestroy);
    need("ncclCommAbort", nccl.ncclCommAbort);
    need("ncclCommGetAsyncError", nccl.ncclCommGetAsyncError);
    need("ncclGetErrorString", nccl.ncclGetErrorString);
    need("ncclGetVersion", nccl.ncclGetVersion);
    need("ncclAllReduce", nccl.ncclAllReduce);
    need("ncclBroadcast", nccl.ncclBroadcast);
    need("ncclReduceScatter", nccl.ncclReduceScatter);
    need("ncclAllGather", nccl.ncclAllGather);
    need("ncclSend", nccl.ncclSend);
    need("ncclRecv", nccl.ncclRecv);
    need("ncclGroupStart", nccl.ncclGroupStart);
    need("ncclGroupEnd", nccl.ncclGroupEnd);
    if (missing) {
      failure = std::string("libnccl.so.2 lacks ") + missing +
                " (NCCL 2.7 or newer is needed)";
      return;
    }
    opened = true;
  });
  if (!opened) {
    error = failure;
    return nullptr;
  }
  return &nccl;
}

/// Returns NCCL's data type of `dtype`, or -1 when it has none.
int ncclType(ms_dtype_t dtype) {
  switch (dtype) {
  case MS_DTYPE_F16:
    return ncclFloat16;
  case MS_DTYPE_BF16:
    return ncclBfloat16;
  case MS_DTYPE_F32:
    return ncclFloat32;
  case MS_DTYPE_F64:
    return ncclFloat64;
  case MS_DTYPE_I8:
    return ncclInt8;
  case MS_DTYPE_U8:
    return ncclUint8;
  case MS_DTYPE_I32:
    return ncclInt32;
  case MS_DTYPE_U32:
    return ncclUint32;
  case MS_DTYPE_I64:
    return ncclInt64;
  case MS_DTYPE_U64:
    return ncclUint64;
  default:
    return -1;
  }
}

/// Returns NCCL's reduction of `reduction`.
int ncclOp(Reduction reduction) {
  switch (reduction) {
  case Reduction::Sum:
    return ncclSum;
  case Reduction::Prod:
    return ncclProd;
  case Reduction::Max:
    return ncclMax;
  case Reduction::Min:
    return ncclMin;
  }
  return ncclSum;
}

/// One member's NCCL communicator of a group, on device memory.
class NcclGroup final : public DeviceCommGroup {
public:
  NcclGroup(const Driver &driver, const NcclApi &nccl,
            std::function<Status()> makeCurrent, int32_t rank, int32_t size,
            std::chrono::milliseconds timeout, bool bf16)
      : driver(driver), nccl(nccl), makeCurrent(std::move(makeCurrent)),
        position(rank), members(size), timeout(timeout), bf16(bf16) {}

  ~NcclGroup() override {
    if (!makeCurrent().ok())
      return;
    if (comm)
      (broken ? nccl.ncclCommAbort : nccl.ncclCommDestroy)(comm);
    if (stream)
      driver.cuStreamDestroy(stream);
  }

  /// Joins the communicator whose id member 0 of `group` sends. The
  /// members agree over `group` that each is ready (its stream created, the
  /// id made) before any joins: ncclCommInitRank blocks until all have.
  Status connect(CommGroup &group) {
    // The id, after a word saying whether member 0 made it.
    struct {
      int32_t made = 1;
      ncclUniqueId id;
    } offer;
    std::memset(&offer.id, 0, sizeof(offer.id));
    Status status = makeCurrent();
    if (status.ok())
      if (CUresult result =
              driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
          result != CUDA_SUCCESS)
        status = cudaError(driver, "cuStreamCreate", result);
    if (position == 0 && status.ok())
      if (ncclResult_t result = nccl.ncclGetUniqueId(&offer.id);
          result != ncclSuccess)
        status = error("ncclGetUniqueId", result);
    if (position == 0)
      offer.made = status.ok() ? 1 : 0;
    MS_RETURN_IF_ERROR(group.broadcast(&offer, &offer, sizeof(offer), 0));
    int32_t ready = status.ok() && offer.made ? 1 : 0;
    MS_RETURN_IF_ERROR(
        group.allReduce(&ready, &ready, 1, MS_DTYPE_I32, Reduction::Min));
    if (!status.ok())
      return status;
    if (!ready)
      return Status::error(MS_UNAVAILABLE,
                           "NCCL: another member of the group could not "
                           "prepare its communicator");
    if (ncclResult_t result =
            nccl.ncclCommInitRank(&comm, members, offer.id, position);
        result != ncclSuccess) {
      comm = nullptr;
      return error("ncclCommInitRank", result);
    }
    return Status();
  }

  int32_t rank() const override { return position; }
  int32_t size() const override { return members; }
  bool reduces(ms_dtype_t dtype) const override {
    return ncclType(dtype) >= 0 && (dtype != MS_DTYPE_BF16 || bf16);
  }

  Status allReduce(const void *src, void *dst, size_t count, ms_dtype_t dtype,
                   Reduction reduction) override {
    MS_RETURN_IF_ERROR(begin("ncclAllReduce"));
    return finish("ncclAllReduce",
                  nccl.ncclAllReduce(src, dst, count, ncclType(dtype),
                                     ncclOp(reduction), comm, stream));
  }
  Status allGather(const void *src, void *dst, size_t bytes) override {
    MS_RETURN_IF_ERROR(begin("ncclAllGather"));
    return finish("ncclAllGather", nccl.ncclAllGather(src, dst, bytes,
                                                      ncclUint8, comm, stream));
  }
  Status reduceScatter(const void *src, void *dst, size_t count,
                       ms_dtype_t dtype, Reduction reduction) override {
    MS_RETURN_IF_ERROR(begin("ncclReduceScatter"));
    return finish("ncclReduceScatter",
                  nccl.ncclReduceScatter(src, dst, count, ncclType(dtype),
                                         ncclOp(reduction), comm, stream));
  }
  Status allToAll(const void *src, void *dst, size_t bytes) override {
    // One send and one receive per member, as one NCCL group.
    MS_RETURN_IF_ERROR(begin("ncclSend/ncclRecv"));
    const auto *from = static_cast<const uint8_t *>(src);
    auto *to = static_cast<uint8_t *>(dst);
    ncclResult_t result = nccl.ncclGroupStart();
    for (int32_t peer = 0; peer < members && result == ncclSuccess; ++peer) {
      result = nccl.ncclSend(from + peer * bytes, bytes, ncclUint8, peer, comm,
                             stream);
      if (result == ncclSuccess)
        result = nccl.ncclRecv(to + peer * bytes, bytes, ncclUint8, peer, comm,
                               stream);
    }
    ncclResult_t ended = nccl.ncclGroupEnd();
    return finish("ncclSend/ncclRecv", result != ncclSuccess ? result : ended);
  }
  Status broadcast(const void *src, void *dst, size_t bytes,
                   int32_t root) override {
    MS_RETURN_IF_ERROR(begin("ncclBroadcast"));
    return finish("ncclBroadcast", nccl.ncclBroadcast(src, dst, bytes,
                                                      ncclUint8, root, comm,
                                                      stream));
  }

private:
  /// A failed NCCL call as a status.
  Status error(const char *call, ncclResult_t result) const {
    const char *text = nccl.ncclGetErrorString(result);
    return Status::error(MS_INTERNAL, std::string(call) + " failed: " +
                                          (text ? text : "NCCL error") +
                                          " (code " + std::to_string(result) +
                                          ")");
  }

  /// Makes the context current, or fails at once after a failure.
  Status begin(const char *call) {
    if (broken)
      return Status::error(MS_UNAVAILABLE,
                           std::string(call) +
                               ": the NCCL communicator failed earlier");
    return makeCurrent();
  }

  /// Waits for what `call` (which returned `queued`) put on the stream:
  /// polls until it is done, NCCL reports an error, or the timeout passes.
  Status finish(const char *call, ncclResult_t queued) {
    if (queued != ncclSuccess && queued != ncclInProgress) {
      broken = true;
      return error(call, queued);
    }
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (int polls = 0;; ++polls) {
      CUresult result = driver.cuStreamQuery(stream);
      if (result == CUDA_SUCCESS)
        return Status();
      if (result != CUDA_ERROR_NOT_READY) {
        broken = true;
        return cudaError(driver, "cuStreamQuery", result);
      }
      ncclResult_t async = ncclSuccess;
      if (nccl.ncclCommGetAsyncError(comm, &async) == ncclSuccess &&
          async != ncclSuccess && async != ncclInProgress) {
        broken = true;
        return error(call, async);
      }
      if (std::chrono::steady_clock::now() > deadline) {
        broken = true;
        return Status::error(
            MS_UNAVAILABLE,
            std::string(call) + ": timed out after " +
                std::to_string(timeout.count()) +
                " ms waiting for a peer (MS_COMM_TIMEOUT; did another rank "
                "fail?)");
      }
      if (polls > 1000)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  const Driver &driver;
  const NcclApi &nccl;
  std::function<Status()> makeCurrent;
  int32_t position, members;
  std::chrono::milliseconds timeout;
  /// Whether every member's NCCL reduces bf16.
  bool bf16;
  ncclComm_t comm = nullptr;
  CUstream stream = nullptr;
  /// Set after a failure: the communicator is aborted, not destroyed.
  bool broken = false;
};
} // namespace

Status ms::rt::impl::cuda::createNcclGroup(
    const Driver &driver, std::function<Status()> makeCurrent,
    CommGroup &group, std::unique_ptr<DeviceCommGroup> &out) {
  out.reset();
  // Every member says which NCCL it has (0: none, or MS_NCCL=0); the group
  // uses NCCL only if every member has it, and reduces bf16 only if every
  // member's does.
  std::string why;
  const char *disabled = std::getenv("MS_NCCL");
  const NcclApi *nccl = disabled && std::string(disabled) == "0"
                            ? nullptr
                            : openNccl(why);
  int version = 0;
  if (nccl && nccl->ncclGetVersion(&version) != ncclSuccess)
    version = 0;
  int32_t oldest = std::max(version, 0);
  MS_RETURN_IF_ERROR(
      group.allReduce(&oldest, &oldest, 1, MS_DTYPE_I32, Reduction::Min));
  if (oldest == 0)
    return Status();
  std::chrono::milliseconds timeout;
  MS_RETURN_IF_ERROR(readCommTimeout(timeout));
  auto nccls = std::make_unique<NcclGroup>(
      driver, *nccl, std::move(makeCurrent), group.rank(), group.size(),
      timeout, oldest >= kNcclBf16Version);
  MS_RETURN_IF_ERROR(nccls->connect(group));
  out = std::move(nccls);
  return Status();
}
