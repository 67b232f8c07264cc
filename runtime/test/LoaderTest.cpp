//===- LoaderTest.cpp - module file validation tests ----------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Each test builds a good module file, corrupts one thing, and checks that
// loading fails with the right code and a message naming the file and the
// problem.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"
#include "ms/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace ms;
using namespace ms::rt;
using namespace ms::test;
using Json = nlohmann::json;

namespace {
class LoaderTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(dir.path.empty());
    ASSERT_TRUE(Device::create(MS_DEVICE_CPU, device).ok());
    kernels = readFile(MS_TEST_KERNELS);
    ASSERT_FALSE(kernels.empty()) << "cannot read " << MS_TEST_KERNELS;
    parts = sampleModule(kernels);
    path = dir.file("module.msm");
  }

  /// Writes `bytes` as the module file and loads it.
  Status load(const std::vector<uint8_t> &bytes) {
    EXPECT_TRUE(writeFile(path, bytes));
    Module module;
    return Module::load(device, path, module);
  }

  /// Expects loading `bytes` to fail with `code` and a message containing
  /// the file path and `text`.
  void expectRejected(const std::vector<uint8_t> &bytes, ms_status_code_t code,
                      const std::string &text) {
    Status status = load(bytes);
    ASSERT_FALSE(status.ok()) << "loaded a module expected to fail: " << text;
    EXPECT_EQ(status.code(), code) << status.message();
    std::string message = status.message();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(text), std::string::npos)
        << "expected \"" << text << "\" in: " << message;
  }

  /// Expects the module file at `path` (the sample module's plan) to load
  /// and compute the sample's first output.
  void expectRunsSample() {
    Module module;
    Status status = Module::load(device, path, module);
    ASSERT_TRUE(status.ok()) << status.message();
    Context context;
    ASSERT_TRUE(Context::create(module, context).ok());
    float x[4] = {1, 2, 3, 4}, y[4] = {4, 3, 2, 1};
    std::vector<TensorView> outputs(2);
    ASSERT_TRUE(context
                    .run({TensorView{x, 16, MS_DTYPE_F32, {4}},
                          TensorView{y, 16, MS_DTYPE_F32, {4}}},
                         outputs)
                    .ok());
    for (int i = 0; i < 4; ++i)
      EXPECT_FLOAT_EQ(static_cast<float *>(outputs[0].data)[i],
                      sampleOut0(x[i], y[i], sampleWeights[i]));
  }

  /// Expects the sample module with edited meta to be rejected.
  void expectMetaRejected(const std::string &text,
                          ms_status_code_t code = MS_INVALID_ARGUMENT) {
    expectRejected(parts.build(), code, text);
  }

  TempDir dir;
  Device device;
  std::vector<uint8_t> kernels;
  ModuleParts parts;
  std::string path;
};

TEST_F(LoaderTest, LoadsValidModule) {
  ASSERT_TRUE(writeFile(path, parts.build()));
  Module module;
  Status status = Module::load(device, path, module);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(module.inputCount(), 2u);
  ASSERT_EQ(module.outputCount(), 2u);
  TensorInfo x = module.input(0);
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, MS_DTYPE_F32);
  EXPECT_EQ(x.shape, std::vector<int64_t>{4});
  EXPECT_EQ(x.size, 16u);
  EXPECT_EQ(module.output(1).name, "out1");
  EXPECT_TRUE(module.input(2).name.empty());
  EXPECT_NE(std::string(module.meta()).find("ms-runtime-tests"),
            std::string::npos);
}

TEST_F(LoaderTest, RejectsNonexistentFile) {
  Module module;
  Status status = Module::load(device, dir.file("missing.msm"), module);
  EXPECT_EQ(status.code(), MS_NOT_FOUND);
  EXPECT_NE(std::string(status.message()).find("missing.msm"),
            std::string::npos);
}

TEST_F(LoaderTest, RejectsDirectory) {
  Module module;
  Status status = Module::load(device, dir.path, module);
  EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(status.message()).find("not a regular file"),
            std::string::npos);
}

TEST_F(LoaderTest, RejectsEmptyFile) {
  expectRejected({}, MS_DATA_LOSS, "shorter than the 64-byte module header");
}

TEST_F(LoaderTest, RejectsFileShorterThanHeader) {
  std::vector<uint8_t> bytes = parts.build();
  bytes.resize(63);
  expectRejected(bytes, MS_DATA_LOSS, "63 bytes, shorter than the 64-byte");
}

TEST_F(LoaderTest, RejectsWrongMagic) {
  std::vector<uint8_t> bytes = parts.build();
  bytes[0] = 'X';
  expectRejected(bytes, MS_INVALID_ARGUMENT, "bad magic");
}

