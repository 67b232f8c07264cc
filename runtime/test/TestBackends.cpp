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

namespace {
std::vector<uint8_t> cpuKernels(bool variant) {
  return readFile(variant ? MS_TEST_KERNELS_NODELETE : MS_TEST_KERNELS);
}

std::vector<uint8_t> noKernels(bool) { return {}; }

/// A test a backend does not run, with the reason. "*" matches every test.
struct Skip {
  const char *backend;
  const char *test;
  const char *reason;
};

const Skip skipList[] = {
    {"cuda", "*",
     "no CUDA backend yet (src/cuda) and no CUDA device on this machine"},
    {"npu_sim", "*", "the NPU simulator backend is not implemented yet"},
    {"cuda", "StaleLibraryNameIsNotReused",
     "dlopen name reuse is specific to the CPU backend's memfd loading"},
    {"npu_sim", "StaleLibraryNameIsNotReused",
     "dlopen name reuse is specific to the CPU backend's memfd loading"},
};
} // namespace

const std::vector<TestBackend> ms::test::testBackends = {
    {"cpu", MS_DEVICE_CPU, format::SectionKind::CpuElf, cpuKernels},
    {"cuda", MS_DEVICE_CUDA, format::SectionKind::CudaPtx, noKernels},
    {"npu_sim", MS_DEVICE_NPU_SIM, format::SectionKind::NpuProgram, noKernels},
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
