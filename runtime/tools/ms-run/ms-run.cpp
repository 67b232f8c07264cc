//===- ms-run.cpp - run a compiled module from the command line -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ms-run MODULE.msm [--input NAME=FILE.npy ...] [--output-dir DIR]
//                   [--bench N] [--seed S] [--device cpu|cuda|npu]
//                   [--trace FILE] [--nproc N]
//
// Loads the module on the device (the CPU by default), binds inputs (from .npy
// files, or generated deterministically), runs it and prints a summary of each
// output; on the simulated npu, also the simulated cycles and how busy each
// pipe was. --trace writes a timeline: on the cpu, of every run's steps (one
// process per rank, one thread per plan queue); on the npu, the simulator's
// of the first run. Errors print "ms-run: error: <message>" and exit 1.
//
// A module compiled for several ranks runs as one process per rank: with
// --nproc N, ms-run starts N ranks of itself (MS_RANK, MS_WORLD_SIZE and a
// fresh MS_RENDEZVOUS directory) and waits for them; under mpirun, each
// process reads its rank from the launcher. Only rank 0 prints and writes
// outputs; the others' errors say "rank K: ".
//
//===----------------------------------------------------------------------===//

#include "ms/runtime/Npy.h"
#include "ms/runtime/Runtime.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ms::rt;
using Json = nlohmann::json;

namespace {
constexpr const char *kUsage = R"(usage: ms-run MODULE.msm [options]

Runs a compiled module (.msm) on a device (the CPU unless --device says
otherwise) and prints each output's name, dtype, shape, first values, min,
max and mean.

options:
  --input NAME=FILE.npy  bind input NAME to the array in FILE.npy (repeatable);
                         other inputs get deterministic random data: floats
                         uniform in [-1, 1), signed ints in [-8, 8), unsigned
                         ints in [0, 16), random bools
  --output-dir DIR       write each output to DIR/<output-name>.npy (bf16 as
                         f32); DIR is created if missing
  --bench N              after warm-up, time N runs and print median_ms,
                         min_ms and max_ms
  --seed S               seed for generated inputs (default 0)
  --device KIND          cpu (default), cuda (a module compiled with
                         --target cuda; inputs and outputs are copied
                         between the host and the GPU) or npu (a module
                         compiled with --target npu, run on the NPU
                         simulator; prints npu_cycles, npu_kernels,
                         npu_utilization per pipe and npu_bound_by, and
                         with --bench npu_cycles_per_run)
  --trace FILE           write a timeline to FILE as Chrome trace-event JSON
                         (chrome://tracing, Perfetto). cpu: a span for every
                         kernel, copy, host and collective step of every run
                         (warm-up and --bench runs too; args.run numbers
                         them), one process per rank and one thread per
                         plan queue, category "compute" or "comm", times in
                         microseconds of the machine's monotonic clock; see
                         python3 -m ms.timeline FILE for how much
                         communication was hidden under compute. With
                         --nproc the ranks' timelines are merged into FILE;
                         under mpirun each rank writes
                         <FILE without .json>.rank<R>.json. npu: the first
                         run's simulated timeline (one process per core,
                         one thread per pipe; times in cycles). The cuda
                         device cannot trace
  --nproc N              run N processes (ranks) of a module compiled for N
                         ranks on this machine: ms-run starts N copies of
                         itself with MS_RANK, MS_WORLD_SIZE and a fresh
                         MS_RENDEZVOUS directory (the gloo communicator,
                         TCP) and waits for them; when one fails, the others
                         are stopped after a short grace period
  --help                 print this help

Several processes: every rank gets the same inputs (the same --input files,
or the same generated data); only rank 0 prints the outputs and writes
--output-dir (and an npu --trace), the other ranks print only their errors
("rank K: ..."). Under mpirun (mpirun -np N ms-run MODULE.msm), each process
takes its rank from the launcher (the MPI communicator). MS_COMM_TIMEOUT
(seconds, default 60) bounds the ranks' rendezvous and every collective.
)";

/// A failure to report as "ms-run: error: <message>".
struct Failure {
  std::string message;
};

/// The parsed command line.
struct Options {
  std::string module;
  std::map<std::string, std::string> inputs;
  std::string outputDir;
  uint64_t bench = 0;
  uint64_t seed = 0;
  std::string device = "cpu";
  std::string trace;
  /// The ranks to start (0: run in this process).
  uint64_t nproc = 0;
  bool help = false;
};

/// Parses a decimal unsigned integer; false unless all of `text` is one.
bool parseUnsigned(const std::string &text, uint64_t &out) {
  if (text.empty() || text.size() > 20)
    return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, uint64_t(c - '0'), &value))
      return false;
  }
  out = value;
  return true;
}

