//===- Communicator.cpp - the world from the launcher's environment -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Communicator.h"
#include "core/Util.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <sys/stat.h>

using ms::rt::Status;
using namespace ms::rt::impl;

//===----------------------------------------------------------------------===//
// The world of one process
//===----------------------------------------------------------------------===//

namespace {
/// The group of this process alone: every operation is a copy.
class LocalGroup final : public CommGroup {
public:
  int32_t rank() const override { return 0; }
  int32_t size() const override { return 1; }
  Status allReduce(const void *src, void *dst, size_t count, ms_dtype_t dtype,
                   Reduction) override {
    return copy(src, dst, count * ms_dtype_size(dtype));
  }
  Status allGather(const void *src, void *dst, size_t bytes) override {
    return copy(src, dst, bytes);
  }
  Status reduceScatter(const void *src, void *dst, size_t count,
                       ms_dtype_t dtype, Reduction) override {
    return copy(src, dst, count * ms_dtype_size(dtype));
  }
  Status allToAll(const void *src, void *dst, size_t bytes) override {
    return copy(src, dst, bytes);
  }
  Status broadcast(const void *src, void *dst, size_t bytes, int32_t) override {
    return copy(src, dst, bytes);
  }

private:
  static Status copy(const void *src, void *dst, size_t bytes) {
    if (src != dst && bytes > 0)
      std::memmove(dst, src, bytes);
    return Status();
  }
};

/// The world of this process alone.
class LocalCommunicator final : public Communicator {
public:
  int32_t rank() const override { return 0; }
  int32_t size() const override { return 1; }
  const char *backend() const override { return "local"; }
  Status createGroup(const std::vector<std::vector<int32_t>> &partition,
                     std::unique_ptr<CommGroup> &out) override {
    if (partition.size() != 1 || partition[0] != std::vector<int32_t>{0})
      return Status::error(MS_INVALID_ARGUMENT,
                           "a world of one process has only the group [0]");
    out = std::make_unique<LocalGroup>();
    return Status();
  }
};
} // namespace

std::shared_ptr<Communicator> ms::rt::impl::localCommunicator() {
  return std::make_shared<LocalCommunicator>();
}

//===----------------------------------------------------------------------===//
// Plugins
//===----------------------------------------------------------------------===//

namespace {
/// The entry points of a loaded plugin.
struct Plugin {
  decltype(&ms_comm_plugin_create) create = nullptr;
  /// Why it could not be loaded (when `create` is NULL).
  std::string error;
};

/// Returns the directory plugins are looked up in: MS_COMM_PLUGIN_DIR when
/// set, else the one holding libms_runtime.
std::string pluginDirectory() {
  if (const char *dir = std::getenv("MS_COMM_PLUGIN_DIR"); dir && *dir)
    return dir;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&localCommunicator), &info) &&
      info.dli_fname) {
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    if (slash != std::string::npos)
      return path.substr(0, slash);
  }
  return ".";
}

/// Opens libms_comm_<backend>.so once (it stays loaded for the life of the
/// process: its communication threads may outlive any one handle).
const Plugin &openPlugin(const std::string &backend) {
  static std::mutex mutex;
  static Plugin plugins[2];
  std::lock_guard<std::mutex> lock(mutex);
  Plugin &plugin = plugins[backend == "mpi" ? 1 : 0];
  if (plugin.create)
    return plugin;
  std::string path = pluginDirectory() + "/libms_comm_" + backend + ".so";
  // MPI libraries open components of their own that expect its symbols to
  // be global.
  void *handle = dlopen(
      path.c_str(), RTLD_NOW | (backend == "mpi" ? RTLD_GLOBAL : RTLD_LOCAL));
  if (!handle) {
    const char *text = dlerror();
    plugin.error =
        "cannot load the " + backend +
        " communicator plugin: " + (text ? text : path) +
        " (is the runtime built with " +
        (backend == "mpi" ? "MPI (libopenmpi-dev)" : "gloo (libgloo-dev)") +
        "? MS_COMM_PLUGIN_DIR overrides where it is looked for)";
    return plugin;
  }
  auto version = reinterpret_cast<decltype(&ms_comm_plugin_abi_version)>(
      dlsym(handle, "ms_comm_plugin_abi_version"));
  auto create = reinterpret_cast<decltype(&ms_comm_plugin_create)>(
      dlsym(handle, "ms_comm_plugin_create"));
  if (!version || !create) {
    plugin.error = path + " is not a communicator plugin (it lacks "
                          "ms_comm_plugin_abi_version or "
                          "ms_comm_plugin_create)";
    return plugin;
  }
  if (uint32_t found = version(); found != kCommPluginAbiVersion) {
    plugin.error = path + ": expected plugin interface version " +
                   std::to_string(kCommPluginAbiVersion) + ", found " +
                   std::to_string(found) + " (a plugin of another build)";
    return plugin;
  }
  plugin.create = create;
  plugin.error.clear();
  return plugin;
}

