//===- NpuSimulatorTest.cpp - the NPU simulator ---------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Hand-written npu-programs (docs/NPU.md) run through the parser and the
// simulator directly: fp16 rounding, every vector function, GEMMs on the
// fractal layouts checked against fp16-rounded references, double buffering
// with flags, the timing formulas, and the checks (races, deadlocks, bounds,
// malformed programs); then the device's profile and trace through the C
// API.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"
#include "TestBackends.h"
#include "ms/runtime/Runtime.h"
#include "npu/Float16.h"
#include "npu/NpuProgram.h"
#include "npu/Simulator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace ms::test;
using Json = nlohmann::json;
namespace npu = ms::rt::impl::npu;

namespace {
//===----------------------------------------------------------------------===//
// Program builders
//===----------------------------------------------------------------------===//

/// A view of `mem` at byte offset `off` (an expression).
Json view(const char *mem, Json off, const char *dtype, Json strides) {
  return {{"mem", mem},
          {"off", std::move(off)},
          {"dtype", dtype},
          {"strides", std::move(strides)}};
}

/// A view of GM argument `arg`.
Json gm(int arg, Json off, const char *dtype, Json strides) {
  Json out = view("gm", std::move(off), dtype, std::move(strides));
  out["buf"] = {"arg", arg};
  return out;
}

/// A dma of `shape` from `src` to `dst`.
Json dma(Json src, Json dst, Json shape) {
  return {{"op", "dma"},
          {"src", std::move(src)},
          {"dst", std::move(dst)},
          {"shape", std::move(shape)}};
}

/// An mmad of fractal matrices at offset 0 of L0A, L0B and L0C.
Json mmad(Json m, Json k, Json n, const char *dtype, bool init = true) {
  return {{"op", "mmad"}, {"a", 0}, {"b", 0},         {"c", 0},      {"m", m},
          {"k", k},       {"n", n}, {"dtype", dtype}, {"init", init}};
}

/// A set_flag or wait_flag.
Json flag(const char *op, const char *src, const char *dst, int id = 0) {
  return {{"op", op}, {"src", src}, {"dst", dst}, {"id", id}};
}

/// Appends set_flag(src, dst) and wait_flag(src, dst) to `body`.
void sync(Json &body, const char *src, const char *dst) {
  body.push_back(flag("set_flag", src, dst));
  body.push_back(flag("wait_flag", src, dst));
}

/// A vec instruction over [rows, cols] with row-major 2-d views.
Json vec(const char *fn, Json dst, Json a, Json b, int64_t rows, int64_t cols) {
  Json instr = {{"op", "vec"},
                {"fn", fn},
                {"shape", {rows, cols}},
                {"dst", std::move(dst)}};
  if (!a.is_null())
    instr["a"] = std::move(a);
  if (b.is_number())
    instr["scalar"] = b;
  else if (!b.is_null())
    instr["b"] = std::move(b);
  return instr;
}

/// A loop.
Json loop(Json count, Json body) {
  return {
      {"op", "loop"}, {"count", std::move(count)}, {"body", std::move(body)}};
}

/// A program with one kernel "k" of one step, `body`.
Json program(int cores, Json args, Json body, Json config = Json::object(),
             Json scratch = Json::array()) {
  Json kernel = {{"cores", cores},
                 {"args", std::move(args)},
                 {"scratch", std::move(scratch)},
                 {"steps", Json::array({std::move(body)})}};
  return {{"version", 1},
          {"config", std::move(config)},
          {"kernels", {{"k", std::move(kernel)}}}};
}

/// Parses `json` into `out`.
ms::rt::Status parse(const Json &json, npu::Program &out) {
  std::string text = json.dump();
  return npu::parseProgram("test", text.data(), text.size(), out);
}

/// Runs kernel "k" of `json` on `buffers`; sets `stats` and `trace` when
/// given.
ms::rt::Status simulate(const Json &json, std::vector<void *> buffers,
                        npu::LaunchStats *stats = nullptr,
                        npu::TraceSink *trace = nullptr) {
  npu::Program parsed;
  ms::rt::Status status = parse(json, parsed);
  if (!status.ok())
    return status;
  npu::LaunchStats local;
  return npu::simulate(parsed.config, parsed.kernels.at("k"), buffers.data(),
                       buffers.size(), stats ? *stats : local, trace);
}

/// Expects `status` to fail with `text` in its message.
void expectError(const ms::rt::Status &status, const std::string &text) {
  ASSERT_FALSE(status.ok()) << "expected an error with: " << text;
  EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
      << "expected \"" << text << "\" in: " << status.message();
}

/// Returns `value` rounded to fp16 and back.
float roundHalf(float value) {
  return npu::halfToFloat(npu::floatToHalf(value));
}

/// Returns `count` deterministic floats in [-1, 1).
std::vector<float> randomFloats(size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &value : values)
    value = uniform(engine);
  return values;
}

//===----------------------------------------------------------------------===//
// fp16 and bf16
//===----------------------------------------------------------------------===//

TEST(NpuFloat16, RoundsToNearestEven) {
  struct Case {
    float value;
    uint16_t half;
  };
  const Case cases[] = {
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      // Halfway between 1 and 1 + 2^-10: to even (1).
      {1.0f + 0x1p-11f, 0x3c00},
      // Halfway between 1 + 2^-10 and 1 + 2^-9: to even (up).
      {1.0f + 3 * 0x1p-11f, 0x3c02},
      // Just above halfway rounds up.
      {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01},
      {65504.0f, 0x7bff},
      // Below the midpoint to 65536 stays finite; the midpoint overflows.
      {65519.996f, 0x7bff},
      {65520.0f, 0x7c00},
      {1e10f, 0x7c00},
      {-1e10f, 0xfc00},
      {INFINITY, 0x7c00},
      // The smallest normal, subnormals, and the underflow midpoint.
      {0x1p-14f, 0x0400},
      {0x1p-24f, 0x0001},
      {0x1p-25f, 0x0000},
      {0x1.8p-25f, 0x0001},
      {0x1p-26f, 0x0000},
      {3 * 0x1p-25f, 0x0002},
      {5 * 0x1p-25f, 0x0002},
      {0x3ffp-24f, 0x03ff},
      // A subnormal that rounds up into the normals.
      {0x1p-14f - 0x1p-26f, 0x0400},
  };
  for (const Case &c : cases)
    EXPECT_EQ(npu::floatToHalf(c.value), c.half) << c.value;
  EXPECT_TRUE(std::isnan(npu::halfToFloat(npu::floatToHalf(NAN))));
  EXPECT_EQ(npu::halfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(npu::halfToFloat(0xfbff), -65504.0f);
  // Every half survives a round trip through fp32.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t half = uint16_t(bits);
    float value = npu::halfToFloat(half);
    if (std::isnan(value))
      continue;
    ASSERT_EQ(npu::floatToHalf(value), half) << std::hex << bits;
  }
}

