//===- Simulator.cpp - runs NPU kernels, functionally and in time ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The timing model of docs/NPU.md, per core:
//
//   - the scalar unit issues instruction i at `clock` and advances it by
//     scalarIssueCycles (a loop issues once per iteration);
//   - each pipe is in order: an instruction starts at max(issue, the end of
//     the pipe's previous instruction) and holds the pipe for its cost;
//   - set_flag(src, dst, id) fires when `src` is free (at its issue for s)
//     and appends that time to the FIFO of (src, dst, id); wait_flag pops
//     the oldest fire time and holds `dst` until then (s: the issue clock);
//     an empty FIFO means the wait can never be satisfied: a deadlock;
//   - barrier moves the clock and every pipe to the latest of them;
//   - a step starts on every core, all pipes idle, when the last core has
//     finished the previous step (flags not yet consumed carry over).
//
// The race check keeps, per pipe, the accesses of its instructions (memory,
// byte range, read or write, end time) in end order, which is their order
// on an in-order pipe. An access that overlaps, in memory, one of another
// pipe's records ending after it starts (one of the two writing) is a race.
// A record of pipe Q is dropped once every other pipe's next instruction
// must start after it ends.
//
//===----------------------------------------------------------------------===//

#include "npu/Simulator.h"
#include "core/Util.h"
#include "npu/Compute.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

using ms::rt::Status;
using namespace ms::rt::impl::npu;

namespace {
/// The most instructions one core may run in a launch.
constexpr int64_t kMaxSteps = int64_t(1) << 32;
/// The most elements one instruction may touch.
constexpr int64_t kMaxElements = int64_t(1) << 32;
/// Bytes the vector unit processes as one block.
constexpr int64_t kVecBlockBytes = 32;

/// Returns ceil(a / b) for a >= 0, b > 0.
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Returns the bytes a transfer pays for when it reads `dims` through
/// `strides`: every contiguous run of elements rounded up to whole bursts.
int64_t transferBytes(const Dims &dims, const Strides &strides, int64_t size,
                      int64_t burst) {
  int64_t count = elementCount(dims);
  if (count == 0)
    return 0;
  // Grow the run over the inner dimensions while they are contiguous.
  int64_t run = 1;
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (dims[d] == 1)
      continue;
    if (strides[d] != run)
      break;
    run *= dims[d];
  }
  return count / run * ceilDiv(run * size, burst) * burst;
}

/// Zeroed host memory from calloc: pages a program never touches cost
/// nothing, which matters for a core's 1.6 MiB of on-chip memories.
class ZeroedBytes {
public:
  /// Allocates `size` zeroed bytes; throws std::bad_alloc on failure.
  explicit ZeroedBytes(int64_t size = 0) : bytes(size) {
    if (size > 0)
      memory.reset(static_cast<uint8_t *>(std::calloc(size_t(size), 1)));
    if (size > 0 && !memory)
      throw std::bad_alloc();
  }
  uint8_t *data() const { return memory.get(); }
  int64_t size() const { return bytes; }

private:
  struct Free {
    void operator()(uint8_t *pointer) const { std::free(pointer); }
  };
  std::unique_ptr<uint8_t, Free> memory;
  int64_t bytes;
};

/// The GM of a launch, shared by its cores.
struct GlobalMemory {
  /// The kernel's arguments and their byte sizes.
  std::vector<uint8_t *> args;
  std::vector<int64_t> argSizes;
  /// The launch's scratch buffers.
  std::vector<ZeroedBytes> scratch;
};

/// A core's on-chip memories, indexed by Space (GM unused); each is
/// allocated on first use.
using OnChipMemory = std::array<ZeroedBytes, 6>;

/// One range an instruction reads or writes.
struct Access {
  Space space = Space::GM;
  /// For GM: the buffer.
  bool scratch = false;
  int buffer = 0;
  /// For GM: the buffer's address (aliasing buffers overlap); 0 on chip.
  uintptr_t base = 0;
  /// Byte range within the memory or buffer.
  int64_t lo = 0, hi = 0;
  bool write = false;
  /// The operand ("src", "dst", "a", ...).
  const char *role = "";