TEST_F(LoaderTest, RejectsNewerVersion) {
  std::vector<uint8_t> bytes = parts.build();
  format::Header header = readHeader(bytes);
  header.version = format::kVersion + 1;
  writeHeader(bytes, header);
  fixChecksums(bytes);
  expectRejected(bytes, MS_UNIMPLEMENTED, "unsupported module format version");
}

TEST_F(LoaderTest, RejectsHeaderChecksumMismatch) {
  std::vector<uint8_t> bytes = parts.build();
  format::Header header = readHeader(bytes);
  header.headerChecksum ^= 1;
  writeHeader(bytes, header);
  expectRejected(bytes, MS_DATA_LOSS, "header checksum mismatch");
}

TEST_F(LoaderTest, RejectsTruncatedFile) {
  std::vector<uint8_t> bytes = parts.build();
  bytes.pop_back();
  expectRejected(bytes, MS_DATA_LOSS, "(truncated)");
}

TEST_F(LoaderTest, RejectsPaddedFile) {
  std::vector<uint8_t> bytes = parts.build();
  bytes.push_back(0);
  expectRejected(bytes, MS_DATA_LOSS, "(padded)");
}

TEST_F(LoaderTest, RejectsSectionTableOutsideFile) {
  std::vector<uint8_t> bytes = parts.build();
  format::Header header = readHeader(bytes);
  header.sectionCount = 1u << 30;
  writeHeader(bytes, header);
  fixChecksums(bytes);
  expectRejected(bytes, MS_DATA_LOSS, "section table");
}

TEST_F(LoaderTest, RejectsSectionTableOverlappingHeader) {
  std::vector<uint8_t> bytes = parts.build();
  format::Header header = readHeader(bytes);
  header.sectionTableOffset = 0;
  writeHeader(bytes, header);
  fixChecksums(bytes);
  expectRejected(bytes, MS_DATA_LOSS, "section table");
}

TEST_F(LoaderTest, RejectsSectionOutsideFile) {
  std::vector<uint8_t> bytes = parts.build();
  format::SectionEntry entry = readEntry(bytes, 1);
  entry.size = bytes.size();
  writeEntry(bytes, 1, entry);
  expectRejected(bytes, MS_DATA_LOSS, "section 1 (weights)");
}

TEST_F(LoaderTest, RejectsMisalignedSection) {
  std::vector<uint8_t> bytes = parts.build();
  format::SectionEntry entry = readEntry(bytes, 1);
  entry.offset += 8;
  writeEntry(bytes, 1, entry);
  expectRejected(bytes, MS_DATA_LOSS, "not 64-byte aligned");
}

TEST_F(LoaderTest, RejectsSectionOverlappingHeader) {
  std::vector<uint8_t> bytes = parts.build();
  format::SectionEntry entry = readEntry(bytes, 1);
  entry.offset = 0;
  writeEntry(bytes, 1, entry);
  expectRejected(bytes, MS_DATA_LOSS, "overlaps the header");
}

TEST_F(LoaderTest, RejectsSectionChecksumMismatch) {
  std::vector<uint8_t> bytes = parts.build();
  format::SectionEntry entry = readEntry(bytes, 1);
  bytes[entry.offset] ^= 0xff;
  expectRejected(bytes, MS_DATA_LOSS, "section 1 (weights): checksum mismatch");
}

TEST_F(LoaderTest, LoadsAndChecksWordChecksumSection) {
  // The compiler writes every section with the faster word checksum.
  std::vector<uint8_t> bytes = parts.build();
  format::SectionEntry entry = readEntry(bytes, 1);
  entry.flags = format::kWordChecksum;
  writeEntry(bytes, 1, entry);
  fixChecksums(bytes);
  EXPECT_NE(readEntry(bytes, 1).checksum,
            format::fnv1a64(bytes.data() + entry.offset, entry.size));
  Status status = load(bytes);
  EXPECT_TRUE(status.ok()) << status.message();
  bytes[entry.offset + entry.size - 1] ^= 0x01;
  expectRejected(bytes, MS_DATA_LOSS, "section 1 (weights): checksum mismatch");
}

TEST_F(LoaderTest, RejectsUnknownSectionFlags) {
  std::vector<uint8_t> bytes = parts.build();
  format::SectionEntry entry = readEntry(bytes, 1);
  entry.flags = 2;
  writeEntry(bytes, 1, entry);
  fixChecksums(bytes);
  expectRejected(bytes, MS_DATA_LOSS, "section 1 (weights): unknown flags");
}

