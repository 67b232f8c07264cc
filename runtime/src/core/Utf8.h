//===- Utf8.h - UTF-8 encoding and decoding ---------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_UTF8_H
#define MS_RUNTIME_CORE_UTF8_H

#include <cstddef>
#include <string>
#include <string_view>

namespace ms::rt::impl {
/// Decodes the UTF-8 code point at `s[i]` into `out`; returns its length in
/// bytes, or 0 for an invalid, overlong or truncated sequence.
inline size_t decodeUtf8(std::string_view s, size_t i, char32_t &out) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  size_t length = b < 0x80           ? 1
                  : (b >> 5) == 6    ? 2
                  : (b >> 4) == 14   ? 3
                  : (b >> 3) == 30   ? 4
                                     : 0;
  if (length == 0 || i + length > s.size())
    return 0;
  char32_t c = length == 1 ? b : b & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  static const char32_t lowest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < lowest[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return 0;
  out = c;
  return length;
}

/// Returns true when `c` is a Unicode scalar value (encodable in UTF-8).
inline bool isScalarValue(char32_t c) {
  return c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF);
}

/// Appends the UTF-8 encoding of the scalar value `c` to `out`.
inline void encodeUtf8(char32_t c, std::string &out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_UTF8_H
