//===- MsRunTest.cpp - ms-run command-line tests --------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"
#include "TestBackends.h"
#include "ms/runtime/Npy.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sys/stat.h>
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
    return runShell(std::string(MS_RUN_TOOL) + " " + args);
  }

  /// Runs the shell command `command`, capturing stdout and stderr.
  RunResult runShell(const std::string &command) {
    RunResult result;
    std::FILE *pipe = popen(("(" + command + ") 2>&1").c_str(), "r");
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

  expectError(module + " --device cuda --trace " + trace,
              "--trace needs --device cpu or npu (the cuda device cannot "
              "record a timeline)");
  expectError(module + " --device npu",
              "module has 3 kernels but no npu-program section for the npu "
              "device");
  expectError(npu + " --device npu --trace /proc/ms-run-cannot/t.json",
              "/proc/ms-run-cannot/t.json: cannot write the trace");
  expectError(module + " --device tpu",
              "--device expects cpu, cuda or npu, got 'tpu'");
}

TEST_F(MsRunTest, TracesEveryRunOnTheCpu) {
  std::string trace = dir.file("trace.json");
  RunResult result = run(module + " --bench 2 --trace " + trace);
  ASSERT_EQ(result.exitCode, 0) << result.output;
  std::vector<uint8_t> bytes = readFile(trace);
  nlohmann::json json =
      nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  ASSERT_TRUE(json.is_object() && json["traceEvents"].is_array());
  // The reported run, 3 warm-up runs and 2 timed runs of 5 steps each.
  std::map<int, int> stepsPerRun;
  for (const nlohmann::json &event : json["traceEvents"])
    if (event["ph"] == "X") {
      EXPECT_EQ(event["pid"], 0);
      ++stepsPerRun[event["args"]["run"].get<int>()];
    }
  EXPECT_EQ(stepsPerRun, (std::map<int, int>{
                             {0, 5}, {1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}));
  // A file that cannot be written fails before the run.
  result = run(module + " --trace /proc/ms-run-cannot/t.json");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.output.find("out0"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("ms-run: error: /proc/ms-run-cannot/t.json: "
                               "cannot write the trace"),
            std::string::npos)
      << result.output;
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

//===----------------------------------------------------------------------===//
// Several processes
//===----------------------------------------------------------------------===//

/// Returns true when the communicator plugin `name` ("gloo", "mpi") was
/// built.
bool havePlugin(const char *name) {
  struct stat info;
  return stat((std::string(MS_COMM_PLUGIN_DIR_FOR_TESTS) + "/libms_comm_" +
               name + ".so")
                  .c_str(),
              &info) == 0;
}

/// Counts the occurrences of `text` in `output`.
size_t occurrences(const std::string &output, const std::string &text) {
  size_t count = 0;
  for (size_t at = output.find(text); at != std::string::npos;
       at = output.find(text, at + 1))
    ++count;
  return count;
}

class MsRunRanksTest : public MsRunTest {
protected:
  void SetUp() override {
    MsRunTest::SetUp();
    // y0 = all_reduce(x0) (sum), y1 = all_gather(x1) along axis 1, over
    // two ranks.
    CollectiveSpec reduce{"all_reduce", "f32", {2, 3}, {{0, 1}}};
    CollectiveSpec gather{"all_gather", "f32", {2, 2}, {{0, 1}}};
    gather.axis = 1;
    sharded = dir.file("sharded.msm");
    ASSERT_TRUE(
        writeFile(sharded, collectiveModule(2, {reduce, gather}).build()));
    int64_t shape0[2] = {2, 3}, shape1[2] = {2, 2};
    ASSERT_TRUE(
        writeNpy(dir.file("x0.npy"), MS_DTYPE_F32, shape0, 2, x0, sizeof(x0))
            .ok());
    ASSERT_TRUE(
        writeNpy(dir.file("x1.npy"), MS_DTYPE_F32, shape1, 2, x1, sizeof(x1))
            .ok());
    inputs = " --input x0=" + dir.file("x0.npy") +
             " --input x1=" + dir.file("x1.npy");
  }

  /// Checks the outputs rank 0 wrote to `outDir`: every rank had the same
  /// inputs.
  void expectOutputs(const std::string &outDir) {
    NpyArray y0, y1;
    Status status = readNpy(outDir + "/y0.npy", y0);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_TRUE(readNpy(outDir + "/y1.npy", y1).ok());
    EXPECT_EQ(y0.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(y1.shape, (std::vector<int64_t>{2, 4}));
    ASSERT_EQ(y0.data.size(), sizeof(x0));
    ASSERT_EQ(y1.data.size(), 2 * sizeof(x1));
    const float *sum = reinterpret_cast<const float *>(y0.data.data());
    const float *gathered = reinterpret_cast<const float *>(y1.data.data());
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(sum[i], 2 * x0[i]) << i;
    float want[8] = {x1[0], x1[1], x1[0], x1[1], x1[2], x1[3], x1[2], x1[3]};
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(gathered[i], want[i]) << i;
  }

  std::string sharded, inputs;
  float x0[6] = {1, -2, 3.5f, 4, 0.25f, -6};
  float x1[4] = {7, 8, 9, 10};
};

TEST_F(MsRunRanksTest, ShardedModuleNeedsItsRanks) {
  expectError(sharded, "module '" + sharded +
                           "' was compiled for 2 ranks but runs in a world "
                           "of 1 process; launch it with ms-run --nproc 2, "
                           "python3 -m ms.launch --nproc 2 or mpirun -np 2");
  expectError(sharded + " --nproc 0", "--nproc expects a number of "
                                      "processes from 1 to 4096, got '0'");
  expectError(sharded + " --nproc two", "--nproc expects a number");
  expectError("--nproc 2", "no module given");
  RunResult result =
      runShell("MS_RANK=0 MS_WORLD_SIZE=1 " + std::string(MS_RUN_TOOL) + " " +
               sharded + " --nproc 2");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.output.find("--nproc starts the ranks itself, but this "
                               "process is already a rank of a launcher "
                               "(MS_RANK is set)"),
            std::string::npos)
      << result.output;
}

TEST_F(MsRunRanksTest, RunsRanksWithNproc) {
  if (!havePlugin("gloo"))
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  std::string outDir = dir.file("out");
  RunResult result =
      run(sharded + inputs + " --nproc 2 --output-dir " + outDir);
  ASSERT_EQ(result.exitCode, 0) << result.output;
  expectOutputs(outDir);
  // Only rank 0 prints.
  EXPECT_EQ(occurrences(result.output, "y0: f32[2,3]\n"), 1u) << result.output;
  EXPECT_EQ(occurrences(result.output, "y1: f32[2,4]\n  values: [7 8 7 8 9 "
                                       "10 9 10]\n"),
            1u)
      << result.output;
  // Benchmarks run on every rank; rank 0 reports.
  result = run(sharded + " --nproc=2 --bench 3");
  ASSERT_EQ(result.exitCode, 0) << result.output;
  EXPECT_EQ(occurrences(result.output, "median_ms: "), 1u) << result.output;
  // A module of one rank runs alone on each.
  result = run(module + " --nproc 2");
  ASSERT_EQ(result.exitCode, 0) << result.output;
  EXPECT_EQ(result.output, run(module).output);
  // Every rank of a world of the wrong size fails, saying which it is.
  result = run(sharded + " --nproc 3");
  EXPECT_EQ(result.exitCode, 1) << result.output;
  for (const char *rank : {"rank 0: ", "rank 1: ", "rank 2: "})
    EXPECT_NE(result.output.find(std::string("ms-run: error: ") + rank +
                                 "module '" + sharded +
                                 "' was compiled for 2 ranks but runs in a "
                                 "world of 3 processes"),
              std::string::npos)
        << result.output;
  EXPECT_NE(result.output.find("ms-run: error: 3 of 3 ranks failed"),
            std::string::npos)
      << result.output;
}

TEST_F(MsRunRanksTest, MergesTheRanksTraces) {
  if (!havePlugin("gloo"))
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  std::string trace = dir.file("ranks.json");
  RunResult result = run(sharded + inputs + " --nproc 2 --trace " + trace);
  ASSERT_EQ(result.exitCode, 0) << result.output;
  std::vector<uint8_t> bytes = readFile(trace);
  nlohmann::json json =
      nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  ASSERT_TRUE(json.is_object() && json["traceEvents"].is_array());
  EXPECT_EQ(json["otherData"]["ranks"], 2);
  // Each rank's process, with its two collectives (communication).
  std::map<int, std::vector<std::string>> comm;
  std::set<int> processes;
  for (const nlohmann::json &event : json["traceEvents"]) {
    if (event["name"] == "process_name")
      processes.insert(event["pid"].get<int>());
    if (event["ph"] == "X" && event["cat"] == "comm")
      comm[event["pid"].get<int>()].push_back(event["name"]);
  }
  EXPECT_EQ(processes, (std::set<int>{0, 1}));
  std::vector<std::string> names = {"all_reduce 24B", "all_gather 16B"};
  EXPECT_EQ(comm,
            (std::map<int, std::vector<std::string>>{{0, names}, {1, names}}));
  // The ranks' own files are gone.
  struct stat info;
  EXPECT_NE(stat((trace + ".rank0").c_str(), &info), 0);
  EXPECT_NE(stat((trace + ".rank1").c_str(), &info), 0);
}

TEST_F(MsRunRanksTest, StopsTheOtherRanksWhenOneFails) {
  if (!havePlugin("gloo"))
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  // Only rank 0 writes outputs: it fails before running, while rank 1
  // waits for it (up to MS_COMM_TIMEOUT, 60 s) until it is stopped.
  auto begin = std::chrono::steady_clock::now();
  RunResult result =
      run(sharded + inputs + " --nproc 2 --output-dir /proc/ms-run-cannot/out");
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  EXPECT_EQ(result.exitCode, 1) << result.output;
  EXPECT_LT(seconds, 15) << result.output;
  for (const char *line :
       {"ms-run: error: rank 0: /proc/ms-run-cannot/out: cannot create "
        "directory",
        "ms-run: error: rank 1: stopped 3 s after rank 0 failed",
        "ms-run: error: 2 of 2 ranks failed"})
    EXPECT_NE(result.output.find(line), std::string::npos)
        << line << " in: " << result.output;
}

TEST_F(MsRunRanksTest, RunsUnderMpirun) {
#ifndef MS_MPIEXEC
  GTEST_SKIP() << "MPI was not found at configure time";
#else
  if (!havePlugin("mpi"))
    GTEST_SKIP() << "libms_comm_mpi.so was not built";
  std::string outDir = dir.file("mpi-out");
  // mpirun refuses to run as root without the first two; the machine may
  // have fewer cores than ranks; Open MPI's own allocations are still live
  // at exit, and its own locks are taken in both orders (LeakSanitizer or
  // ThreadSanitizer would fail every rank of a sanitized build).
  std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 "
                       "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                       "OMPI_MCA_rmaps_base_oversubscribe=1 "
                       "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" "
                       "TSAN_OPTIONS=\"$TSAN_OPTIONS "
                       "suppressions=" MS_TEST_TSAN_OPENMPI "\" "
                       "timeout 120 " +
                       std::string(MS_MPIEXEC);
  RunResult result =
      runShell(mpirun + " -np 2 " + MS_RUN_TOOL + " " + sharded + inputs +
               " --output-dir " + outDir + " --trace " + dir.file("mpi.json"));
  ASSERT_EQ(result.exitCode, 0) << result.output;
  expectOutputs(outDir);
  // Nothing merges the ranks' timelines: each writes its own.
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<uint8_t> bytes =
        readFile(dir.file("mpi.rank" + std::to_string(rank) + ".json"));
    nlohmann::json json =
        nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    ASSERT_TRUE(json.is_object()) << rank;
    EXPECT_EQ(json["traceEvents"][0]["pid"], rank);
  }
  EXPECT_EQ(occurrences(result.output, "y0: f32[2,3]\n"), 1u) << result.output;
  // Errors name the rank.
  result = runShell(mpirun + " -np 3 " + MS_RUN_TOOL + " " + sharded);
  EXPECT_NE(result.exitCode, 0) << result.output;
  EXPECT_NE(result.output.find("ms-run: error: rank 2: module '" + sharded +
                               "' was compiled for 2 ranks but runs in a "
                               "world of 3 processes"),
            std::string::npos)
      << result.output;
#endif
}
} // namespace