TEST(WordChecksumTest, PiecesGiveTheWholeChecksum) {
  // Fed in pieces of any sizes, the checksum is that of the whole; any
  // changed byte, or one byte more, changes it.
  std::vector<uint8_t> data(301);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 37 + 11);
  for (size_t size : {0, 1, 31, 32, 33, 64, 100, 300}) {
    uint64_t whole = format::fnv1a64Words(data.data(), size);
    for (size_t piece : {1, 5, 31, 32, 33, 70}) {
      format::WordChecksum checksum;
      for (size_t at = 0; at < size; at += piece)
        checksum.update(data.data() + at, std::min(piece, size - at));
      EXPECT_EQ(checksum.finish(), whole) << size << " in pieces of " << piece;
    }
    for (size_t at = 0; at < size; at += 13) {
      std::vector<uint8_t> changed(data.begin(), data.begin() + size);
      changed[at] ^= 0x80;
      EXPECT_NE(format::fnv1a64Words(changed.data(), size), whole)
          << "byte " << at << " of " << size;
    }
    EXPECT_NE(format::fnv1a64Words(data.data(), size + 1), whole);
  }
}

TEST_F(LoaderTest, RejectsUnknownSectionKind) {
  std::vector<uint8_t> bytes = parts.build();
  format::SectionEntry entry = readEntry(bytes, 1);
  entry.kind = 42;
  writeEntry(bytes, 1, entry);
  expectRejected(bytes, MS_DATA_LOSS, "unknown section kind 42");
}

TEST_F(LoaderTest, RejectsMissingMeta) {
  parts.withMeta = false;
  expectMetaRejected("no meta section");
}

TEST_F(LoaderTest, RejectsDuplicateMeta) {
  std::string text = parts.meta.dump();
  std::vector<uint8_t> meta(text.begin(), text.end());
  uint32_t kind = uint32_t(format::SectionKind::Meta);
  expectRejected(buildModuleFile({{kind, meta}, {kind, meta}}),
                 MS_INVALID_ARGUMENT, "more than one meta section");
}

TEST_F(LoaderTest, RejectsMalformedJson) {
  std::string text = parts.meta.dump();
  text.pop_back();
  expectRejected(buildModuleFile({{uint32_t(format::SectionKind::Meta),
                                   {text.begin(), text.end()}}}),
                 MS_INVALID_ARGUMENT, "malformed JSON");
}

TEST_F(LoaderTest, RejectsMetaThatIsNotAnObject) {
  parts.meta = Json::array({1, 2});
  expectMetaRejected("root: expected an object");
}

TEST_F(LoaderTest, RejectsMissingSteps) {
  parts.meta.erase("steps");
  expectMetaRejected("missing \"steps\"");
}

TEST_F(LoaderTest, RejectsWrongFieldType) {
  parts.meta["buffers"][2]["size"] = "16";
  expectMetaRejected("buffers[2] (id 2).size: expected a non-negative integer");
}

TEST_F(LoaderTest, RejectsDuplicateBufferId) {
  parts.meta["buffers"][1]["id"] = 0;
  expectMetaRejected("duplicate buffer id");
}

TEST_F(LoaderTest, RejectsUnknownBufferKind) {
  parts.meta["buffers"][3]["kind"] = "scratch";
  expectMetaRejected("unknown buffer kind \"scratch\"");
}

TEST_F(LoaderTest, RejectsStepWithNonexistentBuffer) {
  parts.meta["steps"][1]["args"][2] = 99;
  expectMetaRejected("steps[1].args[2]: buffer 99 does not exist");
}

TEST_F(LoaderTest, RejectsCopyWithNonexistentBuffer) {
  parts.meta["steps"][4]["src"] = 98;
  expectMetaRejected("steps[4].src: buffer 98 does not exist");
}

TEST_F(LoaderTest, RejectsStepWithNonexistentKernel) {
  parts.meta["steps"][0]["kernel"] = 3;
  expectMetaRejected("steps[0].kernel: kernel 3 does not exist");
}

TEST_F(LoaderTest, RejectsWeightRangeOutsideSection) {
  parts.meta["buffers"][2]["size"] = 32;
  expectMetaRejected("weight range [0, +32) lies outside the 16-byte weights");
}

TEST_F(LoaderTest, RejectsWeightWithoutWeightsSection) {
  parts.withWeights = false;
  expectMetaRejected("lies outside the 0-byte weights section");
}

TEST_F(LoaderTest, RejectsMisalignedWeight) {
  parts.weights.resize(128);
  parts.meta["buffers"][2]["offset"] = 4;
  expectMetaRejected("weight offset 4 is not 64-byte aligned");
}

