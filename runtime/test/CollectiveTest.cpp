//===- CollectiveTest.cpp - collective steps, communicators, ranks --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The "collective" plan step and the communicators it runs over: the
// loader's validation; every operation on a module of one rank (no
// communicator); the launcher's environment; and every operation across 2
// and 4 real processes forked from the test, which join through the gloo
// plugin (a fresh rendezvous directory each) and exchange data over
// loopback TCP. Each rank checks its outputs against values computed here
// from every rank's inputs, independently of the runtime's strided code.
// A peer that exits early must make the others fail, quickly and clearly.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"
#include "ms/runtime/Runtime.h"
#include "npu/Float16.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ms;
using namespace ms::rt;
using namespace ms::test;
using Json = nlohmann::json;

namespace {
//===----------------------------------------------------------------------===//
// Reference tensors
//===----------------------------------------------------------------------===//

/// A tensor of exactly representable values, whatever its dtype.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// The tensor seen as [outer][extent][inner] elements around `axis`.
struct Around {
  size_t outer = 1, extent = 1, inner = 1;
};

Around around(const std::vector<int64_t> &shape, uint32_t axis) {
  Around view;
  for (size_t d = 0; d < shape.size(); ++d)
    (d < axis    ? view.outer
     : d == axis ? view.extent
                 : view.inner) *= size_t(shape[d]);
  return view;
}

/// Splits `tensor` into `parts` equal blocks along `axis`.
std::vector<Tensor> split(const Tensor &tensor, uint32_t axis, size_t parts) {
  Around view = around(tensor.shape, axis);
  size_t block = view.extent / parts;
  std::vector<Tensor> blocks(parts);
  for (size_t j = 0; j < parts; ++j) {
    blocks[j].shape = tensor.shape;
    blocks[j].shape[axis] = int64_t(block);
    for (size_t o = 0; o < view.outer; ++o)
      for (size_t e = j * block; e < (j + 1) * block; ++e)
        for (size_t i = 0; i < view.inner; ++i)
          blocks[j].values.push_back(
              tensor.values[(o * view.extent + e) * view.inner + i]);
  }
  return blocks;
}

/// Concatenates `parts` (of one shape) along `axis`.
Tensor concat(const std::vector<Tensor> &parts, uint32_t axis) {
  Tensor result;
  result.shape = parts[0].shape;
  result.shape[axis] *= int64_t(parts.size());
  Around view = around(parts[0].shape, axis);
  for (size_t o = 0; o < view.outer; ++o)
    for (const Tensor &part : parts)
      for (size_t e = 0; e < view.extent; ++e)
        for (size_t i = 0; i < view.inner; ++i)
          result.values.push_back(
              part.values[(o * view.extent + e) * view.inner + i]);
  return result;
}

/// Reduces `parts` element-wise in order, as `dtype` does: bool sums and
/// maxima are a logical or, products and minima a logical and.
Tensor reduce(const std::vector<Tensor> &parts, const std::string &dtype,
              const std::string &reduction) {
  Tensor result = parts[0];
  for (size_t j = 1; j < parts.size(); ++j)
    for (size_t k = 0; k < result.values.size(); ++k) {
      double a = result.values[k], b = parts[j].values[k];
      double &out = result.values[k];
      if (dtype == "bool")
        out = reduction == "sum" || reduction == "max" ? double(a || b)
                                                       : double(a && b);
      else if (reduction == "sum")
        out = a + b;
      else if (reduction == "prod")
        out = a * b;
      else if (reduction == "max")
        out = std::max(a, b);
      else
        out = std::min(a, b);
    }
  return result;
}

/// Returns rank `rank`'s source of `spec` in variant `variant` (another
/// run, another step): small integers, exact in every dtype and in every
/// sum or product of four of them.
Tensor source(const CollectiveSpec &spec, int rank, size_t variant) {
  Tensor tensor{spec.shape, {}};
  size_t count = around(spec.shape, 0).extent * around(spec.shape, 0).inner;
  if (spec.shape.empty())
    count = 1;
  bool reducing = spec.op == "all_reduce" || spec.op == "reduce_scatter";
  for (size_t k = 0; k < count; ++k) {
    double value;
    if (spec.dtype == "bool")
      value = (size_t(rank) + k + variant) % 3 == 0 ? 1 : 0;
    else if (reducing && spec.reduction == "prod")
      value = 1 + double((size_t(rank) + k + variant) % 2);
    else
      value = (rank + 1) * 3 + double((k + variant) % 5) -
              (spec.dtype[0] == 'u' ? 0 : 2);
    tensor.values.push_back(value);
  }
  return tensor;
}

/// Returns what rank `rank` must receive from `spec` when every rank's
/// source is source(spec, r, variant).
Tensor expected(const CollectiveSpec &spec, int rank, size_t variant) {
  const std::vector<int> *members = nullptr;
  size_t position = 0;
  for (const std::vector<int> &group : spec.groups)
    for (size_t i = 0; i < group.size(); ++i)
      if (group[i] == rank) {
        members = &group;
        position = i;
      }
  std::vector<Tensor> sources;
  for (int member : *members)
    sources.push_back(source(spec, member, variant));
  size_t g = members->size();
  if (spec.op == "all_reduce")
    return reduce(sources, spec.dtype, spec.reduction);
  if (spec.op == "all_gather")
    return concat(sources, spec.axis);
  if (spec.op == "broadcast")
    return sources[spec.root];
  if (spec.op == "all_slice")
    return split(sources[position], spec.axis, g)[position];
  std::vector<Tensor> blocks;
  for (const Tensor &tensor : sources)
    blocks.push_back(split(tensor, spec.axis, g)[position]);
  if (spec.op == "reduce_scatter")
    return reduce(blocks, spec.dtype, spec.reduction);
  return concat(blocks, spec.concatAxis); // all_to_all
}

/// Returns the bytes of `tensor` as dtype `dtype`.
std::vector<uint8_t> encode(const Tensor &tensor, const std::string &dtype) {
  ms_dtype_t type = ms_dtype_from_name(dtype.c_str());
  size_t size = ms_dtype_size(type);
  std::vector<uint8_t> bytes(tensor.values.size() * size);
  for (size_t k = 0; k < tensor.values.size(); ++k) {
    double v = tensor.values[k];
    uint8_t *at = bytes.data() + k * size;
    auto store = [&](auto value) { std::memcpy(at, &value, sizeof(value)); };
    switch (type) {
    case MS_DTYPE_F16:
      store(rt::impl::npu::floatToHalf(float(v)));
      break;
    case MS_DTYPE_BF16:
      store(rt::impl::npu::floatToBf16(float(v)));
      break;
    case MS_DTYPE_F32:
      store(float(v));
      break;
    case MS_DTYPE_F64:
      store(v);
      break;
    case MS_DTYPE_BOOL:
    case MS_DTYPE_U8:
      store(uint8_t(v));
      break;
    case MS_DTYPE_I8:
      store(int8_t(v));
      break;
    case MS_DTYPE_I16:
      store(int16_t(v));
      break;
    case MS_DTYPE_U16:
      store(uint16_t(v));
      break;
    case MS_DTYPE_I32:
      store(int32_t(v));
      break;
    case MS_DTYPE_U32:
      store(uint32_t(v));
      break;
    case MS_DTYPE_I64:
      store(int64_t(v));
      break;
    case MS_DTYPE_U64:
      store(uint64_t(v));
      break;
    default:
      break;
    }
  }
  return bytes;
}

/// Returns element `k` of `data` (dtype `dtype`) as a double.
double decode(const void *data, const std::string &dtype, size_t k) {
  ms_dtype_t type = ms_dtype_from_name(dtype.c_str());
  const uint8_t *at =
      static_cast<const uint8_t *>(data) + k * ms_dtype_size(type);
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  };
  switch (type) {
  case MS_DTYPE_F16:
    return rt::impl::npu::halfToFloat(load(uint16_t()));
  case MS_DTYPE_BF16:
    return rt::impl::npu::bf16ToFloat(load(uint16_t()));
  case MS_DTYPE_F32:
    return load(float());
  case MS_DTYPE_F64:
    return load(double());
  case MS_DTYPE_BOOL:
  case MS_DTYPE_U8:
    return load(uint8_t());
  case MS_DTYPE_I8:
    return load(int8_t());
  case MS_DTYPE_I16:
    return load(int16_t());
  case MS_DTYPE_U16:
    return load(uint16_t());
  case MS_DTYPE_I32:
    return load(int32_t());
  case MS_DTYPE_U32:
    return load(uint32_t());
  case MS_DTYPE_I64:
    return double(load(int64_t()));
  case MS_DTYPE_U64:
    return double(load(uint64_t()));
  default:
    return 0;
  }
}

