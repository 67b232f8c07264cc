//===- TraceTest.cpp - timelines of a context's runs ----------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ms_context_set_trace and ms_context_write_trace: what a traced run
// records (a span per launch, graph, copy, host and collective step, on
// its queue, named after its kernel or operation), what an untraced run
// does not, the Chrome trace-event JSON written, and the errors.
//
//===----------------------------------------------------------------------===//

#include "ContextTest.h"
#include "TestBackends.h"
#include "ms/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <glob.h>
#include <map>
#include <sys/stat.h>

using namespace ms;
using namespace ms::rt;
using namespace ms::test;
using Json = nlohmann::json;

namespace {
/// Reads the JSON file at `path` (a discarded value when it does not
/// parse).
Json readJson(const std::string &path) {
  std::vector<uint8_t> bytes = readFile(path);
  return Json::parse(bytes.begin(), bytes.end(), nullptr,
                     /*allow_exceptions=*/false);
}

/// Returns the complete ("X") events of trace `trace`.
std::vector<Json> spansOf(const Json &trace) {
  std::vector<Json> spans;
  for (const Json &event : trace["traceEvents"])
    if (event["ph"] == "X")
      spans.push_back(event);
  return spans;
}

/// Returns the names the "thread_name" metadata events give each tid.
std::map<int, std::string> threadNames(const Json &trace) {
  std::map<int, std::string> names;
  for (const Json &event : trace["traceEvents"])
    if (event["ph"] == "M" && event["name"] == "thread_name")
      names[event["tid"].get<int>()] = event["args"]["name"];
  return names;
}

class TraceTest : public ContextTest {
protected:
  /// Runs the sample module (or one with its signature) once.
  void runSample() {
    float x[4] = {1, 2, 3, 4}, y[4] = {4, 3, 2, 1}, out0[4], out1[4];
    std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
    Status status = context.run({f32x4(x), f32x4(y)}, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
  }

  /// Writes the context's trace as process `pid` and reads it back.
  Json writeAndRead(int pid = 0) {
    std::string path = dir.file("trace" + std::to_string(traces++) + ".json");
    Status status = context.writeTrace(path, pid);
    EXPECT_TRUE(status.ok()) << status.message();
    Json trace = readJson(path);
    EXPECT_TRUE(trace.is_object()) << "the trace does not parse";
    return trace;
  }

  int traces = 0;
};

TEST_F(TraceTest, RecordsEveryStepOfTracedRuns) {
  load(sampleModule(readFile(MS_TEST_KERNELS)));
  ASSERT_TRUE(context.setTrace(true).ok());
  runSample();
  runSample();
  Json trace = writeAndRead(3);
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  EXPECT_EQ(trace["otherData"]["dropped_spans"], 0);
  // The process is the rank; the one queue computes.
  bool named = false;
  for (const Json &event : trace["traceEvents"])
    if (event["ph"] == "M" && event["name"] == "process_name") {
      EXPECT_EQ(event["pid"], 3);
      EXPECT_EQ(event["args"]["name"], "rank 3");
      named = true;
    }
  EXPECT_TRUE(named);
  EXPECT_EQ(threadNames(trace),
            (std::map<int, std::string>{{0, "queue 0 (compute)"}}));

  // Four launches and a copy per run, in plan order, named after their
  // kernels.
  std::vector<Json> spans = spansOf(trace);
  ASSERT_EQ(spans.size(), 10u);
  const char *names[5] = {"ms_kernel_0", "ms_kernel_0", "ms_kernel_2",
                          "ms_kernel_3", "copy 16B"};
  double previousEnd = 0;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Json &span = spans[i];
    EXPECT_EQ(span["name"], names[i % 5]) << span.dump();
    EXPECT_EQ(span["cat"], "compute");
    EXPECT_EQ(span["pid"], 3);
    EXPECT_EQ(span["tid"], 0);
    EXPECT_EQ(span["args"]["run"], i / 5);
    EXPECT_EQ(span["args"]["step"], i % 5);
    EXPECT_EQ(span["args"]["kind"], i % 5 == 4 ? "copy" : "launch");
    double start = span["ts"].get<double>(), dur = span["dur"].get<double>();
    EXPECT_GT(start, 0);
    EXPECT_GE(dur, 0);
    // One queue: each step starts after the previous one ended.
    EXPECT_GE(start, previousEnd) << span.dump();
    previousEnd = start + dur;
  }
  EXPECT_EQ(spans[4]["args"]["bytes"], 16);
  EXPECT_EQ(spans[1]["args"]["kernel"], 0);
}

TEST_F(TraceTest, StoppedOrUntracedRunsRecordNothing) {
  load(sampleModule(readFile(MS_TEST_KERNELS)));
  // Never enabled: there is nothing to write.
  runSample();
  Status status = context.writeTrace(dir.file("none.json"));
  EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(status.message())
                .find("the context's runs are not traced (enable tracing "
                      "with ms_context_set_trace first)"),
            std::string::npos)
      << status.message();
  // Stopping keeps what was recorded, and records no more.
  ASSERT_TRUE(context.setTrace(true).ok());
  runSample();
  ASSERT_TRUE(context.setTrace(false).ok());
  runSample();
  EXPECT_EQ(spansOf(writeAndRead()).size(), 5u);
  // Starting again drops the old spans; runs are numbered from 0 again.
  ASSERT_TRUE(context.setTrace(true).ok());
  Json empty = writeAndRead();
  EXPECT_EQ(spansOf(empty).size(), 0u);
  EXPECT_EQ(threadNames(empty).size(), 1u);
  runSample();
  std::vector<Json> spans = spansOf(writeAndRead());
  ASSERT_EQ(spans.size(), 5u);
  EXPECT_EQ(spans[0]["args"]["run"], 0);
  // Writing does not stop recording.
  runSample();
  EXPECT_EQ(spansOf(writeAndRead()).size(), 10u);
}

