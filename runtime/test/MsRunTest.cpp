//===- MsRunTest.cpp - ms-run command-line tests --------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"
#include "TestBackends.h"
#include "ms/runtime/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sys/wait.h>

using namespace ms::rt;
using namespace ms::test;

namespace {
/// The result of one ms-run invocation.
struct RunResult {
  int exitCode = -1;
  std::string output;
};

class MsRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(dir.path.empty());
    module = dir.file("sample.msm");
    ASSERT_TRUE(
        writeFile(module, sampleModule(readFile(MS_TEST_KERNELS)).build()));
  }

  /// Runs ms-run with `args` (shell syntax), capturing stdout and stderr.
  RunResult run(const std::string &args) {
    RunResult result;
    std::string command = std::string(MS_RUN_TOOL) + " " + args + " 2>&1";
    std::FILE *pipe = popen(command.c_str(), "r");
    if (!pipe)
      return result;
    char chunk[4096];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
      result.output.append(chunk, got);
    int status = pclose(pipe);
    if (status != -1 && WIFEXITED(status))
      result.exitCode = WEXITSTATUS(status);
    return result;
  }

  /// Expects ms-run `args` to fail with exit code 1 and `text` in the error.
  void expectError(const std::string &args, const std::string &text) {
    RunResult result = run(args);
    EXPECT_EQ(result.exitCode, 1) << args << "\n" << result.output;
    EXPECT_EQ(result.output.rfind("ms-run: error: ", 0), 0u) << result.output;
    EXPECT_NE(result.output.find(text), std::string::npos)
        << "expected \"" << text << "\" in: " << result.output;
  }

  TempDir dir;
  std::string module;
};

TEST_F(MsRunTest, PrintsHelp) {
  RunResult result = run("--help");
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.output.find("usage: ms-run MODULE.msm"), std::string::npos);
}

TEST_F(MsRunTest, RunsWithGeneratedInputsDeterministically) {
  RunResult first = run(module);
  ASSERT_EQ(first.exitCode, 0) << first.output;
  EXPECT_NE(first.output.find("out0: f32[4]"), std::string::npos);
  EXPECT_NE(first.output.find("out1: f32[4]\n  values: [1 2 3 4]\n"
                              "  min: 1 max: 4 mean: 2.5"),
            std::string::npos)
      << first.output;
  EXPECT_EQ(run(module).output, first.output);
  EXPECT_EQ(run(module + " --seed 0").output, first.output);
  EXPECT_NE(run(module + " --seed=7").output, first.output);
}

TEST_F(MsRunTest, ReadsInputsAndWritesOutputs) {
  int64_t shape[1] = {4};
  float x[4] = {1, 2, 3, -4}, y[4] = {0, 1, 0, 1};
  ASSERT_TRUE(writeNpy(dir.file("x.npy"), MS_DTYPE_F32, shape, 1, x, 16).ok());
  ASSERT_TRUE(writeNpy(dir.file("y.npy"), MS_DTYPE_F32, shape, 1, y, 16).ok());
  std::string outDir = dir.file("out/nested");
  RunResult result =
      run(module + " --input x=" + dir.file("x.npy") +
          " --input=y=" + dir.file("y.npy") + " --output-dir " + outDir);
  ASSERT_EQ(result.exitCode, 0) << result.output;
  NpyArray out0;
  Status status = readNpy(outDir + "/out0.npy", out0);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(out0.data.size(), 16u);
  const float *values = reinterpret_cast<const float *>(out0.data.data());
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(values[i], sampleOut0(x[i], y[i], sampleWeights[i]));
  EXPECT_NE(result.output.find("values: [2 10 18 4]"), std::string::npos)
      << result.output;
  NpyArray out1;
  EXPECT_TRUE(readNpy(outDir + "/out1.npy", out1).ok());
}

TEST_F(MsRunTest, Benchmarks) {
  RunResult result = run(module + " --bench 5");
  ASSERT_EQ(result.exitCode, 0) << result.output;
  for (const char *line : {"\nmedian_ms: ", "\nmin_ms: ", "\nmax_ms: "})
    EXPECT_NE(result.output.find(line), std::string::npos) << result.output;
}

