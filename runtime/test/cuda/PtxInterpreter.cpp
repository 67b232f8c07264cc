//===- PtxInterpreter.cpp - runs generated PTX on the CPU for tests -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "PtxInterpreter.h"
#include "GlobalRaces.h"
#include "SharedRaces.h"
#include "npu/Float16.h"

#include <cmath>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace ms::fakecuda;
namespace npu = ms::rt::impl::npu;

namespace {
/// Where a memory instruction or a variable is.
enum class Space { Generic, Global, Shared, Local, Param };
/// How an operand's bits are read: b (bits), u, s, f, bf (bfloat16), pred.
enum class Kind { B, U, S, F, BF, Pred };
struct Type {
  Kind kind = Kind::B;
  unsigned bits = 0;
};

enum class Opcode {
  Ld, St, Mov, Cvta, Add, Sub, Mul, Mad, Div, Rem, Min, Max, Neg, Abs, And,
  Or, Xor, Not, Shl, Shr, Bfe, Shf, Copysign, Fma, Rcp, Sqrt, Rsqrt, Ex2,
  Lg2, Sin, Cos, Tanh, Setp, Selp, Cvt, Bra, Ret, Bar, Shfl, Addc, Madc,
  Mma, Ldmatrix, Prmt, CpAsync, Wgmma, Fence, Mbarrier,
};

enum class OperandKind { Reg, Imm, Mem, Symbol, Vector };
struct Operand {
  OperandKind kind = OperandKind::Imm;
  /// A register, a memory operand's base register (or -1), the first of a
  /// `d|p` pair.
  int reg = -1;
  /// The predicate of a `d|p` pair, or -1.
  int pred = -1;
  /// An immediate's bits, a memory operand's byte offset.
  int64_t imm = 0;
  /// A symbol, a memory operand's base symbol (or -1).
  int symbol = -1;
  /// A predicate read negated (`!%p`).
  bool negated = false;
  /// A vector's elements (registers or immediates).
  std::vector<Operand> elements;
};

/// A variable: a parameter, a shared or local buffer, a global.
struct Symbol {
  std::string name;
  Space space = Space::Global;
  /// The offset in its window (param, shared, local) or the address.
  uint64_t address = 0;
  uint64_t size = 0;
  /// Whether it is declared outside every entry.
  bool moduleScope = false;
  /// An `.extern .shared` array: the launch's dynamic shared memory, after
  /// the launched entry's static shared variables (`address` unused).
  bool dynamic = false;
};

struct Instr {
  std::string text;
  int line = 0;
  Opcode op = Opcode::Mov;
  std::vector<std::string> mods;
  Space space = Space::Generic;
  /// The operation's type (the last type modifier) and, for cvt, the
  /// source's.
  Type type, from;
  unsigned vector = 1;
  /// Rounding: "", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi".
  std::string rounding;
  bool has(const char *mod) const {
    for (const std::string &m : mods)
      if (m == mod)
        return true;
    return false;
  }
  int guard = -1;
  bool guardNegated = false;
  std::vector<Operand> operands;
  /// A branch's label and target instruction, and the braces' scopes it
  /// is in (innermost last: a label there is found first).
  std::string label;
  std::vector<int> scopes;
  long target = -1;
};

struct Kernel {
  std::string name;
  std::vector<int> params;
  uint64_t paramBytes = 0;
  uint64_t sharedBytes = 0;
  uint64_t localBytes = 0;
  std::vector<Instr> code;
  std::map<std::string, int> registers;
  /// The special registers' numbers (-1 where unused).
  int tid = -1, ntid = -1, ctaid = -1, nctaid = -1, laneid = -1;
  /// The registers that read 1 (the grid and block's y and z sizes).
  std::vector<int> ones;
  std::map<std::string, int> symbols;
  /// Registers an inline assembly scope declared without a '%' (`.reg
  /// .pred p;`): a scope's registers are the kernel's.
  std::set<std::string> namedRegisters;
};

/// Where the hardware's swizzle of rows of `bytes` (32, 64 or 128) puts
/// the 16 bytes at shared memory address `address` (16-byte aligned): the
/// chunk bits (4 and up) XORed with the row bits (7 and up), as many as a
/// row has chunks (1, 2 or 3 bits).
uint64_t swizzle(uint64_t address, uint64_t bytes) {
  uint64_t chunks = bytes / 16 - 1;
  return address ^ (((address >> 7) & chunks) << 4);
}

uint64_t maskTo(uint64_t v, unsigned bits) {
  return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1);
}
int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return static_cast<int64_t>(v);
  uint64_t sign = uint64_t(1) << (bits - 1);
  v = maskTo(v, bits);
  return static_cast<int64_t>((v ^ sign) - sign);
}
float asF32(uint64_t v) {
  return npu::bitsFloat(static_cast<uint32_t>(v));
}
double asF64(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
uint64_t bitsOf(float f) { return npu::floatBits(f); }
uint64_t bitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
// f16 and bf16 (through f32: a result computed in double and rounded twice
// is off only on a tie of the second rounding).
float halfToFloat(uint16_t h) { return npu::halfToFloat(h); }
/// `v` rounded to the nearest float (to nearest even; beyond the largest
/// float, infinity), without the undefined behaviour of an out-of-range cast.
float narrow(double v) {
  // The largest float plus half its ulp: at or beyond it, infinity.
  constexpr double limit = 3.4028235677973366e38;
  if (v >= limit)
    return INFINITY;
  if (v <= -limit)
    return -INFINITY;
  if (std::fabs(v) > 3.4028234663852886e38)
    return std::copysign(3.4028234663852886e38f, static_cast<float>(v > 0 ? 1 : -1));
  return static_cast<float>(v);
}

/// `v` as a float rounded to odd: narrowing that to f16 or bf16 (13 or 16
/// fewer bits) then rounds as narrowing `v` directly would.
float roundToOdd(double v) {
  float f = narrow(v);
  if (std::isnan(v) || std::isinf(v) || static_cast<double>(f) == v)
    return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v))
    f = std::nextafter(f, 0.0f);
  return npu::bitsFloat(npu::floatBits(f) | 1);
}
uint16_t floatToHalf(double f) { return npu::floatToHalf(roundToOdd(f)); }
float bf16ToFloat(uint16_t b) { return npu::bf16ToFloat(b); }
uint16_t floatToBf16(double f) { return npu::floatToBf16(roundToOdd(f)); }

/// `exact` rounded to f32 in `mode` (rn, rz, rm, rp).
float roundTo(double exact, const std::string &mode) {
  float f = narrow(exact);
  if (mode == "rz" && std::fabs(static_cast<double>(f)) > std::fabs(exact))
    f = std::nextafter(f, 0.0f);
  else if (mode == "rm" && static_cast<double>(f) > exact)
    f = std::nextafter(f, -INFINITY);
  else if (mode == "rp" && static_cast<double>(f) < exact)
    f = std::nextafter(f, INFINITY);
  return f;
}

double roundIntegral(double v, const std::string &mode) {
  if (mode == "rzi")
    return std::trunc(v);
  if (mode == "rmi")
    return std::floor(v);
  if (mode == "rpi")
    return std::ceil(v);
  return std::nearbyint(v);
}

