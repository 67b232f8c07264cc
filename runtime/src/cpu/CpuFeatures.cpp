//===- CpuFeatures.cpp - the host CPU's instruction set features ----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuFeatures.h"

#include "ms/runtime/ModuleFormat.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace ms::rt::impl;

namespace {
/// Bit of format::kCpuFeatures named `name` (-1 if none).
int featureBit(const char *name) {
  for (unsigned i = 0; i < ms::format::kCpuFeatureCount; ++i)
    if (std::strcmp(ms::format::kCpuFeatures[i], name) == 0)
      return static_cast<int>(i);
  return -1;
}
} // namespace

uint64_t ms::rt::impl::detectHostCpuFeatures() {
#if defined(__x86_64__) || defined(__i386__)
  /// Where cpuid reports one feature: leaf, subleaf, register, bit.
  enum Reg { EAX, EBX, ECX, EDX };
  struct Probe {
    const char *name;
    unsigned leaf, subleaf;
    Reg reg;
    unsigned bit;
  };
  static const Probe probes[] = {
      {"sse3", 1, 0, ECX, 0},          {"ssse3", 1, 0, ECX, 9},
      {"fma", 1, 0, ECX, 12},          {"sse4.1", 1, 0, ECX, 19},
      {"sse4.2", 1, 0, ECX, 20},       {"movbe", 1, 0, ECX, 22},
      {"popcnt", 1, 0, ECX, 23},       {"avx", 1, 0, ECX, 28},
      {"f16c", 1, 0, ECX, 29},         {"bmi", 7, 0, EBX, 3},
      {"avx2", 7, 0, EBX, 5},          {"bmi2", 7, 0, EBX, 8},
      {"avx512f", 7, 0, EBX, 16},      {"avx512dq", 7, 0, EBX, 17},
      {"avx512ifma", 7, 0, EBX, 21},   {"avx512cd", 7, 0, EBX, 28},
      {"avx512bw", 7, 0, EBX, 30},     {"avx512vl", 7, 0, EBX, 31},
      {"avx512vbmi", 7, 0, ECX, 1},    {"avx512vbmi2", 7, 0, ECX, 6},
      {"gfni", 7, 0, ECX, 8},          {"vaes", 7, 0, ECX, 9},
      {"vpclmulqdq", 7, 0, ECX, 10},   {"avx512vnni", 7, 0, ECX, 11},
      {"avx512bitalg", 7, 0, ECX, 12}, {"avx512vpopcntdq", 7, 0, ECX, 14},
      {"avx512fp16", 7, 0, EDX, 23},   {"avxvnni", 7, 1, EAX, 4},
      {"avx512bf16", 7, 1, EAX, 5},    {"lzcnt", 0x80000001, 0, ECX, 5},
  };
  // The state the operating system saves on a context switch: XMM and YMM
  // (bits 1, 2) for AVX; opmask, ZMM_Hi256 and Hi16_ZMM (5-7) for AVX-512.
  bool avxState = false, avx512State = false;
  unsigned regs[4];
  if (__get_cpuid_count(1, 0, &regs[EAX], &regs[EBX], &regs[ECX], &regs[EDX]) &&
      (regs[ECX] >> 27 & 1) /* osxsave */) {
    unsigned xcr0Low, xcr0High;
    __asm__("xgetbv" : "=a"(xcr0Low), "=d"(xcr0High) : "c"(0));
    (void)xcr0High;
    avxState = (xcr0Low & 0x6) == 0x6;
    avx512State = avxState && (xcr0Low & 0xe0) == 0xe0;
  }
  uint64_t mask = 0;
  for (const Probe &probe : probes) {
    if (!__get_cpuid_count(probe.leaf, probe.subleaf, &regs[EAX], &regs[EBX],
                           &regs[ECX], &regs[EDX]) ||
        !(regs[probe.reg] >> probe.bit & 1))
      continue;
    bool usesAvxState = std::strncmp(probe.name, "avx", 3) == 0 ||
                        !std::strcmp(probe.name, "fma") ||
                        !std::strcmp(probe.name, "f16c") ||
                        !std::strcmp(probe.name, "vaes") ||
                        !std::strcmp(probe.name, "vpclmulqdq");
    bool usesAvx512State = std::strncmp(probe.name, "avx512", 6) == 0;
    if ((usesAvxState && !avxState) || (usesAvx512State && !avx512State))
      continue;
    int bit = featureBit(probe.name);
    if (bit >= 0)
      mask |= uint64_t(1) << bit;
  }
  return mask;
#else
  return 0;
#endif
}

std::string ms::rt::impl::cpuFeatureNames(uint64_t mask) {
  std::string names;
  for (unsigned bit = 0; bit < 64; ++bit) {
    if (!(mask >> bit & 1))
      continue;
    if (!names.empty())
      names += ", ";
    names += bit < format::kCpuFeatureCount
                 ? std::string(format::kCpuFeatures[bit])
                 : "#" + std::to_string(bit);
  }
  return names;
}
