//===- MpiCommunicator.cpp - the MPI communicator plugin ------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// libms_comm_mpi.so: processes started by mpirun. MPI is initialized here
// (MPI_THREAD_MULTIPLE when the library has it; collectives run on the
// runtime's queue threads) unless the program already did, and finalized at
// exit. The world is a duplicate of MPI_COMM_WORLD; each group of a context
// is an MPI_Comm_split of it. Collectives are MPI's non-blocking ones,
// polled until done or MS_COMM_TIMEOUT has passed, so a stuck peer fails
// the step instead of hanging it; reductions are MPI user operations over
// the runtime's own arithmetic (comm/Reduce.h), one per dtype and
// reduction. Errors return (MPI_ERRORS_RETURN) and become statuses.
//
//===----------------------------------------------------------------------===//

#include "comm/Reduce.h"
#include "core/Communicator.h"
#include "core/Util.h"

#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sched.h>
#include <thread>

using ms::rt::Status;
using namespace ms::rt::impl;

namespace {
/// Formats `timeout` in seconds ("3 s").
std::string formatSeconds(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g s", double(timeout.count()) / 1000.0);
  return text;
}

/// Returns MPI's text for error code `code`.
std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, size_t(length));
}

/// Guards every MPI call when the library is not fully thread-safe
/// (MPI_THREAD_SERIALIZED).
std::mutex mpiMutex;
/// Whether calls need `mpiMutex`.
bool serialize = false;

/// Runs `body` (MPI calls) under the lock when needed.
template <typename Body>
int locked(Body &&body) {
  if (!serialize)
    return body();
  std::lock_guard<std::mutex> lock(mpiMutex);
  return body();
}

/// The MPI user function of `dtype` and `reduction`: inout = in op inout.
template <int DType, int Op>
void reduceFunction(void *in, void *inout, int *length, MPI_Datatype *) {
  comm::reduceElements(static_cast<ms_dtype_t>(DType),
                       static_cast<Reduction>(Op), inout, inout, in,
                       static_cast<size_t>(*length));
}

/// The user functions of one dtype, by reduction.
template <int DType>
constexpr MPI_User_function *functionsOf[4] = {
    &reduceFunction<DType, 0>, &reduceFunction<DType, 1>,
    &reduceFunction<DType, 2>, &reduceFunction<DType, 3>};

/// Every user function, by dtype (ms_dtype_t up to MS_DTYPE_U64) and
/// reduction.
MPI_User_function *const *const userFunctions[] = {
    nullptr,         functionsOf<1>, functionsOf<2>,  functionsOf<3>,
    functionsOf<4>,  functionsOf<5>, functionsOf<6>,  functionsOf<7>,
    functionsOf<8>,  functionsOf<9>, functionsOf<10>, functionsOf<11>,
    functionsOf<12>, functionsOf<13>};

/// The MPI datatypes (contiguous bytes of one element's size) and user
/// operations, created on first use and kept until MPI_Finalize.
struct MpiTypes {
  std::mutex mutex;
  MPI_Datatype elements[9] = {};
  bool haveElement[9] = {};
  MPI_Op ops[14][4] = {};
  bool haveOp[14][4] = {};
};
MpiTypes &types() {
  static MpiTypes *instance = new MpiTypes();
  return *instance;
}

/// Returns the datatype of one element of `dtype` and the operation of
/// `reduction` on it.
Status reductionOf(ms_dtype_t dtype, Reduction reduction, MPI_Datatype &element,
                   MPI_Op &op) {
  size_t size = ms_dtype_size(dtype);
  int d = static_cast<int>(dtype), r = static_cast<int>(reduction);
  if (d <= 0 || d > 13 || (size != 1 && size != 2 && size != 4 && size != 8))
    return Status::error(MS_INVALID_ARGUMENT,
                         std::string("mpi: cannot reduce dtype ") +
                             ms_dtype_name(dtype));
  MpiTypes &all = types();
  std::lock_guard<std::mutex> lock(all.mutex);
  int code = MPI_SUCCESS;
  if (!all.haveElement[size]) {
    code = locked([&] {
      int rc = MPI_Type_contiguous(int(size), MPI_BYTE, &all.elements[size]);
      return rc == MPI_SUCCESS ? MPI_Type_commit(&all.elements[size]) : rc;
    });
    if (code != MPI_SUCCESS)
      return Status::error(MS_INTERNAL, "mpi: MPI_Type_contiguous failed: " +
                                            mpiErrorText(code));
    all.haveElement[size] = true;
  }
  if (!all.haveOp[d][r]) {
    code = locked([&] {
      return MPI_Op_create(userFunctions[d][r], /*commute=*/1, &all.ops[d][r]);
    });
    if (code != MPI_SUCCESS)
      return Status::error(MS_INTERNAL,
                           "mpi: MPI_Op_create failed: " + mpiErrorText(code));
    all.haveOp[d][r] = true;
  }
  element = all.elements[size];
  op = all.ops[d][r];
  return Status();
}