/// Names `spec` in failure messages.
std::string describe(const CollectiveSpec &spec) {
  std::string text =
      spec.op + " " + spec.dtype + " over " + Json(spec.groups).dump();
  if (spec.op == "all_reduce" || spec.op == "reduce_scatter")
    text += " " + spec.reduction;
  if (spec.op != "all_reduce" && spec.op != "broadcast")
    text += " axis " + std::to_string(spec.axis);
  if (spec.op == "all_to_all")
    text += " concat " + std::to_string(spec.concatAxis);
  if (spec.op == "broadcast")
    text += " root " + std::to_string(spec.root);
  return text;
}

/// Returns "" when `data` holds `want` as `spec.dtype`, else the first
/// difference.
std::string compare(const CollectiveSpec &spec, const std::string &name,
                    const void *data, const std::vector<int64_t> &shape,
                    const Tensor &want) {
  if (shape != want.shape)
    return name + " (" + describe(spec) + "): shape " + Json(shape).dump() +
           ", expected " + Json(want.shape).dump();
  for (size_t k = 0; k < want.values.size(); ++k) {
    double got = decode(data, spec.dtype, k);
    if (got != want.values[k])
      return name + " (" + describe(spec) + "): element " + std::to_string(k) +
             " is " + std::to_string(got) + ", expected " +
             std::to_string(want.values[k]);
  }
  return "";
}

