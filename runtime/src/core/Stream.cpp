//===- Stream.cpp - an ordered work queue on a thread pool ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Stream.h"

using ms::rt::Status;
using namespace ms::rt::impl;

HostStream::~HostStream() {
  std::unique_lock<std::mutex> lock(mutex);
  idle.wait(lock, [this] { return !scheduled; });
}

Status HostStream::submit(Task task) {
  if (!task)
    return Status::error(MS_INVALID_ARGUMENT, "stream task is empty");
  std::unique_lock<std::mutex> lock(mutex);
  try {
    queue.push_back(std::move(task));
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL, "out of memory queueing stream work");
  }
  if (scheduled)
    return Status();
  scheduled = true;
  lock.unlock();
  Status status = pool.submit([this] { drain(); });
  if (status.ok())
    return status;
  // Nothing will drain the queue: take the task back out.
  lock.lock();
  queue.pop_back();
  scheduled = false;
  idle.notify_all();
  return status;
}

void HostStream::drain() {
  for (;;) {
    Task task;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (queue.empty()) {
        scheduled = false;
        idle.notify_all();
        return;
      }
      task = std::move(queue.front());
      queue.pop_front();
    }
    Status status;
    try {
      status = task();
    } catch (const std::bad_alloc &) {
      status = Status::error(MS_INTERNAL, "out of memory in stream work");
    } catch (const std::exception &e) {
      status = Status::error(MS_INTERNAL,
                             std::string("stream work threw: ") + e.what());
    } catch (...) {
      status = Status::error(MS_INTERNAL, "stream work threw");
    }
    // Destroy the task (and what it keeps alive) before recording, so that a
    // synchronize() that returns sees the task's resources released.
    task = nullptr;
    if (status.ok())
      continue;
    std::lock_guard<std::mutex> lock(mutex);
    if (firstError.ok())
      firstError = std::move(status);
    else
      ++laterErrors;
  }
}

Status HostStream::synchronize() {
  std::unique_lock<std::mutex> lock(mutex);
  idle.wait(lock, [this] { return !scheduled; });
  size_t later = laterErrors;
  laterErrors = 0;
  Status status = std::move(firstError);
  firstError = Status();
  if (status.ok() || later == 0)
    return status;
  return Status::error(status.code(), std::string(status.message()) + " (and " +
                                          std::to_string(later) +
                                          " later failures)");
}
