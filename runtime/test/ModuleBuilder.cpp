//===- ModuleBuilder.cpp - writes .msm files for the tests ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

using namespace ms;
using namespace ms::test;

format::Header ms::test::readHeader(const std::vector<uint8_t> &file) {
  format::Header header;
  std::memcpy(&header, file.data(), sizeof(header));
  return header;
}

void ms::test::writeHeader(std::vector<uint8_t> &file,
                           const format::Header &header) {
  std::memcpy(file.data(), &header, sizeof(header));
}

format::SectionEntry ms::test::readEntry(const std::vector<uint8_t> &file,
                                         size_t index) {
  format::SectionEntry entry;
  std::memcpy(&entry,
              file.data() + readHeader(file).sectionTableOffset +
                  index * sizeof(entry),
              sizeof(entry));
  return entry;
}

void ms::test::writeEntry(std::vector<uint8_t> &file, size_t index,
                          const format::SectionEntry &entry) {
  std::memcpy(file.data() + readHeader(file).sectionTableOffset +
                  index * sizeof(entry),
              &entry, sizeof(entry));
}

void ms::test::fixChecksums(std::vector<uint8_t> &file) {
  if (file.size() < sizeof(format::Header))
    return;
  format::Header header = readHeader(file);
  for (uint32_t i = 0; i < header.sectionCount; ++i) {
    // Skip what a corrupted header places outside the file.
    uint64_t at = header.sectionTableOffset + i * sizeof(format::SectionEntry);
    if (header.sectionTableOffset > file.size() ||
        at + sizeof(format::SectionEntry) > file.size())
      break;
    format::SectionEntry entry = readEntry(file, i);
    if (entry.offset <= file.size() &&
        entry.size <= file.size() - entry.offset) {
      const uint8_t *bytes = file.data() + entry.offset;
      entry.checksum = entry.flags & format::kWordChecksum
                           ? format::fnv1a64Words(bytes, entry.size)
                           : format::fnv1a64(bytes, entry.size);
      writeEntry(file, i, entry);
    }
  }
  header.headerChecksum =
      format::fnv1a64(&header, offsetof(format::Header, headerChecksum));
  writeHeader(file, header);
}

std::vector<uint8_t>
ms::test::buildModuleFile(const std::vector<Section> &sections) {
  uint64_t tableOffset = sizeof(format::Header);
  uint64_t offset = format::alignUp(
      tableOffset + sections.size() * sizeof(format::SectionEntry));
  std::vector<format::SectionEntry> entries;
  for (const Section &section : sections) {
    format::SectionEntry entry{};
    entry.kind = section.kind;
    entry.offset = offset;
    entry.size = section.bytes.size();
    entry.requirements = section.requirements;
    entries.push_back(entry);
    offset = format::alignUp(offset + section.bytes.size());
  }
  std::vector<uint8_t> file(offset, 0);
  format::Header header{};
  std::memcpy(header.magic, format::kMagic, sizeof(header.magic));
  header.version = format::kVersion;
  header.sectionCount = static_cast<uint32_t>(sections.size());
  header.fileSize = file.size();
  header.sectionTableOffset = tableOffset;
  writeHeader(file, header);
  for (size_t i = 0; i < sections.size(); ++i) {
    std::copy(sections[i].bytes.begin(), sections[i].bytes.end(),
              file.begin() + entries[i].offset);
    writeEntry(file, i, entries[i]);
  }
  fixChecksums(file);
  return file;
}

std::vector<uint8_t> ms::test::readFile(const std::string &path) {
  std::vector<uint8_t> bytes;
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return bytes;
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + got);
  std::fclose(file);
  return bytes;
}

bool ms::test::writeFile(const std::string &path,
                         const std::vector<uint8_t> &bytes) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return false;
  bool ok = bytes.empty() ||
            std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok;
}

std::vector<uint8_t> ModuleParts::build() const {
  std::vector<Section> sections;
  if (withMeta) {
    std::string text = meta.dump(2);
    sections.push_back({uint32_t(format::SectionKind::Meta),
                        std::vector<uint8_t>(text.begin(), text.end())});
  }
  if (withWeights)
    sections.push_back({uint32_t(format::SectionKind::Weights), weights});
  if (!code.empty())
    sections.push_back({codeKind, code});
  return buildModuleFile(sections);
}

const float ms::test::sampleWeights[4] = {1.0f, 2.0f, 3.0f, 4.0f};

float ms::test::sampleOut0(float x, float y, float w) {
  float value = (x + y + w) * w;
  return value > 0.0f ? value : 0.0f;
}

