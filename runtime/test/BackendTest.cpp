//===- BackendTest.cpp - the behavioural suite, run once per backend ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Buffers, streams, module loading and execution, written once and
// instantiated for every backend (TestBackends.h). A backend that cannot run
// a test lists it in the skip list with the reason; everything else must
// pass.
//
//===----------------------------------------------------------------------===//

#include "ContextTest.h"
#include "TestBackends.h"
#include "ms/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

using namespace ms;
using namespace ms::rt;
using namespace ms::test;
using Json = nlohmann::json;

namespace {
class BackendTest : public ::testing::TestWithParam<TestBackend> {
protected:
  void SetUp() override {
    const TestBackend &backend = GetParam();
    if (const char *reason = skipReason(backend, currentTestName()))
      GTEST_SKIP() << reason;
    ASSERT_FALSE(dir.path.empty());
    Status status = Device::create(backend.kind, device);
    // A device whose driver or hardware is absent (cuda without a GPU):
    // the suite skips, saying why.
    if (status.code() == MS_UNAVAILABLE && backend.kind != MS_DEVICE_CPU)
      GTEST_SKIP() << status.message();
    ASSERT_TRUE(status.ok()) << status.message();
  }

  /// Writes `parts` to a fresh file and loads it into `module`.
  Status load(const ModuleParts &parts, Module &module) {
    std::string path = dir.file("m" + std::to_string(files++) + ".msm");
    EXPECT_TRUE(writeFile(path, parts.build()));
    return Module::load(device, path, module);
  }

  /// Returns the sample module for this backend.
  ModuleParts sample(bool variant = false) {
    ModuleParts parts = sampleModule(GetParam().kernels(variant));
    parts.codeKind = uint32_t(GetParam().codeSection);
    return parts;
  }

  /// Loads the sample module and creates a context for it.
  void loadSample(Module &module, Context &context) {
    Status status = load(sample(), module);
    ASSERT_TRUE(status.ok()) << status.message();
    status = Context::create(module, context);
    ASSERT_TRUE(status.ok()) << status.message();
  }

  TempDir dir;
  Device device;
  int files = 0;
};

/// Four floats in device memory (the caller's side of every run here: a
/// device whose memory the host cannot read takes only device pointers).
struct DeviceF32x4 {
  /// Allocates them on `device`, holding `host` unless it is NULL.
  explicit DeviceF32x4(const Device &device, const float *host = nullptr) {
    EXPECT_TRUE(Buffer::allocate(device, 16, buffer).ok());
    if (host)
      EXPECT_TRUE(buffer.write(0, host, 16).ok());
  }
  /// Returns the tensor view of them.
  TensorView view() const { return f32x4(static_cast<float *>(buffer.data())); }
  /// Returns their values.
  std::array<float, 4> read() const {
    std::array<float, 4> values{};
    EXPECT_TRUE(buffer.read(0, values.data(), 16).ok());
    return values;
  }
  Buffer buffer;
};

/// Returns the first `count` floats of `view`, in `device`'s memory (a
/// runtime-owned output).
std::vector<float> readFloats(const Device &device, const TensorView &view,
                              size_t count = 4) {
  std::vector<float> values(count);
  Buffer wrapped;
  EXPECT_TRUE(Buffer::wrap(device, view.data, count * 4, wrapped).ok());
  EXPECT_TRUE(wrapped.read(0, values.data(), count * 4).ok());
  return values;
}

/// Checks `out0` and `out1` of the sample module for inputs `x`, `y`.
void expectSampleOutputs(const float *x, const float *y, const float *out0,
                         const float *out1) {
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(out0[i], sampleOut0(x[i], y[i], sampleWeights[i])) << i;
    EXPECT_FLOAT_EQ(out1[i], sampleWeights[i]) << i;
  }
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

TEST_P(BackendTest, BufferAllocationIsAlignedAndZeroed) {
  for (size_t size : {size_t(0), size_t(1), size_t(63), size_t(4096)}) {
    Buffer buffer;
    ASSERT_TRUE(Buffer::allocate(device, size, buffer).ok());
    EXPECT_EQ(buffer.size(), size);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u);
    std::vector<uint8_t> host(size, 0xff);
    ASSERT_TRUE(buffer.read(0, host.data(), size).ok());
    EXPECT_EQ(host, std::vector<uint8_t>(size, 0));
  }
}

