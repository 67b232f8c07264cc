//===- GraphToLinalg.h - msgraph to linalg conversion -----------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_CONVERSION_GRAPHTOLINALG_GRAPHTOLINALG_H
#define MS_CONVERSION_GRAPHTOLINALG_GRAPHTOLINALG_H

#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace ms {

#define GEN_PASS_DECL_CONVERTGRAPHTOLINALGPASS
#include "ms/Conversion/Passes.h.inc"

/// Converts ranked tensors of unsigned integers to signless ones (the
/// lowered code keeps signedness in the choice of arith ops).
class GraphTypeConverter : public TypeConverter {
public:
  GraphTypeConverter();
};

/// Elementwise ops (unary, broadcasting binary, comparisons, where, cast).
void populateGraphElementwiseToLinalgPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns);
/// Reductions, arg-reductions, softmax and log_softmax.
void populateGraphReductionToLinalgPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns);
/// matmul, conv, conv_transpose, pooling and the normalizations.
void populateGraphLinearToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// attention as a tiled online-softmax loop nest (flash attention).
///
/// Its product of the probabilities and V (`acc += p v`) carries the unit
/// attribute kProbabilitiesAttrName: its lhs holds probabilities (in
/// [0, 1]), which a target may round to V's half type to multiply them on
/// tensor cores, as flash attention does.
///
/// K is transposed once so that the score product walks a key row, as a
/// thread or vector lane per score reads it; with `tensorCoreLayout`, half
/// (f16, bf16) attention keeps K as given and transposes V instead, so that
/// both products sum over their operands' innermost dimension, where a
/// tensor core's lane reads two adjacent terms as one access.
void populateGraphAttentionToLinalgPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            bool tensorCoreLayout = false);
/// The attribute marking attention's product of probabilities and V.
inline constexpr llvm::StringLiteral kProbabilitiesAttrName =
    "ms.probabilities";
/// Data movement and constants: reshape, transpose, concat, slice, gather,
/// expand, tile, pad, resize, shape, constant, constant_of_shape, range.
void populateGraphDataMovementToLinalgPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns);

/// All of the above, as `options` choose.
void populateGraphToLinalgConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const ConvertGraphToLinalgPassOptions &options = {});
} // namespace ms
} // namespace mlir

#endif // MS_CONVERSION_GRAPHTOLINALG_GRAPHTOLINALG_H
