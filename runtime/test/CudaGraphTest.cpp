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
// without a driver they skip. The same fixture checks launches with
// dynamic shared memory (over 48 KiB: opted in when the module loads) and
// launches taking TMA tensor maps.
//
//===----------------------------------------------------------------------===//

#include "core/HAL.h"
#include "TestBackends.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdlib>

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

// A launch with 64 KiB of dynamic shared memory (the kernel reverses 4
// floats through the last 16 bytes of it), and the sizes a section may not
// ask for.
TEST_F(CudaGraphTest, LaunchesWithDynamicSharedMemory) {
  Json section = graphSection();
  std::string ptx = section["ptx"].get<std::string>();
  const std::string header = ".address_size 64\n";
  size_t at = ptx.find(header);
  ASSERT_NE(at, std::string::npos);
  ptx.insert(at + header.size(),
             ".extern .shared .align 16 .b8 ms_test_dynamic[];\n");
  ptx += R"(
.visible .entry ms_test_reverse(.param .u64 ms_test_reverse_p0,
                                .param .u64 ms_test_reverse_p1)
{
  .reg .b32 %r<6>; .reg .f32 %f<2>; .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd0, [ms_test_reverse_p0];
  cvta.to.global.u64 %rd0, %rd0;
  ld.param.u64 %rd1, [ms_test_reverse_p1];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd0, %rd4;
  ld.global.f32 %f1, [%rd5];
  mov.u32 %r2, ms_test_dynamic;
  add.s32 %r2, %r2, 65520;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  st.shared.f32 [%r4], %f1;
  bar.sync 0;
  sub.s32 %r5, 3, %r1;
  shl.b32 %r5, %r5, 2;
  add.s32 %r5, %r2, %r5;
  ld.shared.f32 %f1, [%r5];
  add.s64 %rd6, %rd1, %rd4;
  st.global.f32 [%rd6], %f1;
  ret;
}
)";
  section["ptx"] = ptx;
  section["kernels"]["ms_kernel_4"] = Json::parse(R"({"scratch": [],
    "launches": [{"function": "ms_test_reverse", "grid": [1, 1, 1],
                  "block": [4, 1, 1], "shared": 65536,
                  "args": [["arg", 0], ["arg", 1]]}]})");
  ASSERT_TRUE(load(section, {"ms_kernel_4"}).ok());
  const float x[4] = {1, 2, 3, 4};
  void *args[2] = {allocate(16, x), allocate(16)};
  std::unique_ptr<Queue> queue;
  ASSERT_TRUE(device->createQueue(QueueMode::Inline, queue).ok());
  Status status = queue->launch(executable->functions()[0], args, 2);
  if (status.ok())
    status = queue->synchronize();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(read(args[1]), (std::array<float, 4>{4, 3, 2, 1}));

  for (const char *shared : {"-1", "232449", "\"big\""}) {
    section["kernels"]["ms_kernel_4"]["launches"][0]["shared"] =
        Json::parse(shared);
    status = load(section, {"ms_kernel_4"});
    EXPECT_FALSE(status.ok()) << shared;
    EXPECT_NE(std::string(status.message())
                  .find("expected 'shared' to be at most 232448 bytes"),
              std::string::npos)
        << status.message();
  }
}

