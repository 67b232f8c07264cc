//===- HalTest.cpp - the device interface, run once per backend -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The HAL conformance suite (core/HAL.h): memory, executables and queues,
// written once and instantiated for every backend in TestBackends.h. A
// backend that cannot run a test lists it in the skip list with the reason.
//
//===----------------------------------------------------------------------===//

#include "core/HAL.h"
#include "ModuleBuilder.h"
#include "TestBackends.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

using namespace ms;
using namespace ms::rt::impl;
using ms::rt::Status;
using namespace ms::test;

namespace {
/// Host memory that a test shares with host callbacks.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false;

  /// Blocks until the gate is opened.
  void pass() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [this] { return open; });
  }
  /// Opens the gate.
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      open = true;
    }
    changed.notify_all();
  }
};

class HalTest : public ::testing::TestWithParam<TestBackend> {
protected:
  void SetUp() override {
    if (const char *reason = skipReason(GetParam(), currentTestName()))
      GTEST_SKIP() << reason;
    Status status = createDevice(GetParam().kind, device);
    // A device whose driver or hardware is absent (cuda without a GPU):
    // the suite skips, saying why.
    if (status.code() == MS_UNAVAILABLE && GetParam().kind != MS_DEVICE_CPU)
      GTEST_SKIP() << status.message();
    ASSERT_TRUE(status.ok()) << status.message();
  }

  /// Allocates `size` bytes of device memory holding `host` (when given).
  void *allocate(size_t size, const void *host = nullptr) {
    void *ptr = nullptr;
    Status status = device->allocate(size, &ptr);
    EXPECT_TRUE(status.ok()) << status.message();
    if (ptr && host) {
      EXPECT_TRUE(device->copyToDevice(ptr, host, size).ok());
    }
    memory.push_back(ptr);
    return ptr;
  }

  /// Returns `count` floats of device memory `ptr`.
  std::vector<float> read(const void *ptr, size_t count = 4) {
    std::vector<float> host(count);
    EXPECT_TRUE(device->copyToHost(host.data(), ptr, count * 4).ok());
    return host;
  }

  /// Loads the test kernels, resolving `names`.
  std::unique_ptr<Executable> load(const std::vector<std::string> &names) {
    std::vector<uint8_t> code = GetParam().kernels(false);
    std::unique_ptr<Executable> executable;
    Status status = device->loadExecutable("kernels", code.data(), code.size(),
                                           names, executable);
    EXPECT_TRUE(status.ok()) << status.message();
    return executable;
  }

  /// Creates a queue.
  std::unique_ptr<Queue> queue(QueueMode mode = QueueMode::Async) {
    std::unique_ptr<Queue> out;
    Status status = device->createQueue(mode, out);
    EXPECT_TRUE(status.ok()) << status.message();
    return out;
  }

  /// Creates an event.
  std::unique_ptr<Event> event() {
    std::unique_ptr<Event> out;
    Status status = device->createEvent(out);
    EXPECT_TRUE(status.ok()) << status.message();
    return out;
  }

  void TearDown() override {
    for (void *ptr : memory)
      device->deallocate(ptr);
  }

  std::shared_ptr<Device> device;
  std::vector<void *> memory;
};

/// Both queue modes, for the tests that must hold for each.
const QueueMode modes[] = {QueueMode::Async, QueueMode::Inline};

TEST_P(HalTest, AllocatesAndCopies) {
  const float values[4] = {1, 2, 3, 4};
  void *a = allocate(16, values);
  void *b = allocate(16);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(read(b), std::vector<float>(4, 0.0f)) << "memory is zeroed";
  ASSERT_TRUE(device->copyOnDevice(b, a, 16).ok());
  EXPECT_EQ(read(b), std::vector<float>(values, values + 4));
  void *c = allocate(16);
  std::unique_ptr<Queue> q = queue();
  ASSERT_TRUE(q->copy(c, b, 8).ok());
  ASSERT_TRUE(q->synchronize().ok());
  EXPECT_EQ(read(c), (std::vector<float>{1, 2, 0, 0}));
  void *empty = allocate(0);
  EXPECT_NE(empty, nullptr) << "a 0-byte allocation is not NULL";
}

