//===- CpuQueue.h - CPU queues and events -----------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A CPU queue runs its operations on the host, one at a time and in order:
// an asynchronous queue on a worker of the device's thread pool (at most one
// worker drains a given queue, so queues run concurrently with each other
// but never with themselves), an inline queue on the submitting thread as
// each operation is submitted. A queue that reaches a wait whose event has
// not been signalled yet parks: it gives its worker back, and the signal
// reschedules it, so waiting queues never hold workers.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CPU_CPUQUEUE_H
#define MS_RUNTIME_CPU_CPUQUEUE_H

#include "core/HAL.h"
#include "core/ThreadPool.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>

namespace ms::rt::impl {
class CpuQueue;

/// A CPU event. Each submitted signal gets the next id; a wait submitted
/// after signal `n` waits until no signal with an id up to `n` is pending.
class CpuEvent final : public Event {
public:
  /// Creates an event in `out` (shared by every backend whose queues are
  /// CpuQueues).
  static Status create(std::unique_ptr<Event> &out);
  /// Counts a new signal as submitted and sets `id` to its id.
  Status submitSignal(uint64_t &id);
  /// Returns the id of the latest submitted signal (0 when none).
  uint64_t lastSubmitted();
  /// Marks signal `id` as run and wakes what waited for it.
  void complete(uint64_t id);
  /// Returns true when every signal up to `target` has run; otherwise parks
  /// `queue` until they have (it is then resumed) and returns false.
  bool reachedOrPark(uint64_t target, CpuQueue &queue);
  /// Blocks the calling thread until every signal up to `target` has run.
  void block(uint64_t target);

private:
  /// Returns true when every signal up to `target` has run (mutex held).
  bool reached(uint64_t target) const {
    return pending.empty() || *pending.begin() > target;
  }

  /// Guards the fields below.
  std::mutex mutex;
  /// Signals a completed signal to blocked threads.
  std::condition_variable completed;
  /// The id of the latest submitted signal.
  uint64_t submitted = 0;
  /// Ids of the signals submitted but not run yet.
  std::set<uint64_t> pending;
  /// Queues parked on this event, linked through CpuQueue::nextParked.
  CpuQueue *parked = nullptr;
};

/// A CPU queue: inline (no pool) or asynchronous on a thread pool.
class CpuQueue final : public Queue {
public:
  /// Creates a queue running on `pool`, which must outlive it, or on the
  /// submitting thread when `pool` is NULL.
  explicit CpuQueue(ThreadPool *pool) : pool(pool) {}
  /// Waits for the queued work.
  ~CpuQueue() override;

  Status launch(Function function, void **args, size_t argCount) override;
  Status copy(void *dst, const void *src, size_t size) override;
  Status hostCallback(std::function<Status()> callback) override;
  Status signal(Event &event) override;
  Status wait(Event &event) override;
  Status synchronize() override;

private:
  friend class CpuEvent;

  /// One queued operation: a task, or a wait when `event` is set.
  struct Op {
    /// The work (NULL for a wait).
    std::function<Status()> task;
    /// The event waited on.
    CpuEvent *event = nullptr;
    /// The signal id waited for.
    uint64_t target = 0;
  };

  /// Runs `op` now (inline) or queues it.
  Status submit(Op op);
  /// Runs `task`, turning exceptions into failures, and records a failure.
  void run(std::function<Status()> task);
  /// Runs queued operations until the queue is empty or parks.
  void drain();
  /// Schedules a drain after the queue was parked.
  void resume();

  /// The pool the queue runs on (NULL: inline).
  ThreadPool *pool;
  /// Guards the fields below.
  std::mutex mutex;
  /// Signals that the queue went idle.
  std::condition_variable idle;
  /// Operations not yet started.
  std::deque<Op> ops;
  /// True while a drain is queued, running or parked.
  bool scheduled = false;
  /// The first failure since the last synchronize.
  Status firstError;
  /// Failures after the first since the last synchronize.
  size_t laterErrors = 0;
  /// While parked (guarded by the event's mutex): the signal id waited for,
  /// and the next queue parked on the same event.
  uint64_t parkedTarget = 0;
  CpuQueue *nextParked = nullptr;
};
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CPU_CPUQUEUE_H
