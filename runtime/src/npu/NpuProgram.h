//===- NpuProgram.h - the npu-program section, parsed -----------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The internal form of the npu-program section (docs/NPU.md): the machine
// configuration and, per kernel, its cores, GM buffers and steps of
// instructions. parseProgram validates every field once, at load, so the
// simulator (npu/Simulator.h) never meets a malformed instruction; what
// depends on loop counters and the core id (offsets, counts) is checked
// again when it is evaluated.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_NPU_NPUPROGRAM_H
#define MS_RUNTIME_NPU_NPUPROGRAM_H

#include "ms/runtime/NpuConfig.h"
#include "ms/runtime/Runtime.h"

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace ms::rt::impl::npu {
using ms::npu::kPipeCount;
using ms::npu::NpuConfig;
using ms::npu::Pipe;
using ms::npu::Space;

/// The most dimensions an instruction's shape has.
inline constexpr int kMaxRank = 4;
/// Flag ids per (src, dst) pipe pair: 0 .. kFlagIds - 1.
inline constexpr int kFlagIds = 16;

/// Element types of views.
enum class DType : uint8_t { F32, F16, BF16, S32, S8, U8 };

/// Returns the size of one element of `dtype` in bytes.
int64_t dtypeSize(DType dtype);
/// Returns the program's name of `dtype` ("f32").
const char *dtypeName(DType dtype);
/// Returns true for f32, f16 and bf16.
bool isFloat(DType dtype);
/// Returns the program's name of `space` ("gm", "l1", ...).
const char *spaceName(Space space);
/// Returns the program's name of `pipe` ("s", "mte2", ...).
const char *pipeName(Pipe pipe);

/// One term of an expression: `coeff * iv(level)`, or `coeff * (iv(level) %
/// mod)` when `mod` > 0. Level -1 stands for the core id.
struct Term {
  int level = 0;
  int64_t coeff = 0;
  int64_t mod = 0;
};

/// A count or an offset: `constant + sum(terms) + core[core id]`.
struct Expr {
  int64_t constant = 0;
  std::vector<Term> terms;
  /// A value per core id; empty when the expression has no core table.
  std::vector<int64_t> core;

  /// Returns true when the value depends on no loop and no core.
  bool isConstant() const { return terms.empty() && core.empty(); }
};

/// An operand in memory.
struct View {
  Space space = Space::GM;
  /// For GM: true for a scratch buffer, false for a kernel argument.
  bool scratch = false;
  /// For GM: the argument or scratch index.
  int buffer = 0;
  /// The byte offset of the first element in its memory or buffer.
  Expr offset;
  DType dtype = DType::F32;
  /// Element strides, one per dimension of the instruction's shape.
  std::vector<int64_t> strides;
};

struct Instr;

/// `loop`: runs `body` `count` times.
struct LoopOp {
  Expr count;
  std::vector<Instr> body;
};

/// `dma`: copies every index of `shape` from `src` to `dst`.
struct DmaOp {
  View src, dst;
  std::vector<Expr> shape;
};

/// `fill`: writes `value` to every index of `shape` of `dst`.
struct FillOp {
  View dst;
  std::vector<Expr> shape;
  double value = 0;
};

/// `mmad`: C (+)= A B on the fractal layouts, `a`, `b`, `c` byte offsets into
/// L0A, L0B and L0C.
struct MmadOp {
  Expr a, b, c, m, k, n;
  /// F16 (k0 = 16, fp32 accumulators) or S8 (k0 = 32, int32 ones).
  DType dtype = DType::F16;
  /// True: C = A B; false: C += A B.
  bool init = false;
};

/// `fixpipe`: `dst[i][j] (+)= cast(relu?(C[i][j]))` for the first `rows` x
/// `cols` of the `m` x `n` fractal matrix at L0C byte offset `src`.
struct FixpipeOp {
  Expr src, m, n, rows, cols;
  View dst;
  bool relu = false;
  bool acc = false;
};

/// The functions of `vec`.
enum class VecFn : uint8_t {
  Copy,
  Cast,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Recip,
  Abs,
  Neg,
  Relu,
  Tanh,
  Erf,
  Sigmoid,
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  /// Comparisons: 1 where true, 0 where false (a NaN compares false, but
  /// not equal).
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  /// `c != 0 ? a : b`.
  Sel,
  Dup,
};

/// Returns the program's name of `fn` ("exp").
const char *vecFnName(VecFn fn);
/// Returns how many view operands `fn` reads: 0 (dup), 1 (unary) or 2
/// (binary; the second may be a scalar instead).
int vecArity(VecFn fn);
/// Returns true for the functions the vector unit runs `vecSlowFactor`
/// times slower (transcendentals and division).
bool isSlowVecFn(VecFn fn);

/// `vec`: `dst = fn(a[, b or scalar])` elementwise over `shape` ([r, c]);
/// `sel` also reads its condition `c`.
struct VecOp {
  VecFn fn = VecFn::Copy;
  std::vector<Expr> shape;
  View dst, a, b, c;
  /// For a binary function: true when `b` is a view, false for `scalar`.
  bool hasB = false;
  /// The scalar operand of a binary function, or dup's value.
  double scalar = 0;
};

/// The functions of `vreduce`.
enum class ReduceFn : uint8_t { Sum, Max, Min };

/// Returns the program's name of `fn` ("sum").
const char *reduceFnName(ReduceFn fn);

/// `vreduce`: `dst[i] = fn_j src[i][j]` over `shape` ([r, c]), combined
/// with what `dst` holds when `acc`.
struct ReduceOp {
  ReduceFn fn = ReduceFn::Sum;
  std::vector<Expr> shape;
  View src, dst;
  bool acc = false;
};

/// `set_flag` or `wait_flag` between pipes `src` and `dst`.
struct FlagOp {
  Pipe src = Pipe::S;
  Pipe dst = Pipe::S;
  int id = 0;
};

/// What an instruction does.
enum class OpKind : uint8_t {
  Loop,
  Dma,
  Fill,
  Mmad,
  Fixpipe,
  Vec,
  VReduce,
  SetFlag,
  WaitFlag,
  Barrier,
};

/// Number of OpKind values.
inline constexpr int kOpKindCount = 10;

/// Returns the program's name of `kind` ("dma").
const char *opName(OpKind kind);

/// One instruction of a kernel body.
struct Instr {
  OpKind kind = OpKind::Barrier;
  /// The pipe it is queued on (S for loops and barriers).
  Pipe pipe = Pipe::S;
  /// Where it is in its kernel, e.g. "steps[1][2].body[0]".
  std::string path;
  /// The operands; std::monostate for a barrier.
  std::variant<std::monostate, LoopOp, DmaOp, FillOp, MmadOp, FixpipeOp, VecOp,
               ReduceOp, FlagOp>
      op;

  /// Returns the instruction for messages: "steps[0][2].body[0] (dma)",
  /// with the function of a vec or vreduce ("steps[0][3] (vec exp)").
  std::string describe() const;
};

/// One kernel of the program.
struct Kernel {
  std::string name;
  /// Cores it runs on (1 .. config.cores).
  int cores = 1;
  /// Byte sizes of the GM buffers the launch passes, in order.
  std::vector<int64_t> args;
  /// Byte sizes of the GM workspace each launch allocates.
  std::vector<int64_t> scratch;
  /// Initial contents of scratch buffers (a kernel's constants), by index;
  /// empty for a buffer that starts zeroed.
  std::vector<std::vector<uint8_t>> scratchData;
  /// The steps: every core runs each in turn; a step starts when every core
  /// has finished the previous one.
  std::vector<std::vector<Instr>> steps;
};

/// A parsed npu-program section.
struct Program {
  NpuConfig config;
  std::map<std::string, Kernel> kernels;
};

/// Parses `size` bytes of npu-program JSON into `out`. A failure names the
/// problem after `where`, then the kernel and the instruction path:
/// "<where>: kernel 'k': steps[0][3].body[0] (dma): unknown memory 'l2'".
Status parseProgram(const std::string &where, const void *data, size_t size,
                    Program &out);

/// The K extent of a fractal of an mmad of `dtype`: a fractal row is 32
/// bytes (16 for f16 and bf16, 8 for f32, 32 for s8).
int64_t mmadK0(DType dtype);

/// Checks the sizes of an mmad (m, n multiples of 16, k of k0, none
/// negative); returns "" or what is wrong.
std::string checkMmadSizes(int64_t m, int64_t k, int64_t n, DType dtype);
/// Checks the sizes of a fixpipe (m, n multiples of 16, rows <= m, cols <=
/// n, none negative); returns "" or what is wrong.
std::string checkFixpipeSizes(int64_t m, int64_t n, int64_t rows, int64_t cols);
} // namespace ms::rt::impl::npu

#endif // MS_RUNTIME_NPU_NPUPROGRAM_H