  /// Returns true when this and `other` touch a common byte.
  bool overlaps(const Access &other) const {
    return space == other.space &&
           base + uint64_t(lo) < other.base + uint64_t(other.hi) &&
           other.base + uint64_t(other.lo) < base + uint64_t(hi);
  }

  /// Returns "ub [0, 1024)" or "gm arg 1 [0, 64)".
  std::string describe() const {
    std::string name = spaceName(space);
    if (space == Space::GM)
      name += (scratch ? " scratch " : " arg ") + std::to_string(buffer);
    return name + " [" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
  }
};

/// An access of an instruction that may still be running.
struct AccessRecord {
  Access access;
  int64_t start = 0, end = 0;
  const Instr *instr = nullptr;
};

/// A pipe's records, in end order (its instructions' order); the first
/// `head` are dropped.
struct RecordList {
  std::vector<AccessRecord> items;
  size_t head = 0;
};

/// The fire times of set_flags not yet waited for, oldest first.
struct FlagQueue {
  std::vector<int64_t> fires;
  size_t head = 0;
};

/// The fixed latency and bandwidth of a data mover.
struct MoverTiming {
  int64_t latency;
  int64_t bytesPerCycle;
};

/// Runs a kernel's steps on one core, keeping its on-chip memories and
/// unconsumed flags from one step to the next.
class CoreSim {
public:
  CoreSim(const NpuConfig &config, const Kernel &kernel, int core,
          GlobalMemory &global, TraceSink *trace)
      : config(config), kernel(kernel), core(core), global(global),
        trace(trace), flags(size_t(kPipeCount * kPipeCount * kFlagIds)) {}

  /// Runs `step` from cycle `startsAt`, when every pipe is idle.
  Status runStep(const std::vector<Instr> &step, int64_t startsAt) {
    clock = startsAt;
    freeAt.fill(startsAt);
    // Everything before the step has completed: no access can race.
    for (RecordList &list : records) {
      list.items.clear();
      list.head = 0;
    }
    return execBody(step);
  }
  /// Returns when the last pipe of the core finishes.
  int64_t endTime() const {
    return std::max(clock, *std::max_element(freeAt.begin(), freeAt.end()));
  }

  /// Per pipe: busy cycles.
  std::array<int64_t, kPipeCount> busy{};
  /// Per OpKind: instructions run.
  std::array<int64_t, kOpKindCount> instructions{};

private:
  /// Returns a failure naming the kernel, core and `instr`.
  Status fail(const Instr &instr, const std::string &message) const {
    return Status::error(MS_INVALID_ARGUMENT,
                         "npu kernel '" + kernel.name + "': core " +
                             std::to_string(core) + ": " + instr.describe() +
                             ": " + message);
  }

  Status execBody(const std::vector<Instr> &body);
  Status exec(const Instr &instr);
  Status execLoop(const Instr &instr, const LoopOp &loop);
  Status execDma(const Instr &instr, const DmaOp &dma, int64_t issued);
  Status execFill(const Instr &instr, const FillOp &fill, int64_t issued);
  Status execMmad(const Instr &instr, const MmadOp &mmad, int64_t issued);
  Status execFixpipe(const Instr &instr, const FixpipeOp &fix, int64_t issued);
  Status execVec(const Instr &instr, const VecOp &vec, int64_t issued);
  Status execReduce(const Instr &instr, const ReduceOp &reduce, int64_t issued);
  Status execSetFlag(const FlagOp &flag, int64_t issued);
  Status execWaitFlag(const Instr &instr, const FlagOp &flag, int64_t issued);
  void execBarrier();

  /// Issues an instruction: returns its issue time and advances the clock.
  int64_t issue() {
    int64_t issued = clock;
    clock += config.scalarIssueCycles;
    busy[int(Pipe::S)] += config.scalarIssueCycles;
    return issued;
  }

