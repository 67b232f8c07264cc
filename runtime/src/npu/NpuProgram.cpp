//===- NpuProgram.cpp - the npu-program section, parsed -------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A recursive-descent reader over the nlohmann::json tree (parsed without
// exceptions). Every read checks presence, type and range, and a failure
// names the kernel, the instruction's index path and the field.
//
//===----------------------------------------------------------------------===//

#include "npu/NpuProgram.h"
#include "core/Util.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <type_traits>

using ms::rt::Status;
using namespace ms::rt::impl::npu;
using Json = nlohmann::json;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

namespace {
const char *const dtypeNames[] = {"f32", "f16", "bf16", "s32", "s8", "u8"};
const char *const spaceNames[] = {"gm", "l1", "l0a", "l0b", "l0c", "ub"};
const char *const pipeNames[] = {"s", "mte1", "mte2", "mte3", "m", "v", "fix"};
const char *const vecFnNames[] = {
    "copy", "cast", "exp",  "log",  "sqrt", "rsqrt",   "recip",
    "abs",  "neg",  "relu", "tanh", "erf",  "sigmoid", "add",
    "sub",  "mul",  "div",  "max",  "min",  "pow",     "lt",
    "le",   "gt",   "ge",   "eq",   "ne",   "sel",     "dup"};
const char *const reduceFnNames[] = {"sum", "max", "min"};
const char *const opNames[] = {"loop",      "dma",    "fill",    "mmad",
                               "fixpipe",   "vec",    "vreduce", "set_flag",
                               "wait_flag", "barrier"};
static_assert(sizeof(opNames) / sizeof(opNames[0]) == kOpKindCount,
              "opNames is out of OpKind order");
static_assert(sizeof(pipeNames) / sizeof(pipeNames[0]) == kPipeCount,
              "pipeNames is out of Pipe order");

/// Returns the index of `name` in `names`, or -1.
template <size_t N>
int lookup(const char *const (&names)[N], const std::string &name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i])
      return int(i);
  return -1;
}

/// Returns `value` as JSON text for a message, cut short when long.
std::string shown(const Json &value) {
  std::string text = value.dump();
  return text.size() <= 64 ? text : text.substr(0, 60) + " ...";
}

/// Returns "a, b or c" for `names`.
template <size_t N>
std::string listNames(const char *const (&names)[N]) {
  std::string text;
  for (size_t i = 0; i < N; ++i)
    text += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i];
  return text;
}
} // namespace

int64_t ms::rt::impl::npu::dtypeSize(DType dtype) {
  static const int64_t sizes[] = {4, 2, 2, 4, 1, 1};
  return sizes[int(dtype)];
}

const char *ms::rt::impl::npu::dtypeName(DType dtype) {
  return dtypeNames[int(dtype)];
}

bool ms::rt::impl::npu::isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

const char *ms::rt::impl::npu::spaceName(Space space) {
  return spaceNames[int(space)];
}

const char *ms::rt::impl::npu::pipeName(Pipe pipe) {
  return pipeNames[int(pipe)];
}

const char *ms::rt::impl::npu::vecFnName(VecFn fn) {
  return vecFnNames[int(fn)];
}

int ms::rt::impl::npu::vecArity(VecFn fn) {
  if (fn == VecFn::Dup)
    return 0;
  return fn >= VecFn::Add ? 2 : 1;
}

bool ms::rt::impl::npu::isSlowVecFn(VecFn fn) {
  switch (fn) {
  case VecFn::Exp:
  case VecFn::Log:
  case VecFn::Sqrt:
  case VecFn::Rsqrt:
  case VecFn::Recip:
  case VecFn::Tanh:
  case VecFn::Erf:
  case VecFn::Sigmoid:
  case VecFn::Div:
  case VecFn::Pow:
    return true;
  default:
    return false;
  }
}

const char *ms::rt::impl::npu::reduceFnName(ReduceFn fn) {
  return reduceFnNames[int(fn)];
}

const char *ms::rt::impl::npu::opName(OpKind kind) {
  return opNames[int(kind)];
}

std::string Instr::describe() const {
  std::string text = path + " (" + opName(kind);
  if (const auto *vec = std::get_if<VecOp>(&op))
    text += std::string(" ") + vecFnName(vec->fn);
  if (const auto *reduce = std::get_if<ReduceOp>(&op))
    text += std::string(" ") + reduceFnName(reduce->fn);
  return text + ")";
}

int64_t ms::rt::impl::npu::mmadK0(DType dtype) { return 32 / dtypeSize(dtype); }

std::string ms::rt::impl::npu::checkMmadSizes(int64_t m, int64_t k, int64_t n,
                                              DType dtype) {
  int64_t k0 = mmadK0(dtype);
  if (m < 0 || k < 0 || n < 0 || m % 16 || n % 16 || k % k0)
    return "expected m and n to be multiples of 16 and k of " +
           std::to_string(k0) + " (" + dtypeName(dtype) +
           "), found m = " + std::to_string(m) + ", k = " + std::to_string(k) +
           ", n = " + std::to_string(n);
  return "";
}