TEST_P(BackendTest, BufferReadWriteRoundTrip) {
  Buffer buffer;
  ASSERT_TRUE(Buffer::allocate(device, 16, buffer).ok());
  const uint8_t bytes[4] = {1, 2, 3, 4};
  ASSERT_TRUE(buffer.write(12, bytes, 4).ok());
  uint8_t back[4] = {};
  ASSERT_TRUE(buffer.read(12, back, 4).ok());
  EXPECT_EQ(std::memcmp(bytes, back, 4), 0);
  Status status = buffer.write(13, bytes, 4);
  EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(status.message()).find("outside the 16-byte buffer"),
            std::string::npos);
  EXPECT_EQ(buffer.read(SIZE_MAX, back, 2).code(), MS_INVALID_ARGUMENT);
  EXPECT_EQ(buffer.read(0, nullptr, 2).code(), MS_INVALID_ARGUMENT);
}

TEST_P(BackendTest, BufferWrapIsAView) {
  Buffer owner, buffer;
  ASSERT_TRUE(Buffer::allocate(device, 32, owner).ok());
  ASSERT_TRUE(Buffer::wrap(device, owner.data(), 32, buffer).ok());
  EXPECT_EQ(buffer.data(), owner.data());
  float two = 2.0f, back = 0;
  ASSERT_TRUE(buffer.write(4, &two, 4).ok());
  ASSERT_TRUE(owner.read(4, &back, 4).ok());
  EXPECT_EQ(back, 2.0f);
  EXPECT_EQ(Buffer::wrap(device, nullptr, 4, buffer).code(),
            MS_INVALID_ARGUMENT);
  EXPECT_TRUE(Buffer::wrap(device, nullptr, 0, buffer).ok());
}

TEST_P(BackendTest, NamesItsArchitecture) {
  // A GPU's compute capability ("sm_90"); cpu and npu code does not depend
  // on one (CudaGraphTest checks the stand-in's).
  std::string arch = device.arch();
  if (GetParam().kind == MS_DEVICE_CUDA)
    EXPECT_EQ(arch.rfind("sm_", 0), 0u) << arch;
  else
    EXPECT_EQ(arch, "");
  EXPECT_STREQ(ms_device_arch(nullptr), "");
}