/// Runs the module of `specs` (built by collectiveModule) at `path` on
/// `context` with rank `rank`'s inputs of `variant`, synchronously or
/// queued on `stream`, and checks every output; with `device`, the inputs
/// and outputs are in its memory (copied there and back). Returns "" or what
/// failed.
std::string runAndCheck(Context &context,
                        const std::vector<CollectiveSpec> &specs, int rank,
                        size_t variant, Stream *stream = nullptr,
                        const Device *device = nullptr) {
  std::vector<std::vector<uint8_t>> data;
  std::vector<Buffer> buffers(specs.size());
  std::vector<TensorView> inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    data.push_back(encode(source(specs[i], rank, variant + i), specs[i].dtype));
    void *at = data.back().data();
    if (device) {
      Status status = Buffer::allocate(*device, data.back().size(), buffers[i]);
      if (status.ok())
        status = buffers[i].write(0, data.back().data(), data.back().size());
      if (!status.ok())
        return std::string("input: ") + status.message();
      at = buffers[i].data();
    }
    inputs.push_back(TensorView{at, data.back().size(),
                                ms_dtype_from_name(specs[i].dtype.c_str()),
                                specs[i].shape});
  }
  std::vector<TensorView> outputs(specs.size());
  Status status = stream ? context.enqueue(*stream, inputs, outputs)
                         : context.run(inputs, outputs);
  if (status.ok() && stream)
    status = stream->synchronize();
  if (!status.ok())
    return std::string("run: ") + status.message();
  for (size_t i = 0; i < specs.size(); ++i) {
    // Runtime-owned outputs on `device` are read back first.
    std::vector<uint8_t> host;
    const void *at = outputs[i].data;
    if (device) {
      host.resize(outputs[i].size);
      Buffer wrapped;
      status = Buffer::wrap(*device, outputs[i].data, outputs[i].size, wrapped);
      if (status.ok())
        status = wrapped.read(0, host.data(), host.size());
      if (!status.ok())
        return std::string("output: ") + status.message();
      at = host.data();
    }
    std::string problem =
        compare(specs[i], "y" + std::to_string(i), at, outputs[i].shape,
                expected(specs[i], rank, variant + i));
    if (!problem.empty())
      return problem;
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Processes
//===----------------------------------------------------------------------===//

/// Returns where the plugins were built, or "" when gloo's is missing.
std::string glooPlugin() {
  std::string path =
      std::string(MS_COMM_PLUGIN_DIR_FOR_TESTS) + "/libms_comm_gloo.so";
  struct stat info;
  return stat(path.c_str(), &info) == 0 ? path : "";
}

/// How one rank process ended.
struct RankResult {
  /// Its exit code (-1 when it did not exit normally).
  int exitCode = -1;
  /// What it reported ("" on success).
  std::string log;
};

/// Runs `body(rank)` in `world` processes forked from the test, each with
/// the environment a launcher gives a rank (MS_RANK, MS_WORLD_SIZE,
/// MS_RENDEZVOUS: a fresh directory) and MS_COMM_TIMEOUT `timeout`. A body
/// returns "" or what went wrong; the process exits 0 or 1 accordingly.
/// Processes still running after `limit` are killed.
std::vector<RankResult>
runRanks(int world, const std::function<std::string(int)> &body,
         const std::string &timeout = "20",
         std::chrono::seconds limit = std::chrono::seconds(120)) {
  TempDir dir;
  std::string rendezvous = dir.file("rendezvous");
  mkdir(rendezvous.c_str(), 0700);
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids(world, -1);
  for (int rank = 0; rank < world; ++rank) {
    pid_t pid = fork();
    if (pid == 0) {
      setenv("MS_RANK", std::to_string(rank).c_str(), 1);
      setenv("MS_WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("MS_RENDEZVOUS", rendezvous.c_str(), 1);
      setenv("MS_COMM_TIMEOUT", timeout.c_str(), 1);
      std::string log;
      try {
        log = body(rank);
      } catch (const std::exception &e) {
        log = std::string("exception: ") + e.what();
      }
      writeFile(dir.file("rank" + std::to_string(rank) + ".log"),
                std::vector<uint8_t>(log.begin(), log.end()));
      // No destructors or atexit handlers of the test process.
      _exit(log.empty() ? 0 : 1);
    }
    pids[rank] = pid;
  }
  std::vector<RankResult> results(world);
  auto deadline = std::chrono::steady_clock::now() + limit;
  for (int rank = 0; rank < world; ++rank) {
    if (pids[rank] < 0) {
      results[rank].log = "fork failed";
      continue;
    }
    int status = 0;
    for (;;) {
      pid_t done = waitpid(pids[rank], &status, WNOHANG);
      if (done == pids[rank])
        break;
      if (std::chrono::steady_clock::now() >= deadline) {
        for (pid_t pid : pids)
          if (pid > 0)
            kill(pid, SIGKILL);
        waitpid(pids[rank], &status, 0);
        results[rank].log = "still running after " +
                            std::to_string(limit.count()) + " s: killed; ";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (WIFEXITED(status))
      results[rank].exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      results[rank].log +=
          "killed by signal " + std::to_string(WTERMSIG(status)) + "; ";
    std::vector<uint8_t> log =
        readFile(dir.file("rank" + std::to_string(rank) + ".log"));
    results[rank].log += std::string(log.begin(), log.end());
  }
  return results;
}

/// Expects every rank of `results` to have succeeded.
void expectAllSucceeded(const std::vector<RankResult> &results) {
  for (size_t rank = 0; rank < results.size(); ++rank)
    EXPECT_EQ(results[rank].exitCode, 0)
        << "rank " << rank << ": " << results[rank].log;
}

/// Joins the world from the environment, loads the module at `path` on a
/// device of `kind` and creates a context: the start of a rank's body.
/// Returns "" or what failed.
std::string start(int rank, int world, const std::string &path, Comm &comm,
                  Device &device, Module &module, Context &context,
                  ms_device_kind_t kind = MS_DEVICE_CPU) {
  Status status = Comm::createFromEnv(comm);
  if (!status.ok())
    return std::string("comm: ") + status.message();
  if (comm.rank() != rank || comm.worldSize() != world ||
      std::string(comm.backend()) != "gloo")
    return "comm: rank " + std::to_string(comm.rank()) + " of " +
           std::to_string(comm.worldSize()) + " (" + comm.backend() +
           "), expected rank " + std::to_string(rank) + " of " +
           std::to_string(world) + " (gloo)";
  if (!(status = Device::create(kind, device)).ok() ||
      !(status = Module::load(device, path, module)).ok() ||
      !(status = Context::create(module, comm, context)).ok())
    return status.message();
  return "";
}

class CollectiveTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_FALSE(dir.path.empty()); }

  /// Returns the CPU device, created on first use: a test that forks ranks
  /// must not have started the device's threads before (a child of a
  /// multi-threaded process may only use async-signal-safe calls).
  Device &cpu() {
    if (!device.get()) {
      EXPECT_TRUE(Device::create(MS_DEVICE_CPU, device).ok());
    }
    return device;
  }

  /// Writes `parts` to a fresh file; returns its path.
  std::string write(const ModuleParts &parts) {
    std::string path = dir.file("m" + std::to_string(files++) + ".msm");
    EXPECT_TRUE(writeFile(path, parts.build()));
    return path;
  }

  /// Expects `parts` to fail to load with `code` and `text` in the message.
  void expectRejected(const ModuleParts &parts, const std::string &text,
                      ms_status_code_t code = MS_INVALID_ARGUMENT) {
    std::string path = write(parts);
    Module module;
    Status status = Module::load(cpu(), path, module);
    ASSERT_FALSE(status.ok()) << "loaded a module expected to fail: " << text;
    EXPECT_EQ(status.code(), code) << status.message();
    EXPECT_NE(std::string(status.message()).find(path + ": meta: "),
              std::string::npos)
        << status.message();
    EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
        << "expected \"" << text << "\" in: " << status.message();
  }

  /// Runs the module of `specs` compiled for `world` ranks in `world`
  /// processes on devices of `kind`, `runs` times each, and expects every
  /// rank to succeed.
  void runOnRanks(int world, const std::vector<CollectiveSpec> &specs,
                  int runs = 2, ms_device_kind_t kind = MS_DEVICE_CPU) {
    if (glooPlugin().empty())
      GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
    std::string path = write(collectiveModule(uint32_t(world), specs));
    expectAllSucceeded(runRanks(world, [&](int rank) {
      Comm comm;
      Device device;
      Module module;
      Context context;
      std::string problem =
          start(rank, world, path, comm, device, module, context, kind);
      for (int run = 0; run < runs && problem.empty(); ++run)
        problem = runAndCheck(context, specs, rank, size_t(run) * 7, nullptr,
                              &device);
      return problem;
    }));
  }

  TempDir dir;
  Device device;
  int files = 0;
};

/// Every operation, with axis 0 and inner axes, over `groups` of sources of
/// `shape` (rank 2; both extents divisible by the group size).
std::vector<CollectiveSpec> everyOp(std::vector<std::vector<int>> groups,
                                    std::vector<int64_t> shape) {
  std::vector<CollectiveSpec> specs;
  auto add = [&](CollectiveSpec spec) {
    spec.groups = groups;
    if (spec.shape.empty())
      spec.shape = shape;
    specs.push_back(spec);
  };
  for (const char *reduction : {"sum", "prod", "max", "min"}) {
    CollectiveSpec spec{"all_reduce"};
    spec.reduction = reduction;
    add(spec);
  }
  for (uint32_t axis : {0u, 1u}) {
    CollectiveSpec gather{"all_gather"}, slice{"all_slice"};
    gather.axis = slice.axis = axis;
    add(gather);
    add(slice);
    for (const char *reduction : {"sum", "max"}) {
      CollectiveSpec scatter{"reduce_scatter"};
      scatter.axis = axis;
      scatter.reduction = reduction;
      add(scatter);
    }
    for (uint32_t concat : {0u, 1u}) {
      CollectiveSpec spec{"all_to_all"};
      spec.axis = axis;
      spec.concatAxis = concat;
      add(spec);
    }
  }
  for (uint32_t root = 0; root < groups[0].size(); ++root) {
    CollectiveSpec spec{"broadcast"};
    spec.root = root;
    add(spec);
  }
  // Rank 3: a middle axis, and all_to_all between outer and inner axes.
  std::vector<int64_t> cube = {2, shape[0], shape[1]};
  CollectiveSpec gather{"all_gather"}, scatter{"reduce_scatter"},
      swap{"all_to_all"}, slice{"all_slice"};
  gather.shape = scatter.shape = swap.shape = slice.shape = cube;
  gather.axis = 1;
  scatter.axis = 2;
  scatter.reduction = "min";
  swap.axis = 2;
  swap.concatAxis = 0;
  slice.axis = 1;
  for (const CollectiveSpec &spec : {gather, scatter, swap, slice})
    add(spec);
  // A scalar all_reduce, and empty tensors.
  CollectiveSpec scalar{"all_reduce"};
  scalar.shape = {};
  scalar.groups = groups;
  specs.push_back(scalar);
  CollectiveSpec empty{"all_gather", "f32", {0, 2}, groups};
  empty.axis = 1;
  specs.push_back(empty);
  empty.op = "all_reduce";
  specs.push_back(empty);
  return specs;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

TEST_F(CollectiveTest, LoadsValidSteps) {
  std::vector<CollectiveSpec> specs = everyOp({{0, 1}, {2, 3}}, {4, 6});
  std::string path = write(collectiveModule(4, specs));
  Module module;
  Status status = Module::load(cpu(), path, module);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(module.outputCount(), specs.size());
  // The destination shapes the step implies are the outputs'.
  EXPECT_EQ(module.output(4).shape, (std::vector<int64_t>{8, 6}));
}

TEST_F(CollectiveTest, RejectsInvalidSteps) {
  CollectiveSpec base{"all_gather"};
  base.shape = {4, 6};
  base.groups = {{0, 1}, {2, 3}};
  base.axis = 1;
  auto edited = [&](const std::function<void(Json &)> &edit,
                    uint32_t ranks = 4) {
    ModuleParts parts = collectiveModule(ranks, {base});
    edit(parts.meta["steps"][0]);
    return parts;
  };
  auto reject = [&](const std::function<void(Json &)> &edit,
                    const std::string &text,
                    ms_status_code_t code = MS_INVALID_ARGUMENT) {
    SCOPED_TRACE(text);
    expectRejected(edited(edit), text, code);
  };
  reject([](Json &step) { step["op"] = "all_scatter"; },
         "steps[0].op: unsupported collective \"all_scatter\"",
         MS_UNIMPLEMENTED);
  reject([](Json &step) { step["dtype"] = "f8"; },
         "steps[0].dtype: unknown dtype \"f8\"");
  reject([](Json &step) { step["dtype"] = "string"; },
         "steps[0].dtype: expected a numeric dtype, found string");
  reject([](Json &step) { step["shape"] = {4, -1}; },
         "steps[0].shape[1]: expected a static extent >= 0, found -1");
  reject([](Json &step) { step.erase("groups"); },
         "steps[0]: missing \"groups\"");
  reject([](Json &step) { step["groups"] = Json::array(); },
         "steps[0].groups: expected at least one group");
  reject([](Json &step) { step["groups"] = {{0, 1}, {2}}; },
         "steps[0].groups[1]: expected 2 ranks, as in groups[0], found 1");
  reject([](Json &step) { step["groups"] = {{0, 1}, {2, 1}}; },
         "steps[0].groups[1][1]: rank 1 appears twice (also in groups[0])");
  reject([](Json &step) { step["groups"] = {{0, 1}, {2, 4}}; },
         "steps[0].groups[1][1]: rank 4 does not exist (the module has 4 "
         "ranks)");
  reject([](Json &step) { step["groups"] = {{0}, {2}, {3}}; },
         "steps[0].groups: expected a partition of ranks 0..3, but rank 1 is "
         "in no group");
  reject([](Json &step) { step["groups"] = Json::array({Json::array()}); },
         "steps[0].groups[0]: expected at least one rank, found an empty "
         "group");
  reject([](Json &step) { step["groups"] = {0, 1}; },
         "steps[0].groups[0]: expected an array of ranks");
  reject([](Json &step) { step["axis"] = 2; },
         "steps[0].axis: expected an axis below the rank 2 of the source "
         "f32[4,6], found 2");
  reject([](Json &step) { step.erase("axis"); }, "steps[0]: missing \"axis\"");
  reject([](Json &step) { step.erase("src"); },
         "steps[0]: missing \"src\" or \"dst\"");
  reject([](Json &step) { step["dst"] = 99; },
         "steps[0].dst: buffer 99 does not exist");
  reject([](Json &step) { step["dst"] = 0; },
         "steps[0].dst: buffer 0 is read-only (an input or a weight)");
  reject([](Json &step) { step["shape"] = {4, 8}; },
         "steps[0].src: buffer 0 holds 96 bytes, but the source f32[4,8] "
         "needs 128");
  // A destination buffer smaller than the step's result (the output's
  // signature agreeing with the buffer).
  ModuleParts parts = edited([](Json &) {});
  parts.meta["buffers"][1]["size"] = 96;
  parts.meta["outputs"][0]["shape"] = {4, 6};
  expectRejected(parts, "steps[0].dst: buffer 1 holds 96 bytes, but the "
                        "destination f32[4,12] needs 192");
}

TEST_F(CollectiveTest, RejectsOperationSpecificErrors) {
  auto reject = [&](CollectiveSpec spec,
                    const std::function<void(Json &)> &edit,
                    const std::string &text) {
    SCOPED_TRACE(text);
    if (spec.groups.empty())
      spec.groups = {{0, 1}};
    if (spec.shape.empty())
      spec.shape = {4, 6};
    ModuleParts parts = collectiveModule(2, {spec});
    edit(parts.meta["steps"][0]);
    expectRejected(parts, text);
  };
  auto none = [](Json &) {};
  CollectiveSpec reduce{"all_reduce"};
  reject(
      reduce, [](Json &step) { step["reduction"] = "mean"; },
      "steps[0].reduction: unknown reduction \"mean\" (expected sum, "
      "prod, max or min)");
  reject(
      reduce, [](Json &step) { step.erase("reduction"); },
      "steps[0]: missing \"reduction\"");
  CollectiveSpec scatter{"reduce_scatter"};
  scatter.shape = {3, 6};
  reject(scatter, none,
         "steps[0].axis: dimension 0 of the source f32[3,6] (3) is not "
         "divisible by the group size 2");
  CollectiveSpec slice{"all_slice"};
  slice.shape = {4, 5};
  slice.axis = 1;
  reject(slice, none,
         "steps[0].axis: dimension 1 of the source f32[4,5] (5) is not "
         "divisible by the group size 2");
  CollectiveSpec swap{"all_to_all"};
  swap.shape = {4, 3};
  swap.axis = 1;
  reject(swap, none,
         "steps[0].split_axis: dimension 1 of the source f32[4,3] (3) is not "
         "divisible by the group size 2");
  reject(
      CollectiveSpec{"all_to_all"}, [](Json &step) { step["concat_axis"] = 5; },
      "steps[0].concat_axis: expected an axis below the rank 2");
  CollectiveSpec broadcast{"broadcast"};
  reject(
      broadcast, [](Json &step) { step["root"] = 2; },
      "steps[0].root: expected a position below the group size 2, found "
      "2");
  // Only all_reduce and broadcast work in place; nothing on overlapping
  // arena ranges.
  CollectiveSpec gather{"all_gather", "f32", {4, 6}, {{0, 1}}};
  reject(
      gather,
      [](Json &step) {
        step["src"] = 1;
        step["dst"] = 1;
      },
      "steps[0].dst: all_gather cannot write its source buffer 1");
  ModuleParts parts = collectiveModule(2, {gather});
  parts.meta["arena_size"] = 512;
  parts.meta["buffers"].push_back(
      {{"id", 7}, {"kind", "arena"}, {"offset", 0}, {"size", 96}});
  parts.meta["buffers"].push_back(
      {{"id", 8}, {"kind", "arena"}, {"offset", 64}, {"size", 192}});
  parts.meta["steps"][0]["src"] = 7;
  parts.meta["steps"][0]["dst"] = 8;
  expectRejected(parts, "steps[0].dst: buffer 8 overlaps the source buffer "
                        "7 in the arena");
  // The module's rank count.
  parts = collectiveModule(2, {gather});
  parts.meta["ranks"] = 0;
  expectRejected(parts, "root.ranks: expected 1 to 4096 ranks, found 0");
  parts.meta["ranks"] = 4097;
  expectRejected(parts, "root.ranks: expected 1 to 4096 ranks, found 4097");
  parts.meta["ranks"] = "two";
  expectRejected(parts, "root.ranks: expected a non-negative integer");
}

//===----------------------------------------------------------------------===//
// One rank
//===----------------------------------------------------------------------===//

TEST_F(CollectiveTest, EveryOpOnOneRankIsACopy) {
  // A module of one rank needs no communicator: groups of one member.
  std::vector<CollectiveSpec> specs = everyOp({{0}}, {3, 5});
  for (const char *dtype :
       {"f16", "bf16", "f64", "i8", "i32", "i64", "u8", "bool", "u64"}) {
    CollectiveSpec spec{"all_reduce"};
    spec.dtype = dtype;
    spec.shape = {2, 3};
    spec.groups = {{0}};
    specs.push_back(spec);
  }
  std::string path = write(collectiveModule(1, specs));
  Module module;
  Status status = Module::load(cpu(), path, module);
  ASSERT_TRUE(status.ok()) << status.message();
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());
  EXPECT_EQ(runAndCheck(context, specs, 0, 0), "");
  // The same with a communicator of the world of one (no launcher).
  Comm comm;
  ASSERT_TRUE(Comm::createFromEnv(comm).ok());
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.worldSize(), 1);
  EXPECT_STREQ(comm.backend(), "local");
  Context withComm;
  status = Context::create(module, comm, withComm);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(runAndCheck(withComm, specs, 0, 3), "");
  Stream stream;
  ASSERT_TRUE(Stream::create(cpu(), stream).ok());
  EXPECT_EQ(runAndCheck(withComm, specs, 0, 5, &stream), "");
}

/// A plan of two queues (ordered by an event) with collectives on both, an
/// all_reduce in place in the arena, and copies: y0 = all_gather(x0, axis
/// 1) on queue 1, y1 = all_reduce(x1) through the arena on queue 0.
ModuleParts twoQueuePlan(uint32_t ranks, std::vector<std::vector<int>> groups,
                         std::vector<CollectiveSpec> &specs) {
  CollectiveSpec gather{"all_gather"}, reduce{"all_reduce"};
  gather.shape = reduce.shape = {2, 4};
  gather.groups = reduce.groups = groups;
  gather.axis = 1;
  specs = {gather, reduce};
  ModuleParts parts = collectiveModule(ranks, specs);
  Json &meta = parts.meta;
  meta["arena_size"] = 64;
  meta["buffers"].push_back(
      {{"id", 9}, {"kind", "arena"}, {"offset", 0}, {"size", 32}});
  meta["queues"] = 2;
  meta["events"] = 1;
  meta["steps"] = Json::array();
  meta["steps"].push_back(
      {{"kind", "copy"}, {"src", 2}, {"dst", 9}, {"size", 32}});
  meta["steps"].push_back(reduce.step(9, 9));
  meta["steps"].push_back({{"kind", "signal"}, {"event", 0}});
  Json onQueue1 = gather.step(0, 1);
  onQueue1["queue"] = 1;
  meta["steps"].push_back({{"kind", "wait"}, {"event", 0}, {"queue", 1}});
  meta["steps"].push_back(onQueue1);
  meta["steps"].push_back(
      {{"kind", "copy"}, {"src", 9}, {"dst", 3}, {"size", 32}});
  return parts;
}

TEST_F(CollectiveTest, RunsCollectivesOnSeveralQueuesOnOneRank) {
  std::vector<CollectiveSpec> specs;
  std::string path = write(twoQueuePlan(1, {{0}}, specs));
  Module module;
  Status status = Module::load(cpu(), path, module);
  ASSERT_TRUE(status.ok()) << status.message();
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());
  EXPECT_EQ(runAndCheck(context, specs, 0, 0), "");
  Stream stream;
  ASSERT_TRUE(Stream::create(cpu(), stream).ok());
  for (size_t run = 0; run < 5; ++run)
    EXPECT_EQ(runAndCheck(context, specs, 0, run, &stream), "");
}

