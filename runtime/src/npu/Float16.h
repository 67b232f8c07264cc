//===- Float16.h - fp16 and bf16 conversions for the NPU --------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// IEEE binary16 and bfloat16 to and from fp32, by hand (no library, no
// compiler extension): narrowing rounds to nearest even, overflows to
// infinity, keeps subnormals, and keeps NaN a NaN. The simulator's data
// movers, cube and vector unit round through these.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_NPU_FLOAT16_H
#define MS_RUNTIME_NPU_FLOAT16_H

#include "ms/runtime/Relayout.h"

#include <cstdint>
#include <cstring>

namespace ms::rt::impl::npu {
/// Returns the bits of `value`.
inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Returns the float whose bits are `bits`.
inline float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Converts to IEEE binary16, rounding to nearest even.
inline uint16_t floatToHalf(float value) {
  return ::ms::format::roundToF16(floatBits(value));
}

/// Converts IEEE binary16 to fp32 (exactly).
inline float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in fp32.
    float magnitude = float(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31)
    return bitsFloat(sign | 0x7f800000u | (mantissa << 13));
  return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// Converts to bfloat16, rounding to nearest even.
inline uint16_t floatToBf16(float value) {
  return ::ms::format::roundToBF16(floatBits(value));
}

/// Converts bfloat16 to fp32 (exactly).
inline float bf16ToFloat(uint16_t value) {
  return bitsFloat(uint32_t(value) << 16);
}
} // namespace ms::rt::impl::npu

#endif // MS_RUNTIME_NPU_FLOAT16_H
