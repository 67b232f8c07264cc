//===- Simulate.cpp - timeline simulation of an execution plan ------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/Simulate.h"

#include "ms/Dialect/Exec/Transforms/Passes.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace mlir::ms::exec {
#define GEN_PASS_DEF_SIMULATEPASS
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::ms::exec

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

//===----------------------------------------------------------------------===//
// Presets
//===----------------------------------------------------------------------===//

// Every number below is an input of the model, chosen from vendor data
// sheets and commonly reported benchmark results, not a measurement of ours.
//
// H100 SXM5 (NVIDIA H100 Tensor Core GPU data sheet): 494.7 TFLOP/s dense
// TF32 on the tensor cores (989.4 with sparsity), 3.35 TB/s of HBM3. Large
// GEMMs sustain about 60% of the TF32 peak and streaming kernels about 90%
// of the memory bandwidth, so the model uses 300 TFLOP/s and 3 TB/s. A
// kernel launch costs about 5 us from issue to completion of an empty
// kernel; a host step (a device-to-host sync, host work, the next launch)
// about 10 us.
static constexpr SimDevice kH100 = {/*flops=*/300e12,
                                    /*memoryBandwidth=*/3.0e12,
                                    /*launchOverheadSec=*/5e-6,
                                    /*hostStepSec=*/10e-6};

// This 2-core x86 machine (AVX-512, docs/Performance.md): about 100 GFLOP/s
// in the register-tiled f32 kernels on 2 threads, about 15 GB/s of memory
// bandwidth, about 2 us to fork an OpenMP region per kernel.
static constexpr SimDevice kCpu = {/*flops=*/100e9,
                                   /*memoryBandwidth=*/15e9,
                                   /*launchOverheadSec=*/2e-6,
                                   /*hostStepSec=*/5e-6};

ArrayRef<SimPreset> mlir::ms::exec::getSimPresets() {
  static const SimPreset presets[] = {
      // 8 H100 SXM on NVLink 4 through NVSwitch: nccl-tests report an
      // all-reduce bus bandwidth of about 360 GB/s per GPU for large
      // messages (450 GB/s NVLink per direction) and about 10 us for small
      // ones: the ring's 2 (p - 1) = 14 steps at 0.7 us each.
      {"h100-nvlink", "8 H100 SXM on NVLink 4 / NVSwitch", kH100,
       SimLink{/*latencySec=*/0.7e-6, /*bandwidth=*/360e9}},
      // The same GPUs talking over PCIe through the host (Gen5 x16 is
      // 64 GB/s per direction, Gen4 32 GB/s; staged through host memory
      // collectives reach about 25 GB/s), about 15 us per step.
      {"h100-pcie", "H100 over PCIe Gen5/Gen4 through the host", kH100,
       SimLink{/*latencySec=*/15e-6, /*bandwidth=*/25e9}},
      // H100 nodes on 100 Gb Ethernet (12.5 GB/s line rate, about 11 GB/s
      // of goodput), about 30 us per step (TCP or RoCE, switch).
      {"ethernet", "H100 nodes on 100 GbE", kH100,
       SimLink{/*latencySec=*/30e-6, /*bandwidth=*/11e9}},
      // This machine's ranks: Gloo over loopback TCP, about 3 GB/s and
      // 50 us per step.
      {"cpu", "this 2-core CPU, Gloo over loopback", kCpu,
       SimLink{/*latencySec=*/50e-6, /*bandwidth=*/3e9}},
  };
  return presets;
}

FailureOr<SimPreset> mlir::ms::exec::lookupSimPreset(StringRef name,
                                                     std::string &error) {
  for (const SimPreset &preset : getSimPresets())
    if (preset.name == name)
      return preset;
  error = "expected a simulation preset (" +
          llvm::join(llvm::map_range(getSimPresets(),
                                     [](const SimPreset &preset) {
                                       return StringRef(preset.name);
                                     }),
                     ", ") +
          "), but found '" + name.str() + "'";
  return failure();
}

//===----------------------------------------------------------------------===//
// Cost of a step
//===----------------------------------------------------------------------===//