TEST_F(CollectiveTest, ModuleOfSeveralRanksNeedsItsWorld) {
  CollectiveSpec spec{"all_reduce"};
  spec.shape = {2};
  spec.groups = {{0, 1, 2, 3}};
  std::string path = write(collectiveModule(4, {spec}));
  Module module;
  Status status = Module::load(cpu(), path, module);
  ASSERT_TRUE(status.ok()) << status.message();
  Context context;
  status = Context::create(module, context);
  EXPECT_EQ(status.code(), MS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(status.message()),
            "module '" + path +
                "' was compiled for 4 ranks but runs in a world of 1 "
                "process; launch it with ms-run --nproc 4, python3 -m "
                "ms.launch --nproc 4 or mpirun -np 4");
  Comm comm;
  ASSERT_TRUE(Comm::createFromEnv(comm).ok());
  status = Context::create(module, comm, context);
  EXPECT_NE(std::string(status.message()).find("compiled for 4 ranks"),
            std::string::npos)
      << status.message();
}

//===----------------------------------------------------------------------===//
// The launcher's environment
//===----------------------------------------------------------------------===//

/// Sets environment variables for one scope, restoring them after.
class EnvGuard {
public:
  EnvGuard(std::initializer_list<std::pair<const char *, const char *>> vars) {
    for (auto [name, value] : vars) {
      const char *old = std::getenv(name);
      saved.emplace_back(name,
                         old ? std::optional<std::string>(old) : std::nullopt);
      if (value)
        setenv(name, value, 1);
      else
        unsetenv(name);
    }
  }
  ~EnvGuard() {
    for (auto &[name, value] : saved)
      if (value)
        setenv(name.c_str(), value->c_str(), 1);
      else
        unsetenv(name.c_str());
  }

private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
};

