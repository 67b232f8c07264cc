//===- StringOps.cpp - ONNX string ops to msgraph -------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// String tensors become tensors of !msgraph.string; the ops on them are
// executed by the runtime (plan steps of kind "host").
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;

bool mlir::ms::onnx_importer::isStringTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<graph::StringType>(type.getElementType());
}

/// StringNormalizer (opset 10).
static Results convertStringNormalizer(NodeContext &c) {
  if (!isStringTensor(c.input(0)))
    return c.error() << "expected a string input, but found "
                     << c.input(0).getType();
  SmallVector<Attribute> stopwords;
  if (const onnx::AttributeProto *attr = c.attr("stopwords"))
    for (const std::string &word : attr->strings())
      stopwords.push_back(c.b.getStringAttr(word));
  return one(c.create<graph::StringNormalizerOp>(
      Type(), c.input(0),
      c.b.getStringAttr(c.getString("case_change_action", "NONE")),
      c.b.getBoolAttr(c.getInt("is_case_sensitive", 0) != 0),
      c.b.getArrayAttr(stopwords),
      c.b.getStringAttr(c.getString("locale", ""))));
}

/// StringConcat (opset 20).
static Results convertStringConcat(NodeContext &c) {
  return one(
      c.create<graph::StringConcatOp>(Type(), c.input(0), c.input(1)));
}

void mlir::ms::onnx_importer::populateStringOps(OpTable &t) {
  t.onOp("StringNormalizer", 10, convertStringNormalizer);
  t.onOp("StringConcat", 20, convertStringConcat);
}