  /// Evaluates `expr` (field `what` of `instr`).
  Status eval(const Instr &instr, const Expr &expr, const char *what,
              int64_t &out) const;
  /// Evaluates extents into right-aligned `dims`.
  Status evalShape(const Instr &instr, const std::vector<Expr> &shape,
                   Dims &dims) const;
  /// Resolves `view` (operand `role`) over `dims`: bounds-checks it, notes
  /// the access for the race check and sets `out`.
  Status resolve(const Instr &instr, const char *role, const View &view,
                 const Dims &dims, bool write, Operand &out);
  /// Claims `bytes` at `offset` of `space` (GM: `view`'s buffer) for
  /// operand `role`: bounds-checks, notes the access and sets `out`.
  Status claim(const Instr &instr, const char *role, Space space,
               const View *view, int64_t offset, int64_t bytes, bool write,
               uint8_t *&out);
  /// Runs `instr` on its pipe for `duration` cycles from `issued` on:
  /// checks and records its pending accesses, updates the pipe, the
  /// statistics and the timeline.
  Status occupy(const Instr &instr, int64_t issued, int64_t duration);
  /// Fails when a pending access of `instr`, starting at `start`, races
  /// with another pipe's record.
  Status checkRaces(const Instr &instr, int64_t start) const;
  /// Drops the records no future instruction can race with.
  void pruneRecords();
  /// Returns the data mover timing of `pipe`.
  MoverTiming mover(Pipe pipe) const;
  /// Returns the cost of a vector instruction over rows x cols elements of
  /// `size` bytes.
  int64_t vecCycles(int64_t rows, int64_t cols, int64_t size, bool slow) const;
  /// Records a span on the timeline.
  void traceSpan(const char *name, const Instr &instr, int lane, int64_t start,
                 int64_t duration);

  const NpuConfig &config;
  const Kernel &kernel;
  int core;
  GlobalMemory &global;
  TraceSink *trace;
  OnChipMemory onChip;

  /// The scalar unit's issue clock.
  int64_t clock = 0;
  /// Per pipe: when its last instruction ends (S uses `clock`).
  std::array<int64_t, kPipeCount> freeAt{};
  /// Flag FIFOs by (src, dst, id).
  std::vector<FlagQueue> flags;
  /// Induction variables of the enclosing loops, outermost first.
  std::vector<int64_t> ivs;
  /// Instructions run so far.
  int64_t steps = 0;
  /// The accesses of the instruction being run.
  std::vector<Access> pending;
  /// Per pipe: accesses of instructions that may still be running.
  std::array<RecordList, kPipeCount> records;
};

Status CoreSim::execBody(const std::vector<Instr> &body) {
  for (const Instr &instr : body)
    MS_RETURN_IF_ERROR(exec(instr));
  return Status();
}

Status CoreSim::exec(const Instr &instr) {
  if (++steps > kMaxSteps)
    return fail(instr, "the kernel runs more than 2^32 instructions on one "
                       "core");
  ++instructions[int(instr.kind)];
  if (instr.kind == OpKind::Loop)
    return execLoop(instr, std::get<LoopOp>(instr.op));
  int64_t issued = issue();
  pending.clear();
  switch (instr.kind) {
  case OpKind::Dma:
    return execDma(instr, std::get<DmaOp>(instr.op), issued);
  case OpKind::Fill:
    return execFill(instr, std::get<FillOp>(instr.op), issued);
  case OpKind::Mmad:
    return execMmad(instr, std::get<MmadOp>(instr.op), issued);
  case OpKind::Fixpipe:
    return execFixpipe(instr, std::get<FixpipeOp>(instr.op), issued);
  case OpKind::Vec:
    return execVec(instr, std::get<VecOp>(instr.op), issued);
  case OpKind::VReduce:
    return execReduce(instr, std::get<ReduceOp>(instr.op), issued);
  case OpKind::SetFlag:
    return execSetFlag(std::get<FlagOp>(instr.op), issued);
  case OpKind::WaitFlag:
    return execWaitFlag(instr, std::get<FlagOp>(instr.op), issued);
  case OpKind::Barrier:
    execBarrier();
    return Status();
  case OpKind::Loop:
    break;
  }
  return Status();
}