/// Expects creating a communicator from the environment to fail with
/// `text`.
void expectEnvRejected(const std::string &text) {
  Comm comm;
  Status status = Comm::createFromEnv(comm);
  ASSERT_FALSE(status.ok()) << "accepted; expected: " << text;
  EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
      << "expected \"" << text << "\" in: " << status.message();
}

TEST_F(CollectiveTest, RejectsBadLauncherEnvironment) {
  {
    EnvGuard env({{"MS_RANK", "0"}, {"MS_WORLD_SIZE", nullptr}});
    expectEnvRejected("MS_RANK is set but MS_WORLD_SIZE is not");
  }
  {
    EnvGuard env({{"MS_RANK", "2"}, {"MS_WORLD_SIZE", "2"}});
    expectEnvRejected("MS_RANK is 2 but MS_WORLD_SIZE is 2: expected a rank "
                      "below the world size");
  }
  {
    EnvGuard env({{"MS_RANK", "x"}, {"MS_WORLD_SIZE", "2"}});
    expectEnvRejected("MS_RANK: expected an integer from 0 to 4095, found "
                      "'x'");
  }
  {
    EnvGuard env(
        {{"MS_RANK", "0"}, {"MS_WORLD_SIZE", "2"}, {"MS_RENDEZVOUS", nullptr}});
    expectEnvRejected("MS_RENDEZVOUS is not");
  }
  {
    EnvGuard env({{"MS_RANK", "0"},
                  {"MS_WORLD_SIZE", "2"},
                  {"MS_RENDEZVOUS", "/proc/ms-no-such-dir"}});
    expectEnvRejected("MS_RENDEZVOUS: '/proc/ms-no-such-dir' is not a "
                      "directory");
  }
  {
    EnvGuard env({{"MS_COMM_TIMEOUT", "soon"}});
    expectEnvRejected("MS_COMM_TIMEOUT: expected a positive number of "
                      "seconds, found 'soon'");
  }
  {
    EnvGuard env({{"MS_RANK", "0"},
                  {"MS_WORLD_SIZE", "2"},
                  {"MS_RENDEZVOUS", dir.path.c_str()},
                  {"MS_COMM_PLUGIN_DIR", dir.path.c_str()}});
    expectEnvRejected("cannot load the gloo communicator plugin: " + dir.path +
                      "/libms_comm_gloo.so");
  }
  {
    // A world of one from any launcher needs no plugin.
    EnvGuard env({{"OMPI_COMM_WORLD_RANK", "0"},
                  {"OMPI_COMM_WORLD_SIZE", "1"},
                  {"MS_COMM_PLUGIN_DIR", dir.path.c_str()}});
    Comm comm;
    ASSERT_TRUE(Comm::createFromEnv(comm).ok());
    EXPECT_STREQ(comm.backend(), "local");
  }
}

//===----------------------------------------------------------------------===//
// Several processes (gloo over loopback TCP)
//===----------------------------------------------------------------------===//

TEST_F(CollectiveTest, EveryOpOnTwoRanks) {
  runOnRanks(2, everyOp({{0, 1}}, {4, 6}));
}

TEST_F(CollectiveTest, EveryOpOnFourRanks) {
  runOnRanks(4, everyOp({{0, 1, 2, 3}}, {4, 8}));
}

TEST_F(CollectiveTest, EveryOpOnGroupsOfA2x2Layout) {
  // The rows and the columns of a 2x2 mesh of ranks, in one plan.
  std::vector<CollectiveSpec> specs = everyOp({{0, 1}, {2, 3}}, {4, 6});
  for (const CollectiveSpec &spec : everyOp({{0, 2}, {1, 3}}, {2, 4}))
    specs.push_back(spec);
  runOnRanks(4, specs);
}

TEST_F(CollectiveTest, EveryDtypeOnFourRanks) {
  std::vector<CollectiveSpec> specs;
  for (const char *dtype : {"f16", "bf16", "f32", "f64", "i8", "i16", "i32",
                            "i64", "u8", "u16", "u32", "u64", "bool"}) {
    for (const char *reduction : {"sum", "prod", "max", "min"}) {
      CollectiveSpec spec{"all_reduce", dtype, {2, 4}, {{0, 1}, {2, 3}}};
      spec.reduction = reduction;
      specs.push_back(spec);
    }
    CollectiveSpec scatter{"reduce_scatter", dtype, {2, 4}, {{0, 2}, {1, 3}}};
    scatter.axis = 1;
    CollectiveSpec gather{"all_gather", dtype, {2, 3}, {{0, 1, 2, 3}}};
    gather.axis = 1;
    CollectiveSpec swap{"all_to_all", dtype, {4, 2}, {{0, 1, 2, 3}}};
    swap.concatAxis = 1;
    CollectiveSpec broadcast{"broadcast", dtype, {3}, {{0, 1, 2, 3}}};
    broadcast.root = 2;
    for (const CollectiveSpec &spec : {scatter, gather, swap, broadcast})
      specs.push_back(spec);
  }
  runOnRanks(4, specs);
}

TEST_F(CollectiveTest, LargeTensorsOnFourRanks) {
  // Megabytes: gloo splits these into segments and pipelines them.
  CollectiveSpec reduce{"all_reduce", "f32", {512, 1024}, {{0, 1, 2, 3}}};
  CollectiveSpec scatter{
      "reduce_scatter", "bf16", {256, 1024}, {{0, 1}, {2, 3}}};
  scatter.axis = 1;
  CollectiveSpec swap{"all_to_all", "f64", {128, 1024}, {{0, 1, 2, 3}}};
  swap.axis = 1;
  CollectiveSpec gather{"all_gather", "i32", {256, 512}, {{0, 2}, {1, 3}}};
  gather.axis = 1;
  runOnRanks(4, {reduce, scatter, swap, gather}, 1);
}

TEST_F(CollectiveTest, RunsSeveralQueuesStreamsAndContextsOnTwoRanks) {
  if (glooPlugin().empty())
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  std::vector<CollectiveSpec> specs;
  std::string path = write(twoQueuePlan(2, {{0, 1}}, specs));
  std::vector<CollectiveSpec> other = everyOp({{0, 1}}, {2, 2});
  std::string otherPath = write(collectiveModule(2, other));
  expectAllSucceeded(runRanks(2, [&](int rank) {
    Comm comm;
    Device device;
    Module module;
    Context context;
    std::string problem = start(rank, 2, path, comm, device, module, context);
    for (size_t run = 0; run < 3 && problem.empty(); ++run)
      problem = runAndCheck(context, specs, rank, run);
    // Queued runs: plan queue 0 on a stream, queue 1 on the context's own.
    Stream stream;
    if (problem.empty() && !Stream::create(device, stream).ok())
      problem = "cannot create a stream";
    for (size_t run = 3; run < 8 && problem.empty(); ++run)
      problem = runAndCheck(context, specs, rank, run, &stream);
    // A second context, and a second module, in the same world.
    Context second;
    Module otherModule;
    Context third;
    if (problem.empty()) {
      Status status = Context::create(module, comm, second);
      if (status.ok())
        status = Module::load(device, otherPath, otherModule);
      if (status.ok())
        status = Context::create(otherModule, comm, third);
      if (!status.ok())
        problem = std::string("second context: ") + status.message();
    }
    if (problem.empty())
      problem = runAndCheck(second, specs, rank, 9);
    if (problem.empty())
      problem = runAndCheck(third, other, rank, 4);
    if (problem.empty())
      problem = runAndCheck(context, specs, rank, 11, &stream);
    return problem;
  }));
}