// FLOPs per element of the ops the model counts per element. They hardly
// matter: on the presets' devices an f32 op reading and writing its
// elements is memory-bound below about 1000 FLOPs per element.
/// Elementwise ops (per result element), transcendental ones included.
static constexpr double kElementwiseFlops = 1;
/// Reductions, scans, arg-max/min (per input element).
static constexpr double kReductionFlops = 1;
/// Softmax (per element): max, subtract, exp, sum, divide.
static constexpr double kSoftmaxFlops = 5;
/// Normalizations (per element): mean, subtract, square, sum, rsqrt,
/// multiply, scale, shift.
static constexpr double kNormFlops = 8;

/// Returns the elements of a statically shaped tensor type, else 0.
static double staticElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape()
             ? static_cast<double>(tensor.getNumElements())
             : 0;
}

/// Returns dim `dim` of a ranked tensor type (negative: from the back), or 0
/// when it is dynamic or out of range.
static double staticDim(Type type, int64_t dim) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0)
    return 0;
  if (dim < 0)
    dim += tensor.getRank();
  if (dim < 0 || dim >= tensor.getRank() || tensor.isDynamicDim(dim))
    return 0;
  return static_cast<double>(tensor.getDimSize(dim));
}

double mlir::ms::exec::getGraphOpFlops(Operation *op) {
  if (!isa<graph::GraphDialect>(op->getDialect()) || op->getNumResults() == 0)
    return 0;
  double out = staticElements(op->getResult(0).getType());
  auto in = [&](unsigned i) {
    return staticElements(op->getOperand(i).getType());
  };
  return llvm::TypeSwitch<Operation *, double>(op)
      // [batch..] x M x K times K x N: 2 * batch * M * N * K, that is two per
      // result element and step of the contracted dim.
      .Case([&](graph::MatMulOp matmul) {
        return 2 * out * staticDim(matmul.getLhs().getType(), -1);
      })
      // Q (B x H x S x D) K^T (B x H x T x D), then P (B x H x S x T) V
      // (B x H x T x Dv): 2 * B * H * S * T * (D + Dv), the 4 * B * H * S *
      // T * D of the literature when D = Dv. Causal, only the (query, key)
      // pairs a query sees count, as the kernel skips the key tiles no
      // query of a tile sees: query i sees min(T, i + offset + 1) keys.
      .Case([&](graph::AttentionOp attention) {
        double keys = staticDim(attention.getKey().getType(), -2);
        double queries = staticDim(attention.getQuery().getType(), -2);
        double seen = keys;
        if (attention.getIsCausal() && queries > 0) {
          // Rows below `partial` see i + offset + 1 keys, the others all.
          double offset = static_cast<double>(attention.getCausalOffset());
          double partial = std::clamp(keys - offset - 1, 0.0, queries);
          seen = (partial * (partial - 1) / 2 + partial * (offset + 1) +
                  (queries - partial) * keys) /
                 queries;
        }
        return 2 * staticElements(attention.getQuery().getType()) * seen +
               2 * out * seen;
      })
      // Weight M x C/group x K1..Kk: each output element sums C/group *
      // K1..Kk products, 2 * N * M * OH * OW * C/group * R * S in 2-d.
      .Case([&](graph::ConvOp conv) {
        double outChannels = staticDim(conv.getWeight().getType(), 0);
        return outChannels > 0
                   ? 2 * out * staticElements(conv.getWeight().getType()) /
                         outChannels
                   : 0.0;
      })
      // Weight C x M/group x K1..Kk: each input element is scattered into
      // M/group * K1..Kk outputs.
      .Case([&](graph::ConvTransposeOp conv) {
        double inChannels = staticDim(conv.getWeight().getType(), 0);
        return inChannels > 0
                   ? 2 * in(0) * staticElements(conv.getWeight().getType()) /
                         inChannels
                   : 0.0;
      })
      // One comparison or addition per window element and output element.
      .Case<graph::MaxPoolOp, graph::AvgPoolOp, graph::MaxPoolIndicesOp>(
          [&](Operation *pool) {
            double window = 1;
            for (int64_t size :
                 cast<DenseI64ArrayAttr>(pool->getAttr("kernel_shape"))
                     .asArrayRef())
              window *= static_cast<double>(size);
            return out * window;
          })
      .Case([&](graph::LRNOp lrn) {
        return out * (2 * static_cast<double>(lrn.getSize()) + kNormFlops);
      })
      .Case<graph::SoftmaxOp, graph::LogSoftmaxOp>(
          [&](Operation *) { return kSoftmaxFlops * out; })
      .Case<graph::BatchNormOp, graph::LayerNormOp, graph::InstanceNormOp>(
          [&](Operation *) { return kNormFlops * out; })
      .Case<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
            graph::ReduceMinOp, graph::ReduceProdOp, graph::ArgMaxOp,
            graph::ArgMinOp, graph::CumSumOp, graph::CumProdOp>(
          [&](Operation *) { return kReductionFlops * in(0); })
      // Data movement and constants compute nothing; their bytes are the
      // kernel's.
      .Case<graph::ConstantOp, graph::ConstantOfShapeOp, graph::ShapeOp,
            graph::RangeOp, graph::IdentityOp, graph::ReshapeOp,
            graph::TransposeOp, graph::ConcatOp, graph::SliceOp,
            graph::GatherOp, graph::GatherElementsOp, graph::ExpandOp,
            graph::TileOp, graph::PadOp>([](Operation *) { return 0.0; })
      // Everything else is elementwise (unary and broadcasting binary math,
      // comparisons, where, cast, resize).
      .Default([&](Operation *) { return kElementwiseFlops * out; });
}