TEST(NpuFloat16, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(npu::floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(npu::floatToBf16(1.0f + 0x1p-8f), 0x3f80);     // tie to even
  EXPECT_EQ(npu::floatToBf16(1.0f + 3 * 0x1p-8f), 0x3f82); // tie to even
  EXPECT_EQ(npu::floatToBf16(3.4e38f), 0x7f80);            // overflow
  EXPECT_TRUE(std::isnan(npu::bf16ToFloat(npu::floatToBf16(NAN))));
  EXPECT_EQ(npu::bf16ToFloat(0x4049), 3.140625f);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

/// A valid one-dma program: 16 f32 from GM arg 0 to UB.
Json oneDma() {
  return program(1, {64},
                 {dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {16})});
}

TEST(NpuProgram, ReadsConfigAndKernels) {
  npu::Program parsed;
  Json json = oneDma();
  json["config"] = {{"cores", 4}, {"mte2LatencyCycles", 7}};
  ASSERT_TRUE(parse(json, parsed).ok());
  EXPECT_EQ(parsed.config.cores, 4);
  EXPECT_EQ(parsed.config.mte2LatencyCycles, 7);
  EXPECT_EQ(parsed.config.ubBytes, npu::NpuConfig().ubBytes) << "a default";
  const npu::Kernel &kernel = parsed.kernels.at("k");
  ASSERT_EQ(kernel.steps.size(), 1u);
  ASSERT_EQ(kernel.steps[0].size(), 1u);
  const npu::Instr &instr = kernel.steps[0][0];
  EXPECT_EQ(instr.kind, npu::OpKind::Dma);
  EXPECT_EQ(instr.pipe, npu::Pipe::MTE2);
  EXPECT_EQ(instr.path, "steps[0][0]");
}

TEST(NpuProgram, RejectsMalformedPrograms) {
  npu::Program parsed;
  std::string junk = "{\"version\": 1, ";
  expectError(npu::parseProgram("m.msm", junk.data(), junk.size(), parsed),
              "m.msm: not valid JSON");

  // Each mutation of the valid program, and the message it must give.
  struct Case {
    void (*mutate)(Json &);
    const char *message;
  };
  const Case cases[] = {
      {[](Json &j) { j["version"] = 2; }, "test: expected version 1, found 2"},
      {[](Json &j) { j.erase("kernels"); }, "test: missing 'kernels'"},
      {[](Json &j) { j["config"]["l3Bytes"] = 1; },
       "'config': unknown field 'l3Bytes'"},
      {[](Json &j) { j["config"]["cores"] = 0; },
       "'config.cores': expected an integer in [1, 64], found 0"},
      {[](Json &j) { j["kernels"]["k"]["cores"] = 3; },
       "kernel 'k': 'cores' (at most config.cores): expected an integer in "
       "[1, 2], found 3"},
      {[](Json &j) { j["kernels"]["k"].erase("args"); },
       "kernel 'k': missing 'args'"},
      {[](Json &j) { j["kernels"]["k"]["steps"][0][0]["op"] = "dmaa"; },
       "kernel 'k': steps[0][0]: unknown op \"dmaa\""},
      {[](Json &j) { j["kernels"]["k"]["steps"][0][0].erase("shape"); },
       "kernel 'k': steps[0][0] (dma): missing 'shape'"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0][0]["shape"] = {1, 1, 1, 1, 16};
       },
       "steps[0][0] (dma): 'shape': expected 1 to 4 dimensions"},
      {[](Json &j) { j["kernels"]["k"]["steps"][0][0]["shape"] = {-16}; },
       "steps[0][0] (dma): 'shape[0]': expected an extent >= 0, found -16"},
      {[](Json &j) { j["kernels"]["k"]["steps"][0][0]["src"]["mem"] = "l2"; },
       "steps[0][0] (dma): 'src': unknown memory \"l2\""},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0][0]["dst"]["dtype"] = "f64";
       },
       "steps[0][0] (dma): 'dst'.dtype: unknown dtype \"f64\""},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0][0]["dst"]["dtype"] = "s32";
       },
       "steps[0][0] (dma): cannot convert f32 to s32 (a dma converts only "
       "between f32, f16 and bf16, from gm)"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0][0]["src"]["strides"] = {1, 1};
       },
       "steps[0][0] (dma): 'src'.strides: expected 1 strides"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0][0]["src"]["buf"] = {"arg", 1};
       },
       "steps[0][0] (dma): 'src'.buf arg index: expected an integer in [0, 0]"},
      {[](Json &j) { j["kernels"]["k"]["steps"][0][0]["src"].erase("buf"); },
       "steps[0][0] (dma): 'src': a gm view needs 'buf'"},
      {[](Json &j) { j["kernels"]["k"]["steps"][0][0]["src"]["mem"] = "l1"; },
       "steps[0][0] (dma): 'src': 'buf' names a gm buffer, but the view is in "
       "l1"},
      {[](Json &j) { j["kernels"]["k"]["steps"][0][0]["dst"]["mem"] = "l0c"; },
       "steps[0][0] (dma): cannot copy from gm to l0c"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0][0]["src"]["off"] = {{"t", {{0, 4}}}};
       },
       "'src'.off.t[0] level (-1 is the core id): expected an integer in "
       "[-1, -1], found 0"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0][0]["src"]["off"] = {{"q", 1}};
       },
       "'src'.off: unknown expression key 'q'"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] = {
             loop(2, {flag("set_flag", "v", "v")})};
       },
       "kernel 'k': steps[0][0].body[0] (set_flag): 'src' and 'dst' are both "
       "v"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] = {flag("wait_flag", "mte2", "vv")};
       },
       "steps[0][0] (wait_flag): 'dst': unknown pipe \"vv\""},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] = {flag("set_flag", "mte2", "v", 16)};
       },
       "steps[0][0] (set_flag): 'id': expected an integer in [0, 15], found "
       "16"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] =
             Json::array({mmad(16, 16, 16, "s8", false)});
       },
       "steps[0][0] (mmad): expected m and n to be multiples of 16 and k of "
       "32"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] =
             Json::array({mmad(16, 12, 16, "f32", false)});
       },
       "steps[0][0] (mmad): expected m and n to be multiples of 16 and k of "
       "8 (f32)"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] =
             Json::array({mmad(16, 16, 16, "s32", false)});
       },
       "steps[0][0] (mmad): 'dtype': expected f16, bf16, f32 or s8, found "
       "s32"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] = {
             vec("expm1", view("ub", 0, "f32", {16, 1}),
                 view("ub", 64, "f32", {16, 1}), Json(), 1, 16)};
       },
       "steps[0][0] (vec): 'fn': unknown vec function \"expm1\""},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] = {
             vec("exp", view("ub", 0, "s32", {16, 1}),
                 view("ub", 64, "s32", {16, 1}), Json(), 1, 16)};
       },
       "steps[0][0] (vec): 'exp' expects float operands"},
      {[](Json &j) {
         j["kernels"]["k"]["steps"][0] = {
             vec("add", view("ub", 0, "f32", {16, 1}),
                 view("ub", 64, "f32", {16, 1}), Json(), 1, 16)};
       },
       "steps[0][0] (vec): expected exactly one of 'b' and 'scalar'"},
  };
  for (const Case &c : cases) {
    Json json = oneDma();
    json["config"] = {{"cores", 2}};
    c.mutate(json);
    expectError(parse(json, parsed), c.message);
  }
}

//===----------------------------------------------------------------------===//
// GEMM on the cube
//===----------------------------------------------------------------------===//

/// The body of C = A B (A: M x K, B: K x N, f32 row-major in GM args 0, 1;
/// C: f32 or f16 in arg 2) in one step per core, the cores splitting M:
/// MTE2 converts A and B to fractals of `cubeType` (f16, bf16 or f32: a
/// fractal row is 32 bytes, k0 elements) in L1 with 4-d strided copies,
/// MTE1 moves them to L0A / L0B, the cube multiplies, the fixpipe stores.
/// `flags` false leaves out the mte2 -> mte1 synchronization.
Json gemmBody(int64_t M, int64_t K, int64_t N, int cores,
              const char *cType = "f32", bool relu = false, bool flags = true,
              const char *cubeType = "f16") {
  int64_t mc = M / cores;
  int64_t size = std::string(cubeType) == "f32" ? 4 : 2, k0 = 32 / size;
  int64_t aBytes = mc * K * size;
  Json body = Json::array();
  Json aRow = {{"t", {{-1, mc * K * 4}}}};
  // A (mc x K) -> [mc/16][K/k0] fractals of 16 x k0.
  body.push_back(
      dma(gm(0, aRow, "f32", {16 * K, k0, K, 1}),
          view("l1", 0, cubeType, {(K / k0) * 16 * k0, 16 * k0, k0, 1}),
          {mc / 16, K / k0, 16, k0}));
  // B (K x N) -> [K/k0][N/16] fractals of k0 x 16.
  body.push_back(
      dma(gm(1, 0, "f32", {k0 * N, 16, N, 1}),
          view("l1", aBytes, cubeType, {(N / 16) * k0 * 16, k0 * 16, 16, 1}),
          {K / k0, N / 16, k0, 16}));
  if (flags)
    sync(body, "mte2", "mte1");
  body.push_back(dma(view("l1", 0, cubeType, {1}),
                     view("l0a", 0, cubeType, {1}), {mc * K}));
  body.push_back(dma(view("l1", aBytes, cubeType, {1}),
                     view("l0b", 0, cubeType, {1}), {K * N}));
  sync(body, "mte1", "m");
  body.push_back(mmad(mc, K, N, cubeType));
  sync(body, "m", "fix");
  int64_t cSize = std::string(cType) == "f16" ? 2 : 4;
  body.push_back(
      {{"op", "fixpipe"},
       {"src", 0},
       {"m", mc},
       {"n", N},
       {"rows", mc},
       {"cols", N},
       {"relu", relu},
       {"dst", gm(2, {{"t", {{-1, mc * N * cSize}}}}, cType, {N, 1})}});
  return body;
}

/// The reference of C = A B in double from the inputs as `round` gives
/// them to the cube, and the bound on an fp32 accumulation's error:
/// gamma_K' * sum |a b| (Higham) with unit roundoff 2^-24, K' = K terms
/// summed (products of fp16 or bf16 are exact in fp32), K + 1 when each
/// product rounds too (fp32 inputs).
void gemmReference(const std::vector<float> &a, const std::vector<float> &b,
                   int64_t M, int64_t K, int64_t N, std::vector<double> &ref,
                   std::vector<double> &bound,
                   float (*round)(float) = roundHalf,
                   bool roundedProducts = false) {
  double u = std::ldexp(1.0, -24);
  int64_t terms = roundedProducts ? K + 1 : K;
  double gamma = terms * u / (1 - terms * u);
  ref.assign(size_t(M * N), 0);
  bound.assign(size_t(M * N), 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t k = 0; k < K; ++k) {
        double product = double(round(a[size_t(i * K + k)])) *
                         double(round(b[size_t(k * N + j)]));
        sum += product;
        magnitude += std::fabs(product);
      }
      ref[size_t(i * N + j)] = sum;
      bound[size_t(i * N + j)] = gamma * magnitude;
    }
}