Status CoreSim::execLoop(const Instr &instr, const LoopOp &loop) {
  int64_t count = 0;
  MS_RETURN_IF_ERROR(eval(instr, loop.count, "count", count));
  if (count < 0)
    return fail(instr, "'count' evaluates to " + std::to_string(count));
  ivs.push_back(0);
  for (int64_t i = 0; i < count; ++i) {
    ivs.back() = i;
    // The scalar unit pays one issue per iteration.
    issue();
    MS_RETURN_IF_ERROR(execBody(loop.body));
  }
  ivs.pop_back();
  return Status();
}

Status CoreSim::execDma(const Instr &instr, const DmaOp &dma, int64_t issued) {
  Dims dims;
  Operand src, dst;
  MS_RETURN_IF_ERROR(evalShape(instr, dma.shape, dims));
  MS_RETURN_IF_ERROR(resolve(instr, "src", dma.src, dims, false, src));
  MS_RETURN_IF_ERROR(resolve(instr, "dst", dma.dst, dims, true, dst));
  MoverTiming timing = mover(instr.pipe);
  int64_t bytes =
      transferBytes(dims, src.strides, dtypeSize(src.dtype), config.burstBytes);
  MS_RETURN_IF_ERROR(occupy(
      instr, issued, timing.latency + ceilDiv(bytes, timing.bytesPerCycle)));
  copyElements(dims, src, dst);
  return Status();
}

Status CoreSim::execFill(const Instr &instr, const FillOp &fill,
                         int64_t issued) {
  Dims dims;
  Operand dst;
  MS_RETURN_IF_ERROR(evalShape(instr, fill.shape, dims));
  MS_RETURN_IF_ERROR(resolve(instr, "dst", fill.dst, dims, true, dst));
  MoverTiming timing = mover(instr.pipe);
  int64_t bytes =
      transferBytes(dims, dst.strides, dtypeSize(dst.dtype), config.burstBytes);
  MS_RETURN_IF_ERROR(occupy(
      instr, issued, timing.latency + ceilDiv(bytes, timing.bytesPerCycle)));
  fillElements(dims, dst, fill.value);
  return Status();
}

Status CoreSim::execMmad(const Instr &instr, const MmadOp &mmad,
                         int64_t issued) {
  int64_t a = 0, b = 0, c = 0, m = 0, k = 0, n = 0;
  MS_RETURN_IF_ERROR(eval(instr, mmad.a, "a", a));
  MS_RETURN_IF_ERROR(eval(instr, mmad.b, "b", b));
  MS_RETURN_IF_ERROR(eval(instr, mmad.c, "c", c));
  MS_RETURN_IF_ERROR(eval(instr, mmad.m, "m", m));
  MS_RETURN_IF_ERROR(eval(instr, mmad.k, "k", k));
  MS_RETURN_IF_ERROR(eval(instr, mmad.n, "n", n));
  if (std::string problem = checkMmadSizes(m, k, n, mmad.dtype);
      !problem.empty())
    return fail(instr, problem);
  int64_t size = dtypeSize(mmad.dtype), k0 = mmadK0(mmad.dtype);
  uint8_t *pa = nullptr, *pb = nullptr, *pc = nullptr;
  MS_RETURN_IF_ERROR(
      claim(instr, "a", Space::L0A, nullptr, a, m * k * size, false, pa));
  MS_RETURN_IF_ERROR(
      claim(instr, "b", Space::L0B, nullptr, b, k * n * size, false, pb));
  MS_RETURN_IF_ERROR(
      claim(instr, "c", Space::L0C, nullptr, c, m * n * 4, true, pc));
  int64_t fractals = (m / 16) * (k / k0) * (n / 16);
  MS_RETURN_IF_ERROR(
      occupy(instr, issued,
             config.cubeStartCycles + fractals * config.cubeCyclesPerFractal));
  matmul(mmad.dtype, pa, pb, pc, m, k, n, mmad.init);
  return Status();
}