// The ring algorithms' cost of the collectives that move data, on one rank
// of a group of `p` (Patarasuk and Yuan, "Bandwidth optimal all-reduce
// algorithms"; nccl-tests define bus bandwidth so that these hold with
// `link.bandwidth` the busbw). All the formulas are here.
FailureOr<double> mlir::ms::exec::getCollectiveSeconds(CollectiveOp op,
                                                       const SimLink &link,
                                                       uint64_t &bytes) {
  double p = 1;
  if (!op.getGroups().empty())
    p = static_cast<double>(cast<DenseI64ArrayAttr>(op.getGroups()[0]).size());
  uint64_t source =
      cast<BufferType>(op.getSource().getType()).getStaticByteSize();
  uint64_t target =
      cast<BufferType>(op.getTarget().getType()).getStaticByteSize();
  StringRef kind = op.getOp();
  // A ring of p ranks passes a message p - 1 times (latency term); each
  // rank sends (p - 1) / p of the full tensor once per phase.
  auto ring = [&](double phases, uint64_t full) {
    bytes = full;
    if (p <= 1)
      return 0.0;
    return phases * (p - 1) / p * static_cast<double>(full) / link.bandwidth +
           phases * (p - 1) * link.latencySec;
  };
  // all_reduce: a reduce-scatter then an all-gather of the whole tensor,
  // 2 (p - 1) / p * S / bw + 2 (p - 1) latency.
  if (kind == "all_reduce")
    return ring(2, source);
  // all_gather: the source is one block, the target the full tensor;
  // (p - 1) / p * full / bw + (p - 1) latency.
  if (kind == "all_gather")
    return ring(1, target);
  // reduce_scatter: the source is the full tensor, the target one block.
  if (kind == "reduce_scatter")
    return ring(1, source);
  // all_to_all: each rank keeps 1/p of its tensor and sends the rest, p - 1
  // exchanges.
  if (kind == "all_to_all")
    return ring(1, source);
  // broadcast: a pipelined tree, the whole tensor at bandwidth plus
  // log2(p) steps of latency.
  if (kind == "broadcast") {
    bytes = source;
    if (p <= 1)
      return 0.0;
    return static_cast<double>(source) / link.bandwidth +
           std::log2(p) * link.latencySec;
  }
  // all_slice keeps this rank's block: no communication (its local copy
  // is costed as one by the caller).
  if (kind == "all_slice") {
    bytes = 0;
    return 0.0;
  }
  return op.emitOpError("expected a collective all_reduce, all_gather, "
                        "reduce_scatter, all_to_all, all_slice or broadcast, "
                        "but found '")
         << kind << "'";
}