TEST(NpuSimulator, RunsGemmOnFractalLayouts) {
  constexpr int64_t M = 32, K = 32, N = 32;
  std::vector<float> a = randomFloats(M * K, 1), b = randomFloats(K * N, 2);
  std::vector<float> c(M * N, -1.0f);
  std::vector<double> ref, bound;
  gemmReference(a, b, M, K, N, ref, bound);
  for (int cores : {1, 2}) {
    Json json = program(cores, {M * K * 4, K * N * 4, M * N * 4},
                        gemmBody(M, K, N, cores), {{"cores", 2}});
    npu::LaunchStats stats;
    ms::rt::Status status =
        simulate(json, {a.data(), b.data(), c.data()}, &stats);
    ASSERT_TRUE(status.ok()) << status.message();
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_LE(std::fabs(double(c[i]) - ref[i]), bound[i]) << i;
    EXPECT_EQ(stats.instructions[size_t(npu::OpKind::Mmad)], cores);
    EXPECT_GT(stats.busy[size_t(npu::Pipe::M)], 0);
  }
  // The inputs really are rounded to fp16: with fp32 inputs, most results
  // would lie outside the accumulation bound.
  int outside = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double exact = 0;
      for (int64_t k = 0; k < K; ++k)
        exact += double(a[size_t(i * K + k)]) * double(b[size_t(k * N + j)]);
      outside += std::fabs(double(c[size_t(i * N + j)]) - exact) >
                 bound[size_t(i * N + j)];
    }
  EXPECT_GT(outside, M * N / 2);
}

TEST(NpuSimulator, RunsBf16AndF32Gemms) {
  // bf16: 16x16 fractals, inputs rounded to bfloat16, products exact in
  // fp32. f32: 16x8 and 8x16 fractals, the inputs as they are, each
  // product rounded to fp32.
  constexpr int64_t M = 32, K = 48, N = 32;
  std::vector<float> a = randomFloats(M * K, 5), b = randomFloats(K * N, 6);
  auto roundBf16 = [](float x) {
    return npu::bf16ToFloat(npu::floatToBf16(x));
  };
  auto same = [](float x) { return x; };
  struct Case {
    const char *type;
    float (*round)(float);
  } cases[] = {{"bf16", roundBf16}, {"f32", same}};
  for (const Case &test : cases) {
    std::vector<float> c(M * N, -1.0f);
    std::vector<double> ref, bound;
    bool f32 = std::string(test.type) == "f32";
    gemmReference(a, b, M, K, N, ref, bound, test.round, f32);
    Json json = program(2, {M * K * 4, K * N * 4, M * N * 4},
                        gemmBody(M, K, N, 2, "f32", false, true, test.type),
                        {{"cores", 2}});
    ms::rt::Status status = simulate(json, {a.data(), b.data(), c.data()});
    ASSERT_TRUE(status.ok()) << test.type << ": " << status.message();
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_LE(std::fabs(double(c[i]) - ref[i]), bound[i])
          << test.type << " " << i;
    // bf16 really rounds the inputs: most results lie outside the bound
    // around the exact product of the fp32 inputs.
    if (!f32) {
      std::vector<double> exact, exactBound;
      gemmReference(a, b, M, K, N, exact, exactBound, same, true);
      int outside = 0;
      for (size_t i = 0; i < c.size(); ++i)
        outside += std::fabs(double(c[i]) - exact[i]) > exactBound[i];
      EXPECT_GT(outside, M * N / 2);
    }
  }
}

TEST(NpuSimulator, FixpipeCastsToHalfWithRelu) {
  constexpr int64_t M = 32, K = 32, N = 48;
  std::vector<float> a = randomFloats(M * K, 3), b = randomFloats(K * N, 4);
  std::vector<uint16_t> c(M * N);
  std::vector<double> ref, bound;
  gemmReference(a, b, M, K, N, ref, bound);
  Json json = program(1, {M * K * 4, K * N * 4, M * N * 2},
                      gemmBody(M, K, N, 1, "f16", /*relu=*/true));
  ms::rt::Status status = simulate(json, {a.data(), b.data(), c.data()});
  ASSERT_TRUE(status.ok()) << status.message();
  for (size_t i = 0; i < c.size(); ++i) {
    double expected = std::max(ref[i], 0.0);
    // Within the fp32 bound before the cast, then one fp16 rounding (half
    // an ulp: 2^-11 relative, 2^-25 absolute among the subnormals).
    double tolerance = bound[i] +
                       (std::fabs(expected) + bound[i]) * std::ldexp(1.0, -11) +
                       std::ldexp(1.0, -25);
    ASSERT_LE(std::fabs(double(npu::halfToFloat(c[i])) - expected), tolerance)
        << i;
  }
}

TEST(NpuSimulator, RunsInt8GemmWithInt32Accumulators) {
  constexpr int64_t M = 16, K = 64, N = 32;
  std::vector<int8_t> a(M * K), b(K * N);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = int8_t(int(i * 37 % 255) - 127);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = int8_t(int(i * 91 % 255) - 127);
  std::vector<int32_t> c(M * N);
  // Fractals of 16 x 32 (A) and 32 x 16 (B): k0 = 32 for int8.
  Json body = Json::array();
  body.push_back(dma(gm(0, 0, "s8", {16 * K, 32, K, 1}),
                     view("l1", 0, "s8", {(K / 32) * 512, 512, 32, 1}),
                     {M / 16, K / 32, 16, 32}));
  body.push_back(dma(gm(1, 0, "s8", {32 * N, 16, N, 1}),
                     view("l1", 4096, "s8", {(N / 16) * 512, 512, 16, 1}),
                     {K / 32, N / 16, 32, 16}));
  sync(body, "mte2", "mte1");
  body.push_back(
      dma(view("l1", 0, "s8", {1}), view("l0a", 0, "s8", {1}), {M * K}));
  body.push_back(
      dma(view("l1", 4096, "s8", {1}), view("l0b", 0, "s8", {1}), {K * N}));
  sync(body, "mte1", "m");
  body.push_back(mmad(M, K, N, "s8"));
  sync(body, "m", "fix");
  body.push_back({{"op", "fixpipe"},
                  {"src", 0},
                  {"m", M},
                  {"n", N},
                  {"rows", M},
                  {"cols", N},
                  {"dst", gm(2, 0, "s32", {N, 1})}});
  ms::rt::Status status = simulate(program(1, {M * K, K * N, M * N * 4}, body),
                                   {a.data(), b.data(), c.data()});
  ASSERT_TRUE(status.ok()) << status.message();
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int32_t expected = 0;
      for (int64_t k = 0; k < K; ++k)
        expected += int32_t(a[size_t(i * K + k)]) * b[size_t(k * N + j)];
      ASSERT_EQ(c[size_t(i * N + j)], expected) << i << ", " << j;
    }
}

