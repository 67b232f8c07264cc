//===- OptMain.cpp - entry point of ms-opt --------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Tools/OptMain.h"

#include "ms/InitAll.h"
#include "ms/Tools/InputScreen.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

int mlir::ms::msOptMain(int argc, char **argv) {
  registerAllPasses();
  DialectRegistry registry;
  registerAllDialects(registry);
  auto [input, output] =
      registerAndParseCLIOptions(argc, argv, "ms optimizer driver\n", registry);
  // Screen a named file for what upstream's parser crashes on (standard
  // input cannot be read twice).
  if (input != "-") {
    std::string error;
    if (std::unique_ptr<llvm::MemoryBuffer> file =
            openInputFile(input, &error)) {
      std::string problem = screenMlirSource(file->getBuffer(), input);
      if (!problem.empty()) {
        llvm::errs() << problem << "\n";
        return 1;
      }
    }
  }
  return asMainReturnCode(MlirOptMain(argc, argv, input, output, registry));
}
