//===- GraphToLinalg.cpp - the convert-msgraph-to-linalg pass -------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"

#include "Utils.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CONVERTGRAPHTOLINALGPASS
#include "ms/Conversion/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

mlir::ms::GraphTypeConverter::GraphTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type {
    auto intType = dyn_cast<IntegerType>(type.getElementType());
    if (!intType || intType.isSignless())
      return type;
    return RankedTensorType::get(
        type.getShape(),
        IntegerType::get(type.getContext(), intType.getWidth()),
        type.getEncoding());
  });
  // Values crossing an unconverted boundary keep their bits.
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) -> Value {
    if (inputs.size() != 1)
      return Value();
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

void mlir::ms::populateGraphToLinalgConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const ConvertGraphToLinalgPassOptions &options) {
  populateGraphElementwiseToLinalgPatterns(converter, patterns);
  populateGraphReductionToLinalgPatterns(converter, patterns);
  populateGraphLinearToLinalgPatterns(converter, patterns);
  populateGraphAttentionToLinalgPatterns(converter, patterns,
                                         options.tensorCoreAttention);
  populateGraphDataMovementToLinalgPatterns(converter, patterns);
}

namespace {
struct ConvertGraphToLinalgPass final
    : ms::impl::ConvertGraphToLinalgPassBase<ConvertGraphToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto *dialect = ctx->getLoadedDialect<graph::GraphDialect>();

    // The lowering needs static shapes; say which value is dynamic.
    WalkResult dynamic = module.walk([&](Operation *op) {
      if (op->getDialect() != dialect)
        return WalkResult::advance();
      for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                                op->getResultTypes())) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (tensor && !tensor.hasStaticShape()) {
          op->emitOpError("expected static shapes for code generation, but "
                          "found ")
              << tensor << "; pin the dynamic dimensions first";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();

    GraphTypeConverter converter;
    RewritePatternSet patterns(ctx);
    populateGraphToLinalgConversionPatterns(converter, patterns,
                                            {tensorCoreAttention});
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<graph::GraphDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