TEST_F(LoaderTest, RejectsPerRankWeightOutsideSection) {
  // One block per rank: rank 1's block starts 64 bytes in.
  parts.meta["ranks"] = 2;
  parts.meta["buffers"][2]["rank_stride"] = 64;
  expectMetaRejected("weight range [0, +80) lies outside the 16-byte weights");
}

TEST_F(LoaderTest, RejectsMisalignedRankStride) {
  parts.meta["ranks"] = 2;
  parts.meta["buffers"][2]["rank_stride"] = 32;
  expectMetaRejected(
      "rank_stride 32 must be a multiple of 64 of at least the size 16");
}

TEST_F(LoaderTest, LoadsPerRankWeightInsideSection) {
  parts.weights.resize(128);
  parts.meta["ranks"] = 2;
  parts.meta["buffers"][2]["rank_stride"] = 64;
  EXPECT_TRUE(load(parts.build()).ok());
}

/// Writes a weight file `name` in the test's directory holding 64 junk
/// bytes and then the sample's weights, and points the sample's weight at
/// them (`recorded` is the path the meta names); returns the file's path.
static std::string useWeightFile(ModuleParts &parts, const TempDir &dir,
                                 const std::string &name,
                                 const std::string &recorded) {
  std::vector<uint8_t> bytes(64, 0xAB);
  const auto *weights = reinterpret_cast<const uint8_t *>(sampleWeights);
  bytes.insert(bytes.end(), weights, weights + sizeof(sampleWeights));
  std::string path = dir.file(name);
  EXPECT_TRUE(writeFile(path, bytes));
  char checksum[24];
  std::snprintf(checksum, sizeof(checksum), "0x%016llx",
                static_cast<unsigned long long>(
                    format::fnv1a64Words(bytes.data(), bytes.size())));
  parts.meta["weight_files"] = Json::array(
      {{{"path", recorded}, {"size", bytes.size()}, {"checksum", checksum}}});
  parts.meta["buffers"][2]["file"] = 0;
  parts.meta["buffers"][2]["offset"] = 64;
  parts.withWeights = false;
  return path;
}

TEST_F(LoaderTest, RunsWeightInWeightFile) {
  // Relative to the module file's directory, whatever the working directory.
  useWeightFile(parts, dir, "w.bin", "w.bin");
  ASSERT_TRUE(writeFile(path, parts.build()));
  expectRunsSample();
}

TEST_F(LoaderTest, RunsWeightInWeightFileByAbsolutePath) {
  useWeightFile(parts, dir, "w.bin", dir.file("w.bin"));
  ASSERT_TRUE(writeFile(path, parts.build()));
  expectRunsSample();
}

/// Points the sample's weight at a weight file holding its 4 values as the
/// transpose of a 2x2 matrix, with the relayout that gives them back.
static void useRelaidWeightFile(ModuleParts &parts, const TempDir &dir) {
  float transposed[4] = {sampleWeights[0], sampleWeights[2], sampleWeights[1],
                         sampleWeights[3]};
  std::vector<uint8_t> bytes(64, 0xAB);
  const auto *values = reinterpret_cast<const uint8_t *>(transposed);
  bytes.insert(bytes.end(), values, values + sizeof(transposed));
  EXPECT_TRUE(writeFile(dir.file("t.bin"), bytes));
  char checksum[24];
  std::snprintf(checksum, sizeof(checksum), "0x%016llx",
                static_cast<unsigned long long>(
                    format::fnv1a64Words(bytes.data(), bytes.size())));
  parts.meta["weight_files"] = Json::array(
      {{{"path", "t.bin"}, {"size", bytes.size()}, {"checksum", checksum}}});
  parts.meta["buffers"][2]["file"] = 0;
  parts.meta["buffers"][2]["offset"] = 64;
  parts.meta["buffers"][2]["relayout"] = {
      {"shape", {2, 2}}, {"permutation", {1, 0}}, {"element_bytes", 4}};
  parts.withWeights = false;
}

TEST_F(LoaderTest, RunsWeightRelaidFromWeightFile) {
  useRelaidWeightFile(parts, dir);
  ASSERT_TRUE(writeFile(path, parts.build()));
  expectRunsSample();
}