//===----------------------------------------------------------------------===//
// Replay
//===----------------------------------------------------------------------===//

double SimResult::getHiddenFraction() const {
  return commSec > 0 ? hiddenCommSec / commSec : 0;
}

/// Returns the bytes of the buffers `values` (the static sizes).
static uint64_t bufferBytes(ValueRange values) {
  uint64_t bytes = 0;
  for (Value value : values)
    bytes += cast<BufferType>(value.getType()).getStaticByteSize();
  return bytes;
}

namespace {
/// The work of one kernel launch or copy, before any launch overhead.
struct Work {
  std::string name;
  double flops = 0;
  uint64_t bytes = 0;
};

/// Replays one plan.
class PlanSimulator {
public:
  PlanSimulator(PlanOp plan, const SimPreset &preset)
      : plan(plan), device(preset.device), link(preset.link) {}

  FailureOr<SimResult> run();

private:
  /// Returns the FLOPs of the kernel `launch` runs (cached per kernel).
  FailureOr<double> getKernelFlops(LaunchOp launch);
  /// Returns the work of a launch or a copy.
  FailureOr<Work> getWork(Operation *step);
  /// Seconds `work` keeps the device busy: its FLOPs at the peak rate or
  /// its bytes at the memory bandwidth, whichever is longer (roofline).
  double getBusySeconds(const Work &work) const;
  /// Appends a span of `seconds` at the end of `queue` (not before
  /// `notBefore`) and returns it.
  SimSpan &addSpan(Operation *step, std::string name, SimSpanKind kind,
                   int64_t queue, double seconds, double notBefore = 0);
  /// Returns the part of the communication spans that compute spans on
  /// other queues overlap.
  double getHiddenSeconds() const;

  PlanOp plan;
  SimDevice device;
  SimLink link;
  SimResult result;
  /// When each queue has run everything issued to it so far.
  std::map<int64_t, double> queueEnd;
  DenseMap<Operation *, double> flopsOfKernel;
};
} // namespace

FailureOr<double> PlanSimulator::getKernelFlops(LaunchOp launch) {
  Operation *kernel = lookupKernel(launch, launch.getKernel());
  auto it = flopsOfKernel.find(kernel);
  if (kernel && it != flopsOfKernel.end())
    return it->second;
  auto func = dyn_cast_or_null<func::FuncOp>(kernel);
  if (!func)
    return launch.emitOpError("expected kernel ")
           << launch.getKernel()
           << " to be a function of msgraph ops (the plan phase), but found "
           << (kernel ? kernel->getName().getStringRef()
                      : StringRef("no function"));
  double flops = 0;
  WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == func.getOperation())
      return WalkResult::advance();
    if (!isa<graph::GraphDialect, func::FuncDialect, arith::ArithDialect,
             tensor::TensorDialect>(op->getDialect())) {
      launch.emitOpError("expected kernel ")
          << launch.getKernel()
          << " to hold msgraph ops (the plan phase), but found "
          << op->getName();
      return WalkResult::interrupt();
    }
    flops += getGraphOpFlops(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  flopsOfKernel[kernel] = flops;
  return flops;
}

FailureOr<Work> PlanSimulator::getWork(Operation *step) {
  Work work;
  if (auto copy = dyn_cast<CopyOp>(step)) {
    // A copy reads its source and writes its target.
    work.name = "copy";
    work.bytes = bufferBytes({copy.getSource(), copy.getTarget()});
    return work;
  }
  auto launch = cast<LaunchOp>(step);
  FailureOr<double> flops = getKernelFlops(launch);
  if (failed(flops))
    return failure();
  work.name = launch.getKernel().getLeafReference().str();
  work.flops = *flops;
  // The kernel reads its operands and writes its results once each.
  work.bytes = bufferBytes(launch.getArgs());
  return work;
}

double PlanSimulator::getBusySeconds(const Work &work) const {
  return std::max(work.flops / device.flops,
                  static_cast<double>(work.bytes) / device.memoryBandwidth);
}

