//===- PtxInterpreterTest.cpp - the driver stand-in's PTX interpreter -----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The fake driver's interpreter (cuda/PtxInterpreter.h) checks generated
// kernels for results without a GPU; these tests check the interpreter on
// hand-written PTX: arithmetic, memory spaces, barriers, shuffles,
// tensor-core products and calls of device functions as a GPU runs them, and
// the failures it must report (an access outside every allocation, a barrier
// not every thread reaches, what it cannot run).
//
//===----------------------------------------------------------------------===//

#include "cuda/PtxInterpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace ms::fakecuda;

namespace {
constexpr const char *kHeader = ".version 8.0\n.target sm_90a\n"
                                ".address_size 64\n";

/// Accepts any address (the tests' buffers are host vectors).
bool anywhere(uint64_t, size_t) { return true; }

std::unique_ptr<PtxModule> parse(const std::string &body) {
  std::string error;
  std::unique_ptr<PtxModule> module =
      PtxModule::parse(std::string(kHeader) + body, error);
  EXPECT_TRUE(module) << error;
  return module;
}

/// Runs `name` with pointer parameters.
std::string launch(const PtxModule &module, const char *name, unsigned grid,
                   unsigned block, std::vector<void *> pointers,
                   const GlobalCheck &check = anywhere) {
  std::vector<uint64_t> values;
  for (void *p : pointers)
    values.push_back(reinterpret_cast<uint64_t>(p));
  std::vector<void *> params;
  for (uint64_t &v : values)
    params.push_back(&v);
  return module.launch(name, grid, block, /*dynamicShared=*/0, params.data(),
                       check, /*maxSteps=*/100000000);
}
} // namespace

// out[i] = a[i] * 2 + 1 over two blocks of 4 threads, guarded past 6.
TEST(PtxInterpreterTest, RunsThreadsOfEveryBlock) {
  auto module = parse(R"(
.visible .entry k(.param .u64 k_a, .param .u64 k_out)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<3>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [k_a];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  setp.ge.u32 %p1, %r4, 6;
  @%p1 bra $done;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  fma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000;
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f2;
$done:
  ret;
}
)");
  ASSERT_TRUE(module);
  EXPECT_TRUE(module->hasEntry("k"));
  EXPECT_EQ(module->getParamSizes("k"), (std::vector<size_t>{8, 8}));
  std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8}, out(8, -1);
  EXPECT_EQ(launch(*module, "k", 2, 4, {a.data(), out.data()}), "");
  EXPECT_EQ(out, (std::vector<float>{3, 5, 7, 9, 11, 13, -1, -1}));
}

/// A block reversing 64 floats through shared memory, with a bar.sync
/// between the stores and the loads (`barrier`), then (`rewrite`) storing
/// its float again with no barrier after the loads.
std::string reverseKernel(bool barrier, bool rewrite) {
  return std::string(R"(
.visible .entry reverse(.param .u64 p)
{
  .reg .b32 %r<8>; .reg .f32 %f<2>; .reg .b64 %rd<8>;
  .shared .align 4 .b8 tile[256];
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
  mov.u32 %r2, tile;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  st.shared.f32 [%r4], %f1;
)") + (barrier ? "  bar.sync 0;\n" : "") +
         R"(
  sub.s32 %r5, 63, %r1;
  shl.b32 %r6, %r5, 2;
  add.s32 %r7, %r2, %r6;
  ld.shared.f32 %f1, [%r7];
  st.global.f32 [%rd3], %f1;
)" + (rewrite ? "  st.shared.f32 [%r4], %f1;\n" : "") +
         R"(
  ret;
}
)";
}

// A block reverses 64 floats through shared memory: every thread's store
// must land before any thread reads (bar.sync).
TEST(PtxInterpreterTest, BarrierOrdersSharedMemory) {
  auto module = parse(reverseKernel(/*barrier=*/true, /*rewrite=*/false));
  ASSERT_TRUE(module);
  std::vector<float> data(64);
  for (int i = 0; i < 64; ++i)
    data[i] = static_cast<float>(i);
  EXPECT_EQ(launch(*module, "reverse", 1, 64, {data.data()}), "");
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(data[i], 63 - i);
}

// Data races on shared memory fail the launch whatever order the threads
// ran in (SharedRaces.h): a read of another thread's store with no
// barrier between, a store over what another thread reads with no
// barrier between (the second barrier of a reused tile missing), and
// stores of different values to one place; stores of the same value do
// not race.
TEST(PtxInterpreterTest, FindsDataRacesOnSharedMemory) {
  std::vector<float> data(64);
  auto unordered = parse(reverseKernel(/*barrier=*/false, /*rewrite=*/false));
  ASSERT_TRUE(unordered);
  EXPECT_NE(launch(*unordered, "reverse", 1, 64, {data.data()})
                .find("line 17 (st.shared.f32 [%r4], %f1;): a data race on "
                      "shared memory at offset 128: thread 32 writes (line "
                      "17) what thread 31 read (line 22) with no barrier or "
                      "mbarrier wait ordering them"),
            std::string::npos);
  auto rewritten = parse(reverseKernel(/*barrier=*/true, /*rewrite=*/true));
  ASSERT_TRUE(rewritten);
  EXPECT_NE(launch(*rewritten, "reverse", 1, 64, {data.data()})
                .find("a data race on shared memory at offset 128: thread 31 "
                      "reads (line 23) what thread 32 wrote (line 25)"),
            std::string::npos);
  for (const char *value : {"1", "%r2"}) {
    auto stores = parse(std::string(R"(
.visible .entry same(.param .u64 p)
{
  .reg .b32 %r<3>;
  .shared .align 4 .b8 flag[4];
  mov.u32 %r1, flag;
  mov.u32 %r2, %tid.x;
  st.shared.u32 [%r1], )") +
                        value + R"(;
  ret;
}
)");
    ASSERT_TRUE(stores);
    std::string error = launch(*stores, "same", 1, 64, {data.data()});
    if (value[0] == '1')
      EXPECT_EQ(error, "");
    else
      EXPECT_NE(error.find("a data race on shared memory at offset 0: thread "
                           "1 writes (line 11) what thread 0 wrote (line 11)"),
                std::string::npos)
          << error;
  }
}

// Nothing orders two blocks of a launch (GlobalRaces.h): a block reading
// global memory another block wrote, or storing a different value where
// another block stored, fails the launch whatever order the blocks ran
// in; blocks storing the same value, reading the same input, or writing
// their own parts (RunsThreadsOfEveryBlock) do not race.
TEST(PtxInterpreterTest, FindsDataRacesBetweenBlocks) {
  std::vector<float> data(64);
  for (int i = 0; i < 64; ++i)
    data[i] = static_cast<float>(i);
  auto reverse = parse(reverseKernel(/*barrier=*/true, /*rewrite=*/false));
  ASSERT_TRUE(reverse);
  EXPECT_EQ(launch(*reverse, "reverse", 1, 64, {data.data()}), "");
  std::string error = launch(*reverse, "reverse", 2, 64, {data.data()});
  // data[0] goes from 63.0f to 0.0f: its bytes 2 and 3 change.
  EXPECT_NE(
      error.find("line 13 (ld.global.f32 %f1, [%rd3];): a data race on "
                 "global memory at address " +
                 std::to_string(reinterpret_cast<uint64_t>(data.data()) + 2) +
                 ": block 1 reads (line 13) what block 0 wrote (line "
                 "24) in the same launch, which nothing orders"),
      std::string::npos)
      << error;
  for (const char *value : {"1", "%r2"}) {
    auto stores = parse(std::string(R"(
.visible .entry same(.param .u64 p)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r2, %ctaid.x;
  st.global.u32 [%rd1], )") +
                        value + R"(;
  ret;
}
)");
    ASSERT_TRUE(stores);
    error = launch(*stores, "same", 4, 32, {data.data()});
    if (value[0] == '1')
      EXPECT_EQ(error, "");
    else
      EXPECT_NE(error.find("block 1 writes (line 10) what block 0 wrote (line "
                           "10)"),
                std::string::npos)
          << error;
  }
}

// A butterfly sum over the 8 lanes of a member mask while the warp's other
// lanes wait at a barrier (as gpu.all_reduce's second stage does), and a
// full-warp shuffle down.
TEST(PtxInterpreterTest, ShufflesWithinMemberMask) {
  auto module = parse(R"(
.visible .entry sum8(.param .u64 p)
{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  setp.ge.u32 %p1, %r1, 8;
  @%p1 bra $wait;
  shfl.sync.bfly.b32 %r3|%p2, %r2, 1, 7, 255;
  add.s32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3|%p2, %r2, 2, 7, 255;
  add.s32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3|%p2, %r2, 4, 7, 255;
  add.s32 %r2, %r2, %r3;
$wait:
  bar.sync 0;
  shfl.sync.down.b32 %r4|%p2, %r2, 1, 31, -1;
  selp.b32 %r5, 1, 0, %p2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+128], %r4;
  st.global.u32 [%rd3+256], %r5;
  ret;
}
)");
  ASSERT_TRUE(module);
  std::vector<uint32_t> data(96, 0);
  for (uint32_t i = 0; i < 32; ++i)
    data[i] = i + 1;
  EXPECT_EQ(launch(*module, "sum8", 1, 32, {data.data()}), "");
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t mine = i < 8 ? 36 : i + 1;
    EXPECT_EQ(data[i], mine) << i;
    // Lane 31 has no lane below it: it keeps its value, predicate false.
    uint32_t next = i == 31 ? mine : (i + 1 < 8 ? 36 : i + 2);
    EXPECT_EQ(data[32 + i], next) << i;
    EXPECT_EQ(data[64 + i], i == 31 ? 0u : 1u) << i;
  }
}

