//===- InputScreen.cpp - screening inputs upstream code crashes on --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Tools/InputScreen.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Regex.h"

using namespace mlir;

/// Whether `type` spells an integer or float type (what a dense array may
/// hold).
static bool isIntOrFloatTypeName(llvm::StringRef type) {
  static const llvm::Regex pattern(
      "^((s|u)?i[0-9]+|f16|bf16|tf32|f32|f64|f80|f128|f4E[0-9A-Za-z]+|"
      "f6E[0-9A-Za-z]+|f8E[0-9A-Za-z]+)$");
  return pattern.match(type);
}

std::string mlir::ms::screenMlirSource(llvm::StringRef text,
                                       llvm::StringRef filename) {
  size_t at = 0;
  while ((at = text.find("array<", at)) != llvm::StringRef::npos) {
    size_t begin = at + 6;
    at = begin;
    // Only the `array<type: ...>` and `array<type>` forms.
    if (begin >= 7 && (isalnum(text[begin - 7]) || text[begin - 7] == '_'))
      continue;
    llvm::StringRef rest = text.substr(begin);
    size_t end = rest.find_first_of(":>");
    if (end == llvm::StringRef::npos)
      break;
    llvm::StringRef type = rest.take_front(end).trim();
    if (type.empty() || rest[end] != ':' || isIntOrFloatTypeName(type))
      continue;
    llvm::StringRef before = text.take_front(begin);
    size_t line = before.count('\n') + 1;
    size_t column = begin - (before.rfind('\n') + 1) - 5;
    return (llvm::Twine(filename) + ":" + llvm::Twine(line) + ":" + llvm::Twine(column) +
            ": error: expected an integer or float element type in a dense "
            "array, but found '" +
            type + "'")
        .str();
  }
  return "";
}