TEST_F(MsRunTest, RunsOnTheNpuSimulator) {
  // The sample module with npu kernels (TestBackends.cpp).
  std::string npu = dir.file("npu.msm");
  for (const TestBackend &backend : testBackends)
    if (std::string(backend.name) == "npu") {
      ModuleParts parts = sampleModule(backend.kernels(false));
      parts.codeKind = uint32_t(ms::format::SectionKind::NpuProgram);
      ASSERT_TRUE(writeFile(npu, parts.build()));
    }
  RunResult result = run(npu + " --device npu");
  ASSERT_EQ(result.exitCode, 0) << result.output;
  // The same outputs as on the CPU, then the simulator's summary.
  std::string outputs = run(module).output;
  EXPECT_EQ(result.output.rfind(outputs, 0), 0u) << result.output;
  long long cycles = 0;
  size_t at = result.output.find("npu_cycles: ");
  ASSERT_NE(at, std::string::npos) << result.output;
  ASSERT_EQ(
      std::sscanf(result.output.c_str() + at, "npu_cycles: %lld", &cycles), 1);
  EXPECT_GT(cycles, 0);
  for (const char *line : {"\nnpu_kernels: 4\n", "\nnpu_utilization: s ",
                           " mte2 ", " v ", "%\nnpu_bound_by: mte"})
    EXPECT_NE(result.output.find(line), std::string::npos)
        << line << " in: " << result.output;
  // Every run simulates the same cycles.
  result = run(npu + " --device npu --bench 2");
  ASSERT_EQ(result.exitCode, 0) << result.output;
  EXPECT_NE(result.output.find(
                "\nnpu_cycles_per_run: " + std::to_string(cycles) + "\n"),
            std::string::npos)
      << result.output;
  // The timeline of the run.
  std::string trace = dir.file("trace.json");
  result = run(npu + " --device=npu --trace " + trace);
  ASSERT_EQ(result.exitCode, 0) << result.output;
  std::vector<uint8_t> bytes = readFile(trace);
  nlohmann::json json =
      nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  ASSERT_TRUE(json.is_object() && json["traceEvents"].is_array());
  EXPECT_GT(json["traceEvents"].size(), 10u);

  expectError(module + " --trace " + trace, "--trace needs --device npu");
  expectError(module + " --device npu",
              "module has 3 kernels but no npu-program section for the npu "
              "device");
  expectError(npu + " --device npu --trace /proc/ms-run-cannot/t.json",
              "/proc/ms-run-cannot/t.json: cannot write the trace");
  expectError(module + " --device tpu",
              "--device expects cpu, cuda or npu, got 'tpu'");
}

TEST_F(MsRunTest, ReportsErrors) {
  int64_t shape[1] = {3};
  float three[3] = {};
  int32_t ints[4] = {};
  int64_t four[1] = {4};
  ASSERT_TRUE(
      writeNpy(dir.file("short.npy"), MS_DTYPE_F32, shape, 1, three, 12).ok());
  ASSERT_TRUE(
      writeNpy(dir.file("ints.npy"), MS_DTYPE_I32, four, 1, ints, 16).ok());
  ASSERT_TRUE(writeFile(dir.file("junk.npy"), {1, 2, 3}));
  ASSERT_TRUE(writeFile(dir.file("junk.msm"), {1, 2, 3}));

  expectError("", "no module given");
  expectError(dir.file("junk.msm"), "shorter than the 64-byte module header");
  expectError(dir.file("absent.msm"), "cannot open");
  expectError(module + " extra.msm", "unexpected argument 'extra.msm'");
  expectError(module + " --frobnicate", "unknown option '--frobnicate'");
  expectError(module + " --input", "missing value after --input");
  expectError(module + " --bench", "missing value after --bench");
  expectError(module + " --bench 0", "--bench expects a positive integer");
  expectError(module + " --bench -3", "--bench expects a positive integer");
  expectError(module + " --bench 2x", "--bench expects a positive integer");
  expectError(module + " --seed x", "--seed expects a non-negative integer");
  expectError(module + " --input x", "--input expects NAME=FILE.npy");
  expectError(module + " --input z=" + dir.file("ints.npy"),
              "unknown input 'z' (the module's inputs: x, y)");
  expectError(module + " --input x=" + dir.file("short.npy"),
              "input 'x': " + dir.file("short.npy") + " has shape f32[3]");
  expectError(module + " --input y=" + dir.file("ints.npy"),
              "has dtype i32, expected f32");
  expectError(module + " --input x=" + dir.file("junk.npy"),
              "input 'x': " + dir.file("junk.npy") + ": not a .npy file");
  expectError(module + " --input x=" + dir.file("absent.npy"), "input 'x': ");
  expectError(module + " --output-dir /proc/ms-run-cannot-create",
              "cannot create directory");
}
} // namespace