Status CoreSim::execFixpipe(const Instr &instr, const FixpipeOp &fix,
                            int64_t issued) {
  int64_t src = 0, m = 0, n = 0, rows = 0, cols = 0;
  MS_RETURN_IF_ERROR(eval(instr, fix.src, "src", src));
  MS_RETURN_IF_ERROR(eval(instr, fix.m, "m", m));
  MS_RETURN_IF_ERROR(eval(instr, fix.n, "n", n));
  MS_RETURN_IF_ERROR(eval(instr, fix.rows, "rows", rows));
  MS_RETURN_IF_ERROR(eval(instr, fix.cols, "cols", cols));
  if (std::string problem = checkFixpipeSizes(m, n, rows, cols);
      !problem.empty())
    return fail(instr, problem);
  uint8_t *pc = nullptr;
  MS_RETURN_IF_ERROR(
      claim(instr, "src", Space::L0C, nullptr, src, m * n * 4, false, pc));
  Operand dst;
  MS_RETURN_IF_ERROR(
      resolve(instr, "dst", fix.dst, Dims{1, 1, rows, cols}, true, dst));
  MS_RETURN_IF_ERROR(
      occupy(instr, issued,
             config.fixLatencyCycles +
                 ceilDiv(rows * cols * 4, config.fixBytesPerCycle)));
  fixpipe(pc, n, rows, cols, dst, fix.relu, fix.acc);
  return Status();
}

Status CoreSim::execVec(const Instr &instr, const VecOp &vec, int64_t issued) {
  Dims dims;
  MS_RETURN_IF_ERROR(evalShape(instr, vec.shape, dims));
  Operand dst, a, b, c;
  int arity = vecArity(vec.fn);
  if (arity >= 1)
    MS_RETURN_IF_ERROR(resolve(instr, "a", vec.a, dims, false, a));
  if (vec.hasB)
    MS_RETURN_IF_ERROR(resolve(instr, "b", vec.b, dims, false, b));
  if (vec.fn == VecFn::Sel)
    MS_RETURN_IF_ERROR(resolve(instr, "c", vec.c, dims, false, c));
  MS_RETURN_IF_ERROR(resolve(instr, "dst", vec.dst, dims, true, dst));
  // The widest operand sets the pace.
  int64_t size = dtypeSize(dst.dtype);
  if (arity >= 1)
    size = std::max(size, dtypeSize(a.dtype));
  if (vec.hasB)
    size = std::max(size, dtypeSize(b.dtype));
  if (vec.fn == VecFn::Sel)
    size = std::max(size, dtypeSize(c.dtype));
  MS_RETURN_IF_ERROR(occupy(
      instr, issued, vecCycles(dims[2], dims[3], size, isSlowVecFn(vec.fn))));
  vectorOp(vec, dims[2], dims[3], dst, a, b, c);
  return Status();
}

Status CoreSim::execReduce(const Instr &instr, const ReduceOp &reduce,
                           int64_t issued) {
  Dims dims;
  MS_RETURN_IF_ERROR(evalShape(instr, reduce.shape, dims));
  Operand src, dst;
  MS_RETURN_IF_ERROR(resolve(instr, "src", reduce.src, dims, false, src));
  MS_RETURN_IF_ERROR(
      resolve(instr, "dst", reduce.dst, Dims{1, 1, 1, dims[2]}, true, dst));
  int64_t size = std::max(dtypeSize(src.dtype), dtypeSize(dst.dtype));
  MS_RETURN_IF_ERROR(
      occupy(instr, issued, vecCycles(dims[2], dims[3], size, false)));
  reduceRows(reduce.fn, dims[2], dims[3], src, dst, reduce.acc);
  return Status();
}

Status CoreSim::execSetFlag(const FlagOp &flag, int64_t issued) {
  // Everything queued on `src` before the flag has completed when `src` is
  // free; the scalar unit has when it issues the flag.
  int64_t fire =
      flag.src == Pipe::S ? issued : std::max(issued, freeAt[int(flag.src)]);
  size_t key =
      (size_t(flag.src) * kPipeCount + size_t(flag.dst)) * kFlagIds + flag.id;
  flags[key].fires.push_back(fire);
  return Status();
}

