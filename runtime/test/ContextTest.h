//===- ContextTest.h - a test fixture running modules on the cpu -*- C++
//-*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The fixture of tests that build a module file (ModuleBuilder.h), load it
// on the cpu device and run a context of it, and the tensor views they
// pass.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_TEST_CONTEXTTEST_H
#define MS_RUNTIME_TEST_CONTEXTTEST_H

#include "ModuleBuilder.h"
#include "ms/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <string>

namespace ms::test {
/// An f32[4] tensor view over `data`.
inline rt::TensorView f32x4(float *data) {
  return rt::TensorView{data, 16, MS_DTYPE_F32, {4}};
}

/// Loads modules on the cpu device into `module` and `context`.
class ContextTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(dir.path.empty());
    ASSERT_TRUE(rt::Device::create(MS_DEVICE_CPU, device).ok());
  }

  /// Writes `parts` to a fresh file and loads it with a context.
  void load(const ModuleParts &parts) {
    std::string path = dir.file("m" + std::to_string(files++) + ".msm");
    ASSERT_TRUE(writeFile(path, parts.build()));
    rt::Status status = rt::Module::load(device, path, module);
    ASSERT_TRUE(status.ok()) << status.message();
    status = rt::Context::create(module, context);
    ASSERT_TRUE(status.ok()) << status.message();
  }

  TempDir dir;
  rt::Device device;
  rt::Module module;
  rt::Context context;
  int files = 0;
};
} // namespace ms::test

#endif // MS_RUNTIME_TEST_CONTEXTTEST_H