/// Parses argv into `options`; returns a failure message or "".
std::string parseArgs(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return "";
    }
    if (arg.rfind("--", 0) != 0) {
      if (!options.module.empty())
        return "unexpected argument '" + arg + "' (one module expected)";
      options.module = arg;
      continue;
    }
    std::string flag = arg, value;
    size_t equals = arg.find('=');
    bool inlineValue = equals != std::string::npos;
    if (inlineValue) {
      flag = arg.substr(0, equals);
      value = arg.substr(equals + 1);
    }
    if (flag != "--input" && flag != "--output-dir" && flag != "--bench" &&
        flag != "--seed" && flag != "--device" && flag != "--trace" &&
        flag != "--nproc")
      return "unknown option '" + flag + "' (see --help)";
    if (!inlineValue) {
      if (i + 1 >= argc)
        return "missing value after " + flag;
      value = argv[++i];
    }
    if (flag == "--input") {
      size_t split = value.find('=');
      if (split == std::string::npos || split == 0 || split + 1 == value.size())
        return "--input expects NAME=FILE.npy, got '" + value + "'";
      std::string name = value.substr(0, split);
      if (!options.inputs.emplace(name, value.substr(split + 1)).second)
        return "input '" + name + "' given more than once";
    } else if (flag == "--output-dir") {
      if (value.empty())
        return "--output-dir expects a directory";
      options.outputDir = value;
    } else if (flag == "--bench") {
      if (!parseUnsigned(value, options.bench) || options.bench == 0 ||
          options.bench > 100000000)
        return "--bench expects a positive integer, got '" + value + "'";
    } else if (flag == "--device") {
      if (value != "cpu" && value != "cuda" && value != "npu")
        return "--device expects cpu, cuda or npu, got '" + value + "'";
      options.device = value;
    } else if (flag == "--trace") {
      if (value.empty())
        return "--trace expects a file name";
      options.trace = value;
    } else if (flag == "--nproc") {
      if (!parseUnsigned(value, options.nproc) || options.nproc == 0 ||
          options.nproc > 4096)
        return "--nproc expects a number of processes from 1 to 4096, got '" +
               value + "'";
    } else if (!parseUnsigned(value, options.seed)) {
      return "--seed expects a non-negative integer, got '" + value + "'";
    }
  }
  if (options.module.empty())
    return "no module given (usage: ms-run MODULE.msm [options]; see --help)";
  if (!options.trace.empty() && options.device == "cuda")
    return "--trace needs --device cpu or npu (the cuda device cannot record "
           "a timeline)";
  return "";
}

/// The variable through which the launcher (--nproc) tells rank R where to
/// write its timeline (`FILE.rank<R>`), to merge them into FILE afterwards.
constexpr const char *kRankTraceVariable = "MS_RUN_RANK_TRACE";

/// Returns the file this process writes its cpu --trace timeline to: the
/// one its launcher (--nproc) names; `<FILE without .json>.rank<R>.json`
/// for rank R of a world of several processes started by another launcher
/// (mpirun), which merges nothing; else FILE itself.
std::string rankTraceFile(const std::string &file, int32_t rank,
                          int32_t worldSize) {
  if (const char *given = std::getenv(kRankTraceVariable); given && *given)
    return given;
  if (worldSize <= 1)
    return file;
  std::string stem = file;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0)
    stem.resize(stem.size() - 5);
  return stem + ".rank" + std::to_string(rank) + ".json";
}