TEST_F(LoaderTest, RejectsMalformedRelayout) {
  useRelaidWeightFile(parts, dir);
  Json &relayout = parts.meta["buffers"][2]["relayout"];
  relayout["permutation"] = {1, 1};
  expectMetaRejected("buffers[2] (id 2).relayout.permutation[1]: expected a "
                     "permutation of the 2 dims, found 1");
  relayout["permutation"] = {1, 0, 2};
  expectMetaRejected("expected a shape of 1 to 16 dims and a permutation of "
                     "as many, found 2 and 3");
  relayout["permutation"] = {1, 0};
  relayout["element_bytes"] = 3;
  expectMetaRejected("relayout.element_bytes: expected 1, 2, 4 or 8, found 3");
  relayout["element_bytes"] = 2;
  relayout["to_bf16"] = true;
  expectMetaRejected("relayout.to_bf16: expected 4-byte (f32) elements to "
                     "round to bf16, found 2");
  relayout["element_bytes"] = 4;
  relayout["to_bf16"] = 1;
  expectMetaRejected("relayout.to_bf16: expected a boolean");
  relayout["to_bf16"] = true;
  relayout["to_f16"] = true;
  expectMetaRejected("relayout.to_f16: expected one of to_bf16 and to_f16");
  relayout["to_bf16"] = false;
  relayout["element_bytes"] = 2;
  expectMetaRejected("relayout.to_f16: expected 4-byte (f32) elements to "
                     "round to f16, found 2");
  relayout["element_bytes"] = 4;
  relayout["to_f16"] = 1;
  expectMetaRejected("relayout.to_f16: expected a boolean");
  relayout["to_f16"] = false;
  relayout["shape"] = {2, 3};
  expectMetaRejected("expected a size of 24 bytes (the relayout's 6 "
                     "elements), found 16");
  relayout["shape"] = {2, 2};
  parts.meta["buffers"][2]["offset"] = 128;
  expectMetaRejected(
      "weight range [128, +16) lies outside the 80-byte weight file 't.bin'");
  parts.meta["buffers"][2].erase("file");
  expectMetaRejected("buffers[2] (id 2).relayout: expected a relayout only "
                     "for a weight in a weight file");
}

TEST_F(LoaderTest, RejectsMissingWeightFile) {
  std::string file = useWeightFile(parts, dir, "w.bin", "w.bin");
  ASSERT_EQ(std::remove(file.c_str()), 0);
  expectRejected(parts.build(), MS_NOT_FOUND,
                 "weight file '" + file +
                     "' (recorded as 'w.bin'): cannot open: No such file");
}

TEST_F(LoaderTest, RejectsChangedWeightFile) {
  std::string file = useWeightFile(parts, dir, "w.bin", "w.bin");
  std::vector<uint8_t> bytes = readFile(file);
  bytes[70] ^= 1;
  ASSERT_TRUE(writeFile(file, bytes));
  expectRejected(parts.build(), MS_DATA_LOSS,
                 "weight file '" + file + "': checksum mismatch");
}

TEST_F(LoaderTest, RejectsResizedWeightFile) {
  std::string file = useWeightFile(parts, dir, "w.bin", "w.bin");
  std::vector<uint8_t> bytes = readFile(file);
  bytes.resize(72);
  ASSERT_TRUE(writeFile(file, bytes));
  expectRejected(parts.build(), MS_DATA_LOSS,
                 "weight file '" + file + "' is 72 bytes, expected 80");
}

TEST_F(LoaderTest, RejectsWeightOutsideWeightFile) {
  useWeightFile(parts, dir, "w.bin", "w.bin");
  parts.meta["buffers"][2]["offset"] = 128;
  expectMetaRejected(
      "weight range [128, +16) lies outside the 80-byte weight file 'w.bin'");
}

TEST_F(LoaderTest, RejectsNonexistentWeightFile) {
  useWeightFile(parts, dir, "w.bin", "w.bin");
  parts.meta["buffers"][2]["file"] = 1;
  expectMetaRejected("buffers[2] (id 2).file: expected the index of one of "
                     "the module's 1 weight files, found 1");
  // The largest index is no exception.
  parts.meta["buffers"][2]["file"] = 4294967295u;
  expectMetaRejected("found 4294967295");
}

TEST_F(LoaderTest, RejectsPerRankWeightInWeightFile) {
  useWeightFile(parts, dir, "w.bin", "w.bin");
  parts.meta["ranks"] = 2;
  parts.meta["buffers"][2]["rank_stride"] = 64;
  expectMetaRejected("expected no rank_stride for a weight in a weight file");
}

TEST_F(LoaderTest, RunsWeightInWeightFileThroughLink) {
  // A relative weight file is found beside the module file a link leads
  // to.
  useWeightFile(parts, dir, "w.bin", "w.bin");
  ASSERT_TRUE(writeFile(path, parts.build()));
  TempDir other;
  std::string link = other.file("link.msm");
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  path = link;
  expectRunsSample();
}

