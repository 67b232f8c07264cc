//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The format (numpy/lib/format.py): "\x93NUMPY", major and minor version
// bytes, a little-endian header length (u16 for 1.0, u32 for 2.0 and 3.0),
// then a Python dict literal with the keys 'descr', 'fortran_order' and
// 'shape', padded with spaces and ending in '\n', then the raw data.
//
//===----------------------------------------------------------------------===//

#include "ms/runtime/Npy.h"

#include "core/Utf8.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ms::rt;
using ms::rt::impl::decodeUtf8;
using ms::rt::impl::encodeUtf8;
using ms::rt::impl::isScalarValue;

namespace {
/// The 6 bytes every .npy file starts with.
constexpr char kNpyMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/// The .npy type code (descr less its byte order) of each dtype (DTypes.def).
struct NpyCode {
  ms_dtype_t dtype;
  const char *code;
};
constexpr NpyCode npyCodes[] = {
#define MS_DTYPE(ENUM, NAME, SIZE, KIND, BITS, NUMPY, NPY, FORMATS)            \
  {MS_DTYPE_##ENUM, NPY},
#include "ms/runtime/DTypes.def"
};

/// The .npy descr of each dtype ("<f4", "|u1", ...); empty when NumPy has
/// none.
std::string descrOf(ms_dtype_t dtype) {
  for (const NpyCode &entry : npyCodes)
    if (entry.dtype == dtype && *entry.code)
      return (ms_dtype_size(dtype) > 1 ? "<" : "|") + std::string(entry.code);
  return "";
}

/// Parses the header dict literal of a .npy file.
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &name)
      : text(text), name(name) {}

  /// Parses the dict into `dtype`, `shape`, checking fortran_order.
  Status parse(ms_dtype_t &dtype, std::vector<int64_t> &shape) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    if (!consume('{'))
      return fail("expected '{'");
    while (!consume('}')) {
      std::string key;
      if (!readString(key))
        return fail("expected a quoted key");
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'");
      if (key == "descr") {
        std::string descr;
        skipSpace();
        if (pos < text.size() && text[pos] == '[')
          return fail("structured dtypes are not supported");
        if (!readString(descr))
          return fail("expected a string for 'descr'");
        if (Status status = parseDescr(descr, dtype); !status.ok())
          return status;
        haveDescr = true;
      } else if (key == "fortran_order") {
        bool fortran = false;
        if (consume("True"))
          fortran = true;
        else if (!consume("False"))
          return fail("expected True or False for 'fortran_order'");
        if (fortran)
          return fail("Fortran-order arrays are not supported; save the "
                      "array in C order");
        haveOrder = true;
      } else if (key == "shape") {
        if (Status status = readShape(shape); !status.ok())
          return status;
        haveShape = true;
      } else {
        return fail("unexpected key '" + key + "'");
      }
      if (!consume(',')) {
        if (!consume('}'))
          return fail("expected ',' or '}'");
        break;
      }
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the header dict");
    if (!haveDescr || !haveOrder || !haveShape)
      return fail("the header must have 'descr', 'fortran_order' and "
                  "'shape'");
    return Status();
  }

private:
  /// Returns a header failure.
  Status fail(const std::string &problem) const {
    return Status::error(MS_INVALID_ARGUMENT,
                         name + ": bad .npy header: " + problem);
  }

  /// Skips spaces, tabs and newlines.
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  /// Consumes `c` after optional space.
  bool consume(char c) {
    skipSpace();
    if (pos >= text.size() || text[pos] != c)
      return false;
    ++pos;
    return true;
  }

  /// Consumes the word `word` after optional space.
  bool consume(const char *word) {
    skipSpace();
    size_t length = std::strlen(word);
    if (text.compare(pos, length, word) != 0)
      return false;
    pos += length;
    return true;
  }

  /// Reads a quoted string without escapes.
  bool readString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }

  /// Reads a tuple of non-negative integers.
  Status readShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!consume('('))
      return fail("expected a tuple for 'shape'");
    while (!consume(')')) {
      skipSpace();
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        return fail("expected a non-negative integer in 'shape'");
      uint64_t value = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        value = value * 10 + uint64_t(text[pos++] - '0');
        if (value > uint64_t(INT64_MAX))
          return fail("dimension too large in 'shape'");
      }
      // Python 2 wrote longs as "3L".
      if (pos < text.size() && text[pos] == 'L')
        ++pos;
      if (shape.size() == 64)
        return fail("too many dimensions in 'shape'");
      shape.push_back(static_cast<int64_t>(value));
      if (!consume(',')) {
        if (!consume(')'))
          return fail("expected ',' or ')' in 'shape'");
        break;
      }
    }
    return Status();
  }

