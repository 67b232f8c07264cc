//===- GlooCommunicator.cpp - the gloo communicator plugin ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// libms_comm_gloo.so: ranks that meet in a shared directory (MS_RENDEZVOUS,
// a gloo FileStore) and exchange data over TCP. The world is checked once
// (every rank writes its key and waits for the others'); each group of a
// context is a gloo context of its own, connected as a full mesh under a
// PrefixStore unique to that communicator, context and group. Every wait
// (the rendezvous, each collective) is bounded by MS_COMM_TIMEOUT, and
// every gloo exception becomes a status naming the operation, the group and
// the cause. See docs/Runtime.md ("Several processes").
//
//===----------------------------------------------------------------------===//

#include "comm/Reduce.h"
#include "core/Communicator.h"
#include "core/Util.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <netdb.h>
#include <thread>

using ms::rt::Status;
using namespace ms::rt::impl;

namespace {
/// Formats `timeout` in seconds ("3 s", "0.5 s").
std::string formatSeconds(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g s", double(timeout.count()) / 1000.0);
  return text;
}

/// Returns gloo's message without its "[file:line] " prefix.
std::string glooText(const std::exception &e) {
  std::string text = e.what();
  if (!text.empty() && text[0] == '[') {
    size_t end = text.find("] ");
    if (end != std::string::npos)
      text = text.substr(end + 2);
  }
  return text;
}

/// Returns the failure of `what` ("allreduce over ranks [0,1]") that gloo
/// reported as `e`, saying whether it timed out or lost a peer.
Status failure(const std::string &what, const std::exception &e,
               std::chrono::milliseconds timeout) {
  std::string text = glooText(e);
  std::string cause;
  if (text.find("imed out") != std::string::npos ||
      text.find("timeout") != std::string::npos)
    cause = "timed out after " + formatSeconds(timeout) +
            " waiting for a peer (MS_COMM_TIMEOUT; did another rank fail or "
            "stop?)";
  else if (text.find("closed") != std::string::npos ||
           text.find("reset") != std::string::npos ||
           text.find("Broken pipe") != std::string::npos ||
           text.find("Read error") != std::string::npos ||
           text.find("writev") != std::string::npos)
    cause = "the connection to a peer closed (did another rank fail or "
            "exit?)";
  else
    cause = "gloo error";
  return Status::error(MS_UNAVAILABLE,
                       "gloo: " + what + " failed: " + cause + ": " + text);
}

/// A gloo FileStore whose waits (and so gets) are bounded by the
/// communicator's timeout, to the millisecond (gloo's own counts whole
/// seconds, and its get waits 30 s).
class FileStore final : public gloo::rendezvous::FileStore {
public:
  FileStore(const std::string &path, std::chrono::milliseconds timeout)
      : gloo::rendezvous::FileStore(path), timeout(timeout) {}