TEST_F(LoaderTest, RejectsMalformedWeightFileChecksum) {
  useWeightFile(parts, dir, "w.bin", "w.bin");
  parts.meta["weight_files"][0]["checksum"] = "12345";
  expectMetaRejected("weight_files[0].checksum: expected 0x and 16 hex "
                     "digits, found \"12345\"");
}

TEST_F(LoaderTest, RejectsArenaRangeOutsideArena) {
  parts.meta["buffers"][4]["offset"] = 120;
  expectMetaRejected("arena range [120, +16) lies outside the 128-byte arena");
}

TEST_F(LoaderTest, RejectsInputIndexOutOfRange) {
  parts.meta["buffers"][1]["index"] = 5;
  expectMetaRejected("input index 5 does not exist");
}

TEST_F(LoaderTest, RejectsOutputIndexOutOfRange) {
  parts.meta["buffers"][6]["index"] = 2;
  expectMetaRejected("output index 2 does not exist");
}

TEST_F(LoaderTest, RejectsSignatureBoundToWrongBuffer) {
  parts.meta["inputs"][0]["buffer"] = 3;
  expectMetaRejected("inputs[0].buffer: buffer 3 is not the input buffer");
}

TEST_F(LoaderTest, RejectsSignatureBoundToNonexistentBuffer) {
  parts.meta["outputs"][1]["buffer"] = 77;
  expectMetaRejected("outputs[1].buffer: buffer 77 does not exist");
}

TEST_F(LoaderTest, RejectsUnknownDtype) {
  parts.meta["inputs"][1]["dtype"] = "f24";
  expectMetaRejected("inputs[1].dtype: unknown dtype \"f24\"");
}

TEST_F(LoaderTest, RejectsSizeInconsistentWithShape) {
  parts.meta["inputs"][0]["shape"] = {2, 4};
  expectMetaRejected("buffer 0: size 16 does not match input 'x' of type "
                     "f32[2,4] (32 bytes)");
}

TEST_F(LoaderTest, RejectsDynamicDimension) {
  parts.meta["inputs"][0]["shape"] = {-1};
  expectMetaRejected("dynamic or negative dimension -1");
}

TEST_F(LoaderTest, RejectsDuplicateInputName) {
  parts.meta["inputs"][1]["name"] = "x";
  expectMetaRejected("duplicate input name 'x'");
}

TEST_F(LoaderTest, RejectsUnsupportedStepKind) {
  parts.meta["steps"][0]["kind"] = "all_reduce";
  expectMetaRejected("unsupported step kind \"all_reduce\"", MS_UNIMPLEMENTED);
}

/// Runs the sample's first two launches (the same kernel) as two calls of
/// one body.
static void useBody(ModuleParts &parts) {
  parts.meta["bodies"] = Json::parse(R"([
    {"name": "main_body", "params": 3,
     "steps": [{"kind": "launch", "kernel": 0, "args": [0, 1, 2]}]}
  ])");
  Json &steps = parts.meta["steps"];
  steps[0] = Json::parse(R"({"kind": "call", "body": 0, "args": [0, 1, 3]})");
  steps[1] = Json::parse(R"({"kind": "call", "body": 0, "args": [3, 2, 4]})");
}

TEST_F(LoaderTest, RunsCallsOfABody) {
  useBody(parts);
  ASSERT_TRUE(writeFile(path, parts.build()));
  expectRunsSample();
}

TEST_F(LoaderTest, RejectsCallOfNonexistentBody) {
  useBody(parts);
  parts.meta["steps"][1]["body"] = 5;
  expectMetaRejected(
      "steps[1].body: body 5 does not exist (the module has 1 bodies)");
}

TEST_F(LoaderTest, RejectsCallWithWrongArgumentCount) {
  useBody(parts);
  parts.meta["steps"][0]["args"] = Json::parse("[0, 1]");
  expectMetaRejected(
      "steps[0].args: bodies[0] takes 3 buffers, but the call passes 2");
}

TEST_F(LoaderTest, RejectsCallWithNonexistentBuffer) {
  useBody(parts);
  parts.meta["steps"][1]["args"][2] = 99;
  expectMetaRejected("steps[1].args[2]: buffer 99 does not exist");
}

TEST_F(LoaderTest, RejectsBodyStepWithNonexistentParameter) {
  useBody(parts);
  parts.meta["bodies"][0]["steps"][0]["args"][2] = 3;
  expectMetaRejected(
      "bodies[0].steps[0] (called by steps[0]).args[2]: buffer 3 does not "
      "exist");
}

TEST_F(LoaderTest, RejectsBodyStepOfOtherKind) {
  useBody(parts);
  parts.meta["bodies"][0]["steps"][0] =
      Json::parse(R"({"kind": "call", "body": 0, "args": [0, 1, 2]})");
  expectMetaRejected("bodies[0].steps[0] (called by steps[0]): expected a "
                     "launch or copy step in a body, found \"call\"");
}

