//===- ThreadPool.cpp - a small fixed-size thread pool --------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <system_error>

using ms::rt::Status;
using namespace ms::rt::impl;

Status ThreadPool::create(unsigned threads, std::unique_ptr<ThreadPool> &out) {
  out.reset();
  std::unique_ptr<ThreadPool> pool(new (std::nothrow) ThreadPool());
  if (!pool)
    return Status::error(MS_INTERNAL, "out of memory creating a thread pool");
  try {
    for (unsigned i = 0; i < std::max(1u, threads); ++i)
      pool->workers.emplace_back([p = pool.get()] { p->work(); });
  } catch (const std::exception &e) {
    // The destructor joins the workers already started.
    return Status::error(MS_UNAVAILABLE,
                         std::string("cannot start a worker thread: ") +
                             e.what());
  }
  out = std::move(pool);
  return Status();
}

unsigned ThreadPool::defaultThreads() {
  return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

Status ThreadPool::submit(std::function<void()> task) {
  try {
    std::lock_guard<std::mutex> lock(mutex);
    tasks.push_back(std::move(task));
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL, "out of memory queueing a task");
  }
  wake.notify_one();
  return Status();
}

void ThreadPool::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [this] { return stopping || !tasks.empty(); });
      // Drain the queue before stopping so no submitted task is lost.
      if (tasks.empty())
        return;
      task = std::move(tasks.front());
      tasks.pop_front();
    }
    // A task must not throw; if one does, keep the worker alive.
    try {
      task();
    } catch (...) {
    }
  }
}

namespace {
/// State shared by the chunks of one parallelFor; tasks that start after the
/// loop finished see no chunk left and return.
struct ParallelLoop {
  std::function<void(size_t, size_t)> body;
  size_t count = 0;
  size_t chunk = 0;
  size_t chunks = 0;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<bool> threw{false};
  std::mutex mutex;
  std::condition_variable finished;

  /// Runs chunks until none is left.
  void runChunks() {
    for (;;) {
      size_t index = next.fetch_add(1);
      if (index >= chunks)
        return;
      size_t begin = index * chunk;
      try {
        body(begin, std::min(count, begin + chunk));
      } catch (...) {
        threw = true;
      }
      if (done.fetch_add(1) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_all();
      }
    }
  }
};
} // namespace

Status
ThreadPool::parallelFor(size_t count,
                        const std::function<void(size_t, size_t)> &body) {
  if (count == 0)
    return Status();
  size_t chunks = std::min<size_t>(count, 4 * (workers.size() + 1));
  std::shared_ptr<ParallelLoop> loop;
  try {
    loop = std::make_shared<ParallelLoop>();
    loop->body = body;
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL, "out of memory starting a parallel loop");
  }
  loop->count = count;
  loop->chunk = (count + chunks - 1) / chunks;
  loop->chunks = (count + loop->chunk - 1) / loop->chunk;
  size_t helpers = std::min<size_t>(workers.size(), loop->chunks - 1);
  for (size_t i = 0; i < helpers; ++i) {
    // A failed submit only means fewer helpers; the caller runs the rest.
    if (!submit([loop] { loop->runChunks(); }).ok())
      break;
  }
  loop->runChunks();
  std::unique_lock<std::mutex> lock(loop->mutex);
  loop->finished.wait(lock, [&] { return loop->done == loop->chunks; });
  if (loop->threw)
    return Status::error(MS_INTERNAL,
                         "a parallel loop body threw an exception");
  return Status();
}