SimSpan &PlanSimulator::addSpan(Operation *step, std::string name,
                                SimSpanKind kind, int64_t queue, double seconds,
                                double notBefore) {
  double &end = queueEnd[queue];
  SimSpan span;
  span.step = step;
  span.name = std::move(name);
  span.kind = kind;
  span.queue = queue;
  span.startSec = std::max(end, notBefore);
  span.endSec = span.startSec + seconds;
  end = span.endSec;
  result.spans.push_back(std::move(span));
  return result.spans.back();
}

double PlanSimulator::getHiddenSeconds() const {
  // The union of the compute spans of every queue but `queue`, sorted.
  auto computeUnion = [&](int64_t queue) {
    std::vector<std::pair<double, double>> intervals;
    for (const SimSpan &span : result.spans)
      if (span.depth == 0 && span.kind == SimSpanKind::Compute &&
          span.queue != queue && span.endSec > span.startSec)
        intervals.emplace_back(span.startSec, span.endSec);
    llvm::sort(intervals);
    std::vector<std::pair<double, double>> merged;
    for (auto interval : intervals) {
      if (!merged.empty() && interval.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, interval.second);
      else
        merged.push_back(interval);
    }
    return merged;
  };
  std::map<int64_t, std::vector<std::pair<double, double>>> unions;
  double hidden = 0;
  for (const SimSpan &span : result.spans) {
    if (span.kind != SimSpanKind::Communication)
      continue;
    auto it = unions.find(span.queue);
    if (it == unions.end())
      it = unions.emplace(span.queue, computeUnion(span.queue)).first;
    const auto &merged = it->second;
    auto from =
        llvm::lower_bound(merged, span.startSec,
                          [](const std::pair<double, double> &interval,
                             double time) { return interval.second <= time; });
    for (; from != merged.end() && from->first < span.endSec; ++from)
      hidden += std::min(span.endSec, from->second) -
                std::max(span.startSec, from->first);
  }
  return hidden;
}