TEST_F(LoaderTest, RejectsCallBindingTooSmallBuffer) {
  useBody(parts);
  parts.meta["kernels"][0]["args"][2] = 32;
  expectMetaRejected("bodies[0].steps[0] (called by steps[0]).args[2]: "
                     "buffer 3 holds 16 bytes, but argument 2 of kernel "
                     "'ms_kernel_0' needs 32");
}

TEST_F(LoaderTest, RejectsCopyIntoWeight) {
  parts.meta["steps"][4]["dst"] = 2;
  expectMetaRejected("steps[4].dst: buffer 2 is read-only");
}

TEST_F(LoaderTest, RejectsOversizedCopy) {
  parts.meta["steps"][4]["size"] = 17;
  expectMetaRejected("copy of 17 bytes exceeds buffer");
}

TEST_F(LoaderTest, RejectsKernelWithoutSignature) {
  parts.meta["kernels"][0].erase("args");
  expectMetaRejected("kernels[0]: missing \"args\"");
}

TEST_F(LoaderTest, RejectsStepWithWrongArgumentCount) {
  // The fuzzer's crash class: a step naming a kernel whose signature does
  // not match its buffers.
  parts.meta["steps"][3]["kernel"] = 0;
  expectMetaRejected("steps[3].args: kernel 'ms_kernel_0' takes 3 buffers, "
                     "but the step passes 2");
}

TEST_F(LoaderTest, RejectsStepWithTooSmallBuffer) {
  parts.meta["kernels"][2]["args"][1] = 32;
  expectMetaRejected("steps[3].args[1]: buffer 10 holds 16 bytes, but "
                     "argument 1 of kernel 'ms_kernel_3' needs 32");
}

TEST_F(LoaderTest, RejectsMissingKernelSymbol) {
  parts.meta["kernels"][1]["name"] = "ms_kernel_99";
  expectRejected(parts.build(), MS_NOT_FOUND,
                 "kernel 'ms_kernel_99' not found");
}

TEST_F(LoaderTest, RejectsMissingCodeSection) {
  parts.code.clear();
  expectMetaRejected("module has 3 kernels but no cpu-elf section");
}

TEST_F(LoaderTest, RejectsInvalidElf) {
  parts.code.assign(256, 0x42);
  expectMetaRejected("cannot load the cpu-elf section");
}

TEST_F(LoaderTest, IgnoresOtherDevicesCode) {
  // A module with CUDA code only still loads on the CPU when it needs no
  // kernel (only copies).
  parts.meta["kernels"] = Json::array();
  parts.meta["steps"] =
      Json::parse(R"([{"kind": "copy", "src": 2, "dst": 11, "size": 16}])");
  parts.codeKind = uint32_t(format::SectionKind::CudaPtx);
  parts.code.assign(10, 'x');
  ASSERT_TRUE(load(parts.build()).ok());
}

