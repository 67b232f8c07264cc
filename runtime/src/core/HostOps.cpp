//===- HostOps.cpp - operations the runtime implements itself -------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/HostOps.h"
#include "core/Util.h"
#include "core/Utf8.h"

#include <algorithm>
#include <clocale>
#include <cstring>
#include <cwctype>
#include <functional>
#include <locale.h>
#include <unordered_set>

using ms::rt::Status;
using namespace ms::rt::impl;
using Json = nlohmann::json;

bool ms::rt::impl::hasDynamicExtent(const std::vector<int64_t> &shape) {
  return std::any_of(shape.begin(), shape.end(),
                     [](int64_t d) { return d < 0; });
}

namespace {
/// Returns a failure with `message`.
Status fail(const std::string &message) {
  return Status::error(MS_INVALID_ARGUMENT, message);
}

/// Returns the element count of a static shape.
uint64_t countOf(const std::vector<int64_t> &shape) {
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= static_cast<uint64_t>(d);
  return n;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") +
            (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return text + "]";
}

/// Checks that `signature` has `operands` operands and `results` results of
/// the given element types.
Status checkArity(const std::string &name, const HostSignature &signature,
                  std::vector<ms_dtype_t> operands,
                  std::vector<ms_dtype_t> results) {
  if (signature.operandCount != operands.size() ||
      signature.dtypes.size() != operands.size() + results.size() ||
      signature.shapes.size() != signature.dtypes.size())
    return fail(name + " expects " + std::to_string(operands.size()) +
                " operands and " + std::to_string(results.size()) +
                " results, found " + std::to_string(signature.operandCount) +
                " and " +
                std::to_string(signature.dtypes.size() -
                               std::min(signature.dtypes.size(),
                                        signature.operandCount)));
  std::vector<ms_dtype_t> expected = operands;
  expected.insert(expected.end(), results.begin(), results.end());
  for (size_t i = 0; i < expected.size(); ++i)
    if (signature.dtypes[i] != expected[i])
      return fail(name + ": " +
                  (i < operands.size() ? "operand " + std::to_string(i)
                                       : "result " +
                                             std::to_string(i - operands.size())) +
                  " has dtype " + ms_dtype_name(signature.dtypes[i]) +
                  ", expected " + ms_dtype_name(expected[i]));
  for (size_t i = 0; i < signature.operandCount; ++i)
    if (hasDynamicExtent(signature.shapes[i]))
      return fail(name + ": operand " + std::to_string(i) + " has shape " +
                  formatShape(signature.shapes[i]) +
                  ", expected a static shape");
  return Status();
}

/// Reads an optional attribute `key` of `attrs` into `out`.
template <typename T>
Status readAttr(const std::string &op, const Json &attrs, const char *key,
                T &out) {
  auto it = attrs.find(key);
  if (it == attrs.end())
    return Status();
  try {
    out = it->template get<T>();
  } catch (const Json::exception &) {
    return fail(op + ": attribute '" + key + "' has the wrong type: " +
                it->dump());
  }
  return Status();
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

/// Maps each element of a broadcast result to the elements of two operands
/// (numpy rules; the compiler has verified the shapes).
struct Broadcast {
  std::vector<int64_t> shape;
  std::vector<uint64_t> lhsStrides, rhsStrides;

  static Status create(const std::string &op, const std::vector<int64_t> &lhs,
                       const std::vector<int64_t> &rhs,
                       const std::vector<int64_t> &result, Broadcast &out) {
    size_t rank = std::max(lhs.size(), rhs.size());
    out.shape.assign(rank, 1);
    out.lhsStrides.assign(rank, 0);
    out.rhsStrides.assign(rank, 0);
    auto strides = [&](const std::vector<int64_t> &shape,
                       std::vector<uint64_t> &strides) {
      uint64_t stride = 1;
      for (size_t i = 0; i < shape.size(); ++i) {
        size_t axis = rank - 1 - i;
        int64_t d = shape[shape.size() - 1 - i];
        strides[axis] = d == 1 ? 0 : stride;
        stride *= static_cast<uint64_t>(d);
      }
    };
    strides(lhs, out.lhsStrides);
    strides(rhs, out.rhsStrides);
    for (size_t axis = 0; axis < rank; ++axis) {
      auto extent = [&](const std::vector<int64_t> &shape) -> int64_t {
        size_t pad = rank - shape.size();
        return axis < pad ? 1 : shape[axis - pad];
      };
      int64_t a = extent(lhs), b = extent(rhs);
      if (a != b && a != 1 && b != 1)
        return fail(op + ": shapes " + formatShape(lhs) + " and " +
                    formatShape(rhs) + " do not broadcast");
      out.shape[axis] = a == 1 ? b : a;
    }
    if (out.shape != result)
      return fail(op + ": result shape " + formatShape(result) +
                  " is not the broadcast " + formatShape(out.shape));
    return Status();
  }

  /// Calls `fn(resultIndex, lhsIndex, rhsIndex)` for every result element.
  template <typename Fn> void forEach(Fn fn) const {
    uint64_t count = countOf(shape);
    std::vector<int64_t> index(shape.size(), 0);
    uint64_t l = 0, r = 0;
    for (uint64_t i = 0; i < count; ++i) {
      fn(i, l, r);
      for (size_t axis = shape.size(); axis-- > 0;) {
        if (++index[axis] < shape[axis]) {
          l += lhsStrides[axis];
          r += rhsStrides[axis];
          break;
        }
        l -= lhsStrides[axis] * static_cast<uint64_t>(shape[axis] - 1);
        r -= rhsStrides[axis] * static_cast<uint64_t>(shape[axis] - 1);
        index[axis] = 0;
      }
    }
  }
};

std::string_view view(const ms_string_t &s) {
  return s.size ? std::string_view(s.data, s.size) : std::string_view();
}

/// Points `out` at the strings of `scratch` (which must not change after).
void publish(const HostScratch &scratch, ms_string_t *out) {
  for (size_t i = 0; i < scratch.strings.size(); ++i)
    out[i] = ms_string_t{scratch.strings[i].data(), scratch.strings[i].size()};
}

//===----------------------------------------------------------------------===//
// Unicode case mapping
//===----------------------------------------------------------------------===//

/// The C.UTF-8 locale for towupper_l/towlower_l, or 0 when the C library has
/// none (then only ASCII letters change case).
locale_t utf8Locale() {
  static locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(0));
  return locale;
}

/// Returns `s` with every code point upper- (or lower-) cased; bytes that
/// are not valid UTF-8 are kept as they are.
std::string changeCase(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  locale_t locale = utf8Locale();
  for (size_t i = 0; i < s.size();) {
    char32_t c = 0;
    size_t length = decodeUtf8(s, i, c);
    if (length == 0) {
      out += s[i++];
      continue;
    }
    i += length;
    if (locale)
      c = static_cast<char32_t>(upper ? towupper_l(static_cast<wint_t>(c), locale)
                                      : towlower_l(static_cast<wint_t>(c), locale));
    else if (c < 0x80)
      c = static_cast<char32_t>(upper ? std::toupper(static_cast<int>(c))
                                      : std::tolower(static_cast<int>(c)));
    encodeUtf8(c, out);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The operations
//===----------------------------------------------------------------------===//

/// msgraph.string_normalizer (ONNX StringNormalizer): drops stop words and
/// changes case; input [C] or [1, C], result [C'] or [1, C'] with C' the
/// number of words kept, or one empty string when none is.
class StringNormalizer final : public HostOp {
public:
  static Status create(const HostSignature &signature, const Json &attrs,
                       std::shared_ptr<const HostOp> &out) {
    const std::string name = "msgraph.string_normalizer";
    MS_RETURN_IF_ERROR(checkArity(name, signature, {MS_DTYPE_STRING},
                                  {MS_DTYPE_STRING}));
    auto op = std::make_shared<StringNormalizer>();
    op->inputShape = signature.shapes[0];
    const std::vector<int64_t> &result = signature.shapes[1];
    size_t rank = op->inputShape.size();
    if (rank < 1 || rank > 2 || (rank == 2 && op->inputShape[0] != 1) ||
        result.size() != rank || (rank == 2 && result[0] != 1))
      return fail(name + ": expected shapes [C] or [1,C] to [?] or [1,?], "
                         "found " +
                  formatShape(op->inputShape) + " to " + formatShape(result));
    op->dynamic = hasDynamicExtent(result);
    std::string action = "NONE";
    bool caseSensitive = false;
    std::vector<std::string> stopwords;
    MS_RETURN_IF_ERROR(readAttr(name, attrs, "case_change_action", action));
    MS_RETURN_IF_ERROR(
        readAttr(name, attrs, "is_case_sensitive", caseSensitive));
    MS_RETURN_IF_ERROR(readAttr(name, attrs, "stopwords", stopwords));
    if (action != "NONE" && action != "LOWER" && action != "UPPER")
      return fail(name + ": case_change_action is \"" + action +
                  "\", expected NONE, LOWER or UPPER");
    op->action = action == "UPPER" ? 1 : action == "LOWER" ? -1 : 0;
    op->caseSensitive = caseSensitive;
    for (const std::string &word : stopwords)
      op->stopwords.insert(op->caseSensitive ? word : changeCase(word, false));
    if (!op->dynamic && countOf(result) != op->capacityCount())
      return fail(name + ": a static result shape must hold every word");
    out = std::move(op);
    return Status();
  }

  uint64_t resultCapacity(size_t) const override {
    return capacityCount() * sizeof(ms_string_t);
  }

  Status run(void *const *args) const override {
    const auto *in = static_cast<const ms_string_t *>(args[0]);
    auto *out = static_cast<ms_string_t *>(args[1]);
    auto *shape = dynamic ? static_cast<int64_t *>(args[2]) : nullptr;
    auto *scratch = static_cast<HostScratch *>(args[dynamic ? 3 : 2]);
    scratch->strings.clear();
    uint64_t count = countOf(inputShape);
    for (uint64_t i = 0; i < count; ++i) {
      std::string_view word = view(in[i]);
      if (!stopwords.empty() &&
          stopwords.count(caseSensitive ? std::string(word)
                                        : changeCase(word, false)))
        continue;
      scratch->strings.push_back(action == 0 ? std::string(word)
                                             : changeCase(word, action > 0));
    }
    if (scratch->strings.empty())
      scratch->strings.emplace_back();
    publish(*scratch, out);
    if (shape) {
      if (inputShape.size() == 2)
        *shape++ = 1;
      *shape = static_cast<int64_t>(scratch->strings.size());
    }
    return Status();
  }

private:
  uint64_t capacityCount() const { return std::max<uint64_t>(1, countOf(inputShape)); }

  std::vector<int64_t> inputShape;
  bool dynamic = false;
  int action = 0;
  bool caseSensitive = false;
  std::unordered_set<std::string> stopwords;
};

/// msgraph.string_equal and msgraph.string_concat: broadcasting binary ops.
class StringBinary final : public HostOp {
public:
  static Status create(bool concat, const HostSignature &signature,
                       std::shared_ptr<const HostOp> &out) {
    std::string name = concat ? "msgraph.string_concat" : "msgraph.string_equal";
    MS_RETURN_IF_ERROR(checkArity(name, signature,
                                  {MS_DTYPE_STRING, MS_DTYPE_STRING},
                                  {concat ? MS_DTYPE_STRING : MS_DTYPE_BOOL}));
    auto op = std::make_shared<StringBinary>();
    op->concat = concat;
    MS_RETURN_IF_ERROR(Broadcast::create(name, signature.shapes[0],
                                         signature.shapes[1],
                                         signature.shapes[2], op->broadcast));
    out = std::move(op);
    return Status();
  }

  uint64_t resultCapacity(size_t) const override {
    return countOf(broadcast.shape) * (concat ? sizeof(ms_string_t) : 1);
  }

  Status run(void *const *args) const override {
    const auto *lhs = static_cast<const ms_string_t *>(args[0]);
    const auto *rhs = static_cast<const ms_string_t *>(args[1]);
    if (!concat) {
      auto *out = static_cast<uint8_t *>(args[2]);
      broadcast.forEach([&](uint64_t i, uint64_t l, uint64_t r) {
        out[i] = view(lhs[l]) == view(rhs[r]);
      });
      return Status();
    }
    auto *out = static_cast<ms_string_t *>(args[2]);
    auto *scratch = static_cast<HostScratch *>(args[3]);
    scratch->strings.resize(countOf(broadcast.shape));
    broadcast.forEach([&](uint64_t i, uint64_t l, uint64_t r) {
      std::string &s = scratch->strings[i];
      s.assign(view(lhs[l]));
      s.append(view(rhs[r]));
    });
    publish(*scratch, out);
    return Status();
  }

private:
  bool concat = false;
  Broadcast broadcast;
};
} // namespace

Status ms::rt::impl::createHostOp(const std::string &name,
                                  const HostSignature &signature,
                                  const Json &attrs,
                                  std::shared_ptr<const HostOp> &out) {
  out.reset();
  if (!attrs.is_object())
    return fail(name + ": \"attrs\" is not an object");
  if (name == "msgraph.string_normalizer")
    return StringNormalizer::create(signature, attrs, out);
  if (name == "msgraph.string_equal")
    return StringBinary::create(false, signature, out);
  if (name == "msgraph.string_concat")
    return StringBinary::create(true, signature, out);
  return Status::error(MS_UNIMPLEMENTED,
                       "unknown host op \"" + name +
                           "\" (this runtime implements msgraph.string_concat, "
                           "msgraph.string_equal and "
                           "msgraph.string_normalizer)");
}