Status CoreSim::execWaitFlag(const Instr &instr, const FlagOp &flag,
                             int64_t issued) {
  size_t key =
      (size_t(flag.src) * kPipeCount + size_t(flag.dst)) * kFlagIds + flag.id;
  FlagQueue &queue = flags[key];
  if (queue.head == queue.fires.size())
    return fail(instr, std::string("deadlock: no earlier set_flag(") +
                           pipeName(flag.src) + ", " + pipeName(flag.dst) +
                           ", " + std::to_string(flag.id) +
                           ") is left for this wait (each set_flag releases "
                           "one wait_flag)");
  int64_t fire = queue.fires[queue.head++];
  if (queue.head == queue.fires.size()) {
    queue.fires.clear();
    queue.head = 0;
  }
  if (flag.dst == Pipe::S) {
    clock = std::max(clock, fire);
    return Status();
  }
  int64_t start = std::max(issued, freeAt[int(flag.dst)]);
  int64_t end = std::max(start, fire);
  freeAt[int(flag.dst)] = end;
  if (end > start)
    traceSpan("wait_flag", instr, int(flag.dst), start, end - start);
  return Status();
}

void CoreSim::execBarrier() {
  int64_t drained = endTime();
  clock = drained;
  freeAt.fill(drained);
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

Status CoreSim::eval(const Instr &instr, const Expr &expr, const char *what,
                     int64_t &out) const {
  int64_t value = expr.constant;
  bool overflow = false;
  for (const Term &term : expr.terms) {
    int64_t iv = term.level < 0 ? core : ivs[size_t(term.level)];
    if (term.mod > 0)
      iv %= term.mod;
    int64_t product = 0;
    overflow |= __builtin_mul_overflow(term.coeff, iv, &product);
    overflow |= __builtin_add_overflow(value, product, &value);
  }
  if (!expr.core.empty())
    overflow |= __builtin_add_overflow(value, expr.core[size_t(core)], &value);
  if (overflow)
    return fail(instr, std::string("'") + what + "' overflows 64 bits");
  out = value;
  return Status();
}

Status CoreSim::evalShape(const Instr &instr, const std::vector<Expr> &shape,
                          Dims &dims) const {
  dims.fill(1);
  size_t first = kMaxRank - shape.size();
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t extent = 0;
    MS_RETURN_IF_ERROR(eval(instr, shape[i], "shape", extent));
    if (extent < 0)
      return fail(instr, "'shape[" + std::to_string(i) + "]' evaluates to " +
                             std::to_string(extent));
    dims[first + i] = extent;
    // Saturates above kMaxElements (a later 0 still empties the shape).
    if (extent != 0 && count > kMaxElements / extent)
      count = kMaxElements + 1;
    else
      count *= extent;
  }
  if (count > kMaxElements)
    return fail(instr, "the shape has more than 2^32 elements");
  return Status();
}

Status CoreSim::resolve(const Instr &instr, const char *role, const View &view,
                        const Dims &dims, bool write, Operand &out) {
  int64_t offset = 0;
  MS_RETURN_IF_ERROR(eval(instr, view.offset, role, offset));
  out.dtype = view.dtype;
  out.strides.fill(0);
  size_t first = kMaxRank - view.strides.size();
  std::copy(view.strides.begin(), view.strides.end(),
            out.strides.begin() + first);
  // The span from the first to the last element, plus one element.
  int64_t bytes = 0;
  if (elementCount(dims) > 0) {
    int64_t last = 0, term = 0;
    bool overflow = false;
    for (int d = 0; d < kMaxRank; ++d) {
      overflow |= __builtin_mul_overflow(dims[d] - 1, out.strides[d], &term);
      overflow |= __builtin_add_overflow(last, term, &last);
    }
    overflow |= __builtin_mul_overflow(last + 1, dtypeSize(view.dtype), &bytes);
    if (overflow)
      return fail(instr,
                  std::string("'") + role + "' spans more than 2^63 bytes");
  }
  return claim(instr, role, view.space, &view, offset, bytes, write, out.data);
}

