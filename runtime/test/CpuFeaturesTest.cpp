//===- CpuFeaturesTest.cpp - host CPU feature detection -------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuFeatures.h"

#include "ms/runtime/ModuleFormat.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace ms::rt::impl;

namespace {
/// Returns the bit of the feature `name`.
uint64_t bit(const char *name) {
  for (unsigned i = 0; i < ms::format::kCpuFeatureCount; ++i)
    if (!std::strcmp(ms::format::kCpuFeatures[i], name))
      return uint64_t(1) << i;
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

TEST(CpuFeatures, AgreesWithTheCompilersDetection) {
#if defined(__x86_64__)
  // The compiler's runtime (libgcc or compiler-rt) detects these
  // independently, from cpuid and XCR0 too.
  uint64_t host = detectHostCpuFeatures();
  __builtin_cpu_init();
#define EXPECT_FEATURE(name)                                                   \
  EXPECT_EQ((host & bit(name)) != 0, __builtin_cpu_supports(name) != 0) << name;
  EXPECT_FEATURE("sse3");
  EXPECT_FEATURE("ssse3");
  EXPECT_FEATURE("sse4.1");
  EXPECT_FEATURE("sse4.2");
  EXPECT_FEATURE("popcnt");
  EXPECT_FEATURE("avx");
  EXPECT_FEATURE("avx2");
  EXPECT_FEATURE("fma");
  EXPECT_FEATURE("bmi");
  EXPECT_FEATURE("bmi2");
  EXPECT_FEATURE("avx512f");
  EXPECT_FEATURE("avx512cd");
  EXPECT_FEATURE("avx512bw");
  EXPECT_FEATURE("avx512dq");
  EXPECT_FEATURE("avx512vl");
  EXPECT_FEATURE("avx512ifma");
  EXPECT_FEATURE("avx512vbmi");
  EXPECT_FEATURE("avx512vbmi2");
  EXPECT_FEATURE("avx512vnni");
  EXPECT_FEATURE("avx512bitalg");
  EXPECT_FEATURE("avx512vpopcntdq");
  EXPECT_FEATURE("avx512bf16");
  EXPECT_FEATURE("gfni");
  EXPECT_FEATURE("vaes");
  EXPECT_FEATURE("vpclmulqdq");
#undef EXPECT_FEATURE
  // Every x86-64 host this runtime supports has SSE3 and more.
  EXPECT_NE(host & bit("sse3"), 0u);
#else
  EXPECT_EQ(detectHostCpuFeatures(), 0u);
#endif
}

TEST(CpuFeatures, NamesFeatures) {
  EXPECT_EQ(cpuFeatureNames(0), "");
  EXPECT_EQ(cpuFeatureNames(bit("avx2") | bit("avx512f")), "avx2, avx512f");
  EXPECT_EQ(cpuFeatureNames(uint64_t(1) << 63), "#63");
}
} // namespace