// Integer and float details: a 64-bit product from 32-bit halves through
// the carry chain, conversions with rounding and saturation, f16, NaN-aware
// max, bit-field extraction.
TEST(PtxInterpreterTest, ComputesAsPtxDefines) {
  auto module = parse(R"(
.visible .entry ops(.param .u64 p)
{
  .reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<16>; .reg .f32 %f<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.b32 %r1, -1;
  mov.b32 %r2, 3;
  mul.lo.u32 %r3, %r1, %r2;
  mul.hi.u32 %r4, %r1, %r2;
  add.cc.u32 %r5, %r1, 2;
  addc.u32 %r6, 0, 0;
  cvt.rni.s32.f32 %r7, 0f40200000;
  cvt.rzi.s32.f32 %r8, 0fC0600000;
  cvt.sat.f32.f32 %f1, 0f40000000;
  cvt.rn.f16.f32 %rs1, 0f3FC00000;
  cvt.f32.f16 %f2, %rs1;
  max.NaN.f32 %f3, 0f7FC00000, 0f3F800000;
  max.f32 %f4, 0f7FC00000, 0f3F800000;
  bfe.s32 %r9, 240, 4, 4;
  cvt.rzi.s32.f32 %r10, 0f7FC00000;
  st.global.u32 [%rd1], %r3;
  st.global.u32 [%rd1+4], %r4;
  st.global.u32 [%rd1+8], %r5;
  st.global.u32 [%rd1+12], %r6;
  st.global.u32 [%rd1+16], %r7;
  st.global.u32 [%rd1+20], %r8;
  st.global.f32 [%rd1+24], %f1;
  st.global.f32 [%rd1+28], %f2;
  st.global.f32 [%rd1+32], %f3;
  st.global.f32 [%rd1+36], %f4;
  st.global.u32 [%rd1+40], %r9;
  st.global.u32 [%rd1+44], %r10;
  ret;
}
)");
  ASSERT_TRUE(module);
  uint32_t out[12] = {};
  EXPECT_EQ(launch(*module, "ops", 1, 1, {out}), "");
  EXPECT_EQ(out[0], 0xFFFFFFFDu); // (2^32 - 1) * 3, low half
  EXPECT_EQ(out[1], 2u);          // high half
  EXPECT_EQ(out[2], 1u);          // 2^32 - 1 + 2 wraps...
  EXPECT_EQ(out[3], 1u);          // ...and carries
  EXPECT_EQ(static_cast<int32_t>(out[4]), 2);  // 2.5 to nearest even
  EXPECT_EQ(static_cast<int32_t>(out[5]), -3); // -3.5 toward zero
  float f[4];
  std::memcpy(f, out + 6, sizeof(f));
  EXPECT_EQ(f[0], 1.0f); // saturated
  EXPECT_EQ(f[1], 1.5f); // through f16
  EXPECT_TRUE(std::isnan(f[2]));
  EXPECT_EQ(f[3], 1.0f);
  EXPECT_EQ(static_cast<int32_t>(out[10]), -1); // 0b1111 sign-extended
  EXPECT_EQ(out[11], 0u);                       // NaN converts to 0
}

// What a GPU would fault or hang on fails the launch, naming the kernel and
// the instruction.
TEST(PtxInterpreterTest, ReportsFaults) {
  auto module = parse(R"(
.visible .entry store(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1+4], 7;
  ret;
}
.visible .entry shared(.param .u64 p)
{
  .reg .b32 %r<2>;
  .shared .align 4 .b8 s[16];
  st.shared.u32 [s+16], 1;
  ret;
}
.visible .entry hang(.param .u64 p)
{
  .reg .pred %p<2>; .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $barrier;
  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
  ret;
$barrier:
  bar.sync 0;
  ret;
}
.visible .entry divergent(.param .u64 p)
{
  .reg .pred %p<2>; .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $skip;
  bar.sync 0;
$skip:
  ret;
}
)");
  ASSERT_TRUE(module);
  uint32_t word[2] = {};
  // The check allows the first word only.
  GlobalCheck firstWord = [&](uint64_t address, size_t size) {
    return address >= reinterpret_cast<uint64_t>(word) &&
           address + size <= reinterpret_cast<uint64_t>(word) + 4;
  };
  std::string error = launch(*module, "store", 1, 1, {word}, firstWord);
  EXPECT_NE(error.find("kernel store, line"), std::string::npos) << error;
  EXPECT_NE(error.find("st.global.u32 [%rd1+4], 7;"), std::string::npos)
      << error;
  EXPECT_NE(error.find("outside every allocation"), std::string::npos)
      << error;
  EXPECT_EQ(word[1], 0u);
  error = launch(*module, "shared", 1, 1, {word});
  EXPECT_NE(error.find("outside the 16-byte buffer"), std::string::npos)
      << error;
  // Thread 0 waits at a barrier, the others at a shuffle that needs it.
  error = launch(*module, "hang", 1, 32, {word});
  EXPECT_NE(error.find("kernel hang: threads wait forever"), std::string::npos)
      << error;
  // Threads 1-3 wait at a barrier thread 0 never reaches, but thread 0 has
  // ended, which counts as arrived: no hang.
  EXPECT_EQ(launch(*module, "divergent", 1, 4, {word}), "");
}

// A GPU faults on an access not aligned to its size: a 128-bit vector load
// needs 16 bytes of alignment, a shared-memory word 4 (of its offset).
TEST(PtxInterpreterTest, ReportsMisalignedAccesses) {
  auto module = parse(R"(
.visible .entry vector(.param .u64 p, .param .u64 shift)
{
  .reg .f32 %f<5>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [shift];
  add.s64 %rd3, %rd1, %rd2;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];
  st.global.v4.f32 [%rd3], {%f4, %f3, %f2, %f1};
  ret;
}
.visible .entry shared(.param .u64 p)
{
  .shared .align 4 .b8 s[16];
  st.shared.u32 [s+2], 1;
  ret;
}
)");
  ASSERT_TRUE(module);
  alignas(16) float data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto run = [&](uint64_t shift) {
    std::vector<uint64_t> values = {reinterpret_cast<uint64_t>(data), shift};
    void *params[] = {&values[0], &values[1]};
    return module->launch("vector", 1, 1, 0, params, anywhere,
                          /*maxSteps=*/1000);
  };
  EXPECT_EQ(run(16), "");
  EXPECT_EQ(data[4], 8.0f);
  EXPECT_EQ(data[7], 5.0f);
  std::string error = run(8);
  EXPECT_NE(error.find("ld.global.v4.f32"), std::string::npos) << error;
  EXPECT_NE(error.find("misaligned access of 16 bytes at address"),
            std::string::npos)
      << error;
  EXPECT_EQ(data[2], 3.0f);
  error = launch(*module, "shared", 1, 1, {data});
  EXPECT_NE(error.find("misaligned access of 4 bytes at offset 2"),
            std::string::npos)
      << error;
}

// Packed pairs of 16-bit values run half by half: f32 pairs converted to
// f16x2 and bf16x2 (the first source in the upper half), f16x2 and s16x2
// arithmetic, a comparison setting a predicate per half, '_' dropping a
// half; prmt picks bytes of a pair of words (or their signs).
TEST(PtxInterpreterTest, RunsPackedHalves) {
  auto module = parse(R"(
.visible .entry packed(.param .u64 p)
{
  .reg .pred %p<3>; .reg .b16 %rs<2>; .reg .b32 %r<11>; .reg .f32 %f<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.v2.f32 {%f1, %f2}, [%rd1];
  cvt.rn.f16x2.f32 %r1, %f1, %f2;
  add.rn.f16x2 %r2, %r1, %r1;
  neg.f16x2 %r3, %r2;
  setp.lt.f16x2 %p1|%p2, %r3, %r2;
  selp.u32 %r4, 1, 0, %p1;
  selp.u32 %r5, 1, 0, %p2;
  add.s16x2 %r6, %r1, 0x00010002;
  mov.b32 {%rs1, _}, %r3;
  cvt.u32.u16 %r7, %rs1;
  cvt.rn.bf16x2.f32 %r8, %f1, %f2;
  st.global.v4.u32 [%rd1+16], {%r2, %r3, %r4, %r5};
  st.global.v2.u32 [%rd1+32], {%r6, %r7};
  st.global.u32 [%rd1+40], %r8;
  prmt.b32 %r9, %r6, %r1, 0x8701;
  prmt.b32 %r10, %r1, 0, 0x7773U;
  st.global.u32 [%rd1+44], %r9;
  st.global.u32 [%rd1+48], %r10;
  ret;
}
)");
  ASSERT_TRUE(module);
  alignas(16) uint32_t data[16] = {};
  const float in[2] = {1.5f, -2.25f};
  std::memcpy(data, in, sizeof(in));
  ASSERT_EQ(launch(*module, "packed", 1, 1, {data}), "");
  // f16: 1.5 0x3E00, -2.25 0xC080, 3 0x4200, -4.5 0xC480, 4.5 0x4480.
  EXPECT_EQ(data[4], 0x4200C480u);
  EXPECT_EQ(data[5], 0xC2004480u);
  EXPECT_EQ(data[6], 0u); // lower: 4.5 < -4.5
  EXPECT_EQ(data[7], 1u); // upper: -3 < 3
  EXPECT_EQ(data[8], 0x3E01C082u);
  EXPECT_EQ(data[9], 0x4480u);
  EXPECT_EQ(data[10], 0x3FC0C010u); // bf16: 1.5 0x3FC0, -2.25 0xC010
  // Bytes of {0x3E00C080, 0x3E01C082}: 1, 0, 7, then byte 0's sign.
  EXPECT_EQ(data[11], 0xFF3E82C0u);
  EXPECT_EQ(data[12], 0x3Eu);
}

