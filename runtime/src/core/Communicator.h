//===- Communicator.h - processes that run one sharded module --*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A module compiled for N ranks (SPMD) runs as N processes, one per rank,
// whose plans exchange data in "collective" steps. A Communicator is this
// process's view of that world: its rank and size, and the groups the plan's
// collectives run over (a CommGroup per group, created once per context).
//
// The world of one process is built in (LocalCommunicator). Others come
// from plugins the runtime opens with dlopen, so that libms_runtime never
// links a communication library: libms_comm_gloo.so (TCP, rendezvous in a
// shared directory; what ms-run --nproc launches) and libms_comm_mpi.so
// (processes started by mpirun). A plugin links libms_runtime and exports
// the two C entry points below. See docs/Runtime.md ("Several processes").
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_COMMUNICATOR_H
#define MS_RUNTIME_CORE_COMMUNICATOR_H

#include "ms/runtime/Runtime.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ms::rt::impl {
/// How a reducing collective combines the members' elements.
enum class Reduction : uint8_t { Sum, Prod, Max, Min };

/// Returns "sum", "prod", "max" or "min".
inline const char *reductionName(Reduction reduction) {
  switch (reduction) {
  case Reduction::Sum:
    return "sum";
  case Reduction::Prod:
    return "prod";
  case Reduction::Max:
    return "max";
  case Reduction::Min:
    return "min";
  }
  return "unknown";
}

/// Formats a list of ranks as "[0,1,2]".
inline std::string formatRanks(const std::vector<int32_t> &ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? "," : "") + std::to_string(ranks[i]);
  return text + "]";
}

/// The processes of one group of a collective, seen from one member. Every
/// operation is collective: each member calls it with the same sizes, in the
/// same order as the others. Buffers are host memory; the operations block
/// until done or until the communicator's timeout, and fail with a status
/// naming the operation, the group and the cause (never an abort). After a
/// failure the group may be unusable; later operations then fail at once.
class CommGroup {
public:
  virtual ~CommGroup() = default;

  /// Returns this process's position in the group (0 .. size() - 1).
  virtual int32_t rank() const = 0;
  /// Returns the number of members.
  virtual int32_t size() const = 0;

  /// Sets `dst[k]` to the reduction over the members of their `src[k]`, for
  /// `count` elements of `dtype`. `src` may equal `dst`.
  virtual Status allReduce(const void *src, void *dst, size_t count,
                           ms_dtype_t dtype, Reduction reduction) = 0;
  /// Sets `dst` to the members' `bytes` bytes of `src`, in member order
  /// (`size() * bytes` bytes).
  virtual Status allGather(const void *src, void *dst, size_t bytes) = 0;
  /// `src` is size() blocks of `count` elements; sets `dst` (`count`
  /// elements) to the reduction over the members of their block rank().
  virtual Status reduceScatter(const void *src, void *dst, size_t count,
                               ms_dtype_t dtype, Reduction reduction) = 0;
  /// `src` and `dst` are size() blocks of `bytes` bytes: block j of `src`
  /// goes to member j, block j of `dst` comes from member j.
  virtual Status allToAll(const void *src, void *dst, size_t bytes) = 0;
  /// Sets `dst` (`bytes` bytes) to member `root`'s `src` (read on the root
  /// only). `src` may equal `dst`.
  virtual Status broadcast(const void *src, void *dst, size_t bytes,
                           int32_t root) = 0;
};

/// This process's view of the world of processes running one module.
class Communicator {
public:
  virtual ~Communicator() = default;

  /// Returns this process's rank in the world.
  virtual int32_t rank() const = 0;
  /// Returns the number of processes in the world.
  virtual int32_t size() const = 0;
  /// Returns the backend's name: "local", "gloo" or "mpi".
  virtual const char *backend() const = 0;
  /// Creates the group of `partition` (lists of world ranks that together
  /// hold every rank once) that holds this process. Collective over the
  /// world: every process calls it with the same partitions in the same
  /// order (one context after another, in plan order).
  virtual Status createGroup(const std::vector<std::vector<int32_t>> &partition,
                             std::unique_ptr<CommGroup> &out) = 0;
};

/// The most processes a module may be compiled for.
constexpr int32_t kMaxRanks = 4096;

/// What a plugin needs to create the world communicator (read from the
/// launcher's environment).
struct CommConfig {
  /// This process's rank and the world size (size > 1).
  int32_t rank = 0, size = 1;
  /// gloo: the directory of the rendezvous (MS_RENDEZVOUS).
  std::string rendezvous;
  /// gloo: the address the other ranks reach this one at (MS_COMM_HOST;
  /// 127.0.0.1 when unset).
  std::string host;
  /// The limit of the rendezvous and of every collective (MS_COMM_TIMEOUT).
  std::chrono::milliseconds timeout{60000};
  /// The variables the rank came from ("MS_RANK", "OMPI_COMM_WORLD_RANK",
  /// "PMI_RANK"), for messages.
  std::string rankVariable;
};

/// The version of the plugin interface (this header's classes and
/// CommConfig); a plugin built for another is refused.
constexpr uint32_t kCommPluginAbiVersion = 1;

/// Creates the world communicator of `config` from the environment: MS_RANK,
/// MS_WORLD_SIZE and MS_RENDEZVOUS (gloo), else OMPI_COMM_WORLD_RANK /
/// OMPI_COMM_WORLD_SIZE or PMI_RANK / PMI_SIZE (mpi), else a world of one
/// process. A world of one never loads a plugin.
Status createCommunicatorFromEnv(std::shared_ptr<Communicator> &out);

/// Reads the limit of the rendezvous and of every collective from
/// MS_COMM_TIMEOUT (seconds; 60 when unset).
Status readCommTimeout(std::chrono::milliseconds &out);

/// Returns the world of this process alone.
std::shared_ptr<Communicator> localCommunicator();
} // namespace ms::rt::impl

extern "C" {
/// Every communicator plugin exports these. The first returns
/// kCommPluginAbiVersion as the plugin was built; the second creates the
/// world communicator described by `config` (a status: NULL on success).
uint32_t ms_comm_plugin_abi_version(void);
ms_status_t ms_comm_plugin_create(const ms::rt::impl::CommConfig *config,
                                  ms::rt::impl::Communicator **out);
}

#endif // MS_RUNTIME_CORE_COMMUNICATOR_H