/// A tiled GEMM (f32 in GM, tiles of tm x tn, k steps of tk) with loops:
/// the cores take turns over tile rows; the first k step of each tile is
/// peeled (mmad init); flags order L1, L0 and L0C between the pipes.
Json tiledGemm(int64_t M, int64_t K, int64_t N, int cores) {
  const int64_t tm = 128, tn = 128, tk = 64, aBytes = tm * tk * 2;
  // Loop levels: 0 tile rows (per core), 1 tile columns, 2 k steps.
  Json aRow = {{"t", {{0, cores * tm * K * 4}, {-1, tm * K * 4}}}};
  auto kStep = [&](bool init) {
    // The k step: 0 when peeled, else 1 + iv(2).
    Json kA = aRow, kB = {{"t", {{1, tn * 4}}}};
    if (!init) {
      kA["c"] = tk * 4;
      kA["t"].push_back({2, tk * 4});
      kB["c"] = tk * N * 4;
      kB["t"].push_back({2, tk * N * 4});
    }
    Json body = Json::array();
    body.push_back(flag("wait_flag", "mte1", "mte2"));
    body.push_back(dma(gm(0, kA, "f32", {16 * K, 16, K, 1}),
                       view("l1", 0, "f16", {(tk / 16) * 256, 256, 16, 1}),
                       {tm / 16, tk / 16, 16, 16}));
    body.push_back(dma(gm(1, kB, "f32", {16 * N, 16, N, 1}),
                       view("l1", aBytes, "f16", {(tn / 16) * 256, 256, 16, 1}),
                       {tk / 16, tn / 16, 16, 16}));
    sync(body, "mte2", "mte1");
    body.push_back(flag("wait_flag", "m", "mte1"));
    body.push_back(
        dma(view("l1", 0, "f16", {1}), view("l0a", 0, "f16", {1}), {tm * tk}));
    body.push_back(dma(view("l1", aBytes, "f16", {1}),
                       view("l0b", 0, "f16", {1}), {tk * tn}));
    body.push_back(flag("set_flag", "mte1", "mte2"));
    sync(body, "mte1", "m");
    if (init)
      body.push_back(flag("wait_flag", "fix", "m"));
    body.push_back(mmad(tm, tk, tn, "f16", init));
    body.push_back(flag("set_flag", "m", "mte1"));
    return body;
  };
  Json tile = kStep(true);
  tile.push_back(loop(K / tk - 1, kStep(false)));
  sync(tile, "m", "fix");
  Json cOffset = {
      {"t", {{0, cores * tm * N * 4}, {-1, tm * N * 4}, {1, tn * 4}}}};
  tile.push_back({{"op", "fixpipe"},
                  {"src", 0},
                  {"m", tm},
                  {"n", tn},
                  {"rows", tm},
                  {"cols", tn},
                  {"dst", gm(2, cOffset, "f32", {N, 1})}});
  tile.push_back(flag("set_flag", "fix", "m"));
  Json body = {flag("set_flag", "mte1", "mte2"),
               flag("set_flag", "m", "mte1"),
               flag("set_flag", "fix", "m"),
               loop(M / tm / cores, {loop(N / tn, tile)}),
               flag("wait_flag", "mte1", "mte2"),
               flag("wait_flag", "m", "mte1"),
               flag("wait_flag", "fix", "m")};
  return program(cores, {M * K * 4, K * N * 4, M * N * 4}, body,
                 {{"cores", cores}});
}

TEST(NpuSimulator, RunsTiledGemmWithLoopsAndFlags) {
  constexpr int64_t M = 256, K = 256, N = 256;
  std::vector<float> a = randomFloats(M * K, 5), b = randomFloats(K * N, 6);
  std::vector<float> c(M * N);
  npu::LaunchStats stats;
  auto start = std::chrono::steady_clock::now();
  ms::rt::Status status =
      simulate(tiledGemm(M, K, N, 2), {a.data(), b.data(), c.data()}, &stats);
  auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(status.ok()) << status.message();
  RecordProperty("simulation_seconds", std::to_string(seconds));
  // Sampled entries against the fp16-rounded reference.
  double u = std::ldexp(1.0, -24), gamma = K * u / (1 - K * u);
  for (int64_t sample = 0; sample < 200; ++sample) {
    int64_t i = sample * 97 % M, j = sample * 61 % N;
    double sum = 0, magnitude = 0;
    for (int64_t k = 0; k < K; ++k) {
      double product = double(roundHalf(a[size_t(i * K + k)])) *
                       double(roundHalf(b[size_t(k * N + j)]));
      sum += product;
      magnitude += std::fabs(product);
    }
    ASSERT_LE(std::fabs(double(c[size_t(i * N + j)]) - sum), gamma * magnitude)
        << i << ", " << j;
  }
  // Per core: one tile row, two tile columns, four k steps each.
  EXPECT_EQ(stats.instructions[size_t(npu::OpKind::Mmad)], 2 * 2 * 4);
  // The cube is busy at least for its fractals: 8 x 4 x 8 per mmad.
  EXPECT_GE(stats.busy[size_t(npu::Pipe::M)], 16 * 256);
}

//===----------------------------------------------------------------------===//
// The vector unit
//===----------------------------------------------------------------------===//

/// Runs vec `fn` over [2, 8] of `dtype` on x (and y, or `scalar`) from GM
/// f32 (converted on the way in for f16) and returns the result as f32.
std::vector<float> runVec(const char *fn, const char *dtype,
                          std::vector<float> x, std::vector<float> y,
                          Json scalar, const char *outType = nullptr) {
  // The inputs stay f32 in GM; for f16, MTE2 converts them on the way in.
  outType = outType ? outType : dtype;
  std::vector<uint8_t> out(16 * 4);
  Json body = Json::array();
  body.push_back(dma(gm(0, 0, "f32", {1}), view("ub", 0, dtype, {1}), {16}));
  body.push_back(dma(gm(1, 0, "f32", {1}), view("ub", 64, dtype, {1}), {16}));
  sync(body, "mte2", "v");
  Json b = scalar.is_null() ? view("ub", 64, dtype, {8, 1}) : scalar;
  body.push_back(
      vec(fn, view("ub", 128, outType, {8, 1}),
          std::string(fn) == "dup" ? Json() : view("ub", 0, dtype, {8, 1}), b,
          2, 8));
  sync(body, "v", "mte3");
  body.push_back(
      dma(view("ub", 128, outType, {1}), gm(2, 0, outType, {1}), {16}));
  ms::rt::Status status = simulate(program(1, {64, 64, 64}, body),
                                   {x.data(), y.data(), out.data()});
  EXPECT_TRUE(status.ok()) << fn << ": " << status.message();
  std::vector<float> result(16);
  for (size_t i = 0; i < 16; ++i) {
    if (std::string(outType) == "f16")
      result[i] = npu::halfToFloat(uint16_t(out[2 * i] | out[2 * i + 1] << 8));
    else if (std::string(outType) == "s32")
      result[i] = float(reinterpret_cast<const int32_t *>(out.data())[i]);
    else
      std::memcpy(&result[i], &out[4 * i], 4);
  }
  return result;
}

TEST(NpuSimulator, ComputesEveryVecFunction) {
  std::vector<float> x = randomFloats(16, 7), y = randomFloats(16, 8);
  for (float &value : y)
    value = value > 0 ? value + 0.5f : value - 0.5f; // no division by ~0
  std::vector<float> positive = x;
  for (float &value : positive)
    value = std::fabs(value) + 0.25f;
  struct Case {
    const char *fn;
    float (*reference)(float, float);
    bool positiveInput;
  };
  const Case cases[] = {
      {"copy", [](float a, float) { return a; }, false},
      {"exp", [](float a, float) { return std::exp(a); }, false},
      {"log", [](float a, float) { return std::log(a); }, true},
      {"sqrt", [](float a, float) { return std::sqrt(a); }, true},
      {"rsqrt", [](float a, float) { return 1.0f / std::sqrt(a); }, true},
      {"recip", [](float a, float) { return 1.0f / a; }, true},
      {"abs", [](float a, float) { return std::fabs(a); }, false},
      {"neg", [](float a, float) { return -a; }, false},
      {"relu", [](float a, float) { return a > 0 ? a : 0.0f; }, false},
      {"tanh", [](float a, float) { return std::tanh(a); }, false},
      {"erf", [](float a, float) { return std::erf(a); }, false},
      {"sigmoid", [](float a, float) { return 1 / (1 + std::exp(-a)); }, false},
      {"add", [](float a, float b) { return a + b; }, false},
      {"sub", [](float a, float b) { return a - b; }, false},
      {"mul", [](float a, float b) { return a * b; }, false},
      {"div", [](float a, float b) { return a / b; }, false},
      {"max", [](float a, float b) { return std::fmax(a, b); }, false},
      {"min", [](float a, float b) { return std::fmin(a, b); }, false},
  };
  for (const Case &c : cases) {
    const std::vector<float> &in = c.positiveInput ? positive : x;
    bool binary = std::string(c.fn) == "add" || std::string(c.fn) == "sub" ||
                  std::string(c.fn) == "mul" || std::string(c.fn) == "div" ||
                  std::string(c.fn) == "max" || std::string(c.fn) == "min";
    Json noScalar;
    // f32: exactly the fp32 result.
    std::vector<float> out = runVec(c.fn, "f32", in, y, noScalar);
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(out[i], c.reference(in[i], y[i])) << c.fn << " " << i;
    // f16: operands rounded on the way in, the fp32 result rounded once.
    out = runVec(c.fn, "f16", in, y, noScalar);
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(out[i],
                roundHalf(c.reference(roundHalf(in[i]), roundHalf(y[i]))))
          << c.fn << " f16 " << i;
    if (!binary)
      continue;
    // A scalar operand.
    out = runVec(c.fn, "f32", in, y, 0.75);
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(out[i], c.reference(in[i], 0.75f)) << c.fn << " scalar " << i;
  }
  std::vector<float> dup = runVec("dup", "f32", x, y, 2.5);
  EXPECT_EQ(dup, std::vector<float>(16, 2.5f));
}