TEST_P(BackendTest, NullHandlesAreRejected) {
  ms_buffer_t buffer = nullptr;
  Status status(ms_buffer_allocate(nullptr, 4, &buffer));
  EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(Status(ms_buffer_allocate(device.get(), 4, nullptr)).code(),
            MS_INVALID_ARGUMENT);
  EXPECT_EQ(Status(ms_stream_synchronize(nullptr)).code(), MS_INVALID_ARGUMENT);
  EXPECT_EQ(Status(ms_context_run(nullptr, nullptr, 0, nullptr, 0)).code(),
            MS_INVALID_ARGUMENT);
  EXPECT_EQ(ms_module_input_count(nullptr), 0u);
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

/// State for host functions submitted to a stream.
struct Recorder {
  std::mutex mutex;
  std::vector<int> order;
  int next = 0;
};

/// Appends the next number to the recorder.
ms_status_t record(void *data) {
  auto *recorder = static_cast<Recorder *>(data);
  std::lock_guard<std::mutex> lock(recorder->mutex);
  recorder->order.push_back(recorder->next++);
  return nullptr;
}

/// Fails with a message.
ms_status_t failing(void *data) {
  return ms_status_create(MS_INTERNAL, static_cast<const char *>(data));
}

TEST_P(BackendTest, StreamRunsWorkInOrder) {
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  Recorder recorder;
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE(stream.submit(record, &recorder).ok());
  ASSERT_TRUE(stream.synchronize().ok());
  ASSERT_EQ(recorder.order.size(), 1000u);
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(recorder.order[i], i);
}

TEST_P(BackendTest, StreamReportsFirstFailureOnce) {
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  Recorder recorder;
  char first[] = "first", second[] = "second";
  ASSERT_TRUE(stream.submit(failing, first).ok());
  ASSERT_TRUE(stream.submit(record, &recorder).ok());
  ASSERT_TRUE(stream.submit(failing, second).ok());
  Status status = stream.synchronize();
  EXPECT_EQ(status.code(), MS_INTERNAL);
  EXPECT_STREQ(status.message(), "first (and 1 later failures)");
  EXPECT_EQ(recorder.order.size(), 1u) << "work after a failure still runs";
  EXPECT_TRUE(stream.synchronize().ok());
  EXPECT_EQ(stream.submit(nullptr, nullptr).code(), MS_INVALID_ARGUMENT);
}

TEST_P(BackendTest, StreamsRunConcurrentlyAndFreeWaits) {
  constexpr int streams = 8, items = 200;
  std::vector<Recorder> recorders(streams);
  {
    std::vector<Stream> queue(streams);
    for (Stream &stream : queue)
      ASSERT_TRUE(Stream::create(device, stream).ok());
    for (int i = 0; i < items; ++i)
      for (int s = 0; s < streams; ++s)
        ASSERT_TRUE(queue[s].submit(record, &recorders[s]).ok());
    // Freeing the streams waits for their work.
  }
  for (Recorder &recorder : recorders)
    EXPECT_EQ(recorder.order.size(), size_t(items));
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

TEST_P(BackendTest, RunsKernelsWithCallerOutputs) {
  Module module;
  Context context;
  loadSample(module, context);
  float x[4] = {1, -2, 3, -40}, y[4] = {0.5f, 0.25f, -1, 2};
  DeviceF32x4 dx(device, x), dy(device, y), out0(device), out1(device);
  std::vector<TensorView> outputs = {out0.view(), out1.view()};
  Status status = context.run({dx.view(), dy.view()}, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  expectSampleOutputs(x, y, out0.read().data(), out1.read().data());
  EXPECT_EQ(outputs[0].data, out0.buffer.data());
}

TEST_P(BackendTest, RunsKernelsWithRuntimeOutputs) {
  Module module;
  Context context;
  loadSample(module, context);
  float x[4] = {1, 2, 3, 4}, y[4] = {4, 3, 2, 1};
  DeviceF32x4 dx(device, x), dy(device, y);
  std::vector<TensorView> outputs(2);
  Status status = context.run({dx.view(), dy.view()}, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  for (const TensorView &output : outputs) {
    ASSERT_NE(output.data, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(output.data) % 64, 0u);
    EXPECT_EQ(output.dtype, MS_DTYPE_F32);
    EXPECT_EQ(output.shape, std::vector<int64_t>{4});
    EXPECT_EQ(output.size, 16u);
  }
  expectSampleOutputs(x, y, readFloats(device, outputs[0]).data(),
                      readFloats(device, outputs[1]).data());
}

TEST_P(BackendTest, ReusesArenaAndOutputsAcrossRuns) {
  Module module;
  Context context;
  loadSample(module, context);
  void *first = nullptr;
  for (int run = 0; run < 100; ++run) {
    float x[4], y[4];
    for (int i = 0; i < 4; ++i) {
      x[i] = float(run - i);
      y[i] = float(run * i) * 0.5f - 3;
    }
    DeviceF32x4 dx(device, x), dy(device, y);
    std::vector<TensorView> outputs(2);
    Status status = context.run({dx.view(), dy.view()}, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    if (run == 0)
      first = outputs[0].data;
    EXPECT_EQ(outputs[0].data, first);
    expectSampleOutputs(x, y, readFloats(device, outputs[0]).data(),
                        readFloats(device, outputs[1]).data());
  }
}

TEST_P(BackendTest, RejectsBadInputs) {
  Module module;
  Context context;
  loadSample(module, context);
  // Refused before any step runs.
  DeviceF32x4 dx(device), dy(device), dout(device);
  float *x = static_cast<float *>(dx.buffer.data());
  float *y = static_cast<float *>(dy.buffer.data());
  float *out = static_cast<float *>(dout.buffer.data());
  auto expectError = [&](std::vector<TensorView> inputs,
                         std::vector<TensorView> outputs,
                         const std::string &text) {
    Status status = context.run(inputs, outputs);
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
        << "expected \"" << text << "\" in: " << status.message();
  };
  std::vector<TensorView> none(2);
  expectError({f32x4(x)}, none, "expected 2 inputs, got 1");
  expectError({f32x4(x), f32x4(y)}, {TensorView()},
              "expected 2 outputs, got 1");
  TensorView wrongDtype{y, 16, MS_DTYPE_I32, {4}};
  expectError({f32x4(x), wrongDtype}, none,
              "input 'y': expected f32[4], got i32[4]");
  TensorView wrongShape{x, 16, MS_DTYPE_F32, {2, 2}};
  expectError({wrongShape, f32x4(y)}, none,
              "input 'x': expected f32[4], got f32[2,2]");
  TensorView wrongSize{x, 12, MS_DTYPE_F32, {4}};
  expectError({wrongSize, f32x4(y)}, none,
              "input 'x': size is 12 bytes, expected 16");
  TensorView nullData{nullptr, 16, MS_DTYPE_F32, {4}};
  expectError({f32x4(x), nullData}, none, "input 'y': data is NULL");
  TensorView badDtype{x, 16, ms_dtype_t(99), {4}};
  expectError({badDtype, f32x4(y)}, none, "input 'x': expected f32[4], got");
  TensorView badOutput{out, 16, MS_DTYPE_F32, {5}};
  expectError({f32x4(x), f32x4(y)}, {badOutput, TensorView()},
              "output 'out0': expected f32[4], got f32[5]");

  // The cuda device's kernels move 16 bytes at a time: a tensor 4 bytes
  // past an aligned address is refused there (any address does elsewhere).
  if (device.kind() == MS_DEVICE_CUDA) {
    Buffer wide;
    ASSERT_TRUE(Buffer::allocate(device, 32, wide).ok());
    float *shifted = static_cast<float *>(wide.data()) + 1;
    expectError({f32x4(shifted), f32x4(y)}, none,
                "input 'x': expected data aligned to 16 bytes on this "
                "device, but its address is 4 past a multiple");
    expectError({f32x4(x), f32x4(y)}, {f32x4(shifted), TensorView()},
                "output 'out0': expected data aligned to 16 bytes");
  }

  // A NULL shape with a rank is caught too (C API).
  TensorView views[2] = {f32x4(x), f32x4(y)};
  ms_tensor_t raw[2] = {views[0].raw(), views[1].raw()};
  raw[1].shape = nullptr;
  ms_tensor_t outs[2] = {};
  Status status = context.run(raw, 2, outs, 2);
  EXPECT_NE(std::string(status.message()).find("input 'y': shape is NULL"),
            std::string::npos)
      << status.message();
}

TEST_P(BackendTest, EnqueuesRunsOnAStream) {
  Module module;
  Context context;
  loadSample(module, context);
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  constexpr int runs = 50;
  std::vector<std::array<float, 4>> xs(runs), ys(runs);
  std::deque<DeviceF32x4> dxs, dys, out0, out1;
  for (int run = 0; run < runs; ++run) {
    for (int i = 0; i < 4; ++i) {
      xs[run][i] = float(run + i);
      ys[run][i] = float(run - 2 * i);
    }
    dxs.emplace_back(device, xs[run].data());
    dys.emplace_back(device, ys[run].data());
    out0.emplace_back(device);
    out1.emplace_back(device);
    std::vector<TensorView> outputs = {out0.back().view(), out1.back().view()};
    Status status = context.enqueue(
        stream, {dxs.back().view(), dys.back().view()}, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  // While runs are queued, the context may not run elsewhere.
  Stream other;
  ASSERT_TRUE(Stream::create(device, other).ok());
  std::vector<TensorView> outputs(2);
  DeviceF32x4 dx(device), dy(device);
  Status status = context.enqueue(other, {dx.view(), dy.view()}, outputs);
  ASSERT_TRUE(status.ok() || status.code() == MS_UNAVAILABLE)
      << status.message();
  ASSERT_TRUE(stream.synchronize().ok());
  ASSERT_TRUE(other.synchronize().ok());
  for (int run = 0; run < runs; ++run)
    expectSampleOutputs(xs[run].data(), ys[run].data(), out0[run].read().data(),
                        out1[run].read().data());
  // Once synchronized, synchronous runs work again.
  ASSERT_TRUE(context.run({dx.view(), dy.view()}, outputs).ok());
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

TEST_P(BackendTest, RejectsRunsWhileQueuedElsewhere) {
  Module module;
  Context context;
  loadSample(module, context);
  Stream stream, other;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  ASSERT_TRUE(Stream::create(device, other).ok());
  Gate gate;
  ASSERT_TRUE(stream.submit(waitForGate, &gate).ok());
  float x[4] = {1, 1, 1, 1}, y[4] = {2, 2, 2, 2};
  DeviceF32x4 dx(device, x), dy(device, y);
  std::vector<TensorView> outputs(2);
  ASSERT_TRUE(context.enqueue(stream, {dx.view(), dy.view()}, outputs).ok());
  std::vector<TensorView> more(2);
  Status status = context.run({dx.view(), dy.view()}, more);
  EXPECT_EQ(status.code(), MS_UNAVAILABLE);
  EXPECT_NE(std::string(status.message()).find("synchronize"),
            std::string::npos);
  EXPECT_EQ(context.enqueue(other, {dx.view(), dy.view()}, more).code(),
            MS_UNAVAILABLE);
  {
    std::lock_guard<std::mutex> lock(gate.mutex);
    gate.open = true;
  }
  gate.changed.notify_all();
  ASSERT_TRUE(stream.synchronize().ok());
  expectSampleOutputs(x, y, readFloats(device, outputs[0]).data(),
                      readFloats(device, outputs[1]).data());
}

TEST_P(BackendTest, ContextOutlivesOtherHandles) {
  Context context;
  {
    Module module;
    Status status = load(sample(), module);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_TRUE(Context::create(module, context).ok());
  }
  // The caller's tensors are its own buffers.
  float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1};
  DeviceF32x4 dx(device, x), dy(device, y), out0(device), out1(device);
  device = Device();
  std::vector<TensorView> outputs = {out0.view(), out1.view()};
  ASSERT_TRUE(context.run({dx.view(), dy.view()}, outputs).ok());
  expectSampleOutputs(x, y, out0.read().data(), out1.read().data());
}

TEST_P(BackendTest, QueuedRunOutlivesContextHandle) {
  Module module;
  Stream stream;
  ASSERT_TRUE(Stream::create(device, stream).ok());
  float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1};
  DeviceF32x4 dx(device, x), dy(device, y), out0(device), out1(device);
  {
    Context context;
    loadSample(module, context);
    std::vector<TensorView> outputs = {out0.view(), out1.view()};
    ASSERT_TRUE(context.enqueue(stream, {dx.view(), dy.view()}, outputs).ok());
  }
  module = Module();
  ASSERT_TRUE(stream.synchronize().ok());
  expectSampleOutputs(x, y, out0.read().data(), out1.read().data());
}

TEST_P(BackendTest, RunsInParallelWithOneContextPerThread) {
  Module module;
  Status status = load(sample(), module);
  ASSERT_TRUE(status.ok()) << status.message();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Context context;
      if (!Context::create(module, context).ok()) {
        ++failures;
        return;
      }
      DeviceF32x4 dx(device), dy(device), out0(device), out1(device);
      for (int run = 0; run < 200; ++run) {
        float x[4] = {float(t), float(run), 1, 2}, y[4] = {3, 4, float(t), 0};
        if (!dx.buffer.write(0, x, 16).ok() || !dy.buffer.write(0, y, 16).ok())
          ++failures;
        std::vector<TensorView> outputs = {out0.view(), out1.view()};
        if (!context.run({dx.view(), dy.view()}, outputs).ok())
          ++failures;
        std::array<float, 4> got = out0.read();
        for (int i = 0; i < 4; ++i)
          if (got[i] != sampleOut0(x[i], y[i], sampleWeights[i]))
            ++failures;
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_P(BackendTest, RunsModuleWithoutKernels) {
  // Outputs that are an input and a weight: only copy steps, no code.
  ModuleParts parts = sample();
  parts.code.clear();
  parts.meta["kernels"] = Json::array();
  parts.meta["steps"] = Json::parse(R"([
    {"kind": "copy", "src": 0, "dst": 10, "size": 16},
    {"kind": "copy", "src": 2, "dst": 11, "size": 16}
  ])");
  Module module;
  Status status = load(parts, module);
  ASSERT_TRUE(status.ok()) << status.message();
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());
  float x[4] = {5, 6, 7, 8};
  DeviceF32x4 dx(device, x), dy(device);
  std::vector<TensorView> outputs(2);
  ASSERT_TRUE(context.run({dx.view(), dy.view()}, outputs).ok());
  EXPECT_EQ(readFloats(device, outputs[0]),
            (std::vector<float>{x[0], x[1], x[2], x[3]}));
  EXPECT_EQ(readFloats(device, outputs[1]),
            std::vector<float>(sampleWeights, sampleWeights + 4));
}

TEST_P(BackendTest, RunsZeroSizedAndScalarTensors) {
  ModuleParts parts = sample();
  parts.code.clear();
  parts.meta = Json::parse(R"({
    "inputs": [{"name": "empty", "dtype": "i64", "shape": [0, 3], "buffer": 0},
               {"name": "scalar", "dtype": "bool", "shape": [], "buffer": 1}],
    "outputs": [{"name": "same", "dtype": "bool", "shape": [], "buffer": 2}],
    "buffers": [{"id": 0, "kind": "input", "index": 0, "size": 0},
                {"id": 1, "kind": "input", "index": 1, "size": 1},
                {"id": 2, "kind": "output", "index": 0, "size": 1}],
    "steps": [{"kind": "copy", "src": 0, "dst": 2, "size": 0},
              {"kind": "copy", "src": 1, "dst": 2, "size": 1}]
  })");
  Module module;
  Status status = load(parts, module);
  ASSERT_TRUE(status.ok()) << status.message();
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());
  uint8_t flag = 1;
  Buffer scalar;
  ASSERT_TRUE(Buffer::allocate(device, 1, scalar).ok());
  ASSERT_TRUE(scalar.write(0, &flag, 1).ok());
  std::vector<TensorView> outputs(1);
  status = context.run({TensorView{nullptr, 0, MS_DTYPE_I64, {0, 3}},
                        TensorView{scalar.data(), 1, MS_DTYPE_BOOL, {}}},
                       outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  uint8_t same = 0;
  Buffer result;
  ASSERT_TRUE(Buffer::wrap(device, outputs[0].data, 1, result).ok());
  ASSERT_TRUE(result.read(0, &same, 1).ok());
  EXPECT_EQ(same, 1);
  EXPECT_TRUE(outputs[0].shape.empty());
}

TEST_P(BackendTest, LoadsModulesWithDifferentCodeSideBySide) {
  Module add, sub;
  Status status = load(sample(false), add);
  ASSERT_TRUE(status.ok()) << status.message();
  status = load(sample(true), sub);
  ASSERT_TRUE(status.ok()) << status.message();
  Context addContext, subContext;
  ASSERT_TRUE(Context::create(add, addContext).ok());
  ASSERT_TRUE(Context::create(sub, subContext).ok());
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 10, 10, 10};
  DeviceF32x4 dx(device, x), dy(device, y);
  std::vector<TensorView> addOut(2), subOut(2);
  ASSERT_TRUE(addContext.run({dx.view(), dy.view()}, addOut).ok());
  ASSERT_TRUE(subContext.run({dx.view(), dy.view()}, subOut).ok());
  std::vector<float> added = readFloats(device, addOut[0]);
  std::vector<float> subtracted = readFloats(device, subOut[0]);
  // The variant's kernel 0 subtracts: ((x - y) - w) * w.
  for (int i = 0; i < 4; ++i) {
    float w = sampleWeights[i];
    EXPECT_FLOAT_EQ(added[i], sampleOut0(x[i], y[i], w));
    float expected = (x[i] - y[i] - w) * w;
    EXPECT_FLOAT_EQ(subtracted[i], expected > 0 ? expected : 0);
  }
}

TEST_P(BackendTest, StaleLibraryNameIsNotReused) {
  // The variant library is linked with -z nodelete: it stays loaded under
  // its /proc/self/fd/N name after its module is freed. A module loaded
  // next, likely getting the same descriptor, must get its own code.
  for (int round = 0; round < 3; ++round) {
    {
      Module stale;
      Status status = load(sample(true), stale);
      ASSERT_TRUE(status.ok()) << status.message();
    }
    Module module;
    Context context;
    loadSample(module, context);
    float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1};
    DeviceF32x4 dx(device, x), dy(device, y);
    std::vector<TensorView> outputs(2);
    ASSERT_TRUE(context.run({dx.view(), dy.view()}, outputs).ok());
    expectSampleOutputs(x, y, readFloats(device, outputs[0]).data(),
                        readFloats(device, outputs[1]).data());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendTest,
                         ::testing::ValuesIn(testBackends), TestBackendName());
} // namespace
