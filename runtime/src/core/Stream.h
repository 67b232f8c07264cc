//===- Stream.h - an ordered work queue on a thread pool --------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_STREAM_H
#define MS_RUNTIME_CORE_STREAM_H

#include "core/Device.h"
#include "core/ThreadPool.h"

#include <condition_variable>
#include <deque>
#include <mutex>

namespace ms::rt::impl {
/// A stream whose tasks run on the host, one at a time and in order, on a
/// worker of a thread pool. At most one worker drains a given stream, so
/// streams run concurrently with each other but never with themselves.
class HostStream final : public Stream {
public:
  /// Creates a stream running on `pool`, which must outlive it.
  explicit HostStream(ThreadPool &pool) : pool(pool) {}
  /// Waits for the queued work.
  ~HostStream() override;

  Status submit(Task task) override;
  Status synchronize() override;

private:
  /// Runs queued tasks until the queue is empty.
  void drain();

  /// The pool the stream runs on.
  ThreadPool &pool;
  /// Guards the fields below.
  std::mutex mutex;
  /// Signals that the stream went idle.
  std::condition_variable idle;
  /// Tasks not yet started.
  std::deque<Task> queue;
  /// True while a drain is queued on or running in the pool.
  bool scheduled = false;
  /// The first failure since the last synchronize.
  Status firstError;
  /// Failures after the first since the last synchronize.
  size_t laterErrors = 0;
};
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_STREAM_H
