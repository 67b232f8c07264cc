//===- ThreadPoolTest.cpp - thread pool tests -----------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

using namespace ms::rt;
using namespace ms::rt::impl;

namespace {
std::unique_ptr<ThreadPool> makePool(unsigned threads) {
  std::unique_ptr<ThreadPool> pool;
  Status status = ThreadPool::create(threads, pool);
  EXPECT_TRUE(status.ok()) << status.message();
  return pool;
}

TEST(ThreadPoolTest, RunsEverySubmittedTaskBeforeDestruction) {
  std::atomic<int> count{0};
  {
    std::unique_ptr<ThreadPool> pool = makePool(3);
    ASSERT_EQ(pool->size(), 3u);
    for (int i = 0; i < 1000; ++i)
      ASSERT_TRUE(pool->submit([&] { ++count; }).ok());
  }
  EXPECT_EQ(count.load(), 1000);
}

TEST(ThreadPoolTest, ZeroThreadsMeansOne) {
  std::unique_ptr<ThreadPool> pool = makePool(0);
  EXPECT_EQ(pool->size(), 1u);
  EXPECT_GE(ThreadPool::defaultThreads(), 1u);
  EXPECT_LE(ThreadPool::defaultThreads(), 4u);
}

TEST(ThreadPoolTest, ParallelForCoversTheRangeOnce) {
  std::unique_ptr<ThreadPool> pool = makePool(4);
  for (size_t count : {size_t(0), size_t(1), size_t(7), size_t(10000)}) {
    std::vector<std::atomic<int>> hits(count);
    Status status = pool->parallelFor(count, [&](size_t begin, size_t end) {
      ASSERT_LE(begin, end);
      for (size_t i = begin; i < end; ++i)
        ++hits[i];
    });
    ASSERT_TRUE(status.ok());
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(hits[i].load(), 1) << i;
  }
}

TEST(ThreadPoolTest, NestedParallelForDoesNotDeadlock) {
  std::unique_ptr<ThreadPool> pool = makePool(2);
  std::atomic<int> total{0};
  Status status = pool->parallelFor(8, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      Status inner = pool->parallelFor(
          100, [&](size_t b, size_t e) { total += int(e - b); });
      EXPECT_TRUE(inner.ok());
    }
  });
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(total.load(), 800);
}

TEST(ThreadPoolTest, ParallelForReportsAThrowingBody) {
  std::unique_ptr<ThreadPool> pool = makePool(2);
  std::atomic<int> ran{0};
  Status status = pool->parallelFor(16, [&](size_t begin, size_t) {
    ++ran;
    if (begin == 0)
      throw std::runtime_error("boom");
  });
  EXPECT_EQ(status.code(), MS_INTERNAL);
  EXPECT_GE(ran.load(), 1);
  // The pool still works afterwards.
  std::atomic<int> count{0};
  ASSERT_TRUE(pool->submit([&] { throw std::runtime_error("task"); }).ok());
  ASSERT_TRUE(
      pool->parallelFor(4, [&](size_t b, size_t e) { count += int(e - b); })
          .ok());
  EXPECT_EQ(count.load(), 4);
}
} // namespace