TEST(NpuSimulator, CastsBoolBytesToMasksAndBack) {
  // Bool tensors are u8 bytes in GM: loaded as bytes, cast to an f32 mask,
  // negated as a mask (x != 1), cast back to bytes and stored.
  std::vector<uint8_t> in(16), out(16, 7);
  for (int i = 0; i < 16; ++i)
    in[i] = uint8_t(i % 3 == 0);
  Json body = Json::array();
  body.push_back(dma(gm(0, 0, "u8", {1}), view("ub", 0, "u8", {1}), {16}));
  sync(body, "mte2", "v");
  body.push_back(vec("cast", view("ub", 64, "f32", {8, 1}),
                     view("ub", 0, "u8", {8, 1}), Json(), 2, 8));
  body.push_back(vec("ne", view("ub", 128, "f32", {8, 1}),
                     view("ub", 64, "f32", {8, 1}), 1.0, 2, 8));
  body.push_back(vec("cast", view("ub", 192, "u8", {8, 1}),
                     view("ub", 128, "f32", {8, 1}), Json(), 2, 8));
  sync(body, "v", "mte3");
  body.push_back(dma(view("ub", 192, "u8", {1}), gm(1, 0, "u8", {1}), {16}));
  ms::rt::Status status =
      simulate(program(1, {16, 16}, body), {in.data(), out.data()});
  ASSERT_TRUE(status.ok()) << status.message();
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(out[i], in[i] ? 0 : 1) << i;
}

TEST(NpuSimulator, ComparesAndSelects) {
  std::vector<float> x = randomFloats(16, 9), y = randomFloats(16, 10);
  y[2] = x[2];
  x[5] = std::nanf("");
  struct Case {
    const char *fn;
    bool (*reference)(float, float);
  };
  // C's comparisons: a NaN compares false, but not equal.
  const Case cases[] = {
      {"lt", [](float a, float b) { return a < b; }},
      {"le", [](float a, float b) { return a <= b; }},
      {"gt", [](float a, float b) { return a > b; }},
      {"ge", [](float a, float b) { return a >= b; }},
      {"eq", [](float a, float b) { return a == b; }},
      {"ne", [](float a, float b) { return a != b; }},
  };
  Json noScalar;
  for (const Case &c : cases) {
    std::vector<float> out = runVec(c.fn, "f32", x, y, noScalar);
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(out[i], c.reference(x[i], y[i]) ? 1.0f : 0.0f)
          << c.fn << " " << i;
    out = runVec(c.fn, "f32", x, y, 0.0);
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(out[i], c.reference(x[i], 0.0f) ? 1.0f : 0.0f)
          << c.fn << " scalar " << i;
  }
  // Integers compare as integers (s32 in, ones and zeros out).
  {
    std::vector<int32_t> in(16), out(16, -1);
    for (int i = 0; i < 16; ++i)
      in[i] = i - 8;
    Json body = Json::array();
    body.push_back(dma(gm(0, 0, "s32", {1}), view("ub", 0, "s32", {1}), {16}));
    sync(body, "mte2", "v");
    body.push_back(vec("ge", view("ub", 64, "s32", {8, 1}),
                       view("ub", 0, "s32", {8, 1}), 3.0, 2, 8));
    sync(body, "v", "mte3");
    body.push_back(dma(view("ub", 64, "s32", {1}), gm(1, 0, "s32", {1}), {16}));
    ms::rt::Status status =
        simulate(program(1, {64, 64}, body), {in.data(), out.data()});
    ASSERT_TRUE(status.ok()) << status.message();
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(out[i], in[i] >= 3 ? 1 : 0) << i;
  }

  // mask = x < 0; out = mask ? x : y, then mask ? x : 0.5 (f16 mask).
  for (const char *maskType : {"f32", "f16"}) {
    for (bool scalar : {false, true}) {
      std::vector<uint8_t> out(16 * 4);
      Json body = Json::array();
      body.push_back(
          dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {16}));
      body.push_back(
          dma(gm(1, 0, "f32", {1}), view("ub", 64, "f32", {1}), {16}));
      sync(body, "mte2", "v");
      body.push_back(vec("lt", view("ub", 128, maskType, {8, 1}),
                         view("ub", 0, "f32", {8, 1}), 0.0, 2, 8));
      Json select = vec(
          "sel", view("ub", 192, "f32", {8, 1}), view("ub", 0, "f32", {8, 1}),
          scalar ? Json(0.5) : view("ub", 64, "f32", {8, 1}), 2, 8);
      select["c"] = view("ub", 128, maskType, {8, 1});
      body.push_back(select);
      sync(body, "v", "mte3");
      body.push_back(
          dma(view("ub", 192, "f32", {1}), gm(2, 0, "f32", {1}), {16}));
      ms::rt::Status status = simulate(program(1, {64, 64, 64}, body),
                                       {x.data(), y.data(), out.data()});
      ASSERT_TRUE(status.ok()) << status.message();
      for (size_t i = 0; i < 16; ++i) {
        float got;
        std::memcpy(&got, &out[4 * i], 4);
        float want = x[i] < 0.0f ? x[i] : scalar ? 0.5f : y[i];
        EXPECT_EQ(got, want) << maskType << " " << scalar << " " << i;
      }
    }
  }
}

TEST(NpuSimulator, CastsRoundToNearestEvenAndSaturate) {
  std::vector<float> x = {2.5f,        3.5f,   -2.5f,    1e10f, -1e10f, NAN,
                          0.49999997f, -0.5f,  1.5f,     7.0f,  -7.0f,  0.0f,
                          100.25f,     -3.75f, 65536.0f, 1.0f};
  std::vector<float> out = runVec("cast", "f32", x, x, Json(), "s32");
  std::vector<float> expected = {2,
                                 4,
                                 -2,
                                 float(INT32_MAX),
                                 float(INT32_MIN),
                                 0,
                                 0,
                                 -0.0f,
                                 2,
                                 7,
                                 -7,
                                 0,
                                 100,
                                 -4,
                                 65536,
                                 1};
  for (size_t i = 0; i < 16; ++i)
    EXPECT_EQ(out[i], expected[i]) << i;
  // To f16: overflow to infinity.
  out = runVec("cast", "f32", x, x, Json(), "f16");
  EXPECT_EQ(out[0], 2.5f);
  EXPECT_TRUE(std::isinf(out[3]));
  EXPECT_EQ(out[14], INFINITY) << "65536 is above fp16's largest finite";
}

/// The double-buffered vector program: y = max(exp(x) + x, 1.5) and the
/// sum of each block of `block` elements, over `blocks` blocks of x; MTE2
/// loads block i + 1 while the vector unit works on block i and MTE3
/// stores block i - 1. `serialize` replaces the flags by barriers (and one
/// buffer); `dropFlag` leaves out the wait that orders a load before its use.
Json vectorProgram(int blocks, int64_t block, bool serialize,
                   bool dropFlag = false) {
  int64_t bytes = block * 4, rows = block / 128;
  int64_t in = 0, out = 2 * bytes, sums = 4 * bytes;
  // Buffer i % 2 (or always 0 when serialized).
  auto slot = [&](int64_t base) {
    return serialize ? Json(base) : Json{{"c", base}, {"t", {{0, bytes, 2}}}};
  };
  Json iter = Json::array();
  if (!serialize)
    iter.push_back(flag("wait_flag", "v", "mte2"));
  iter.push_back(dma(gm(0, {{"t", {{0, bytes}}}}, "f32", {1}),
                     view("ub", slot(in), "f32", {1}), {block}));
  if (serialize) {
    iter.push_back({{"op", "barrier"}});
  } else {
    iter.push_back(flag("set_flag", "mte2", "v"));
    if (!dropFlag)
      iter.push_back(flag("wait_flag", "mte2", "v"));
    iter.push_back(flag("wait_flag", "mte3", "v"));
  }
  Json x = view("ub", slot(in), "f32", {128, 1});
  Json y = view("ub", slot(out), "f32", {128, 1});
  iter.push_back(vec("exp", y, x, Json(), rows, 128));
  iter.push_back(vec("add", y, y, x, rows, 128));
  iter.push_back(vec("max", y, y, 1.5, rows, 128));
  iter.push_back(
      {{"op", "vreduce"},
       {"fn", "sum"},
       {"shape", {1, block}},
       {"src", view("ub", slot(out), "f32", {block, 1})},
       {"dst", view("ub", {{"c", sums}, {"t", {{0, 4}}}}, "f32", {1})}});
  if (serialize) {
    iter.push_back({{"op", "barrier"}});
  } else {
    iter.push_back(flag("set_flag", "v", "mte2"));
    sync(iter, "v", "mte3");
  }
  iter.push_back(dma(view("ub", slot(out), "f32", {1}),
                     gm(1, {{"t", {{0, bytes}}}}, "f32", {1}), {block}));
  if (serialize)
    iter.push_back({{"op", "barrier"}});
  else
    iter.push_back(flag("set_flag", "mte3", "v"));
  Json body = Json::array();
  if (!serialize)
    for (int i = 0; i < 2; ++i) {
      body.push_back(flag("set_flag", "v", "mte2"));
      body.push_back(flag("set_flag", "mte3", "v"));
    }
  body.push_back(loop(blocks, iter));
  body.push_back({{"op", "barrier"}});
  body.push_back(
      dma(view("ub", sums, "f32", {1}), gm(2, 0, "f32", {1}), {blocks}));
  return program(1, {blocks * bytes, blocks * bytes, blocks * 4}, body);
}

