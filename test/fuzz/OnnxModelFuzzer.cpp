//===- OnnxModelFuzzer.cpp - fuzz the ONNX importer from bytes ------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Imports the bytes as an ONNX model, verifies the result and runs the
// graph phase of the compile pipeline on it, as ms-compile does. Errors are
// expected; crashes, hangs and sanitizer reports are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "ms/Importer/ONNX/OnnxImporter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  msfuzz::importAndCompile(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  return 0;
}
