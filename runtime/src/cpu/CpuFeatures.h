//===- CpuFeatures.h - the host CPU's instruction set features --*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Detects which of the CPU features a cpu-elf section can require
// (format::kCpuFeatures) the host has, so that a module compiled for a CPU
// this host is not gets a clear error instead of an illegal instruction.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CPU_CPUFEATURES_H
#define MS_RUNTIME_CPU_CPUFEATURES_H

#include <cstdint>
#include <string>

namespace ms::rt::impl {
/// Returns the host's features as a format::kCpuFeatures bit mask: those the
/// processor reports (cpuid) and the operating system enables (the AVX and
/// AVX-512 register state in XCR0). 0 on hosts other than x86-64.
uint64_t detectHostCpuFeatures();

/// Returns the names of the features in `mask`, comma-separated ("#N" for a
/// bit this runtime has no name for).
std::string cpuFeatureNames(uint64_t mask);
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CPU_CPUFEATURES_H