// ldmatrix: lanes 8i to 8i + 7 give the row addresses of matrix i (here
// shared rows in reverse order), and lane l's register i gets row l / 4 of
// matrix i at word l % 4, as mma.sync's fragments take them; with .trans,
// row l / 4 of the transpose: halves l / 4 of rows 2 (l % 4) and
// 2 (l % 4) + 1.
TEST(PtxInterpreterTest, LoadsMatricesAcrossTheWarp) {
  auto module = parse(R"(
.visible .entry ldm(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<14>; .reg .b64 %rd<12>;
  .shared .align 16 .b8 tiles[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  mov.u64 %rd5, tiles;
  add.s64 %rd6, %rd5, %rd3;
  st.shared.v4.u32 [%rd6], {%r2, %r3, %r4, %r5};
  bar.sync 0;
  sub.s32 %r6, 31, %r1;
  mul.wide.u32 %rd7, %r6, 16;
  add.s64 %rd8, %rd5, %rd7;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r7, %r8, %r9, %r10}, [%rd8];
  add.s64 %rd9, %rd2, %rd3;
  st.global.v4.u32 [%rd9], {%r7, %r8, %r9, %r10};
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r11}, [%rd8];
  mul.wide.u32 %rd10, %r1, 4;
  add.s64 %rd10, %rd2, %rd10;
  st.global.u32 [%rd10+512], %r11;
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r12, %r13}, [%rd8];
  mul.wide.u32 %rd11, %r1, 8;
  add.s64 %rd11, %rd2, %rd11;
  st.global.v2.u32 [%rd11+640], {%r12, %r13};
  ret;
}
.visible .entry misaligned(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<5>; .reg .b64 %rd<4>;
  .shared .align 16 .b8 tiles[1024];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 24;
  mov.u64 %rd2, tiles;
  add.s64 %rd3, %rd2, %rd1;
  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r2, %r3}, [%rd3];
  ret;
}
)");
  ASSERT_TRUE(module);
  alignas(16) uint32_t in[128], out[224] = {};
  for (uint32_t i = 0; i < 128; ++i)
    in[i] = (1000 + 2 * i) | (1001 + 2 * i) << 16;
  ASSERT_EQ(launch(*module, "ldm", 1, 32, {in, out}), "");
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t i = 0; i < 4; ++i)
      EXPECT_EQ(out[l * 4 + i], in[(31 - (8 * i + l / 4)) * 4 + l % 4])
          << "lane " << l << ", register " << i;
    EXPECT_EQ(out[128 + l], in[(31 - l / 4) * 4 + l % 4]) << "lane " << l;
    // Half c of shared row `row` (row 31 - r is given by lane r).
    auto half = [&](uint32_t row, uint32_t c) {
      return in[row * 4 + c / 2] >> 16 * (c % 2) & 0xFFFF;
    };
    for (uint32_t i = 0; i < 2; ++i) {
      uint32_t row = 31 - (8 * i + 2 * (l % 4));
      uint32_t want = half(row, l / 4) | half(row - 1, l / 4) << 16;
      EXPECT_EQ(out[160 + 2 * l + i], want)
          << "lane " << l << ", transposed register " << i;
    }
  }
  // Lane 1's row starts 24 bytes in: not 16-byte aligned.
  std::string error = launch(*module, "misaligned", 1, 32, {in, out});
  EXPECT_NE(error.find("misaligned access of 16 bytes at offset 24"),
            std::string::npos)
      << error;
}

// cp.async: in even blocks a copy lands in shared memory when a wait covers
// its group, not before (the tile keeps what it held), in odd ones at once
// (both are times a GPU may land it: a kernel must be right with either);
// a source size below the copy's zero-fills the rest (0 bytes: no source
// read at all); wait_group N leaves the newest N groups in flight;
// wait_all takes the uncommitted copies too.
TEST(PtxInterpreterTest, CopiesAsynchronouslyIntoSharedMemory) {
  auto module = parse(R"(
.visible .entry k(.param .u64 p, .param .u64 q)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 16 .b8 tile[48];
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [q];
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd3, %r1, 48;
  add.s64 %rd2, %rd2, %rd3;
  mov.u32 %r1, tile;
  cp.async.cg.shared.global [%r1], [%rd1], 16;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r1+16], [%rd1+16], 16, 8;
  cp.async.commit_group;
  cp.async.cg.shared.global [%r1+32], [%rd1+16], 16, 0;
  ld.shared.u32 %r2, [%r1];
  cp.async.wait_group 1;
  ld.shared.u32 %r3, [%r1];
  ld.shared.u32 %r4, [%r1+12];
  ld.shared.u32 %r5, [%r1+16];
  cp.async.wait_all;
  ld.shared.u32 %r6, [%r1+16];
  ld.shared.u32 %r7, [%r1+20];
  ld.shared.u32 %r8, [%r1+24];
  ld.shared.u32 %r9, [%r1+28];
  ld.shared.u32 %r10, [%r1+32];
  ld.shared.u32 %r11, [%r1+44];
  st.global.v4.u32 [%rd2], {%r2, %r3, %r4, %r5};
  st.global.v4.u32 [%rd2+16], {%r6, %r7, %r8, %r9};
  st.global.v2.u32 [%rd2+32], {%r10, %r11};
  ret;
}
)");
  ASSERT_TRUE(module);
  std::vector<uint32_t> in(8), out(24, 7);
  for (uint32_t i = 0; i < 8; ++i)
    in[i] = 100 + i;
  EXPECT_EQ(launch(*module, "k", 2, 1, {in.data(), out.data()}), "");
  const uint32_t unset = 0xCDCDCDCDu;
  std::vector<uint32_t> want = {unset, 100, 103, unset, 104, 105, 0,   0,
                                0,     0,   7,   7,     100, 100, 103, 104,
                                104,   105, 0,   0,     0,   0,   7,   7};
  EXPECT_EQ(out, want);
}

// Dynamic shared memory: the module's `.extern .shared` arrays all start
// after the launched entry's static shared variables, 16-byte aligned as
// the driver guarantees (not the 1,024 bytes one asks for), and hold as
// many bytes as the launch gives; past them is a fault.
TEST(PtxInterpreterTest, RunsDynamicSharedMemory) {
  auto module = parse(R"(
.extern .shared .align 1024 .b8 dynamic[];
.extern .shared .align 16 .b8 alias[];
.visible .entry k(.param .u64 p, .param .u32 at)
{
  .reg .b32 %r<8>; .reg .b64 %rd<3>;
  .shared .align 4 .b8 fixed[20];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [at];
  mov.u32 %r2, dynamic;
  mov.u32 %r3, fixed;
  st.shared.u32 [%r3+16], 7;
  add.s32 %r4, %r2, %r1;
  st.shared.u32 [%r4], 42;
  mov.u32 %r5, alias;
  add.s32 %r5, %r5, %r1;
  ld.shared.u32 %r6, [%r5];
  ld.shared.u32 %r7, [%r3+16];
  sub.s32 %r2, %r2, %r3;
  st.global.v4.u32 [%rd1], {%r2, %r6, %r7, %r1};
  ret;
}
.visible .entry larger(.param .u64 p, .param .u32 at)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  .shared .align 8 .b8 barriers[1040];
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, dynamic;
  mov.u32 %r2, barriers;
  sub.s32 %r1, %r1, %r2;
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  ASSERT_TRUE(module);
  std::vector<uint32_t> out(4);
  auto run = [&](uint32_t at, unsigned bytes, const char *kernel = "k") {
    uint64_t pointer = reinterpret_cast<uint64_t>(out.data());
    void *params[] = {&pointer, &at};
    return module->launch(kernel, 1, 1, bytes, params, anywhere,
                          /*maxSteps=*/1000);
  };
  // Each entry's array starts after its own variables.
  EXPECT_EQ(run(0, 16, "larger"), "");
  EXPECT_EQ(out[0], 1040u);
  EXPECT_EQ(run(60, 64), "");
  EXPECT_EQ(out, (std::vector<uint32_t>{32, 42, 7, 60}));
  std::string error = run(64, 64);
  EXPECT_NE(error.find("outside the 96-byte buffer"), std::string::npos)
      << error;
  error = run(0, 0);
  EXPECT_NE(error.find("outside the 20-byte buffer"), std::string::npos)
      << error;
}

TEST(PtxInterpreterTest, RefusesWhatItCannotRun) {
  std::string error;
  EXPECT_FALSE(PtxModule::parse(std::string(kHeader) + R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<2>;
  atom.global.add.u32 %r1, [p], 1;
  ret;
}
)",
                                error));
  EXPECT_NE(error.find("unsupported instruction 'atom.global.add.u32'"),
            std::string::npos)
      << error;
  EXPECT_FALSE(PtxModule::parse(std::string(kHeader) + R"(
.visible .entry k()
{
  bra $nowhere;
}
)",
                                error));
  EXPECT_NE(error.find("unknown branch target"), std::string::npos) << error;
  // Packed halves, saturating arithmetic, named barriers, too few operands,
  // malformed declarations: refused, not run wrongly or crashed on.
  for (const char *statement :
       {"add.rn.f32x2 %rd1, %rd1, %rd1;",
        "cvt.rn.f16x2.f16 %r1, %rs1, %rs2;",
        "setp.lt.f16x2 %p1, %r1, %r2;",
        "@%p1 setp.lt.f16x2 %p2|%p1, %r1, %r2;",
        "add.sat.s32 %r1, %r1, 1;",
        "bar.sync 1;",
        "add.s32 %r1, %r2;",
        "mov.b32 %r1, 0fXYZ;",
        "@%p1;",
        "ld.global.v4.f32 {%f1, %f2}, [p];",
        "mov.b32 3, %r1;",
        "st.global.u32 [p+foo], 1;",
        "mov.u64 %rd1, nowhere;",
        "cp.async.ca.shared.global [%r1], [p], 12;",
        "cp.async.bulk.shared.global [%r1], [p], 16;",
        "cp.async.cg.shared.global [%r1], [p], 8;",
        "cp.async.wait_group %r1;",
        "cp.async.wait_group;",
        "cp.async.wait_all 1;",
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, "
        "%f4}, {%r1, %r2}, {%r3}, {%f1, %f2, %f3, %f4};",
        "mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, "
        "%f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2}, "
        "{%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};"}) {
    error.clear();
    EXPECT_FALSE(PtxModule::parse(std::string(kHeader) +
                                      ".visible .entry k(.param .u64 p)\n{\n" +
                                      statement + "\nret;\n}\n",
                                  error))
        << statement;
    EXPECT_FALSE(error.empty()) << statement;
  }
}