TEST(NpuSimulator, DoubleBufferedVectorProgramIsFasterAndExact) {
  constexpr int blocks = 8;
  constexpr int64_t block = 1024;
  std::vector<float> x = randomFloats(blocks * block, 9);
  int64_t cycles[2] = {};
  for (bool serialize : {false, true}) {
    std::vector<float> y(x.size()), sums(blocks);
    npu::LaunchStats stats;
    ms::rt::Status status = simulate(vectorProgram(blocks, block, serialize),
                                     {x.data(), y.data(), sums.data()}, &stats);
    ASSERT_TRUE(status.ok()) << status.message();
    for (int b = 0; b < blocks; ++b) {
      float sum = 0;
      for (int64_t i = 0; i < block; ++i) {
        size_t at = size_t(b * block + i);
        float expected = std::fmax(std::exp(x[at]) + x[at], 1.5f);
        ASSERT_EQ(y[at], expected) << at;
        sum += expected;
      }
      EXPECT_EQ(sums[size_t(b)], sum) << b;
    }
    cycles[serialize] = stats.cycles;
  }
  // Overlapping the loads, the vector work and the stores pays.
  EXPECT_LT(cycles[0], cycles[1]);
  EXPECT_LT(cycles[0] * 10, cycles[1] * 8)
      << "double buffering saves at least a fifth: " << cycles[0] << " vs "
      << cycles[1];
}

TEST(NpuSimulator, ReducesWithAccumulation) {
  // Row maxima of a 4 x 8 s32 matrix, then combined (acc) with a second.
  std::vector<int32_t> a(32), out(4);
  for (int i = 0; i < 32; ++i)
    a[size_t(i)] = (i * 13) % 29 - 14;
  Json body = Json::array();
  body.push_back(dma(gm(0, 0, "s32", {1}), view("ub", 0, "s32", {1}), {32}));
  sync(body, "mte2", "v");
  Json reduce = {{"op", "vreduce"},
                 {"fn", "max"},
                 {"shape", {4, 8}},
                 {"src", view("ub", 0, "s32", {8, 1})},
                 {"dst", view("ub", 256, "s32", {1})}};
  body.push_back(reduce);
  // Column-major reading of the same data: max over each of 4 columns of
  // 8, accumulated into the row maxima.
  reduce["src"]["strides"] = {1, 4};
  reduce["acc"] = true;
  body.push_back(reduce);
  sync(body, "v", "mte3");
  body.push_back(dma(view("ub", 256, "s32", {1}), gm(1, 0, "s32", {1}), {4}));
  ms::rt::Status status =
      simulate(program(1, {128, 16}, body), {a.data(), out.data()});
  ASSERT_TRUE(status.ok()) << status.message();
  for (int r = 0; r < 4; ++r) {
    int32_t expected = INT32_MIN;
    for (int j = 0; j < 8; ++j)
      expected =
          std::max({expected, a[size_t(r * 8 + j)], a[size_t(r + 4 * j)]});
    EXPECT_EQ(out[size_t(r)], expected) << r;
  }
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

TEST(NpuSimulator, DmaCostsLatencyPlusBursts) {
  npu::NpuConfig config;
  std::vector<float> src(1024), dst(1024);
  // A contiguous 4 KiB copy: latency + bytes / bandwidth.
  npu::LaunchStats stats;
  Json contiguous =
      program(1, {4096, 4096},
              {dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {1024})});
  ASSERT_TRUE(simulate(contiguous, {src.data(), dst.data()}, &stats).ok());
  EXPECT_EQ(stats.cycles,
            config.mte2LatencyCycles + 4096 / config.mte2BytesPerCycle);
  EXPECT_EQ(stats.busy[size_t(npu::Pipe::MTE2)], stats.cycles);
  EXPECT_EQ(stats.busy[size_t(npu::Pipe::S)], config.scalarIssueCycles);
  // 8 rows of 16 bytes, 256 bytes apart: each row pays a 32-byte burst.
  Json strided = program(
      1, {4096, 4096},
      {dma(gm(0, 0, "f32", {64, 1}), view("ub", 0, "f32", {4, 1}), {8, 4})});
  ASSERT_TRUE(simulate(strided, {src.data(), dst.data()}, &stats).ok());
  EXPECT_EQ(stats.cycles,
            config.mte2LatencyCycles +
                (8 * config.burstBytes + 127) / config.mte2BytesPerCycle);
  // Two copies on two pipes overlap; on one pipe they queue.
  Json twoPipes = program(
      1, {4096, 4096},
      {dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {1024}),
       dma(view("ub", 8192, "f32", {1}), gm(1, 0, "f32", {1}), {1024})});
  ASSERT_TRUE(simulate(twoPipes, {src.data(), dst.data()}, &stats).ok());
  EXPECT_EQ(stats.cycles,
            1 + config.mte3LatencyCycles + 4096 / config.mte3BytesPerCycle)
      << "the second starts when it is issued, a cycle later";
  Json onePipe = program(
      1, {4096, 4096},
      {dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {1024}),
       dma(gm(0, 0, "f32", {1}), view("ub", 8192, "f32", {1}), {1024})});
  ASSERT_TRUE(simulate(onePipe, {src.data(), dst.data()}, &stats).ok());
  EXPECT_EQ(stats.cycles,
            2 * (config.mte2LatencyCycles + 4096 / config.mte2BytesPerCycle));
}

TEST(NpuSimulator, CubeAndVectorCostsFollowTheModel) {
  npu::NpuConfig config;
  npu::LaunchStats stats;
  Json cube = program(1, Json::array(), Json::array({mmad(64, 32, 48, "f16")}));
  ASSERT_TRUE(simulate(cube, {}, &stats).ok());
  EXPECT_EQ(stats.cycles,
            config.cubeStartCycles + 4 * 2 * 3 * config.cubeCyclesPerFractal);
  // An f32 fractal is 16x8 by 8x16: twice as many for the same K.
  cube = program(1, Json::array(), Json::array({mmad(64, 32, 48, "f32")}));
  ASSERT_TRUE(simulate(cube, {}, &stats).ok());
  EXPECT_EQ(stats.cycles,
            config.cubeStartCycles + 4 * 4 * 3 * config.cubeCyclesPerFractal);
  // exp over 4 x 100 f32: rows of 400 bytes take 13 blocks of 32 bytes.
  Json exp = program(1, Json::array(),
                     {vec("exp", view("ub", 0, "f32", {100, 1}),
                          view("ub", 4096, "f32", {100, 1}), Json(), 4, 100)});
  ASSERT_TRUE(simulate(exp, {}, &stats).ok());
  int64_t cycles =
      (4 * 13 * 32 + config.vecBytesPerCycle - 1) / config.vecBytesPerCycle;
  EXPECT_EQ(stats.cycles,
            config.vecLatencyCycles + cycles * config.vecSlowFactor);
  Json add = exp;
  add["kernels"]["k"]["steps"][0][0]["fn"] = "add";
  add["kernels"]["k"]["steps"][0][0]["scalar"] = 1;
  ASSERT_TRUE(simulate(add, {}, &stats).ok());
  EXPECT_EQ(stats.cycles, config.vecLatencyCycles + cycles);
}

TEST(NpuSimulator, FlagsAndBarriersOrderPipes) {
  npu::NpuConfig config;
  std::vector<float> src(1024), dst(1024);
  int64_t load = config.mte2LatencyCycles + 4096 / config.mte2BytesPerCycle;
  int64_t store = config.mte3LatencyCycles + 4096 / config.mte3BytesPerCycle;
  Json body = {dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {1024})};
  sync(body, "mte2", "mte3");
  body.push_back(dma(view("ub", 0, "f32", {1}), gm(1, 0, "f32", {1}), {1024}));
  npu::LaunchStats stats;
  npu::TraceSink trace;
  ASSERT_TRUE(simulate(program(1, {4096, 4096}, body), {src.data(), dst.data()},
                       &stats, &trace)
                  .ok());
  EXPECT_EQ(stats.cycles, load + store);
  // The timeline: the load, the wait on mte3, the store, the kernel.
  ASSERT_EQ(trace.events.size(), 4u);
  EXPECT_EQ(trace.events[0].name, "dma");
  EXPECT_EQ(trace.events[0].lane, int(npu::Pipe::MTE2));
  EXPECT_EQ(trace.events[1].name, "wait_flag");
  EXPECT_EQ(trace.events[1].lane, int(npu::Pipe::MTE3));
  EXPECT_EQ(trace.events[2].start, load);
  EXPECT_EQ(trace.events[2].path, "steps[0][3]");
  EXPECT_EQ(trace.events[3].name, "k");
  EXPECT_EQ(trace.events[3].lane, npu::kKernelLane);
  // A barrier instead of the flags: the same order.
  body = {dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {1024}),
          {{"op", "barrier"}},
          dma(view("ub", 0, "f32", {1}), gm(1, 0, "f32", {1}), {1024})};
  ASSERT_TRUE(
      simulate(program(1, {4096, 4096}, body), {src.data(), dst.data()}, &stats)
          .ok());
  EXPECT_EQ(stats.cycles, load + store);
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

