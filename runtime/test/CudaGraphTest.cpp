//===- CudaGraphTest.cpp - offloaded graphs (O2) on the cuda device -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The cuda backend runs an offloaded graph of the cuda-ptx section as one
// CUDA graph, captured once per set of buffer addresses and replayed. The
// graph here chains the test kernels (TestBackends.cpp), with buffers in
// the weights and the arena at offsets, a kernel with scratch, and a copy.
// Against the driver stand-in (test/cuda/FakeCuda.cpp) the tests also
// count captures and launches; on a GPU they check the results only;
// without a driver they skip.
//
//===----------------------------------------------------------------------===//

#include "core/HAL.h"
#include "TestBackends.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <array>

using namespace ms;
using namespace ms::rt::impl;
using ms::rt::Status;
using Json = nlohmann::json;

namespace {
/// The cuda test kernels plus graph `ms_graph_0` over [weights, arena, x,
/// out]: t = x + w (w at weights + 16, t at arena + 0), u = t * x (through
/// ms_kernel_2's scratch, u at arena + 16), out = u (a copy), then
/// out = relu(out).
Json graphSection() {
  std::vector<uint8_t> code;
  for (const test::TestBackend &backend : test::testBackends)
    if (backend.kind == MS_DEVICE_CUDA)
      code = backend.kernels(false);
  Json section = Json::parse(code.begin(), code.end());
  section["kernels"]["ms_graph_0"] = Json::parse(R"({"graph": [
    {"kernel": "ms_kernel_0", "args": [[2, 0], [0, 16], [1, 0]]},
    {"kernel": "ms_kernel_2", "args": [[1, 0], [2, 0], [1, 16]]},
    {"copy": 16, "args": [[1, 16], [3, 0]]},
    {"kernel": "ms_kernel_3", "args": [[3, 0], [3, 0]]}
  ]})");
  return section;
}

/// The graph's result for one element.
float expected(float x, float w) { return std::max((x + w) * x, 0.0f); }

/// Captures, graph launches and kernel launches so far, from the driver
/// stand-in; false on a real driver.
bool fakeCounts(std::array<long long, 3> &counts) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!library)
    return false;
  using CountsFn = void (*)(long long *, long long *, long long *);
  auto fn = reinterpret_cast<CountsFn>(dlsym(library, "msFakeCudaCounts"));
  dlclose(library);
  if (!fn)
    return false;
  fn(&counts[0], &counts[1], &counts[2]);
  return true;
}

class CudaGraphTest : public ::testing::Test {
protected:
  void SetUp() override {
    Status status = createDevice(MS_DEVICE_CUDA, device);
    if (status.code() == MS_UNAVAILABLE)
      GTEST_SKIP() << status.message();
    ASSERT_TRUE(status.ok()) << status.message();
  }

  void TearDown() override {
    for (void *ptr : memory)
      device->deallocate(ptr);
  }

  /// Loads `section`, resolving `names`.
  Status load(const Json &section, const std::vector<std::string> &names) {
    std::string text = section.dump();
    return device->loadExecutable("m.msm", text.data(), text.size(), names,
                                  executable);
  }

  /// Allocates `size` bytes of device memory holding `host` (when given).
  void *allocate(size_t size, const void *host = nullptr) {
    void *ptr = nullptr;
    EXPECT_TRUE(device->allocate(size, &ptr).ok());
    if (ptr && host) {
      EXPECT_TRUE(device->copyToDevice(ptr, host, size).ok());
    }
    memory.push_back(ptr);
    return ptr;
  }

  /// Returns 4 floats of device memory `ptr`.
  std::array<float, 4> read(const void *ptr) {
    std::array<float, 4> host{};
    EXPECT_TRUE(device->copyToHost(host.data(), ptr, 16).ok());
    return host;
  }

  std::shared_ptr<Device> device;
  std::unique_ptr<Executable> executable;
  std::vector<void *> memory;
};

