//===- GlobalRaces.h - data races between a launch's blocks ---------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The PTX interpreter's check of global memory between the blocks of one
// launch. Nothing orders two blocks of a grid (no grid-wide barrier, and
// ms's kernels use no atomics), so a byte that one block writes and another
// block reads or writes in the same launch is a data race whatever order
// the blocks run in: on a GPU, where blocks run at once, the reader may see
// either value and the last writer wins by chance. As for shared memory
// (SharedRaces.h), a store that leaves a byte as it was is no access. The
// interpreter runs a grid's blocks one after another, so each byte keeps
// the block that last wrote it and the block that read it (or that several
// did).
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_TEST_CUDA_GLOBALRACES_H
#define MS_RUNTIME_TEST_CUDA_GLOBALRACES_H

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace ms::fakecuda {
/// Checks of one launch's global memory accesses between its blocks (one
/// object a launch).
class GlobalRaces {
public:
  /// Checks and records block `block`'s read of [address, address + size)
  /// (instruction line `line`); returns the race found, or "".
  std::string read(unsigned block, uint64_t address, uint64_t size, long line) {
    for (uint64_t i = address; i < address + size; ++i) {
      Shadow &s = shadowOf(i);
      if (s.writer != kNone && s.writer != block)
        return describe(i, block, "reads", s.writer, "wrote", s.writeLine,
                        line);
      if (s.reader == kNone) {
        s.reader = block;
        s.readLine = static_cast<int32_t>(line);
      } else if (s.reader != block) {
        s.readers = true;
      }
    }
    return "";
  }

  /// Checks and records block `block`'s write of [address, address +
  /// size), whose bytes were `before` and are `after`: a byte left as it
  /// was is no access.
  std::string write(unsigned block, uint64_t address, uint64_t size, long line,
                    const uint8_t *before, const uint8_t *after) {
    for (uint64_t i = 0; i < size; ++i) {
      if (before && after && before[i] == after[i])
        continue;
      Shadow &s = shadowOf(address + i);
      if (s.writer != kNone && s.writer != block)
        return describe(address + i, block, "writes", s.writer, "wrote",
                        s.writeLine, line);
      if (s.reader != kNone && (s.reader != block || s.readers))
        return describe(address + i, block, "writes",
                        s.reader != block ? s.reader : kNone, "read",
                        s.readLine, line);
      s.writer = block;
      s.writeLine = static_cast<int32_t>(line);
    }
    return "";
  }

private:
  static constexpr uint32_t kNone = UINT32_MAX;

  /// A byte's writer and reader blocks (`readers`: more than one read it).
  struct Shadow {
    uint32_t writer = kNone, reader = kNone;
    int32_t writeLine = 0, readLine = 0;
    bool readers = false;
  };

  static std::string describe(uint64_t address, unsigned who, const char *does,
                              unsigned other, const char *did, long otherLine,
                              long line) {
    std::string them = other == kNone ? std::string("other blocks")
                                      : "block " + std::to_string(other);
    return "a data race on global memory at address " +
           std::to_string(address) + ": block " + std::to_string(who) + " " +
           does + " (line " + std::to_string(line) + ") what " + them + " " +
           did + " (line " + std::to_string(otherLine) +
           ") in the same launch, which nothing orders";
  }

  /// The shadows of 16 aligned bytes, looked up together: an access (at
  /// most 16 bytes, aligned to its size) takes one lookup.
  static constexpr uint64_t kChunk = 16;
  using Chunk = std::array<Shadow, kChunk>;

  Shadow &shadowOf(uint64_t address) {
    uint64_t chunk = address / kChunk;
    if (chunk != lastChunk || !last) {
      last = &shadows[chunk];
      lastChunk = chunk;
    }
    return (*last)[address % kChunk];
  }

  std::unordered_map<uint64_t, Chunk> shadows;
  /// The chunk looked up last (unordered_map keeps its elements in place).
  Chunk *last = nullptr;
  uint64_t lastChunk = 0;
};
} // namespace ms::fakecuda

#endif // MS_RUNTIME_TEST_CUDA_GLOBALRACES_H