TEST_P(HalTest, LoadsExecutableAndLaunches) {
  std::unique_ptr<Executable> executable = load({"ms_kernel_0", "ms_kernel_2"});
  ASSERT_TRUE(executable);
  ASSERT_EQ(executable->functions().size(), 2u);
  const float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  void *a = allocate(16, x), *b = allocate(16, y), *c = allocate(16),
       *d = allocate(16);
  void *add[3] = {a, b, c}, *mul[3] = {c, a, d};
  for (QueueMode mode : modes) {
    std::unique_ptr<Queue> q = queue(mode);
    ASSERT_TRUE(q->launch(executable->functions()[0], add, 3).ok());
    ASSERT_TRUE(q->launch(executable->functions()[1], mul, 3).ok());
    ASSERT_TRUE(q->synchronize().ok());
    EXPECT_EQ(read(d), (std::vector<float>{11, 44, 99, 176}));
  }
}

TEST_P(HalTest, ReportsMissingFunction) {
  std::vector<uint8_t> code = GetParam().kernels(false);
  std::unique_ptr<Executable> executable;
  Status status = device->loadExecutable("m.msm", code.data(), code.size(),
                                         {"ms_kernel_0", "nope"}, executable);
  EXPECT_EQ(status.code(), MS_NOT_FOUND);
  EXPECT_NE(std::string(status.message()).find("m.msm: kernel 'nope'"),
            std::string::npos)
      << status.message();
}

TEST_P(HalTest, QueueRunsOperationsInOrder) {
  // acc += 1 by a launch, then a copy back, then a host callback reads it:
  // any reordering shows in the values the callbacks record.
  std::unique_ptr<Executable> executable = load({"ms_kernel_0"});
  ASSERT_TRUE(executable);
  const float ones[4] = {1, 1, 1, 1};
  void *one = allocate(16, ones), *acc = allocate(16), *next = allocate(16);
  void *add[3] = {acc, one, next};
  for (QueueMode mode : modes) {
    ASSERT_TRUE(
        device->copyToDevice(acc, std::vector<float>(4).data(), 16).ok());
    std::unique_ptr<Queue> q = queue(mode);
    std::vector<float> seen;
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE(q->launch(executable->functions()[0], add, 3).ok());
      ASSERT_TRUE(q->copy(acc, next, 16).ok());
      ASSERT_TRUE(q->hostCallback([&] {
                     float value = 0;
                     Status status = device->copyToHost(&value, acc, 4);
                     seen.push_back(value);
                     return status;
                   }).ok());
    }
    ASSERT_TRUE(q->synchronize().ok());
    ASSERT_EQ(seen.size(), 100u);
    for (int i = 0; i < 100; ++i)
      EXPECT_EQ(seen[i], float(i + 1)) << i;
  }
}

TEST_P(HalTest, SynchronizeReportsFirstFailure) {
  for (QueueMode mode : modes) {
    std::unique_ptr<Queue> q = queue(mode);
    int ran = 0;
    ASSERT_TRUE(q->hostCallback([] {
                   return Status::error(MS_INTERNAL, "first");
                 }).ok());
    ASSERT_TRUE(q->hostCallback([&] {
                   ++ran;
                   return Status();
                 }).ok());
    ASSERT_TRUE(q->hostCallback([] {
                   return Status::error(MS_DATA_LOSS, "second");
                 }).ok());
    Status status = q->synchronize();
    EXPECT_EQ(status.code(), MS_INTERNAL);
    EXPECT_STREQ(status.message(), "first (and 1 later failures)");
    EXPECT_EQ(ran, 1) << "work after a failure still runs";
    EXPECT_TRUE(q->synchronize().ok()) << "the failure is reported once";
    EXPECT_EQ(q->hostCallback(nullptr).code(), MS_INVALID_ARGUMENT);
  }
}

TEST_P(HalTest, EventOrdersTwoQueues) {
  // The producer is held at a gate; the consumer waits on the producer's
  // signal, so it must not see the value before the gate opens.
  std::unique_ptr<Queue> producer = queue(), consumer = queue();
  std::unique_ptr<Event> ready = event();
  Gate gate;
  std::atomic<int> value{0}, seen{-1};
  ASSERT_TRUE(producer
                  ->hostCallback([&] {
                    gate.pass();
                    value = 42;
                    return Status();
                  })
                  .ok());
  ASSERT_TRUE(producer->signal(*ready).ok());
  ASSERT_TRUE(consumer->wait(*ready).ok());
  ASSERT_TRUE(consumer
                  ->hostCallback([&] {
                    seen = value.load();
                    return Status();
                  })
                  .ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(seen.load(), -1) << "the consumer ran before the signal";
  gate.release();
  ASSERT_TRUE(consumer->synchronize().ok());
  EXPECT_EQ(seen.load(), 42);
  ASSERT_TRUE(producer->synchronize().ok());
}

TEST_P(HalTest, InlineQueueWaitsForAnotherQueuesSignal) {
  std::unique_ptr<Queue> producer = queue(), waiter = queue(QueueMode::Inline);
  std::unique_ptr<Event> ready = event();
  Gate gate;
  std::atomic<int> value{0};
  ASSERT_TRUE(producer
                  ->hostCallback([&] {
                    gate.pass();
                    value = 7;
                    return Status();
                  })
                  .ok());
  ASSERT_TRUE(producer->signal(*ready).ok());
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate.release();
  });
  ASSERT_TRUE(waiter->wait(*ready).ok());
  int after = -1;
  ASSERT_TRUE(waiter
                  ->hostCallback([&] {
                    after = value.load();
                    return Status();
                  })
                  .ok());
  ASSERT_TRUE(waiter->synchronize().ok());
  opener.join();
  EXPECT_EQ(after, 7);
  ASSERT_TRUE(producer->synchronize().ok());
}

