//===- SharedRaces.h - data races on a block's shared memory --------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The PTX interpreter's race detector: every access to a block's shared
// memory is checked against the accesses before it by happens-before, with
// a vector clock per thread (the FastTrack algorithm). Two accesses of a
// byte by different threads, one of them a write, race unless the first
// happens before the second through the block's synchronization:
// `bar.sync` (every thread at it sees what any did before), an mbarrier
// (an arrival releases what the thread did, a wait that sees the phase
// complete acquires what every arrival of it released), and the
// asynchronous writes that complete an mbarrier's transactions (TMA
// loads: an agent of the mbarrier's own, whose writes the phase's waiters
// see), and shuffles (shfl.sync), whose lanes wait for each other: what a
// lane did before one happens before what any did after, as the
// hardware's convergence gives (MLIR's gpu.all_reduce relies on it,
// though the PTX memory model asks for bar.warp.sync). The other warp-wide
// instructions (mma.sync, ldmatrix, wgmma) order nothing, as the memory
// model says. A race is found whatever order the interpreter runs the
// threads in, where results only show the ones its orders expose.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_TEST_CUDA_SHAREDRACES_H
#define MS_RUNTIME_TEST_CUDA_SHAREDRACES_H

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ms::fakecuda {
/// A vector clock: for each thread of the block, then each agent, the last
/// of its clock ticks known.
using VectorClock = std::vector<uint32_t>;

/// Happens-before checks of one block's shared memory at a time.
class SharedRaces {
public:
  /// The most agents (mbarriers) a block may have.
  static constexpr unsigned kMaxAgents = 64;

  /// Starts a block of `threads` threads over `bytes` bytes of shared
  /// memory: nothing accessed, no agent, each thread at its first tick.
  void reset(unsigned threads, uint64_t bytes) {
    count = threads;
    agents = 0;
    // Each block reuses the last one's memory.
    clocks.resize(threads);
    for (unsigned t = 0; t < threads; ++t) {
      clocks[t].assign(threads + kMaxAgents, 0);
      clocks[t][t] = 1;
    }
    shadows.assign(bytes, Shadow());
    pooled = 0;
  }

  /// A new agent's clock index, or -1 past kMaxAgents.
  int newAgent() {
    return agents < kMaxAgents ? static_cast<int>(count + agents++) : -1;
  }
  /// A clock of no ticks (an mbarrier's phase before any arrival).
  VectorClock empty() const { return VectorClock(count + kMaxAgents, 0); }
  /// What thread `t` has seen.
  const VectorClock &clockOf(unsigned t) const { return clocks[t]; }

  /// Checks and records thread `t`'s read of [offset, offset + size)
  /// (instruction line `line`); returns the race found, or "".
  std::string read(unsigned t, uint64_t offset, uint64_t size, long line) {
    const VectorClock &c = clocks[t];
    for (uint64_t i = offset; i < offset + size && i < shadows.size(); ++i) {
      Shadow &s = shadows[i];
      if (s.writer != kNone && s.writer != t && s.writeClock > c[s.writer])
        return describe(i, t, "reads", s.writer, "wrote", s.writeLine, line);
      s.readLine = static_cast<int32_t>(line);
      if (s.readers >= 0) {
        pool[s.readers][t] = c[t];
      } else if (s.reader == kNone || s.reader == t ||
                 s.readClock <= c[s.reader]) {
        s.reader = t;
        s.readClock = c[t];
      } else {
        // Concurrent readers: each thread's last read tick.
        if (pooled == pool.size())
          pool.emplace_back();
        VectorClock &readers = pool[pooled];
        readers.assign(count, 0);
        readers[s.reader] = s.readClock;
        readers[t] = c[t];
        s.readers = static_cast<int32_t>(pooled++);
      }
    }
    return "";
  }

  /// Checks and records thread `t`'s write of [offset, offset + size).
  /// Given the bytes `before` and `after` it (a store), a byte it leaves as
  /// it was is no access: threads storing the same value (gpu.all_reduce's
  /// lanes its total) do not race, as CUDA's racecheck counts them.
  std::string write(unsigned t, uint64_t offset, uint64_t size, long line,
                    const uint8_t *before = nullptr,
                    const uint8_t *after = nullptr) {
    for (uint64_t i = 0; i < size; ++i) {
      if (before && after && before[i] == after[i])
        continue;
      if (std::string race = checkWrite(clocks[t], t, offset + i, 1, line);
          !race.empty())
        return race;
      record(t, clocks[t][t], offset + i, 1, line);
    }
    return "";
  }

  /// Checks a write of [offset, offset + size) by `writer` (a thread, or
  /// an agent whose write the thread issued) that has seen `c`, without
  /// recording it.
  std::string checkWrite(const VectorClock &c, unsigned writer, uint64_t offset,
                         uint64_t size, long line) const {
    for (uint64_t i = offset; i < offset + size && i < shadows.size(); ++i) {
      const Shadow &s = shadows[i];
      if (s.writer != kNone && s.writer != writer && s.writeClock > c[s.writer])
        return describe(i, writer, "writes", s.writer, "wrote", s.writeLine,
                        line);
      if (s.readers >= 0) {
        const VectorClock &readers = pool[s.readers];
        for (unsigned r = 0; r < count; ++r)
          if (r != writer && readers[r] > c[r])
            return describe(i, writer, "writes", r, "read", s.readLine, line);
      } else if (s.reader != kNone && s.reader != writer &&
                 s.readClock > c[s.reader]) {
        return describe(i, writer, "writes", s.reader, "read", s.readLine,
                        line);
      }
    }
    return "";
  }

  /// Records agent `agent`'s write of [offset, offset + size) at its tick
  /// `tick` (checked at its issue with checkWrite).
  void recordAgent(int agent, uint32_t tick, uint64_t offset, uint64_t size,
                   long line) {
    record(static_cast<unsigned>(agent), tick, offset, size, line);
  }

  /// bar.sync of `threads`: each sees what any of them has seen, then
  /// ticks.
  void barrier(const std::vector<unsigned> &threads) {
    if (threads.empty())
      return;
    VectorClock joined = clocks[threads.front()];
    for (unsigned t : threads)
      join(joined, clocks[t]);
    for (unsigned t : threads) {
      clocks[t] = joined;
      ++clocks[t][t];
    }
  }

  /// An arrival of thread `t` at an mbarrier: `pending` (the phase's)
  /// takes what `t` has seen, then `t` ticks.
  void release(unsigned t, VectorClock &pending) {
    join(pending, clocks[t]);
    ++clocks[t][t];
  }

  /// A wait of thread `t` that saw a phase complete: `t` sees what the
  /// phase's arrivals and agent did (`done`).
  void acquire(unsigned t, const VectorClock &done) { join(clocks[t], done); }

  /// Takes the later of each of `from`'s ticks into `into`.
  static void join(VectorClock &into, const VectorClock &from) {
    for (size_t i = 0; i < into.size() && i < from.size(); ++i)
      into[i] = std::max(into[i], from[i]);
  }

private:
  static constexpr uint32_t kNone = UINT32_MAX;

  /// A byte's last write, and its reads since: one reader's last tick
  /// while the reads are ordered, else each thread's (pool[readers]).
  struct Shadow {
    uint32_t writer = kNone, writeClock = 0;
    uint32_t reader = kNone, readClock = 0;
    int32_t readers = -1;
    int32_t writeLine = 0, readLine = 0;
  };

  void record(unsigned writer, uint32_t tick, uint64_t offset, uint64_t size,
              long line) {
    for (uint64_t i = offset; i < offset + size && i < shadows.size(); ++i) {
      Shadow &s = shadows[i];
      s.writer = writer;
      s.writeClock = tick;
      s.writeLine = static_cast<int32_t>(line);
      s.reader = kNone;
      s.readers = -1;
    }
  }

  /// Who did what: a thread, or the TMA loads of an mbarrier.
  std::string actor(unsigned who) const {
    return who < count
               ? "thread " + std::to_string(who)
               : "a TMA load (agent " + std::to_string(who - count) + ")";
  }

  std::string describe(uint64_t offset, unsigned who, const char *does,
                       unsigned other, const char *did, long otherLine,
                       long line) const {
    return "a data race on shared memory at offset " + std::to_string(offset) +
           ": " + actor(who) + " " + does + " (line " + std::to_string(line) +
           ") what " + actor(other) + " " + did + " (line " +
           std::to_string(otherLine) +
           ") with no barrier or mbarrier wait ordering them";
  }

  unsigned count = 0, agents = 0;
  std::vector<VectorClock> clocks;
  std::vector<Shadow> shadows;
  /// Clocks of concurrent readers, pool[0, pooled) in use.
  std::vector<VectorClock> pool;
  size_t pooled = 0;
};
} // namespace ms::fakecuda

#endif // MS_RUNTIME_TEST_CUDA_SHAREDRACES_H
