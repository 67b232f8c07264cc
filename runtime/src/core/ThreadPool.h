//===- ThreadPool.h - a small fixed-size thread pool ------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_THREADPOOL_H
#define MS_RUNTIME_CORE_THREADPOOL_H

#include "ms/runtime/Runtime.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ms::rt::impl {
/// A fixed set of worker threads taking tasks from one FIFO queue. Streams
/// run on it, and parallelFor splits host loops over it.
class ThreadPool {
public:
  /// Starts a pool of `threads` workers (at least 1).
  static Status create(unsigned threads, std::unique_ptr<ThreadPool> &out);
  /// Returns the default worker count: the hardware threads, at most 4.
  static unsigned defaultThreads();

  /// Runs the queued tasks, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Queues `task`; fails only when out of memory.
  Status submit(std::function<void()> task);
  /// Calls `body(begin, end)` over disjoint chunks covering [0, count),
  /// using the workers and the calling thread; returns when all chunks ran.
  /// Safe to call from a worker (the caller runs chunks itself). `body`
  /// should not throw; if it does, the other chunks still run and the loop
  /// returns MS_INTERNAL.
  Status parallelFor(size_t count,
                     const std::function<void(size_t, size_t)> &body);
  /// Returns the number of workers.
  unsigned size() const { return static_cast<unsigned>(workers.size()); }

private:
  ThreadPool() = default;
  /// The loop each worker runs.
  void work();

  /// Guards `tasks` and `stopping`.
  std::mutex mutex;
  /// Signals a new task or stopping.
  std::condition_variable wake;
  /// Queued tasks.
  std::deque<std::function<void()>> tasks;
  /// Set by the destructor.
  bool stopping = false;
  /// The worker threads.
  std::vector<std::thread> workers;
};
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_THREADPOOL_H