TEST_F(CollectiveTest, CollectiveOnItsOwnQueueOverlapsCompute) {
  // y0 = all_reduce(x0) on plan queue 1, and a kernel (x0 + x0 into the
  // arena) on queue 0 after it in plan order. Rank 1 starts late, so rank
  // 0's all_reduce waits for it on a worker while queue 0 goes on: its
  // kernel finishes long before the all_reduce does.
  if (glooPlugin().empty())
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  CollectiveSpec reduce{"all_reduce", "f32", {4}, {{0, 1}}};
  ModuleParts parts = collectiveModule(2, {reduce});
  parts.code = readFile(MS_TEST_KERNELS);
  parts.meta["queues"] = 2;
  parts.meta["arena_size"] = 64;
  parts.meta["buffers"].push_back(
      {{"id", 9}, {"kind", "arena"}, {"offset", 0}, {"size", 16}});
  parts.meta["kernels"] =
      Json::parse(R"([{"name": "ms_kernel_0", "args": [16, 16, 16]}])");
  parts.meta["steps"][0]["queue"] = 1;
  parts.meta["steps"].push_back(
      {{"kind", "launch"}, {"kernel", 0}, {"args", {0, 0, 9}}});
  std::string path = write(parts);
  std::string tracePath = dir.file("overlap.json");
  expectAllSucceeded(runRanks(2, [&](int rank) {
    Comm comm;
    Device device;
    Module module;
    Context context;
    std::string problem = start(rank, 2, path, comm, device, module, context);
    if (!problem.empty())
      return problem;
    if (!context.setTrace(true).ok())
      return std::string("cannot trace");
    for (int run = 0; run < 2; ++run) {
      if (rank == 1)
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
      problem = runAndCheck(context, {reduce}, rank, size_t(run));
      if (!problem.empty())
        return problem;
    }
    if (rank != 0)
      return std::string();
    Status status = context.writeTrace(tracePath, rank);
    if (!status.ok())
      return std::string("trace: ") + status.message();
    std::vector<uint8_t> bytes = readFile(tracePath);
    Json trace = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!trace.is_object())
      return std::string("the trace does not parse");
    // Per run: [start, end] of the all_reduce and of the kernel.
    std::map<int, std::pair<double, double>> reduces, kernels;
    for (const Json &event : trace["traceEvents"]) {
      if (event["ph"] != "X")
        continue;
      double begin = event["ts"].get<double>();
      auto &spans = event["cat"] == "comm" ? reduces : kernels;
      spans[event["args"]["run"].get<int>()] = {
          begin, begin + event["dur"].get<double>()};
    }
    if (reduces.size() != 2 || kernels.size() != 2)
      return "expected 2 comm and 2 compute spans, found " +
             std::to_string(reduces.size()) + " and " +
             std::to_string(kernels.size());
    // Run 0 may find rank 1 first (rank 0's setup can take longer on a
    // loaded machine); in run 1 rank 0 starts right after run 0 while rank 1
    // sleeps 300 ms.
    for (int run = 1; run < 2; ++run) {
      auto [commStart, commEnd] = reduces[run];
      double kernelEnd = kernels[run].second;
      // Rank 1 arrived about 300 ms late.
      if (commEnd - commStart < 100000)
        return "run " + std::to_string(run) + ": the all_reduce took only " +
               std::to_string(commEnd - commStart) + " us";
      if (kernelEnd > commEnd - 50000)
        return "run " + std::to_string(run) +
               ": queue 0's kernel did not run while the all_reduce waited "
               "(kernel ends at " +
               std::to_string(kernelEnd - commStart) +
               " us, the all_reduce at " + std::to_string(commEnd - commStart) +
               " us after it started)";
    }
    return std::string();
  }));
}

TEST_F(CollectiveTest, ConnectsAtTheAddressOfMsCommHost) {
  if (glooPlugin().empty())
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  std::vector<CollectiveSpec> specs = everyOp({{0, 1}}, {2, 2});
  std::string path = write(collectiveModule(2, specs));
  expectAllSucceeded(runRanks(2, [&](int rank) {
    // A name to resolve rather than the default 127.0.0.1.
    setenv("MS_COMM_HOST", "localhost", 1);
    Comm comm;
    Device device;
    Module module;
    Context context;
    std::string problem = start(rank, 2, path, comm, device, module, context);
    return problem.empty() ? runAndCheck(context, specs, rank, 0) : problem;
  }));
  // An address that does not resolve fails joining, naming it.
  expectAllSucceeded(runRanks(
      2,
      [&](int) -> std::string {
        setenv("MS_COMM_HOST", "ms-no-such-host.invalid", 1);
        Comm comm;
        Status status = Comm::createFromEnv(comm);
        std::string message = status.message();
        if (status.ok() ||
            message.find("failed: cannot resolve MS_COMM_HOST "
                         "'ms-no-such-host.invalid': ") == std::string::npos)
          return "unexpected result: " + message;
        return "";
      },
      "5"));
}

/// Returns the seconds since `start`.
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST_F(CollectiveTest, MissingRankMakesJoiningTimeOut) {
  if (glooPlugin().empty())
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  // Rank 1 never joins.
  std::vector<RankResult> results = runRanks(
      2,
      [](int rank) -> std::string {
        if (rank == 1)
          return "";
        auto begin = std::chrono::steady_clock::now();
        Comm comm;
        Status status = Comm::createFromEnv(comm);
        double seconds = secondsSince(begin);
        if (status.ok())
          return "joined a world whose rank 1 never started";
        std::string message = status.message();
        if (message.find("timed out after 2 s waiting for rank [1] "
                         "(MS_COMM_TIMEOUT") == std::string::npos ||
            status.code() != MS_UNAVAILABLE)
          return "unexpected failure: " + message;
        if (seconds < 1.9 || seconds > 6)
          return "failed after " + std::to_string(seconds) + " s: " + message;
        return "";
      },
      "2");
  expectAllSucceeded(results);
}

TEST_F(CollectiveTest, PeerExitingBeforeConnectingFailsTheOthers) {
  if (glooPlugin().empty())
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  CollectiveSpec spec{"all_reduce"};
  spec.shape = {4};
  spec.groups = {{0, 1, 2}};
  std::string path = write(collectiveModule(3, {spec}));
  // Rank 2 joins the world, then exits before its context connects.
  std::vector<RankResult> results = runRanks(
      3,
      [&](int rank) -> std::string {
        if (rank == 2) {
          Comm comm;
          Status status = Comm::createFromEnv(comm);
          return status.ok() ? "" : status.message();
        }
        Comm comm;
        Device device;
        Module module;
        Context context;
        auto begin = std::chrono::steady_clock::now();
        std::string problem =
            start(rank, 3, path, comm, device, module, context);
        double seconds = secondsSince(begin);
        if (problem.empty())
          return "connected a group whose rank 2 exited";
        if (problem.find("module '" + path +
                         "': cannot connect the groups of steps[0]: gloo: "
                         "rendezvous of the group [0,1,2] failed: timed out "
                         "after 2 s waiting for a peer") == std::string::npos)
          return "unexpected failure: " + problem;
        if (seconds > 8)
          return "failed after " + std::to_string(seconds) + " s: " + problem;
        return "";
      },
      "2");
  expectAllSucceeded(results);
}