FailureOr<SimResult> PlanSimulator::run() {
  // When each event was signalled, and when the latest collective ended:
  // the runtime runs a rank's collectives in plan order whatever their
  // queues, so that all ranks meet in the same order.
  DenseMap<Value, double> signalled;
  double collectivesEnd = 0;
  for (Operation &op : plan.getBody().front()) {
    if (isBufferDeclaration(&op))
      continue;
    LogicalResult status =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](SignalOp signal) {
              signalled[signal.getEvent()] = queueEnd[signal.getQueue()];
              return success();
            })
            .Case([&](WaitOp wait) {
              double &end = queueEnd[wait.getQueue()];
              end = std::max(end, signalled.lookup(wait.getEvent()));
              return success();
            })
            .Case<LaunchOp, CopyOp>([&](Operation *step) -> LogicalResult {
              FailureOr<Work> work = getWork(step);
              if (failed(work))
                return failure();
              // A copy is a transfer the queue runs, not a kernel launch.
              double overhead =
                  isa<LaunchOp>(step) ? device.launchOverheadSec : 0;
              int64_t queue = isa<LaunchOp>(step)
                                  ? cast<LaunchOp>(step).getQueue()
                                  : cast<CopyOp>(step).getQueue();
              SimSpan &span = addSpan(step, work->name, SimSpanKind::Compute,
                                      queue, overhead + getBusySeconds(*work));
              span.flops = work->flops;
              span.bytes = work->bytes;
              return success();
            })
            .Case([&](OffloadOp offload) -> LogicalResult {
              // One launch of the whole graph, then its steps back to back.
              SmallVector<Work> works;
              double seconds = device.launchOverheadSec;
              for (Operation &inner : offload.getBody().front()) {
                FailureOr<Work> work = getWork(&inner);
                if (failed(work))
                  return failure();
                seconds += getBusySeconds(*work);
                works.push_back(std::move(*work));
              }
              SimSpan &span =
                  addSpan(offload, offload.getEntry().value_or("offload").str(),
                          SimSpanKind::Compute, offload.getQueue(), seconds);
              double at = span.startSec + device.launchOverheadSec;
              int64_t queue = span.queue;
              double flops = 0;
              uint64_t bytes = 0;
              for (auto [inner, work] :
                   llvm::zip_equal(offload.getBody().front(), works)) {
                SimSpan nested;
                nested.step = &inner;
                nested.name = work.name;
                nested.queue = queue;
                nested.depth = 1;
                nested.startSec = at;
                nested.endSec = at += getBusySeconds(work);
                nested.flops = work.flops;
                nested.bytes = work.bytes;
                flops += work.flops;
                bytes += work.bytes;
                result.spans.push_back(std::move(nested));
              }
              // The offload's own span (before the nested ones: index
              // size - 1 - works.size()).
              SimSpan &own =
                  result.spans[result.spans.size() - 1 - works.size()];
              own.flops = flops;
              own.bytes = bytes;
              return success();
            })
            .Case([&](HostOp host) {
              SimSpan &span = addSpan(host, ("host " + host.getOp()).str(),
                                      SimSpanKind::Compute, host.getQueue(),
                                      device.hostStepSec);
              span.bytes =
                  bufferBytes(host.getIns()) + bufferBytes(host.getOuts());
              return success();
            })
            .Case([&](CollectiveOp collective) -> LogicalResult {
              uint64_t bytes = 0;
              FailureOr<double> seconds =
                  getCollectiveSeconds(collective, link, bytes);
              if (failed(seconds))
                return failure();
              SimSpanKind kind = SimSpanKind::Communication;
              // all_slice copies this rank's block locally.
              if (collective.getOp() == "all_slice") {
                kind = SimSpanKind::Compute;
                bytes = 2 * cast<BufferType>(collective.getTarget().getType())
                                .getStaticByteSize();
                seconds = static_cast<double>(bytes) / device.memoryBandwidth;
              }
              SimSpan &span =
                  addSpan(collective, collective.getOp().str(), kind,
                          collective.getQueue(), *seconds, collectivesEnd);
              span.bytes = bytes;
              collectivesEnd = span.endSec;
              return success();
            })
            .Default([](Operation *other) {
              return other->emitError("expected a plan step or a buffer "
                                      "declaration, but found ")
                     << other->getName();
            });
    if (failed(status))
      return failure();
  }
  for (const auto &[queue, end] : queueEnd)
    result.stepSec = std::max(result.stepSec, end);
  for (const SimSpan &span : result.spans) {
    if (span.depth != 0)
      continue;
    double seconds = span.endSec - span.startSec;
    if (span.kind == SimSpanKind::Compute)
      result.computeSec += seconds;
    else
      result.commSec += seconds;
  }
  result.hiddenCommSec = getHiddenSeconds();
  return std::move(result);
}