/// This process's member of one group: a communicator split from the world.
class MpiGroup final : public CommGroup {
public:
  MpiGroup(MPI_Comm comm, int32_t position, std::vector<int32_t> members,
           std::chrono::milliseconds timeout)
      : comm(comm), position(position), members(std::move(members)),
        timeout(timeout) {}
  ~MpiGroup() override {
    // A group with an operation still pending (after a timeout) cannot be
    // freed safely; it is left to MPI_Finalize.
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (broken.empty() && !finalized)
      locked([&] { return MPI_Comm_free(&comm); });
  }

  int32_t rank() const override { return position; }
  int32_t size() const override { return int32_t(members.size()); }

  Status allReduce(const void *src, void *dst, size_t count, ms_dtype_t dtype,
                   Reduction reduction) override {
    MPI_Datatype element;
    MPI_Op op;
    MS_RETURN_IF_ERROR(reductionOf(dtype, reduction, element, op));
    return run("allreduce", count, [&](int n, MPI_Request *request) {
      return MPI_Iallreduce(src == dst ? MPI_IN_PLACE : src, dst, n, element,
                            op, comm, request);
    });
  }

  Status allGather(const void *src, void *dst, size_t bytes) override {
    return run("allgather", bytes, [&](int n, MPI_Request *request) {
      return MPI_Iallgather(src, n, MPI_BYTE, dst, n, MPI_BYTE, comm, request);
    });
  }

  Status reduceScatter(const void *src, void *dst, size_t count,
                       ms_dtype_t dtype, Reduction reduction) override {
    MPI_Datatype element;
    MPI_Op op;
    MS_RETURN_IF_ERROR(reductionOf(dtype, reduction, element, op));
    return run("reduce_scatter", count, [&](int n, MPI_Request *request) {
      return MPI_Ireduce_scatter_block(src, dst, n, element, op, comm, request);
    });
  }

  Status allToAll(const void *src, void *dst, size_t bytes) override {
    return run("alltoall", bytes, [&](int n, MPI_Request *request) {
      return MPI_Ialltoall(src, n, MPI_BYTE, dst, n, MPI_BYTE, comm, request);
    });
  }

  Status broadcast(const void *src, void *dst, size_t bytes,
                   int32_t root) override {
    if (position == root && src != dst && bytes > 0)
      std::memmove(dst, src, bytes);
    return run("broadcast", bytes, [&](int n, MPI_Request *request) {
      return MPI_Ibcast(dst, n, MPI_BYTE, root, comm, request);
    });
  }

private:
  /// Starts operation `name` on `count` items with `start(count, &request)`
  /// and polls it until done or the timeout.
  template <typename Start>
  Status run(const char *name, size_t count, Start &&start) {
    std::string what = std::string(name) + " over ranks " +
                       formatRanks(members) + " (this is position " +
                       std::to_string(position) + ")";
    if (!broken.empty())
      return Status::error(MS_UNAVAILABLE,
                           "mpi: " + what +
                               ": the group is unusable after an earlier "
                               "failure (" +
                               broken + ")");
    if (count == 0)
      return Status();
    if (count > size_t(INT_MAX))
      return Status::error(MS_UNIMPLEMENTED,
                           "mpi: " + what + ": " + std::to_string(count) +
                               " items exceed the 2^31-1 that MPI counts");
    MPI_Request request = MPI_REQUEST_NULL;
    int code = locked([&] { return start(int(count), &request); });
    if (code != MPI_SUCCESS)
      return fail(what, "cannot start: " + mpiErrorText(code));
    auto begin = std::chrono::steady_clock::now();
    auto deadline = begin + timeout;
    for (int spins = 0;; ++spins) {
      int done = 0;
      code =
          locked([&] { return MPI_Test(&request, &done, MPI_STATUS_IGNORE); });
      if (code != MPI_SUCCESS)
        return fail(what, mpiErrorText(code));
      if (done)
        return Status();
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline)
        return fail(what, "timed out after " + formatSeconds(timeout) +
                              " waiting for a peer (MS_COMM_TIMEOUT; did "
                              "another rank fail or stop?)");
      // Spin briefly for low latency, then back off.
      if (spins < 1000)
        sched_yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(
            now - begin < std::chrono::milliseconds(100) ? 50 : 1000));
    }
  }

  /// Marks the group unusable and returns the failure of `what`.
  Status fail(const std::string &what, const std::string &cause) {
    broken = "mpi: " + what + " failed: " + cause;
    return Status::error(MS_UNAVAILABLE, broken);
  }

  /// The group's communicator.
  MPI_Comm comm;
  /// This process's position.
  int32_t position;
  /// The world ranks of the members, in position order.
  std::vector<int32_t> members;
  /// The limit of every operation.
  std::chrono::milliseconds timeout;
  /// The failure that made the group unusable ("" while it is usable).
  std::string broken;
};

