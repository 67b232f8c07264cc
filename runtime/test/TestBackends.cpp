//===- TestBackends.cpp - the backends the per-device suites run on -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "TestBackends.h"
#include "ModuleBuilder.h"

#include <gtest/gtest.h>

using namespace ms;
using namespace ms::test;
using Json = nlohmann::json;

namespace {
std::vector<uint8_t> cpuKernels(bool variant) {
  return readFile(variant ? MS_TEST_KERNELS_NODELETE : MS_TEST_KERNELS);
}

/// PTX of a GPU function `name` over f32[4] with `params` pointers (one
/// thread per element) doing `body` (%rd0.. are the params, %rd4 the
/// element's byte offset).
std::string ptxEntry(const std::string &name, int params,
                     const std::string &body) {
  std::string text = ".visible .entry " + name + "(\n";
  for (int i = 0; i < params; ++i)
    text += "  .param .u64 " + name + "_p" + std::to_string(i) +
            (i + 1 < params ? ",\n" : "\n");
  text += ")\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<2>;\n"
          "  .reg .f32 %f<4>;\n  .reg .b64 %rd<8>;\n"
          "  mov.u32 %r1, %tid.x;\n  setp.ge.u32 %p1, %r1, 4;\n"
          "  @%p1 bra $L_" +
          name + "_done;\n";
  for (int i = 0; i < params; ++i) {
    std::string rd = "%rd" + std::to_string(i);
    text += "  ld.param.u64 " + rd + ", [" + name + "_p" + std::to_string(i) +
            "];\n  cvta.to.global.u64 " + rd + ", " + rd + ";\n";
  }
  return text + "  mul.wide.u32 %rd4, %r1, 4;\n" + body + "$L_" + name +
         "_done:\n  ret;\n}\n";
}

/// The test kernels for the cuda backend: a cuda-ptx section with the same
/// ms_kernel_<N> as TestKernels.c; ms_kernel_2 goes through a scratch buffer
/// (a copy, then the product), as compiled kernels with intermediates do.
/// The PTX is accepted by ptxas for sm_80 and sm_90a; the fake driver
/// (test/cuda/FakeCuda.cpp) runs the same functions on the CPU.
std::vector<uint8_t> cudaKernels(bool variant) {
  auto binary = [](const std::string &op) {
    return "  add.s64 %rd5, %rd0, %rd4;\n  ld.global.f32 %f1, [%rd5];\n"
           "  add.s64 %rd6, %rd1, %rd4;\n  ld.global.f32 %f2, [%rd6];\n  " +
           op +
           ".f32 %f3, %f1, %f2;\n  add.s64 %rd7, %rd2, %rd4;\n"
           "  st.global.f32 [%rd7], %f3;\n";
  };
  auto unary = [](const std::string &op) {
    return "  add.s64 %rd5, %rd0, %rd4;\n  ld.global.f32 %f1, [%rd5];\n  " +
           op + "\n  add.s64 %rd6, %rd1, %rd4;\n  st.global.f32 [%rd6], %f3;\n";
  };
  std::string ptx =
      ".version 7.0\n.target sm_80\n.address_size 64\n\n" +
      ptxEntry("ms_test_add", 3, binary("add")) +
      ptxEntry("ms_test_sub", 3, binary("sub")) +
      ptxEntry("ms_test_mul", 3, binary("mul")) +
      ptxEntry("ms_test_copy", 2, unary("mov.f32 %f3, %f1;")) +
      ptxEntry("ms_test_relu", 2, unary("max.f32 %f3, %f1, 0f00000000;"));
  auto launch = [](const char *function, Json args) {
    return Json{{"function", function},
                {"grid", {1, 1, 1}},
                {"block", {4, 1, 1}},
                {"args", std::move(args)}};
  };
  auto arg = [](const char *kind, int index) {
    return Json::array({kind, index});
  };
  Json kernels = {
      {"ms_kernel_0",
       {{"scratch", Json::array()},
        {"launches",
         Json::array({launch(
             variant ? "ms_test_sub" : "ms_test_add",
             Json::array({arg("arg", 0), arg("arg", 1), arg("arg", 2)}))})}}},
      {"ms_kernel_1",
       {{"scratch", Json::array()},
        {"launches",
         Json::array({launch("ms_test_copy",
                             Json::array({arg("arg", 0), arg("arg", 1)}))})}}},
      {"ms_kernel_2",
       {{"scratch", Json::array({16})},
        {"launches",
         Json::array({launch("ms_test_copy",
                             Json::array({arg("arg", 0), arg("scratch", 0)})),
                      launch("ms_test_mul",
                             Json::array({arg("scratch", 0), arg("arg", 1),
                                          arg("arg", 2)}))})}}},
      {"ms_kernel_3",
       {{"scratch", Json::array()},
        {"launches",
         Json::array({launch("ms_test_relu",
                             Json::array({arg("arg", 0), arg("arg", 1)}))})}}},
  };
  std::string text = Json{
      {"version", 1},
      {"arch", "sm_80"},
      {"ptx", ptx},
      {"kernels",
       kernels}}.dump();
  return std::vector<uint8_t>(text.begin(), text.end());
}

/// An f32 view of `count` elements for an npu-program: `mem` at byte
/// offset `off` (an expression), strides `strides`; GM views name `buf`.
Json npuView(const char *mem, Json off, Json strides, Json buf = Json()) {
  Json view = {{"mem", mem},
               {"off", std::move(off)},
               {"dtype", "f32"},
               {"strides", std::move(strides)}};
  if (!buf.is_null())
    view["buf"] = std::move(buf);
  return view;
}

/// An instruction pair that makes pipe `dst` wait for what pipe `src` did.
std::vector<Json> npuSync(const char *src, const char *dst) {
  return {{{"op", "set_flag"}, {"src", src}, {"dst", dst}, {"id", 0}},
          {{"op", "wait_flag"}, {"src", src}, {"dst", dst}, {"id", 0}}};
}

/// The body of an npu kernel over f32[n] per core at GM byte offset `off`:
/// loads `inputs` GM args into UB, runs vec `fn` (NULL: none, the first
/// input is stored) and stores the result to GM arg `inputs`.
Json npuElementwise(const char *fn, int inputs, int n, Json off) {
  Json body = Json::array();
  auto ub = [n](int slot, int rank) {
    return npuView("ub", slot * 32, rank == 1 ? Json{1} : Json{n, 1});
  };
  for (int i = 0; i < inputs; ++i)
    body.push_back({{"op", "dma"},
                    {"shape", {n}},
                    {"src", npuView("gm", off, {1}, {"arg", i})},
                    {"dst", ub(i, 1)}});
  int result = 0;
  if (fn) {
    for (Json &instr : npuSync("mte2", "v"))
      body.push_back(instr);
    Json vec = {{"op", "vec"},
                {"fn", fn},
                {"shape", {1, n}},
                {"dst", ub(2, 2)},
                {"a", ub(0, 2)}};
    if (inputs == 2)
      vec["b"] = ub(1, 2);
    body.push_back(vec);
    result = 2;
  }
  for (Json &instr : npuSync(fn ? "v" : "mte2", "mte3"))
    body.push_back(instr);
  body.push_back({{"op", "dma"},
                  {"shape", {n}},
                  {"src", ub(result, 1)},
                  {"dst", npuView("gm", off, {1}, {"arg", inputs})}});
  return body;
}

/// The test kernels for the npu backend: an npu-program section with the
/// same ms_kernel_<N> as TestKernels.c, each moving its f32[4] operands
/// GM -> UB (mte2), through the vector unit, and UB -> GM (mte3), ordered
/// by flags. ms_kernel_0 splits the elements over two cores (offsets by
/// core id), ms_kernel_3 too (by a core table), and ms_kernel_2 goes
/// through a scratch buffer, as compiled kernels with intermediates do.
std::vector<uint8_t> npuKernels(bool variant) {
  Json coreId = {{"t", {{-1, 8}}}};
  Json coreTable = {{"core", {0, 8}}};
  // ms_kernel_2: a -> UB -> scratch -> UB, then times b.
  Json mul = Json::array();
  auto add = [&mul](std::vector<Json> instrs) {
    for (Json &instr : instrs)
      mul.push_back(std::move(instr));
  };
  auto dma = [](Json src, Json dst) {
    return Json{{"op", "dma"}, {"shape", {4}}, {"src", src}, {"dst", dst}};
  };
  Json scratch = npuView("gm", 0, {1}, {"scratch", 0});
  add({dma(npuView("gm", 0, {1}, {"arg", 0}), npuView("ub", 0, {1}))});
  add(npuSync("mte2", "mte3"));
  add({dma(npuView("ub", 0, {1}), scratch)});
  add(npuSync("mte3", "mte2"));
  add({dma(scratch, npuView("ub", 32, {1})),
       dma(npuView("gm", 0, {1}, {"arg", 1}), npuView("ub", 64, {1}))});
  add(npuSync("mte2", "v"));
  add({{{"op", "vec"},
        {"fn", "mul"},
        {"shape", {1, 4}},
        {"dst", npuView("ub", 96, {4, 1})},
        {"a", npuView("ub", 32, {4, 1})},
        {"b", npuView("ub", 64, {4, 1})}}});
  add(npuSync("v", "mte3"));
  add({dma(npuView("ub", 96, {1}), npuView("gm", 0, {1}, {"arg", 2}))});
  Json kernels = {
      {"ms_kernel_0",
       {{"cores", 2},
        {"args", {16, 16, 16}},
        {"steps", Json::array({npuElementwise(variant ? "sub" : "add", 2, 2,
                                              coreId)})}}},
      {"ms_kernel_1",
       {{"cores", 1},
        {"args", {16, 16}},
        {"steps", Json::array({npuElementwise(nullptr, 1, 4, 0)})}}},
      {"ms_kernel_2",
       {{"cores", 1},
        {"args", {16, 16, 16}},
        {"scratch", {16}},
        {"steps", Json::array({mul})}}},
      {"ms_kernel_3",
       {{"cores", 2},
        {"args", {16, 16}},
        {"steps", Json::array({npuElementwise("relu", 1, 2, coreTable)})}}},
  };
  std::string text =
      Json{{"version", 1}, {"config", {{"cores", 2}}}, {"kernels", kernels}}
          .dump();
  return std::vector<uint8_t>(text.begin(), text.end());
}

/// A test a backend does not run, with the reason. "*" matches every test.
struct Skip {
  const char *backend;
  const char *test;
  const char *reason;
};

const Skip skipList[] = {
    {"cuda", "StaleLibraryNameIsNotReused",
     "dlopen name reuse is specific to the CPU backend's memfd loading"},
    {"npu", "StaleLibraryNameIsNotReused",
     "dlopen name reuse is specific to the CPU backend's memfd loading"},
};
} // namespace

const std::vector<TestBackend> ms::test::testBackends = {
    {"cpu", MS_DEVICE_CPU, format::SectionKind::CpuElf, cpuKernels},
    {"cuda", MS_DEVICE_CUDA, format::SectionKind::CudaPtx, cudaKernels},
    {"npu", MS_DEVICE_NPU_SIM, format::SectionKind::NpuProgram, npuKernels},
};

const char *ms::test::skipReason(const TestBackend &backend,
                                 const std::string &test) {
  for (const Skip &skip : skipList)
    if (backend.name == std::string(skip.backend) &&
        (std::string(skip.test) == "*" || test == skip.test))
      return skip.reason;
  return nullptr;
}

std::string ms::test::currentTestName() {
  std::string test =
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return test.substr(0, test.find('/'));
}