// Device functions (`.func`, as LLVM emits libdevice's helpers) run inlined
// at each call: two calls of one function keep their registers, labels and
// local memory apart from the caller's and each other's; a function calls
// another defined later; one without results stores through a pointer.
TEST(PtxInterpreterTest, RunsCalledFunctions) {
  auto module = parse(R"(
.func  (.param .b32 twice_r) twice
(
	.param .b32 twice_x
)
;
.func (.param .b32 f_r) f(.param .b32 f_x, .param .b32 f_lo)
{
  .local .align 4 .b8 __local_depot0[8];
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %SPL;
  ld.param.b32 %r1, [f_x];
  ld.param.b32 %r2, [f_lo];
  setp.lt.s32 %p1, %r1, %r2;
  @%p1 bra $L__BB1_2;
  mul.lo.s32 %r3, %r1, %r1;
  mov.u64 %SPL, __local_depot0;
  st.local.u32 [%SPL+4], %r3;
  ld.local.u32 %r4, [%SPL+4];
  { // callseq 5, 0
  .param .b32 param0;
  .param .b32 retval0;
  st.param.b32 [param0], %r4;
  call.uni (retval0),
  twice,
  (param0);
  ld.param.b32 %r5, [retval0];
  } // callseq 5
  st.param.b32 [f_r], %r5;
  ret;
$L__BB1_2:
  st.param.b32 [f_r], %r2;
  ret;
}
.func store(.param .b64 store_p, .param .b32 store_v)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [store_p];
  ld.param.b32 %r1, [store_v];
  st.global.u32 [%rd1], %r1;
  ret;
}
.visible .entry k(.param .u64 k_out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r6, 2;
  { // callseq 0, 0
  .param .b32 param0;
  .param .b32 param1;
  .param .b32 retval0;
  st.param.b32 [param0], %r1;
  st.param.b32 [param1], %r6;
  call.uni (retval0), f, (param0, param1);
  ld.param.b32 %r2, [retval0];
  } // callseq 0
  add.s32 %r3, %r1, 10;
  mov.u32 %r6, 12;
  { // callseq 1, 0
  .param .b32 param0;
  .param .b32 param1;
  .param .b32 retval0;
  st.param.b32 [param0], %r3;
  st.param.b32 [param1], %r6;
  call.uni (retval0), f, (param0, param1);
  ld.param.b32 %r4, [retval0];
  } // callseq 1
  add.s32 %r5, %r2, %r4;
  add.s32 %r5, %r5, %r1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  { // callseq 2, 0
  .param .b64 param0;
  .param .b32 param1;
  st.param.b64 [param0], %rd3;
  st.param.b32 [param1], %r5;
  call.uni store, (param0, param1);
  } // callseq 2
  ret;
}
.func (.param .b32 twice_r) twice(.param .b32 twice_x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [twice_x];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [twice_r], %r2;
  ret;
}
)");
  ASSERT_TRUE(module);
  EXPECT_FALSE(module->hasEntry("f"));
  // f(x, lo) = x < lo ? lo : 2 x^2; out[t] = f(t, 2) + f(t + 10, 12) + t.
  std::vector<int32_t> out(4, -1);
  EXPECT_EQ(launch(*module, "k", 1, 4, {out.data()}), "");
  EXPECT_EQ(out, (std::vector<int32_t>{14, 15, 298, 359}));
}

// A call in a loop: each iteration runs the one copy, which reads the
// thread's %tid.x and returns early through a guarded ret.
TEST(PtxInterpreterTest, RunsCallsInLoops) {
  auto module = parse(R"(
.func (.param .b32 bump_r) bump(.param .b32 bump_x)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [bump_x];
  st.param.b32 [bump_r], %r1;
  setp.gt.s32 %p1, %r1, 20;
  @%p1 ret;
  mov.u32 %r2, %tid.x;
  add.s32 %r3, %r1, %r2;
  add.s32 %r3, %r3, 1;
  st.param.b32 [bump_r], %r3;
  ret;
}
.visible .entry loop(.param .u64 loop_out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [loop_out];
  mov.u32 %r1, 0;
  mov.u32 %r2, 0;
$L__loop:
  { // callseq 0, 0
  .param .b32 param0;
  .param .b32 retval0;
  st.param.b32 [param0], %r1;
  call.uni (retval0), bump, (param0);
  ld.param.b32 %r1, [retval0];
  } // callseq 0
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 8;
  @%p1 bra $L__loop;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)");
  ASSERT_TRUE(module);
  // Eight times x = x > 20 ? x : x + tid + 1, from 0.
  std::vector<int32_t> out(4, -1);
  EXPECT_EQ(launch(*module, "loop", 1, 4, {out.data()}), "");
  EXPECT_EQ(out, (std::vector<int32_t>{8, 16, 21, 24}));
}

// Calls the interpreter cannot inline are refused at load, naming them.
TEST(PtxInterpreterTest, RefusesCallsItCannotInline) {
  auto refused = [](const std::string &ptx, const std::string &text) {
    std::string error;
    EXPECT_FALSE(PtxModule::parse(std::string(kHeader) + ptx, error)) << text;
    EXPECT_NE(error.find(text), std::string::npos) << error;
  };
  const std::string one = ".func (.param .b32 one_r) one(.param .b32 one_x)\n"
                          "{\n  st.param.b32 [one_r], 1;\n  ret;\n}\n";
  auto entry = [&](const std::string &body) {
    return one +
           ".visible .entry k()\n{\n  .reg .pred %p<2>;\n"
           "  .param .b32 param0;\n  .param .b32 retval0;\n" +
           body + "\n  ret;\n}\n";
  };
  refused(entry("call.uni (retval0), two, (param0);"),
          "call of 'two', which the module does not define");
  refused(entry("call.uni (retval0), one, (param0, param0);"),
          "call with 1 results and 2 arguments, expected 1 and 1");
  refused(entry("@%p1 call.uni (retval0), one, (param0);"),
          "a guarded call is not implemented");
  refused(".extern .func (.param .b32 r) vprintf(.param .b64 f);\n" +
              entry("call.uni (retval0), vprintf, (param0);"),
          "call of 'vprintf', which the module does not define");
  refused(".func self(.param .b32 self_x)\n{\n  .param .b32 param0;\n"
          "  call.uni self, (param0);\n  ret;\n}\n" +
              entry("call.uni self, (param0);"),
          "calls nested more than 16 deep (recursion?)");
  refused(".func s()\n{\n  .shared .b8 buffer[4];\n  ret;\n}\n" + entry(""),
          "a function declaring shared memory is not implemented");
  refused(".func s()\n{\n  .reg .b32 r<2>;\n  ret;\n}\n" + entry(""),
          "a register a copy of the function cannot rename");
  refused(".func s()\n{\n  .local .align 0 .b8 d[4];\n  ret;\n}\n" +
              entry("call.uni s, ();"),
          "expected a power-of-two alignment");
  // A brace the body's statements do not open.
  refused(".func s()\n{\n  .pragma \"{\";\n  }\n  ret;\n}\n" +
              entry("call.uni s, ();"),
          "unbalanced '}' in a function");
}