std::string ms::rt::impl::npu::checkFixpipeSizes(int64_t m, int64_t n,
                                                 int64_t rows, int64_t cols) {
  if (m < 0 || n < 0 || m % 16 || n % 16)
    return "expected m and n to be multiples of 16, found m = " +
           std::to_string(m) + ", n = " + std::to_string(n);
  if (rows < 0 || cols < 0 || rows > m || cols > n)
    return "expected rows <= m and cols <= n, found rows = " +
           std::to_string(rows) + ", cols = " + std::to_string(cols) + " of " +
           std::to_string(m) + " x " + std::to_string(n);
  return "";
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

namespace {
/// Bounds that keep a hostile program from exhausting memory.
constexpr int64_t kMaxCores = 64;
constexpr int64_t kMaxOnChipBytes = int64_t(1) << 30;
constexpr int64_t kMaxConfigValue = int64_t(1) << 40;
constexpr int64_t kMaxBufferBytes = int64_t(1) << 48;
constexpr int64_t kMaxStride = int64_t(1) << 40;
constexpr int kMaxLoopDepth = 64;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

/// Returns the smallest value config field `name` may take.
int64_t configMinimum(const std::string &name) {
  bool divisor = name == "cores" || name == "alignBytes" ||
                 name == "burstBytes" || name == "vecSlowFactor" ||
                 name.find("BytesPerCycle") != std::string::npos;
  return divisor ? 1 : 0;
}

/// Returns the largest value config field `name` may take.
int64_t configMaximum(const std::string &name) {
  if (name == "cores")
    return kMaxCores;
  if (name == "l1Bytes" || name == "l0aBytes" || name == "l0bBytes" ||
      name == "l0cBytes" || name == "ubBytes")
    return kMaxOnChipBytes;
  return kMaxConfigValue;
}

/// Reads an npu-program JSON tree, keeping where it is for messages.
class Parser {
public:
  explicit Parser(std::string where) : where(std::move(where)) {}

  /// Parses the whole section.
  Status parse(const Json &section, Program &out);

private:
  /// Returns a failure naming the section, kernel and instruction.
  Status fail(const std::string &message) const {
    return Status::error(MS_INVALID_ARGUMENT,
                         where + ": " +
                             (context.empty() ? "" : context + ": ") + message);
  }

  Status parseConfig(const Json &json, NpuConfig &config);
  Status parseKernel(const Json &json, Kernel &kernel);
  Status parseBody(const Json &json, const std::string &prefix,
                   std::vector<Instr> &body);
  Status parseInstr(const Json &json, Instr &instr);
  Status parseOperands(const Json &json, Instr &instr);
  Status parseLoop(const Json &json, Instr &instr);
  Status parseDma(const Json &json, Instr &instr);
  Status parseFill(const Json &json, Instr &instr);
  Status parseMmad(const Json &json, Instr &instr);
  Status parseFixpipe(const Json &json, Instr &instr);
  Status parseVec(const Json &json, Instr &instr);
  Status checkVecTypes(const VecOp &op);
  Status parseReduce(const Json &json, Instr &instr);
  Status parseFlag(const Json &json, Instr &instr);

  /// Sets `out` to member `key` of `object`, failing when it is missing.
  Status require(const Json &object, const char *key, const Json *&out) const;
  /// Reads an integer in [lo, hi].
  Status readInt(const Json &value, const std::string &what, int64_t lo,
                 int64_t hi, int64_t &out) const;
  /// Reads an array of byte sizes (member `key`).
  Status readSizes(const Json &value, const char *key,
                   std::vector<int64_t> &out) const;
  /// Reads optional boolean member `key` (false when missing).
  Status readBool(const Json &object, const char *key, bool &out) const;
  /// Reads number member `key`.
  Status readNumber(const Json &object, const char *key, double &out) const;
  /// Reads an expression.
  Status readExpr(const Json &value, const std::string &what, Expr &out) const;
  /// Reads expression member `key`.
  Status readExprField(const Json &object, const char *key, Expr &out) const;
  /// Reads a shape member of `minRank` .. `maxRank` expressions.
  Status readShape(const Json &object, const char *key, size_t minRank,
                   size_t maxRank, std::vector<Expr> &out) const;
  /// Reads view member `key` with `rank` strides.
  Status readView(const Json &object, const char *key, size_t rank,
                  View &out) const;
  /// Reads the GM buffer reference of view `what`.
  Status readScratchData(const Json &value, Kernel &out) const;
  Status readBuffer(const Json &value, const std::string &what,
                    View &out) const;
  /// Reads pipe-name member `key`.
  Status readPipe(const Json &object, const char *key, Pipe &out) const;
  /// Reads a dtype name.
  Status readDType(const Json &value, const std::string &what,
                   DType &out) const;
  /// Fails unless view `what` is in one of `spaces`.
  Status requireSpace(const View &view, const char *what,
                      std::initializer_list<Space> spaces) const;

  /// The section, for messages ("m.msm: npu-program section").
  std::string where;
  /// The kernel and instruction being read, for messages.
  std::string context;
  /// The configuration (read before the kernels).
  NpuConfig config;
  /// The kernel being read.
  const Kernel *kernel = nullptr;
  /// Loops enclosing the instruction being read.
  int depth = 0;
};

Status Parser::parse(const Json &section, Program &out) {
  if (!section.is_object())
    return fail("expected a JSON object");
  const Json *version = nullptr;
  MS_RETURN_IF_ERROR(require(section, "version", version));
  if (!version->is_number_integer() || *version != 1)
    return fail("expected version 1, found " + shown(*version));
  if (section.contains("config"))
    MS_RETURN_IF_ERROR(parseConfig(section["config"], config));
  out.config = config;
  const Json *kernels = nullptr;
  MS_RETURN_IF_ERROR(require(section, "kernels", kernels));
  if (!kernels->is_object())
    return fail("'kernels': expected an object of kernels by name");
  for (const auto &item : kernels->items()) {
    Kernel &k = out.kernels[item.key()];
    k.name = item.key();
    context = "kernel '" + k.name + "'";
    MS_RETURN_IF_ERROR(parseKernel(item.value(), k));
  }
  context.clear();
  return Status();
}

Status Parser::parseConfig(const Json &json, NpuConfig &out) {
  if (!json.is_object())
    return fail("'config': expected an object");
  for (const auto &item : json.items()) {
    const std::string &key = item.key();
    bool known = false;
    Status status;
    NpuConfig::forEachField(out, [&](const char *name, auto &field) {
      if (known || key != name)
        return;
      known = true;
      int64_t value = 0;
      status = readInt(item.value(), "'config." + key + "'", configMinimum(key),
                       configMaximum(key), value);
      field = static_cast<std::remove_reference_t<decltype(field)>>(value);
    });
    if (!known)
      return fail("'config': unknown field '" + key +
                  "' (fields are NpuConfig's, by their C++ names)");
    if (!status.ok())
      return status;
  }
  return Status();
}

Status Parser::parseKernel(const Json &json, Kernel &out) {
  if (!json.is_object())
    return fail("expected an object");
  kernel = &out;
  const Json *field = nullptr;
  int64_t cores = 0;
  MS_RETURN_IF_ERROR(require(json, "cores", field));
  MS_RETURN_IF_ERROR(readInt(*field, "'cores' (at most config.cores)", 1,
                             config.cores, cores));
  out.cores = int(cores);
  MS_RETURN_IF_ERROR(require(json, "args", field));
  MS_RETURN_IF_ERROR(readSizes(*field, "args", out.args));
  // Scratch is optional: most kernels need none.
  if (json.contains("scratch"))
    MS_RETURN_IF_ERROR(readSizes(json["scratch"], "scratch", out.scratch));
  if (json.contains("scratch_data"))
    MS_RETURN_IF_ERROR(readScratchData(json["scratch_data"], out));
  MS_RETURN_IF_ERROR(require(json, "steps", field));
  if (!field->is_array())
    return fail("'steps': expected an array of steps (arrays of "
                "instructions)");
  std::string kernelContext = context;
  out.steps.resize(field->size());
  for (size_t i = 0; i < field->size(); ++i) {
    depth = 0;
    MS_RETURN_IF_ERROR(parseBody(
        (*field)[i], "steps[" + std::to_string(i) + "]", out.steps[i]));
    context = kernelContext;
  }
  return Status();
}

Status Parser::parseBody(const Json &json, const std::string &prefix,
                         std::vector<Instr> &body) {
  if (!json.is_array())
    return fail("'" + prefix + "': expected an array of instructions");
  body.resize(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    body[i].path = prefix + "[" + std::to_string(i) + "]";
    MS_RETURN_IF_ERROR(parseInstr(json[i], body[i]));
  }
  return Status();
}

Status Parser::parseInstr(const Json &json, Instr &instr) {
  std::string outer = context;
  std::string kernelContext = "kernel '" + kernel->name + "': ";
  context = kernelContext + instr.path;
  if (!json.is_object())
    return fail("expected an instruction object");
  const Json *op = nullptr;
  MS_RETURN_IF_ERROR(require(json, "op", op));
  int kind = op->is_string() ? lookup(opNames, op->get<std::string>()) : -1;
  if (kind < 0)
    return fail("unknown op " + shown(*op) + " (expected " +
                listNames(opNames) + ")");
  instr.kind = OpKind(kind);
  context = kernelContext + instr.path + " (" + opName(instr.kind) + ")";
  MS_RETURN_IF_ERROR(parseOperands(json, instr));
  context = outer;
  return Status();
}

Status Parser::parseOperands(const Json &json, Instr &instr) {
  switch (instr.kind) {
  case OpKind::Loop:
    return parseLoop(json, instr);
  case OpKind::Dma:
    return parseDma(json, instr);
  case OpKind::Fill:
    return parseFill(json, instr);
  case OpKind::Mmad:
    return parseMmad(json, instr);
  case OpKind::Fixpipe:
    return parseFixpipe(json, instr);
  case OpKind::Vec:
    return parseVec(json, instr);
  case OpKind::VReduce:
    return parseReduce(json, instr);
  case OpKind::SetFlag:
  case OpKind::WaitFlag:
    return parseFlag(json, instr);
  case OpKind::Barrier:
    instr.pipe = Pipe::S;
    return Status();
  }
  return fail("unhandled op");
}

Status Parser::parseLoop(const Json &json, Instr &instr) {
  LoopOp &loop = instr.op.emplace<LoopOp>();
  instr.pipe = Pipe::S;
  MS_RETURN_IF_ERROR(readExprField(json, "count", loop.count));
  if (loop.count.isConstant() && loop.count.constant < 0)
    return fail("'count': expected a count >= 0, found " +
                std::to_string(loop.count.constant));
  if (depth >= kMaxLoopDepth)
    return fail("loops nest deeper than " + std::to_string(kMaxLoopDepth));
  const Json *body = nullptr;
  MS_RETURN_IF_ERROR(require(json, "body", body));
  ++depth;
  Status status = parseBody(*body, instr.path + ".body", loop.body);
  --depth;
  return status;
}

Status Parser::parseDma(const Json &json, Instr &instr) {
  DmaOp &dma = instr.op.emplace<DmaOp>();
  MS_RETURN_IF_ERROR(readShape(json, "shape", 1, kMaxRank, dma.shape));
  MS_RETURN_IF_ERROR(readView(json, "src", dma.shape.size(), dma.src));
  MS_RETURN_IF_ERROR(readView(json, "dst", dma.shape.size(), dma.dst));
  Space from = dma.src.space, to = dma.dst.space;
  if (from == Space::GM && (to == Space::L1 || to == Space::UB))
    instr.pipe = Pipe::MTE2;
  else if (from == Space::L1 && (to == Space::L0A || to == Space::L0B))
    instr.pipe = Pipe::MTE1;
  else if (from == Space::UB && to == Space::GM)
    instr.pipe = Pipe::MTE3;
  else
    return fail(std::string("cannot copy from ") + spaceName(from) + " to " +
                spaceName(to) +
                " (a dma moves gm -> l1/ub, l1 -> l0a/l0b or ub -> gm)");
  if (dma.src.dtype == dma.dst.dtype)
    return Status();
  if (isFloat(dma.src.dtype) && isFloat(dma.dst.dtype) &&
      instr.pipe == Pipe::MTE2)
    return Status();
  return fail(std::string("cannot convert ") + dtypeName(dma.src.dtype) +
              " to " + dtypeName(dma.dst.dtype) +
              " (a dma converts only between f32, f16 and bf16, from gm)");
}

Status Parser::parseFill(const Json &json, Instr &instr) {
  FillOp &fill = instr.op.emplace<FillOp>();
  instr.pipe = Pipe::MTE2;
  MS_RETURN_IF_ERROR(readShape(json, "shape", 1, kMaxRank, fill.shape));
  MS_RETURN_IF_ERROR(readView(json, "dst", fill.shape.size(), fill.dst));
  MS_RETURN_IF_ERROR(requireSpace(fill.dst, "dst", {Space::L1, Space::UB}));
  return readNumber(json, "value", fill.value);
}

Status Parser::parseMmad(const Json &json, Instr &instr) {
  MmadOp &mmad = instr.op.emplace<MmadOp>();
  instr.pipe = Pipe::M;
  const std::pair<const char *, Expr *> fields[] = {
      {"a", &mmad.a}, {"b", &mmad.b}, {"c", &mmad.c},
      {"m", &mmad.m}, {"k", &mmad.k}, {"n", &mmad.n}};
  for (const auto &[key, expr] : fields)
    MS_RETURN_IF_ERROR(readExprField(json, key, *expr));
  const Json *dtype = nullptr;
  MS_RETURN_IF_ERROR(require(json, "dtype", dtype));
  MS_RETURN_IF_ERROR(readDType(*dtype, "'dtype'", mmad.dtype));
  if (mmad.dtype != DType::F16 && mmad.dtype != DType::BF16 &&
      mmad.dtype != DType::F32 && mmad.dtype != DType::S8)
    return fail(std::string("'dtype': expected f16, bf16, f32 or s8, found ") +
                dtypeName(mmad.dtype));
  MS_RETURN_IF_ERROR(readBool(json, "init", mmad.init));
  if (mmad.m.isConstant() && mmad.k.isConstant() && mmad.n.isConstant()) {
    std::string problem = checkMmadSizes(mmad.m.constant, mmad.k.constant,
                                         mmad.n.constant, mmad.dtype);
    if (!problem.empty())
      return fail(problem);
  }
  return Status();
}

Status Parser::parseFixpipe(const Json &json, Instr &instr) {
  FixpipeOp &fix = instr.op.emplace<FixpipeOp>();
  instr.pipe = Pipe::FIX;
  const std::pair<const char *, Expr *> fields[] = {{"src", &fix.src},
                                                    {"m", &fix.m},
                                                    {"n", &fix.n},
                                                    {"rows", &fix.rows},
                                                    {"cols", &fix.cols}};
  for (const auto &[key, expr] : fields)
    MS_RETURN_IF_ERROR(readExprField(json, key, *expr));
  MS_RETURN_IF_ERROR(readView(json, "dst", 2, fix.dst));
  MS_RETURN_IF_ERROR(requireSpace(fix.dst, "dst", {Space::UB, Space::GM}));
  if (fix.dst.dtype != DType::F32 && fix.dst.dtype != DType::F16 &&
      fix.dst.dtype != DType::S32)
    return fail(std::string("'dst': expected f32, f16 (from fp32 "
                            "accumulators) or s32 (from int32 ones), found ") +
                dtypeName(fix.dst.dtype));
  MS_RETURN_IF_ERROR(readBool(json, "relu", fix.relu));
  MS_RETURN_IF_ERROR(readBool(json, "acc", fix.acc));
  if (fix.m.isConstant() && fix.n.isConstant() && fix.rows.isConstant() &&
      fix.cols.isConstant()) {
    std::string problem = checkFixpipeSizes(
        fix.m.constant, fix.n.constant, fix.rows.constant, fix.cols.constant);
    if (!problem.empty())
      return fail(problem);
  }
  return Status();
}

Status Parser::parseVec(const Json &json, Instr &instr) {
  VecOp &vec = instr.op.emplace<VecOp>();
  instr.pipe = Pipe::V;
  const Json *fn = nullptr;
  MS_RETURN_IF_ERROR(require(json, "fn", fn));
  int index = fn->is_string() ? lookup(vecFnNames, fn->get<std::string>()) : -1;
  if (index < 0)
    return fail("'fn': unknown vec function " + shown(*fn) + " (expected " +
                listNames(vecFnNames) + ")");
  vec.fn = VecFn(index);
  MS_RETURN_IF_ERROR(readShape(json, "shape", 2, 2, vec.shape));
  MS_RETURN_IF_ERROR(readView(json, "dst", 2, vec.dst));
  int arity = vecArity(vec.fn);
  if (arity >= 1)
    MS_RETURN_IF_ERROR(readView(json, "a", 2, vec.a));
  if (arity == 2) {
    vec.hasB = json.contains("b");
    if (vec.hasB == json.contains("scalar"))
      return fail(std::string("expected exactly one of 'b' and 'scalar' "
                              "for binary function '") +
                  vecFnName(vec.fn) + "'");
  }
  if (vec.hasB)
    MS_RETURN_IF_ERROR(readView(json, "b", 2, vec.b));
  else if (arity != 1)
    MS_RETURN_IF_ERROR(readNumber(json, "scalar", vec.scalar));
  if (vec.fn == VecFn::Sel) {
    MS_RETURN_IF_ERROR(readView(json, "c", 2, vec.c));
    MS_RETURN_IF_ERROR(requireSpace(vec.c, "c", {Space::UB}));
  }
  MS_RETURN_IF_ERROR(requireSpace(vec.dst, "dst", {Space::UB}));
  if (arity >= 1)
    MS_RETURN_IF_ERROR(requireSpace(vec.a, "a", {Space::UB}));
  if (vec.hasB)
    MS_RETURN_IF_ERROR(requireSpace(vec.b, "b", {Space::UB}));
  return checkVecTypes(vec);
}

Status Parser::checkVecTypes(const VecOp &vec) {
  DType dst = vec.dst.dtype;
  switch (vec.fn) {
  case VecFn::Cast:
  case VecFn::Dup:
    return Status();
  case VecFn::Copy:
    if (vec.a.dtype == dst)
      return Status();
    return fail(std::string("copy needs one dtype, found ") +
                dtypeName(vec.a.dtype) + " -> " + dtypeName(dst) +
                " (use cast)");
  default:
    break;
  }
  // Float functions mix f32, f16 and bf16 freely (computed in fp32); the
  // integer ones run on s32 only.
  bool floats = isFloat(dst) && isFloat(vec.a.dtype) &&
                (!vec.hasB || isFloat(vec.b.dtype));
  bool ints = dst == DType::S32 && vec.a.dtype == DType::S32 &&
              (!vec.hasB || vec.b.dtype == DType::S32);
  bool intCapable = vec.fn == VecFn::Add || vec.fn == VecFn::Sub ||
                    vec.fn == VecFn::Mul || vec.fn == VecFn::Max ||
                    vec.fn == VecFn::Min || vec.fn == VecFn::Abs ||
                    vec.fn == VecFn::Neg || vec.fn == VecFn::Relu ||
                    (vec.fn >= VecFn::Lt && vec.fn <= VecFn::Sel);
  // A selection's condition is a mask in any computed type.
  if (vec.fn == VecFn::Sel && !isFloat(vec.c.dtype) &&
      vec.c.dtype != DType::S32)
    return fail(std::string("'sel' expects its condition in f32, f16, bf16 "
                            "or s32, found ") +
                dtypeName(vec.c.dtype));
  if (floats || (ints && intCapable))
    return Status();
  std::string types = dtypeName(vec.a.dtype);
  if (vec.hasB)
    types += std::string(", ") + dtypeName(vec.b.dtype);
  return fail(std::string("'") + vecFnName(vec.fn) +
              "' expects float operands (f32, f16, bf16)" +
              (intCapable ? " or all s32" : "") + ", found " + types + " -> " +
              dtypeName(dst));
}

Status Parser::parseReduce(const Json &json, Instr &instr) {
  ReduceOp &reduce = instr.op.emplace<ReduceOp>();
  instr.pipe = Pipe::V;
  const Json *fn = nullptr;
  MS_RETURN_IF_ERROR(require(json, "fn", fn));
  int index =
      fn->is_string() ? lookup(reduceFnNames, fn->get<std::string>()) : -1;
  if (index < 0)
    return fail("'fn': unknown reduction " + shown(*fn) + " (expected " +
                listNames(reduceFnNames) + ")");
  reduce.fn = ReduceFn(index);
  MS_RETURN_IF_ERROR(readShape(json, "shape", 2, 2, reduce.shape));
  MS_RETURN_IF_ERROR(readView(json, "src", 2, reduce.src));
  MS_RETURN_IF_ERROR(readView(json, "dst", 1, reduce.dst));
  MS_RETURN_IF_ERROR(requireSpace(reduce.src, "src", {Space::UB}));
  MS_RETURN_IF_ERROR(requireSpace(reduce.dst, "dst", {Space::UB}));
  MS_RETURN_IF_ERROR(readBool(json, "acc", reduce.acc));
  DType src = reduce.src.dtype, dst = reduce.dst.dtype;
  if ((isFloat(src) && isFloat(dst)) ||
      (src == DType::S32 && dst == DType::S32))
    return Status();
  return fail(std::string("expected float or s32 operands, found ") +
              dtypeName(src) + " -> " + dtypeName(dst));
}

Status Parser::parseFlag(const Json &json, Instr &instr) {
  FlagOp &flag = instr.op.emplace<FlagOp>();
  MS_RETURN_IF_ERROR(readPipe(json, "src", flag.src));
  MS_RETURN_IF_ERROR(readPipe(json, "dst", flag.dst));
  if (flag.src == flag.dst)
    return fail(std::string("'src' and 'dst' are both ") + pipeName(flag.src) +
                "; a flag orders two different pipes");
  const Json *id = nullptr;
  int64_t value = 0;
  MS_RETURN_IF_ERROR(require(json, "id", id));
  MS_RETURN_IF_ERROR(readInt(*id, "'id'", 0, kFlagIds - 1, value));
  flag.id = int(value);
  instr.pipe = instr.kind == OpKind::SetFlag ? flag.src : flag.dst;
  return Status();
}

//===----------------------------------------------------------------------===//
// Field readers
//===----------------------------------------------------------------------===//

Status Parser::require(const Json &object, const char *key,
                       const Json *&out) const {
  auto it = object.find(key);
  if (it == object.end())
    return fail(std::string("missing '") + key + "'");
  out = &*it;
  return Status();
}

Status Parser::readInt(const Json &value, const std::string &what, int64_t lo,
                       int64_t hi, int64_t &out) const {
  bool integer = value.is_number_integer() &&
                 (!value.is_number_unsigned() ||
                  value.get<uint64_t>() <= uint64_t(kInt64Max));
  if (!integer || value.get<int64_t>() < lo || value.get<int64_t>() > hi)
    return fail(what + ": expected an integer in [" + std::to_string(lo) +
                ", " + std::to_string(hi) + "], found " + shown(value));
  out = value.get<int64_t>();
  return Status();
}

Status Parser::readSizes(const Json &value, const char *key,
                         std::vector<int64_t> &out) const {
  if (!value.is_array())
    return fail(std::string("'") + key + "': expected an array of byte sizes");
  for (size_t i = 0; i < value.size(); ++i) {
    int64_t bytes = 0;
    MS_RETURN_IF_ERROR(readInt(
        value[i], std::string("'") + key + "[" + std::to_string(i) + "]'", 0,
        kMaxBufferBytes, bytes));
    out.push_back(bytes);
  }
  return Status();
}

Status Parser::readBool(const Json &object, const char *key, bool &out) const {
  out = false;
  auto it = object.find(key);
  if (it == object.end())
    return Status();
  if (!it->is_boolean())
    return fail(std::string("'") + key + "': expected true or false, found " +
                shown(*it));
  out = it->get<bool>();
  return Status();
}

Status Parser::readNumber(const Json &object, const char *key,
                          double &out) const {
  const Json *value = nullptr;
  MS_RETURN_IF_ERROR(require(object, key, value));
  // JSON has no infinities or NaN: those are the strings "inf", "-inf" and
  // "nan".
  if (value->is_string()) {
    const std::string &text = value->get_ref<const std::string &>();
    if (text == "inf" || text == "-inf" || text == "nan") {
      out = text == "nan"   ? std::numeric_limits<double>::quiet_NaN()
            : text == "inf" ? std::numeric_limits<double>::infinity()
                            : -std::numeric_limits<double>::infinity();
      return Status();
    }
  }
  if (!value->is_number())
    return fail(std::string("'") + key +
                "': expected a number (or \"inf\", "
                "\"-inf\", \"nan\"), found " +
                shown(*value));
  out = value->get<double>();
  return Status();
}

Status Parser::readExpr(const Json &value, const std::string &what,
                        Expr &out) const {
  if (!value.is_object())
    return readInt(value, what, kInt64Min, kInt64Max, out.constant);
  for (const auto &item : value.items()) {
    const std::string &key = item.key();
    const Json &field = item.value();
    if (key == "c") {
      MS_RETURN_IF_ERROR(
          readInt(field, what + ".c", kInt64Min, kInt64Max, out.constant));
    } else if (key == "t") {
      if (!field.is_array())
        return fail(what + ".t: expected an array of [L, K] or [L, K, MOD]");
      for (size_t i = 0; i < field.size(); ++i) {
        const Json &term = field[i];
        std::string at = what + ".t[" + std::to_string(i) + "]";
        if (!term.is_array() || term.size() < 2 || term.size() > 3)
          return fail(at + ": expected [L, K] or [L, K, MOD], found " +
                      shown(term));
        Term parsed;
        int64_t level = 0;
        MS_RETURN_IF_ERROR(readInt(term[0], at + " level (-1 is the core id)",
                                   -1, depth - 1, level));
        parsed.level = int(level);
        MS_RETURN_IF_ERROR(readInt(term[1], at + " coefficient", kInt64Min,
                                   kInt64Max, parsed.coeff));
        if (term.size() == 3)
          MS_RETURN_IF_ERROR(
              readInt(term[2], at + " modulus", 1, kInt64Max, parsed.mod));
        out.terms.push_back(parsed);
      }
    } else if (key == "core") {
      if (!field.is_array() || field.size() < size_t(kernel->cores))
        return fail(what + ".core: expected an array of at least " +
                    std::to_string(kernel->cores) +
                    " values (one per core), found " + shown(field));
      for (size_t i = 0; i < field.size(); ++i) {
        int64_t entry = 0;
        MS_RETURN_IF_ERROR(readInt(field[i],
                                   what + ".core[" + std::to_string(i) + "]",
                                   kInt64Min, kInt64Max, entry));
        out.core.push_back(entry);
      }
    } else {
      return fail(what + ": unknown expression key '" + key +
                  "' (expected c, t or core)");
    }
  }
  return Status();
}

Status Parser::readExprField(const Json &object, const char *key,
                             Expr &out) const {
  const Json *value = nullptr;
  MS_RETURN_IF_ERROR(require(object, key, value));
  return readExpr(*value, std::string("'") + key + "'", out);
}

Status Parser::readShape(const Json &object, const char *key, size_t minRank,
                         size_t maxRank, std::vector<Expr> &out) const {
  const Json *value = nullptr;
  MS_RETURN_IF_ERROR(require(object, key, value));
  if (!value->is_array() || value->size() < minRank || value->size() > maxRank)
    return fail(std::string("'") + key + "': expected " +
                (minRank == maxRank ? std::to_string(minRank)
                                    : std::to_string(minRank) + " to " +
                                          std::to_string(maxRank)) +
                " dimensions, found " + shown(*value));
  out.resize(value->size());
  for (size_t i = 0; i < value->size(); ++i) {
    std::string what = std::string("'") + key + "[" + std::to_string(i) + "]'";
    MS_RETURN_IF_ERROR(readExpr((*value)[i], what, out[i]));
    if (out[i].isConstant() && out[i].constant < 0)
      return fail(what + ": expected an extent >= 0, found " +
                  std::to_string(out[i].constant));
  }
  return Status();
}

Status Parser::readView(const Json &object, const char *key, size_t rank,
                        View &out) const {
  const Json *value = nullptr;
  MS_RETURN_IF_ERROR(require(object, key, value));
  std::string what = std::string("'") + key + "'";
  if (!value->is_object())
    return fail(what + ": expected a view object");
  const Json *field = nullptr;
  MS_RETURN_IF_ERROR(require(*value, "mem", field));
  int space =
      field->is_string() ? lookup(spaceNames, field->get<std::string>()) : -1;
  if (space < 0)
    return fail(what + ": unknown memory " + shown(*field) + " (expected " +
                listNames(spaceNames) + ")");
  out.space = Space(space);
  MS_RETURN_IF_ERROR(require(*value, "off", field));
  MS_RETURN_IF_ERROR(readExpr(*field, what + ".off", out.offset));
  MS_RETURN_IF_ERROR(require(*value, "dtype", field));
  MS_RETURN_IF_ERROR(readDType(*field, what + ".dtype", out.dtype));
  MS_RETURN_IF_ERROR(require(*value, "strides", field));
  if (!field->is_array() || field->size() != rank)
    return fail(what + ".strides: expected " + std::to_string(rank) +
                " strides (one per dimension of the shape), found " +
                shown(*field));
  out.strides.resize(rank);
  for (size_t i = 0; i < rank; ++i)
    MS_RETURN_IF_ERROR(readInt((*field)[i],
                               what + ".strides[" + std::to_string(i) + "]", 0,
                               kMaxStride, out.strides[i]));
  bool hasBuffer = value->contains("buf");
  if (out.space != Space::GM) {
    if (hasBuffer)
      return fail(what + ": 'buf' names a gm buffer, but the view is in " +
                  spaceName(out.space));
    return Status();
  }
  if (!hasBuffer)
    return fail(what + ": a gm view needs 'buf': [\"arg\", I] or "
                       "[\"scratch\", J]");
  return readBuffer((*value)["buf"], what, out);
}

Status Parser::readScratchData(const Json &value, Kernel &out) const {
  if (!value.is_array() || value.size() != out.scratch.size())
    return fail("'scratch_data': expected one entry per scratch buffer (" +
                std::to_string(out.scratch.size()) + "), found " +
                shown(value));
  out.scratchData.resize(out.scratch.size());
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i].is_null())
      continue;
    std::string what = "'scratch_data' " + std::to_string(i);
    if (!value[i].is_string())
      return fail(what + ": expected null or a hex string");
    const std::string &hex = value[i].get_ref<const std::string &>();
    if (int64_t(hex.size()) != 2 * out.scratch[i])
      return fail(what + ": expected " + std::to_string(2 * out.scratch[i]) +
                  " hex digits (the buffer's bytes), found " +
                  std::to_string(hex.size()));
    std::vector<uint8_t> &bytes = out.scratchData[i];
    bytes.resize(hex.size() / 2);
    for (size_t j = 0; j < bytes.size(); ++j) {
      auto digit = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                      : -1;
      };
      int hi = digit(hex[2 * j]), lo = digit(hex[2 * j + 1]);
      if (hi < 0 || lo < 0)
        return fail(what + ": expected lower-case hex digits");
      bytes[j] = uint8_t(hi * 16 + lo);
    }
  }
  return Status();
}

