//===- HostOpsTest.cpp - host steps: string ops run by the runtime --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"

#include "ms/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ms;
using namespace ms::rt;
using namespace ms::test;
using Json = nlohmann::json;

namespace {
/// words: string[4] -> normalized: string[?] (upper case, "monday" dropped),
/// equal: bool[4] (words == key), joined: string[4] (words ++ key).
ModuleParts stringModule() {
  ModuleParts parts;
  parts.withWeights = false;
  parts.meta = Json::parse(R"({
    "inputs": [{"name": "words", "dtype": "string", "shape": [4], "buffer": 0},
               {"name": "key", "dtype": "string", "shape": [1], "buffer": 1}],
    "outputs": [{"name": "normalized", "dtype": "string", "shape": [-1],
                 "buffer": 2},
                {"name": "equal", "dtype": "bool", "shape": [4], "buffer": 3},
                {"name": "joined", "dtype": "string", "shape": [4],
                 "buffer": 4}],
    "buffers": [{"id": 0, "kind": "input", "index": 0, "size": 64},
                {"id": 1, "kind": "input", "index": 1, "size": 16},
                {"id": 2, "kind": "output", "index": 0, "size": 64},
                {"id": 3, "kind": "output", "index": 1, "size": 4},
                {"id": 4, "kind": "output", "index": 2, "size": 64}],
    "arena_size": 0,
    "kernels": [],
    "steps": [
      {"kind": "host", "op": "msgraph.string_normalizer", "operands": 1,
       "args": [0, 2], "dtypes": ["string", "string"], "shapes": [[4], [-1]],
       "attrs": {"case_change_action": "UPPER", "is_case_sensitive": false,
                 "stopwords": ["Monday"], "locale": ""}},
      {"kind": "host", "op": "msgraph.string_equal", "operands": 2,
       "args": [0, 1, 3], "dtypes": ["string", "string", "bool"],
       "shapes": [[4], [1], [4]], "attrs": {}},
      {"kind": "host", "op": "msgraph.string_concat", "operands": 2,
       "args": [0, 1, 4], "dtypes": ["string", "string", "string"],
       "shapes": [[4], [1], [4]]}
    ]
  })");
  return parts;
}

std::vector<std::string> strings(const TensorView &view) {
  std::vector<std::string> out;
  const auto *elements = static_cast<const ms_string_t *>(view.data);
  for (size_t i = 0; i < view.size / sizeof(ms_string_t); ++i)
    out.emplace_back(elements[i].data ? elements[i].data : "", elements[i].size);
  return out;
}

class HostOpsTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(dir.path.empty());
    ASSERT_TRUE(Device::create(MS_DEVICE_CPU, device).ok());
  }

  Status load(const ModuleParts &parts, Module &module) {
    std::string path = dir.file("m" + std::to_string(files++) + ".msm");
    EXPECT_TRUE(writeFile(path, parts.build()));
    return Module::load(device, path, module);
  }

  /// Expects `parts` to be rejected at load with `text` in the message.
  void expectRejected(const ModuleParts &parts, const std::string &text) {
    Module module;
    Status status = load(parts, module);
    ASSERT_FALSE(status.ok()) << "loaded a module expected to fail: " << text;
    EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
        << "expected \"" << text << "\" in: " << status.message();
  }

  TempDir dir;
  Device device;
  int files = 0;
};

/// A string tensor view over `elements`.
TensorView stringView(std::vector<ms_string_t> &elements,
                      std::vector<int64_t> shape) {
  return TensorView{elements.data(), elements.size() * sizeof(ms_string_t),
                    MS_DTYPE_STRING, std::move(shape)};
}
} // namespace