TEST_F(CollectiveTest, PeerExitingBetweenRunsFailsTheOthersQuickly) {
  if (glooPlugin().empty())
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  std::vector<CollectiveSpec> specs = everyOp({{0, 1}}, {2, 2});
  std::string path = write(collectiveModule(2, specs));
  // Both ranks run once; then rank 1 exits and rank 0 runs again.
  std::vector<RankResult> results = runRanks(
      2,
      [&](int rank) -> std::string {
        Comm comm;
        Device device;
        Module module;
        Context context;
        std::string problem =
            start(rank, 2, path, comm, device, module, context);
        if (problem.empty())
          problem = runAndCheck(context, specs, rank, 0);
        if (!problem.empty() || rank == 1)
          return problem;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        auto begin = std::chrono::steady_clock::now();
        problem = runAndCheck(context, specs, rank, 1);
        double seconds = secondsSince(begin);
        if (problem.empty())
          return "ran a collective with a peer that had exited";
        if (problem.find("run: steps[0] (all_reduce): gloo: allreduce over "
                         "ranks [0,1] (this is position 0) failed: ") ==
                std::string::npos ||
            (problem.find("the connection to a peer closed") ==
                 std::string::npos &&
             problem.find("timed out after 3 s") == std::string::npos))
          return "unexpected failure: " + problem;
        if (seconds > 8)
          return "failed after " + std::to_string(seconds) + " s: " + problem;
        // The group is unusable from then on: the next run fails at once.
        begin = std::chrono::steady_clock::now();
        problem = runAndCheck(context, specs, rank, 2);
        if (problem.find("the group is unusable after an earlier failure") ==
                std::string::npos ||
            secondsSince(begin) > 1)
          return "second run after the failure: " + problem;
        return "";
      },
      "3");
  expectAllSucceeded(results);
}

TEST_F(CollectiveTest, PeerExitingMidRunFailsTheOthers) {
  if (glooPlugin().empty())
    GTEST_SKIP() << "libms_comm_gloo.so was not built (gloo not found)";
  // Rank 1 fails its run: it skips its collectives (an input it cannot
  // bind), then exits; ranks 0 and 2 wait in their first collective. Rank
  // 1 fails only once both have joined the group (each leaves a file): a
  // rank still connecting when it exits fails there instead (a busy
  // machine, CI's parallel tests, made that race).
  CollectiveSpec spec{"all_gather"};
  spec.shape = {2, 2};
  spec.groups = {{0, 1, 2}};
  spec.axis = 1;
  std::string path = write(collectiveModule(3, {spec}));
  std::vector<RankResult> results = runRanks(
      3,
      [&](int rank) -> std::string {
        Comm comm;
        Device device;
        Module module;
        Context context;
        std::string problem =
            start(rank, 3, path, comm, device, module, context);
        if (!problem.empty())
          return problem;
        auto joined = [&](int r) {
          return dir.file("joined" + std::to_string(r));
        };
        if (rank != 1 && !writeFile(joined(rank), {}))
          return "cannot write " + joined(rank);
        if (rank == 1) {
          auto deadline =
              std::chrono::steady_clock::now() + std::chrono::seconds(60);
          struct stat info;
          while (stat(joined(0).c_str(), &info) != 0 ||
                 stat(joined(2).c_str(), &info) != 0) {
            if (std::chrono::steady_clock::now() > deadline)
              return "ranks 0 and 2 did not join within 60 s";
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
          std::vector<TensorView> outputs(1);
          Status status = context.run({}, outputs);
          return status.ok() ? "ran without its input" : "";
        }
        auto begin = std::chrono::steady_clock::now();
        problem = runAndCheck(context, {spec}, rank, 0);
        double seconds = secondsSince(begin);
        if (problem.find("steps[0] (all_gather): gloo: allgather over ranks "
                         "[0,1,2]") == std::string::npos ||
            seconds > 8)
          return "after " + std::to_string(seconds) +
                 " s, unexpected result: " + problem;
        return "";
      },
      "3");
  expectAllSucceeded(results);
}

//===----------------------------------------------------------------------===//
// Several processes under mpirun (the MPI plugin)
//===----------------------------------------------------------------------===//

/// One rank under mpirun: skipped unless mpirun started this process (see
/// EveryOpOverMpi). Each rank builds the same modules itself.
TEST_F(CollectiveTest, UnderMpirunRank) {
  const char *size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size || std::string(size) != "4")
    GTEST_SKIP() << "runs only as one of 4 ranks started by mpirun "
                    "(CollectiveTest.EveryOpOverMpi)";
  Comm comm;
  Status status = Comm::createFromEnv(comm);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_STREQ(comm.backend(), "mpi");
  ASSERT_EQ(comm.worldSize(), 4);
  int rank = comm.rank();
  std::vector<std::vector<CollectiveSpec>> plans = {
      everyOp({{0, 1, 2, 3}}, {4, 8}), everyOp({{0, 1}, {2, 3}}, {4, 6}),
      everyOp({{0, 2}, {1, 3}}, {2, 4})};
  std::vector<CollectiveSpec> dtypes;
  for (const char *dtype :
       {"f16", "bf16", "f64", "i8", "i32", "i64", "u8", "bool"}) {
    for (const char *reduction : {"sum", "prod", "max", "min"}) {
      CollectiveSpec spec{"all_reduce", dtype, {2, 4}, {{0, 1}, {2, 3}}};
      spec.reduction = reduction;
      dtypes.push_back(spec);
    }
    CollectiveSpec scatter{"reduce_scatter", dtype, {2, 4}, {{0, 1, 2, 3}}};
    scatter.axis = 1;
    scatter.reduction = "max";
    dtypes.push_back(scatter);
  }
  plans.push_back(dtypes);
  for (const std::vector<CollectiveSpec> &specs : plans) {
    std::string path = write(collectiveModule(4, specs));
    Module module;
    status = Module::load(cpu(), path, module);
    ASSERT_TRUE(status.ok()) << status.message();
    Context context;
    status = Context::create(module, comm, context);
    ASSERT_TRUE(status.ok()) << status.message();
    for (size_t run = 0; run < 2; ++run)
      EXPECT_EQ(runAndCheck(context, specs, rank, run), "") << "rank " << rank;
  }
  // Several queues, on a stream.
  std::vector<CollectiveSpec> specs;
  std::string path = write(twoQueuePlan(4, {{0, 1, 2, 3}}, specs));
  Module module;
  ASSERT_TRUE(Module::load(cpu(), path, module).ok());
  Context context;
  ASSERT_TRUE(Context::create(module, comm, context).ok());
  Stream stream;
  ASSERT_TRUE(Stream::create(cpu(), stream).ok());
  for (size_t run = 0; run < 3; ++run)
    EXPECT_EQ(runAndCheck(context, specs, rank, run, &stream), "")
        << "rank " << rank;
}

TEST_F(CollectiveTest, EveryOpOverMpi) {
#ifndef MS_MPIEXEC
  GTEST_SKIP() << "MPI was not found at configure time";
#else
  struct stat info;
  if (stat((std::string(MS_COMM_PLUGIN_DIR_FOR_TESTS) + "/libms_comm_mpi.so")
               .c_str(),
           &info) != 0)
    GTEST_SKIP() << "libms_comm_mpi.so was not built";
  if (std::getenv("OMPI_COMM_WORLD_SIZE"))
    GTEST_SKIP() << "already under mpirun";
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(length, 0);
  self[length] = '\0';
  // mpirun refuses to run as root without the first two; the machine may
  // have fewer cores than ranks; Open MPI's own allocations are still
  // live at exit, and its own locks are taken in both orders (LeakSanitizer
  // or ThreadSanitizer would fail every rank of a sanitized build).
  std::string command =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_rmaps_base_oversubscribe=1 "
      "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" "
      "TSAN_OPTIONS=\"$TSAN_OPTIONS "
      "suppressions=" MS_TEST_TSAN_OPENMPI "\" timeout 300 " MS_MPIEXEC
      " -np 4 " +
      std::string(self) +
      " --gtest_filter=CollectiveTest.UnderMpirunRank --gtest_brief=1 "
      "--gtest_color=no 2>&1";
  std::FILE *pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[4096];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    output.append(chunk, got);
  int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  // Every rank ran the test (none skipped it).
  size_t passed = 0;
  for (size_t at = output.find("[  PASSED  ] 1 test."); at != std::string::npos;
       at = output.find("[  PASSED  ] 1 test.", at + 1))
    ++passed;
  EXPECT_EQ(passed, 4u) << output;
  EXPECT_EQ(output.find("SKIPPED"), std::string::npos) << output;
#endif
}
} // namespace