Status CoreSim::claim(const Instr &instr, const char *role, Space space,
                      const View *view, int64_t offset, int64_t bytes,
                      bool write, uint8_t *&out) {
  Access access;
  access.space = space;
  uint8_t *base = nullptr;
  int64_t size = 0;
  if (space == Space::GM) {
    access.scratch = view->scratch;
    access.buffer = view->buffer;
    base = access.scratch ? global.scratch[size_t(view->buffer)].data()
                          : global.args[size_t(view->buffer)];
    size = access.scratch ? global.scratch[size_t(view->buffer)].size()
                          : global.argSizes[size_t(view->buffer)];
    access.base = reinterpret_cast<uintptr_t>(base);
  } else {
    // On-chip memories are allocated when first used.
    ZeroedBytes &memory = onChip[size_t(space)];
    if (!memory.data())
      memory = ZeroedBytes(config.capacity(space));
    base = memory.data();
    size = memory.size();
  }
  access.lo = offset;
  access.hi = offset + bytes;
  access.write = write;
  access.role = role;
  if (offset < 0 || bytes > size || offset > size - bytes) {
    std::string memory = access.describe();
    memory = memory.substr(0, memory.find(" ["));
    return fail(instr, std::string("'") + role + "' range [" +
                           std::to_string(offset) + ", +" +
                           std::to_string(bytes) + ") lies outside " + memory +
                           " (" + std::to_string(size) + " bytes)");
  }
  out = base ? base + offset : nullptr;
  if (bytes > 0)
    pending.push_back(access);
  return Status();
}

//===----------------------------------------------------------------------===//
// Timing and races
//===----------------------------------------------------------------------===//

MoverTiming CoreSim::mover(Pipe pipe) const {
  switch (pipe) {
  case Pipe::MTE1:
    return {config.mte1LatencyCycles, config.mte1BytesPerCycle};
  case Pipe::MTE3:
    return {config.mte3LatencyCycles, config.mte3BytesPerCycle};
  default:
    return {config.mte2LatencyCycles, config.mte2BytesPerCycle};
  }
}

int64_t CoreSim::vecCycles(int64_t rows, int64_t cols, int64_t size,
                           bool slow) const {
  int64_t bytes = rows * ceilDiv(cols * size, kVecBlockBytes) * kVecBlockBytes;
  int64_t cycles = ceilDiv(bytes, config.vecBytesPerCycle);
  return config.vecLatencyCycles +
         (slow ? cycles * config.vecSlowFactor : cycles);
}

Status CoreSim::occupy(const Instr &instr, int64_t issued, int64_t duration) {
  int pipe = int(instr.pipe);
  int64_t start = std::max(issued, freeAt[size_t(pipe)]);
  int64_t end = 0;
  if (__builtin_add_overflow(start, duration, &end))
    return fail(instr, "the cycle count overflows 64 bits");
  MS_RETURN_IF_ERROR(checkRaces(instr, start));
  for (const Access &access : pending)
    records[size_t(pipe)].items.push_back({access, start, end, &instr});
  pending.clear();
  freeAt[size_t(pipe)] = end;
  busy[size_t(pipe)] += duration;
  const char *name = instr.kind == OpKind::Vec
                         ? vecFnName(std::get<VecOp>(instr.op).fn)
                         : opName(instr.kind);
  traceSpan(name, instr, pipe, start, duration);
  pruneRecords();
  return Status();
}

Status CoreSim::checkRaces(const Instr &instr, int64_t start) const {
  for (int pipe = 0; pipe < kPipeCount; ++pipe) {
    if (pipe == int(instr.pipe))
      continue;
    const RecordList &list = records[size_t(pipe)];
    // Only the records ending after `start` can race; they are at the back.
    auto first =
        std::upper_bound(list.items.begin() + long(list.head), list.items.end(),
                         start, [](int64_t time, const AccessRecord &record) {
                           return time < record.end;
                         });
    for (auto it = first; it != list.items.end(); ++it)
      for (const Access &access : pending) {
        if (!(access.write || it->access.write) || !access.overlaps(it->access))
          continue;
        return fail(instr, "race on " + access.describe() + ": '" +
                               access.role + "' " +
                               (access.write ? "writes" : "reads") +
                               " it from cycle " + std::to_string(start) +
                               " while " + it->instr->describe() + " on pipe " +
                               pipeName(Pipe(pipe)) + " " +
                               (it->access.write ? "writes" : "reads") + " " +
                               it->access.describe() + " until cycle " +
                               std::to_string(it->end) +
                               " (order them with set_flag/wait_flag)");
      }
  }
  return Status();
}