//===----------------------------------------------------------------------===//
// Element conversions
//===----------------------------------------------------------------------===//

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// Converts to IEEE half, rounding to nearest even.
uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff)
    return uint16_t(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  int32_t halfExponent = int32_t(exponent) - 127 + 15;
  if (halfExponent >= 31)
    return uint16_t(sign | 0x7c00);
  if (halfExponent <= 0) {
    if (halfExponent < -10)
      return uint16_t(sign);
    mantissa |= 0x800000;
    uint32_t shift = uint32_t(14 - halfExponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1),
             midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(halfExponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // A carry into the exponent is still correct.
  return uint16_t(sign | half);
}

float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
  if (exponent == 0) {
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  if (exponent == 31)
    return bitsFloat(sign | 0x7f800000 | (mantissa << 13));
  return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// Converts to bfloat16, rounding to nearest even.
uint16_t floatToBf16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return uint16_t((bits >> 16) | 0x40);
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

float bf16ToFloat(uint16_t value) { return bitsFloat(uint32_t(value) << 16); }

/// Reads element `i` of `data` as a double.
double element(const void *data, ms_dtype_t dtype, size_t i) {
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, static_cast<const char *>(data) + i * sizeof(value),
                sizeof(value));
    return value;
  };
  switch (dtype) {
  case MS_DTYPE_F16:
    return halfToFloat(load(uint16_t()));
  case MS_DTYPE_BF16:
    return bf16ToFloat(load(uint16_t()));
  case MS_DTYPE_F32:
    return load(float());
  case MS_DTYPE_F64:
    return load(double());
  case MS_DTYPE_BOOL:
    return load(uint8_t()) != 0;
  case MS_DTYPE_I8:
    return load(int8_t());
  case MS_DTYPE_I16:
    return load(int16_t());
  case MS_DTYPE_I32:
    return load(int32_t());
  case MS_DTYPE_I64:
    return double(load(int64_t()));
  case MS_DTYPE_U8:
    return load(uint8_t());
  case MS_DTYPE_U16:
    return load(uint16_t());
  case MS_DTYPE_U32:
    return load(uint32_t());
  case MS_DTYPE_U64:
    return double(load(uint64_t()));
  case MS_DTYPE_STRING:
  case MS_DTYPE_INVALID:
  case MS_DTYPE_MAX:
    break;
  }
  return 0;
}

/// Fills string input `info` with "s0", "s1", ... kept in `strings`.
void generateStrings(const TensorInfo &info, Buffer &buffer,
                     std::vector<std::string> &strings) {
  size_t count = info.size / sizeof(ms_string_t);
  strings.resize(count);
  auto *out = static_cast<ms_string_t *>(buffer.data());
  for (size_t i = 0; i < count; ++i) {
    strings[i] = "s" + std::to_string(i);
    out[i] = ms_string_t{strings[i].data(), strings[i].size()};
  }
}

/// Returns true for floating-point dtypes.
bool isFloat(ms_dtype_t dtype) {
  return dtype == MS_DTYPE_F16 || dtype == MS_DTYPE_BF16 ||
         dtype == MS_DTYPE_F32 || dtype == MS_DTYPE_F64;
}

/// Fills `data` (`count` elements of `dtype`) with deterministic values.
void generate(void *data, ms_dtype_t dtype, size_t count, uint64_t seed) {
  uint64_t state = seed;
  auto next = [&state] {
    // splitmix64: the same sequence on every platform and library.
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto *bytes = static_cast<char *>(data);
  auto store = [&](size_t i, auto value) {
    std::memcpy(bytes + i * sizeof(value), &value, sizeof(value));
  };
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = next();
    // 24 random bits -> [0, 1) -> [-1, 1).
    float unit = float(bits >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    int64_t small = int64_t(bits % 16);
    switch (dtype) {
    case MS_DTYPE_F16:
      store(i, floatToHalf(unit));
      break;
    case MS_DTYPE_BF16:
      store(i, floatToBf16(unit));
      break;
    case MS_DTYPE_F32:
      store(i, unit);
      break;
    case MS_DTYPE_F64:
      store(i, double(unit));
      break;
    case MS_DTYPE_BOOL:
      store(i, uint8_t(bits & 1));
      break;
    case MS_DTYPE_I8:
      store(i, int8_t(small - 8));
      break;
    case MS_DTYPE_I16:
      store(i, int16_t(small - 8));
      break;
    case MS_DTYPE_I32:
      store(i, int32_t(small - 8));
      break;
    case MS_DTYPE_I64:
      store(i, int64_t(small - 8));
      break;
    case MS_DTYPE_U8:
      store(i, uint8_t(small));
      break;
    case MS_DTYPE_U16:
      store(i, uint16_t(small));
      break;
    case MS_DTYPE_U32:
      store(i, uint32_t(small));
      break;
    case MS_DTYPE_U64:
      store(i, uint64_t(small));
      break;
    case MS_DTYPE_STRING:
    case MS_DTYPE_INVALID:
    case MS_DTYPE_MAX:
      break;
    }
  }
}

/// Formats one value for the summary.
std::string formatValue(double value, ms_dtype_t dtype) {
  char text[48];
  if (isFloat(dtype))
    std::snprintf(text, sizeof(text), "%.6g", value);
  else
    std::snprintf(text, sizeof(text), "%.0f", value);
  return text;
}

/// Replaces characters unsafe in a file name.
std::string fileNameFor(const std::string &name) {
  std::string safe = name;
  for (char &c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
        c != '.')
      c = '_';
  if (safe.empty() || safe == "." || safe == "..")
    safe = "_" + safe;
  return safe;
}

//===----------------------------------------------------------------------===//
// The NPU simulator's profile
//===----------------------------------------------------------------------===//

/// Parses the npu device's profile (ms_device_profile).
Json parseProfile(const std::string &text) {
  Json profile = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!profile.is_object() || !profile.contains("cycles") ||
      !profile["cycles"].is_number_integer())
    throw Failure{"the npu device returned no profile: " + text};
  return profile;
}

/// Returns the cycles the npu device has simulated so far.
int64_t simulatedCycles(const std::string &profile) {
  return parseProfile(profile)["cycles"].get<int64_t>();
}

/// Prints the simulated cycles, the kernels launched, each pipe's
/// utilization (busy cycles over the cycles of every core) and the busiest
/// pipe, which bounds the run.
void printNpuSummary(const std::string &text) {
  Json profile = parseProfile(text);
  int64_t cycles = profile["cycles"].get<int64_t>();
  int64_t coreCycles = profile.value("core_cycles", int64_t(0));
  std::printf(
      "npu_cycles: %lld\nnpu_kernels: %lld\n", static_cast<long long>(cycles),
      static_cast<long long>(profile.value("kernels_launched", int64_t(0))));
  std::string line, bound = "none";
  double most = 0;
  const Json &busy = profile["busy_cycles"];
  for (const char *pipe : {"s", "mte1", "mte2", "mte3", "m", "v", "fix"}) {
    int64_t cyclesBusy = busy.is_object() ? busy.value(pipe, int64_t(0)) : 0;
    double percent =
        coreCycles > 0 ? 100.0 * double(cyclesBusy) / double(coreCycles) : 0.0;
    char item[48];
    std::snprintf(item, sizeof(item), "%s%s %.1f%%", line.empty() ? "" : " ",
                  pipe, percent);
    line += item;
    if (percent > most) {
      most = percent;
      bound = pipe;
    }
  }
  std::printf("npu_utilization: %s\nnpu_bound_by: %s\n", line.c_str(),
              bound.c_str());
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// Throws a Failure carrying `status`'s message if it failed.
void check(const Status &status, const std::string &context = "") {
  if (!status.ok())
    throw Failure{context + status.message()};
}

/// Binds input `info` to the array in `path`, converting f32 to bf16. The
/// characters of a string input are kept in `strings`.
void loadInput(const TensorInfo &info, const std::string &path, Buffer &buffer,
               std::vector<std::string> &strings) {
  NpyArray array;
  check(readNpy(path, array), "input '" + info.name + "': ");
  if (array.shape != info.shape)
    throw Failure{
        "input '" + info.name + "': " + path + " has shape " +
        formatTensorType(array.dtype, array.shape.data(), array.shape.size()) +
        ", expected " +
        formatTensorType(info.dtype, info.shape.data(), info.shape.size())};
  size_t count =
      array.data.size() / std::max<size_t>(1, ms_dtype_size(array.dtype));
  if (info.dtype == MS_DTYPE_BF16 && array.dtype == MS_DTYPE_F32) {
    auto *out = static_cast<uint16_t *>(buffer.data());
    for (size_t i = 0; i < count; ++i)
      out[i] = floatToBf16(float(element(array.data.data(), MS_DTYPE_F32, i)));
    return;
  }
  if (array.dtype != info.dtype)
    throw Failure{"input '" + info.name + "': " + path + " has dtype " +
                  ms_dtype_name(array.dtype) + ", expected " +
                  ms_dtype_name(info.dtype) +
                  (info.dtype == MS_DTYPE_BF16 ? " (or f32)" : "")};
  if (array.dtype == MS_DTYPE_STRING) {
    strings = std::move(array.strings);
    auto *out = static_cast<ms_string_t *>(buffer.data());
    for (size_t i = 0; i < strings.size(); ++i)
      out[i] = ms_string_t{strings[i].data(), strings[i].size()};
    return;
  }
  check(buffer.write(0, array.data.data(), array.data.size()));
}

/// Prints the summary of string output `info`.
void printStrings(const TensorInfo &info, const TensorView &view) {
  std::printf("%s: %s\n", info.name.c_str(),
              formatTensorType(info.dtype, view.shape.data(), view.shape.size())
                  .c_str());
  size_t count = view.size / sizeof(ms_string_t);
  const auto *strings = static_cast<const ms_string_t *>(view.data);
  std::string values;
  for (size_t i = 0; i < count && i < 8; ++i) {
    values += i ? " \"" : "\"";
    values.append(strings[i].data ? strings[i].data : "", strings[i].size);
    values += '"';
  }
  if (count > 8)
    values += " ...";
  std::printf("  values: [%s]\n", count ? values.c_str() : "(empty)");
}

/// Prints the summary of one output.
void printOutput(const TensorInfo &info, const TensorView &view) {
  if (info.dtype == MS_DTYPE_STRING)
    return printStrings(info, view);
  std::printf("%s: %s\n", info.name.c_str(),
              formatTensorType(info.dtype, info.shape.data(), info.shape.size())
                  .c_str());
  size_t count = info.size / ms_dtype_size(info.dtype);
  if (count == 0) {
    std::printf("  values: (empty)\n");
    return;
  }
  std::string values;
  double low = INFINITY, high = -INFINITY, sum = 0;
  size_t nans = 0;
  for (size_t i = 0; i < count; ++i) {
    double value = element(view.data, info.dtype, i);
    if (i < 8)
      values += (i ? " " : "") + formatValue(value, info.dtype);
    if (std::isnan(value)) {
      ++nans;
      continue;
    }
    low = std::min(low, value);
    high = std::max(high, value);
    sum += value;
  }
  if (count > 8)
    values += " ...";
  std::printf("  values: [%s]\n", values.c_str());
  if (nans == count) {
    std::printf("  min: nan max: nan mean: nan\n");
  } else {
    std::printf("  min: %s max: %s mean: %.6g%s\n",
                formatValue(low, info.dtype).c_str(),
                formatValue(high, info.dtype).c_str(),
                sum / double(count - nans),
                nans ? (" (" + std::to_string(nans) + " nan)").c_str() : "");
  }
}

/// Writes `view` to `path`.
void writeOutput(const std::string &path, const TensorInfo &info,
                 const TensorView &view) {
  if (info.dtype != MS_DTYPE_BF16) {
    // The view's shape: outputs with data-dependent extents have theirs
    // only once computed.
    check(writeNpy(path, info.dtype, view.shape.data(), view.shape.size(),
                   view.data, view.size),
          "output '" + info.name + "': ");
    return;
  }
  // NumPy has no bfloat16: widen to f32.
  std::vector<float> widened(view.size / 2);
  for (size_t i = 0; i < widened.size(); ++i)
    widened[i] = float(element(view.data, MS_DTYPE_BF16, i));
  check(writeNpy(path, MS_DTYPE_F32, info.shape.data(), info.shape.size(),
                 widened.data(), widened.size() * sizeof(float)));
}

/// Runs the tool in this process (one rank of the launcher's world, or a
/// world of one); throws Failure on errors.
void runTool(const Options &options) {
  // Join the world first, so that every rank is waited for even if this
  // one fails to load the module.
  Comm comm;
  check(Comm::createFromEnv(comm));
  // Rank 0 reports; the others only run (and report their errors).
  bool report = comm.rank() == 0;
  // Inputs are prepared, and outputs read, in host memory (a CPU device's
  // buffers, or the npu simulator's, which are host memory too); a device
  // whose memory the host cannot see gets copies.
  bool onHost = options.device != "cuda";
  bool npu = options.device == "npu";
  Device device, cpu;
  check(Device::create(npu      ? MS_DEVICE_NPU_SIM
                       : onHost ? MS_DEVICE_CPU
                                : MS_DEVICE_CUDA,
                       device));
  if (!onHost)
    check(Device::create(MS_DEVICE_CPU, cpu));
  const Device &host = onHost ? device : cpu;
  Module module;
  check(Module::load(device, options.module, module));

  std::vector<TensorInfo> inputInfo, outputInfo;
  for (size_t i = 0; i < module.inputCount(); ++i)
    inputInfo.push_back(module.input(i));
  for (size_t i = 0; i < module.outputCount(); ++i)
    outputInfo.push_back(module.output(i));
  for (const auto &[name, path] : options.inputs) {
    bool found = false;
    std::string names;
    for (const TensorInfo &info : inputInfo) {
      found |= info.name == name;
      names += (names.empty() ? "" : ", ") + info.name;
    }
    if (!found)
      throw Failure{"unknown input '" + name + "' (the module's inputs: " +
                    (names.empty() ? "none" : names) + ")"};
  }

  // Inputs live in 64-byte aligned buffers, as a compiled caller would keep
  // them. A string input's characters stay on the host, in `strings`, also
  // when its elements are copied to a device.
  std::vector<Buffer> buffers(inputInfo.size());
  std::vector<std::vector<std::string>> strings(inputInfo.size());
  std::vector<TensorView> inputs;
  for (size_t i = 0; i < inputInfo.size(); ++i) {
    const TensorInfo &info = inputInfo[i];
    check(Buffer::allocate(host, info.size, buffers[i]));
    auto file = options.inputs.find(info.name);
    if (file != options.inputs.end())
      loadInput(info, file->second, buffers[i], strings[i]);
    else if (info.dtype == MS_DTYPE_STRING)
      generateStrings(info, buffers[i], strings[i]);
    else
      generate(buffers[i].data(), info.dtype,
               info.size / ms_dtype_size(info.dtype),
               options.seed * 0x100000001b3ull + i + 1);
    inputs.push_back(
        TensorView{buffers[i].data(), info.size, info.dtype, info.shape});
  }
  std::vector<Buffer> deviceInputs(inputInfo.size());
  if (!onHost)
    for (size_t i = 0; i < inputInfo.size(); ++i) {
      check(Buffer::allocate(device, inputInfo[i].size, deviceInputs[i]));
      check(deviceInputs[i].write(0, buffers[i].data(), inputInfo[i].size));
      inputs[i].data = deviceInputs[i].data();
    }

  // Fail before running when the outputs cannot be written.
  if (report && !options.outputDir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.outputDir, error);
    if (error)
      throw Failure{options.outputDir +
                    ": cannot create directory: " + error.message()};
  }

  Context context;
  check(Context::create(module, comm, context));
  std::vector<TensorView> outputs(outputInfo.size());
  // The npu simulator records the first run on rank 0; the cpu every run of
  // every rank, each rank writing its own file.
  bool trace = npu && report && !options.trace.empty();
  bool traceRuns = !npu && !options.trace.empty();
  if (trace)
    check(device.traceBegin());
  std::string traceFile =
      rankTraceFile(options.trace, comm.rank(), comm.worldSize());
  if (traceRuns) {
    // Fail before running when the timeline cannot be written.
    std::string parent = std::filesystem::path(traceFile).parent_path();
    if (access(parent.empty() ? "." : parent.c_str(), W_OK | X_OK) != 0)
      throw Failure{traceFile +
                    ": cannot write the trace: " + std::strerror(errno)};
    check(context.setTrace(true));
  }
  auto writeRunTrace = [&] {
    if (traceRuns)
      check(context.writeTrace(traceFile, comm.rank()));
  };
  check(context.run(inputs, outputs));
  if (trace)
    check(device.traceWrite(options.trace));
  std::vector<TensorView> ranOutputs = outputs;
  // Device outputs are read back into host buffers.
  std::vector<Buffer> hostOutputs(outputInfo.size());
  if (!onHost)
    for (size_t i = 0; i < outputInfo.size(); ++i) {
      Buffer wrapped;
      check(Buffer::wrap(device, outputs[i].data, outputs[i].size, wrapped));
      check(Buffer::allocate(host, outputs[i].size, hostOutputs[i]));
      check(wrapped.read(0, hostOutputs[i].data(), outputs[i].size));
      outputs[i].data = hostOutputs[i].data();
    }
  if (report)
    for (size_t i = 0; i < outputInfo.size(); ++i)
      printOutput(outputInfo[i], outputs[i]);
  // A fresh device's profile is the first run's.
  if (report && npu)
    printNpuSummary(device.profile());

  if (report && !options.outputDir.empty()) {
    // Every output goes to a temporary name first and is renamed only once
    // all are written: a failure leaves no partial result in DIR.
    std::vector<std::string> finals, temporaries;
    for (const TensorInfo &info : outputInfo) {
      finals.push_back(options.outputDir + "/" + fileNameFor(info.name) +
                       ".npy");
      temporaries.push_back(finals.back() + ".partial");
    }
    try {
      for (size_t i = 0; i < outputInfo.size(); ++i)
        writeOutput(temporaries[i], outputInfo[i], outputs[i]);
      for (size_t i = 0; i < outputInfo.size(); ++i)
        if (std::rename(temporaries[i].c_str(), finals[i].c_str()) != 0)
          throw Failure{finals[i] + ": cannot write: " + std::strerror(errno)};
    } catch (...) {
      for (const std::string &path : temporaries)
        std::remove(path.c_str());
      throw;
    }
  }

  if (options.bench == 0) {
    writeRunTrace();
    return;
  }
  // Time the C entry point directly: no allocation per run.
  std::vector<ms_tensor_t> rawInputs, rawOutputs;
  for (const TensorView &view : inputs)
    rawInputs.push_back(view.raw());
  for (const TensorView &view : ranOutputs)
    rawOutputs.push_back(view.raw());
  auto runOnce = [&] {
    // Outputs with data-dependent extents stay runtime-owned.
    for (size_t i = 0; i < outputInfo.size(); ++i)
      for (int64_t d : outputInfo[i].shape)
        if (d < 0)
          rawOutputs[i].data = nullptr;
    check(context.run(rawInputs.data(), rawInputs.size(), rawOutputs.data(),
                      rawOutputs.size()));
  };
  for (int i = 0; i < 3; ++i)
    runOnce();
  int64_t cyclesBefore = npu ? simulatedCycles(device.profile()) : 0;
  std::vector<double> times;
  times.reserve(options.bench);
  for (uint64_t i = 0; i < options.bench; ++i) {
    auto start = std::chrono::steady_clock::now();
    runOnce();
    auto end = std::chrono::steady_clock::now();
    times.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }
  writeRunTrace();
  // Every rank runs the same number of times (their collectives meet);
  // rank 0 reports.
  if (!report)
    return;
  std::sort(times.begin(), times.end());
  size_t middle = times.size() / 2;
  double median = times.size() % 2 ? times[middle]
                                   : (times[middle - 1] + times[middle]) / 2;
  std::printf("median_ms: %.6f\nmin_ms: %.6f\nmax_ms: %.6f\n", median,
              times.front(), times.back());
  if (npu)
    std::printf("npu_cycles_per_run: %lld\n",
                static_cast<long long>(
                    (simulatedCycles(device.profile()) - cyclesBefore) /
                    int64_t(options.bench)));
}
//===----------------------------------------------------------------------===//
// Launching ranks (--nproc)
//===----------------------------------------------------------------------===//

/// How long the other ranks may go on after one failed, before they are
/// stopped: time to report their own errors (a peer's connection closing
/// is noticed at once).
constexpr std::chrono::seconds kGracePeriod{3};

/// The signal that interrupted the launcher (0: none).
volatile std::sig_atomic_t interruption = 0;

/// Records an interruption of the launcher; launch() then stops the ranks.
extern "C" void onInterrupt(int signal) { interruption = signal; }

/// Returns the launcher variable that is set, or NULL.
const char *launcherVariable() {
  for (const char *name :
       {"MS_RANK", "MS_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (std::getenv(name))
      return name;
  return nullptr;
}

/// Returns "rank K: " when this process is one rank of several (from the
/// launcher's variables), else "".
std::string rankPrefix() {
  for (auto [rank, size] :
       {std::pair{"MS_RANK", "MS_WORLD_SIZE"},
        std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    const char *rankText = std::getenv(rank), *sizeText = std::getenv(size);
    if (rankText && sizeText)
      return std::strcmp(sizeText, "1") == 0
                 ? ""
                 : std::string("rank ") + rankText + ": ";
  }
  return "";
}

/// The state of one rank started by launch().
struct Rank {
  pid_t pid = -1;
  bool running = false;
  /// Its wait status once it has finished.
  int status = 0;
  /// Stopped by the launcher after another rank failed.
  bool stopped = false;
};

/// Returns the file rank `rank` of a launch writes its timeline to.
std::string launchedRankTrace(const std::string &file, uint64_t rank) {
  return file + ".rank" + std::to_string(rank);
}

/// Merges the timelines the `ranks` ranks wrote (launchedRankTrace) into
/// `file`: their events, one process per rank, in one trace. Throws
/// Failure when one is missing or malformed, or `file` cannot be written.
void mergeRankTraces(const std::string &file, uint64_t ranks) {
  std::string events;
  uint64_t dropped = 0;
  for (uint64_t r = 0; r < ranks; ++r) {
    std::string path = launchedRankTrace(file, r);
    std::FILE *in = std::fopen(path.c_str(), "rb");
    if (!in)
      throw Failure{path + ": cannot read rank " + std::to_string(r) +
                    "'s trace: " + std::strerror(errno)};
    std::string text;
    char chunk[65536];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof(chunk), in)) > 0)
      text.append(chunk, got);
    bool readFailed = std::ferror(in) != 0;
    std::fclose(in);
    // Ordered: the events keep their keys' order (name first).
    nlohmann::ordered_json trace = nlohmann::ordered_json::parse(
        text, nullptr, /*allow_exceptions=*/false);
    if (readFailed || !trace.is_object() || !trace.contains("traceEvents") ||
        !trace["traceEvents"].is_array())
      throw Failure{path + ": expected rank " + std::to_string(r) +
                    "'s trace (a JSON object with \"traceEvents\"), found "
                    "something else"};
    for (const nlohmann::ordered_json &event : trace["traceEvents"])
      events += (events.empty() ? "" : ",\n") + event.dump();
    if (trace.contains("otherData") && trace["otherData"].is_object())
      dropped += trace["otherData"].value("dropped_spans", uint64_t(0));
  }
  std::string text = "{\"traceEvents\": [\n" + events +
                     "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": "
                     "{\"clock\": \"steady_clock\", \"ranks\": " +
                     std::to_string(ranks) +
                     ", \"dropped_spans\": " + std::to_string(dropped) + "}}\n";
  // Written under a temporary name, then renamed: never seen partially.
  std::string temporary = file + ".tmp." + std::to_string(getpid());
  std::FILE *out = std::fopen(temporary.c_str(), "wb");
  if (!out)
    throw Failure{file + ": cannot write the trace: " + std::strerror(errno)};
  bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  ok &= std::fclose(out) == 0;
  if (ok)
    ok = std::rename(temporary.c_str(), file.c_str()) == 0;
  if (!ok) {
    int error = errno;
    std::remove(temporary.c_str());
    throw Failure{file + ": cannot write the trace: " + std::strerror(error)};
  }
}

/// Starts `options.nproc` ranks of this program with the arguments `argv`
/// minus --nproc, each with MS_RANK, MS_WORLD_SIZE and MS_RENDEZVOUS (a
/// fresh directory, removed afterwards), and waits for them. Returns the
/// exit status: 0 when every rank succeeded.
int launch(int argc, char **argv, const Options &options) {
  if (const char *variable = launcherVariable())
    throw Failure{std::string("--nproc starts the ranks itself, but this "
                              "process is already a rank of a launcher (") +
                  variable + " is set)"};
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i > 0 && arg == "--nproc") {
      ++i;
      continue;
    }
    if (i > 0 && arg.rfind("--nproc=", 0) == 0)
      continue;
    args.push_back(arg);
  }
  std::vector<char *> childArgv;
  for (std::string &arg : args)
    childArgv.push_back(arg.data());
  childArgv.push_back(nullptr);

  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/ms-run-rendezvous-XXXXXX";
  std::vector<char> dirName(pattern.begin(), pattern.end());
  dirName.push_back('\0');
  if (!mkdtemp(dirName.data()))
    throw Failure{pattern + ": cannot create the rendezvous directory: " +
                  std::strerror(errno)};
  std::string rendezvous = dirName.data();
  std::string worldSize = std::to_string(options.nproc);

  std::fflush(stdout);
  std::fflush(stderr);
  // An interrupted launcher stops its ranks and removes the directory
  // before it exits (the ranks get the default handlers back with exec).
  struct sigaction action = {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signal, &action, nullptr);
  pid_t parent = getpid();
  // On the cpu, each rank writes its own timeline; they are merged below.
  bool traceRanks = !options.trace.empty() && options.device == "cpu";
  std::vector<Rank> ranks(options.nproc);
  std::string failure;
  for (uint64_t r = 0; r < options.nproc; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      // A rank must not outlive the launcher.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent)
        _exit(1);
      std::string rank = std::to_string(r);
      setenv("MS_RANK", rank.c_str(), 1);
      setenv("MS_WORLD_SIZE", worldSize.c_str(), 1);
      setenv("MS_RENDEZVOUS", rendezvous.c_str(), 1);
      if (traceRanks)
        setenv(kRankTraceVariable, launchedRankTrace(options.trace, r).c_str(),
               1);
      execv("/proc/self/exe", childArgv.data());
      std::fprintf(stderr, "ms-run: error: rank %s: cannot start: %s\n",
                   rank.c_str(), std::strerror(errno));
      _exit(1);
    }
    if (pid < 0) {
      failure = std::string("cannot start rank ") + std::to_string(r) + ": " +
                std::strerror(errno);
      break;
    }
    ranks[r].pid = pid;
    ranks[r].running = true;
  }

  // Wait for every rank; after the first failure, give the others the
  // grace period, then stop them.
  using Clock = std::chrono::steady_clock;
  int failedRank = -1;
  Clock::time_point deadline = Clock::time_point::max();
  if (!failure.empty())
    deadline = Clock::now();
  for (;;) {
    bool anyRunning = false;
    for (uint64_t r = 0; r < ranks.size(); ++r) {
      Rank &rank = ranks[r];
      if (!rank.running)
        continue;
      int status = 0;
      pid_t done = waitpid(rank.pid, &status, WNOHANG);
      if (done == 0) {
        anyRunning = true;
        continue;
      }
      rank.running = false;
      rank.status = done == rank.pid ? status : 1 << 8;
      bool ok = WIFEXITED(rank.status) && WEXITSTATUS(rank.status) == 0;
      if (!ok && failedRank < 0 && !rank.stopped) {
        failedRank = int(r);
        deadline = std::min(deadline, Clock::now() + kGracePeriod);
      }
    }
    if (!anyRunning)
      break;
    if (interruption && deadline == Clock::time_point::max()) {
      // Ranks in this process group got a terminal's SIGINT already.
      for (Rank &rank : ranks)
        if (rank.running)
          kill(rank.pid, SIGTERM);
      deadline = Clock::now() + kGracePeriod;
    }
    if (Clock::now() >= deadline)
      for (Rank &rank : ranks)
        if (rank.running && !rank.stopped) {
          kill(rank.pid, SIGKILL);
          rank.stopped = true;
        }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::error_code error;
  std::filesystem::remove_all(rendezvous, error);

  // Ranks report their own errors; say what happened to the others.
  bool failed = !failure.empty();
  if (failed)
    std::fprintf(stderr, "ms-run: error: %s\n", failure.c_str());
  if (interruption) {
    failed = true;
    std::fprintf(stderr,
                 "ms-run: error: interrupted by %s; stopped the "
                 "ranks\n",
                 strsignal(interruption));
  }
  for (uint64_t r = 0; r < ranks.size(); ++r) {
    const Rank &rank = ranks[r];
    if (rank.pid < 0)
      continue;
    if (WIFEXITED(rank.status) && WEXITSTATUS(rank.status) == 0)
      continue;
    failed = true;
    if (rank.stopped && failedRank >= 0)
      std::fprintf(stderr,
                   "ms-run: error: rank %llu: stopped %lld s after rank %d "
                   "failed\n",
                   static_cast<unsigned long long>(r),
                   static_cast<long long>(kGracePeriod.count()), failedRank);
    else if (rank.stopped)
      std::fprintf(stderr,
                   "ms-run: error: rank %llu: stopped: not every "
                   "rank could be started\n",
                   static_cast<unsigned long long>(r));
    else if (WIFSIGNALED(rank.status) && !interruption)
      std::fprintf(stderr,
                   "ms-run: error: rank %llu: killed by signal %d "
                   "(%s)\n",
                   static_cast<unsigned long long>(r), WTERMSIG(rank.status),
                   strsignal(WTERMSIG(rank.status)));
  }
  if (failed)
    std::fprintf(stderr, "ms-run: error: %d of %llu ranks failed\n",
                 int(std::count_if(ranks.begin(), ranks.end(),
                                   [](const Rank &rank) {
                                     return rank.pid < 0 ||
                                            !WIFEXITED(rank.status) ||
                                            WEXITSTATUS(rank.status) != 0;
                                   })),
                 static_cast<unsigned long long>(options.nproc));
  if (traceRanks) {
    // The ranks' timelines become one file once every rank succeeded.
    if (!failed) {
      try {
        mergeRankTraces(options.trace, options.nproc);
      } catch (const Failure &merge) {
        failed = true;
        std::fprintf(stderr, "ms-run: error: %s\n", merge.message.c_str());
      }
    }
    for (uint64_t r = 0; r < options.nproc; ++r)
      std::remove(launchedRankTrace(options.trace, r).c_str());
  }
  return failed ? 1 : 0;
}
} // namespace

int main(int argc, char **argv) {
  std::string prefix = rankPrefix();
  try {
    Options options;
    std::string error = parseArgs(argc, argv, options);
    if (options.help) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!error.empty())
      throw Failure{error};
    if (options.nproc > 1)
      return launch(argc, argv, options);
    runTool(options);
    if (std::fflush(stdout) != 0)
      throw Failure{"cannot write to standard output"};
    return 0;
  } catch (const Failure &failure) {
    std::fflush(stdout);
    std::fprintf(stderr, "ms-run: error: %s%s\n", prefix.c_str(),
                 failure.message.c_str());
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "ms-run: error: %sout of memory\n", prefix.c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ms-run: error: %s%s\n", prefix.c_str(), e.what());
  }
  return 1;
}