TEST_F(LoaderTest, LoadsPlanWithQueuesAndEvents) {
  parts.meta["queues"] = 2;
  parts.meta["events"] = 1;
  parts.meta["steps"][1]["queue"] = 1;
  parts.meta["steps"].insert(parts.meta["steps"].begin() + 1,
                             Json{{"kind", "signal"}, {"event", 0}});
  parts.meta["steps"].insert(
      parts.meta["steps"].begin() + 2,
      Json{{"kind", "wait"}, {"event", 0}, {"queue", 1}});
  Status status = load(parts.build());
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST_F(LoaderTest, RejectsBadQueueCount) {
  parts.meta["queues"] = 0;
  expectMetaRejected("root.queues: expected 1 to 64 queues, found 0");
  parts.meta["queues"] = 1000000;
  expectMetaRejected("root.queues: expected 1 to 64 queues, found 1000000");
  parts.meta["queues"] = -1;
  expectMetaRejected("root.queues: expected a non-negative integer");
}

TEST_F(LoaderTest, RejectsBadEventCount) {
  parts.meta["events"] = 1u << 20;
  expectMetaRejected("root.events: expected at most 65536 events, found");
  parts.meta["events"] = "2";
  expectMetaRejected("root.events: expected a non-negative integer");
}

TEST_F(LoaderTest, RejectsBadQueueIndex) {
  parts.meta["steps"][3]["queue"] = 1;
  expectMetaRejected(
      "steps[3].queue: queue 1 does not exist (the module has 1 queues)");
  parts.meta["queues"] = 2;
  parts.meta["steps"][3]["queue"] = "1";
  expectMetaRejected("steps[3].queue: expected a non-negative integer");
}

TEST_F(LoaderTest, RejectsBadEvent) {
  parts.meta["events"] = 1;
  parts.meta["steps"].push_back(Json{{"kind", "signal"}, {"event", 1}});
  expectMetaRejected(
      "steps[5].event: event 1 does not exist (the module has 1 events)");
  parts.meta["steps"][5] = Json{{"kind", "signal"}};
  expectMetaRejected("steps[5]: missing \"event\"");
  parts.meta["events"] = 0;
  parts.meta["steps"][5] = Json{{"kind", "wait"}, {"event", 0}};
  expectMetaRejected("event 0 does not exist (the module has 0 events)");
}

TEST_F(LoaderTest, RejectsWaitBeforeAnySignal) {
  parts.meta["events"] = 2;
  parts.meta["queues"] = 2;
  parts.meta["steps"].insert(parts.meta["steps"].begin(),
                             Json{{"kind", "signal"}, {"event", 0}});
  parts.meta["steps"].insert(
      parts.meta["steps"].begin() + 1,
      Json{{"kind", "wait"}, {"event", 1}, {"queue", 1}});
  parts.meta["steps"].push_back(
      Json{{"kind", "signal"}, {"event", 1}, {"queue", 0}});
  expectMetaRejected("steps[1]: waits on event 1, which no earlier step "
                     "signals");
}

TEST_F(LoaderTest, RejectsCodeForFeaturesTheHostLacks) {
  // Bit 63 names no feature any host has: the message names what is
  // missing and how to compile for this host.
  std::string text = parts.meta.dump();
  uint32_t cpu = uint32_t(format::SectionKind::CpuElf);
  expectRejected(
      buildModuleFile(
          {{uint32_t(format::SectionKind::Meta), {text.begin(), text.end()}},
           {uint32_t(format::SectionKind::Weights), parts.weights},
           {cpu, kernels, uint64_t(1) << 63}}),
      MS_UNAVAILABLE,
      "this cpu device cannot run the module's cpu-elf code: it lacks CPU "
      "features #63 (compile for this host, or for an older CPU with "
      "--target-cpu");
}

TEST_F(LoaderTest, LoadsTheFirstCodeVariantTheHostRuns) {
  // Variants of the same kernels, best first: the first needs a feature no
  // host has (its bytes would not even load), the second runs.
  std::string text = parts.meta.dump();
  uint32_t cpu = uint32_t(format::SectionKind::CpuElf);
  ASSERT_TRUE(writeFile(
      path,
      buildModuleFile(
          {{uint32_t(format::SectionKind::Meta), {text.begin(), text.end()}},
           {uint32_t(format::SectionKind::Weights), parts.weights},
           {cpu, std::vector<uint8_t>(64, 'x'), uint64_t(1) << 63},
           {cpu, kernels}})));
  expectRunsSample();
}

TEST_F(LoaderTest, LoadsItsOwnCodeSectionAmongOthers) {
  // One file for two device kinds: the CPU loads its cpu-elf section and
  // ignores the (here bogus) cuda-ptx one, whatever their order.
  std::string text = parts.meta.dump();
  std::vector<uint8_t> ptx(100, 'p');
  ASSERT_TRUE(writeFile(
      path,
      buildModuleFile(
          {{uint32_t(format::SectionKind::Meta), {text.begin(), text.end()}},
           {uint32_t(format::SectionKind::CudaPtx), ptx},
           {uint32_t(format::SectionKind::Weights), parts.weights},
           {uint32_t(format::SectionKind::CpuElf), kernels}})));
  expectRunsSample();
}

TEST_F(LoaderTest, SurvivesRandomCorruption) {
  // Flip bytes, with and without fixing the checksums: loading must return,
  // never crash. With fixed checksums only the meta section is corrupted:
  // the runtime trusts the code it loads, and the dynamic loader does not
  // validate an ELF image against its file size.
  std::vector<uint8_t> good = parts.build();
  format::SectionEntry meta = readEntry(good, 0);
  std::mt19937 random(1234);
  for (int i = 0; i < 400; ++i) {
    std::vector<uint8_t> bytes = good;
    bool fix = i % 2 == 0;
    size_t begin = fix ? meta.offset : 0;
    size_t limit = fix ? meta.size : bytes.size();
    for (int flips = 0; flips < 1 + i % 4; ++flips)
      bytes[begin + random() % limit] ^= uint8_t(1 + random() % 255);
    if (fix)
      fixChecksums(bytes);
    Status status = load(bytes);
    (void)status;
  }
}
} // namespace