// A kernel that never ends fails at its instruction budget.
TEST(PtxInterpreterTest, StopsAtTheInstructionBudget) {
  auto module = parse(R"(
.visible .entry spin(.param .u64 p)
{
$top:
  bra.uni $top;
}
)");
  ASSERT_TRUE(module);
  uint64_t value = 0;
  void *params[] = {&value};
  std::string error =
      module->launch("spin", 1, 32, 0, params, anywhere, /*maxSteps=*/10000);
  EXPECT_NE(error.find("kernel spin: more than 10000 instructions run"),
            std::string::npos)
      << error;
}

// Edge cases of the ISA: bfe's sign fill past the top bit, saturating
// conversions to 64-bit and narrow integers, one rounding for u64 to f32,
// fused multiply-adds in f32 and f16, a negated predicate operand, a vector
// store with an immediate, a negative memory offset, a clamped shuffle up,
// the most negative integer divided by -1.
TEST(PtxInterpreterTest, FollowsTheIsaAtTheEdges) {
  auto module = parse(R"(
.visible .entry edges(.param .u64 p)
{
  .reg .pred %p<3>; .reg .b16 %rs<4>; .reg .b32 %r<20>; .reg .f32 %f<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p];
  bfe.s32 %r1, 0x80000000, 28, 8;
  bfe.s32 %r2, 0x80000000, 4, 32;
  cvt.sat.s8.s32 %r3, 300;
  mov.b64 %rd2, 0x1000001000000001;
  cvt.rn.f32.u64 %f1, %rd2;
  mad.rn.f32 %f2, 0f3F800001, 0f427FFFFE, 0f4E800001;
  mov.b16 %rs1, 0x1001;
  mov.b16 %rs2, 0x3BFE;
  mov.b16 %rs3, 0x3C01;
  fma.rn.f16 %rs1, %rs1, %rs2, %rs3;
  cvt.u32.u16 %r4, %rs1;
  setp.eq.u32 %p1, 1, 2;
  setp.lt.and.s32 %p2, 1, 2, !%p1;
  selp.b32 %r5, 1, 0, %p2;
  div.s32 %r6, -2147483648, -1;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  st.global.u32 [%rd1+8], %r3;
  st.global.f32 [%rd1+12], %f1;
  st.global.f32 [%rd1+16], %f2;
  st.global.u32 [%rd1+20], %r4;
  st.global.u32 [%rd1+24], %r5;
  st.global.u32 [%rd1+28], %r6;
  add.s64 %rd3, %rd1, 40;
  st.global.v2.f32 [%rd3-8], {%f1, 0f3F800000};
  cvt.rzi.s64.f64 %rd4, 0d46293E5939A08CEA;
  st.global.u64 [%rd1+40], %rd4;
  cvt.rzi.u64.f32 %rd5, 0f7149F2CA;
  st.global.u64 [%rd1+48], %rd5;
  ret;
}
.visible .entry up(.param .u64 p)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  shfl.sync.up.b32 %r2|%p1, %r1, 1, 16, -1;
  selp.b32 %r3, 1, 0, %p1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+128], %r3;
  ret;
}
)");
  ASSERT_TRUE(module);
  alignas(16) uint32_t out[14] = {};
  EXPECT_EQ(launch(*module, "edges", 1, 1, {out}), "");
  EXPECT_EQ(out[0], 0xFFFFFFF8u);
  EXPECT_EQ(out[1], 0xF8000000u);
  EXPECT_EQ(out[2], 127u);
  EXPECT_EQ(out[3], 0x5D800001u);
  EXPECT_EQ(out[4], 0x4E800001u);
  EXPECT_EQ(out[5], 0x3C01u);
  EXPECT_EQ(out[6], 1u);
  EXPECT_EQ(out[7], 0x80000000u);
  EXPECT_EQ(out[8], 0x5D800001u); // the vector store at +32
  EXPECT_EQ(out[9], 0x3F800000u);
  uint64_t wide[2];
  std::memcpy(wide, out + 10, sizeof(wide));
  EXPECT_EQ(wide[0], 0x7FFFFFFFFFFFFFFFull); // 1e30 saturates
  EXPECT_EQ(wide[1], ~0ull);
  // Shuffle up by 1 with c = 16: a source lane below 16 is out of range,
  // so lanes 0-16 keep their value with p false.
  std::vector<uint32_t> lanes(64, 0);
  EXPECT_EQ(launch(*module, "up", 1, 32, {lanes.data()}), "");
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(lanes[i], i <= 16 ? i : i - 1) << i;
    EXPECT_EQ(lanes[32 + i], i <= 16 ? 0u : 1u) << i;
  }
}

namespace {
/// The bits of `v`, a small value exact in both, as bf16 or as IEEE half.
uint16_t halfBits(float v, bool bf16) {
  if (bf16) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return static_cast<uint16_t>(bits >> 16);
  }
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int e;
  float m = std::frexp(std::fabs(v), &e); // |v| = m 2^e, m in [0.5, 1)
  return sign | static_cast<uint16_t>((e - 1 + 15) << 10) |
         static_cast<uint16_t>((2 * m - 1) * 1024);
}

/// A warp's mma.sync: each lane loads its 4 words of A, 2 of B and 4
/// floats of C (lane-major), multiplies, stores its 4 floats of D. The
/// instruction spans lines, as LLVM prints it.
std::string mmaKernel(const char *type, const char *shape = "m16n8k16") {
  return std::string(R"(
.visible .entry k(.param .u64 k_a, .param .u64 k_b, .param .u64 k_c, .param .u64 k_d)
{
  .reg .b32 %r<16>; .reg .f32 %f<9>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [k_a];
  ld.param.u64 %rd2, [k_b];
  ld.param.u64 %rd3, [k_c];
  ld.param.u64 %rd4, [k_d];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 16;
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd1, %rd5;
  add.s64 %rd8, %rd2, %rd6;
  add.s64 %rd9, %rd3, %rd5;
  add.s64 %rd10, %rd4, %rd5;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd7];
  ld.global.v2.u32 {%r6, %r7}, [%rd8];
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd9];
  mma.sync.aligned.)") +
         shape + ".row.col.f32." + type + "." + type + R"(.f32
		{%f5, %f6, %f7, %f8},
		{%r2, %r3, %r4, %r5},
		{%r6, %r7},
		{%f1, %f2, %f3, %f4};
  st.global.v4.f32 [%rd10], {%f5, %f6, %f7, %f8};
  ret;
}
)";
}
} // namespace

// D = A B + C for a warp, its fragments spread over the lanes as the PTX
// ISA lays them out for m16n8k16 (groupID = lane / 4, t = lane % 4): A's
// element i of a lane at row groupID (i in 0-1, 4-5) or groupID + 8, column
// 2t + i % 2 (+ 8 for i >= 4); B's at row 2t + i % 2 (+ 8 for i >= 2),
// column groupID; C's and D's at row groupID (+ 8 for i >= 2), column
// 2t + i % 2. Small values, so that every sum is exact.
TEST(PtxInterpreterTest, MultipliesOnTensorCoresAsThePtxIsaLaysOut) {
  for (bool bf16 : {true, false}) {
    auto module = parse(mmaKernel(bf16 ? "bf16" : "f16"));
    ASSERT_TRUE(module);
    float a[16][16], b[16][8], c[16][8];
    for (int m = 0; m < 16; ++m)
      for (int k = 0; k < 16; ++k)
        a[m][k] = static_cast<float>((m * 7 + k * 3) % 9 - 4) * 0.5f;
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < 8; ++n)
        b[k][n] = static_cast<float>((k * 5 + n * 11) % 7 - 3);
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n)
        c[m][n] = static_cast<float>(m - n) * 0.25f;
    std::vector<uint32_t> aw(32 * 4), bw(32 * 2);
    std::vector<float> cw(32 * 4), dw(32 * 4, -1.0f);
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane / 4, t = lane % 4;
      for (int i = 0; i < 8; ++i) {
        int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
        int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
        aw[lane * 4 + i / 2] |= uint32_t(halfBits(a[row][col], bf16))
                                << (16 * (i % 2));
      }
      for (int i = 0; i < 4; ++i) {
        int row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
        bw[lane * 2 + i / 2] |= uint32_t(halfBits(b[row][g], bf16))
                                << (16 * (i % 2));
        cw[lane * 4 + i] = c[g + (i >= 2 ? 8 : 0)][t * 2 + (i & 1)];
      }
    }
    EXPECT_EQ(launch(*module, "k", 1, 32,
                     {aw.data(), bw.data(), cw.data(), dw.data()}),
              "");
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < 4; ++i) {
        int row = lane / 4 + (i >= 2 ? 8 : 0), col = lane % 4 * 2 + (i & 1);
        float want = c[row][col];
        for (int k = 0; k < 16; ++k)
          want += a[row][k] * b[k][col];
        EXPECT_EQ(dw[lane * 4 + i], want)
            << (bf16 ? "bf16" : "f16") << " lane " << lane << " element " << i;
      }
    // A warp of fewer than 32 threads, or one whose lanes do not all reach
    // the product, has no value to compute.
    EXPECT_NE(launch(*module, "k", 1, 16,
                     {aw.data(), bw.data(), cw.data(), dw.data()})
                  .find("mma.sync in a warp of fewer than 32 threads"),
              std::string::npos);
  }
  auto partial = parse(R"(
.visible .entry k()
{
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<5>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 5;
  @%p1 bra $done;
  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};
$done:
  ret;
}
)");
  ASSERT_TRUE(partial);
  EXPECT_NE(launch(*partial, "k", 1, 32, {})
                .find("mma.sync not reached by every lane of the warp"),
            std::string::npos);
}