public:
  /// For a string dtype: characters per element, and whether they are
  /// UTF-32 code points ('U') rather than bytes ('S').
  uint64_t stringWidth = 0;
  bool unicode = false;

private:
  /// Maps a descr such as "<f4" to a dtype.
  Status parseDescr(const std::string &descr, ms_dtype_t &dtype) {
    std::string code = descr;
    char order = '=';
    if (!code.empty() && std::strchr("<>|=", code[0])) {
      order = code[0];
      code.erase(0, 1);
    }
    if (!code.empty() && (code[0] == 'U' || code[0] == 'S') &&
        code.size() > 1 && code.size() < 12 &&
        code.find_first_not_of("0123456789", 1) == std::string::npos) {
      unicode = code[0] == 'U';
      if (unicode && order == '>')
        return fail("big-endian dtype '" + descr +
                    "' is not supported; save the array little-endian");
      stringWidth = std::stoull(code.substr(1));
      dtype = MS_DTYPE_STRING;
      return Status();
    }
    if (code == "?") // NumPy's character code for bool.
      code = "b1";
    for (const NpyCode &entry : npyCodes) {
      if (!*entry.code || code != entry.code)
        continue;
      if (order == '>' && ms_dtype_size(entry.dtype) > 1)
        return fail("big-endian dtype '" + descr +
                    "' is not supported; save the array little-endian");
      dtype = entry.dtype;
      return Status();
    }
    return fail("unsupported dtype '" + descr + "'");
  }

  /// The header text.
  const std::string &text;
  /// The file name for messages.
  const std::string &name;
  /// The parse position.
  size_t pos = 0;
};

/// Formats the shape as a Python tuple.
std::string shapeTuple(const int64_t *shape, size_t rank) {
  std::string text = "(";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  if (rank == 1)
    text += ",";
  return text + ")";
}
} // namespace

Status ms::rt::parseNpy(const void *bytes, size_t size, const std::string &name,
                        NpyArray &out) {
  try {
    out = NpyArray();
    const auto *data = static_cast<const uint8_t *>(bytes);
    if (size < 10 || std::memcmp(data, kNpyMagic, sizeof(kNpyMagic)) != 0)
      return Status::error(MS_INVALID_ARGUMENT,
                           name + ": not a .npy file (bad magic)");
    uint8_t major = data[6];
    size_t prefix = major == 1 ? 10 : 12;
    if (major < 1 || major > 3 || data[7] != 0)
      return Status::error(MS_UNIMPLEMENTED, name +
                                                 ": unsupported .npy version " +
                                                 std::to_string(major) + "." +
                                                 std::to_string(data[7]));
    if (size < prefix)
      return Status::error(MS_INVALID_ARGUMENT,
                           name + ": truncated .npy header");
    uint64_t headerLength =
        major == 1 ? uint64_t(data[8]) | uint64_t(data[9]) << 8
                   : uint64_t(data[8]) | uint64_t(data[9]) << 8 |
                         uint64_t(data[10]) << 16 | uint64_t(data[11]) << 24;
    if (headerLength > size - prefix)
      return Status::error(MS_INVALID_ARGUMENT,
                           name + ": .npy header length " +
                               std::to_string(headerLength) +
                               " exceeds the file");
    std::string header(reinterpret_cast<const char *>(data + prefix),
                       headerLength);
    HeaderParser parser(header, name);
    if (Status status = parser.parse(out.dtype, out.shape); !status.ok())
      return status;

    bool strings = out.dtype == MS_DTYPE_STRING;
    uint64_t item = strings ? parser.stringWidth * (parser.unicode ? 4 : 1)
                            : ms_dtype_size(out.dtype);
    uint64_t expected = item;
    for (int64_t dim : out.shape)
      if (__builtin_mul_overflow(expected, uint64_t(dim), &expected))
        return Status::error(MS_INVALID_ARGUMENT,
                             name + ": .npy array size overflows");
    uint64_t available = size - prefix - headerLength;
    if (available != expected)
      return Status::error(
          MS_INVALID_ARGUMENT,
          name + ": .npy data is " + std::to_string(available) +
              " bytes, expected " + std::to_string(expected) + " for " +
              formatTensorType(out.dtype, out.shape.data(), out.shape.size()));
    const uint8_t *payload = data + prefix + headerLength;
    if (!strings) {
      out.data.assign(payload, payload + expected);
      return Status();
    }
    // Strings: fixed-width elements padded with NULs, UTF-32LE code points
    // ('U') or bytes ('S'); kept as UTF-8.
    uint64_t count = item ? expected / item : 1;
    for (int64_t dim : out.shape)
      if (dim == 0)
        count = 0;
    out.strings.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
      const uint8_t *element = payload + i * item;
      std::string text;
      for (uint64_t k = 0; k < parser.stringWidth; ++k) {
        if (!parser.unicode) {
          text += static_cast<char>(element[k]);
          continue;
        }
        char32_t c = char32_t(element[4 * k]) | char32_t(element[4 * k + 1]) << 8 |
                     char32_t(element[4 * k + 2]) << 16 |
                     char32_t(element[4 * k + 3]) << 24;
        if (!isScalarValue(c))
          return Status::error(MS_INVALID_ARGUMENT,
                               name + ": element " + std::to_string(i) +
                                   " holds an invalid code point");
        encodeUtf8(c, text);
      }
      // NumPy drops trailing NULs.
      while (!text.empty() && text.back() == '\0')
        text.pop_back();
      out.strings.push_back(std::move(text));
    }
    return Status();
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL, name + ": out of memory reading .npy");
  }
}

