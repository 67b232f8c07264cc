//===- NpuConfig.h - the parameters of the virtual NPU ----------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Every size and speed of the DaVinci-style virtual NPU (docs/NPU.md), in one
// struct that the compiler (tiling, capacity checks) and the runtime's
// simulator (functional and timing model) share. Plain C++: the runtime must
// not depend on the compiler. Cycles are core clock cycles.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_NPUCONFIG_H
#define MS_RUNTIME_NPUCONFIG_H

#include <cstdint>

namespace ms::npu {
/// The on-chip memories of a core and the global memory they all share.
enum class Space : uint8_t { GM, L1, L0A, L0B, L0C, UB };

/// The pipes of a core. Each runs its instructions in order; pipes run
/// concurrently and synchronize only through flags and barriers.
enum class Pipe : uint8_t {
  /// The scalar unit: issues every instruction in program order.
  S,
  /// MTE1: L1 -> L0A / L0B.
  MTE1,
  /// MTE2: GM -> L1 / UB (and fills of L1 / UB).
  MTE2,
  /// MTE3: UB -> GM.
  MTE3,
  /// The cube unit (mmad).
  M,
  /// The vector unit (elementwise, reductions, casts on UB).
  V,
  /// The fixpipe: L0C -> UB / GM with a cast.
  FIX,
};

/// Number of pipes.
inline constexpr int kPipeCount = 7;

/// Sizes and speeds of the virtual NPU. The defaults model one DaVinci-class
/// core; docs/NPU.md says where each number comes from.
struct NpuConfig {
  /// Cores sharing GM; a kernel splits its work over them.
  int cores = 2;

  /// Capacity of each on-chip memory, in bytes.
  int64_t l1Bytes = 1 << 20;
  int64_t l0aBytes = 64 << 10;
  int64_t l0bBytes = 64 << 10;
  int64_t l0cBytes = 256 << 10;
  int64_t ubBytes = 256 << 10;
  /// Alignment of every on-chip buffer, in bytes.
  int64_t alignBytes = 32;

  /// Cycles the scalar unit takes to issue one instruction.
  int64_t scalarIssueCycles = 1;
  /// Cube: cycles per fractal product (16x16x16 fp16, 16x32x16 int8) and the
  /// fixed start-up cost of one mmad.
  int64_t cubeCyclesPerFractal = 1;
  int64_t cubeStartCycles = 8;
  /// Data movers: fixed latency of one transfer and bytes moved per cycle.
  /// A transfer moves its contiguous runs in bursts of `burstBytes`.
  int64_t mte2LatencyCycles = 150;
  int64_t mte2BytesPerCycle = 128;
  int64_t mte1LatencyCycles = 16;
  int64_t mte1BytesPerCycle = 256;
  int64_t mte3LatencyCycles = 150;
  int64_t mte3BytesPerCycle = 128;
  int64_t burstBytes = 32;
  /// Fixpipe: latency and bytes of L0C read per cycle.
  int64_t fixLatencyCycles = 16;
  int64_t fixBytesPerCycle = 256;
  /// Vector unit: latency, bytes processed per cycle, and how many times
  /// slower a transcendental function (exp, log, tanh, erf, sqrt, division)
  /// is than an addition.
  int64_t vecLatencyCycles = 8;
  int64_t vecBytesPerCycle = 256;
  int64_t vecSlowFactor = 4;

  /// Calls `visit(name, field)` for every field, by its C++ name (the names
  /// the program's "config" object uses), in declaration order. Works on a
  /// const config too (`field` is then a const reference).
  template <typename Config, typename Visit>
  static void forEachField(Config &config, Visit &&visit) {
    visit("cores", config.cores);
    visit("l1Bytes", config.l1Bytes);
    visit("l0aBytes", config.l0aBytes);
    visit("l0bBytes", config.l0bBytes);
    visit("l0cBytes", config.l0cBytes);
    visit("ubBytes", config.ubBytes);
    visit("alignBytes", config.alignBytes);
    visit("scalarIssueCycles", config.scalarIssueCycles);
    visit("cubeCyclesPerFractal", config.cubeCyclesPerFractal);
    visit("cubeStartCycles", config.cubeStartCycles);
    visit("mte2LatencyCycles", config.mte2LatencyCycles);
    visit("mte2BytesPerCycle", config.mte2BytesPerCycle);
    visit("mte1LatencyCycles", config.mte1LatencyCycles);
    visit("mte1BytesPerCycle", config.mte1BytesPerCycle);
    visit("mte3LatencyCycles", config.mte3LatencyCycles);
    visit("mte3BytesPerCycle", config.mte3BytesPerCycle);
    visit("burstBytes", config.burstBytes);
    visit("fixLatencyCycles", config.fixLatencyCycles);
    visit("fixBytesPerCycle", config.fixBytesPerCycle);
    visit("vecLatencyCycles", config.vecLatencyCycles);
    visit("vecBytesPerCycle", config.vecBytesPerCycle);
    visit("vecSlowFactor", config.vecSlowFactor);
  }

  /// Returns the capacity of on-chip memory `space` in bytes (0 for GM,
  /// whose buffers have their own sizes).
  int64_t capacity(Space space) const {
    switch (space) {
    case Space::GM:
      return 0;
    case Space::L1:
      return l1Bytes;
    case Space::L0A:
      return l0aBytes;
    case Space::L0B:
      return l0bBytes;
    case Space::L0C:
      return l0cBytes;
    case Space::UB:
      return ubBytes;
    }
    return 0;
  }
};
} // namespace ms::npu

#endif // MS_RUNTIME_NPUCONFIG_H