TEST_F(TraceTest, TracesEveryQueueOfSynchronousAndQueuedRuns) {
  // Queue 1 waits for a flag that queue 0 sets later in the plan.
  load(concurrentQueuesModule(readFile(MS_TEST_KERNELS)));
  ASSERT_TRUE(context.setTrace(true).ok());
  float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1}, out0[4], out1[4];
  std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
  ASSERT_TRUE(context.run({f32x4(x), f32x4(y)}, outputs).ok());
  EXPECT_EQ(out1[0], 1.0f) << "the queues did not run concurrently";
  EXPECT_EQ(out0[3], 5.0f);
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE(context.enqueue(stream, {f32x4(x), f32x4(y)}, outputs).ok());
  ASSERT_TRUE(stream.synchronize().ok());
  EXPECT_EQ(out1[0], 1.0f);

  Json trace = writeAndRead();
  EXPECT_EQ(threadNames(trace),
            (std::map<int, std::string>{{0, "queue 0 (compute)"},
                                        {1, "queue 1 (compute)"}}));
  std::vector<Json> spans = spansOf(trace);
  ASSERT_EQ(spans.size(), 9u);
  // Per run: the wait on queue 1 ends after queue 0 started setting the
  // flag.
  std::map<std::pair<int, int>, Json> byRunAndStep;
  for (const Json &span : spans)
    byRunAndStep[{span["args"]["run"].get<int>(),
                  span["args"]["step"].get<int>()}] = span;
  ASSERT_EQ(byRunAndStep.size(), 9u);
  for (int run = 0; run < 3; ++run) {
    const Json &wait = byRunAndStep[{run, 0}], &set = byRunAndStep[{run, 1}],
               &add = byRunAndStep[{run, 2}];
    EXPECT_EQ(wait["name"], "ms_test_wait_flag");
    EXPECT_EQ(wait["tid"], 1);
    EXPECT_EQ(set["name"], "ms_test_set_flag");
    EXPECT_EQ(set["tid"], 0);
    EXPECT_EQ(add["tid"], 0);
    EXPECT_GE(wait["ts"].get<double>() + wait["dur"].get<double>(),
              set["ts"].get<double>())
        << run;
  }
}