void CoreSim::pruneRecords() {
  // A future instruction on pipe P starts no earlier than max(clock,
  // freeAt[P]); a record of pipe Q matters only to the other pipes.
  for (int q = 0; q < kPipeCount; ++q) {
    RecordList &list = records[size_t(q)];
    if (list.head == list.items.size())
      continue;
    int64_t horizon = INT64_MAX;
    for (int p = 0; p < kPipeCount; ++p)
      if (p != q && p != int(Pipe::S))
        horizon = std::min(horizon, std::max(clock, freeAt[size_t(p)]));
    while (list.head < list.items.size() &&
           list.items[list.head].end <= horizon)
      ++list.head;
    if (list.head > 1024 && list.head * 2 > list.items.size()) {
      list.items.erase(list.items.begin(),
                       list.items.begin() + long(list.head));
      list.head = 0;
    }
  }
}

void CoreSim::traceSpan(const char *name, const Instr &instr, int lane,
                        int64_t start, int64_t duration) {
  if (trace && duration > 0)
    trace->add(TraceEvent{name, instr.path, core, lane, start, duration});
}
} // namespace

Status ms::rt::impl::npu::simulate(const NpuConfig &config,
                                   const Kernel &kernel, void *const *args,
                                   size_t argCount, LaunchStats &stats,
                                   TraceSink *trace) {
  stats = LaunchStats();
  std::string where = "npu kernel '" + kernel.name + "'";
  if (argCount < kernel.args.size())
    return Status::error(
        MS_INVALID_ARGUMENT,
        where + ": expects " + std::to_string(kernel.args.size()) +
            " buffers, the launch passes " + std::to_string(argCount));
  try {
    GlobalMemory global;
    for (size_t i = 0; i < kernel.args.size(); ++i) {
      if (!args[i] && kernel.args[i] > 0)
        return Status::error(MS_INVALID_ARGUMENT, where + ": buffer " +
                                                      std::to_string(i) +
                                                      " is NULL");
      global.args.push_back(static_cast<uint8_t *>(args[i]));
      global.argSizes.push_back(kernel.args[i]);
    }
    for (size_t j = 0; j < kernel.scratch.size(); ++j) {
      global.scratch.emplace_back(kernel.scratch[j]);
      if (j < kernel.scratchData.size() && !kernel.scratchData[j].empty())
        std::memcpy(global.scratch.back().data(), kernel.scratchData[j].data(),
                    kernel.scratchData[j].size());
    }
    std::vector<std::unique_ptr<CoreSim>> cores;
    for (int core = 0; core < kernel.cores; ++core)
      cores.push_back(
          std::make_unique<CoreSim>(config, kernel, core, global, trace));
    // Each step starts when the last core has finished the previous one.
    int64_t stepStart = 0;
    for (size_t step = 0; step < kernel.steps.size(); ++step) {
      int64_t stepEnd = stepStart;
      for (std::unique_ptr<CoreSim> &core : cores) {
        MS_RETURN_IF_ERROR(core->runStep(kernel.steps[step], stepStart));
        int64_t end = core->endTime();
        stepEnd = std::max(stepEnd, end);
        if (trace && end > stepStart)
          trace->add(TraceEvent{kernel.name,
                                "steps[" + std::to_string(step) + "]",
                                int(&core - cores.data()), kKernelLane,
                                stepStart, end - stepStart});
      }
      stepStart = stepEnd;
    }
    stats.cycles = stepStart;
    for (const std::unique_ptr<CoreSim> &core : cores) {
      for (int p = 0; p < kPipeCount; ++p)
        stats.busy[size_t(p)] += core->busy[size_t(p)];
      for (int op = 0; op < kOpKindCount; ++op)
        stats.instructions[size_t(op)] += core->instructions[size_t(op)];
    }
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL,
                         where + ": out of memory allocating its memories");
  }
  return Status();
}
