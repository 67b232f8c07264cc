//===- FuzzCommon.cpp - shared by the compiler fuzz targets ---------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "ms/Importer/ONNX/OnnxImporter.h"
#include "ms/InitAll.h"
#include "ms/Pipelines/Pipelines.h"
#include "ms/Tools/InputScreen.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

MLIRContext &msfuzz::context() {
  // A fresh context every 1000 inputs: uniqued types and attributes would
  // otherwise grow without bound over millions of runs.
  static std::unique_ptr<MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % 1000 == 0) {
    DialectRegistry registry;
    mlir::ms::registerAllDialects(registry);
    ctx = std::make_unique<MLIRContext>(registry,
                                        MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    // MS_FUZZ_DIAGNOSTICS=1 prints them (to see what inputs reach).
    static const bool print = std::getenv("MS_FUZZ_DIAGNOSTICS") != nullptr;
    ctx->getDiagEngine().registerHandler([](Diagnostic &diag) {
      if (print)
        llvm::errs() << diag << "\n";
      return success();
    });
  }
  return *ctx;
}

void msfuzz::runGraphPhase(ModuleOp module) {
  if (failed(verify(module)))
    return;
  PassManager pm(module->getName());
  mlir::ms::CompileOptions options;
  options.compileTo = "graph";
  std::string error;
  if (failed(mlir::ms::buildCompilePipeline(pm, options, error)))
    return;
  (void)pm.run(module);
}

void msfuzz::importAndCompile(llvm::StringRef bytes) {
  MLIRContext &ctx = context();
  mlir::ms::OnnxImportOptions options;
  OwningOpRef<ModuleOp> module =
      mlir::ms::importOnnxModel(bytes, "fuzz.onnx", &ctx, options);
  if (module)
    runGraphPhase(*module);
}

bool msfuzz::hasKnownParserCrash(llvm::StringRef text) {
  return !mlir::ms::screenMlirSource(text, "fuzz.mlir").empty();
}
