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
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  // NaN: stays quiet NaN, keeping the top payload bits.
  if (magnitude > 0x7f800000u)
    return uint16_t(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  // 65520 and up (and infinity) round to infinity.
  if (magnitude >= 0x477ff000u)
    return uint16_t(sign | 0x7c00u);
  // Normal results: round at bit 13, then rebias the exponent (127 -> 15);
  // a carry out of the mantissa correctly bumps the exponent.
  if (magnitude >= 0x38800000u) {
    uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
  }
  // Subnormal results (below 2^-14): count units of 2^-24. At most 2^-25
  // (exponent 102) rounds to zero, 2^-25 itself to even zero.
  uint32_t exponent = magnitude >> 23;
  if (exponent < 102)
    return uint16_t(sign);
  uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent;
  uint32_t half = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1);
  uint32_t midpoint = 1u << (shift - 1);
  if (rest > midpoint || (rest == midpoint && (half & 1u)))
    ++half; // Rounding up to 0x400 gives the smallest normal: correct.
  return uint16_t(sign | half);
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
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((bits >> 16) | 0x40u);
  return uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// Converts bfloat16 to fp32 (exactly).
inline float bf16ToFloat(uint16_t value) {
  return bitsFloat(uint32_t(value) << 16);
}
} // namespace ms::rt::impl::npu

#endif // MS_RUNTIME_NPU_FLOAT16_H