  std::vector<char> get(const std::string &key) override {
    wait({key}, timeout);
    return gloo::rendezvous::FileStore::get(key);
  }
  void wait(const std::vector<std::string> &keys) override {
    wait(keys, timeout);
  }
  void wait(const std::vector<std::string> &keys,
            const std::chrono::milliseconds &limit) override {
    auto deadline = std::chrono::steady_clock::now() +
                    (limit.count() > 0 ? limit : timeout);
    while (!check(keys)) {
      if (std::chrono::steady_clock::now() >= deadline)
        throw gloo::IoException("timeout waiting for rendezvous key(s) " +
                                gloo::MakeString(keys));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  /// Returns true when every key of `keys` is set.
  bool has(const std::vector<std::string> &keys) { return check(keys); }

private:
  /// The limit of every wait.
  std::chrono::milliseconds timeout;
};

/// Calls `fn(T)` with a value of the unsigned type as large as one element
/// of `elementSize` bytes (1, 2, 4 or 8).
template <typename Fn>
void withElementType(size_t elementSize, Fn &&fn) {
  switch (elementSize) {
  case 1:
    return fn(uint8_t());
  case 2:
    return fn(uint16_t());
  case 4:
    return fn(uint32_t());
  default:
    return fn(uint64_t());
  }
}

/// Returns `pointer` as gloo's buffer setters take it (they only read an
/// input).
template <typename T>
T *mutableData(const void *pointer) {
  return static_cast<T *>(const_cast<void *>(pointer));
}

/// This process's member of one group: a gloo context of its own.
class GlooGroup final : public CommGroup {
public:
  GlooGroup(std::shared_ptr<gloo::rendezvous::Context> context,
            std::vector<int32_t> members, std::chrono::milliseconds timeout)
      : context(std::move(context)), members(std::move(members)),
        timeout(timeout) {}

  int32_t rank() const override { return context->rank; }
  int32_t size() const override { return context->size; }

  Status allReduce(const void *src, void *dst, size_t count, ms_dtype_t dtype,
                   Reduction reduction) override {
    return guard("allreduce", [&] {
      if (count == 0)
        return;
      gloo::AllreduceOptions options(context);
      options.setTag(nextTag++);
      options.setTimeout(timeout);
      withElementType(ms_dtype_size(dtype), [&](auto type) {
        using T = decltype(type);
        if (src != dst)
          options.setInput<T>(mutableData<T>(src), count);
        options.setOutput<T>(static_cast<T *>(dst), count);
      });
      options.setReduceFunction([dtype, reduction](void *out, const void *a,
                                                   const void *b, size_t n) {
        comm::reduceElements(dtype, reduction, out, a, b, n);
      });
      gloo::allreduce(options);
    });
  }

  Status allGather(const void *src, void *dst, size_t bytes) override {
    return guard("allgather", [&] {
      if (bytes == 0)
        return;
      gloo::AllgatherOptions options(context);
      options.setTag(nextTag++);
      options.setTimeout(timeout);
      options.setInput<uint8_t>(mutableData<uint8_t>(src), bytes);
      options.setOutput<uint8_t>(static_cast<uint8_t *>(dst),
                                 bytes * size_t(size()));
      gloo::allgather(options);
    });
  }

  Status reduceScatter(const void *src, void *dst, size_t count,
                       ms_dtype_t dtype, Reduction reduction) override {
    // An all-to-all brings every member's block of this member here (the
    // data a ring reduce-scatter moves), then they are reduced in member
    // order.
    size_t bytes = count * ms_dtype_size(dtype);
    return guard("reduce_scatter", [&] {
      if (bytes == 0)
        return;
      received.resize(bytes * size_t(size()));
      exchange(src, received.data(), bytes);
      std::memcpy(dst, received.data(), bytes);
      for (int32_t j = 1; j < size(); ++j)
        comm::reduceElements(dtype, reduction, dst, dst,
                             received.data() + size_t(j) * bytes, count);
    });
  }

  Status allToAll(const void *src, void *dst, size_t bytes) override {
    return guard("alltoall", [&] {
      if (bytes > 0)
        exchange(src, dst, bytes);
    });
  }

  Status broadcast(const void *src, void *dst, size_t bytes,
                   int32_t root) override {
    return guard("broadcast", [&] {
      if (bytes == 0)
        return;
      gloo::BroadcastOptions options(context);
      options.setTag(nextTag++);
      options.setTimeout(timeout);
      options.setRoot(root);
      if (rank() == root && src != dst)
        options.setInput<uint8_t>(mutableData<uint8_t>(src), bytes);
      options.setOutput<uint8_t>(static_cast<uint8_t *>(dst), bytes);
      gloo::broadcast(options);
    });
  }

private:
  /// Runs gloo's all-to-all of blocks of `bytes` bytes.
  void exchange(const void *src, void *dst, size_t bytes) {
    gloo::AlltoallOptions options(context);
    options.setTag(nextTag++);
    options.setTimeout(timeout);
    size_t total = bytes * size_t(size());
    options.setInput<uint8_t>(mutableData<uint8_t>(src), total);
    options.setOutput<uint8_t>(static_cast<uint8_t *>(dst), total);
    gloo::alltoall(options);
  }

  /// Runs `body` (operation `name`), turning a gloo exception into a
  /// status. After one, the group's connections are in an unknown state:
  /// later operations fail at once.
  template <typename Body>
  Status guard(const char *name, Body &&body) {
    std::string what = std::string(name) + " over ranks " +
                       formatRanks(members) + " (this is position " +
                       std::to_string(rank()) + ")";
    if (!broken.empty())
      return Status::error(MS_UNAVAILABLE,
                           "gloo: " + what +
                               ": the group is unusable after an earlier "
                               "failure (" +
                               broken + ")");
    try {
      body();
      return Status();
    } catch (const std::bad_alloc &) {
      return Status::error(MS_INTERNAL, "gloo: " + what + ": out of memory");
    } catch (const std::exception &e) {
      Status status = failure(what, e, timeout);
      broken = status.message();
      return status;
    }
  }

  /// The connected gloo context of the group.
  std::shared_ptr<gloo::rendezvous::Context> context;
  /// The world ranks of the members, in position order.
  std::vector<int32_t> members;
  /// The limit of every operation.
  std::chrono::milliseconds timeout;
  /// Blocks received by reduceScatter.
  std::vector<uint8_t> received;
  /// The tag of the next operation: every member counts its operations
  /// alike, so each operation's messages are told apart from the next's.
  uint32_t nextTag = 0;
  /// The failure that made the group unusable ("" while it is usable).
  std::string broken;
};

/// The processes launched with MS_RANK, MS_WORLD_SIZE and MS_RENDEZVOUS.
class GlooCommunicator final : public Communicator {
public:
  explicit GlooCommunicator(const CommConfig &config) : config(config) {}

  /// Checks the world: every rank writes its key and waits for the others'
  /// (which say the world size they were started with).
  Status create() {
    // The n-th communicator of every process meets the n-th of the others.
    static std::atomic<int> created{0};
    prefix = "ms/" + std::to_string(created++);
    std::string where =
        "gloo: rendezvous of rank " + std::to_string(config.rank) + " of " +
        std::to_string(config.size) + " in " + config.rendezvous;
    try {
      store = std::make_unique<FileStore>(config.rendezvous, config.timeout);
      std::string size = std::to_string(config.size);
      try {
        store->set(worldKey(config.rank),
                   std::vector<char>(size.begin(), size.end()));
      } catch (const std::exception &e) {
        return Status::error(
            MS_UNAVAILABLE,
            where + " failed: cannot write this rank's key (" + glooText(e) +
                "); the directory must be writable and fresh for every "
                "launch (a rank of an earlier run may have left its key)");
      }
      auto deadline = std::chrono::steady_clock::now() + config.timeout;
      std::vector<int32_t> missing;
      for (;;) {
        missing.clear();
        for (int32_t r = 0; r < config.size; ++r)
          if (!store->has({worldKey(r)}))
            missing.push_back(r);
        if (missing.empty())
          break;
        if (std::chrono::steady_clock::now() >= deadline)
          return Status::error(
              MS_UNAVAILABLE,
              where + " failed: timed out after " +
                  formatSeconds(config.timeout) + " waiting for rank" +
                  (missing.size() > 1 ? "s " : " ") + formatRanks(missing) +
                  " (MS_COMM_TIMEOUT; did every rank start, with the same "
                  "MS_RENDEZVOUS?)");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      for (int32_t r = 0; r < config.size; ++r) {
        std::vector<char> value = store->get(worldKey(r));
        std::string theirs(value.begin(), value.end());
        if (theirs != std::to_string(config.size))
          return Status::error(MS_INVALID_ARGUMENT,
                               where + " failed: rank " + std::to_string(r) +
                                   " was started with MS_WORLD_SIZE=" + theirs +
                                   ", this rank with " +
                                   std::to_string(config.size));
      }
      // gloo dereferences an unset result when the name does not resolve:
      // resolve it here first.
      struct addrinfo hints = {};
      hints.ai_socktype = SOCK_STREAM;
      struct addrinfo *found = nullptr;
      if (int code = getaddrinfo(config.host.c_str(), nullptr, &hints, &found);
          code != 0)
        return Status::error(MS_UNAVAILABLE,
                             where + " failed: cannot resolve MS_COMM_HOST '" +
                                 config.host + "': " + gai_strerror(code));
      freeaddrinfo(found);
      device = gloo::transport::tcp::CreateDevice(config.host.c_str());
    } catch (const std::bad_alloc &) {
      return Status::error(MS_INTERNAL, where + ": out of memory");
    } catch (const std::exception &e) {
      return Status::error(MS_UNAVAILABLE, where + " failed: " + glooText(e) +
                                               (config.host == "127.0.0.1"
                                                    ? ""
                                                    : " (MS_COMM_HOST is '" +
                                                          config.host + "')"));
    }
    return Status();
  }

  int32_t rank() const override { return config.rank; }
  int32_t size() const override { return config.size; }
  const char *backend() const override { return "gloo"; }

  Status createGroup(const std::vector<std::vector<int32_t>> &partition,
                     std::unique_ptr<CommGroup> &out) override {
    out.reset();
    size_t index = 0, position = 0;
    if (!comm::findGroup(partition, config.rank, index, position))
      return Status::error(MS_INVALID_ARGUMENT,
                           "gloo: rank " + std::to_string(config.rank) +
                               " is in no group of the partition");
    const std::vector<int32_t> *members = &partition[index];
    // Every process creates the groups of its contexts in the same order:
    // the n-th group creation of every member meets under one prefix.
    std::string key = prefix + "/group" + std::to_string(groupsCreated++) +
                      "/" + std::to_string(index);
    std::string what = "rendezvous of the group " + formatRanks(*members);
    try {
      auto context = std::make_shared<gloo::rendezvous::Context>(
          static_cast<int>(position), static_cast<int>(members->size()));
      context->setTimeout(config.timeout);
      gloo::rendezvous::PrefixStore prefixed(key, *store);
      context->connectFullMesh(prefixed, device);
      out = std::make_unique<GlooGroup>(std::move(context), *members,
                                        config.timeout);
    } catch (const std::bad_alloc &) {
      return Status::error(MS_INTERNAL, "gloo: " + what + ": out of memory");
    } catch (const std::exception &e) {
      return failure(what, e, config.timeout);
    }
    return Status();
  }

private:
  /// Returns the key rank `r` writes when it joins the world.
  std::string worldKey(int32_t r) const {
    return prefix + "/world/" + std::to_string(r);
  }

  /// Where the ranks meet and how long they wait.
  CommConfig config;
  /// The keys of this communicator start with it.
  std::string prefix;
  /// The rendezvous directory.
  std::unique_ptr<FileStore> store;
  /// The TCP device every group's connections use.
  std::shared_ptr<gloo::transport::Device> device;
  /// How many groups this process created (names the next one's keys).
  int groupsCreated = 0;
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
    // A peer that dies makes writes to its socket fail: with SIGPIPE at its
    // default, that would kill this process instead of failing the
    // collective.
    struct sigaction action;
    if (sigaction(SIGPIPE, nullptr, &action) == 0 &&
        action.sa_handler == SIG_DFL)
      std::signal(SIGPIPE, SIG_IGN);
    auto comm = std::make_unique<GlooCommunicator>(*config);
    if (Status status = comm->create(); !status.ok())
      return status.release();
    *out = comm.release();
    return nullptr;
  } catch (const std::bad_alloc &) {
    return ms_status_create(MS_INTERNAL, "gloo: out of memory");
  } catch (const std::exception &e) {
    return ms_status_create(MS_INTERNAL,
                            (std::string("gloo: ") + e.what()).c_str());
  }
}