TEST(NpuSimulator, DetectsRaces) {
  // The GEMM without the mte2 -> mte1 flag: MTE1 reads L1 while MTE2 writes.
  constexpr int64_t M = 32, K = 32, N = 32;
  std::vector<float> a(M * K), b(K * N), c(M * N);
  Json json = program(1, {M * K * 4, K * N * 4, M * N * 4},
                      gemmBody(M, K, N, 1, "f32", false, /*flags=*/false));
  expectError(
      simulate(json, {a.data(), b.data(), c.data()}),
      "npu kernel 'k': core 0: steps[0][2] (dma): race on l1 [0, 2048): "
      "'src' reads it from cycle 2 while steps[0][0] (dma) on pipe mte2 "
      "writes l1 [0, 2048) until cycle");
  // The vector program with a load used before its flag is waited for.
  std::vector<float> x(4 * 1024), y(4 * 1024), sums(4);
  expectError(
      simulate(vectorProgram(4, 1024, false, /*dropFlag=*/true),
               {x.data(), y.data(), sums.data()}),
      "steps[0][4].body[4] (vec exp): race on ub [0, 4096): 'a' reads it");
  // Reads on two pipes do not race; a write after a read does.
  Json body = {dma(view("ub", 0, "f32", {1}), gm(1, 0, "f32", {1}), {16}),
               vec("exp", view("ub", 64, "f32", {16, 1}),
                   view("ub", 0, "f32", {16, 1}), Json(), 1, 16)};
  std::vector<float> src(16), dst(16);
  EXPECT_TRUE(
      simulate(program(1, {64, 64}, body), {src.data(), dst.data()}).ok());
  body.push_back(vec("exp", view("ub", 0, "f32", {16, 1}),
                     view("ub", 64, "f32", {16, 1}), Json(), 1, 16));
  expectError(simulate(program(1, {64, 64}, body), {src.data(), dst.data()}),
              "steps[0][2] (vec exp): race on ub [0, 64): 'dst' writes it");
  // GM buffers that alias are one memory.
  body = {dma(gm(0, 0, "f32", {1}), view("ub", 0, "f32", {1}), {16}),
          dma(view("ub", 64, "f32", {1}), gm(1, 0, "f32", {1}), {16})};
  EXPECT_TRUE(
      simulate(program(1, {64, 64}, body), {src.data(), dst.data()}).ok());
  expectError(simulate(program(1, {64, 64}, body), {src.data(), src.data()}),
              "race on gm arg 1 [0, 64)");
}

TEST(NpuSimulator, DetectsDeadlocks) {
  Json body = {flag("set_flag", "mte2", "v", 1),
               flag("wait_flag", "mte2", "v", 1),
               loop(2, {flag("wait_flag", "mte2", "v", 1)})};
  expectError(simulate(program(1, Json::array(), body), {}),
              "npu kernel 'k': core 0: steps[0][2].body[0] (wait_flag): "
              "deadlock: no earlier set_flag(mte2, v, 1)");
  // A set_flag after its wait in program order does not count.
  body = {flag("wait_flag", "s", "mte3", 2), flag("set_flag", "s", "mte3", 2)};
  expectError(simulate(program(1, Json::array(), body), {}),
              "steps[0][0] (wait_flag): deadlock");
}

TEST(NpuSimulator, ChecksBounds) {
  npu::NpuConfig config;
  std::vector<float> src(16), dst(16);
  Json body = {dma(gm(0, 0, "f32", {1}),
                   view("ub", config.ubBytes - 32, "f32", {1}), {16})};
  expectError(simulate(program(1, {64}, body), {src.data()}),
              "steps[0][0] (dma): 'dst' range [262112, +64) lies outside ub "
              "(262144 bytes)");
  // GM: the argument's declared size; offsets by loop counter.
  body = {loop(3, {dma(gm(0, {{"t", {{0, 32}}}}, "f32", {1}),
                       view("ub", 0, "f32", {1}), {8})})};
  expectError(
      simulate(program(1, {64}, body), {src.data()}),
      "steps[0][0].body[0] (dma): 'src' range [64, +32) lies outside gm "
      "arg 0 (64 bytes)");
  // Strides reach past the end.
  body = {dma(gm(0, 0, "f32", {4, 1}), view("ub", 0, "f32", {4, 1}), {5, 4})};
  expectError(simulate(program(1, {64}, body), {src.data()}),
              "'src' range [0, +80) lies outside gm arg 0");
  // Fractal operands of the cube.
  body = Json::array({mmad(256, 256, 16, "f16", false)});
  expectError(simulate(program(1, Json::array(), body), {}),
              "steps[0][0] (mmad): 'a' range [0, +131072) lies outside l0a");
  // Too few buffers for the kernel.
  expectError(simulate(program(1, {64, 64}, Json::array()), {src.data()}),
              "npu kernel 'k': expects 2 buffers, the launch passes 1");
}

TEST(NpuSimulator, EvaluatesExpressions) {
  // Element i of the output holds iv0 * 10 + iv1 % 2 + core table[core]:
  // dup writes scalars, so compute offsets instead: each (iv0, iv1) copies
  // element (iv1 % 2) + 2 * core of the input to output slot iv0 * 3 + iv1.
  std::vector<float> in = {1, 2, 3, 4}, out(2 * 6, 0);
  Json copy = dma(gm(0, {{"t", {{1, 4, 2}}}, {"core", {0, 8}}}, "f32", {1}),
                  view("ub", {{"t", {{0, 12}, {1, 4}}}}, "f32", {1}), {1});
  Json body = {loop(2, {loop(3, {copy})})};
  sync(body, "mte2", "mte3");
  body.push_back(dma(view("ub", 0, "f32", {1}),
                     gm(1, {{"t", {{-1, 24}}}}, "f32", {1}), {6}));
  ms::rt::Status status = simulate(program(2, {16, 48}, body, {{"cores", 2}}),
                                   {in.data(), out.data()});
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(out, (std::vector<float>{1, 2, 1, 1, 2, 1, 3, 4, 3, 3, 4, 3}));
}

TEST(NpuSimulator, StepsOrderCoresThroughGm) {
  // Step 0: core c copies in[c] to out[c] through UB (where it stays).
  // Step 1: core c loads the other core's out slot and stores it minus its
  // own value to out[2 + c].
  std::vector<float> in = {1, 2}, out(4);
  Json coreSlot = {{"t", {{-1, 4}}}};
  Json first = Json::array(
      {dma(gm(0, coreSlot, "f32", {1}), view("ub", 0, "f32", {1}), {1})});
  sync(first, "mte2", "mte3");
  first.push_back(
      dma(view("ub", 0, "f32", {1}), gm(1, coreSlot, "f32", {1}), {1}));
  Json second = Json::array({dma(gm(1, {{"core", {4, 0}}}, "f32", {1}),
                                 view("ub", 32, "f32", {1}), {1})});
  sync(second, "mte2", "v");
  second.push_back(vec("sub", view("ub", 32, "f32", {1, 1}),
                       view("ub", 32, "f32", {1, 1}),
                       view("ub", 0, "f32", {1, 1}), 1, 1));
  sync(second, "v", "mte3");
  second.push_back(dma(view("ub", 32, "f32", {1}),
                       gm(1, {{"c", 8}, {"t", {{-1, 4}}}}, "f32", {1}), {1}));
  Json json = program(2, {8, 16}, first, {{"cores", 2}});
  json["kernels"]["k"]["steps"].push_back(second);
  npu::LaunchStats stats;
  npu::TraceSink trace;
  ms::rt::Status status =
      simulate(json, {in.data(), out.data()}, &stats, &trace);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(out, (std::vector<float>{1, 2, 2 - 1, 1 - 2}));
  // The kernel lane: one span per step and core; step 1 starts after the
  // later core's step 0.
  std::vector<const npu::TraceEvent *> spans;
  for (const npu::TraceEvent &event : trace.events)
    if (event.lane == npu::kKernelLane)
      spans.push_back(&event);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[0]->path, "steps[0]");
  EXPECT_EQ(spans[2]->path, "steps[1]");
  int64_t firstEnd = std::max(spans[0]->start + spans[0]->duration,
                              spans[1]->start + spans[1]->duration);
  EXPECT_EQ(spans[2]->start, firstEnd);
  EXPECT_EQ(stats.cycles, std::max(spans[2]->start + spans[2]->duration,
                                   spans[3]->start + spans[3]->duration));
}