Status Parser::readBuffer(const Json &value, const std::string &what,
                          View &out) const {
  bool shaped = value.is_array() && value.size() == 2 && value[0].is_string();
  std::string kind = shaped ? value[0].get<std::string>() : "";
  if (kind != "arg" && kind != "scratch")
    return fail(what +
                ".buf: expected [\"arg\", I] or [\"scratch\", J], "
                "found " +
                shown(value));
  out.scratch = kind == "scratch";
  size_t count = out.scratch ? kernel->scratch.size() : kernel->args.size();
  if (count == 0)
    return fail(what + ".buf: the kernel has no " + kind + " buffers");
  int64_t index = 0;
  MS_RETURN_IF_ERROR(readInt(value[1], what + ".buf " + kind + " index", 0,
                             int64_t(count) - 1, index));
  out.buffer = int(index);
  return Status();
}

Status Parser::readPipe(const Json &object, const char *key, Pipe &out) const {
  const Json *value = nullptr;
  MS_RETURN_IF_ERROR(require(object, key, value));
  int pipe =
      value->is_string() ? lookup(pipeNames, value->get<std::string>()) : -1;
  if (pipe < 0)
    return fail(std::string("'") + key + "': unknown pipe " + shown(*value) +
                " (expected " + listNames(pipeNames) + ")");
  out = Pipe(pipe);
  return Status();
}