namespace {
/// How wgmmaKernel's products end: waited for before the store, after it,
/// or never.
enum class WgmmaWait { BeforeStore, AfterStore, Never };

/// A warpgroup's `products` wgmma.m64n8k16 of `type` halves into the same
/// accumulators, one group, B transposed or not (`transposeB`): the block
/// copies 2,048 `chunks` bytes (each thread 16 `chunks`) from k_s into
/// shared memory, reads A's and B's descriptors (added to the shared
/// memory's address) and whether to add D from k_d, starts D at 1 in every
/// element, and stores each thread's 4 accumulators at k_o + 16 (128 ctaid
/// + tid).
std::string wgmmaKernel(const char *type, bool transposeB, int products = 1,
                        WgmmaWait wait = WgmmaWait::BeforeStore,
                        int chunks = 2) {
  std::string product =
      std::string("  wgmma.mma_async.sync.aligned.m64n8k16.f32.") + type + "." +
      type + " {%f1, %f2, %f3, %f4}, %rd9, %rd10, q, 1, 1, 0, " +
      (transposeB ? "1" : "0") + ";\n";
  std::string waitForIt = "  wgmma.wait_group.sync.aligned 0;\n";
  std::string copies;
  for (int c = 0; c < chunks; ++c) {
    std::string at = c ? "+" + std::to_string(16 * c) : "";
    copies += "  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5" + at +
              "];\n  st.shared.v4.u32 [%rd7" + at +
              "], {%r2, %r3, %r4, %r5};\n";
  }
  std::string text = R"(
.visible .entry k(.param .u64 k_s, .param .u64 k_d, .param .u64 k_o)
{
  .reg .pred p; .reg .b32 %r<8>; .reg .f32 %f<5>; .reg .b64 %rd<16>;
  .shared .align 1024 .b8 tile[)" +
                     std::to_string(2048 * chunks) + R"(];
  ld.param.u64 %rd1, [k_s];
  ld.param.u64 %rd2, [k_d];
  ld.param.u64 %rd3, [k_o];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, )" +
                     std::to_string(16 * chunks) + R"(;
  add.s64 %rd5, %rd1, %rd4;
  mov.u64 %rd6, tile;
  add.s64 %rd7, %rd6, %rd4;
)" + copies + R"(  fence.proxy.async.shared::cta;
  bar.sync 0;
  shr.u64 %rd8, %rd6, 4;
  ld.global.u64 %rd9, [%rd2];
  add.s64 %rd9, %rd9, %rd8;
  ld.global.u64 %rd10, [%rd2+8];
  add.s64 %rd10, %rd10, %rd8;
  ld.global.u32 %r6, [%rd2+16];
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, %f1;
  mov.f32 %f3, %f1;
  mov.f32 %f4, %f1;
  wgmma.fence.sync.aligned;
  {
  .reg .pred q;
  setp.ne.b32 q, %r6, 0;
)";
  for (int i = 0; i < products; ++i)
    text += product;
  text += "  }\n  wgmma.commit_group.sync.aligned;\n";
  if (wait == WgmmaWait::BeforeStore)
    text += waitForIt;
  text += R"(  mov.u32 %r7, %ctaid.x;
  mad.lo.u32 %r7, %r7, 128, %r1;
  mul.wide.u32 %rd11, %r7, 16;
  add.s64 %rd12, %rd3, %rd11;
  st.global.v4.f32 [%rd12], {%f1, %f2, %f3, %f4};
)";
  if (wait == WgmmaWait::AfterStore)
    text += waitForIt;
  return text + "  ret;\n}\n";
}

/// A wgmma.m64n8k16's operands: small multiples of 0.5 (A) and integers
/// (B), exact in f16 and bf16, their products' sums exact in f32.
void fillWgmmaOperands(float (&a)[64][16], float (&b)[16][8]) {
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 16; ++k)
      a[m][k] = static_cast<float>((m * 7 + k * 3) % 9 - 4) * 0.5f;
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n)
      b[k][n] = static_cast<float>((k * 5 + n * 11) % 7 - 3);
}
} // namespace

// wgmma.m64nNk16 (f16 and bf16 halves, f32 sums) reads A and B from
// shared memory through descriptors: unswizzled core matrices of 8 rows
// of 16 bytes, the start address, the leading byte offset (between core
// matrices along K) and the stride byte offset (along M or N), each in
// 16-byte units at bits 0, 16 and 32. A is K-major: element (m, k) at
// (m / 8) SBO + (k / 8) LBO + 16 (m % 8) + 2 (k % 8). B is K-major
// without transposition, element (k, n) at (n / 8) SBO + (k / 8) LBO +
// 16 (n % 8) + 2 (k % 8), and MN-major with it: (n / 8) SBO + (k / 8) LBO
// + 16 (k % 8) + 2 (n % 8). Warp w holds rows 16 w to 16 w + 15 of D as
// mma.sync's accumulators: lane l's register v at row l / 4 + 8 (v / 2),
// column 2 (l % 4) + v % 2.
TEST(PtxInterpreterTest, MultipliesWarpgroupsFromSharedMemory) {
  for (bool bf16 : {true, false})
    for (bool transposeB : {false, true})
      for (bool accumulate : {false, true}) {
        auto module = parse(wgmmaKernel(bf16 ? "bf16" : "f16", transposeB));
        ASSERT_TRUE(module);
        float a[64][16], b[16][8];
        fillWgmmaOperands(a, b);
        // A from byte 0 (LBO 128, SBO 256), B from byte 2048 (LBO 1024).
        std::vector<uint16_t> shared(2048, 0);
        for (int m = 0; m < 64; ++m)
          for (int k = 0; k < 16; ++k)
            shared[((m / 8) * 256 + (k / 8) * 128 + (m % 8) * 16 +
                    (k % 8) * 2) /
                   2] = halfBits(a[m][k], bf16);
        for (int k = 0; k < 16; ++k)
          for (int n = 0; n < 8; ++n)
            shared[(2048 + (k / 8) * 1024 +
                    (transposeB ? (k % 8) * 16 + n * 2
                                : n * 16 + (k % 8) * 2)) /
                   2] = halfBits(b[k][n], bf16);
        auto describe = [](uint64_t start, uint64_t leading, uint64_t stride) {
          return start >> 4 | (leading >> 4) << 16 | (stride >> 4) << 32;
        };
        std::vector<uint64_t> descriptors = {describe(0, 128, 256),
                                             describe(2048, 1024, 256),
                                             accumulate ? 1u : 0u};
        std::vector<float> out(2 * 128 * 4, -7.0f);
        EXPECT_EQ(launch(*module, "k", 2, 128,
                         {shared.data(), descriptors.data(), out.data()}),
                  "");
        for (int t = 0; t < 2 * 128; ++t)
          for (int v = 0; v < 4; ++v) {
            int lane = t % 32,
                row = 16 * (t % 128 / 32) + lane / 4 + 8 * (v / 2);
            int col = 2 * (lane % 4) + v % 2;
            float want = accumulate ? 1.0f : 0.0f;
            for (int k = 0; k < 16; ++k)
              want += a[row][k] * b[k][col];
            EXPECT_EQ(out[t * 4 + v], want)
                << (bf16 ? "bf16" : "f16") << (transposeB ? " transposed" : "")
                << " thread " << t << " element " << v;
          }
        // The warps running wgmma make whole warpgroups (128 threads; a
        // block may end with a partial one that runs none, as ms's
        // producer warp does: e2e/ops/matmul-half); no base offset.
        EXPECT_NE(launch(*module, "k", 1, 64,
                         {shared.data(), descriptors.data(), out.data()})
                      .find("wgmma by threads [0, 32) of a block of 64 "
                            "threads: expected a whole warpgroup of 128, "
                            "found 64"),
                  std::string::npos);
        descriptors[1] |= uint64_t(1) << 49;
        EXPECT_NE(launch(*module, "k", 1, 128,
                         {shared.data(), descriptors.data(), out.data()})
                      .find("unsupported wgmma descriptor (a base offset)"),
                  std::string::npos);
      }
}