/// Reads environment variable `name` as an integer in [low, high]; `found`
/// tells whether it is set.
Status readInteger(const char *name, int64_t low, int64_t high, bool &found,
                   int32_t &out) {
  const char *text = std::getenv(name);
  found = text != nullptr;
  if (!found)
    return Status();
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text, &end, 10);
  if (!*text || *end || errno != 0 || value < low || value > high)
    return Status::error(MS_INVALID_ARGUMENT,
                         std::string(name) + ": expected an integer from " +
                             std::to_string(low) + " to " +
                             std::to_string(high) + ", found '" + text + "'");
  out = static_cast<int32_t>(value);
  return Status();
}

/// Reads the pair of variables `rankName`, `sizeName`; `found` tells whether
/// either is set (then both must be, and consistent).
Status readRankAndSize(const char *rankName, const char *sizeName, bool &found,
                       int32_t &rank, int32_t &size) {
  bool hasRank = false, hasSize = false;
  MS_RETURN_IF_ERROR(readInteger(sizeName, 1, kMaxRanks, hasSize, size));
  MS_RETURN_IF_ERROR(readInteger(rankName, 0, kMaxRanks - 1, hasRank, rank));
  found = hasRank || hasSize;
  if (hasRank != hasSize)
    return Status::error(MS_INVALID_ARGUMENT,
                         std::string(hasRank ? rankName : sizeName) +
                             " is set but " + (hasRank ? sizeName : rankName) +
                             " is not; a launcher sets both");
  if (found && rank >= size)
    return Status::error(MS_INVALID_ARGUMENT,
                         std::string(rankName) + " is " + std::to_string(rank) +
                             " but " + sizeName + " is " +
                             std::to_string(size) +
                             ": expected a rank below the world size");
  return Status();
}

} // namespace

/// Reads MS_COMM_TIMEOUT (seconds, default 60).
Status ms::rt::impl::readCommTimeout(std::chrono::milliseconds &out) {
  out = std::chrono::milliseconds(60000);
  const char *text = std::getenv("MS_COMM_TIMEOUT");
  if (!text)
    return Status();
  char *end = nullptr;
  errno = 0;
  double seconds = std::strtod(text, &end);
  if (!*text || *end || errno != 0 || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > 1e7)
    return Status::error(MS_INVALID_ARGUMENT,
                         std::string("MS_COMM_TIMEOUT: expected a positive "
                                     "number of seconds, found '") +
                             text + "'");
  out = std::chrono::milliseconds(
      std::max<int64_t>(1, static_cast<int64_t>(seconds * 1000.0)));
  return Status();
}
Status
ms::rt::impl::createCommunicatorFromEnv(std::shared_ptr<Communicator> &out) {
  out.reset();
  CommConfig config;
  MS_RETURN_IF_ERROR(readCommTimeout(config.timeout));
  std::string backend;
  bool found = false;
  MS_RETURN_IF_ERROR(readRankAndSize("MS_RANK", "MS_WORLD_SIZE", found,
                                     config.rank, config.size));
  if (found) {
    backend = "gloo";
    config.rankVariable = "MS_RANK";
  } else {
    for (auto [rankName, sizeName] :
         {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
          std::pair{"PMI_RANK", "PMI_SIZE"}}) {
      MS_RETURN_IF_ERROR(
          readRankAndSize(rankName, sizeName, found, config.rank, config.size));
      if (found) {
        backend = "mpi";
        config.rankVariable = rankName;
        break;
      }
    }
  }
  if (!found || config.size == 1) {
    out = localCommunicator();
    return Status();
  }
  if (backend == "gloo") {
    const char *dir = std::getenv("MS_RENDEZVOUS");
    if (!dir || !*dir)
      return Status::error(
          MS_INVALID_ARGUMENT,
          "MS_RANK and MS_WORLD_SIZE are set but MS_RENDEZVOUS is not: "
          "expected a directory shared by the ranks (ms-run --nproc sets "
          "all three)");
    struct stat info;
    if (stat(dir, &info) != 0 || !S_ISDIR(info.st_mode))
      return Status::error(MS_INVALID_ARGUMENT,
                           std::string("MS_RENDEZVOUS: '") + dir +
                               "' is not a directory");
    config.rendezvous = dir;
    const char *host = std::getenv("MS_COMM_HOST");
    config.host = host && *host ? host : "127.0.0.1";
  }
  const Plugin &plugin = openPlugin(backend);
  if (!plugin.create)
    return Status::error(MS_UNAVAILABLE, plugin.error);
  Communicator *raw = nullptr;
  Status status(plugin.create(&config, &raw));
  std::shared_ptr<Communicator> comm(raw);
  MS_RETURN_IF_ERROR(std::move(status));
  if (!comm)
    return Status::error(MS_INTERNAL, "the " + backend +
                                          " communicator plugin returned no "
                                          "communicator");
  out = std::move(comm);
  return Status();
}