Status Parser::readDType(const Json &value, const std::string &what,
                         DType &out) const {
  int dtype =
      value.is_string() ? lookup(dtypeNames, value.get<std::string>()) : -1;
  if (dtype < 0)
    return fail(what + ": unknown dtype " + shown(value) + " (expected " +
                listNames(dtypeNames) + ")");
  out = DType(dtype);
  return Status();
}

Status Parser::requireSpace(const View &view, const char *what,
                            std::initializer_list<Space> spaces) const {
  std::string names;
  for (Space space : spaces) {
    if (view.space == space)
      return Status();
    names += std::string(names.empty() ? "" : " or ") + spaceName(space);
  }
  return fail(std::string("'") + what + "': expected a view in " + names +
              ", found " + spaceName(view.space));
}
} // namespace

Status ms::rt::impl::npu::parseProgram(const std::string &where,
                                       const void *data, size_t size,
                                       Program &out) {
  out = Program();
  const char *text = static_cast<const char *>(data);
  Json section = Json::parse(text, text + size, nullptr,
                             /*allow_exceptions=*/false);
  if (section.is_discarded())
    return Status::error(MS_INVALID_ARGUMENT,
                         where + ": not valid JSON (expected the "
                                 "npu-program object, docs/NPU.md)");
  return Parser(where).parse(section, out);
}
