//===- ModuleBuilder.h - writes .msm files for the tests --------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A test-only writer of module files (docs/ModuleFormat.md): header, section
// table, JSON meta, weights and a code section, with valid checksums, plus
// helpers to corrupt one thing at a time.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_TEST_MODULEBUILDER_H
#define MS_RUNTIME_TEST_MODULEBUILDER_H

#include "ms/runtime/ModuleFormat.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ms::test {
/// One section to write.
struct Section {
  /// A format::SectionKind value.
  uint32_t kind = 0;
  /// The bytes.
  std::vector<uint8_t> bytes;
  /// The entry's requirements (format::kCpuFeatures bits for cpu-elf).
  uint64_t requirements = 0;
};

/// Lays out `sections` into a module file image with valid checksums.
std::vector<uint8_t> buildModuleFile(const std::vector<Section> &sections);

/// Recomputes the header checksum and every section checksum of `file`.
void fixChecksums(std::vector<uint8_t> &file);

/// Reads the header of `file`.
format::Header readHeader(const std::vector<uint8_t> &file);
/// Writes the header of `file`.
void writeHeader(std::vector<uint8_t> &file, const format::Header &header);
/// Reads section table entry `index` of `file`.
format::SectionEntry readEntry(const std::vector<uint8_t> &file, size_t index);
/// Writes section table entry `index` of `file`.
void writeEntry(std::vector<uint8_t> &file, size_t index,
                const format::SectionEntry &entry);

/// Returns the bytes of the file at `path` (empty on failure).
std::vector<uint8_t> readFile(const std::string &path);
/// Writes `bytes` to `path`; returns false on failure.
bool writeFile(const std::string &path, const std::vector<uint8_t> &bytes);

/// The parts of a module file, meant to be edited by a test then built.
struct ModuleParts {
  /// The meta JSON.
  nlohmann::json meta;
  /// The weights section; omitted when `withWeights` is false.
  std::vector<uint8_t> weights;
  bool withWeights = true;
  /// The code section; omitted when empty.
  std::vector<uint8_t> code;
  /// The code section's kind.
  uint32_t codeKind = uint32_t(format::SectionKind::CpuElf);
  /// When false, no meta section is written.
  bool withMeta = true;

  /// Returns the module file image.
  std::vector<uint8_t> build() const;
};

/// The sample module: inputs x, y: f32[4]; weight w = {1, 2, 3, 4};
/// out0 = relu((x + y + w) * w) through two arena buffers that share bytes,
/// and out1 = w by a copy step. `code` is the code section.
ModuleParts sampleModule(std::vector<uint8_t> code);

/// The sample module's signature on two queues that must run at the same
/// time: queue 1's first step waits (at most 5 s) for a flag that a later
/// step of queue 0 sets, and reports in out1 whether it saw it (1) or timed
/// out (-1); queue 0 also computes out0 = x + y. Run one step after another
/// on one thread, the wait would time out. `code` is the test kernels.
ModuleParts concurrentQueuesModule(std::vector<uint8_t> code);

/// Computes the sample module's out0 for one element.
float sampleOut0(float x, float y, float w);

/// The sample module's weight values.
extern const float sampleWeights[4];

/// One collective step of collectiveModule() (docs/ModuleFormat.md): its
/// source is input "x<i>", its destination output "y<i>".
struct CollectiveSpec {
  CollectiveSpec() = default;
  /// A step of `op` on `dtype` sources of `shape` over `groups`.
  explicit CollectiveSpec(std::string op, std::string dtype = "f32",
                          std::vector<int64_t> shape = {},
                          std::vector<std::vector<int>> groups = {})
      : op(std::move(op)), dtype(std::move(dtype)), shape(std::move(shape)),
        groups(std::move(groups)) {}

  /// The operation ("all_reduce", ...).
  std::string op;
  /// The dtype name.
  std::string dtype = "f32";
  /// The source's shape on each rank.
  std::vector<int64_t> shape;
  /// The groups of ranks.
  std::vector<std::vector<int>> groups;
  /// The reduction (all_reduce, reduce_scatter).
  std::string reduction = "sum";
  /// The axis (all_gather, reduce_scatter, all_slice) or split axis
  /// (all_to_all), the concatenation axis (all_to_all), the root
  /// (broadcast).
  uint32_t axis = 0, concatAxis = 0, root = 0;

  /// Returns the number of ranks in each group.
  size_t groupSize() const { return groups.empty() ? 1 : groups[0].size(); }
  /// Returns the destination's shape.
  std::vector<int64_t> dstShape() const;
  /// Returns the step's JSON with buffer ids `src` and `dst`.
  nlohmann::json step(uint64_t src, uint64_t dst) const;
};

/// A module compiled for `ranks` ranks whose plan is one collective step per
/// entry of `specs`, from input "x<i>" (buffer 2i) to output "y<i>" (buffer
/// 2i + 1). It has no kernels and no weights.
ModuleParts collectiveModule(uint32_t ranks,
                             const std::vector<CollectiveSpec> &specs);

/// A fresh temporary directory, removed with its files on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  /// Returns the path of `name` inside the directory.
  std::string file(const std::string &name) const { return path + "/" + name; }
  /// The directory path.
  std::string path;
};
} // namespace ms::test

#endif // MS_RUNTIME_TEST_MODULEBUILDER_H
