//===- ExecutorTest.cpp - plans with graphs, events and several queues ----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The executor (core/Executor.cpp) on plans that use the HAL's queues and
// events: a graph step, signal and wait steps across two queues, and a
// device whose memory the host cannot read (weights uploaded, host steps
// staged through host copies).
//
//===----------------------------------------------------------------------===//

#include "core/Executor.h"
#include "ContextTest.h"
#include "core/HAL.h"
#include "ms/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

using namespace ms;
using namespace ms::rt;
using namespace ms::test;
using Json = nlohmann::json;

namespace {
/// The sample module's computation split over two queues: queue 1 copies
/// out1 at once, then waits for x + y from queue 0 and adds w in a graph
/// step; queue 0 waits for that and finishes relu(... * w) into out0.
ModuleParts twoQueueModule() {
  ModuleParts parts = sampleModule(readFile(MS_TEST_KERNELS));
  parts.meta["queues"] = 2;
  parts.meta["events"] = 2;
  parts.meta["steps"] = Json::parse(R"([
    {"kind": "copy", "src": 2, "dst": 11, "size": 16, "queue": 1},
    {"kind": "launch", "kernel": 0, "args": [0, 1, 3]},
    {"kind": "signal", "event": 0, "queue": 0},
    {"kind": "wait", "event": 0, "queue": 1},
    {"kind": "graph", "kernel": 0, "args": [3, 2, 4], "queue": 1},
    {"kind": "signal", "event": 1, "queue": 1},
    {"kind": "wait", "event": 1},
    {"kind": "launch", "kernel": 1, "args": [4, 2, 3]},
    {"kind": "launch", "kernel": 2, "args": [3, 10]}
  ])");
  return parts;
}

class ExecutorTest : public ContextTest {
protected:
  /// Checks the sample module's outputs for inputs `x`, `y`.
  static void expectOutputs(const float *x, const float *y, const float *out0,
                            const float *out1) {
    for (int i = 0; i < 4; ++i) {
      EXPECT_FLOAT_EQ(out0[i], sampleOut0(x[i], y[i], sampleWeights[i])) << i;
      EXPECT_FLOAT_EQ(out1[i], sampleWeights[i]) << i;
    }
  }
};