ModuleParts ms::test::sampleModule(std::vector<uint8_t> code) {
  ModuleParts parts;
  parts.meta = nlohmann::json::parse(R"({
    "producer": "ms-runtime-tests",
    "target": "cpu",
    "opt_level": 0,
    "entry": "main",
    "inputs": [
      {"name": "x", "dtype": "f32", "shape": [4], "buffer": 0},
      {"name": "y", "dtype": "f32", "shape": [4], "buffer": 1}
    ],
    "outputs": [
      {"name": "out0", "dtype": "f32", "shape": [4], "buffer": 10},
      {"name": "out1", "dtype": "f32", "shape": [4], "buffer": 11}
    ],
    "buffers": [
      {"id": 0, "kind": "input", "index": 0, "size": 16},
      {"id": 1, "kind": "input", "index": 1, "size": 16},
      {"id": 2, "kind": "weight", "offset": 0, "size": 16},
      {"id": 3, "kind": "arena", "offset": 0, "size": 16},
      {"id": 4, "kind": "arena", "offset": 64, "size": 16},
      {"id": 10, "kind": "output", "index": 0, "size": 16},
      {"id": 11, "kind": "output", "index": 1, "size": 16}
    ],
    "arena_size": 128,
    "kernels": [
      {"name": "ms_kernel_0", "op": "msgraph.add", "loc": "sample.mlir:1:1",
       "args": [16, 16, 16]},
      {"name": "ms_kernel_2", "op": "msgraph.mul", "loc": "sample.mlir:2:1",
       "args": [16, 16, 16]},
      {"name": "ms_kernel_3", "op": "msgraph.relu", "loc": "sample.mlir:3:1",
       "args": [16, 16]}
    ],
    "steps": [
      {"kind": "launch", "kernel": 0, "args": [0, 1, 3]},
      {"kind": "launch", "kernel": 0, "args": [3, 2, 4]},
      {"kind": "launch", "kernel": 1, "args": [4, 2, 3]},
      {"kind": "launch", "kernel": 2, "args": [3, 10]},
      {"kind": "copy", "src": 2, "dst": 11, "size": 16}
    ]
  })");
  parts.weights.resize(sizeof(sampleWeights));
  std::memcpy(parts.weights.data(), sampleWeights, sizeof(sampleWeights));
  parts.code = std::move(code);
  return parts;
}

std::vector<int64_t> CollectiveSpec::dstShape() const {
  std::vector<int64_t> result = shape;
  int64_t g = static_cast<int64_t>(groupSize());
  if (op == "all_gather")
    result[axis] *= g;
  else if (op == "reduce_scatter" || op == "all_slice")
    result[axis] /= g;
  else if (op == "all_to_all") {
    result[axis] /= g;
    result[concatAxis] *= g;
  }
  return result;
}

nlohmann::json CollectiveSpec::step(uint64_t src, uint64_t dst) const {
  nlohmann::json json = {
      {"kind", "collective"}, {"op", op},       {"src", src},      {"dst", dst},
      {"dtype", dtype},       {"shape", shape}, {"groups", groups}};
  if (op == "all_reduce" || op == "reduce_scatter")
    json["reduction"] = reduction;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_slice")
    json["axis"] = axis;
  if (op == "all_to_all") {
    json["split_axis"] = axis;
    json["concat_axis"] = concatAxis;
  }
  if (op == "broadcast")
    json["root"] = root;
  return json;
}

/// Returns the bytes of one element of dtype `name` (the module format's
/// names).
static uint64_t dtypeBytes(const std::string &name) {
  if (name == "f64" || name == "i64" || name == "u64")
    return 8;
  if (name == "f32" || name == "i32" || name == "u32")
    return 4;
  if (name == "f16" || name == "bf16" || name == "i16" || name == "u16")
    return 2;
  return 1;
}

ModuleParts ms::test::concurrentQueuesModule(std::vector<uint8_t> code) {
  using Json = nlohmann::json;
  ModuleParts parts = sampleModule(std::move(code));
  parts.meta["queues"] = 2;
  parts.meta["kernels"] = Json::parse(R"([
    {"name": "ms_kernel_0", "args": [16, 16, 16]},
    {"name": "ms_test_wait_flag", "args": [16, 16]},
    {"name": "ms_test_set_flag", "args": [16]}
  ])");
  parts.meta["steps"] = Json::parse(R"([
    {"kind": "launch", "kernel": 1, "args": [3, 11], "queue": 1},
    {"kind": "launch", "kernel": 2, "args": [3]},
    {"kind": "launch", "kernel": 0, "args": [0, 1, 10]}
  ])");
  return parts;
}

ModuleParts
ms::test::collectiveModule(uint32_t ranks,
                           const std::vector<CollectiveSpec> &specs) {
  using Json = nlohmann::json;
  ModuleParts parts;
  parts.withWeights = false;
  Json inputs = Json::array(), outputs = Json::array(), buffers = Json::array(),
       steps = Json::array();
  for (size_t i = 0; i < specs.size(); ++i) {
    const CollectiveSpec &spec = specs[i];
    std::vector<int64_t> dst = spec.dstShape();
    uint64_t srcBytes = dtypeBytes(spec.dtype), dstBytes = srcBytes;
    for (int64_t d : spec.shape)
      srcBytes *= uint64_t(d);
    for (int64_t d : dst)
      dstBytes *= uint64_t(d);
    inputs.push_back({{"name", "x" + std::to_string(i)},
                      {"dtype", spec.dtype},
                      {"shape", spec.shape},
                      {"buffer", 2 * i}});
    outputs.push_back({{"name", "y" + std::to_string(i)},
                       {"dtype", spec.dtype},
                       {"shape", dst},
                       {"buffer", 2 * i + 1}});
    buffers.push_back(
        {{"id", 2 * i}, {"kind", "input"}, {"index", i}, {"size", srcBytes}});
    buffers.push_back({{"id", 2 * i + 1},
                       {"kind", "output"},
                       {"index", i},
                       {"size", dstBytes}});
    steps.push_back(spec.step(2 * i, 2 * i + 1));
  }
  parts.meta = {{"producer", "ms-runtime-tests"},
                {"target", "cpu"},
                {"entry", "main"},
                {"ranks", ranks},
                {"inputs", inputs},
                {"outputs", outputs},
                {"buffers", buffers},
                {"steps", steps}};
  return parts;
}

TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "ms-runtime-test-XXXXXX")
          .string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()))
    path = buffer.data();
}

TempDir::~TempDir() {
  if (path.empty())
    return;
  std::error_code error;
  std::filesystem::remove_all(path, error);
}