/// Whether `mod` is an instruction modifier the interpreter implements
/// (besides types, state spaces, vectors and rounding modes).
bool isKnownModifier(const std::string &mod) {
  static const char *const known[] = {
      "lo",  "hi",  "wide", "cc",  "approx", "full", "ftz",  "NaN", "uni",
      "sync", "aligned", "bfly", "down", "up", "idx", "nc",  "to",  "wrap",
      "clamp", "l",  "r",   "and", "or",  "xor",  "eq",   "ne",  "lt",
      "le",  "gt",  "ge",   "ls",  "hs",  "equ",  "neu",  "ltu", "leu",
      "gtu", "geu", "num",  "nan", "sat", "ptr"};
  for (const char *k : known)
    if (mod == k)
      return true;
  return false;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> splitTopLevel(const std::string &s, char sep) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : s) {
    if (c == '[' || c == '{')
      ++depth;
    if (c == ']' || c == '}')
      --depth;
    if (c == sep && depth == 0) {
      parts.push_back(trim(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (!trim(current).empty())
    parts.push_back(trim(current));
  return parts;
}

/// Rewrites instruction `text` (ending in ';') on packed pairs of 16-bit
/// values (f16x2, bf16x2, s16x2, u16x2) as instructions on the halves,
/// lower half first, into `out` (else `text` alone): each packed source is
/// split into two registers, the scalar operation runs on each half, and
/// the halves are packed into the destination. `cvt.<pair>.f32 d, a, b`
/// packs a's conversion into the upper half and b's into the lower;
/// `setp.<cmp>.<pair> p|q, a, b` sets p from the lower halves and q from
/// the upper. The new registers are named after `id`, unique per call.
bool expandPacked(const std::string &text, unsigned id,
                  std::vector<std::string> &out, std::string &error) {
  std::string s = trim(text.substr(0, text.size() - 1));
  std::string guard;
  if (!s.empty() && s[0] == '@') {
    size_t space = s.find_first_of(" \t");
    if (space == std::string::npos) {
      out = {text};
      return true;
    }
    guard = s.substr(0, space) + " ";
    s = trim(s.substr(space));
  }
  size_t space = s.find_first_of(" \t");
  std::string opcode = s.substr(0, space);
  std::string rest = space == std::string::npos ? "" : trim(s.substr(space));
  std::vector<std::string> mods;
  std::stringstream parts(opcode);
  for (std::string part; std::getline(parts, part, '.');)
    mods.push_back(part);
  static const std::map<std::string, std::string> scalars = {
      {"f16x2", "f16"}, {"bf16x2", "bf16"}, {"s16x2", "s16"},
      {"u16x2", "u16"}};
  int packed = -1;
  for (size_t i = 1; i < mods.size(); ++i)
    if (scalars.count(mods[i]))
      packed = static_cast<int>(i);
  if (packed < 0) {
    out = {text};
    return true;
  }
  std::vector<std::string> operands = splitTopLevel(rest, ',');
  auto scalarOpcode = [&]() {
    std::string o = mods[0];
    for (size_t i = 1; i < mods.size(); ++i)
      o += "." + (int(i) == packed ? scalars.at(mods[i]) : mods[i]);
    return o;
  };
  auto temp = [&](size_t operand, int half) {
    return "%px" + std::to_string(id) + "_" + std::to_string(operand) + "_" +
           std::to_string(half);
  };
  if (operands.empty() || operands[0].empty() || operands[0][0] != '%') {
    error = "expected a register destination";
    return false;
  }
  std::string head = scalarOpcode();
  if (mods[0] == "cvt") {
    // cvt.<rounding>.<pair>.f32 d, a, b.
    if (packed + 2 != int(mods.size()) || mods.back() != "f32" ||
        operands.size() != 3) {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    out.push_back(guard + head + " " + temp(0, 1) + ", " + operands[1] + ";");
    out.push_back(guard + head + " " + temp(0, 0) + ", " + operands[2] + ";");
    out.push_back(guard + "mov.b32 " + operands[0] + ", {" + temp(0, 0) +
                  ", " + temp(0, 1) + "};");
    return true;
  }
  if (operands.size() < 2) {
    error = "expected operands";
    return false;
  }
  for (size_t i = 1; i < operands.size(); ++i)
    out.push_back(guard + "mov.b32 {" + temp(i, 0) + ", " + temp(i, 1) +
                  "}, " + operands[i] + ";");
  std::string destinations[2];
  if (mods[0] == "setp") {
    size_t bar = operands[0].find('|');
    // Its halves run one by one: a guard they write would change between.
    std::string predicate = guard.empty() ? "" : trim(guard.substr(1));
    if (!predicate.empty() && predicate[0] == '!')
      predicate = predicate.substr(1);
    if (bar == std::string::npos || mods.size() != 3 ||
        (!predicate.empty() && (operands[0].substr(0, bar) == predicate ||
                                operands[0].substr(bar + 1) == predicate))) {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    destinations[0] = operands[0].substr(0, bar);
    destinations[1] = operands[0].substr(bar + 1);
  } else {
    destinations[0] = temp(0, 0);
    destinations[1] = temp(0, 1);
  }
  for (int half = 0; half < 2; ++half) {
    std::string line = guard + head + " " + destinations[half];
    for (size_t i = 1; i < operands.size(); ++i)
      line += ", " + temp(i, half);
    out.push_back(line + ";");
  }
  if (mods[0] != "setp")
    out.push_back(guard + "mov.b32 " + operands[0] + ", {" + temp(0, 0) +
                  ", " + temp(0, 1) + "};");
  return true;
}

bool parseType(const std::string &mod, Type &type) {
  static const std::map<std::string, Type> types = {
      {"b8", {Kind::B, 8}},    {"b16", {Kind::B, 16}},  {"b32", {Kind::B, 32}},
      {"b64", {Kind::B, 64}},  {"u8", {Kind::U, 8}},    {"u16", {Kind::U, 16}},
      {"u32", {Kind::U, 32}},  {"u64", {Kind::U, 64}},  {"s8", {Kind::S, 8}},
      {"s16", {Kind::S, 16}},  {"s32", {Kind::S, 32}},  {"s64", {Kind::S, 64}},
      {"f16", {Kind::F, 16}},  {"f32", {Kind::F, 32}},  {"f64", {Kind::F, 64}},
      {"bf16", {Kind::BF, 16}},
      {"pred", {Kind::Pred, 1}},
  };
  auto it = types.find(mod);
  if (it == types.end())
    return false;
  type = it->second;
  return true;
}

/// A `.func` definition, inlined at each call: the names of its results and
/// parameters, its body's statements (continuation lines joined) with their
/// line numbers, and the names a copy of the body renames: its registers
/// (`%rd<105>` declares the prefix `%rd`), labels and `.param`/`.local`
/// variables.
struct Func {
  std::vector<std::string> results, params;
  std::vector<std::pair<int, std::string>> body;
  std::set<std::string> registerPrefixes, registers, locals;
  /// Whether only a prototype was seen.
  bool declaredOnly = true;
};

/// Returns `s` without its `//` comment, trimmed.
std::string stripComment(const std::string &s) {
  return trim(s.substr(0, s.find("//")));
}

/// Appends the names of the parameter list `list` (`.param .b64 a, ...`,
/// without its parentheses) to `names`; false for an aggregate parameter.
bool paramNames(const std::string &list, std::vector<std::string> &names) {
  for (const std::string &param : splitTopLevel(list, ',')) {
    std::istringstream words(param);
    std::string word, name;
    while (words >> word)
      if (word[0] != '.' && !std::isdigit(static_cast<unsigned char>(word[0])))
        name = word;
    if (name.empty() || name.find('[') != std::string::npos)
      return false;
    names.push_back(name);
  }
  return true;
}

/// Records the names that `.func` body statement `text` (one declaration
/// or label) declares in `f`; false for registers a copy could not rename
/// (a name without '%', a `%x1<4>` range whose names end in digits twice).
bool declareInFunc(Func &f, const std::string &text) {
  if (text.back() == ':') {
    f.locals.insert(text.substr(0, text.size() - 1));
    return true;
  }
  std::istringstream words(text);
  std::string kind, word;
  words >> kind;
  if (kind != ".reg" && kind != ".param" && kind != ".local")
    return true;
  while (words >> word) {
    if (word[0] == '.' || std::isdigit(static_cast<unsigned char>(word[0])))
      continue;
    word = word.substr(0, word.find_first_of(",;["));
    if (word.empty())
      continue;
    if (kind != ".reg") {
      f.locals.insert(word);
      continue;
    }
    if (word[0] != '%')
      return false;
    size_t open = word.find('<');
    if (open == std::string::npos) {
      f.registers.insert(word);
      continue;
    }
    std::string prefix = word.substr(0, open);
    if (std::isdigit(static_cast<unsigned char>(prefix.back())))
      return false;
    f.registerPrefixes.insert(prefix);
  }
  return true;
}

/// Moves the `.func` declarations and definitions of `ptx` into `funcs`,
/// leaving the rest in `rest` (the moved lines blank, so that line numbers
/// hold); false with `error` set for one the interpreter cannot inline.
bool extractFuncs(const std::string &ptx, std::map<std::string, Func> &funcs,
                  std::string &rest, std::string &error) {
  std::vector<std::string> lines;
  std::istringstream stream(ptx);
  for (std::string line; std::getline(stream, line);)
    lines.push_back(line);
  const std::vector<std::string> original = lines;
  auto fail = [&](size_t i, const std::string &message) {
    error = "line " + std::to_string(i + 1) + ": " + message + ": " +
            trim(original[i]);
    return false;
  };
  int depth = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string text = stripComment(lines[i]);
    size_t directive = text.find(".func");
    if (depth > 0 || directive == std::string::npos ||
        text.find_first_not_of(" \t", directive + 5) == directive + 5) {
      for (char c : text)
        depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      continue;
    }
    // The header, up to its body's '{' or a prototype's ';'.
    size_t first = i;
    std::string header = text;
    while (header.find('{') == std::string::npos && header.back() != ';' &&
           i + 1 < lines.size())
      header += " " + stripComment(lines[++i]);
    bool isExtern = header.rfind(".extern", 0) == 0;
    std::string h = trim(header.substr(header.find(".func") + 5));
    std::string results, params, name;
    if (!h.empty() && h[0] == '(') {
      size_t close = h.find(')');
      if (close == std::string::npos)
        return fail(first, "malformed .func header");
      results = h.substr(1, close - 1);
      h = trim(h.substr(close + 1));
    }
    size_t nameEnd = h.find_first_of(" \t(;{");
    name = h.substr(0, nameEnd);
    h = nameEnd == std::string::npos ? "" : trim(h.substr(nameEnd));
    if (!h.empty() && h[0] == '(') {
      size_t close = h.find(')');
      if (close == std::string::npos)
        return fail(first, "malformed .func header");
      params = h.substr(1, close - 1);
    }
    Func parsed;
    if (name.empty() || !paramNames(results, parsed.results) ||
        !paramNames(params, parsed.params))
      return fail(first, "expected a .func with scalar parameters");
    Func &f = funcs[name];
    bool defines = header.find('{') != std::string::npos;
    if (!f.declaredOnly && defines)
      return fail(first, "function '" + name + "' defined twice");
    // The body reads the names of its definition.
    if (f.declaredOnly) {
      f.results = parsed.results;
      f.params = parsed.params;
    }
    for (size_t j = first; j <= i; ++j)
      lines[j].clear();
    if (!defines)
      continue;
    if (isExtern)
      return fail(first, "an external function with a body");
    f.declaredOnly = false;
    // The body, up to the '}' that closes it; an instruction may continue
    // on the next lines.
    int inner = 1;
    std::string pending;
    int pendingLine = 0;
    while (++i < lines.size()) {
      std::string line = stripComment(lines[i]);
      lines[i].clear();
      for (char c : line)
        inner += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (inner == 0)
        break;
      if (line.empty())
        continue;
      if (pending.empty())
        pendingLine = static_cast<int>(i + 1);
      pending = trim(pending + " " + line);
      char last = pending.back();
      if (pending[0] != '.' && pending != "{" && last != ';' && last != '}' &&
          last != ':')
        continue;
      // Declarations on one line are taken one by one.
      std::vector<std::string> statements = {pending};
      if (pending[0] == '.') {
        statements.clear();
        for (const std::string &part : splitTopLevel(pending, ';'))
          statements.push_back(part + ";");
      }
      for (const std::string &statement : statements) {
        if (statement.rfind(".shared", 0) == 0)
          return fail(i, "a function declaring shared memory is not "
                         "implemented");
        if (!declareInFunc(f, statement))
          return fail(i, "a register a copy of the function cannot rename");
        f.body.emplace_back(pendingLine, statement);
      }
      pending.clear();
    }
    if (inner != 0)
      return fail(first, "unterminated function '" + name + "'");
  }
  for (const std::string &line : lines)
    rest += line + "\n";
  return true;
}

/// Returns body statement `text` of `f` renamed for one inlined copy:
/// `names` maps whole names (parameters to the call's arguments, locals and
/// labels to fresh ones), `suffix` marks its registers; a `ret` becomes a
/// branch to `exit`.
std::string renameForCall(const Func &f, const std::string &text,
                          const std::map<std::string, std::string> &names,
                          const std::string &suffix, const std::string &exit) {
  auto isNameChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '$' || c == '%' || c == '.';
  };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!isNameChar(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && isNameChar(text[j]))
      ++j;
    std::string token = text.substr(i, j - i);
    i = j;
    if (auto it = names.find(token); it != names.end()) {
      out += it->second;
      continue;
    }
    if (token[0] == '%') {
      size_t digits = token.find_last_not_of("0123456789") + 1;
      if (f.registers.count(token) ||
          (digits < token.size() &&
           f.registerPrefixes.count(token.substr(0, digits)))) {
        out += token + suffix;
        continue;
      }
    }
    out += token;
  }
  // `[@guard] ret[.uni];` leaves the copy.
  size_t op = out[0] == '@' ? out.find_first_of(" \t") : 0;
  if (op != std::string::npos) {
    std::string rest = trim(out.substr(op));
    if (rest == "ret;" || rest == "ret.uni;")
      out = out.substr(0, op) + (op ? " " : "") + "bra.uni " + exit + ";";
  }
  return out;
}
} // namespace

namespace ms::fakecuda {
class PtxModuleImpl {
public:
  std::vector<Kernel> kernels;
  /// Module-scope symbols (globals, shared variables).
  std::vector<Symbol> symbols;
  std::vector<std::unique_ptr<uint8_t[]>> globalMemory;
  uint64_t moduleShared = 0;

  const Kernel *find(const std::string &name) const {
    for (const Kernel &k : kernels)
      if (k.name == name)
        return &k;
    return nullptr;
  }

  bool parse(const std::string &ptx, std::string &error);
  std::string run(const Kernel &k, unsigned grid, unsigned block,
                  unsigned dynamicBytes, void **params,
                  const GlobalCheck &isGlobal, uint64_t maxSteps,
                  bool checkRaces) const;

private:
  bool parseInstr(Kernel &k, const std::string &text, int line, Instr &in,
                  std::string &error);
  bool parseOperand(Kernel &k, const std::string &text, Operand &op,
                    std::string &error);
  int reg(Kernel &k, const std::string &name) {
    auto it = k.registers.find(name);
    if (it != k.registers.end())
      return it->second;
    int index = static_cast<int>(k.registers.size());
    k.registers[name] = index;
    if (name == "%tid.x")
      k.tid = index;
    else if (name == "%ntid.x")
      k.ntid = index;
    else if (name == "%ctaid.x")
      k.ctaid = index;
    else if (name == "%nctaid.x")
      k.nctaid = index;
    else if (name == "%laneid")
      k.laneid = index;
    else if (name == "%ntid.y" || name == "%ntid.z" || name == "%nctaid.y" ||
             name == "%nctaid.z")
      k.ones.push_back(index);
    return index;
  }
};
} // namespace ms::fakecuda

bool PtxModuleImpl::parseOperand(Kernel &k, const std::string &text,
                                 Operand &op, std::string &error) {
  if (text.empty()) {
    error = "empty operand";
    return false;
  }
  auto symbolOf = [&](const std::string &name) -> int {
    auto it = k.symbols.find(name);
    if (it != k.symbols.end())
      return it->second;
    for (size_t i = 0; i < symbols.size(); ++i)
      if (symbols[i].moduleScope && symbols[i].name == name)
        return static_cast<int>(i);
    return -1;
  };
  // '_' is a destination that drops its value (mbarrier.arrive's state).
  if (text == "_") {
    op.kind = OperandKind::Reg;
    op.reg = reg(k, "%_");
    return true;
  }
  if (text.front() == '[') {
    op.kind = OperandKind::Mem;
    if (text.back() != ']') {
      error = "expected ']' in '" + text + "'";
      return false;
    }
    std::string inner = trim(text.substr(1, text.size() - 2));
    std::string base = inner, offset;
    size_t sign = inner.find_first_of("+-", 1);
    if (sign != std::string::npos) {
      base = trim(inner.substr(0, sign));
      offset = trim(inner.substr(inner[sign] == '+' ? sign + 1 : sign));
    }
    if (!base.empty() && (std::isdigit(base[0]) || base[0] == '-')) {
      offset = base;
      base.clear();
    }
    if (!offset.empty())
      op.imm = std::stoll(offset, nullptr, 0);
    if (!base.empty()) {
      if (base[0] == '%') {
        op.reg = reg(k, base);
      } else {
        op.symbol = symbolOf(base);
        if (op.symbol == -1) {
          error = "unknown symbol '" + base + "'";
          return false;
        }
      }
    }
    return true;
  }
  if (text.front() == '{') {
    op.kind = OperandKind::Vector;
    for (const std::string &element :
         splitTopLevel(text.substr(1, text.size() - 2), ',')) {
      Operand part;
      // Scratch registers of a one-line scope may lack the '%'; '_' is a
      // destination that drops its part.
      if (element == "_") {
        part.kind = OperandKind::Reg;
        part.reg = reg(k, "%_");
      } else if (std::isalpha(static_cast<unsigned char>(element[0]))) {
        part.kind = OperandKind::Reg;
        part.reg = reg(k, element);
      } else if (!parseOperand(k, element, part, error)) {
        return false;
      }
      if (part.kind != OperandKind::Reg && part.kind != OperandKind::Imm) {
        error = "expected registers or immediates in '" + text + "'";
        return false;
      }
      op.elements.push_back(part);
    }
    return true;
  }
  if (text.front() == '!' && text.size() > 1 && text[1] == '%') {
    if (!parseOperand(k, text.substr(1), op, error))
      return false;
    op.negated = true;
    return true;
  }
  if (text.front() == '%' || k.namedRegisters.count(text)) {
    op.kind = OperandKind::Reg;
    size_t bar = text.find('|');
    op.reg = reg(k, text.substr(0, bar));
    if (bar != std::string::npos)
      op.pred = reg(k, text.substr(bar + 1));
    return true;
  }
  if (std::isdigit(text[0]) || text[0] == '-') {
    op.kind = OperandKind::Imm;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F'))
      op.imm = static_cast<int64_t>(std::stoull(text.substr(2), nullptr, 16));
    else if (text.size() > 2 && text[0] == '0' &&
             (text[1] == 'd' || text[1] == 'D'))
      op.imm = static_cast<int64_t>(std::stoull(text.substr(2), nullptr, 16));
    else if (text[0] == '-')
      op.imm = std::stoll(text, nullptr, 0);
    else
      op.imm = static_cast<int64_t>(std::stoull(text, nullptr, 0));
    return true;
  }
  // A variable, or a label (-1: branches resolve theirs after the body).
  op.kind = OperandKind::Symbol;
  op.symbol = symbolOf(text);
  return true;
}

bool PtxModuleImpl::parseInstr(Kernel &k, const std::string &statement,
                               int line, Instr &in, std::string &error) {
  static const std::map<std::string, Opcode> opcodes = {
      {"ld", Opcode::Ld},         {"st", Opcode::St},
      {"mov", Opcode::Mov},       {"cvta", Opcode::Cvta},
      {"add", Opcode::Add},       {"sub", Opcode::Sub},
      {"mul", Opcode::Mul},       {"mad", Opcode::Mad},
      {"div", Opcode::Div},       {"rem", Opcode::Rem},
      {"min", Opcode::Min},       {"max", Opcode::Max},
      {"neg", Opcode::Neg},       {"abs", Opcode::Abs},
      {"and", Opcode::And},       {"or", Opcode::Or},
      {"xor", Opcode::Xor},       {"not", Opcode::Not},
      {"shl", Opcode::Shl},       {"shr", Opcode::Shr},
      {"bfe", Opcode::Bfe},       {"shf", Opcode::Shf},
      {"copysign", Opcode::Copysign}, {"fma", Opcode::Fma},
      {"rcp", Opcode::Rcp},       {"sqrt", Opcode::Sqrt},
      {"rsqrt", Opcode::Rsqrt},   {"ex2", Opcode::Ex2},
      {"lg2", Opcode::Lg2},       {"sin", Opcode::Sin},
      {"cos", Opcode::Cos},       {"tanh", Opcode::Tanh},
      {"setp", Opcode::Setp},     {"selp", Opcode::Selp},
      {"cvt", Opcode::Cvt},       {"bra", Opcode::Bra},
      {"ret", Opcode::Ret},       {"exit", Opcode::Ret},
      {"bar", Opcode::Bar},       {"barrier", Opcode::Bar},
      {"shfl", Opcode::Shfl},     {"addc", Opcode::Addc},
      {"madc", Opcode::Madc},     {"mma", Opcode::Mma},
      {"ldmatrix", Opcode::Ldmatrix}, {"prmt", Opcode::Prmt},
      {"cp", Opcode::CpAsync},    {"wgmma", Opcode::Wgmma},
      {"fence", Opcode::Fence},     {"mbarrier", Opcode::Mbarrier},
  };
  in.text = statement;
  in.line = line;
  std::string s = trim(statement.substr(0, statement.size() - 1)); // ';'
  if (s[0] == '@') {
    size_t space = s.find_first_of(" \t");
    if (space == std::string::npos || space < 3) {
      error = "expected a guarded instruction";
      return false;
    }
    std::string guard = s.substr(1, space - 1);
    in.guardNegated = guard[0] == '!';
    in.guard = reg(k, in.guardNegated ? guard.substr(1) : guard);
    s = trim(s.substr(space));
  }
  size_t space = s.find_first_of(" \t");
  std::string opcode = s.substr(0, space);
  std::string rest = space == std::string::npos ? "" : trim(s.substr(space));
  std::stringstream parts(opcode);
  std::string part, base;
  std::getline(parts, base, '.');
  auto it = opcodes.find(base);
  if (it == opcodes.end()) {
    error = "unsupported instruction '" + opcode + "'";
    return false;
  }
  in.op = it->second;
  std::vector<Type> types;
  if (in.op == Opcode::Mma) {
    // Only the warp-level m16n8k16 product of f16 or bf16 pairs, or the
    // m16n8k8 one of TF32, into f32 accumulators (row-major A, column-major
    // B).
    std::vector<std::string> mods;
    while (std::getline(parts, part, '.'))
      mods.push_back(part);
    bool ok = mods.size() == 9 && mods[0] == "sync" && mods[1] == "aligned" &&
              mods[3] == "row" && mods[4] == "col" && mods[5] == "f32" &&
              mods[8] == "f32" && mods[6] == mods[7] &&
              (((mods[6] == "bf16" || mods[6] == "f16") &&
                mods[2] == "m16n8k16") ||
               (mods[6] == "tf32" && mods[2] == "m16n8k8"));
    if (!ok) {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    in.mods = mods;
    in.type = {Kind::F, 32};
    if (!parseType(mods[6], in.from))
      in.from = {Kind::F, 32}; // tf32: f32 bits, 13 ignored
  }
  if (in.op == Opcode::Ldmatrix) {
    // ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared[::cta].b16: each
    // register a lane's row and column pair of one 8 x 8 matrix (of its
    // transpose with .trans).
    std::vector<std::string> mods;
    while (std::getline(parts, part, '.'))
      mods.push_back(part);
    bool transpose = mods.size() == 7 && mods[4] == "trans";
    if (transpose)
      mods.erase(mods.begin() + 4);
    bool ok = mods.size() == 6 && mods[0] == "sync" && mods[1] == "aligned" &&
              mods[2] == "m8n8" &&
              (mods[3] == "x1" || mods[3] == "x2" || mods[3] == "x4") &&
              (mods[4] == "shared" || mods[4] == "shared::cta") &&
              mods[5] == "b16";
    if (!ok) {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    in.mods = mods;
    if (transpose)
      in.mods.push_back("trans");
    in.space = Space::Shared;
    in.vector = static_cast<unsigned>(mods[3][1] - '0');
    in.type = {Kind::B, 32};
  }
  if (in.op == Opcode::CpAsync) {
    // cp.async.{ca,cg}.shared[::cta].global (a copy of 4, 8 or 16 bytes
    // whose source bytes past the optional src-size are zeros),
    // cp.async.commit_group, cp.async.wait_group N and cp.async.wait_all:
    // in.mods is "copy", "commit" or "wait".
    std::vector<std::string> mods;
    while (std::getline(parts, part, '.'))
      mods.push_back(part);
    std::string kind;
    if (mods.size() == 4 && mods[0] == "async" &&
        (mods[1] == "ca" || mods[1] == "cg") &&
        (mods[2] == "shared" || mods[2] == "shared::cta") &&
        mods[3] == "global") {
      kind = "copy";
      // .cg copies 16 bytes only.
      in.mods.push_back(mods[1]);
    }
    else if ((mods.size() == 8 || mods.size() == 7) && mods[0] == "async" &&
             mods[1] == "bulk" && mods[2] == "tensor" &&
             mods[3].size() == 2 && mods[3][0] >= '1' && mods[3][0] <= '5' &&
             mods[3][1] == 'd' && mods[4] == "shared::cluster" &&
             mods[5] == "global" && (mods.size() == 7 || mods[6] == "tile") &&
             mods.back() == "mbarrier::complete_tx::bytes") {
      // cp.async.bulk.tensor.Nd.shared::cluster.global[.tile]
      // .mbarrier::complete_tx::bytes [shared], [map, {coordinates}],
      // [mbarrier]: a TMA load of a box (in.vector: N).
      kind = "tensor";
      in.vector = static_cast<unsigned>(mods[3][0] - '0');
    }
    else if (mods.size() == 2 && mods[0] == "async" &&
             mods[1] == "commit_group")
      kind = "commit";
    else if (mods.size() == 2 && mods[0] == "async" &&
             (mods[1] == "wait_group" || mods[1] == "wait_all"))
      kind = "wait";
    if (kind.empty()) {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    in.mods.insert(in.mods.begin(), kind);
    if (kind == "wait")
      in.mods.push_back(mods[1]);
    in.space = Space::Shared;
    in.type = {Kind::B, 8};
  }
  if (in.op == Opcode::Wgmma) {
    // wgmma.fence, wgmma.commit_group, wgmma.wait_group N (all
    // .sync.aligned) and wgmma.mma_async.sync.aligned.m64nNk16 of f16 or
    // bf16 halves into f32 accumulators: in.mods is "fence", "commit",
    // "wait", or "mma" and the halves' type (in.vector: N / 2, the
    // accumulator registers a lane).
    std::vector<std::string> mods;
    while (std::getline(parts, part, '.'))
      mods.push_back(part);
    bool aligned = mods.size() >= 3 && mods[1] == "sync" && mods[2] == "aligned";
    std::string kind;
    if (aligned && mods.size() == 3 && mods[0] == "fence")
      kind = "fence";
    else if (aligned && mods.size() == 3 && mods[0] == "commit_group")
      kind = "commit";
    else if (aligned && mods.size() == 3 && mods[0] == "wait_group")
      kind = "wait";
    else if (aligned && mods.size() == 7 && mods[0] == "mma_async" &&
             mods[4] == "f32" && mods[5] == mods[6] &&
             (mods[5] == "f16" || mods[5] == "bf16") &&
             mods[3].size() > 7 && mods[3].rfind("m64n", 0) == 0 &&
             mods[3].compare(mods[3].size() - 3, 3, "k16") == 0) {
      std::string n = mods[3].substr(4, mods[3].size() - 7);
      unsigned columns = 0;
      if (!n.empty() && n.find_first_not_of("0123456789") == std::string::npos)
        columns = static_cast<unsigned>(std::stoul(n));
      if (columns >= 8 && columns <= 256 && columns % 8 == 0) {
        kind = "mma";
        in.vector = columns / 2;
        parseType(mods[5], in.from);
      }
    }
    if (kind.empty()) {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    in.mods = {kind};
    in.type = {Kind::F, 32};
  }
  if (in.op == Opcode::Fence) {
    // fence.proxy.async[.shared::cta]: orders this thread's generic writes
    // of shared memory before wgmma's reads, which the stand-in makes at
    // once; fence.mbarrier_init.release.cluster: makes mbarrier.init
    // visible to TMA, which the stand-in's is at once.
    std::vector<std::string> mods;
    while (std::getline(parts, part, '.'))
      mods.push_back(part);
    bool ok = ((mods.size() == 2 || (mods.size() == 3 &&
                                     mods[2] == "shared::cta")) &&
               mods[0] == "proxy" && mods[1] == "async") ||
              (mods.size() == 3 && mods[0] == "mbarrier_init" &&
               mods[1] == "release" && mods[2] == "cluster");
    if (!ok) {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    in.mods = mods;
    in.type = {Kind::B, 32};
  }
  if (in.op == Opcode::Mbarrier) {
    // mbarrier.init, mbarrier.arrive[.expect_tx] and
    // mbarrier.try_wait.parity (.shared[::cta].b64): in.mods is "init",
    // "arrive", "expect" or "wait".
    std::vector<std::string> mods;
    while (std::getline(parts, part, '.'))
      mods.push_back(part);
    std::string kind;
    size_t at = 0;
    if (!mods.empty() && mods[0] == "init")
      kind = "init", at = 1;
    else if (mods.size() > 1 && mods[0] == "arrive" && mods[1] == "expect_tx")
      kind = "expect", at = 2;
    else if (!mods.empty() && mods[0] == "arrive")
      kind = "arrive", at = 1;
    else if (mods.size() > 1 && mods[0] == "try_wait" && mods[1] == "parity")
      kind = "wait", at = 2;
    if (kind.empty() || mods.size() != at + 2 ||
        (mods[at] != "shared" && mods[at] != "shared::cta") ||
        mods[at + 1] != "b64") {
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
    in.mods = {kind};
    in.space = Space::Shared;
    in.type = {Kind::B, 64};
  }
  if (in.op == Opcode::CpAsync && in.has("tensor")) {
    // [shared], [map, {coordinates}], [mbarrier]: the map's address and
    // the coordinates as operands of their own.
    std::vector<std::string> pieces = splitTopLevel(rest, ',');
    std::vector<std::string> source;
    if (pieces.size() == 3 && pieces[1].size() > 2 &&
        pieces[1].front() == '[' && pieces[1].back() == ']')
      source = splitTopLevel(pieces[1].substr(1, pieces[1].size() - 2), ',');
    if (source.size() != 2) {
      error = "expected [shared], [map, {coordinates}], [mbarrier]";
      return false;
    }
    rest = pieces[0] + ", " + source[0] + ", " + source[1] + ", " + pieces[2];
  }
  while (in.op != Opcode::Mma && in.op != Opcode::Ldmatrix &&
         in.op != Opcode::CpAsync && in.op != Opcode::Wgmma &&
         in.op != Opcode::Fence && in.op != Opcode::Mbarrier &&
         std::getline(parts, part, '.')) {
    // Without clusters, a CTA's shared memory is all a cluster's window
    // holds of it.
    if (part == "shared::cta" || part == "shared::cluster")
      part = "shared";
    in.mods.push_back(part);
    Type t;
    if (parseType(part, t))
      types.push_back(t);
    else if (part == "global")
      in.space = Space::Global;
    else if (part == "shared")
      in.space = Space::Shared;
    else if (part == "local")
      in.space = Space::Local;
    else if (part == "param")
      in.space = Space::Param;
    else if (part == "v2")
      in.vector = 2;
    else if (part == "v4")
      in.vector = 4;
    else if (part == "rn" || part == "rz" || part == "rm" || part == "rp" ||
             part == "rni" || part == "rzi" || part == "rmi" || part == "rpi")
      in.rounding = part;
    else if (!isKnownModifier(part)) {
      // Saturating integer arithmetic, other packed types, ...: not run
      // rather than run wrongly.
      error = "unsupported instruction '" + opcode + "'";
      return false;
    }
  }
  if ((in.op == Opcode::Sub && in.has("cc")) ||
      (in.has("sat") && in.op != Opcode::Cvt) ||
      (in.op == Opcode::Bar && !in.has("sync"))) {
    error = "unsupported instruction '" + opcode + "'";
    return false;
  }
  if (!types.empty() && in.op != Opcode::Mma && in.op != Opcode::Wgmma) {
    in.type = in.op == Opcode::Cvt ? types.front() : types.back();
    in.from = types.back();
  }
  if (in.op == Opcode::Cvta && in.has("to"))
    in.rounding = "to";
  for (const std::string &text : splitTopLevel(rest, ',')) {
    Operand op;
    if (!parseOperand(k, text, op, error))
      return false;
    if (op.kind == OperandKind::Symbol && op.symbol == -1 &&
        in.op != Opcode::Bra) {
      error = "unknown symbol '" + text + "'";
      return false;
    }
    in.operands.push_back(op);
  }
  // Operand counts and destinations, so that running never reads past them.
  size_t want = 0;
  switch (in.op) {
  case Opcode::Ret: want = 0; break;
  case Opcode::Bra: case Opcode::Bar: want = 1; break;
  case Opcode::Mov: case Opcode::Cvta: case Opcode::Neg: case Opcode::Abs:
  case Opcode::Not: case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt:
  case Opcode::Ex2: case Opcode::Lg2: case Opcode::Sin: case Opcode::Cos:
  case Opcode::Tanh: case Opcode::Cvt: case Opcode::Ld: case Opcode::St:
  case Opcode::Ldmatrix:
    want = 2; break;
  case Opcode::Mad: case Opcode::Madc: case Opcode::Fma: case Opcode::Selp:
  case Opcode::Bfe: case Opcode::Shf: case Opcode::Mma: case Opcode::Prmt:
    want = 4; break;
  case Opcode::Shfl: want = 5; break;
  case Opcode::CpAsync:
    want = in.has("copy")         ? (in.operands.size() == 4 ? 4 : 3)
           : in.has("tensor")     ? 4
           : in.has("wait_group") ? 1
                                  : 0;
    break;
  case Opcode::Mbarrier:
    want = in.has("init") || in.has("arrive") ? 2
           : in.has("expect")                 ? 3
                              : (in.operands.size() == 4 ? 4 : 3);
    break;
  case Opcode::Setp:
    want = in.operands.size() == 4 ? 4 : 3; break;
  case Opcode::Fence: want = 0; break;
  case Opcode::Wgmma:
    want = in.has("mma") ? 8 : in.has("wait") ? 1 : 0;
    break;
  default: want = 3; break;
  }
  if (in.operands.size() != want) {
    error = "expected " + std::to_string(want) + " operands";
    return false;
  }
  if (in.op == Opcode::Bar && (in.operands[0].kind != OperandKind::Imm ||
                               in.operands[0].imm != 0)) {
    error = "unsupported barrier (only barrier 0 of the whole block)";
    return false;
  }
  if (in.op == Opcode::CpAsync && in.has("tensor")) {
    const std::vector<Operand> &ops = in.operands;
    bool ok = ops[0].kind == OperandKind::Mem &&
              ops[1].kind == OperandKind::Reg &&
              ops[2].kind == OperandKind::Vector &&
              ops[2].elements.size() == in.vector &&
              ops[3].kind == OperandKind::Mem;
    if (!ok) {
      error = "expected [shared], [map, {" + std::to_string(in.vector) +
              " coordinates}], [mbarrier]";
      return false;
    }
  } else if (in.op == Opcode::CpAsync) {
    const std::vector<Operand> &ops = in.operands;
    bool ok = in.has("copy")
                  ? ops[0].kind == OperandKind::Mem &&
                        ops[1].kind == OperandKind::Mem &&
                        ops[2].kind == OperandKind::Imm &&
                        (ops[2].imm == 16 ||
                         (!in.has("cg") && (ops[2].imm == 4 || ops[2].imm == 8)))
                  : ops.empty() || ops[0].kind == OperandKind::Imm;
    if (!ok) {
      error = "expected cp.async [shared], [global], 4, 8 or 16 bytes "
              "(and the source's bytes), or a group count";
      return false;
    }
  }
  if (in.op == Opcode::Wgmma && in.has("wait") &&
      in.operands[0].kind != OperandKind::Imm) {
    error = "expected a group count";
    return false;
  }
  if (in.op == Opcode::Wgmma && in.has("mma")) {
    // D, the descriptors of A and B, whether to add D, A's and B's scales
    // (1 or -1) and whether each is transposed (0 or 1).
    const std::vector<Operand> &ops = in.operands;
    bool ok = ops[0].kind == OperandKind::Vector &&
              ops[0].elements.size() == in.vector;
    for (size_t i = 1; i < 4; ++i)
      ok &= ops[i].kind == OperandKind::Reg || ops[i].kind == OperandKind::Imm;
    for (size_t i = 4; i < 8; ++i)
      ok &= ops[i].kind == OperandKind::Imm &&
            (i < 6 ? ops[i].imm == 1 || ops[i].imm == -1
                   : ops[i].imm == 0 || ops[i].imm == 1);
    if (!ok) {
      error = "expected wgmma operands: " + std::to_string(in.vector) +
              " accumulators, two descriptors, a predicate, scales of 1 or "
              "-1 and transpositions of 0 or 1";
      return false;
    }
  }
  if (in.op == Opcode::Mbarrier) {
    const std::vector<Operand> &ops = in.operands;
    const Operand &barrier = in.has("init") ? ops[0] : ops[1];
    bool ok = barrier.kind == OperandKind::Mem;
    for (size_t i = in.has("init") ? 1 : 2; i < ops.size(); ++i)
      ok &= ops[i].kind == OperandKind::Reg || ops[i].kind == OperandKind::Imm;
    if (!ok) {
      error = "expected an mbarrier [address] and register or immediate "
              "operands";
      return false;
    }
  }
  bool writes = in.op != Opcode::St && in.op != Opcode::Bra &&
                in.op != Opcode::Bar && in.op != Opcode::Ret &&
                in.op != Opcode::CpAsync && in.op != Opcode::Fence &&
                !(in.op == Opcode::Wgmma && !in.has("mma")) &&
                !(in.op == Opcode::Mbarrier && in.has("init"));
  if (writes) {
    const Operand &d = in.operands[0];
    bool ok = d.kind == OperandKind::Reg ||
              (d.kind == OperandKind::Vector &&
               (in.op == Opcode::Ld || in.op == Opcode::Mov ||
                in.op == Opcode::Mma || in.op == Opcode::Ldmatrix ||
                in.op == Opcode::Wgmma));
    for (const Operand &e : d.elements)
      ok &= e.kind == OperandKind::Reg;
    if (!ok || d.negated) {
      error = "expected a register destination";
      return false;
    }
  }
  if (in.op == Opcode::Mma) {
    // D, A, B, C: 4, 4, 2 and 4 registers of 32 bits a lane.
    const size_t sizes[] = {4, 4, 2, 4};
    for (size_t i = 0; i < 4; ++i) {
      const Operand &v = in.operands[i];
      bool ok = v.kind == OperandKind::Vector && v.elements.size() == sizes[i];
      for (const Operand &e : v.elements)
        ok &= e.kind == OperandKind::Reg || (i > 0 && e.kind == OperandKind::Imm);
      if (!ok) {
        error = "expected mma operands of 4, 4, 2 and 4 registers";
        return false;
      }
    }
  }
  if (in.op == Opcode::Ldmatrix) {
    const Operand &d = in.operands[0];
    size_t count = d.kind == OperandKind::Vector ? d.elements.size() : 1;
    if (count != in.vector || in.operands[1].kind != OperandKind::Mem) {
      error = "expected " + std::to_string(in.vector) +
              " registers and a memory operand";
      return false;
    }
  }
  if ((in.op == Opcode::Ld || in.op == Opcode::St) &&
      in.operands[in.op == Opcode::Ld ? 1 : 0].kind != OperandKind::Mem) {
    error = "expected a memory operand";
    return false;
  }
  if ((in.op == Opcode::Ld || in.op == Opcode::St) && in.vector > 1) {
    const Operand &v = in.operands[in.op == Opcode::Ld ? 0 : 1];
    if (v.kind != OperandKind::Vector || v.elements.size() != in.vector) {
      error = "expected " + std::to_string(in.vector) + " vector elements";
      return false;
    }
  }
  if (in.type.bits == 0 && in.op != Opcode::Bra && in.op != Opcode::Ret &&
      in.op != Opcode::Bar) {
    error = "expected a type";
    return false;
  }
  if (in.op == Opcode::Bra) {
    if (in.operands.size() != 1) {
      error = "expected one branch target";
      return false;
    }
    // Resolved to an instruction after the body is read.
    in.label = trim(rest);
  }
  return true;
}

bool PtxModuleImpl::parse(const std::string &ptx, std::string &error) {
  // The functions are inlined where they are called.
  std::map<std::string, Func> funcs;
  std::string entries;
  if (!extractFuncs(ptx, funcs, entries, error))
    return false;
  std::istringstream stream(entries);
  std::string raw;
  int line = 0;
  Kernel *kernel = nullptr;
  int depth = 0;
  bool inHeader = false;
  std::map<std::string, long> labels;
  // The braces' scopes open within the body, innermost last: a label
  // defined in one (inline assembly's, which LLVM may copy) is its own,
  // named `label@scope`.
  std::vector<int> scopes;
  int nextScope = 0;
  auto scopedLabel = [](const std::string &label, int scope) {
    return label + "@" + std::to_string(scope);
  };
  // The calls inlined so far (each copy's names get its number), and the
  // brace depth the copy being inlined may not close.
  unsigned inlined = 0;
  int bodyDepth = 0;
  auto fail = [&](const std::string &message) {
    error = "line " + std::to_string(line) + ": " + message + ": " + trim(raw);
    return false;
  };
  auto declare = [&](const std::string &text, Space space,
                     uint64_t &offset) -> bool {
    // .shared/.local/.global [.align N] .b8 name[size] [= {...}];
    std::istringstream words(text);
    std::string word, name;
    uint64_t align = 1, elementBytes = 1;
    while (words >> word) {
      if (word == ".align") {
        if (!(words >> align) || align == 0 || (align & (align - 1)))
          return fail("expected a power-of-two alignment");
        continue;
      }
      Type t;
      if (word[0] == '.' && parseType(word.substr(1), t)) {
        elementBytes = t.bits / 8;
        continue;
      }
      if (word[0] != '.') {
        name = word;
        break;
      }
    }
    uint64_t count = 1;
    size_t open = name.find('[');
    if (open != std::string::npos) {
      count = std::stoull(name.substr(open + 1));
      name = name.substr(0, open);
    }
    while (!name.empty() && (name.back() == ';'))
      name.pop_back();
    Symbol symbol;
    symbol.name = name;
    symbol.space = space;
    symbol.size = count * elementBytes;
    symbol.moduleScope = kernel == nullptr;
    if (space == Space::Global) {
      globalMemory.emplace_back(new uint8_t[symbol.size + 1]());
      uint8_t *memory = globalMemory.back().get();
      symbol.address = reinterpret_cast<uint64_t>(memory);
      size_t eq = text.find('=');
      if (eq != std::string::npos) {
        std::string init = text.substr(eq + 1);
        size_t b = init.find('{'), e = init.find('}');
        if (b == std::string::npos || e == std::string::npos ||
            elementBytes != 1)
          return fail("expected a byte array initializer");
        uint64_t i = 0;
        for (const std::string &v : splitTopLevel(init.substr(b + 1, e - b - 1), ','))
          if (i < symbol.size)
            memory[i++] = static_cast<uint8_t>(std::stoul(v, nullptr, 0));
      }
      symbols.push_back(symbol);
      return true;
    }
    offset = (offset + align - 1) / align * align;
    symbol.address = offset;
    offset += symbol.size;
    if (kernel) {
      kernel->symbols[name] = static_cast<int>(symbols.size());
    }
    symbols.push_back(symbol);
    return true;
  };
  std::string header;
  // A parameter: `.param .u64 [.ptr] [.align N] name`.
  auto declareParam = [&](const std::string &text) -> bool {
    std::istringstream words(text);
    std::string word, name;
    uint64_t bytes = 0, align = 1;
    while (words >> word) {
      if (word == ".align") {
        if (!(words >> align) || align == 0 || (align & (align - 1)))
          return fail("expected a power-of-two alignment");
        continue;
      }
      Type t;
      if (word[0] == '.' && parseType(word.substr(1), t))
        bytes = t.bits / 8;
      else if (word[0] != '.')
        name = word;
    }
    if (!bytes || bytes > 8 || name.empty() ||
        name.find('[') != std::string::npos)
      return fail("expected scalar parameters");
    Symbol symbol;
    symbol.name = name;
    symbol.space = Space::Param;
    kernel->paramBytes = (kernel->paramBytes + bytes - 1) / bytes * bytes;
    symbol.address = kernel->paramBytes;
    symbol.size = bytes;
    kernel->paramBytes += bytes;
    kernel->symbols[name] = static_cast<int>(symbols.size());
    kernel->params.push_back(static_cast<int>(symbols.size()));
    symbols.push_back(symbol);
    return true;
  };
  // Appends the instruction `text` to the entry; a load or store of a call's
  // parameter (declared in the body, kept in local memory) reads local
  // memory.
  unsigned expanded = 0;
  auto instruction = [&](const std::string &text) -> bool {
    std::string message;
    std::vector<std::string> pieces;
    if (!expandPacked(text, expanded++, pieces, message))
      return fail(message);
    for (const std::string &piece : pieces) {
      Instr in;
      if (!parseInstr(*kernel, piece, line, in, message))
        return fail(message);
      // Errors and faults quote the instruction as written.
      in.text = text;
      if (in.op == Opcode::Bra)
        in.scopes = scopes;
      if ((in.op == Opcode::Ld || in.op == Opcode::St) &&
          in.space == Space::Param)
        for (const Operand &op : in.operands)
          if (op.kind == OperandKind::Mem && op.symbol >= 0 &&
              symbols[op.symbol].space == Space::Local)
            in.space = Space::Local;
      kernel->code.push_back(std::move(in));
    }
    return true;
  };
  // Handles one statement of an entry's body (continuation lines joined),
  // inlining calls `inlineDepth` deep.
  std::function<bool(const std::string &, int)> statement;
  // Inlines call `text` (`call[.uni] [(results),] name[, (arguments)];`):
  // a copy of the function's body with its parameters read from the call's
  // arguments, its results written to the call's, its registers, labels and
  // variables renamed, its `ret`s branches past the copy.
  auto inlineCall = [&](const std::string &text, int inlineDepth) -> bool {
    if (text[0] == '@')
      return fail("a guarded call is not implemented");
    std::string rest = trim(text.substr(0, text.size() - 1));
    size_t space = rest.find_first_of(" \t");
    if (space == std::string::npos)
      return fail("malformed call");
    rest = trim(rest.substr(space));
    // Takes a parenthesized list and the ',' after it off `rest`.
    auto list = [&](std::vector<std::string> &out) {
      size_t close = rest.find(')');
      if (rest.empty() || rest[0] != '(' || close == std::string::npos)
        return false;
      out = splitTopLevel(rest.substr(1, close - 1), ',');
      rest = trim(rest.substr(close + 1));
      if (!rest.empty() && rest[0] == ',')
        rest = trim(rest.substr(1));
      return true;
    };
    std::vector<std::string> results, args;
    if (!rest.empty() && rest[0] == '(' && !list(results))
      return fail("malformed call");
    size_t comma = rest.find(',');
    std::string name = trim(rest.substr(0, comma));
    rest = comma == std::string::npos ? "" : trim(rest.substr(comma + 1));
    if (!rest.empty() && (!list(args) || !rest.empty()))
      return fail("malformed call");
    auto it = funcs.find(name);
    if (it == funcs.end() || it->second.declaredOnly)
      return fail("call of '" + name + "', which the module does not define");
    const Func &f = it->second;
    if (results.size() != f.results.size() || args.size() != f.params.size())
      return fail("call with " + std::to_string(results.size()) +
                  " results and " + std::to_string(args.size()) +
                  " arguments, expected " + std::to_string(f.results.size()) +
                  " and " + std::to_string(f.params.size()));
    if (inlineDepth >= 16)
      return fail("calls nested more than 16 deep (recursion?)");
    std::string suffix = "_i" + std::to_string(inlined++);
    std::map<std::string, std::string> names;
    for (const std::string &local : f.locals)
      names[local] = local + suffix;
    for (size_t i = 0; i < args.size(); ++i)
      names[f.params[i]] = args[i];
    for (size_t i = 0; i < results.size(); ++i)
      names[f.results[i]] = results[i];
    std::string exit = "$Lret" + suffix;
    int callLine = line, callDepth = bodyDepth;
    std::string callRaw = raw;
    bodyDepth = depth;
    for (const auto &[bodyLine, bodyText] : f.body) {
      line = bodyLine;
      raw = bodyText;
      if (!statement(renameForCall(f, bodyText, names, suffix, exit),
                     inlineDepth + 1))
        return false;
    }
    if (depth != bodyDepth)
      return fail("unbalanced braces in function '" + name + "'");
    line = callLine;
    raw = callRaw;
    bodyDepth = callDepth;
    labels[exit] = static_cast<long>(kernel->code.size());
    return true;
  };
  statement = [&](const std::string &text, int inlineDepth) -> bool {
    if (!kernel)
      return fail("a statement outside every entry");
    if (text == "{") {
      ++depth;
      scopes.push_back(nextScope++);
      return true;
    }
    if (text.size() > 2 && text.front() == '{' && text.back() == '}') {
      // A scope on one line: its declarations and instructions.
      for (std::string part :
           splitTopLevel(text.substr(1, text.size() - 2), ';'))
        if (!part.empty() && part[0] != '.' && !instruction(part + ";"))
          return false;
      return true;
    }
    if (text == "}") {
      if (depth <= bodyDepth)
        return fail("unbalanced '}' in a function");
      if (--depth > 0) {
        if (!scopes.empty())
          scopes.pop_back();
        return true;
      }
      for (Instr &in : kernel->code) {
        if (in.op != Opcode::Bra)
          continue;
        auto it = labels.end();
        for (auto scope = in.scopes.rbegin();
             scope != in.scopes.rend() && it == labels.end(); ++scope)
          it = labels.find(scopedLabel(in.label, *scope));
        if (it == labels.end())
          it = labels.find(in.label);
        if (it == labels.end()) {
          line = in.line;
          raw = in.text;
          return fail("unknown branch target");
        }
        in.target = it->second;
      }
      kernel = nullptr;
      return true;
    }
    if (text.back() == ':') {
      std::string label = text.substr(0, text.size() - 1);
      if (!scopes.empty())
        label = scopedLabel(label, scopes.back());
      labels[label] = static_cast<long>(kernel->code.size());
      return true;
    }
    if (text.rfind(".reg", 0) == 0) {
      // `.reg .type a, b;` or `.reg .type %r<n>;`: names without a '%'.
      std::string names = text.substr(4, text.size() - 5);
      names = trim(names);
      size_t space = names.find_first_of(" \t");
      if (space != std::string::npos)
        for (const std::string &part : splitTopLevel(names.substr(space), ',')) {
          std::string name = trim(part);
          if (!name.empty() && name[0] != '%')
            kernel->namedRegisters.insert(name);
        }
      return true;
    }
    if (text.rfind(".pragma", 0) == 0)
      return true;
    if (text.rfind(".shared", 0) == 0)
      return declare(text, Space::Shared, kernel->sharedBytes);
    // A call's parameters live in the thread's local memory.
    if (text.rfind(".local", 0) == 0 || text.rfind(".param", 0) == 0)
      return declare(text, Space::Local, kernel->localBytes);
    if (text[0] == '.' || text.back() != ';')
      return fail("unsupported statement");
    std::string op = text[0] == '@'
                         ? trim(text.substr(text.find_first_of(" \t") + 1))
                         : text;
    if (op.rfind("call", 0) == 0 && (op[4] == '.' || op[4] == ' ' ||
                                     op[4] == '\t'))
      return inlineCall(text, inlineDepth);
    return instruction(text);
  };
  while (std::getline(stream, raw)) {
    ++line;
    std::string text = raw;
    size_t comment = text.find("//");
    if (comment != std::string::npos)
      text = text.substr(0, comment);
    text = trim(text);
    if (text.empty())
      continue;
    if (!kernel) {
      if (text.rfind(".version", 0) == 0 || text.rfind(".target", 0) == 0 ||
          text.rfind(".address_size", 0) == 0)
        continue;
      if (text.rfind(".global", 0) == 0) {
        uint64_t unused = 0;
        if (!declare(text, Space::Global, unused))
          return false;
        continue;
      }
      if (text.rfind(".shared", 0) == 0) {
        if (!declare(text, Space::Shared, moduleShared))
          return false;
        continue;
      }
      if (text.rfind(".extern .shared", 0) == 0) {
        // `.extern .shared [.align N] .b8 name[];`: dynamic shared memory.
        std::istringstream words(text.substr(15));
        std::string word;
        uint64_t align = 1;
        Symbol symbol;
        while (words >> word) {
          if (word == ".align") {
            if (!(words >> align) || align == 0 || (align & (align - 1)))
              return fail("expected a power-of-two alignment");
            continue;
          }
          if (word[0] != '.') {
            symbol.name = word;
            break;
          }
        }
        size_t open = symbol.name.find('[');
        if (open == std::string::npos || symbol.name.substr(open) != "[];")
          return fail("expected an external shared array of no size");
        symbol.name = symbol.name.substr(0, open);
        symbol.space = Space::Shared;
        symbol.moduleScope = true;
        symbol.dynamic = true;
        symbols.push_back(symbol);
        continue;
      }
      size_t entry = text.find(".entry ");
      if (entry != std::string::npos) {
        kernels.emplace_back();
        kernel = &kernels.back();
        std::string name = trim(text.substr(entry + 7));
        kernel->name = trim(name.substr(0, name.find('(')));
        kernel->sharedBytes = moduleShared;
        inHeader = true;
        labels.clear();
        scopes.clear();
        // The parameters, on this line or the next ones up to ')'.
        header = name.find('(') == std::string::npos
                     ? ""
                     : name.substr(name.find('(') + 1);
        while (header.find(')') == std::string::npos &&
               std::getline(stream, raw)) {
          ++line;
          std::string more = raw;
          size_t comment = more.find("//");
          if (comment != std::string::npos)
            more = more.substr(0, comment);
          header += " " + more;
        }
        header = header.substr(0, header.find(')'));
        for (const std::string &param : splitTopLevel(header, ','))
          if (!declareParam(param))
            return false;
        continue;
      }
      return fail("unsupported directive");
    }
    if (inHeader) {
      if (text.rfind(".maxntid", 0) == 0 ||
          text.rfind(".reqntid", 0) == 0 || text.rfind(".minnctapersm", 0) == 0 ||
          text.rfind(".maxnreg", 0) == 0 || text.rfind(".noreturn", 0) == 0)
        continue;
      if (text == "{") {
        inHeader = false;
        depth = 1;
        continue;
      }
      return fail("unsupported entry directive");
    }
    // An instruction may continue on the next lines (mma's operands).
    while (text[0] != '.' && text != "{" && text.back() != ';' &&
           text.back() != '}' && text.back() != ':' &&
           std::getline(stream, raw)) {
      ++line;
      std::string more = raw;
      size_t cut = more.find("//");
      if (cut != std::string::npos)
        more = more.substr(0, cut);
      text = trim(text + " " + trim(more));
    }
    if (!statement(text, 0))
      return false;
  }
  if (kernel)
    return fail("unterminated entry");
  return true;
}

namespace {
/// A cp.async copy in flight: its shared destination, its source (null
/// when it copies no bytes) and how many bytes it copies and zero-fills.
struct AsyncCopy {
  uint8_t *to = nullptr;
  const uint8_t *from = nullptr;
  size_t copied = 0, filled = 0;
  /// The thread that issued it and the instruction's line.
  unsigned thread = 0;
  long line = 0;

  /// Writes the copy's bytes to shared memory.
  void land() const {
    if (copied)
      std::memcpy(to, from, copied);
    std::memset(to + copied, 0, filled);
  }
};

/// A thread's state.
struct Thread {
  std::vector<uint64_t> regs;
  std::vector<uint8_t> local;
  /// cp.async copies not yet committed, and the committed groups not yet
  /// waited for, oldest first: their bytes land at the wait, so that a
  /// kernel reading them earlier reads what was there before.
  std::vector<AsyncCopy> uncommitted;
  std::vector<std::vector<AsyncCopy>> groups;
  long pc = 0;
  bool carry = false;
  /// AtMbarrier: waiting (at mbarrier.try_wait) for a phase to complete.
  enum { Running, AtBarrier, AtShuffle, AtMbarrier, Done } state = Running;
};

/// A TMA load in flight: the box of `map` at `coordinates`, into shared
/// memory at `to`.
struct TmaLoad {
  FakeTensorMap map;
  int64_t coordinates[5] = {};
  uint8_t *to = nullptr;
  size_t bytes = 0;
  /// What the issuing thread had seen at the issue (race checks), and the
  /// instruction's line.
  VectorClock issued;
  long line = 0;
};

/// An mbarrier of the block's shared memory: the arrivals a phase expects,
/// those still missing, the transaction bytes still due, the phases
/// completed so far, and the TMA loads that complete its transactions, in
/// flight.
struct Mbarrier {
  uint64_t expected = 0, pending = 0;
  int64_t tx = 0;
  uint64_t phases = 0;
  std::vector<TmaLoad> loads;
  /// Race checks: the clock index of its TMA loads (SharedRaces agent) and
  /// their ticks so far, what the current phase's arrivals released, and
  /// what the last completed phase of each parity did.
  int agent = -1;
  uint32_t agentTicks = 0;
  VectorClock released, done[2];

  /// Completes the phase once every arrival and byte is in.
  void update() {
    if (pending == 0 && tx == 0) {
      if (!released.empty()) {
        VectorClock &phase = done[phases & 1];
        phase = released;
        if (agent >= 0)
          phase[static_cast<size_t>(agent)] = agentTicks;
        std::fill(released.begin(), released.end(), 0);
      }
      ++phases;
      pending = expected;
    }
  }
};

/// A warp's wgmma product not yet run: its instruction, descriptors, and
/// each lane's predicate and accumulators as they were at issue (where an
/// earlier product still running writes an accumulator, `chained`, it
/// starts from that product's result instead).
struct PendingWgmma {
  const Instr *in = nullptr;
  uint64_t descriptors[2] = {0, 0};
  std::vector<bool> accumulate;
  std::vector<std::vector<uint64_t>> inputs;
  std::vector<bool> chained;
};

/// A warp's wgmma products not yet committed, and its committed groups
/// not yet waited for, oldest first.
struct WarpWgmma {
  std::vector<PendingWgmma> uncommitted;
  std::vector<std::vector<PendingWgmma>> groups;
};
} // namespace

std::string PtxModuleImpl::run(const Kernel &k, unsigned grid, unsigned block,
                               unsigned dynamicBytes, void **params,
                               const GlobalCheck &isGlobal, uint64_t maxSteps,
                               bool raceChecks) const {
  std::vector<uint8_t> paramBuffer(k.paramBytes + 8);
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Symbol &p = symbols[k.params[i]];
    std::memcpy(paramBuffer.data() + p.address, params[i], p.size);
  }
  // The block's shared window: its static variables, then the launch's
  // dynamic shared memory (the module's `.extern .shared` arrays), 16-byte
  // aligned: what the driver guarantees, whatever alignment the arrays ask
  // (a larger one is not honored after static variables: NVBug 5093902,
  // in CCCL's notes), so that a kernel needing more aligns its addresses.
  const uint64_t dynamicShared = (k.sharedBytes + 15) / 16 * 16;
  uint64_t sharedBytes =
      dynamicBytes ? dynamicShared + dynamicBytes : k.sharedBytes;
  std::vector<uint8_t> shared(sharedBytes + 1);
  // A kernel without shared memory has nothing to race on (and no
  // mbarriers): its blocks skip the checks' bookkeeping.
  const bool checkRaces = raceChecks && sharedBytes > 0;
  std::vector<Thread> threads(block);
  std::vector<WarpWgmma> wgmmas((block + 31) / 32);
  // The block's mbarriers, by offset in its shared window.
  std::map<uint64_t, Mbarrier> mbarriers;
  std::string error;
  uint64_t steps = 0, stalls = 0;
  auto addressOf = [&](int index) {
    const Symbol &symbol = symbols[static_cast<size_t>(index)];
    return symbol.dynamic ? dynamicShared : symbol.address;
  };
  auto fail = [&](const Instr &in, const std::string &message) {
    if (error.empty())
      error = "kernel " + k.name + ", line " + std::to_string(in.line) +
              " (" + in.text + "): " + message;
  };
  SharedRaces races;
  // Blocks of one launch are not ordered: global memory one writes and
  // another reads or writes is a race (GlobalRaces.h).
  const bool checkGlobalRaces = raceChecks && grid > 1;
  GlobalRaces globalRaces;
  for (unsigned b = 0; b < grid && error.empty(); ++b) {
    std::fill(shared.begin(), shared.end(), 0xCD);
    for (WarpWgmma &warp : wgmmas)
      warp = WarpWgmma();
    mbarriers.clear();
    if (checkRaces)
      races.reset(block, sharedBytes);
    for (unsigned t = 0; t < block; ++t) {
      Thread &th = threads[t];
      th.regs.assign(k.registers.size(), 0);
      th.local.assign(k.localBytes + 1, 0xCD);
      th.pc = 0;
      th.state = Thread::Running;
      th.carry = false;
      th.uncommitted.clear();
      th.groups.clear();
      if (k.tid >= 0)
        th.regs[k.tid] = t;
      if (k.ntid >= 0)
        th.regs[k.ntid] = block;
      if (k.ctaid >= 0)
        th.regs[k.ctaid] = b;
      if (k.nctaid >= 0)
        th.regs[k.nctaid] = grid;
      if (k.laneid >= 0)
        th.regs[k.laneid] = t % 32;
      for (int one : k.ones)
        th.regs[one] = 1;
    }
    // Resolves an address of `space` to host memory of `size` bytes.
    auto resolve = [&](Thread &th, const Instr &in, Space space, uint64_t addr,
                       size_t size) -> uint8_t * {
      // A GPU faults on an access not aligned to its size (a vector's:
      // all its elements); offsets within shared, local and parameter
      // memory count, their bases being aligned on a GPU.
      uint64_t base = 0;
      if (space == Space::Generic || space == Space::Global) {
        uint64_t s = reinterpret_cast<uint64_t>(shared.data());
        uint64_t l = reinterpret_cast<uint64_t>(th.local.data());
        if (space == Space::Generic && addr >= s && addr < s + sharedBytes)
          base = s;
        else if (space == Space::Generic && addr >= l &&
                 addr < l + k.localBytes)
          base = l;
      }
      if (size != 0 && (addr - base) % size != 0) {
        fail(in, "misaligned access of " + std::to_string(size) +
                     " bytes at " +
                     (base || space == Space::Shared ||
                              space == Space::Local || space == Space::Param
                          ? "offset " + std::to_string(addr - base)
                          : "address " + std::to_string(addr)));
        return nullptr;
      }
      auto inside = [&](std::vector<uint8_t> &buffer, uint64_t offset,
                        uint64_t limit) -> uint8_t * {
        if (offset + size > limit || offset > limit) {
          fail(in, "access of " + std::to_string(size) + " bytes at offset " +
                       std::to_string(offset) + " outside the " +
                       std::to_string(limit) + "-byte buffer");
          return nullptr;
        }
        return buffer.data() + offset;
      };
      switch (space) {
      case Space::Shared:
        return inside(shared, addr, sharedBytes);
      case Space::Local:
        return inside(th.local, addr, k.localBytes);
      case Space::Param:
        return inside(paramBuffer, addr, k.paramBytes);
      case Space::Global:
      case Space::Generic: {
        uint64_t s = reinterpret_cast<uint64_t>(shared.data());
        uint64_t l = reinterpret_cast<uint64_t>(th.local.data());
        if (space == Space::Generic && addr >= s && addr < s + sharedBytes)
          return inside(shared, addr - s, sharedBytes);
        if (space == Space::Generic && addr >= l && addr < l + k.localBytes)
          return inside(th.local, addr - l, k.localBytes);
        bool ok = isGlobal(addr, size);
        if (!ok)
          for (const Symbol &symbol : symbols)
            if (symbol.space == Space::Global && addr >= symbol.address &&
                addr + size <= symbol.address + symbol.size)
              ok = true;
        if (!ok) {
          fail(in, "access of " + std::to_string(size) +
                       " bytes at an address outside every allocation");
          return nullptr;
        }
        return reinterpret_cast<uint8_t *>(addr);
      }
      }
      return nullptr;
    };
    auto value = [&](Thread &th, const Operand &op) -> uint64_t {
      switch (op.kind) {
      case OperandKind::Reg:
        return op.negated ? th.regs[op.reg] == 0 : th.regs[op.reg];
      case OperandKind::Imm:
        return static_cast<uint64_t>(op.imm);
      case OperandKind::Symbol:
        return op.symbol == -1 ? 0 : addressOf(op.symbol);
      default:
        return 0;
      }
    };
    auto address = [&](Thread &th, const Operand &op) -> uint64_t {
      uint64_t base = 0;
      if (op.reg >= 0)
        base = th.regs[op.reg];
      else if (op.symbol != -1)
        base = addressOf(op.symbol);
      return base + static_cast<uint64_t>(op.imm);
    };
    auto indexOf = [&](const Thread &th) {
      return static_cast<unsigned>(&th - threads.data());
    };
    // Checks and records (SharedRaces) thread `t`'s access of `size` bytes
    // at `p` by instruction `in` (at `line`: the instruction's or, for a
    // copy landing later, the copy's) when `p` is shared memory; false
    // after failing the launch on a race.
    // A store gives the bytes `before` it (`p` holding those after).
    auto checkShared = [&](const Instr &in, long line, unsigned t,
                           const uint8_t *p, uint64_t size, bool isWrite,
                           const uint8_t *before = nullptr) -> bool {
      if (!checkRaces || p < shared.data() || p >= shared.data() + sharedBytes)
        return true;
      uint64_t offset = static_cast<uint64_t>(p - shared.data());
      std::string race = isWrite ? races.write(t, offset, size, line, before,
                                               before ? p : nullptr)
                                 : races.read(t, offset, size, line);
      if (race.empty())
        return true;
      fail(in, race);
      return false;
    };
    // Checks and records (GlobalRaces) the block's access of `size` bytes
    // at `p` by instruction `in` when `p` is global memory (not the block's
    // shared memory, a thread's local memory or the parameters); false
    // after failing the launch on a race. A store gives the bytes `before`
    // it (`p` holding those after).
    auto checkGlobal = [&](const Instr &in, const Thread &th, const uint8_t *p,
                           uint64_t size, bool isWrite,
                           const uint8_t *before = nullptr) -> bool {
      auto within = [&](const std::vector<uint8_t> &buffer) {
        return p >= buffer.data() && p < buffer.data() + buffer.size();
      };
      if (!checkGlobalRaces || within(shared) || within(th.local) ||
          within(paramBuffer))
        return true;
      uint64_t address = reinterpret_cast<uint64_t>(p);
      std::string race = isWrite
                             ? globalRaces.write(b, address, size, in.line,
                                                 before, before ? p : nullptr)
                             : globalRaces.read(b, address, size, in.line);
      if (race.empty())
        return true;
      fail(in, race);
      return false;
    };
    // Lands cp.async copy `copy` (at `in`, its wait or itself): a write of
    // its thread.
    auto landCopy = [&](const AsyncCopy &copy, const Instr &in) -> bool {
      copy.land();
      return checkShared(in, copy.line, copy.thread, copy.to,
                         copy.copied + copy.filled, true);
    };

    // Writes TMA load `load`'s box to shared memory (elements past the
    // tensor's end as zeros), its rows' 16-byte chunks permuted by the
    // map's swizzle (FakeTensorMap); false on a read outside every
    // allocation.
    auto landTma = [&](const TmaLoad &load, const Instr &in) -> bool {
      const FakeTensorMap &map = load.map;
      uint64_t eb = map.elementBytes;
      uint64_t rows = 1;
      for (uint32_t d = 1; d < map.rank; ++d)
        rows *= map.box[d];
      std::vector<uint8_t> box(map.swizzleBytes ? load.bytes : 0);
      uint8_t *to = map.swizzleBytes ? box.data() : load.to;
      for (uint64_t r = 0; r < rows; ++r, to += map.box[0] * eb) {
        std::memset(to, 0, map.box[0] * eb);
        // The row's coordinates along the outer dimensions.
        uint64_t rest = r, offset = 0;
        bool inside = true;
        for (uint32_t d = 1; d < map.rank; ++d) {
          int64_t at = load.coordinates[d] + static_cast<int64_t>(rest % map.box[d]);
          rest /= map.box[d];
          inside &= at >= 0 && static_cast<uint64_t>(at) < map.dims[d];
          offset += static_cast<uint64_t>(at) * map.strides[d];
        }
        int64_t first = std::max<int64_t>(load.coordinates[0], 0);
        int64_t end = std::min<int64_t>(load.coordinates[0] + map.box[0],
                                        static_cast<int64_t>(map.dims[0]));
        if (!inside || first >= end)
          continue;
        uint64_t from = map.address + offset + static_cast<uint64_t>(first) * eb;
        size_t bytes = static_cast<size_t>(end - first) * eb;
        if (!isGlobal(from, bytes)) {
          fail(in, "a TMA load reads " + std::to_string(bytes) +
                       " bytes at an address outside every allocation");
          return false;
        }
        std::memcpy(to + (first - load.coordinates[0]) * eb,
                    reinterpret_cast<const uint8_t *>(from), bytes);
      }
      if (map.swizzleBytes) {
        uint64_t start = static_cast<uint64_t>(load.to - shared.data());
        for (uint64_t at = 0; at < box.size(); at += 16)
          std::memcpy(shared.data() + swizzle(start + at, map.swizzleBytes),
                      box.data() + at, 16);
      }
      return true;
    };
    // Lands the TMA loads in flight of `barrier`, completing their bytes.
    auto landLoads = [&](Mbarrier &barrier, const Instr &in) -> bool {
      std::vector<TmaLoad> loads = std::move(barrier.loads);
      barrier.loads.clear();
      for (const TmaLoad &load : loads) {
        if (!landTma(load, in))
          return false;
        // A write of the barrier's agent, which must not race with what
        // the issuing thread had not seen (a read of the stage since).
        if (checkRaces) {
          uint64_t offset = static_cast<uint64_t>(load.to - shared.data());
          std::string race = races.checkWrite(
              load.issued, static_cast<unsigned>(barrier.agent), offset,
              load.bytes, load.line);
          if (!race.empty()) {
            fail(in, race);
            return false;
          }
          races.recordAgent(barrier.agent, ++barrier.agentTicks, offset,
                            load.bytes, load.line);
        }
        barrier.tx -= static_cast<int64_t>(load.bytes);
        barrier.update();
      }
      return true;
    };

    // Runs thread `th` until it waits or ends.
    auto step = [&](Thread &th) {
      while (th.state == Thread::Running && error.empty()) {
        if (++steps > maxSteps) {
          error = "kernel " + k.name + ": more than " +
                  std::to_string(maxSteps) +
                  " instructions run (a loop that does not end?)";
          return;
        }
        if (th.pc < 0 || th.pc >= static_cast<long>(k.code.size())) {
          error = "kernel " + k.name + " ran past its end";
          return;
        }
        const Instr &in = k.code[th.pc];
        if (in.guard >= 0 && (th.regs[in.guard] != 0) == in.guardNegated) {
          ++th.pc;
          continue;
        }
        const std::vector<Operand> &ops = in.operands;
        auto src = [&](size_t i) { return value(th, ops[i]); };
        auto set = [&](size_t i, uint64_t v) {
          th.regs[ops[i].reg] = maskTo(v, in.type.bits ? in.type.bits : 64);
        };
        unsigned bits = in.type.bits;
        bool isFloat = in.type.kind == Kind::F || in.type.kind == Kind::BF;
        bool isSigned = in.type.kind == Kind::S;
        auto f = [&](size_t i) { return asF32(src(i)); };
        auto sv = [&](size_t i) { return signExtend(src(i), bits); };
        auto uv = [&](size_t i) { return maskTo(src(i), bits); };
        // A float operand of the instruction's type, as a double.
        auto fv = [&](size_t i) -> double {
          uint64_t raw = src(i);
          if (bits == 64)
            return asF64(raw);
          if (bits == 32)
            return asF32(raw);
          return in.type.kind == Kind::BF
                     ? bf16ToFloat(static_cast<uint16_t>(raw))
                     : halfToFloat(static_cast<uint16_t>(raw));
        };
        // Rounds `v` to the instruction's float type.
        auto setFloat = [&](size_t i, double v) {
          if (bits == 64)
            set(i, bitsOf(v));
          else if (bits == 32)
            set(i, bitsOf(roundTo(v, in.rounding.size() == 2 ? in.rounding : "rn")));
          else if (in.type.kind == Kind::BF)
            set(i, floatToBf16(v));
          else
            set(i, floatToHalf(v));
        };
        switch (in.op) {
        case Opcode::Ld:
        case Opcode::St: {
          const Operand &mem = in.op == Opcode::Ld ? ops[1] : ops[0];
          const Operand &reg = in.op == Opcode::Ld ? ops[0] : ops[1];
          size_t size = bits / 8;
          uint8_t *p = resolve(th, in, in.space, address(th, mem),
                               size * in.vector);
          if (!p) {
            fail(in, "access of a null address");
            return;
          }
          uint8_t before[64];
          size_t bytes = size * in.vector;
          if (in.op == Opcode::Ld &&
              (!checkShared(in, in.line, indexOf(th), p, bytes, false) ||
               !checkGlobal(in, th, p, bytes, false)))
            return;
          if (in.op == Opcode::St && bytes <= sizeof(before))
            std::memcpy(before, p, bytes);
          for (unsigned i = 0; i < in.vector; ++i) {
            const Operand &element =
                reg.kind == OperandKind::Vector ? reg.elements[i] : reg;
            if (in.op == Opcode::Ld) {
              uint64_t v = 0;
              std::memcpy(&v, p + i * size, size);
              if (isSigned)
                v = static_cast<uint64_t>(signExtend(v, bits));
              th.regs[element.reg] = v;
            } else {
              uint64_t v = value(th, element);
              std::memcpy(p + i * size, &v, size);
            }
          }
          if (in.op == Opcode::St &&
              (!checkShared(in, in.line, indexOf(th), p, bytes, true,
                            bytes <= sizeof(before) ? before : nullptr) ||
               !checkGlobal(in, th, p, bytes, true,
                            bytes <= sizeof(before) ? before : nullptr)))
            return;
          break;
        }
        case Opcode::Mbarrier: {
          uint64_t at = address(th, in.has("init") ? ops[0] : ops[1]);
          if (!resolve(th, in, Space::Shared, at, 8))
            return;
          if (in.has("init")) {
            uint64_t count = src(1) & 0xfffff;
            if (count == 0) {
              fail(in, "an mbarrier expecting no arrivals");
              return;
            }
            Mbarrier &barrier = mbarriers[at] = Mbarrier();
            barrier.expected = barrier.pending = count;
            if (checkRaces) {
              barrier.agent = races.newAgent();
              if (barrier.agent < 0) {
                fail(in, "more than " +
                             std::to_string(SharedRaces::kMaxAgents) +
                             " mbarriers in a block");
                return;
              }
              barrier.released = races.empty();
              barrier.done[0] = barrier.done[1] = races.empty();
            }
            break;
          }
          auto it = mbarriers.find(at);
          if (it == mbarriers.end()) {
            fail(in, "an mbarrier not initialized (mbarrier.init)");
            return;
          }
          Mbarrier &barrier = it->second;
          if (in.has("expect") || in.has("arrive")) {
            // Expects the bytes (expect_tx), then arrives.
            if (in.has("expect"))
              barrier.tx += static_cast<int64_t>(src(2) & 0xfffff);
            if (barrier.pending == 0) {
              fail(in, "more arrivals at an mbarrier than it expects");
              return;
            }
            uint64_t state = barrier.phases;
            if (checkRaces)
              races.release(indexOf(th), barrier.released);
            --barrier.pending;
            barrier.update();
            set(0, state);
            // In odd blocks a thread pauses after its arrival while the
            // others run, so that one acting on the arrival (a stage
            // released for loads) before this thread's next operations
            // (the products still reading the stage) shows: a plain
            // arrival or one expecting bytes (a release expecting none).
            if (b % 2) {
              ++th.pc;
              th.state = Thread::AtMbarrier;
              return;
            }
            break;
          }
          // try_wait.parity: the phase of that parity has completed once
          // the current one's parity differs. Loads in flight land now
          // (in even blocks; odd ones land them at issue), so that a read
          // of their stage before this wait shows. Until the phase
          // completes the thread waits here while the others run.
          uint64_t parity = src(2) & 1;
          if ((barrier.phases & 1) == parity && !barrier.loads.empty() &&
              !landLoads(barrier, in))
            return;
          if ((barrier.phases & 1) == parity) {
            ++stalls;
            th.state = Thread::AtMbarrier;
            return;
          }
          // The last phase of that parity: what its arrivals released and
          // its loads wrote.
          if (checkRaces)
            races.acquire(indexOf(th), barrier.done[parity]);
          set(0, 1);
          break;
        }
        case Opcode::CpAsync: {
          if (in.has("tensor")) {
            TmaLoad load;
            // A tensor map is 64-byte aligned.
            uint64_t mapAt = src(1);
            if (mapAt % 64 || !isGlobal(mapAt, sizeof(FakeTensorMap))) {
              fail(in, "expected the address of a tensor map in device "
                       "memory, 64-byte aligned");
              return;
            }
            const uint8_t *mapBytes = reinterpret_cast<const uint8_t *>(mapAt);
            std::memcpy(&load.map, mapBytes, sizeof(FakeTensorMap));
            const FakeTensorMap &map = load.map;
            if (map.magic != FakeTensorMap::kMagic ||
                map.rank != in.vector) {
              fail(in, "expected the address of a " +
                           std::to_string(in.vector) +
                           "-dimensional tensor map (cuTensorMapEncodeTiled)");
              return;
            }
            load.bytes = map.elementBytes;
            for (uint32_t d = 0; d < map.rank; ++d) {
              load.coordinates[d] = static_cast<int32_t>(
                  value(th, ops[2].elements[d]));
              load.bytes *= map.box[d];
            }
            uint64_t to = address(th, ops[0]);
            // A swizzled box starts a repetition of the swizzle's pattern
            // (8 rows), which wgmma's descriptors (base offset 0) assume.
            uint64_t align = std::max<uint64_t>(128, 8 * map.swizzleBytes);
            if (to % align) {
              fail(in, "a TMA load into shared memory at offset " +
                           std::to_string(to) + ", which is not " +
                           std::to_string(align) + "-byte aligned");
              return;
            }
            load.to = resolve(th, in, Space::Shared, to, 1);
            if (!load.to)
              return;
            if (to + load.bytes > sharedBytes) {
              fail(in, "a TMA load of " + std::to_string(load.bytes) +
                           " bytes at offset " + std::to_string(to) +
                           " outside the " + std::to_string(sharedBytes) +
                           "-byte shared memory");
              return;
            }
            auto it = mbarriers.find(address(th, ops[3]));
            if (it == mbarriers.end()) {
              fail(in, "a TMA load completing an mbarrier not initialized");
              return;
            }
            // The load writes the box any time from now: it must not race
            // with what this thread has not seen.
            if (checkRaces) {
              load.issued = races.clockOf(indexOf(th));
              load.line = in.line;
              std::string race = races.checkWrite(
                  load.issued, static_cast<unsigned>(it->second.agent), to,
                  load.bytes, in.line);
              if (!race.empty()) {
                fail(in, race);
                return;
              }
            }
            // The load lands any time before the phase completes: in odd
            // blocks at once, so that a load into a stage still read
            // shows, in even ones at the wait.
            it->second.loads.push_back(load);
            if (b % 2 && !landLoads(it->second, in))
              return;
            break;
          }
          if (in.has("commit")) {
            th.groups.push_back(std::move(th.uncommitted));
            th.uncommitted.clear();
            break;
          }
          if (in.has("wait")) {
            // wait_all: every copy, committed or not.
            size_t keep = ops.empty() ? 0 : static_cast<size_t>(src(0));
            if (in.has("wait_all")) {
              th.groups.push_back(std::move(th.uncommitted));
              th.uncommitted.clear();
            }
            while (th.groups.size() > keep) {
              for (const AsyncCopy &copy : th.groups.front())
                if (!landCopy(copy, in))
                  return;
              th.groups.erase(th.groups.begin());
            }
            break;
          }
          size_t size = static_cast<size_t>(ops[2].imm);
          size_t copied = ops.size() == 4 ? static_cast<size_t>(src(3)) : size;
          if (copied > size) {
            fail(in, "a source of " + std::to_string(copied) +
                         " bytes for a copy of " + std::to_string(size));
            return;
          }
          // The source is aligned to the copy's size, read or not.
          if (address(th, ops[1]) % size != 0) {
            fail(in, "misaligned source of a copy of " +
                         std::to_string(size) + " bytes");
            return;
          }
          uint8_t *to = resolve(th, in, Space::Shared, address(th, ops[0]), size);
          const uint8_t *from =
              copied ? resolve(th, in, Space::Global, address(th, ops[1]), copied)
                     : nullptr;
          if (!to || (copied && !from)) {
            fail(in, "access of a null address");
            return;
          }
          if (copied && !checkGlobal(in, th, from, copied, false))
            return;
          AsyncCopy copy{to, from, copied, size - copied, indexOf(th), in.line};
          // The copy writes any time from now to its wait.
          if (checkRaces) {
            std::string race = races.checkWrite(
                races.clockOf(indexOf(th)), indexOf(th),
                static_cast<uint64_t>(to - shared.data()), size, in.line);
            if (!race.empty()) {
              fail(in, race);
              return;
            }
          }
          // A copy may land any time before the wait that covers it: in
          // odd blocks at once, so that a copy into a stage another thread
          // still reads shows, in even ones at the wait, so that a read
          // before the wait shows.
          if (b % 2) {
            if (!landCopy(copy, in))
              return;
            break;
          }
          th.uncommitted.push_back(copy);
          break;
        }
        case Opcode::Mov:
          if (ops[0].kind == OperandKind::Vector) {
            uint64_t v = src(1);
            const std::vector<Operand> &parts = ops[0].elements;
            unsigned part = bits / static_cast<unsigned>(parts.size());
            for (size_t i = 0; i < parts.size(); ++i)
              th.regs[parts[i].reg] = maskTo(v >> (part * i), part);
          } else if (ops[1].kind == OperandKind::Vector) {
            const std::vector<Operand> &parts = ops[1].elements;
            unsigned part = bits / static_cast<unsigned>(parts.size());
            uint64_t v = 0;
            for (size_t i = 0; i < parts.size(); ++i)
              v |= maskTo(value(th, parts[i]), part) << (part * i);
            set(0, v);
          } else {
            set(0, src(1));
          }
          break;
        case Opcode::Cvta: {
          uint64_t v = src(1);
          uint64_t base = 0;
          if (in.has("shared"))
            base = reinterpret_cast<uint64_t>(shared.data());
          else if (in.has("local"))
            base = reinterpret_cast<uint64_t>(th.local.data());
          set(0, in.rounding == "to" ? v - base : v + base);
          break;
        }
        case Opcode::Add:
          if (isFloat)
            setFloat(0, fv(1) + fv(2));
          else if (in.has("cc")) {
            uint64_t r = uv(1) + uv(2);
            th.carry = maskTo(r, bits) < uv(1);
            set(0, r);
          } else
            set(0, src(1) + src(2));
          break;
        case Opcode::Addc: {
          uint64_t r = uv(1) + uv(2) + (th.carry ? 1 : 0);
          if (in.has("cc"))
            th.carry = maskTo(r, bits) < uv(1) ||
                       (th.carry && maskTo(r, bits) == uv(1));
          set(0, r);
          break;
        }
        case Opcode::Sub:
          if (isFloat)
            setFloat(0, fv(1) - fv(2));
          else
            set(0, src(1) - src(2));
          break;
        case Opcode::Mul:
        case Opcode::Mad:
        case Opcode::Madc: {
          if (isFloat) {
            if (in.op == Opcode::Mad && bits == 32)
              set(0, bitsOf(std::fma(f(1), f(2), f(3))));
            else if (in.op == Opcode::Mad)
              setFloat(0, std::fma(fv(1), fv(2), fv(3)));
            else
              setFloat(0, fv(1) * fv(2));
            break;
          }
          // The full product, then the half the instruction keeps.
          unsigned __int128 product;
          if (isSigned)
            product = static_cast<unsigned __int128>(
                static_cast<__int128>(sv(1)) * static_cast<__int128>(sv(2)));
          else
            product = static_cast<unsigned __int128>(uv(1)) * uv(2);
          uint64_t r;
          unsigned width = bits;
          if (in.has("hi"))
            r = static_cast<uint64_t>(product >> bits);
          else if (in.has("wide")) {
            r = static_cast<uint64_t>(product);
            width = bits * 2;
          } else
            r = static_cast<uint64_t>(product);
          if (in.op != Opcode::Mul) {
            uint64_t c = maskTo(src(3), width);
            uint64_t sum = maskTo(r, width) + c +
                           (in.op == Opcode::Madc && th.carry ? 1 : 0);
            if (in.has("cc"))
              th.carry = maskTo(sum, width) < c ||
                         (maskTo(sum, width) == c && maskTo(r, width) != 0);
            r = sum;
          }
          th.regs[ops[0].reg] = maskTo(r, width);
          break;
        }
        case Opcode::Div:
          if (isFloat) {
            setFloat(0, bits == 32 ? static_cast<double>(f(1) / f(2))
                                   : fv(1) / fv(2));
          } else if (uv(2) == 0) {
            set(0, ~uint64_t(0));
          } else if (isSigned && sv(2) == -1) {
            set(0, 0 - src(1)); // (the most negative value stays itself)
          } else {
            set(0, isSigned ? static_cast<uint64_t>(sv(1) / sv(2))
                            : uv(1) / uv(2));
          }
          break;
        case Opcode::Rem:
          if (uv(2) == 0)
            set(0, src(1));
          else if (isSigned && sv(2) == -1)
            set(0, 0);
          else
            set(0, isSigned ? static_cast<uint64_t>(sv(1) % sv(2))
                            : uv(1) % uv(2));
          break;
        case Opcode::Min:
        case Opcode::Max: {
          bool isMax = in.op == Opcode::Max;
          if (isFloat) {
            double a = fv(1), c = fv(2);
            double r;
            if (std::isnan(a) || std::isnan(c))
              r = in.has("NaN") ? NAN : (std::isnan(a) ? c : a);
            else if (a == c)
              // -0 < +0 for min and max.
              r = isMax ? (std::signbit(a) ? c : a) : (std::signbit(a) ? a : c);
            else
              r = isMax ? std::max(a, c) : std::min(a, c);
            setFloat(0, r);
          } else if (isSigned) {
            set(0, static_cast<uint64_t>(isMax ? std::max(sv(1), sv(2))
                                               : std::min(sv(1), sv(2))));
          } else {
            set(0, isMax ? std::max(uv(1), uv(2)) : std::min(uv(1), uv(2)));
          }
          break;
        }
        case Opcode::Neg:
          if (isFloat)
            set(0, src(1) ^ (uint64_t(1) << (bits - 1)));
          else
            set(0, 0 - src(1));
          break;
        case Opcode::Abs:
          if (isFloat)
            set(0, src(1) & ~(uint64_t(1) << (bits - 1)));
          else
            set(0, sv(1) < 0 ? 0 - static_cast<uint64_t>(sv(1))
                             : static_cast<uint64_t>(sv(1)));
          break;
        case Opcode::And:
          set(0, src(1) & src(2));
          break;
        case Opcode::Or:
          set(0, src(1) | src(2));
          break;
        case Opcode::Xor:
          set(0, src(1) ^ src(2));
          break;
        case Opcode::Not:
          set(0, in.type.kind == Kind::Pred ? !src(1) : ~src(1));
          break;
        case Opcode::Shl: {
          uint64_t n = maskTo(src(2), 32);
          set(0, n >= bits ? 0 : src(1) << n);
          break;
        }
        case Opcode::Shr: {
          uint64_t n = maskTo(src(2), 32);
          if (isSigned)
            set(0, static_cast<uint64_t>(sv(1) >> std::min<uint64_t>(n, bits - 1)));
          else
            set(0, n >= bits ? 0 : uv(1) >> n);
          break;
        }
        case Opcode::Bfe: {
          // d[i] = a[pos + i] for i < len with pos + i <= msb, else the
          // sign bit (bfe.s: a[min(pos + len - 1, msb)]; bfe.u: 0).
          uint64_t pos = maskTo(src(2), 8), len = maskTo(src(3), 8);
          uint64_t a = uv(1), field = 0;
          uint64_t msb = bits - 1;
          uint64_t sign = 0;
          if (isSigned && len > 0)
            sign = (a >> std::min(pos + len - 1, msb)) & 1;
          for (uint64_t i = 0; i < bits; ++i) {
            uint64_t bit = i < len && pos + i <= msb ? (a >> (pos + i)) & 1 : sign;
            field |= bit << i;
          }
          set(0, field);
          break;
        }
        case Opcode::Prmt: {
          // prmt.b32 (the generic mode): byte i of d is byte c[4i+2:4i] of
          // {b, a} (a bytes 0-3, b 4-7), or its sign replicated when
          // c[4i+3] is set.
          uint64_t both = (maskTo(src(2), 32) << 32) | maskTo(src(1), 32);
          uint64_t c = src(3), d = 0;
          for (unsigned i = 0; i < 4; ++i) {
            uint64_t select = (c >> (4 * i)) & 0xF;
            uint64_t byte = (both >> (8 * (select & 7))) & 0xFF;
            if (select & 8)
              byte = byte & 0x80 ? 0xFF : 0;
            d |= byte << (8 * i);
          }
          set(0, d);
          break;
        }
        case Opcode::Shf: {
          uint64_t n = maskTo(src(3), 32);
          n = in.has("wrap") ? n & 31 : std::min<uint64_t>(n, 32);
          uint64_t both = (maskTo(src(2), 32) << 32) | maskTo(src(1), 32);
          if (in.has("l"))
            set(0, (both << n) >> 32);
          else
            set(0, both >> n);
          break;
        }
        case Opcode::Copysign:
          setFloat(0, std::copysign(fv(2), fv(1)));
          break;
        case Opcode::Fma:
          if (bits != 32) {
            setFloat(0, std::fma(fv(1), fv(2), fv(3)));
          } else {
            // The product of two floats is exact in double.
            double exact = static_cast<double>(f(1)) * f(2) + f(3);
            if (in.rounding == "rn" || in.rounding.empty())
              set(0, bitsOf(std::fma(f(1), f(2), f(3))));
            else
              set(0, bitsOf(roundTo(exact, in.rounding)));
          }
          break;
        case Opcode::Rcp:
          setFloat(0, bits == 32 ? static_cast<double>(1.0f / f(1)) : 1.0 / fv(1));
          break;
        case Opcode::Sqrt:
          setFloat(0, bits == 32 ? static_cast<double>(std::sqrt(f(1)))
                                 : std::sqrt(fv(1)));
          break;
        case Opcode::Rsqrt:
          setFloat(0, bits == 32 ? static_cast<double>(1.0f / std::sqrt(f(1)))
                                 : 1.0 / std::sqrt(fv(1)));
          break;
        case Opcode::Ex2:
          setFloat(0, std::exp2(fv(1)));
          break;
        case Opcode::Lg2:
          setFloat(0, std::log2(fv(1)));
          break;
        case Opcode::Sin:
          setFloat(0, std::sin(fv(1)));
          break;
        case Opcode::Cos:
          setFloat(0, std::cos(fv(1)));
          break;
        case Opcode::Tanh:
          setFloat(0, std::tanh(fv(1)));
          break;
        case Opcode::Setp: {
          std::string cmp = in.mods.front();
          bool r;
          if (isFloat) {
            double a = fv(1), c = fv(2);
            bool nan = std::isnan(a) || std::isnan(c);
            bool unordered = cmp.size() == 3 && cmp.back() == 'u';
            std::string base = unordered ? cmp.substr(0, 2) : cmp;
            if (cmp == "num")
              r = !nan;
            else if (cmp == "nan")
              r = nan;
            else if (nan)
              r = unordered;
            else if (base == "eq")
              r = a == c;
            else if (base == "ne")
              r = a != c;
            else if (base == "lt")
              r = a < c;
            else if (base == "le")
              r = a <= c;
            else if (base == "gt")
              r = a > c;
            else
              r = a >= c;
          } else {
            bool useSigned = isSigned;
            int cmpResult;
            if (useSigned)
              cmpResult = sv(1) < sv(2) ? -1 : sv(1) > sv(2) ? 1 : 0;
            else
              cmpResult = uv(1) < uv(2) ? -1 : uv(1) > uv(2) ? 1 : 0;
            if (cmp == "eq")
              r = cmpResult == 0;
            else if (cmp == "ne")
              r = cmpResult != 0;
            else if (cmp == "lt" || cmp == "lo")
              r = cmpResult < 0;
            else if (cmp == "le" || cmp == "ls")
              r = cmpResult <= 0;
            else if (cmp == "gt" || cmp == "hi")
              r = cmpResult > 0;
            else
              r = cmpResult >= 0;
          }
          if (ops.size() > 3) {
            bool c = src(3) != 0;
            if (in.has("and"))
              r = r && c;
            else if (in.has("or"))
              r = r || c;
            else if (in.has("xor"))
              r = r != c;
          }
          th.regs[ops[0].reg] = r;
          if (ops[0].pred >= 0)
            th.regs[ops[0].pred] = !r;
          break;
        }
        case Opcode::Selp:
          set(0, src(3) ? src(1) : src(2));
          break;
        case Opcode::Cvt: {
          Type to = in.type, from = in.from;
          uint64_t raw = src(1);
          bool sat = in.has("sat");
          bool fromFloat = from.kind == Kind::F || from.kind == Kind::BF;
          bool toFloat = to.kind == Kind::F || to.kind == Kind::BF;
          uint64_t &dst = th.regs[ops[0].reg];
          // A value rounded to the destination's float type.
          auto toFloatBits = [&](double v) -> uint64_t {
            if (to.bits == 64)
              return bitsOf(v);
            if (to.bits == 32)
              return bitsOf(roundTo(v, in.rounding.size() == 2 ? in.rounding : "rn"));
            if (to.kind == Kind::BF)
              return floatToBf16(v);
            return floatToHalf(v);
          };
          if (fromFloat) {
            double v = from.bits == 64   ? asF64(raw)
                       : from.bits == 32 ? asF32(raw)
                       : from.kind == Kind::BF
                           ? bf16ToFloat(static_cast<uint16_t>(raw))
                           : halfToFloat(static_cast<uint16_t>(raw));
            if (toFloat) {
              if (in.rounding.size() == 3)
                v = roundIntegral(v, in.rounding);
              if (sat)
                v = std::isnan(v) ? 0.0 : std::min(1.0, std::max(0.0, v));
              dst = toFloatBits(v);
            } else {
              // To an integer: rounded, clamped to the type, NaN as 0.
              v = std::isnan(v) ? 0.0 : roundIntegral(v, in.rounding);
              // Out of range saturates to the type's bounds.
              if (to.kind == Kind::S) {
                double bound = std::ldexp(1.0, to.bits - 1);
                int64_t lo = std::numeric_limits<int64_t>::min() >> (64 - to.bits);
                int64_t r = v >= bound ? -(lo + 1) : v < -bound ? lo
                                                                : static_cast<int64_t>(v);
                dst = maskTo(static_cast<uint64_t>(r), to.bits);
              } else {
                double bound = std::ldexp(1.0, to.bits);
                uint64_t r = v >= bound ? ~uint64_t(0)
                             : v <= 0   ? 0
                                        : static_cast<uint64_t>(v);
                dst = maskTo(r, to.bits);
              }
            }
          } else {
            int64_t si = from.kind == Kind::S
                             ? signExtend(raw, from.bits)
                             : static_cast<int64_t>(maskTo(raw, from.bits));
            uint64_t ui = maskTo(raw, from.bits);
            if (toFloat) {
              // Integers convert exactly to double up to 2^53; f32 rounds
              // once from the integer itself.
              if (to.bits == 32 && (in.rounding.empty() || in.rounding == "rn"))
                dst = bitsOf(from.kind == Kind::S ? static_cast<float>(si)
                                                  : static_cast<float>(ui));
              else
                dst = toFloatBits(from.kind == Kind::S ? static_cast<double>(si)
                                                       : static_cast<double>(ui));
            } else {
              uint64_t v = from.kind == Kind::S ? static_cast<uint64_t>(si) : ui;
              if (sat) {
                // Clamped to the destination's range.
                bool negative = from.kind == Kind::S && si < 0;
                if (to.kind == Kind::S) {
                  int64_t hi = static_cast<int64_t>((uint64_t(1) << (to.bits - 1)) - 1);
                  int64_t lo = -hi - 1;
                  if (negative)
                    v = static_cast<uint64_t>(std::max(si, lo));
                  else
                    v = from.kind == Kind::S
                            ? static_cast<uint64_t>(std::min(si, hi))
                            : std::min<uint64_t>(ui, static_cast<uint64_t>(hi));
                } else {
                  uint64_t hi = maskTo(~uint64_t(0), to.bits);
                  v = negative ? 0 : std::min(v, hi);
                }
              }
              dst = maskTo(to.kind == Kind::S
                               ? static_cast<uint64_t>(signExtend(v, to.bits))
                               : v,
                           to.bits);
            }
          }
          break;
        }
        case Opcode::Bra:
          th.pc = in.target;
          continue;
        case Opcode::Ret:
          th.state = Thread::Done;
          return;
        case Opcode::Bar:
          th.state = Thread::AtBarrier;
          return;
        case Opcode::Fence:
          break;
        case Opcode::Wgmma:
          // Products, commits and waits are the warp's (runWgmma); a
          // fence has nothing left to order.
          if (in.has("fence"))
            break;
          th.state = Thread::AtShuffle;
          return;
        case Opcode::Shfl:
        case Opcode::Mma:
        case Opcode::Ldmatrix:
          th.state = Thread::AtShuffle;
          return;
        }
        ++th.pc;
      }
    };

    // Whether all 32 lanes [first, last) of a warp wait at instruction
    // `pc`, a warp-wide `what`; a lane that has ended, or a warp of fewer
    // lanes, fails the launch.
    auto warpAt = [&](const Instr &in, const char *what, long pc,
                      unsigned first, unsigned last) -> bool {
      for (unsigned t = first; t < last; ++t)
        if (threads[t].state == Thread::Done) {
          fail(in, std::string(what) +
                       " not reached by every lane of the warp");
          return false;
        }
      if (last - first != 32) {
        fail(in, std::string(what) + " in a warp of fewer than 32 threads");
        return false;
      }
      for (unsigned t = first; t < last; ++t)
        if (threads[t].state != Thread::AtShuffle || threads[t].pc != pc)
          return false;
      return true;
    };

    // mma.sync.aligned.m16n8k16 (m16n8k8 for TF32) for the warp of lanes
    // [first, last), once all 32 are at it: D = A B + C, with A (16 x K)
    // and B (K x 8) in pairs of halves (TF32: an f32 whose 13 lowest bits
    // are ignored) and C, D (16 x 8) in f32, spread over the lanes as the
    // PTX ISA lays out their fragments (lane l: g = l / 4, t = l % 4).
    // The products are exact; their sum and C are added in double and
    // rounded once to f32 (the hardware's order and rounding of the sum
    // are unspecified). Returns whether the lanes went on.
    auto runMma = [&](const Instr &in, long pc, unsigned first,
                      unsigned last) -> bool {
      if (!warpAt(in, "mma.sync", pc, first, last))
        return false;
      bool tf32 = in.mods[6] == "tf32";
      unsigned terms = tf32 ? 8 : 16;
      double a[16][16], bm[16][8], c[16][8];
      auto half = [&](uint64_t word, unsigned h) -> double {
        auto bits = static_cast<uint16_t>(word >> (16 * h));
        return in.from.kind == Kind::BF ? bf16ToFloat(bits) : halfToFloat(bits);
      };
      for (unsigned l = 0; l < 32; ++l) {
        Thread &th = threads[first + l];
        unsigned g = l / 4, t = l % 4;
        const std::vector<Operand> &av = in.operands[1].elements;
        const std::vector<Operand> &bv = in.operands[2].elements;
        const std::vector<Operand> &cv = in.operands[3].elements;
        if (tf32) {
          // A's rows g, g + 8 at columns t, t + 4; B's column g at rows t,
          // t + 4.
          for (unsigned r = 0; r < 4; ++r)
            a[g + 8 * (r % 2)][t + 4 * (r / 2)] =
                asF32(value(th, av[r]) & 0xFFFFE000u);
          for (unsigned r = 0; r < 2; ++r)
            bm[t + 4 * r][g] = asF32(value(th, bv[r]) & 0xFFFFE000u);
        } else {
          for (unsigned r = 0; r < 4; ++r)
            for (unsigned h = 0; h < 2; ++h)
              a[g + 8 * (r % 2)][2 * t + h + 8 * (r / 2)] =
                  half(value(th, av[r]), h);
          for (unsigned r = 0; r < 2; ++r)
            for (unsigned h = 0; h < 2; ++h)
              bm[2 * t + h + 8 * r][g] = half(value(th, bv[r]), h);
        }
        for (unsigned i = 0; i < 4; ++i)
          c[g + 8 * (i / 2)][2 * t + i % 2] = asF32(value(th, cv[i]));
      }
      for (unsigned l = 0; l < 32; ++l) {
        Thread &th = threads[first + l];
        unsigned g = l / 4, t = l % 4;
        for (unsigned i = 0; i < 4; ++i) {
          unsigned row = g + 8 * (i / 2), col = 2 * t + i % 2;
          double sum = c[row][col];
          for (unsigned kk = 0; kk < terms; ++kk)
            sum += a[row][kk] * bm[kk][col];
          th.regs[in.operands[0].elements[i].reg] = bitsOf(narrow(sum));
        }
        th.state = Thread::Running;
        ++th.pc;
      }
      return true;
    };

    // ldmatrix.sync.aligned.m8n8.x{1,2,4} for the warp of lanes [first,
    // last), once all 32 are at it: lanes 8i to 8i + 7 give the addresses
    // of the 8 rows (16 bytes each, 16-byte aligned) of matrix i, and lane
    // l's register i holds row l / 4 of matrix i at bytes 4 (l % 4) to
    // 4 (l % 4) + 3; with .trans, its 16-bit elements l / 4 of rows
    // 2 (l % 4) and 2 (l % 4) + 1 (row l / 4 of the transpose). Returns
    // whether the lanes went on.
    auto runLdmatrix = [&](const Instr &in, long pc, unsigned first,
                           unsigned last) -> bool {
      if (!warpAt(in, "ldmatrix", pc, first, last))
        return false;
      uint8_t rows[32][16];
      for (unsigned r = 0; r < 8 * in.vector; ++r) {
        Thread &th = threads[first + r];
        const uint8_t *p =
            resolve(th, in, in.space, address(th, in.operands[1]), 16);
        if (!p || !checkShared(in, in.line, first + r, p, 16, false))
          return false;
        std::memcpy(rows[r], p, 16);
      }
      const Operand &d = in.operands[0];
      for (unsigned l = 0; l < 32; ++l) {
        Thread &th = threads[first + l];
        for (unsigned i = 0; i < in.vector; ++i) {
          uint32_t word;
          if (in.mods.back() == "trans") {
            uint16_t low, high;
            std::memcpy(&low, rows[8 * i + 2 * (l % 4)] + 2 * (l / 4), 2);
            std::memcpy(&high, rows[8 * i + 2 * (l % 4) + 1] + 2 * (l / 4), 2);
            word = low | static_cast<uint32_t>(high) << 16;
          } else {
            std::memcpy(&word, rows[8 * i + l / 4] + 4 * (l % 4), 4);
          }
          int reg = d.kind == OperandKind::Vector ? d.elements[i].reg : d.reg;
          th.regs[reg] = word;
        }
        th.state = Thread::Running;
        ++th.pc;
      }
      return true;
    };

    // wgmma.mma_async.sync.aligned.m64nNk16 for warp q = (first / 32) % 4
    // of its warpgroup: the warp's rows 16 q to 16 q + 15 of D (64 x N,
    // f32) = A B (+ D when the predicate holds), A (64 x 16) and B (16 x N)
    // halves in shared memory that the descriptors give. Unswizzled (layout
    // type 0), core matrices of 8 rows of 16 bytes: element (i, k) (i: A's
    // row or B's column) of a K-major matrix (transposition 0) at start +
    // (i / 8) SBO + (k / 8) LBO + 16 (i % 8) + 2 (k % 8), of an MN-major
    // one (1) at start + (i / 8) SBO + (k / 8) LBO + 16 (k % 8) + 2 (i %
    // 8). Swizzled (layout type 1, 2, 3: rows of R = 128, 64, 32 bytes),
    // the address of a K-major matrix's element is start + (i / 8) SBO +
    // R (i % 8) + 2 k, of an MN-major one's start + (i / (R / 2)) LBO +
    // 2 (i % (R / 2)) + R (k % 8) + (k / 8) SBO, then swizzled (swizzle,
    // as a swizzled TMA load writes it). D lies
    // over the lanes as mma.sync's accumulator fragments, one per 8
    // columns: register 4 j + e of lane l holds row l / 4 + 8 (e / 2),
    // column 8 j + 2 (l % 4) + e % 2. The products are exact; each sum is
    // taken in double and rounded once to f32. Returns whether it could
    // read the operands.
    auto computeWgmma = [&](const PendingWgmma &p, unsigned first) -> bool {
      const Instr &in = *p.in;
      const std::vector<Operand> &ops = in.operands;
      // The matrix's element at row or column i, term kk.
      auto element = [&](int which, unsigned i, unsigned kk,
                         double &out) -> bool {
        uint64_t d = p.descriptors[which];
        uint64_t start = (d & 0x3FFF) << 4;
        uint64_t leading = ((d >> 16) & 0x3FFF) << 4;
        uint64_t stride = ((d >> 32) & 0x3FFF) << 4;
        bool mnMajor = ops[6 + which].imm != 0;
        uint64_t layout = d >> 62;
        uint64_t at;
        if (!layout) {
          at = start + (i / 8) * stride + (kk / 8) * leading +
               (mnMajor ? 16 * (kk % 8) + 2 * (i % 8)
                        : 16 * (i % 8) + 2 * (kk % 8));
        } else {
          uint64_t row = 256 >> layout, span = row / 2;
          at = mnMajor ? start + (i / span) * leading + 2 * (i % span) +
                             row * (kk % 8) + (kk / 8) * stride
                       : start + (i / 8) * stride + row * (i % 8) + 2 * kk;
          at = swizzle(at & ~uint64_t(15), row) | (at & 15);
        }
        const uint8_t *bytes =
            resolve(threads[first], in, Space::Shared, at, 2);
        if (!bytes || !checkShared(in, in.line, first, bytes, 2, false))
          return false;
        uint16_t bits;
        std::memcpy(&bits, bytes, 2);
        out = in.from.kind == Kind::BF ? bf16ToFloat(bits) : halfToFloat(bits);
        return true;
      };
      unsigned columns = 2 * in.vector, q = (first / 32) % 4;
      double a[16][16];
      std::vector<double> bm(16 * columns);
      for (unsigned r = 0; r < 16; ++r)
        for (unsigned kk = 0; kk < 16; ++kk)
          if (!element(0, 16 * q + r, kk, a[r][kk]))
            return false;
      for (unsigned col = 0; col < columns; ++col)
        for (unsigned kk = 0; kk < 16; ++kk)
          if (!element(1, col, kk, bm[kk * columns + col]))
            return false;
      double scale = static_cast<double>(ops[4].imm * ops[5].imm);
      for (unsigned l = 0; l < 32; ++l) {
        Thread &th = threads[first + l];
        for (unsigned v = 0; v < in.vector; ++v) {
          unsigned row = l / 4 + 8 * (v % 4 / 2);
          unsigned col = 8 * (v / 4) + 2 * (l % 4) + v % 2;
          int reg = ops[0].elements[v].reg;
          uint64_t input = p.chained[v] ? th.regs[reg] : p.inputs[l][v];
          double sum = p.accumulate[l] ? asF32(input) : 0.0;
          for (unsigned kk = 0; kk < 16; ++kk)
            sum += scale * a[row][kk] * bm[kk * columns + col];
          th.regs[reg] = bitsOf(narrow(sum));
        }
      }
      return true;
    };

    // A wgmma instruction of the warp of lanes [first, last), once all 32
    // are at it. A product reads its descriptors, predicate and
    // accumulators at once; it runs (reads shared memory and writes the
    // accumulators) in even blocks at once (where cp.async copies land at
    // their wait: a product reading a stage before its copies' wait
    // shows), in odd ones at the wgmma.wait_group that covers its group
    // (where copies land at once: a stage copied into while a product
    // reading it still runs shows, as does an accumulator read before the
    // wait).
    // commit_group and wait_group N (at most N groups left running) act
    // on the warp's groups. Returns whether the lanes went on.
    auto runWgmma = [&](const Instr &in, long pc, unsigned first,
                        unsigned last) -> bool {
      if (!warpAt(in, "wgmma", pc, first, last))
        return false;
      // The warp's warpgroup (4 warps from a multiple of 4) must be whole;
      // the block may end with a partial one whose warps run no wgmma (a
      // producer warp's).
      unsigned groupEnd = first / 128 * 128 + 128;
      if (groupEnd > block) {
        fail(in, "wgmma by threads [" + std::to_string(first) + ", " +
                     std::to_string(last) + ") of a block of " +
                     std::to_string(block) +
                     " threads: expected a whole warpgroup of 128, found " +
                     std::to_string(block - groupEnd + 128));
        return false;
      }
      WarpWgmma &warp = wgmmas[first / 32];
      const std::vector<Operand> &ops = in.operands;
      if (in.has("commit")) {
        warp.groups.push_back(std::move(warp.uncommitted));
        warp.uncommitted.clear();
      } else if (in.has("wait")) {
        while (warp.groups.size() > static_cast<size_t>(ops[0].imm)) {
          for (const PendingWgmma &p : warp.groups.front())
            if (!computeWgmma(p, first))
              return false;
          warp.groups.erase(warp.groups.begin());
        }
      } else {
        PendingWgmma p;
        p.in = &in;
        p.descriptors[0] = value(threads[first], ops[1]);
        p.descriptors[1] = value(threads[first], ops[2]);
        for (unsigned t = first; t < last; ++t)
          if (value(threads[t], ops[1]) != p.descriptors[0] ||
              value(threads[t], ops[2]) != p.descriptors[1]) {
            fail(in, "wgmma descriptors that differ between a warp's lanes");
            return false;
          }
        // A base offset (bits 49 to 51) moves the swizzle's pattern.
        for (uint64_t d : p.descriptors)
          if ((d >> 49) & 7) {
            fail(in, "unsupported wgmma descriptor (a base offset)");
            return false;
          }
        // An accumulator an earlier product still running writes.
        auto running = [&](int reg) {
          auto writes = [&](const PendingWgmma &q) {
            for (const Operand &e : q.in->operands[0].elements)
              if (e.reg == reg)
                return true;
            return false;
          };
          for (const std::vector<PendingWgmma> &group : warp.groups)
            if (std::any_of(group.begin(), group.end(), writes))
              return true;
          return std::any_of(warp.uncommitted.begin(), warp.uncommitted.end(),
                             writes);
        };
        for (const Operand &e : ops[0].elements)
          p.chained.push_back(running(e.reg));
        for (unsigned t = first; t < last; ++t) {
          p.accumulate.push_back(value(threads[t], ops[3]) != 0);
          std::vector<uint64_t> inputs;
          for (const Operand &e : ops[0].elements)
            inputs.push_back(threads[t].regs[e.reg]);
          p.inputs.push_back(std::move(inputs));
        }
        if (b % 2 == 0) {
          if (!computeWgmma(p, first))
            return false;
        } else {
          warp.uncommitted.push_back(std::move(p));
        }
      }
      for (unsigned t = first; t < last; ++t) {
        threads[t].state = Thread::Running;
        ++threads[t].pc;
      }
      return true;
    };

    // The lanes of warp `w` at a shuffle exchange once every lane of its
    // member mask that has not ended is there; returns whether any did.
    auto resolveWarp = [&](unsigned w) -> bool {
      bool released = false;
      unsigned first = w * 32, last = std::min(block, first + 32);
      // The lanes of a shuffle wait for each other: what one did before it
      // happens before what any does after (race checks, SharedRaces.h).
      auto converge = [&](const std::vector<unsigned> &lanes) {
        if (checkRaces)
          races.barrier(lanes);
      };
      // Each shuffle some lane waits at, in turn.
      std::vector<long> pcs;
      for (unsigned t = first; t < last; ++t)
        if (threads[t].state == Thread::AtShuffle &&
            std::find(pcs.begin(), pcs.end(), threads[t].pc) == pcs.end())
          pcs.push_back(threads[t].pc);
      for (long pc : pcs) {
        const Instr &in = k.code[pc];
        if (in.op == Opcode::Mma) {
          if (runMma(in, pc, first, last))
            released = true;
          continue;
        }
        if (in.op == Opcode::Ldmatrix) {
          if (runLdmatrix(in, pc, first, last))
            released = true;
          continue;
        }
        if (in.op == Opcode::Wgmma) {
          if (runWgmma(in, pc, first, last))
            released = true;
          continue;
        }
        uint32_t members = 0;
        bool ready = true;
        for (unsigned t = first; t < last; ++t)
          if (threads[t].state == Thread::AtShuffle && threads[t].pc == pc)
            members = static_cast<uint32_t>(value(threads[t], in.operands[4]));
        for (unsigned t = first; t < last; ++t) {
          Thread &th = threads[t];
          bool member = (members >> (t - first)) & 1;
          if (member && th.state != Thread::Done &&
              !(th.state == Thread::AtShuffle && th.pc == pc))
            ready = false;
        }
        if (!ready)
          continue;
        std::vector<uint64_t> inputs(32, 0);
        std::vector<bool> present(32, false);
        std::vector<unsigned> lanes;
        for (unsigned t = first; t < last; ++t)
          if (threads[t].state == Thread::AtShuffle && threads[t].pc == pc) {
            inputs[t - first] = value(threads[t], in.operands[1]);
            present[t - first] = true;
            lanes.push_back(t);
          }
        converge(lanes);
        for (unsigned t = first; t < last; ++t) {
          Thread &th = threads[t];
          if (!present[t - first])
            continue;
          uint32_t lane = t - first;
          uint32_t b = static_cast<uint32_t>(value(th, in.operands[2])) & 31;
          uint32_t c = static_cast<uint32_t>(value(th, in.operands[3]));
          uint32_t segmask = (c >> 8) & 31, clamp = c & 31;
          uint32_t maxLane = (lane & segmask) | (clamp & ~segmask);
          uint32_t minLane = lane & segmask;
          uint32_t j;
          bool ok;
          if (in.has("bfly")) {
            j = lane ^ b;
            ok = j <= maxLane;
          } else if (in.has("down")) {
            j = lane + b;
            ok = j <= maxLane;
          } else if (in.has("up")) {
            j = lane - b;
            ok = static_cast<int32_t>(j) >= static_cast<int32_t>(maxLane);
          } else {
            j = minLane | (b & ~segmask);
            ok = j <= maxLane;
          }
          if (!ok || j >= 32 || !present[j])
            j = lane;
          th.regs[in.operands[0].reg] = maskTo(inputs[j], 32);
          if (in.operands[0].pred >= 0)
            th.regs[in.operands[0].pred] = ok;
          th.state = Thread::Running;
          ++th.pc;
        }
        released = true;
      }
      return released;
    };

    // Runs every thread until all end; releases barriers and shuffles.
    // Rounds alternate the threads' order, so that a read of what another
    // thread writes without a barrier between shows in one of them. Even
    // blocks run the warps together, from one warp-wide instruction to the
    // next; odd ones run each warp on its own up to the next barrier, so
    // that a warp overwriting shared memory another warp has yet to read
    // in the same interval between barriers shows too.
    unsigned warps = (block + 31) / 32;
    for (unsigned round = 0; error.empty(); ++round) {
      bool released = false;
      uint64_t stepsBefore = steps, stallsBefore = stalls;
      if (b % 2) {
        for (unsigned i = 0; i < warps && error.empty(); ++i) {
          unsigned w = round % 2 ? warps - 1 - i : i;
          unsigned first = w * 32, last = std::min(block, first + 32);
          bool progress = true;
          while (progress && error.empty()) {
            for (unsigned t = first; t < last; ++t)
              step(threads[round % 2 ? last - 1 - (t - first) : t]);
            progress = error.empty() && resolveWarp(w);
            released |= progress;
          }
        }
      } else {
        for (unsigned t = 0; t < block; ++t)
          step(threads[round % 2 ? block - 1 - t : t]);
        for (unsigned w = 0; w < warps && error.empty(); ++w)
          released |= resolveWarp(w);
      }
      if (!error.empty())
        break;
      bool allDone = true, allAtBarrier = true;
      for (Thread &th : threads) {
        allDone &= th.state == Thread::Done;
        allAtBarrier &= th.state == Thread::Done || th.state == Thread::AtBarrier;
      }
      if (allDone) {
        for (const WarpWgmma &warp : wgmmas)
          if (!warp.uncommitted.empty() || !warp.groups.empty())
            error = "kernel " + k.name +
                    ": wgmma products still running when the block ends "
                    "(no wgmma.wait_group covers them)";
        for (const auto &[at, barrier] : mbarriers)
          if (!barrier.loads.empty())
            error = "kernel " + k.name +
                    ": TMA loads still in flight when the block ends";
        break;
      }
      // Threads waiting at an mbarrier try again after the others ran.
      bool progressed = released || steps - stepsBefore > stalls - stallsBefore;
      bool waiting = false;
      for (Thread &th : threads)
        if (th.state == Thread::AtMbarrier) {
          waiting = true;
          if (progressed)
            th.state = Thread::Running;
        }
      if (waiting) {
        if (!progressed)
          error = "kernel " + k.name +
                  ": threads wait forever at an mbarrier (a phase that no "
                  "arrival or TMA load completes)";
        continue;
      }
      if (!released && allAtBarrier) {
        std::vector<unsigned> synced;
        for (Thread &th : threads)
          if (th.state == Thread::AtBarrier) {
            th.state = Thread::Running;
            ++th.pc;
            synced.push_back(indexOf(th));
          }
        if (checkRaces)
          races.barrier(synced);
        released = true;
      }
      if (!released && error.empty()) {
        error = "kernel " + k.name +
                ": threads wait forever (a barrier or shuffle not reached "
                "by every thread)";
      }
    }
  }
  return error;
}

PtxModule::PtxModule() : impl(new PtxModuleImpl) {}
PtxModule::~PtxModule() = default;

std::unique_ptr<PtxModule> PtxModule::parse(const std::string &ptx,
                                            std::string &error) {
  std::unique_ptr<PtxModule> module(new PtxModule);
  try {
    if (!module->impl->parse(ptx, error))
      return nullptr;
  } catch (const std::exception &e) {
    // A malformed number or name (std::stoull and the like).
    error = std::string("malformed PTX: ") + e.what();
    return nullptr;
  }
  return module;
}

bool PtxModule::hasEntry(const std::string &name) const {
  return impl->find(name) != nullptr;
}

std::vector<size_t> PtxModule::getParamSizes(const std::string &name) const {
  std::vector<size_t> sizes;
  if (const Kernel *k = impl->find(name))
    for (int param : k->params)
      sizes.push_back(impl->symbols[param].size);
  return sizes;
}

std::string PtxModule::launch(const std::string &name, unsigned grid,
                              unsigned block, unsigned dynamicShared,
                              void **params, const GlobalCheck &isGlobal,
                              uint64_t maxSteps, bool checkRaces) const {
  const Kernel *k = impl->find(name);
  if (!k)
    return "no entry " + name;
  return impl->run(*k, grid, block, dynamicShared, params, isGlobal, maxSteps,
                   checkRaces);
}

bool PtxModule::ownsGlobal(uint64_t address, size_t size) const {
  for (const Symbol &symbol : impl->symbols)
    if (symbol.space == Space::Global && address >= symbol.address &&
        address + size <= symbol.address + symbol.size)
      return true;
  return false;
}