Status ms::rt::readNpy(const std::string &path, NpyArray &out) {
  out = NpyArray();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error(errno == ENOENT ? MS_NOT_FOUND : MS_UNAVAILABLE,
                         path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  Status status;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    status = Status::error(MS_UNAVAILABLE,
                           path + ": cannot stat: " + std::strerror(errno));
  } else if (!S_ISREG(info.st_mode)) {
    status = Status::error(MS_INVALID_ARGUMENT, path + ": not a regular file");
  } else {
    try {
      bytes.resize(static_cast<size_t>(info.st_size));
    } catch (const std::bad_alloc &) {
      status = Status::error(MS_INTERNAL, path + ": out of memory");
    }
    size_t done = 0;
    while (status.ok() && done < bytes.size()) {
      ssize_t got = read(fd, bytes.data() + done, bytes.size() - done);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        status = Status::error(MS_UNAVAILABLE,
                               path + ": read failed: " + std::strerror(errno));
      else if (got == 0)
        status = Status::error(MS_DATA_LOSS,
                               path + ": file shrank while being read");
      else
        done += static_cast<size_t>(got);
    }
  }
  close(fd);
  if (!status.ok())
    return status;
  return parseNpy(bytes.data(), bytes.size(), path, out);
}

/// Encodes a string tensor (ms_string_t elements of UTF-8) as a '<U' array.
static Status encodeStringNpy(const int64_t *shape, size_t rank,
                              const void *data, size_t size,
                              std::vector<uint8_t> &out) {
  if (rank > 0 && !shape)
    return Status::error(MS_INVALID_ARGUMENT, "shape is NULL");
  uint64_t count = 1;
  for (size_t i = 0; i < rank; ++i)
    if (shape[i] < 0 ||
        __builtin_mul_overflow(count, uint64_t(shape[i]), &count))
      return Status::error(MS_INVALID_ARGUMENT, "invalid shape");
  if (count > size / sizeof(ms_string_t) || count * sizeof(ms_string_t) != size)
    return Status::error(MS_INVALID_ARGUMENT,
                         "data is " + std::to_string(size) +
                             " bytes, expected " +
                             std::to_string(count * sizeof(ms_string_t)));
  if (!data && size > 0)
    return Status::error(MS_INVALID_ARGUMENT, "data is NULL");
  const auto *elements = static_cast<const ms_string_t *>(data);
  std::vector<std::u32string> decoded(count);
  uint64_t width = 1;
  for (uint64_t i = 0; i < count; ++i) {
    if (elements[i].size && !elements[i].data)
      return Status::error(MS_INVALID_ARGUMENT,
                           "string element " + std::to_string(i) +
                               " has NULL data");
    std::string_view text(elements[i].size ? elements[i].data : "",
                          elements[i].size);
    for (size_t k = 0; k < text.size();) {
      char32_t c = 0;
      size_t length = decodeUtf8(text, k, c);
      if (length == 0)
        return Status::error(MS_INVALID_ARGUMENT,
                             "string element " + std::to_string(i) +
                                 " is not valid UTF-8 at byte " +
                                 std::to_string(k));
      decoded[i] += c;
      k += length;
    }
    width = std::max<uint64_t>(width, decoded[i].size());
  }
  std::string descr = "<U" + std::to_string(width);
  std::vector<uint8_t> payload(count * width * 4, 0);
  for (uint64_t i = 0; i < count; ++i)
    for (size_t k = 0; k < decoded[i].size(); ++k) {
      uint8_t *at = payload.data() + (i * width + k) * 4;
      char32_t c = decoded[i][k];
      at[0] = uint8_t(c);
      at[1] = uint8_t(c >> 8);
      at[2] = uint8_t(c >> 16);
      at[3] = uint8_t(c >> 24);
    }
  std::string header =
      "{'descr': '" + descr +
      "', 'fortran_order': False, 'shape': " + shapeTuple(shape, rank) + ", }";
  size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  if (header.size() > 0xffff)
    return Status::error(MS_INVALID_ARGUMENT,
                         "shape too long for a version 1.0 .npy header");
  out.insert(out.end(), kNpyMagic, kNpyMagic + sizeof(kNpyMagic));
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return Status();
}