/// Whether this plugin initialized MPI (and so finalizes it at exit).
bool initializedHere = false;

/// Finalizes MPI at exit when this plugin initialized it, releasing the
/// datatypes and operations first.
void finalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return;
  MpiTypes &all = types();
  for (int d = 0; d < 14; ++d)
    for (int r = 0; r < 4; ++r)
      if (all.haveOp[d][r])
        MPI_Op_free(&all.ops[d][r]);
  for (int size = 0; size < 9; ++size)
    if (all.haveElement[size])
      MPI_Type_free(&all.elements[size]);
  MPI_Finalize();
}

/// The processes started by mpirun.
class MpiCommunicator final : public Communicator {
public:
  explicit MpiCommunicator(const CommConfig &config) : config(config) {}
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (world != MPI_COMM_NULL && !finalized)
      locked([&] { return MPI_Comm_free(&world); });
  }

  Status create() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = MPI_THREAD_SINGLE;
    if (!initialized) {
      int code =
          MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      if (code != MPI_SUCCESS)
        return Status::error(MS_UNAVAILABLE, "mpi: MPI_Init_thread failed: " +
                                                 mpiErrorText(code));
      if (!initializedHere) {
        initializedHere = true;
        std::atexit(finalizeAtExit);
      }
    } else {
      MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_SERIALIZED)
      return Status::error(
          MS_UNAVAILABLE,
          "mpi: the MPI library provides thread level " +
              std::to_string(provided) +
              ", but collectives run on the runtime's threads: expected "
              "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE");
    serialize = provided < MPI_THREAD_MULTIPLE;
    int code = locked([&] { return MPI_Comm_dup(MPI_COMM_WORLD, &world); });
    if (code != MPI_SUCCESS)
      return Status::error(MS_UNAVAILABLE,
                           "mpi: MPI_Comm_dup failed: " + mpiErrorText(code));
    locked([&] { return MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN); });
    int rank = 0, size = 0;
    locked([&] {
      MPI_Comm_rank(world, &rank);
      return MPI_Comm_size(world, &size);
    });
    if (rank != config.rank || size != config.size)
      return Status::error(
          MS_INVALID_ARGUMENT,
          "mpi: MPI says this is rank " + std::to_string(rank) + " of " +
              std::to_string(size) + ", but " + config.rankVariable +
              " says rank " + std::to_string(config.rank) + " of " +
              std::to_string(config.size));
    return Status();
  }

  int32_t rank() const override { return config.rank; }
  int32_t size() const override { return config.size; }
  const char *backend() const override { return "mpi"; }

  Status createGroup(const std::vector<std::vector<int32_t>> &partition,
                     std::unique_ptr<CommGroup> &out) override {
    out.reset();
    size_t group = 0, index = 0;
    if (!comm::findGroup(partition, config.rank, group, index))
      return Status::error(MS_INVALID_ARGUMENT,
                           "mpi: rank " + std::to_string(config.rank) +
                               " is in no group of the partition");
    int color = int(group), position = int(index);
    MPI_Comm comm = MPI_COMM_NULL;
    int code =
        locked([&] { return MPI_Comm_split(world, color, position, &comm); });
    if (code != MPI_SUCCESS)
      return Status::error(MS_UNAVAILABLE,
                           "mpi: MPI_Comm_split for the group " +
                               formatRanks(partition[color]) +
                               " failed: " + mpiErrorText(code));
    locked([&] { return MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN); });
    out = std::make_unique<MpiGroup>(comm, position, partition[color],
                                     config.timeout);
    return Status();
  }

private:
  /// The rank, size and timeout.
  CommConfig config;
  /// A duplicate of MPI_COMM_WORLD.
  MPI_Comm world = MPI_COMM_NULL;
};
} // namespace

extern "C" __attribute__((visibility("default"))) uint32_t
ms_comm_plugin_abi_version(void) {
  return kCommPluginAbiVersion;
}

extern "C" __attribute__((visibility("default"))) ms_status_t
ms_comm_plugin_create(const CommConfig *config, Communicator **out) {
  try {
    *out = nullptr;
    auto comm = std::make_unique<MpiCommunicator>(*config);
    if (Status status = comm->create(); !status.ok())
      return status.release();
    *out = comm.release();
    return nullptr;
  } catch (const std::bad_alloc &) {
    return ms_status_create(MS_INTERNAL, "mpi: out of memory");
  } catch (const std::exception &e) {
    return ms_status_create(MS_INTERNAL,
                            (std::string("mpi: ") + e.what()).c_str());
  }
}