/// A section of one sm_90a kernel, `ms_kernel_5`: 16 threads store the box
/// at (0, 1) of the launch's tensor map (16-bit elements, an 8 x 2 box) that
/// thread 0 loads by TMA into shared memory; and graph `ms_graph_1` of it.
Json tensorMapSection() {
  Json section;
  section["version"] = 1;
  section["arch"] = "sm_90a";
  section["ptx"] = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry ms_test_tma(.param .u64 ms_test_tma_p0,
                            .param .u64 ms_test_tma_p1)
{
  .reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
  .shared .align 128 .b8 ms_test_tile[32];
  .shared .align 8 .b8 ms_test_bar[8];
  ld.param.u64 %rd1, [ms_test_tma_p0];
  ld.param.u64 %rd2, [ms_test_tma_p1];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, 1;
  @%p1 mbarrier.init.shared.b64 [ms_test_bar], %r2;
  @%p1 fence.mbarrier_init.release.cluster;
  bar.sync 0;
  mov.u32 %r3, 32;
  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, [ms_test_bar], %r3;
  mov.u64 %rd4, ms_test_tile;
  cvta.shared.u64 %rd4, %rd4;
  cvta.to.shared::cluster.u64 %rd4, %rd4;
  mov.u32 %r4, 0;
  mov.u32 %r5, 1;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd4], [%rd1, {%r4, %r5}], [ms_test_bar];
  mov.u32 %r6, ms_test_bar;
  mov.u32 %r7, 0;
  {
  .reg .pred P1;
  LAB_WAIT:
  mbarrier.try_wait.parity.shared.b64 P1, [%r6], %r7;
  @P1 bra.uni DONE;
  bra.uni LAB_WAIT;
  DONE:
  }
  mov.u32 %r2, ms_test_tile;
  shl.b32 %r3, %r1, 1;
  add.s32 %r2, %r2, %r3;
  ld.shared.u16 %rs1, [%r2];
  mul.wide.u32 %rd5, %r1, 2;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u16 [%rd6], %rs1;
  ret;
}
)";
  // The map: rows of 8 elements of argument 0 from its 16th byte on, 16
  // bytes apart, 2 of them (the box's second row is past the end).
  section["kernels"]["ms_kernel_5"] = Json::parse(R"({"scratch": [],
    "launches": [{"function": "ms_test_tma", "grid": [1, 1, 1],
                  "block": [16, 1, 1],
                  "args": [["tensor-map", {"buffer": ["arg", 0],
                                           "offset": 16, "type": "f16",
                                           "dims": [8, 2], "strides": [16],
                                           "box": [8, 2]}],
                           ["arg", 1]]}]})");
  section["kernels"]["ms_graph_1"] = Json::parse(R"({"graph": [
    {"kernel": "ms_kernel_5", "args": [[0, 0], [1, 0]]}]})");
  return section;
}

// A launch taking a TMA tensor map: the runtime encodes it for the run's
// buffers (cuTensorMapEncodeTiled), in device memory the launch gets the
// address of; a graph's are encoded once per capture. Malformed maps are
// refused when the section loads, maps the driver refuses when the kernel
// runs.
TEST_F(CudaGraphTest, LaunchesWithTensorMaps) {
  Status loaded = load(tensorMapSection(), {"ms_kernel_5", "ms_graph_1"});
  if (!loaded.ok() &&
      std::string(loaded.message()).find("CUDA_ERROR_NO_BINARY_FOR_GPU") !=
          std::string::npos)
    GTEST_SKIP() << "TMA needs an sm_90a GPU: " << loaded.message();
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  std::vector<uint16_t> values(32);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<uint16_t>(1000 + i);
  void *input = allocate(64, values.data());
  std::unique_ptr<Queue> queue;
  ASSERT_TRUE(device->createQueue(QueueMode::Inline, queue).ok());
  for (size_t f = 0; f < 2; ++f) {
    void *out = allocate(32);
    void *args[2] = {input, out};
    Status status = queue->launch(executable->functions()[f], args, 2);
    if (status.ok())
      status = queue->synchronize();
    ASSERT_TRUE(status.ok()) << status.message();
    std::vector<uint16_t> result(16);
    ASSERT_TRUE(device->copyToHost(result.data(), out, 32).ok());
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(result[i], i < 8 ? 1016 + i : 0)
          << (f ? "graph" : "kernel") << ", element " << i;
  }

  // The driver refuses a map at an address not 16-byte aligned.
  Json misaligned = tensorMapSection();
  misaligned["kernels"]["ms_kernel_5"]["launches"][0]["args"][0][1]["offset"] =
      8;
  ASSERT_TRUE(load(misaligned, {"ms_kernel_5"}).ok());
  void *args[2] = {input, allocate(32)};
  Status status = queue->launch(executable->functions()[0], args, 2);
  if (status.ok())
    status = queue->synchronize();
  EXPECT_NE(
      std::string(status.message())
          .find("cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE"),
      std::string::npos)
      << status.message();

  struct Case {
    const char *key;
    const char *value;
    const char *error;
  };
  const Case cases[] = {
      {"buffer", R"(["scratch", 0])",
       "argument ['scratch', 0] names no buffer"},
      {"type", R"("f32")", "tensor map: expected 'type' f16 or bf16"},
      {"dims", "[]", "tensor map: expected 1 to 5 'dims'"},
      {"dims", "[1, 1, 1, 1, 1, 1]", "tensor map: expected 1 to 5 'dims'"},
      {"strides", "[16, 16]",
       "tensor map: expected a stride for each dimension but the innermost"},
      {"box", "[8, 257]",
       "tensor map: expected 'dims' of at most 2^32 and 'box' sizes of at "
       "most 256"},
      {"offset", R"("16")", "tensor map: expected 'offset' in bytes"},
      {"swizzle", "48",
       "tensor map: expected 'swizzle' of 0, 32, 64 or 128 bytes"},
      {"swizzle", "-64",
       "tensor map: expected 'swizzle' of 0, 32, 64 or 128 bytes"},
  };
  // A swizzled box's rows are no longer than the swizzle.
  Json wide = tensorMapSection();
  Json &wideMap = wide["kernels"]["ms_kernel_5"]["launches"][0]["args"][0][1];
  wideMap["swizzle"] = 32;
  wideMap["box"] = Json::parse("[32, 2]");
  Status tooWide = load(wide, {"ms_kernel_5"});
  EXPECT_NE(std::string(tooWide.message())
                .find("tensor map: expected a 'box' row of at most the "
                      "'swizzle' (32 bytes), found 64"),
            std::string::npos)
      << tooWide.message();
  for (const Case &each : cases) {
    Json section = tensorMapSection();
    section["kernels"]["ms_kernel_5"]["launches"][0]["args"][0][1][each.key] =
        Json::parse(each.value);
    Status status = load(section, {"ms_kernel_5"});
    EXPECT_FALSE(status.ok()) << each.key;
    EXPECT_NE(std::string(status.message()).find(each.error), std::string::npos)
        << status.message();
  }
}

