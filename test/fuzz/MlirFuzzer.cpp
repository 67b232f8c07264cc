//===- MlirFuzzer.cpp - fuzz the MLIR input of ms-opt / ms-compile --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Parses the bytes as MLIR (as ms-compile reads a .mlir input), then runs
// the verifier and the graph phase of the compile pipeline.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  // Upstream MLIR 22's parser crashes on some dense arrays with an index
  // element type (`array<index: 2, 2>`); ms-compile screens them out first.
  if (msfuzz::hasKnownParserCrash(text))
    return 0;
  mlir::ParserConfig config(&msfuzz::context());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config);
  if (module)
    msfuzz::runGraphPhase(*module);
  return 0;
}
