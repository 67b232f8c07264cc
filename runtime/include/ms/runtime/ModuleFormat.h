//===- ModuleFormat.h - the .msm module file layout -------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The binary layout of a compiled module file (docs/ModuleFormat.md). Shared
// by the compiler's writer and the runtime's loader; plain C++17, no LLVM.
//
// File = Header | SectionEntry[sectionCount] | sections (each 64-byte
// aligned). All integers little-endian.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_MODULEFORMAT_H
#define MS_RUNTIME_MODULEFORMAT_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ms::format {

/// The 8 bytes every module file starts with.
inline constexpr char kMagic[8] = {'M', 'S', 'M', 'O', 'D', 'U', 'L', 'E'};
/// The format version this code writes and the newest it reads.
inline constexpr uint32_t kVersion = 1;
/// Sections and weights inside the weights section are aligned to this.
inline constexpr uint64_t kAlignment = 64;
/// The code section's name of kernel `K` (the meta section's `kernels`, the
/// cpu-elf symbol, the cuda-ptx key) is this prefix and K.
inline constexpr char kKernelPrefix[] = "ms_";

/// Kinds of section.
enum class SectionKind : uint32_t {
  /// UTF-8 JSON: signature, buffers and the execution plan.
  Meta = 1,
  /// Raw weight bytes; each weight starts at a 64-byte aligned offset.
  Weights = 2,
  /// An ELF shared object exporting `void ms_kernel_<N>(void **args)`.
  CpuElf = 3,
  /// PTX text for the CUDA target (reserved).
  CudaPtx = 4,
  /// Program for the NPU simulator (reserved).
  NpuProgram = 5,
};

/// The fixed-size file header.
struct Header {
  char magic[8];
  uint32_t version;
  uint32_t sectionCount;
  /// Total file size in bytes; a shorter file is truncated.
  uint64_t fileSize;
  /// Offset of the section table (sizeof(Header)).
  uint64_t sectionTableOffset;
  /// fnv1a64 of the header bytes before this field.
  uint64_t headerChecksum;
  uint8_t reserved[24];
};
static_assert(sizeof(Header) == 64, "header must be 64 bytes");

/// SectionEntry::flags: the section's checksum is fnv1a64Words (without
/// it, fnv1a64). Other bits are reserved and must be 0.
inline constexpr uint32_t kWordChecksum = 1;

/// One entry of the section table.
struct SectionEntry {
  uint32_t kind;
  /// kWordChecksum or 0.
  uint32_t flags;
  /// Offset from the start of the file (64-byte aligned).
  uint64_t offset;
  uint64_t size;
  /// fnv1a64Words (with kWordChecksum) or fnv1a64 of the section bytes.
  uint64_t checksum;
  /// What the device must have to run a code section: for cpu-elf, bit i
  /// set means CPU feature kCpuFeatures[i]. 0 for data sections.
  uint64_t requirements;
  uint64_t reserved;
};
static_assert(sizeof(SectionEntry) == 48, "section entry must be 48 bytes");

/// The CPU features a cpu-elf section can require, by bit of
/// SectionEntry::requirements, spelled as LLVM's x86 target spells them.
/// Bits are never reused; a new feature is appended.
inline constexpr const char *kCpuFeatures[] = {
    "sse3",        "ssse3",      "sse4.1",       "sse4.2",
    "popcnt",      "avx",        "avx2",         "fma",
    "f16c",        "bmi",        "bmi2",         "lzcnt",
    "movbe",       "avx512f",    "avx512cd",     "avx512bw",
    "avx512dq",    "avx512vl",   "avx512ifma",   "avx512vbmi",
    "avx512vbmi2", "avx512vnni", "avx512bitalg", "avx512vpopcntdq",
    "avx512bf16",  "avx512fp16", "gfni",         "vaes",
    "vpclmulqdq",  "avxvnni"};
/// The number of CPU features this format version names.
inline constexpr unsigned kCpuFeatureCount =
    sizeof(kCpuFeatures) / sizeof(kCpuFeatures[0]);
static_assert(kCpuFeatureCount <= 64, "requirements is a 64-bit mask");

/// 64-bit FNV-1a over `size` bytes, continuing from `seed`.
inline uint64_t fnv1a64(const void *data, size_t size,
                        uint64_t seed = 0xcbf29ce484222325ull) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  uint64_t hash = seed;
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// A faster checksum for large sections (weights), fed piece by piece:
/// four FNV-1a lanes over the 32-byte blocks' little-endian 64-bit words
/// (lane j takes word j of each block), the bytes after the last block
/// FNV-1a'd into lane 0, then the size and the four lanes FNV-1a'd as words
/// into one value. The lanes are independent, so it runs at memory speed,
/// not at one multiply per byte.
class WordChecksum {
public:
  void update(const void *data, size_t size) {
    const auto *bytes = static_cast<const unsigned char *>(data);
    total += size;
    if (pendingSize > 0) {
      size_t take = size < 32 - pendingSize ? size : 32 - pendingSize;
      std::memcpy(pending + pendingSize, bytes, take);
      pendingSize += take;
      bytes += take;
      size -= take;
      if (pendingSize < 32)
        return;
      block(pending);
      pendingSize = 0;
    }
    for (; size >= 32; bytes += 32, size -= 32)
      block(bytes);
    std::memcpy(pending, bytes, size);
    pendingSize = size;
  }
  uint64_t finish() const {
    constexpr uint64_t prime = 0x100000001b3ull;
    uint64_t last[4] = {lanes[0], lanes[1], lanes[2], lanes[3]};
    last[0] = fnv1a64(pending, pendingSize, last[0]);
    uint64_t hash = (0xcbf29ce484222325ull ^ total) * prime;
    for (uint64_t lane : last)
      hash = (hash ^ lane) * prime;
    return hash;
  }

private:
  void block(const unsigned char *bytes) {
    for (int j = 0; j < 4; ++j) {
      uint64_t word;
      std::memcpy(&word, bytes + j * 8, 8);
      lanes[j] = (lanes[j] ^ word) * 0x100000001b3ull;
    }
  }

  uint64_t lanes[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull,
                       0xcbf29ce484222324ull, 0x84222325cbf29ce5ull};
  unsigned char pending[32] = {};
  size_t pendingSize = 0;
  uint64_t total = 0;
};

/// The WordChecksum of `size` bytes.
inline uint64_t fnv1a64Words(const void *data, size_t size) {
  WordChecksum checksum;
  checksum.update(data, size);
  return checksum.finish();
}

/// Rounds `value` up to a multiple of kAlignment.
inline constexpr uint64_t alignUp(uint64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

} // namespace ms::format

#endif // MS_RUNTIME_MODULEFORMAT_H