// Swizzled layouts (layout type 1, 2, 3 at bit 62: rows of R = 128, 64,
// 32 bytes), as a TMA load of a tensor map of that swizzle writes them:
// shared memory is lines of 128 bytes (1, 2 or 4 rows), and the 16-byte
// chunk c of line l is at chunk c ^ (l % (R / 16)) of the line (rows of
// 64 bytes: rows 2 j and 2 j + 1 XOR with j % 4). A is K-major: element
// (m, k) in row m, byte 2 k (the stride offset 8 R between groups of 8
// rows). B K-major: element (k, n) in row n; MN-major: in row k (8 rows
// the stride offset on), byte 2 n (R / 2 columns a row; the leading offset
// between such boxes).
TEST(PtxInterpreterTest, MultipliesSwizzledWarpgroups) {
  for (uint64_t rowBytes : {128u, 64u, 32u})
    for (bool transposeB : {false, true}) {
      auto module = parse(wgmmaKernel("f16", transposeB, 1,
                                      WgmmaWait::BeforeStore, /*chunks=*/6));
      ASSERT_TRUE(module);
      float a[64][16], b[16][8];
      fillWgmmaOperands(a, b);
      // Where byte `byte` of row `row` of a swizzled region from `start`
      // is.
      auto at = [&](uint64_t start, uint64_t row, uint64_t byte) {
        uint64_t unswizzled = start + row * rowBytes + byte;
        uint64_t line = unswizzled / 128, chunk = unswizzled % 128 / 16;
        return line * 128 + (chunk ^ (line % (rowBytes / 16))) * 16 + byte % 16;
      };
      // A from byte 0 (64 rows), B from byte 8,192.
      std::vector<uint16_t> shared(6 * 1024, 0);
      for (int m = 0; m < 64; ++m)
        for (int k = 0; k < 16; ++k)
          shared[at(0, m, 2 * k) / 2] = halfBits(a[m][k], false);
      for (int k = 0; k < 16; ++k)
        for (int n = 0; n < 8; ++n)
          shared[(transposeB ? at(8192, k, 2 * n) : at(8192, n, 2 * k)) / 2] =
              halfBits(b[k][n], false);
      uint64_t layout = rowBytes == 128 ? 1 : rowBytes == 64 ? 2 : 3;
      auto describe = [&](uint64_t start, uint64_t leading) {
        return start >> 4 | (leading >> 4) << 16 | (8 * rowBytes >> 4) << 32 |
               layout << 62;
      };
      std::vector<uint64_t> descriptors = {describe(0, 16),
                                           describe(8192, 2048), 0};
      std::vector<float> out(128 * 4, -7.0f);
      EXPECT_EQ(launch(*module, "k", 1, 128,
                       {shared.data(), descriptors.data(), out.data()}),
                "");
      for (int t = 0; t < 128; ++t)
        for (int v = 0; v < 4; ++v) {
          int lane = t % 32, row = 16 * (t / 32) + lane / 4 + 8 * (v / 2);
          int col = 2 * (lane % 4) + v % 2;
          float want = 0.0f;
          for (int k = 0; k < 16; ++k)
            want += a[row][k] * b[k][col];
          EXPECT_EQ(out[t * 4 + v], want)
              << rowBytes << "-byte rows" << (transposeB ? " transposed" : "")
              << " thread " << t << " element " << v;
        }
    }
}

// wgmma runs asynchronously: a product reads its accumulators at issue
// and, in odd blocks, shared memory and writes the accumulators only at
// the wgmma.wait_group covering its group (even blocks: at once). Products
// of one group into the same accumulators chain; a store before the wait
// stores what was there before (in odd blocks); a block ending with
// products still running fails.
TEST(PtxInterpreterTest, RunsWgmmaAsynchronously) {
  std::vector<uint16_t> shared(2048, 0);
  // A = 1 everywhere, B's column n = n + 1 (K-major A and B, as above).
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 16; ++k)
      shared[((m / 8) * 256 + (k / 8) * 128 + (m % 8) * 16 + (k % 8) * 2) / 2] =
          halfBits(1.0f, false);
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n)
      shared[(2048 + (k / 8) * 1024 + n * 16 + (k % 8) * 2) / 2] =
          halfBits(static_cast<float>(n + 1), false);
  std::vector<uint64_t> descriptors = {
      0 | 8u << 16 | uint64_t(16) << 32,
      2048 >> 4 | 64u << 16 | uint64_t(16) << 32, 1};
  auto column = [](int t, int v) { return 2 * (t % 32 % 4) + v % 2; };
  std::vector<float> out(2 * 128 * 4);
  auto chained = parse(wgmmaKernel("f16", false, 2));
  ASSERT_TRUE(chained);
  EXPECT_EQ(launch(*chained, "k", 2, 128,
                   {shared.data(), descriptors.data(), out.data()}),
            "");
  for (int t = 0; t < 2 * 128; ++t)
    for (int v = 0; v < 4; ++v)
      EXPECT_EQ(out[t * 4 + v], 1.0f + 2 * 16 * (column(t, v) + 1))
          << "thread " << t << " element " << v;
  auto early = parse(wgmmaKernel("f16", false, 1, WgmmaWait::AfterStore));
  ASSERT_TRUE(early);
  EXPECT_EQ(launch(*early, "k", 2, 128,
                   {shared.data(), descriptors.data(), out.data()}),
            "");
  for (int t = 0; t < 2 * 128; ++t)
    for (int v = 0; v < 4; ++v)
      EXPECT_EQ(out[t * 4 + v],
                t >= 128 ? 1.0f : 1.0f + 16 * (column(t, v) + 1))
          << "thread " << t << " element " << v;
  auto unwaited = parse(wgmmaKernel("f16", false, 1, WgmmaWait::Never));
  ASSERT_TRUE(unwaited);
  EXPECT_NE(launch(*unwaited, "k", 2, 128,
                   {shared.data(), descriptors.data(), out.data()})
                .find("wgmma products still running when the block ends"),
            std::string::npos);
}

/// The stand-in's tensor map of a `rows` x `width` tensor of 16-bit
/// elements in rows of 16 (32 bytes apart), which it fills into `tensor`
/// (element (y, x) is 100 y + x), its boxes `boxWidth` x `boxRows`.
FakeTensorMap tensorMapOf(std::vector<uint16_t> &tensor, int rows, int width,
                          unsigned boxWidth, unsigned boxRows) {
  tensor.assign(rows * 16, 0);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < 16; ++x)
      tensor[y * 16 + x] = static_cast<uint16_t>(100 * y + x);
  FakeTensorMap map;
  map.magic = FakeTensorMap::kMagic;
  map.dataType = 6; // f16
  map.rank = 2;
  map.elementBytes = 2;
  map.address = reinterpret_cast<uint64_t>(tensor.data());
  map.dims[0] = width;
  map.dims[1] = rows;
  map.strides[0] = 2;
  map.strides[1] = 32;
  map.box[0] = boxWidth;
  map.box[1] = boxRows;
  return map;
}

/// A kernel of 32 threads: thread 0 initializes an mbarrier, expects a
/// box's 64 bytes and loads the box at (8, 4) of the tensor map at `map`
/// (2D, 16-bit elements, an 8 x 4 box) into shared memory by TMA; every
/// thread waits for the phase (inline assembly as LLVM writes it, twice:
/// its labels are the scope's, else the first would skip what is between)
/// and stores element t of the box at out[32 + t].
/// `dst` is the load's offset in the tile, `wait` whether threads wait,
/// `arrive` whether thread 0 arrives.
/// A kernel whose thread 0 loads a box by TMA into `tile` (at byte `dst`),
/// expecting its bytes at an mbarrier (`arrive`) that every thread waits
/// for (`wait`, twice) before each stores its element of the box; with
/// `reload`, thread 0 then loads the box again into the same tile,
/// completing a second mbarrier all wait for, after a bar.sync (2) or with
/// nothing that orders the other threads' reads before the load (1).
std::string tmaKernel(int dst = 0, bool wait = true, bool arrive = true,
                      int reload = 0) {
  std::string waitAsm = R"(
  {
  .reg .pred       P1;
  LAB_WAIT:
  mbarrier.try_wait.parity.shared.b64 P1, [%r4], %r5, %r6;
  @P1 bra.uni DONE;
  bra.uni     LAB_WAIT;
  DONE:
  }
)";
  return std::string(R"(
.visible .entry k(.param .u64 map, .param .u64 out)
{
  .reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<10>; .reg .b64 %rd<12>;
  .shared .align 128 .b8 tile[192];
  .shared .align 8 .b8 bar[8];
  .shared .align 8 .b8 bar2[8];
  ld.param.u64 %rd1, [map];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, 1;
  @%p1 mbarrier.init.shared.b64 [bar], %r2;
  @%p1 mbarrier.init.shared.b64 [bar2], %r2;
  @%p1 fence.mbarrier_init.release.cluster;
  bar.sync 0;
  mov.u32 %r3, 64;
)") +
         (arrive ? "  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], "
                   "%r3;\n"
                 : "") +
         R"(
  mov.u64 %rd4, tile;
  add.u64 %rd4, %rd4, )" +
         std::to_string(dst) + R"(;
  cvta.shared.u64 %rd5, %rd4;
  cvta.to.shared::cluster.u64 %rd6, %rd5;
  mov.u32 %r7, 8;
  mov.u32 %r8, 4;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd6], [%rd1, {%r7, %r8}], [bar];
  mov.u32 %r4, bar;
  mov.u32 %r5, 0;
  mov.u32 %r6, 1000;
)" +
         (wait ? waitAsm + "  add.u64 %rd2, %rd2, 64;\n" + waitAsm
               : std::string("  add.u64 %rd2, %rd2, 64;\n")) +
         R"(
  mov.u32 %r9, tile;
  mul.wide.u32 %rd7, %r1, 2;
  cvt.u64.u32 %rd8, %r9;
  add.u64 %rd8, %rd8, %rd7;
  cvt.u32.u64 %r9, %rd8;
  ld.shared.u16 %rs1, [%r9];
  add.u64 %rd9, %rd2, %rd7;
  st.global.u16 [%rd9], %rs1;
)" + (reload == 2 ? "  bar.sync 0;\n" : "") +
         (reload ? "  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, "
                   "[bar2], %r3;\n  @%p1 cp.async.bulk.tensor.2d.shared::"
                   "cluster.global.tile.mbarrier::complete_tx::bytes [%rd6], "
                   "[%rd1, {%r7, %r8}], [bar2];\n  mov.u32 %r4, bar2;\n" +
                       waitAsm
                 : std::string()) +
         R"(
  ret;
}
)";
}