FailureOr<SimResult> mlir::ms::exec::simulatePlan(PlanOp plan,
                                                  const SimPreset &preset) {
  return PlanSimulator(plan, preset).run();
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

/// Formats `value` with 4 significant digits, then `unit` (if any).
static std::string formatNumber(double value, StringRef unit = "") {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.4g", value);
  if (!unit.empty())
    os << " " << unit;
  return text;
}

/// Formats `value` with an SI prefix (k, M, G, T) and 4 significant digits.
static std::string formatRate(double value, StringRef unit) {
  static const std::pair<double, StringRef> prefixes[] = {
      {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (auto [scale, prefix] : prefixes)
    if (value >= scale)
      return formatNumber(value / scale, (prefix + unit).str());
  return formatNumber(value, unit);
}

void mlir::ms::exec::printSimulation(const SimPreset &preset,
                                     const SimResult &result,
                                     llvm::raw_ostream &os) {
  // Milliseconds for a step of a millisecond or more, else microseconds.
  bool millis = result.stepSec >= 1e-3;
  auto time = [&](double seconds) {
    return llvm::formatv("{0:f3} {1}", seconds * (millis ? 1e3 : 1e6),
                         millis ? "ms" : "us")
        .str();
  };
  const SimDevice &device = preset.device;
  os << "simulated on " << preset.name
     << " (model: " << formatRate(device.flops, "FLOP/s") << ", "
     << formatRate(device.memoryBandwidth, "B/s") << " memory, "
     << formatNumber(device.launchOverheadSec * 1e6, "us")
     << " per launch; links " << formatRate(preset.link.bandwidth, "B/s")
     << ", " << formatNumber(preset.link.latencySec * 1e6, "us") << "): step "
     << time(result.stepSec) << ", compute " << time(result.computeSec)
     << ", communication " << time(result.commSec) << ", hidden "
     << time(result.hiddenCommSec)
     << llvm::formatv(" ({0:f1}%)\n", result.getHiddenFraction() * 100);
}

LogicalResult mlir::ms::exec::writeSimulationTrace(const SimPreset &preset,
                                                   const SimResult &result,
                                                   StringRef path,
                                                   std::string &error) {
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return failure();
  {
    llvm::json::OStream json(file->os(), /*IndentSize=*/1);
    json.object([&] {
      json.attribute("displayTimeUnit", "ns");
      json.attributeArray("traceEvents", [&] {
        auto metadata = [&](StringRef what, std::optional<int64_t> tid,
                            const std::string &name) {
          json.object([&] {
            json.attribute("name", what);
            json.attribute("ph", "M");
            json.attribute("pid", 0);
            if (tid)
              json.attribute("tid", *tid);
            json.attributeObject("args", [&] { json.attribute("name", name); });
          });
        };
        metadata("process_name", std::nullopt,
                 "rank 0 (simulated on " + preset.name + ")");
        std::map<int64_t, bool> queues;
        for (const SimSpan &span : result.spans)
          queues[span.queue] = true;
        for (const auto &[queue, unused] : queues)
          metadata("thread_name", queue, "queue " + std::to_string(queue));
        for (const SimSpan &span : result.spans)
          json.object([&] {
            json.attribute("name", span.name);
            json.attribute("cat", span.kind == SimSpanKind::Compute
                                      ? "compute"
                                      : "communication");
            json.attribute("ph", "X");
            json.attribute("pid", 0);
            json.attribute("tid", span.queue);
            // Microseconds to the nanosecond, as the report prints them.
            auto micros = [&](StringRef key, double seconds) {
              json.attributeBegin(key);
              json.rawValue(llvm::formatv("{0:f3}", seconds * 1e6).str());
              json.attributeEnd();
            };
            micros("ts", span.startSec);
            micros("dur", span.endSec - span.startSec);
            json.attributeObject("args", [&] {
              json.attribute("flops", span.flops);
              json.attribute("bytes", static_cast<int64_t>(span.bytes));
            });
          });
      });
    });
  }
  file->os() << "\n";
  file->keep();
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct SimulatePass final : exec::impl::SimulatePassBase<SimulatePass> {
  using SimulatePassBase::SimulatePassBase;

  void runOnOperation() override {
    PlanOp plan = getOperation();
    std::string error;
    FailureOr<SimPreset> model = lookupSimPreset(preset, error);
    if (failed(model)) {
      plan.emitError(error);
      return signalPassFailure();
    }
    // Options override the preset's numbers (0: keep the preset's).
    for (auto [option, value, field] :
         {std::tuple{"flops", double(flops), &model->device.flops},
          std::tuple{"bandwidth", double(bandwidth),
                     &model->device.memoryBandwidth},
          std::tuple{"launch-overhead", double(launchOverhead),
                     &model->device.launchOverheadSec},
          std::tuple{"link-bandwidth", double(linkBandwidth),
                     &model->link.bandwidth},
          std::tuple{"link-latency", double(linkLatency),
                     &model->link.latencySec}}) {
      if (value < 0) {
        plan.emitError("expected option '")
            << option << "' to be 0 (the preset's) or positive, but found "
            << formatNumber(value);
        return signalPassFailure();
      }
      if (value > 0)
        *field = value;
    }
    FailureOr<SimResult> result = simulatePlan(plan, *model);
    if (failed(result))
      return signalPassFailure();
    printSimulation(*model, *result, llvm::outs());
    if (!trace.empty() &&
        failed(writeSimulationTrace(*model, *result, trace, error))) {
      plan.emitError("cannot write the simulation trace: ") << error;
      return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
