//===- CpuQueue.cpp - CPU queues and events -------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuQueue.h"
#include "core/Util.h"

#include <cstring>

using ms::rt::Status;
using namespace ms::rt::impl;

//===----------------------------------------------------------------------===//
// CpuEvent
//===----------------------------------------------------------------------===//

Status CpuEvent::create(std::unique_ptr<Event> &out) {
  out.reset(new (std::nothrow) CpuEvent());
  if (!out)
    return Status::error(MS_INTERNAL, "out of memory creating an event");
  return Status();
}

Status CpuEvent::submitSignal(uint64_t &id) {
  std::lock_guard<std::mutex> lock(mutex);
  try {
    pending.insert(submitted + 1);
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL, "out of memory queueing a signal");
  }
  id = ++submitted;
  return Status();
}

uint64_t CpuEvent::lastSubmitted() {
  std::lock_guard<std::mutex> lock(mutex);
  return submitted;
}

void CpuEvent::complete(uint64_t id) {
  CpuQueue *woken = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    pending.erase(id);
    // Unlink the parked queues whose wait is over.
    for (CpuQueue **link = &parked; *link;) {
      CpuQueue *queue = *link;
      if (!reached(queue->parkedTarget)) {
        link = &queue->nextParked;
        continue;
      }
      *link = queue->nextParked;
      queue->nextParked = woken;
      woken = queue;
    }
  }
  completed.notify_all();
  // A resumed queue may park again at once, rewriting its link: read the
  // link first.
  while (woken) {
    CpuQueue *next = woken->nextParked;
    woken->nextParked = nullptr;
    woken->resume();
    woken = next;
  }
}

bool CpuEvent::reachedOrPark(uint64_t target, CpuQueue &queue) {
  std::lock_guard<std::mutex> lock(mutex);
  if (reached(target))
    return true;
  queue.parkedTarget = target;
  queue.nextParked = parked;
  parked = &queue;
  return false;
}

void CpuEvent::block(uint64_t target) {
  std::unique_lock<std::mutex> lock(mutex);
  completed.wait(lock, [&] { return reached(target); });
}

//===----------------------------------------------------------------------===//
// CpuQueue
//===----------------------------------------------------------------------===//

/// Returns `event` as a CPU event, or NULL when it belongs to another device.
static CpuEvent *cpuEvent(Event &event) {
  return dynamic_cast<CpuEvent *>(&event);
}

/// The error for an event of another device.
static Status foreignEvent() {
  return Status::error(MS_INVALID_ARGUMENT,
                       "expected an event of the cpu device, found one of "
                       "another device");
}

CpuQueue::~CpuQueue() {
  std::unique_lock<std::mutex> lock(mutex);
  idle.wait(lock, [this] { return !scheduled; });
}

Status CpuQueue::launch(Function function, void **args, size_t) {
  auto fn =
      reinterpret_cast<void (*)(void **)>(const_cast<void *>(function.handle));
  if (!fn)
    return Status::error(MS_INVALID_ARGUMENT, "launch of a NULL function");
  if (!pool) {
    fn(args);
    return Status();
  }
  return submit(Op{[fn, args] {
    fn(args);
    return Status();
  }});
}

Status CpuQueue::copy(void *dst, const void *src, size_t size) {
  if (!pool) {
    if (size)
      std::memmove(dst, src, size);
    return Status();
  }
  return submit(Op{[dst, src, size] {
    if (size)
      std::memmove(dst, src, size);
    return Status();
  }});
}

Status CpuQueue::hostCallback(std::function<Status()> callback) {
  if (!callback)
    return Status::error(MS_INVALID_ARGUMENT, "host callback is empty");
  return submit(Op{std::move(callback)});
}

Status CpuQueue::signal(Event &event) {
  CpuEvent *cpu = cpuEvent(event);
  if (!cpu)
    return foreignEvent();
  uint64_t id = 0;
  MS_RETURN_IF_ERROR(cpu->submitSignal(id));
  if (!pool) {
    cpu->complete(id);
    return Status();
  }
  Status status = submit(Op{[cpu, id] {
    cpu->complete(id);
    return Status();
  }});
  // A signal that will never run must not hold waiters forever.
  if (!status.ok())
    cpu->complete(id);
  return status;
}

Status CpuQueue::wait(Event &event) {
  CpuEvent *cpu = cpuEvent(event);
  if (!cpu)
    return foreignEvent();
  return submit(Op{nullptr, cpu, cpu->lastSubmitted()});
}

Status CpuQueue::submit(Op op) {
  if (!pool) {
    if (op.event)
      op.event->block(op.target);
    else
      run(std::move(op.task));
    return Status();
  }
  std::unique_lock<std::mutex> lock(mutex);
  try {
    ops.push_back(std::move(op));
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL, "out of memory queueing work");
  }
  if (scheduled)
    return Status();
  scheduled = true;
  lock.unlock();
  Status status = pool->submit([this] { drain(); });
  if (status.ok())
    return status;
  // Nothing will drain the queue: take the operation back out.
  lock.lock();
  ops.pop_back();
  scheduled = false;
  idle.notify_all();
  return status;
}

void CpuQueue::run(std::function<Status()> task) {
  Status status;
  try {
    status = task();
  } catch (const std::bad_alloc &) {
    status = Status::error(MS_INTERNAL, "out of memory in queued work");
  } catch (const std::exception &e) {
    status = Status::error(MS_INTERNAL,
                           std::string("queued work threw: ") + e.what());
  } catch (...) {
    status = Status::error(MS_INTERNAL, "queued work threw");
  }
  // Destroy the task (and what it keeps alive) before recording, so that a
  // synchronize() that returns sees the task's resources released.
  task = nullptr;
  if (status.ok())
    return;
  std::lock_guard<std::mutex> lock(mutex);
  if (firstError.ok())
    firstError = std::move(status);
  else
    ++laterErrors;
}

void CpuQueue::drain() {
  for (;;) {
    std::function<Status()> task;
    {
      std::lock_guard<std::mutex> lock(mutex);
      while (!ops.empty() && ops.front().event) {
        // Park on an unsignalled event: its signal resumes the drain.
        if (!ops.front().event->reachedOrPark(ops.front().target, *this))
          return;
        ops.pop_front();
      }
      if (ops.empty()) {
        scheduled = false;
        idle.notify_all();
        return;
      }
      task = std::move(ops.front().task);
      ops.pop_front();
    }
    run(std::move(task));
  }
}

void CpuQueue::resume() {
  // Without memory to queue the drain, run it on the signalling thread.
  if (!pool->submit([this] { drain(); }).ok())
    drain();
}

Status CpuQueue::synchronize() {
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