TEST_P(HalTest, EventsChainManyQueues) {
  // Queue i waits for queue i - 1 and signals queue i + 1; the head is held
  // at a gate so that every other queue has to wait (without holding a
  // worker, or the chain could not finish on a small pool).
  constexpr int count = 16;
  std::vector<std::unique_ptr<Queue>> queues;
  std::vector<std::unique_ptr<Event>> events;
  for (int i = 0; i < count; ++i) {
    queues.push_back(queue());
    events.push_back(event());
  }
  Gate gate;
  std::mutex mutex;
  std::vector<int> order;
  for (int i = 0; i < count; ++i) {
    if (i == 0)
      ASSERT_TRUE(queues[0]
                      ->hostCallback([&] {
                        gate.pass();
                        return Status();
                      })
                      .ok());
    else
      ASSERT_TRUE(queues[i]->wait(*events[i - 1]).ok());
    ASSERT_TRUE(queues[i]
                    ->hostCallback([&, i] {
                      std::lock_guard<std::mutex> lock(mutex);
                      order.push_back(i);
                      return Status();
                    })
                    .ok());
    ASSERT_TRUE(queues[i]->signal(*events[i]).ok());
  }
  gate.release();
  for (std::unique_ptr<Queue> &q : queues)
    ASSERT_TRUE(q->synchronize().ok());
  ASSERT_EQ(order.size(), size_t(count));
  for (int i = 0; i < count; ++i)
    EXPECT_EQ(order[i], i);
}

TEST_P(HalTest, WaitCoversOnlyEarlierSignals) {
  // A wait with no signal submitted before it does not block, and an event
  // can be signalled and waited again and again.
  std::unique_ptr<Queue> a = queue(), b = queue();
  std::unique_ptr<Event> e = event();
  int runs = 0;
  ASSERT_TRUE(b->wait(*e).ok());
  ASSERT_TRUE(b->hostCallback([&] {
                 ++runs;
                 return Status();
               }).ok());
  ASSERT_TRUE(b->synchronize().ok());
  EXPECT_EQ(runs, 1);
  std::atomic<int> value{0};
  for (int round = 1; round <= 50; ++round) {
    ASSERT_TRUE(a->hostCallback([&, round] {
                   value = round;
                   return Status();
                 }).ok());
    ASSERT_TRUE(a->signal(*e).ok());
    ASSERT_TRUE(b->wait(*e).ok());
    ASSERT_TRUE(b->hostCallback([&, round] {
                   return value.load() >= round
                              ? Status()
                              : Status::error(MS_INTERNAL, "ran too early");
                 }).ok());
  }
  ASSERT_TRUE(b->synchronize().ok());
  ASSERT_TRUE(a->synchronize().ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, HalTest, ::testing::ValuesIn(testBackends),
                         TestBackendName());

TEST(HalRegistry, CreatesEveryBuiltInKind) {
  std::shared_ptr<Device> device;
  EXPECT_EQ(createDevice(ms_device_kind_t(77), device).code(),
            MS_INVALID_ARGUMENT);
  ASSERT_TRUE(createDevice(MS_DEVICE_CPU, device).ok());
  EXPECT_EQ(device->kind(), MS_DEVICE_CPU);
  // The NPU is simulated: always available.
  ASSERT_TRUE(createDevice(MS_DEVICE_NPU_SIM, device).ok());
  EXPECT_STREQ(device->name(), "npu");
  EXPECT_EQ(device->codeSection(), format::SectionKind::NpuProgram);
}
} // namespace