TEST_F(TraceTest, NamesHostStepsAndCollectives) {
  // A host step is named after its op.
  ModuleParts host = sampleModule({});
  host.meta = Json::parse(R"({
    "inputs": [{"name": "s", "dtype": "string", "shape": [1], "buffer": 0}],
    "outputs": [{"name": "t", "dtype": "string", "shape": [1], "buffer": 1}],
    "buffers": [{"id": 0, "kind": "input", "index": 0, "size": 16},
                {"id": 1, "kind": "output", "index": 0, "size": 16}],
    "steps": [
      {"kind": "host", "op": "msgraph.string_concat", "operands": 2,
       "args": [0, 0, 1], "dtypes": ["string", "string", "string"],
       "shapes": [[1], [1], [1]]}]
  })");
  host.withWeights = false;
  load(host);
  ASSERT_TRUE(context.setTrace(true).ok());
  ms_string_t in = {"ab", 2};
  std::vector<TensorView> outputs(1);
  ASSERT_TRUE(
      context.run({TensorView{&in, sizeof(in), MS_DTYPE_STRING, {1}}}, outputs)
          .ok());
  std::vector<Json> spans = spansOf(writeAndRead());
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0]["name"], "msgraph.string_concat");
  EXPECT_EQ(spans[0]["cat"], "compute");
  EXPECT_EQ(spans[0]["args"]["kind"], "host");

  // A collective of one rank (a copy) is communication, named after its
  // operation and source bytes, on a queue of its own.
  CollectiveSpec reduce{"all_reduce", "f32", {2, 3}, {{0}}};
  CollectiveSpec gather{"all_gather", "f32", {2, 2}, {{0}}};
  ModuleParts collectives = collectiveModule(1, {reduce, gather});
  collectives.meta["queues"] = 2;
  collectives.meta["steps"][1]["queue"] = 1;
  load(collectives);
  ASSERT_TRUE(context.setTrace(true).ok());
  float x0[6] = {1, 2, 3, 4, 5, 6}, x1[4] = {1, 2, 3, 4};
  std::vector<TensorView> results(2);
  Status status =
      context.run({TensorView{x0, sizeof(x0), MS_DTYPE_F32, {2, 3}},
                   TensorView{x1, sizeof(x1), MS_DTYPE_F32, {2, 2}}},
                  results);
  ASSERT_TRUE(status.ok()) << status.message();
  Json trace = writeAndRead();
  EXPECT_EQ(threadNames(trace),
            (std::map<int, std::string>{{0, "queue 0 (comm)"},
                                        {1, "queue 1 (comm)"}}));
  spans = spansOf(trace);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0]["name"], "all_reduce 24B");
  EXPECT_EQ(spans[0]["cat"], "comm");
  EXPECT_EQ(spans[0]["tid"], 0);
  EXPECT_EQ(spans[0]["args"]["op"], "all_reduce");
  EXPECT_EQ(spans[0]["args"]["bytes"], 24);
  EXPECT_EQ(spans[0]["args"]["dst_bytes"], 24);
  EXPECT_EQ(spans[0]["args"]["group_size"], 1);
  EXPECT_EQ(spans[1]["name"], "all_gather 16B");
  EXPECT_EQ(spans[1]["tid"], 1);
  // Collectives run in plan order, across queues too.
  EXPECT_GE(spans[1]["ts"].get<double>(),
            spans[0]["ts"].get<double>() + spans[0]["dur"].get<double>());
}

TEST_F(TraceTest, ReplacesTheFileAtomically) {
  load(sampleModule(readFile(MS_TEST_KERNELS)));
  ASSERT_TRUE(context.setTrace(true).ok());
  runSample();
  std::string path = dir.file("trace.json");
  ASSERT_TRUE(writeFile(path, {'o', 'l', 'd'}));
  ASSERT_TRUE(context.writeTrace(path).ok());
  EXPECT_EQ(spansOf(readJson(path)).size(), 5u);
  // No temporary file is left behind.
  glob_t found;
  EXPECT_EQ(glob((path + ".tmp*").c_str(), 0, nullptr, &found), GLOB_NOMATCH);
  globfree(&found);
}