TEST_F(ExecutorTest, RunsTwoQueuePlanSynchronously) {
  load(twoQueueModule());
  for (int run = 0; run < 20; ++run) {
    float x[4] = {1, -2, 3, float(run)}, y[4] = {0.5f, 4, -1, 2};
    float out0[4] = {}, out1[4] = {};
    std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
    Status status = context.run({f32x4(x), f32x4(y)}, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    expectOutputs(x, y, out0, out1);
  }
}

TEST_F(ExecutorTest, SynchronousRunsRunOtherQueuesConcurrently) {
  // Plan queue 0 runs on the calling thread, queues 1.. on the device's
  // workers: queue 1 blocks until queue 0 has gone past it.
  load(concurrentQueuesModule(readFile(MS_TEST_KERNELS)));
  for (int run = 0; run < 5; ++run) {
    float x[4] = {1, 2, 3, float(run)}, y[4] = {4, 3, 2, 1};
    float out0[4] = {}, out1[4] = {};
    std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
    Status status = context.run({f32x4(x), f32x4(y)}, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(out1[i], 1.0f) << "queue 1 did not see queue 0's flag: the "
                                  "queues ran one after the other";
      EXPECT_EQ(out0[i], x[i] + y[i]) << i;
    }
  }
  // The same plan queued on a stream.
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  float x[4] = {1, 1, 1, 1}, y[4] = {2, 2, 2, 2}, out0[4] = {}, out1[4] = {};
  std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
  ASSERT_TRUE(context.enqueue(stream, {f32x4(x), f32x4(y)}, outputs).ok());
  ASSERT_TRUE(stream.synchronize().ok());
  EXPECT_EQ(out1[0], 1.0f);
  EXPECT_EQ(out0[0], 3.0f);
}

TEST_F(ExecutorTest, EnqueuesTwoQueuePlan) {
  load(twoQueueModule());
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  constexpr int runs = 100;
  std::vector<std::array<float, 4>> xs(runs), ys(runs), out0(runs), out1(runs);
  for (int run = 0; run < runs; ++run) {
    for (int i = 0; i < 4; ++i) {
      xs[run][i] = float(run + i);
      ys[run][i] = float(run - 3 * i);
    }
    std::vector<TensorView> outputs = {f32x4(out0[run].data()),
                                       f32x4(out1[run].data())};
    Status status = context.enqueue(
        stream, {f32x4(xs[run].data()), f32x4(ys[run].data())}, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  ASSERT_TRUE(stream.synchronize().ok());
  for (int run = 0; run < runs; ++run)
    expectOutputs(xs[run].data(), ys[run].data(), out0[run].data(),
                  out1[run].data());
  // Synchronous runs work again once the stream is synchronized.
  float x[4] = {1, 2, 3, 4}, y[4] = {4, 3, 2, 1}, a[4], b[4];
  std::vector<TensorView> outputs = {f32x4(a), f32x4(b)};
  ASSERT_TRUE(context.run({f32x4(x), f32x4(y)}, outputs).ok());
  expectOutputs(x, y, a, b);
}

/// Blocks a stream until released.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false;
};

ms_status_t waitForGate(void *data) {
  auto *gate = static_cast<Gate *>(data);
  std::unique_lock<std::mutex> lock(gate->mutex);
  gate->changed.wait(lock, [gate] { return gate->open; });
  return nullptr;
}

TEST_F(ExecutorTest, OtherQueuesStartAfterEarlierStreamWork) {
  // Plan queue 1 copies out1 first thing; it must still wait for what was
  // queued on the stream before the run.
  load(twoQueueModule());
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  Gate gate;
  ASSERT_TRUE(stream.submit(waitForGate, &gate).ok());
  float x[4] = {1, 1, 1, 1}, y[4] = {2, 2, 2, 2}, out0[4] = {}, out1[4] = {};
  std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
  ASSERT_TRUE(context.enqueue(stream, {f32x4(x), f32x4(y)}, outputs).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(out1[0], 0.0f) << "queue 1 ran before the stream reached the run";
  {
    std::lock_guard<std::mutex> lock(gate.mutex);
    gate.open = true;
  }
  gate.changed.notify_all();
  ASSERT_TRUE(stream.synchronize().ok());
  expectOutputs(x, y, out0, out1);
}

TEST_F(ExecutorTest, QueuedRunOutlivesItsHandles) {
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  float x[4] = {1, 2, 3, 4}, y[4] = {0, 1, 0, 1}, out0[4], out1[4];
  load(twoQueueModule());
  std::vector<TensorView> outputs = {f32x4(out0), f32x4(out1)};
  ASSERT_TRUE(context.enqueue(stream, {f32x4(x), f32x4(y)}, outputs).ok());
  context = Context();
  module = Module();
  device = Device();
  ASSERT_TRUE(stream.synchronize().ok());
  expectOutputs(x, y, out0, out1);
}

/// A CPU device that claims its memory is not host-visible, and counts the
/// copies into it.
class HiddenMemoryDevice final : public impl::Device {
public:
  explicit HiddenMemoryDevice(std::shared_ptr<impl::Device> cpu)
      : cpu(std::move(cpu)) {}
  ms_device_kind_t kind() const override { return cpu->kind(); }
  const char *name() const override { return "hidden"; }
  format::SectionKind codeSection() const override {
    return cpu->codeSection();
  }
  Status allocate(size_t size, void **out) override {
    return cpu->allocate(size, out);
  }
  void deallocate(void *ptr) override { cpu->deallocate(ptr); }
  bool hostVisible() const override { return false; }
  Status copyToDevice(void *dst, const void *src, size_t size) override {
    ++uploads;
    uploadBytes.push_back(size);
    return cpu->copyToDevice(dst, src, size);
  }
  Status copyToHost(void *dst, const void *src, size_t size) override {
    if (failDownloads)
      return Status::error(MS_INTERNAL, "copy refused");
    downloads.push_back(size);
    return cpu->copyToHost(dst, src, size);
  }
  Status copyOnDevice(void *dst, const void *src, size_t size) override {
    return cpu->copyOnDevice(dst, src, size);
  }
  Status loadExecutable(const std::string &what, const void *code, size_t size,
                        const std::vector<std::string> &names,
                        std::unique_ptr<impl::Executable> &out) override {
    return cpu->loadExecutable(what, code, size, names, out);
  }
  Status createQueue(impl::QueueMode mode,
                     std::unique_ptr<impl::Queue> &out) override {
    return cpu->createQueue(mode, out);
  }
  Status createEvent(std::unique_ptr<impl::Event> &out) override {
    return cpu->createEvent(out);
  }

  /// The wrapped CPU device.
  std::shared_ptr<impl::Device> cpu;
  /// Calls of copyToDevice, and the bytes of each.
  int uploads = 0;
  std::vector<size_t> uploadBytes;
  /// The bytes of each call of copyToHost.
  std::vector<size_t> downloads;
  /// Makes copyToHost fail.
  bool failDownloads = false;
};

TEST_F(ExecutorTest, HostInvisibleDeviceGetsWeightsAndStagesHostSteps) {
  std::shared_ptr<impl::Device> cpu;
  ASSERT_TRUE(impl::createDevice(MS_DEVICE_CPU, cpu).ok());
  auto hidden = std::make_shared<HiddenMemoryDevice>(cpu);

  // The weights are uploaded rather than used from the mapped file.
  std::string path = dir.file("plain.msm");
  ASSERT_TRUE(writeFile(path, twoQueueModule().build()));
  std::shared_ptr<impl::Module> plain;
  Status status = impl::Module::load(hidden, path, plain);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(hidden->uploads, 1);
  EXPECT_NE(plain->weights, plain->image.weights.data);
  std::shared_ptr<impl::Context> run;
  ASSERT_TRUE(impl::Context::create(plain, run).ok());
  float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1}, out0[4], out1[4];
  TensorView views[4] = {f32x4(x), f32x4(y), f32x4(out0), f32x4(out1)};
  ms_tensor_t raw[4] = {views[0].raw(), views[1].raw(), views[2].raw(),
                        views[3].raw()};
  status = run->run(raw, 2, raw + 2, 2, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  expectOutputs(x, y, out0, out1);

  // Host steps run on host copies of their tensors: the operands are read
  // back, the results written up, a result with data-dependent extents only
  // as large as its computed shape.
  ModuleParts parts = sampleModule({});
  parts.meta = Json::parse(R"({
    "inputs": [{"name": "s", "dtype": "string", "shape": [3], "buffer": 0}],
    "outputs": [{"name": "kept", "dtype": "string", "shape": [-1],
                 "buffer": 1},
                {"name": "joined", "dtype": "string", "shape": [3],
                 "buffer": 2}],
    "buffers": [{"id": 0, "kind": "input", "index": 0, "size": 48},
                {"id": 1, "kind": "output", "index": 0, "size": 48},
                {"id": 2, "kind": "output", "index": 1, "size": 48},
                {"id": 3, "kind": "arena", "offset": 0, "size": 48}],
    "arena_size": 64,
    "steps": [
      {"kind": "copy", "src": 0, "dst": 3, "size": 48},
      {"kind": "host", "op": "msgraph.string_normalizer", "operands": 1,
       "args": [3, 1], "dtypes": ["string", "string"], "shapes": [[3], [-1]],
       "attrs": {"case_change_action": "UPPER", "stopwords": ["b"]}},
      {"kind": "host", "op": "msgraph.string_concat", "operands": 2,
       "args": [3, 0, 2], "dtypes": ["string", "string", "string"],
       "shapes": [[3], [3], [3]]}]
  })");
  path = dir.file("host.msm");
  ASSERT_TRUE(writeFile(path, parts.build()));
  std::shared_ptr<impl::Module> host;
  status = impl::Module::load(hidden, path, host);
  ASSERT_TRUE(status.ok()) << status.message();
  std::shared_ptr<impl::Context> strings;
  ASSERT_TRUE(impl::Context::create(host, strings).ok());
  std::string words[3] = {"a", "B", "c"};
  ms_string_t elements[3];
  for (int i = 0; i < 3; ++i)
    elements[i] = ms_string_t{words[i].data(), words[i].size()};
  // The input in the device's memory (its characters stay on the host).
  void *input = nullptr;
  ASSERT_TRUE(hidden->allocate(sizeof(elements), &input).ok());
  ASSERT_TRUE(hidden->copyToDevice(input, elements, sizeof(elements)).ok());
  int64_t shape[1] = {3};
  ms_tensor_t in = {input, sizeof(elements), MS_DTYPE_STRING, 1, shape};
  ms_tensor_t outs[2] = {};
  hidden->downloads.clear();
  hidden->uploadBytes.clear();
  status = strings->run(&in, 1, outs, 2, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  // Read back: the normalizer's operand, then the concat's two.
  EXPECT_EQ(hidden->downloads, (std::vector<size_t>{48, 48, 48}));
  // Written up: two of the normalizer's three strings, then the concat's.
  EXPECT_EQ(hidden->uploadBytes, (std::vector<size_t>{32, 48}));
  ASSERT_EQ(outs[0].rank, 1u);
  EXPECT_EQ(outs[0].shape[0], 2);
  ms_string_t kept[2], joined[3];
  ASSERT_TRUE(hidden->copyToHost(kept, outs[0].data, sizeof(kept)).ok());
  ASSERT_TRUE(hidden->copyToHost(joined, outs[1].data, sizeof(joined)).ok());
  auto text = [](const ms_string_t &s) { return std::string(s.data, s.size); };
  EXPECT_EQ(text(kept[0]), "A");
  EXPECT_EQ(text(kept[1]), "C");
  EXPECT_EQ(text(joined[0]), "aa");
  EXPECT_EQ(text(joined[1]), "BB");
  EXPECT_EQ(text(joined[2]), "cc");
  // A failed copy names the step.
  hidden->failDownloads = true;
  ms_tensor_t again[2] = {};
  status = strings->run(&in, 1, again, 2, nullptr);
  EXPECT_NE(std::string(status.message())
                .find("steps[1] (msgraph.string_normalizer): copy refused"),
            std::string::npos)
      << status.message();
  hidden->failDownloads = false;
  strings.reset();
  hidden->deallocate(input);
}
} // namespace