TEST_F(CudaGraphTest, CapturesOncePerAddressesAndReplays) {
  ASSERT_TRUE(load(graphSection(), {"ms_graph_0", "ms_kernel_0"}).ok());
  Function graph = executable->functions()[0];
  const float w[8] = {0, 0, 0, 0, 1, -2, 0.5f, 3};
  void *weights = allocate(32, w), *arena = allocate(32);
  void *x1 = allocate(16), *x2 = allocate(16), *out = allocate(16);
  std::array<long long, 3> before{}, after{};
  bool counted = fakeCounts(before);
  for (QueueMode mode : {QueueMode::Async, QueueMode::Inline}) {
    std::unique_ptr<Queue> queue;
    ASSERT_TRUE(device->createQueue(mode, queue).ok());
    // Two runs on x1 with other values, then x2, then x1 again.
    for (int run = 0; run < 4; ++run) {
      float x[4] = {1, 2, -3, float(run)};
      void *input = run == 2 ? x2 : x1;
      ASSERT_TRUE(device->copyToDevice(input, x, 16).ok());
      void *args[4] = {weights, arena, input, out};
      ASSERT_TRUE(queue->launch(graph, args, 4).ok());
      Status status = queue->synchronize();
      ASSERT_TRUE(status.ok()) << status.message();
      std::array<float, 4> result = read(out);
      for (int i = 0; i < 4; ++i)
        EXPECT_FLOAT_EQ(result[i], expected(x[i], w[4 + i]))
            << "run " << run << ", element " << i;
    }
  }
  if (!counted)
    return;
  ASSERT_TRUE(fakeCounts(after));
  EXPECT_EQ(after[0] - before[0], 2) << "one capture per set of addresses";
  EXPECT_EQ(after[1] - before[1], 8) << "one graph launch per run";
  // Each run's graph runs the 4 launches of its 3 kernels.
  EXPECT_EQ(after[2] - before[2], 8 * 4);
}

TEST_F(CudaGraphTest, ReportsArgumentsTheStepDoesNotPass) {
  ASSERT_TRUE(load(graphSection(), {"ms_graph_0"}).ok());
  void *buffer = allocate(32);
  void *args[3] = {buffer, buffer, buffer};
  std::unique_ptr<Queue> queue;
  ASSERT_TRUE(device->createQueue(QueueMode::Inline, queue).ok());
  Status status = queue->launch(executable->functions()[0], args, 3);
  if (status.ok())
    status = queue->synchronize();
  EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(status.message())
                .find("a cuda graph reads argument 3 but the step passes 3"),
            std::string::npos)
      << status.message();
}

TEST_F(CudaGraphTest, RejectsMalformedGraphs) {
  struct Case {
    const char *graph;
    const char *error;
  };
  const Case cases[] = {
      {R"("nodes")", "graph 'ms_graph_0': expected 'graph' to be a list"},
      {R"([{"kernel": "ms_kernel_0"}])",
       "graph 'ms_graph_0': node 0: expected 'args'"},
      {R"([{"kernel": "ms_kernel_0", "args": [[0]]}])",
       "node 0: expected each argument to be [argument, byte offset]"},
      {R"([{"args": []}])", "node 0: expected 'kernel' or 'copy'"},
      {R"([{"copy": 16, "args": [[0, 0]]}])",
       "node 0: expected a copy of a number of bytes between 2 buffers"},
      {R"([{"kernel": "ms_kernel_9", "args": []}])",
       "kernel 'ms_kernel_9' not found in the cuda-ptx section"},
      {R"([{"kernel": "ms_graph_0", "args": []}])",
       "graph 'ms_graph_0' is a node of a graph"},
  };
  for (const Case &each : cases) {
    Json section = graphSection();
    section["kernels"]["ms_graph_0"]["graph"] = Json::parse(each.graph);
    Status status = load(section, {"ms_graph_0"});
    EXPECT_FALSE(status.ok()) << each.graph;
    EXPECT_NE(std::string(status.message()).find(each.error),
              std::string::npos)
        << status.message();
  }
}
} // namespace