//===----------------------------------------------------------------------===//
// Device memory (cuda: a GPU, or the stand-ins of
// test/Runtime/cuda-fake-driver.test)
//===----------------------------------------------------------------------===//

/// Returns whether a cuda device can be created. Tried in a child process:
/// a test that forks ranks must not have started a device's threads.
bool cudaAvailable() {
  pid_t child = fork();
  if (child == 0) {
    Device cuda;
    _exit(Device::create(MS_DEVICE_CUDA, cuda).ok() ? 0 : 1);
  }
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child &&
         WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/// Every dtype through every operation on groups of 2 of 2 ranks; NCCL
/// reduces neither i16, u16 nor bool (their reductions run on host copies).
std::vector<CollectiveSpec> everyDtypeOnTwo() {
  std::vector<CollectiveSpec> specs;
  for (const char *dtype : {"f16", "bf16", "f32", "f64", "i8", "i16", "i32",
                            "i64", "u8", "u16", "u32", "u64", "bool"}) {
    for (const char *reduction : {"sum", "prod", "max", "min"}) {
      CollectiveSpec spec{"all_reduce", dtype, {2, 4}, {{0, 1}}};
      spec.reduction = reduction;
      specs.push_back(spec);
    }
    CollectiveSpec scatter{"reduce_scatter", dtype, {2, 4}, {{0, 1}}};
    scatter.axis = 1;
    CollectiveSpec gather{"all_gather", dtype, {2, 3}, {{0, 1}}};
    gather.axis = 1;
    CollectiveSpec swap{"all_to_all", dtype, {4, 2}, {{0, 1}}};
    swap.concatAxis = 1;
    CollectiveSpec broadcast{"broadcast", dtype, {3}, {{0, 1}}};
    broadcast.root = 1;
    for (const CollectiveSpec &spec : {scatter, gather, swap, broadcast})
      specs.push_back(spec);
  }
  return specs;
}

TEST_F(CollectiveTest, EveryOpOnOneCudaRankCopiesOnTheDevice) {
  // Groups of one: each operation is a copy within device memory (rows
  // of blocks for all_slice), run by the device.
  if (!cudaAvailable())
    GTEST_SKIP() << "no cuda device";
  Device cuda;
  ASSERT_TRUE(Device::create(MS_DEVICE_CUDA, cuda).ok());
  std::vector<CollectiveSpec> specs = everyOp({{0}}, {3, 5});
  std::string path = write(collectiveModule(1, specs));
  Module module;
  Status status = Module::load(cuda, path, module);
  ASSERT_TRUE(status.ok()) << status.message();
  Context context;
  ASSERT_TRUE(Context::create(module, context).ok());
  EXPECT_EQ(runAndCheck(context, specs, 0, 0, nullptr, &cuda), "");
  Stream stream;
  ASSERT_TRUE(Stream::create(cuda, stream).ok());
  EXPECT_EQ(runAndCheck(context, specs, 0, 5, &stream, &cuda), "");
}

TEST_F(CollectiveTest, EveryOpOnCudaRanksThroughNccl) {
  // With NCCL on every rank: collectives on device memory through it
  // (each waited for by polling its stream, here busy for a few polls).
  if (!cudaAvailable())
    GTEST_SKIP() << "no cuda device";
  EnvGuard busy({{"MS_FAKE_CUDA_BUSY_QUERIES", "5"}});
  runOnRanks(2, everyOp({{0, 1}}, {4, 6}), 2, MS_DEVICE_CUDA);
  runOnRanks(4, everyOp({{0, 1}, {2, 3}}, {4, 6}), 1, MS_DEVICE_CUDA);
  runOnRanks(2, everyDtypeOnTwo(), 1, MS_DEVICE_CUDA);
  // An NCCL before 2.10 reduces no bf16: those run on host copies.
  EnvGuard old({{"MS_FAKE_NCCL_VERSION", "2708"}});
  runOnRanks(2, everyDtypeOnTwo(), 1, MS_DEVICE_CUDA);
}

TEST_F(CollectiveTest, CudaRanksAgreeWhenOneLacksNccl) {
  // Rank 1 without NCCL (MS_NCCL=0): both run every collective on host
  // copies, rank 0 included, and meet.
  if (!cudaAvailable() || glooPlugin().empty())
    GTEST_SKIP() << "no cuda device or no gloo";
  std::vector<CollectiveSpec> specs = everyOp({{0, 1}}, {4, 6});
  std::string path = write(collectiveModule(2, specs));
  expectAllSucceeded(runRanks(2, [&](int rank) {
    if (rank == 1)
      setenv("MS_NCCL", "0", 1);
    Comm comm;
    Device device;
    Module module;
    Context context;
    std::string problem =
        start(rank, 2, path, comm, device, module, context, MS_DEVICE_CUDA);
    return problem.empty()
               ? runAndCheck(context, specs, rank, 0, nullptr, &device)
               : problem;
  }));
}

TEST_F(CollectiveTest, NcclOperationThatNeverEndsTimesOut) {
  // A stream that stays busy: the operation fails after MS_COMM_TIMEOUT
  // on every rank, naming the call, and the group fails at once after.
  if (!cudaAvailable() || glooPlugin().empty())
    GTEST_SKIP() << "no cuda device or no gloo";
  EnvGuard busy({{"MS_FAKE_CUDA_BUSY_QUERIES", "1000000000000"}});
  CollectiveSpec spec{"all_reduce", "f32", {4}, {{0, 1}}};
  std::string path = write(collectiveModule(2, {spec}));
  std::vector<RankResult> results = runRanks(
      2,
      [&](int rank) {
        Comm comm;
        Device device;
        Module module;
        Context context;
        std::string problem = start(rank, 2, path, comm, device, module,
                                    context, MS_DEVICE_CUDA);
        if (!problem.empty())
          return problem;
        problem = runAndCheck(context, {spec}, rank, 0, nullptr, &device);
        return problem + " | " +
               runAndCheck(context, {spec}, rank, 1, nullptr, &device);
      },
      "1");
  for (size_t rank = 0; rank < results.size(); ++rank) {
    EXPECT_NE(results[rank].exitCode, 0);
    EXPECT_NE(results[rank].log.find("ncclAllReduce: timed out after 1000 ms "
                                     "waiting for a peer"),
              std::string::npos)
        << "rank " << rank << ": " << results[rank].log;
    EXPECT_NE(results[rank].log.find(
                  "ncclAllReduce: the NCCL communicator failed earlier"),
              std::string::npos)
        << "rank " << rank << ": " << results[rank].log;
  }
}

TEST_F(CollectiveTest, EveryOpOnCudaRanksThroughHostCopies) {
  // MS_NCCL=0: each collective copies its source to the host, runs over
  // Gloo and copies its result back (NCCL, set to fail, is not called).
  if (!cudaAvailable())
    GTEST_SKIP() << "no cuda device";
  EnvGuard env({{"MS_NCCL", "0"}, {"MS_FAKE_NCCL_INIT_ERROR", "5"}});
  runOnRanks(2, everyOp({{0, 1}}, {4, 6}), 2, MS_DEVICE_CUDA);
  runOnRanks(2, everyDtypeOnTwo(), 1, MS_DEVICE_CUDA);
}

TEST_F(CollectiveTest, NcclFailureIsAStatusOnEveryCudaRank) {
  if (!cudaAvailable() || glooPlugin().empty())
    GTEST_SKIP() << "no cuda device or no gloo";
  EnvGuard env({{"MS_FAKE_NCCL_INIT_ERROR", "5"}});
  CollectiveSpec spec{"all_reduce", "f32", {4}, {{0, 1}}};
  std::string path = write(collectiveModule(2, {spec}));
  std::vector<RankResult> results = runRanks(2, [&](int rank) {
    Comm comm;
    Device device;
    Module module;
    Context context;
    return start(rank, 2, path, comm, device, module, context,
                 MS_DEVICE_CUDA);
  });
  for (size_t rank = 0; rank < results.size(); ++rank) {
    EXPECT_NE(results[rank].exitCode, 0);
    EXPECT_NE(results[rank].log.find(
                  "cannot connect the cuda device's groups: "
                  "ncclCommInitRank failed: invalid usage (code 5)"),
              std::string::npos)
        << "rank " << rank << ": " << results[rank].log;
  }
}