TEST_F(HostOpsTest, RunsStringOpsWithDataDependentShapes) {
  Module module;
  Status status = load(stringModule(), module);
  ASSERT_TRUE(status.ok()) << status.message();
  TensorInfo info = module.output(0);
  EXPECT_EQ(info.shape, (std::vector<int64_t>{-1}));
  EXPECT_EQ(info.size, 64u);
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());

  std::vector<std::string> words = {"monday", "tuesday", "MONDAY",
                                    "\xc3\xa9t\xc3\xa9"};
  std::string key = "tuesday";
  std::vector<ms_string_t> in, keys = {{key.data(), key.size()}};
  for (const std::string &w : words)
    in.push_back(ms_string_t{w.data(), w.size()});
  std::vector<TensorView> outputs(3);
  status = context.run({stringView(in, {4}), stringView(keys, {1})}, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(outputs[0].size, 2 * sizeof(ms_string_t));
  EXPECT_EQ(strings(outputs[0]),
            (std::vector<std::string>{"TUESDAY", "\xc3\x89T\xc3\x89"}));
  const auto *equal = static_cast<const uint8_t *>(outputs[1].data);
  EXPECT_EQ(std::vector<uint8_t>(equal, equal + 4),
            (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(strings(outputs[2]),
            (std::vector<std::string>{"mondaytuesday", "tuesdaytuesday",
                                      "MONDAYtuesday",
                                      "\xc3\xa9t\xc3\xa9tuesday"}));

  // A second run reuses the context: every word is a stop word now, so the
  // result is one empty string.
  std::vector<std::string> stops = {"monday", "Monday", "MONDAY", "mOnDaY"};
  in.clear();
  for (const std::string &w : stops)
    in.push_back(ms_string_t{w.data(), w.size()});
  std::vector<TensorView> again(3);
  status = context.run({stringView(in, {4}), stringView(keys, {1})}, again);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(again[0].shape, (std::vector<int64_t>{1}));
  EXPECT_EQ(strings(again[0]), (std::vector<std::string>{""}));
}

TEST_F(HostOpsTest, RejectsCallerMemoryForDataDependentOutputs) {
  Module module;
  ASSERT_TRUE(load(stringModule(), module).ok());
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());
  std::vector<ms_string_t> in(4), keys(1), out(4);
  std::vector<TensorView> outputs(3);
  outputs[0] = stringView(out, {4});
  Status status =
      context.run({stringView(in, {4}), stringView(keys, {1})}, outputs);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message())
                .find("output 'normalized' has data-dependent extents; pass "
                      "NULL data"),
            std::string::npos)
      << status.message();
}

TEST_F(HostOpsTest, RejectsMalformedHostSteps) {
  ModuleParts parts = stringModule();
  parts.meta["steps"][0]["op"] = "msgraph.string_split";
  expectRejected(parts, "steps[0]: unknown host op \"msgraph.string_split\"");

  parts = stringModule();
  parts.meta["steps"][1]["dtypes"][2] = "i32";
  expectRejected(parts, "msgraph.string_equal: result 0 has dtype i32, "
                        "expected bool");

  parts = stringModule();
  parts.meta["steps"][1]["shapes"][1] = {3};
  expectRejected(parts, "shapes [4] and [3] do not broadcast");

  parts = stringModule();
  parts.meta["steps"][2]["shapes"][2] = {2};
  expectRejected(parts, "result shape [2] is not the broadcast [4]");

  parts = stringModule();
  parts.meta["steps"][0]["attrs"]["case_change_action"] = "TITLE";
  expectRejected(parts, "case_change_action is \"TITLE\", expected NONE, "
                        "LOWER or UPPER");

  parts = stringModule();
  parts.meta["steps"][0]["attrs"]["stopwords"] = 3;
  expectRejected(parts, "attribute 'stopwords' has the wrong type");

  // The result buffer cannot hold every word.
  parts = stringModule();
  parts.meta["buffers"][2]["size"] = 48;
  expectRejected(parts, "buffer 2 has 48 bytes, the result needs 64");

  // An operand buffer smaller than its shape.
  parts = stringModule();
  parts.meta["steps"][1]["shapes"][0] = {8};
  parts.meta["steps"][1]["shapes"][2] = {8};
  expectRejected(parts, "buffer 0 has 64 bytes, the operand needs 128");

  // Results may not overwrite inputs.
  parts = stringModule();
  parts.meta["steps"][2]["args"][2] = 0;
  expectRejected(parts, "buffer 0 is read-only");

  // A -1 extent that no host step computes.
  parts = stringModule();
  parts.meta["steps"].erase(0);
  expectRejected(parts, "output 'normalized' has a data-dependent extent (-1) "
                        "but no host step computes its shape");

  // -1 in an input.
  parts = stringModule();
  parts.meta["inputs"][0]["shape"] = {-1};
  expectRejected(parts, "input shapes must be static");

  parts = stringModule();
  parts.meta["steps"][0].erase("shapes");
  expectRejected(parts, "missing \"shapes\"");
}

TEST_F(HostOpsTest, EnqueuedRunsReportShapesAfterSynchronize) {
  Module module;
  ASSERT_TRUE(load(stringModule(), module).ok());
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  std::vector<std::string> words = {"a", "monday", "b", "c"};
  std::vector<ms_string_t> in, keys = {{"b", 1}};
  for (const std::string &w : words)
    in.push_back(ms_string_t{w.data(), w.size()});
  std::vector<TensorView> inputs = {stringView(in, {4}), stringView(keys, {1})};
  std::vector<ms_tensor_t> raw = {inputs[0].raw(), inputs[1].raw()};
  ms_tensor_t outs[3] = {};
  Status status(ms_context_enqueue(context.get(), stream.get(), raw.data(), 2,
                                   outs, 3));
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_TRUE(stream.synchronize().ok());
  ASSERT_EQ(outs[0].rank, 1u);
  EXPECT_EQ(outs[0].shape[0], 3);
  const auto *result = static_cast<const ms_string_t *>(outs[0].data);
  EXPECT_EQ(std::string(result[2].data, result[2].size), "C");
}
