//===- MemoryPlannerTest.cpp - static arena planning tests ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/MemoryPlanner.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir::ms;

/// Checks that no two buffers with intersecting live ranges share bytes.
static void expectNoConflicts(const std::vector<PlannedBuffer> &buffers,
                              const MemoryPlan &plan) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const PlannedBuffer &a = buffers[i];
    EXPECT_EQ(a.offset % 64, 0u);
    EXPECT_LE(a.offset + a.size, plan.arenaSize);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const PlannedBuffer &b = buffers[j];
      bool liveTogether = !(a.lastUse < b.firstUse || b.lastUse < a.firstUse);
      bool overlap = a.offset < b.offset + b.size && b.offset < a.offset + a.size;
      EXPECT_FALSE(liveTogether && overlap)
          << "buffers " << i << " and " << j << " overlap";
    }
  }
}

TEST(MemoryPlannerTest, ChainReusesMemory) {
  // A chain a -> b -> c -> d: each buffer dies when the next is made.
  std::vector<PlannedBuffer> buffers = {
      {256, 0, 1}, {256, 1, 2}, {256, 2, 3}, {256, 3, 4}};
  MemoryPlan plan = planMemory(buffers);
  expectNoConflicts(buffers, plan);
  EXPECT_EQ(plan.totalBytes, 1024u);
  EXPECT_EQ(plan.peakLiveBytes, 512u);
  EXPECT_EQ(plan.arenaSize, 512u);
}

TEST(MemoryPlannerTest, DisjointLifetimesShareOffsetZero) {
  std::vector<PlannedBuffer> buffers = {{100, 0, 0}, {200, 1, 1}, {50, 2, 2}};
  MemoryPlan plan = planMemory(buffers);
  expectNoConflicts(buffers, plan);
  for (const PlannedBuffer &b : buffers)
    EXPECT_EQ(b.offset, 0u);
  EXPECT_EQ(plan.arenaSize, 256u);
}

TEST(MemoryPlannerTest, AllLiveNeedsEverything) {
  std::vector<PlannedBuffer> buffers = {{64, 0, 5}, {128, 0, 5}, {64, 0, 5}};
  MemoryPlan plan = planMemory(buffers);
  expectNoConflicts(buffers, plan);
  EXPECT_EQ(plan.arenaSize, 256u);
  EXPECT_EQ(plan.peakLiveBytes, 256u);
}

TEST(MemoryPlannerTest, FillsGaps) {
  // A long-lived small buffer and short big ones: the big ones reuse.
  std::vector<PlannedBuffer> buffers = {
      {64, 0, 10}, {1024, 1, 2}, {1024, 3, 4}, {512, 5, 6}};
  MemoryPlan plan = planMemory(buffers);
  expectNoConflicts(buffers, plan);
  EXPECT_EQ(plan.arenaSize, 1088u);
}

TEST(MemoryPlannerTest, EmptyPlan) {
  std::vector<PlannedBuffer> buffers;
  MemoryPlan plan = planMemory(buffers);
  EXPECT_EQ(plan.arenaSize, 0u);
  EXPECT_EQ(plan.totalBytes, 0u);
}

TEST(MemoryPlannerTest, RandomPlansAreValid) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<PlannedBuffer> buffers;
    int n = 1 + rng() % 40;
    for (int i = 0; i < n; ++i) {
      int64_t first = rng() % 30;
      buffers.push_back({1 + rng() % 5000, first, first + (int64_t)(rng() % 10)});
    }
    MemoryPlan plan = planMemory(buffers);
    expectNoConflicts(buffers, plan);
    EXPECT_GE(plan.arenaSize, plan.peakLiveBytes);
    EXPECT_LE(plan.arenaSize, plan.totalBytes + 64 * n);
  }
}