TEST_F(CudaGraphTest, NamesTheGpuArchitecture) {
  // "sm_" and the compute capability, which --cuda-arch names.
  std::string arch = device->arch();
  EXPECT_TRUE(arch.size() >= 5 && arch.rfind("sm_", 0) == 0 &&
              std::all_of(arch.begin() + 3, arch.end(),
                          [](char c) { return c >= '0' && c <= '9'; }))
      << arch;
  std::array<long long, 3> counts;
  if (!fakeCounts(counts))
    return;
  // The stand-in is an H100 (9.0) unless told otherwise. On an 8.0 GPU the
  // test kernels' sm_80 PTX loads and sm_90a PTX does not, which the
  // loader's error says with the arch the module was compiled for and the
  // driver's log.
  EXPECT_EQ(arch, "sm_90");
  setenv("MS_FAKE_CUDA_COMPUTE_CAPABILITY", "8.0", 1);
  std::shared_ptr<Device> older;
  Status status = createDevice(MS_DEVICE_CUDA, older);
  unsetenv("MS_FAKE_CUDA_COMPUTE_CAPABILITY");
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_STREQ(older->arch(), "sm_80");
  setenv("MS_FAKE_CUDA_COMPUTE_CAPABILITY", "8.0", 1);
  std::string text = graphSection().dump();
  Status sm80 = older->loadExecutable("m.msm", text.data(), text.size(),
                                      {"ms_kernel_0"}, executable);
  Json section = tensorMapSection();
  section["arch"] = "sm_90a";
  text = section.dump();
  Status sm90a = older->loadExecutable("m.msm", text.data(), text.size(),
                                       {"ms_kernel_5"}, executable);
  unsetenv("MS_FAKE_CUDA_COMPUTE_CAPABILITY");
  EXPECT_TRUE(sm80.ok()) << sm80.message();
  EXPECT_EQ(sm90a.code(), MS_UNAVAILABLE);
  EXPECT_NE(std::string(sm90a.message())
                .find("the driver cannot load its PTX (compiled for sm_90a)"),
            std::string::npos)
      << sm90a.message();
  EXPECT_NE(std::string(sm90a.message())
                .find(".target sm_90a is not supported by this GPU (compute "
                      "capability 8.0)"),
            std::string::npos)
      << sm90a.message();
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
