//===- TestBackends.h - the backends the per-device suites run on -*- C++
//-*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The device kinds the behavioural suites (BackendTest, HalTest) are
// instantiated for, with the test kernels of each and the tests each cannot
// run, with the reason.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_TEST_TESTBACKENDS_H
#define MS_RUNTIME_TEST_TESTBACKENDS_H

#include "ms/runtime/ModuleFormat.h"
#include "ms/runtime/ms_runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ms::test {
/// A backend the suites run on.
struct TestBackend {
  /// The name used in test names and the skip list.
  const char *name;
  /// The device kind.
  ms_device_kind_t kind;
  /// The code section kind its modules carry.
  format::SectionKind codeSection;
  /// Returns the test kernels' code for this backend (empty if none); the
  /// variant's ms_kernel_0 subtracts instead of adding.
  std::vector<uint8_t> (*kernels)(bool variant);
};

/// Every backend the suites are instantiated for.
extern const std::vector<TestBackend> testBackends;

/// Returns why `backend` skips `test` (a test name without its parameter
/// suffix), or NULL when it runs it.
const char *skipReason(const TestBackend &backend, const std::string &test);

/// Returns the current test's name without its parameter suffix.
std::string currentTestName();

/// Names a parametrized test after its backend.
struct TestBackendName {
  template <typename Info>
  std::string operator()(const Info &info) const {
    return info.param.name;
  }
};
} // namespace ms::test

#endif // MS_RUNTIME_TEST_TESTBACKENDS_H