TEST_F(TraceTest, ReportsErrors) {
  load(sampleModule(readFile(MS_TEST_KERNELS)));
  auto expectError = [](ms_status_t raw, ms_status_code_t code,
                        const std::string &text) {
    Status status(raw);
    EXPECT_EQ(status.code(), code) << status.message();
    EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
        << "expected \"" << text << "\" in: " << status.message();
  };
  expectError(ms_context_set_trace(nullptr, 1), MS_INVALID_ARGUMENT,
              "context is NULL");
  expectError(ms_context_write_trace(nullptr, "t.json", 0), MS_INVALID_ARGUMENT,
              "context is NULL");
  ASSERT_TRUE(context.setTrace(true).ok());
  runSample();
  expectError(ms_context_write_trace(context.get(), nullptr, 0),
              MS_INVALID_ARGUMENT, "path is NULL");
  expectError(ms_context_write_trace(context.get(), "t.json", -1),
              MS_INVALID_ARGUMENT, "expected a non-negative pid, found -1");
  // A directory that does not exist.
  std::string missing = dir.file("no-such-dir/t.json");
  expectError(ms_context_write_trace(context.get(), missing.c_str(), 0),
              MS_INVALID_ARGUMENT,
              missing + ": cannot write the trace: No such file or directory");
  // A path that cannot be replaced (a non-empty directory): the
  // temporary file is removed.
  std::string occupied = dir.file("occupied");
  ASSERT_EQ(mkdir(occupied.c_str(), 0700), 0);
  ASSERT_TRUE(writeFile(occupied + "/file", {1}));
  expectError(ms_context_write_trace(context.get(), occupied.c_str(), 0),
              MS_INTERNAL, occupied + ": cannot write the trace: ");
  glob_t found;
  EXPECT_EQ(glob((occupied + ".tmp*").c_str(), 0, nullptr, &found),
            GLOB_NOMATCH);
  globfree(&found);
}

TEST_F(TraceTest, OnlyTheCpuDeviceTracesRuns) {
  for (const TestBackend &backend : testBackends) {
    if (std::string(backend.name) != "npu")
      continue;
    Device npu;
    ASSERT_TRUE(Device::create(MS_DEVICE_NPU_SIM, npu).ok());
    ModuleParts parts = sampleModule(backend.kernels(false));
    parts.codeKind = uint32_t(format::SectionKind::NpuProgram);
    std::string path = dir.file("npu.msm");
    ASSERT_TRUE(writeFile(path, parts.build()));
    Module npuModule;
    Status status = Module::load(npu, path, npuModule);
    ASSERT_TRUE(status.ok()) << status.message();
    Context npuContext;
    ASSERT_TRUE(Context::create(npuModule, npuContext).ok());
    status = npuContext.setTrace(true);
    EXPECT_EQ(status.code(), MS_UNIMPLEMENTED);
    EXPECT_EQ(std::string(status.message()),
              "tracing runs is supported on the cpu device only, not the npu "
              "device");
    // Stopping is always fine, and there is nothing to write.
    EXPECT_TRUE(npuContext.setTrace(false).ok());
    EXPECT_EQ(npuContext.writeTrace(dir.file("npu.json")).code(),
              MS_INVALID_ARGUMENT);
    // The device's own timeline still works.
    ASSERT_TRUE(npu.traceBegin().ok());
    float x[4] = {1, 2, 3, 4}, y[4] = {4, 3, 2, 1}, out0[4], out1[4];
    std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
    ASSERT_TRUE(npuContext.run({f32x4(x), f32x4(y)}, outputs).ok());
    ASSERT_TRUE(npu.traceWrite(dir.file("npu-device.json")).ok());
    EXPECT_TRUE(readJson(dir.file("npu-device.json")).is_object());
  }
}
} // namespace