//===----------------------------------------------------------------------===//
// The device: profile and trace
//===----------------------------------------------------------------------===//

/// The npu test backend (TestBackends.cpp).
const TestBackend &npuBackend() {
  for (const TestBackend &backend : testBackends)
    if (std::string(backend.name) == "npu")
      return backend;
  return testBackends.front();
}

TEST(NpuDevice, ProfilesAndTracesRuns) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  ModuleParts parts = sampleModule(npuBackend().kernels(false));
  parts.codeKind = uint32_t(ms::format::SectionKind::NpuProgram);
  ASSERT_TRUE(writeFile(dir.file("m.msm"), parts.build()));
  ms::rt::Device device;
  ASSERT_TRUE(ms::rt::Device::create(MS_DEVICE_NPU_SIM, device).ok());
  EXPECT_STREQ(device.name(), "npu");
  expectError(device.traceWrite(dir.file("none.json")),
              "no npu trace is being recorded");
  ASSERT_TRUE(device.traceBegin().ok());
  ms::rt::Module module;
  ms::rt::Context context;
  ASSERT_TRUE(ms::rt::Module::load(device, dir.file("m.msm"), module).ok());
  ASSERT_TRUE(ms::rt::Context::create(module, context).ok());
  float x[4] = {1, 2, 3, 4}, y[4] = {0.5f, -8, 1, 1};
  std::vector<ms::rt::TensorView> outputs(2);
  auto f32x4 = [](float *data) {
    return ms::rt::TensorView{data, 16, MS_DTYPE_F32, {4}};
  };
  ms::rt::Status status = context.run({f32x4(x), f32x4(y)}, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(static_cast<float *>(outputs[0].data)[i],
              sampleOut0(x[i], y[i], sampleWeights[i]));

  // The plan launches ms_kernel_0 twice, ms_kernel_2 and ms_kernel_3.
  Json profile = Json::parse(device.profile());
  EXPECT_EQ(profile["device"], "npu");
  EXPECT_EQ(profile["kernels_launched"], 4);
  EXPECT_EQ(profile["kernels"]["ms_kernel_0"]["launches"], 2);
  int64_t sum = 0;
  for (const auto &item : profile["kernels"].items())
    sum += item.value()["cycles"].get<int64_t>();
  EXPECT_EQ(profile["cycles"].get<int64_t>(), sum);
  EXPECT_GT(profile["busy_cycles"]["mte2"].get<int64_t>(), 0);
  EXPECT_EQ(profile["instructions"]["vec"], 2 * 2 + 1 + 2);
  // The kernels use 2 cores of the 2 configured, ms_kernel_2 one.
  EXPECT_EQ(profile["core_cycles"].get<int64_t>(), 2 * sum);

  std::string path = dir.file("trace.json");
  status = device.traceWrite(path);
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<uint8_t> bytes = readFile(path);
  Json trace = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
  ASSERT_TRUE(trace.is_object()) << "the trace is valid JSON";
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  EXPECT_EQ(trace["otherData"]["time_unit"], "cycles");
  // Kernel spans follow each other on the device clock.
  std::vector<std::pair<int64_t, int64_t>> kernels;
  int spans = 0;
  bool namesPipes = false;
  for (const Json &event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name" &&
        event["args"]["name"] == "mte2")
      namesPipes = true;
    if (event["ph"] != "X")
      continue;
    ++spans;
    if (event["tid"] == npu::kKernelLane && event["pid"] == 0)
      kernels.push_back(
          {event["ts"].get<int64_t>(),
           event["ts"].get<int64_t>() + event["dur"].get<int64_t>()});
  }
  EXPECT_TRUE(namesPipes);
  EXPECT_GT(spans, 20);
  ASSERT_EQ(kernels.size(), 4u);
  for (size_t i = 1; i < kernels.size(); ++i)
    EXPECT_GE(kernels[i].first, kernels[i - 1].second) << i;
  EXPECT_EQ(kernels.back().second, sum);
  // Writing stops the recording.
  expectError(device.traceWrite(path), "no npu trace is being recorded");
}

TEST(NpuDevice, OtherDevicesNeitherProfileNorTrace) {
  ms::rt::Device cpu;
  ASSERT_TRUE(ms::rt::Device::create(MS_DEVICE_CPU, cpu).ok());
  EXPECT_EQ(cpu.profile(), "{}");
  ms::rt::Status status = cpu.traceBegin();
  EXPECT_EQ(status.code(), MS_UNIMPLEMENTED);
  expectError(status, "the cpu device cannot record a trace");
  EXPECT_EQ(std::string(ms_device_profile(nullptr)), "{}");
  EXPECT_EQ(ms::rt::Status(ms_device_trace_write(cpu.get(), nullptr)).code(),
            MS_INVALID_ARGUMENT);
}

TEST(NpuDevice, ReportsSimulationFailuresAtRun) {
  TempDir dir;
  ModuleParts parts = sampleModule({});
  parts.codeKind = uint32_t(ms::format::SectionKind::NpuProgram);
  // ms_kernel_2 without its flags: a race, reported by the run.
  Json kernels = Json::parse(npuBackend().kernels(false));
  Json &body = kernels["kernels"]["ms_kernel_2"]["steps"][0];
  body.erase(body.begin() + 1, body.begin() + 3);
  std::string text = kernels.dump();
  parts.code.assign(text.begin(), text.end());
  ASSERT_TRUE(writeFile(dir.file("m.msm"), parts.build()));
  ms::rt::Device device;
  ASSERT_TRUE(ms::rt::Device::create(MS_DEVICE_NPU_SIM, device).ok());
  ms::rt::Module module;
  ms::rt::Context context;
  ASSERT_TRUE(ms::rt::Module::load(device, dir.file("m.msm"), module).ok());
  ASSERT_TRUE(ms::rt::Context::create(module, context).ok());
  float x[4] = {}, y[4] = {};
  std::vector<ms::rt::TensorView> outputs(2);
  ms::rt::Status status =
      context.run({ms::rt::TensorView{x, 16, MS_DTYPE_F32, {4}},
                   ms::rt::TensorView{y, 16, MS_DTYPE_F32, {4}}},
                  outputs);
  expectError(status,
              "npu kernel 'ms_kernel_2': core 0: steps[0][1] (dma): race "
              "on ub [0, 16)");
  // A malformed section fails the load, naming the file and the kernel.
  body = "not a body";
  text = kernels.dump();
  parts.code.assign(text.begin(), text.end());
  ASSERT_TRUE(writeFile(dir.file("bad.msm"), parts.build()));
  expectError(ms::rt::Module::load(device, dir.file("bad.msm"), module),
              "bad.msm: npu-program section: kernel 'ms_kernel_2': "
              "'steps[0]': expected an array of instructions");
}

TEST(NpuSimulator, ScratchDataInitializesConstants) {
  // Scratch buffer 0 holds the constants {1.5, -2} (little-endian f32 bits
  // 0x3fc00000, 0xc0000000); the kernel copies them to its argument.
  std::vector<float> out(2);
  Json scratch = {{"buf", {"scratch", 0}},
                  {"mem", "gm"},
                  {"off", 0},
                  {"dtype", "f32"},
                  {"strides", {1}}};
  Json body = Json::array({dma(scratch, view("ub", 0, "f32", {1}), {2})});
  sync(body, "mte2", "mte3");
  body.push_back(dma(view("ub", 0, "f32", {1}), gm(0, 0, "f32", {1}), {2}));
  Json json = program(1, {8}, body, Json::object(), {8});
  json["kernels"]["k"]["scratch_data"] = {"0000c03f000000c0"};
  ms::rt::Status status = simulate(json, {out.data()});
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(out, (std::vector<float>{1.5f, -2.0f}));

  npu::Program parsed;
  json["kernels"]["k"]["scratch_data"] = {"0000c03f"};
  expectError(parse(json, parsed), "'scratch_data' 0: expected 16 hex digits "
                                   "(the buffer's bytes), found 8");
  json["kernels"]["k"]["scratch_data"] = {"0000C03F000000C0"};
  expectError(parse(json, parsed), "expected lower-case hex digits");
  json["kernels"]["k"]["scratch_data"] = Json::array();
  expectError(parse(json, parsed), "'scratch_data': expected one entry per "
                                   "scratch buffer (1)");
}
} // namespace