Status ms::rt::encodeNpy(ms_dtype_t dtype, const int64_t *shape, size_t rank,
                         const void *data, size_t size,
                         std::vector<uint8_t> &out) {
  try {
    out.clear();
    if (dtype == MS_DTYPE_STRING)
      return encodeStringNpy(shape, rank, data, size, out);
    std::string descr = descrOf(dtype);
    if (descr.empty())
      return Status::error(MS_INVALID_ARGUMENT, std::string("dtype ") +
                                                    ms_dtype_name(dtype) +
                                                    " has no NumPy equivalent");
    if (rank > 0 && !shape)
      return Status::error(MS_INVALID_ARGUMENT, "shape is NULL");
    uint64_t expected = ms_dtype_size(dtype);
    for (size_t i = 0; i < rank; ++i)
      if (shape[i] < 0 ||
          __builtin_mul_overflow(expected, uint64_t(shape[i]), &expected))
        return Status::error(MS_INVALID_ARGUMENT, "invalid shape");
    if (expected != size)
      return Status::error(MS_INVALID_ARGUMENT,
                           "data is " + std::to_string(size) +
                               " bytes, expected " + std::to_string(expected));
    if (!data && size > 0)
      return Status::error(MS_INVALID_ARGUMENT, "data is NULL");
    std::string header =
        std::string("{'descr': '") + descr +
        "', 'fortran_order': False, 'shape': " + shapeTuple(shape, rank) +
        ", }";
    // Pad with spaces so the data starts 64-byte aligned; end with '\n'.
    size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
    header.append(total - 10 - header.size() - 1, ' ');
    header += '\n';
    if (header.size() > 0xffff)
      return Status::error(MS_INVALID_ARGUMENT,
                           "shape too long for a version 1.0 .npy header");
    out.reserve(total + size);
    out.insert(out.end(), kNpyMagic, kNpyMagic + sizeof(kNpyMagic));
    out.push_back(1);
    out.push_back(0);
    out.push_back(static_cast<uint8_t>(header.size() & 0xff));
    out.push_back(static_cast<uint8_t>(header.size() >> 8));
    out.insert(out.end(), header.begin(), header.end());
    const auto *bytes = static_cast<const uint8_t *>(data);
    if (size > 0)
      out.insert(out.end(), bytes, bytes + size);
    return Status();
  } catch (const std::bad_alloc &) {
    return Status::error(MS_INTERNAL, "out of memory encoding .npy");
  }
}

Status ms::rt::writeNpy(const std::string &path, ms_dtype_t dtype,
                        const int64_t *shape, size_t rank, const void *data,
                        size_t size) {
  std::vector<uint8_t> bytes;
  if (Status status = encodeNpy(dtype, shape, rank, data, size, bytes);
      !status.ok())
    return Status::error(status.code(), path + ": " + status.message());
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return Status::error(MS_UNAVAILABLE,
                         path + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  int savedErrno = errno;
  if (std::fclose(file) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    std::remove(path.c_str());
    return Status::error(MS_UNAVAILABLE,
                         path + ": write failed: " + std::strerror(savedErrno));
  }
  return Status();
}