// TMA: cp.async.bulk.tensor loads a box of the tensor a map describes into
// shared memory (elements past the tensor's end as zeros), completing the
// bytes thread 0 expected at the mbarrier; try_wait.parity waits for the
// phase. Loads land at issue in odd blocks, at the wait in even ones (a
// read before it reads what was there: both blocks give the box here). A
// destination not 128-byte aligned, a phase nothing completes and loads
// nobody waits for fail.
TEST(PtxInterpreterTest, LoadsBoxesByTma) {
  // A 6 x 12 tensor of 16-bit elements, rows 32 bytes apart.
  std::vector<uint16_t> tensor;
  alignas(64) FakeTensorMap map = tensorMapOf(tensor, 6, 12, 8, 4);
  std::vector<uint16_t> want(64, 7), out(64);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x)
      want[32 + y * 8 + x] = 8 + x < 12 && 4 + y < 6
                                 ? static_cast<uint16_t>(100 * (4 + y) + 8 + x)
                                 : 0;
  auto module = parse(tmaKernel());
  ASSERT_TRUE(module);
  for (unsigned blocks : {1u, 2u}) {
    std::fill(out.begin(), out.end(), 7);
    EXPECT_EQ(launch(*module, "k", blocks, 32, {&map, out.data()}), "");
    EXPECT_EQ(out, want) << blocks << " blocks";
  }
  auto misaligned = parse(tmaKernel(/*dst=*/64));
  ASSERT_TRUE(misaligned);
  EXPECT_NE(launch(*misaligned, "k", 1, 32, {&map, out.data()})
                .find("which is not 128-byte aligned"),
            std::string::npos);
  auto unarrived = parse(tmaKernel(0, /*wait=*/true, /*arrive=*/false));
  ASSERT_TRUE(unarrived);
  EXPECT_NE(launch(*unarrived, "k", 1, 32, {&map, out.data()})
                .find("threads wait forever at an mbarrier"),
            std::string::npos);
  // Loads nobody waits for: with one thread, still in flight at the end;
  // with 32, the load also races with the others' reads of the tile.
  auto unwaited = parse(tmaKernel(0, /*wait=*/false));
  ASSERT_TRUE(unwaited);
  EXPECT_NE(launch(*unwaited, "k", 1, 1, {&map, out.data()})
                .find("TMA loads still in flight when the block ends"),
            std::string::npos);
  EXPECT_NE(launch(*unwaited, "k", 1, 32, {&map, out.data()})
                .find("a data race on shared memory at offset 2: a TMA load "
                      "(agent 0) writes (line 29) what thread 1 read (line "
                      "40)"),
            std::string::npos);
  // A load into a tile other threads read with nothing ordering their
  // reads before it races with them (SharedRaces.h); a bar.sync before it
  // orders them.
  auto unsynced = parse(tmaKernel(0, true, true, /*reload=*/1));
  ASSERT_TRUE(unsynced);
  std::string error = launch(*unsynced, "k", 1, 32, {&map, out.data()});
  EXPECT_NE(error.find("a data race on shared memory at offset "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("a TMA load (agent 1)"), std::string::npos) << error;
  auto synced = parse(tmaKernel(0, true, true, /*reload=*/2));
  ASSERT_TRUE(synced);
  EXPECT_EQ(launch(*synced, "k", 2, 32, {&map, out.data()}), "");
  // Not a map the stand-in encoded.
  alignas(64) FakeTensorMap garbage;
  EXPECT_NE(launch(*module, "k", 1, 32, {&garbage, out.data()})
                .find("expected the address of a 2-dimensional tensor map"),
            std::string::npos);
}

// A swizzled tensor map's box lands with the 16-byte chunks of each
// 128-byte line of shared memory XORed with the line's number (as many
// bits as a row has chunks): a box of 8 rows of 16 halves (32-byte rows,
// four a line) with a 32-byte swizzle keeps lines 0 (rows 0 to 3) as they
// are and swaps the two halves of each row of line 1 (rows 4 to 7). The
// box must start a repetition of the pattern (8 rows: 256 bytes).
TEST(PtxInterpreterTest, SwizzlesTmaBoxes) {
  auto kernel = [](int dst) {
    return R"(
.visible .entry k(.param .u64 map, .param .u64 out)
{
  .reg .pred %p<3>; .reg .b16 %rs<2>; .reg .b32 %r<10>; .reg .b64 %rd<12>;
  .shared .align 1024 .b8 tile[512];
  .shared .align 8 .b8 bar[8];
  ld.param.u64 %rd1, [map];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, 1;
  @%p1 mbarrier.init.shared.b64 [bar], %r2;
  @%p1 fence.mbarrier_init.release.cluster;
  bar.sync 0;
  mov.u32 %r3, 256;
  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], %r3;
  mov.u64 %rd4, tile;
  add.u64 %rd4, %rd4, )" +
           std::to_string(dst) + R"(;
  cvta.shared.u64 %rd5, %rd4;
  cvta.to.shared::cluster.u64 %rd6, %rd5;
  mov.u32 %r7, 0;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd6], [%rd1, {%r7, %r7}], [bar];
  mov.u32 %r4, bar;
  mov.u32 %r5, 0;
  mov.u32 %r6, 1000;
LAB_WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r4], %r5, %r6;
  @!%p2 bra.uni LAB_WAIT;
  mov.u32 %r9, tile;
  mul.wide.u32 %rd7, %r1, 2;
  cvt.u64.u32 %rd8, %r9;
  add.u64 %rd8, %rd8, %rd7;
  cvt.u32.u64 %r9, %rd8;
  ld.shared.u16 %rs1, [%r9];
  add.u64 %rd9, %rd2, %rd7;
  st.global.u16 [%rd9], %rs1;
  ret;
}
)";
  };
  // A 8 x 16 tensor of 16-bit elements.
  std::vector<uint16_t> tensor;
  alignas(64) FakeTensorMap map = tensorMapOf(tensor, 8, 16, 16, 8);
  map.swizzleBytes = 32;
  std::vector<uint16_t> want(128), out(128);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 16; ++x)
      want[y * 16 + (y < 4 ? x : (x + 8) % 16)] = tensor[y * 16 + x];
  auto module = parse(kernel(0));
  ASSERT_TRUE(module);
  for (unsigned blocks : {1u, 2u}) {
    std::fill(out.begin(), out.end(), 7);
    EXPECT_EQ(launch(*module, "k", blocks, 128, {&map, out.data()}), "");
    EXPECT_EQ(out, want) << blocks << " blocks";
  }
  auto misaligned = parse(kernel(128));
  ASSERT_TRUE(misaligned);
  EXPECT_NE(launch(*misaligned, "k", 1, 128, {&map, out.data()})
                .find("which is not 256-byte aligned"),
            std::string::npos);
}

// TF32 (m16n8k8): A's element of register r at row groupID (+ 8 for odd
// r), column t (+ 4 for r >= 2); B's at row t (+ 4 for the second),
// column groupID; the 13 lowest bits of each operand ignored.
TEST(PtxInterpreterTest, MultipliesTf32OnTensorCores) {
  auto module = parse(mmaKernel("tf32", "m16n8k8"));
  ASSERT_TRUE(module);
  float a[16][8], b[8][8];
  for (int m = 0; m < 16; ++m)
    for (int k = 0; k < 8; ++k)
      a[m][k] = static_cast<float>((m * 5 + k * 3) % 7 - 3) * 0.25f;
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 8; ++n)
      b[k][n] = static_cast<float>((k * 3 + n * 5) % 9 - 4);
  auto bits = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u | 0xFFFu; // below TF32's precision: ignored
  };
  std::vector<uint32_t> aw(32 * 4), bw(32 * 2);
  std::vector<float> cw(32 * 4, 1.0f), dw(32 * 4, -1.0f);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; ++r)
      aw[lane * 4 + r] = bits(a[g + 8 * (r % 2)][t + 4 * (r / 2)]);
    for (int r = 0; r < 2; ++r)
      bw[lane * 2 + r] = bits(b[t + 4 * r][g]);
  }
  EXPECT_EQ(
      launch(*module, "k", 1, 32, {aw.data(), bw.data(), cw.data(), dw.data()}),
      "");
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      int row = lane / 4 + (i >= 2 ? 8 : 0), col = lane % 4 * 2 + (i & 1);
      float want = 1.0f;
      for (int k = 0; k < 8; ++k)
        want += a[row][k] * b[k][col];
      EXPECT_EQ(dw[lane * 4 + i], want) << "lane " << lane << " element " << i;
    }
}
