//===- OnnxNodeFuzzer.cpp - fuzz the ONNX op converters node by node ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A structure-aware fuzzer: the bytes choose a one-node ONNX model (an op
// from the schema table, the opset, how many inputs, each one's element
// type, rank and dims, whether it is a constant and its values, and
// attributes: mostly the op's own names with mostly right types), which is
// serialized and imported as ms-compile would. Random bytes rarely parse as
// a model; this reaches every converter with odd arities, ranks, dtypes and
// attribute values, which is where converters crash.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "OnnxSchema.pb.h"

#include MS_FUZZED_DATA_PROVIDER

#include <algorithm>
#include <string>
#include <vector>

namespace onnx = ::ms::onnx;

namespace {
struct OpInfo {
  const char *op;
  int since, minInputs, maxInputs;
  const char *attributes;
};
constexpr OpInfo ops[] = {
#define MS_ONNX_SCHEMA(OP, SINCE, MIN_IN, MAX_IN, INS, MIN_OUT, MAX_OUT, OUTS,  \
                       ATTRS, CONS)                                            \
  {OP, SINCE, MIN_IN, MAX_IN, ATTRS},
#include "OnnxSchemas.inc"
};

constexpr int elementTypes[] = {
    onnx::TensorProto::FLOAT,  onnx::TensorProto::FLOAT,
    onnx::TensorProto::INT64,  onnx::TensorProto::INT32,
    onnx::TensorProto::BOOL,   onnx::TensorProto::UINT8,
    onnx::TensorProto::INT8,   onnx::TensorProto::FLOAT16,
    onnx::TensorProto::DOUBLE, onnx::TensorProto::STRING,
    onnx::TensorProto::BFLOAT16, onnx::TensorProto::UINT64};

/// An element type: mostly supported ones, sometimes not.
int elementType(FuzzedDataProvider &in) {
  // (An exhausted provider yields 0s: keep the rare case away from 0.)
  if (in.ConsumeIntegralInRange<int>(0, 31) == 31)
    return in.PickValueInArray({1000, 0, int(onnx::TensorProto::COMPLEX64)});
  return in.PickValueInArray(elementTypes);
}

const char *const strings[] = {"",        "NOTSET",   "SAME_UPPER", "VALID",
                               "constant", "reflect", "edge",       "DCR",
                               "CRD",     "linear",   "nearest",    "cubic",
                               "none",    "mean",     "sum",        "tanh",
                               "x",       "half_pixel", "asymmetric", "max"};

/// A dim: mostly small, sometimes 0, negative or huge.
int64_t dim(FuzzedDataProvider &in) {
  switch (in.ConsumeIntegralInRange<int>(0, 31)) {
  case 0:
    return 0;
  case 31:
    return -1;
  case 30:
    return in.ConsumeIntegral<int64_t>();
  default:
    return in.ConsumeIntegralInRange<int64_t>(1, 5);
  }
}

/// An integer attribute or constant value: mostly small.
int64_t smallInt(FuzzedDataProvider &in) {
  if (in.ConsumeIntegralInRange<int>(0, 9) == 0)
    return in.ConsumeIntegral<int64_t>();
  return in.ConsumeIntegralInRange<int64_t>(-4, 8);
}

void fillTensor(FuzzedDataProvider &in, onnx::TensorProto &t, int type,
                const std::vector<int64_t> &dims) {
  t.set_data_type(type);
  int64_t count = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    if (d > 0 && count < 64)
      count = d >= 64 ? 64 : count * d; // No overflow: at most 64 * 63.
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0)
    count = in.ConsumeIntegralInRange<int64_t>(0, 70); // A wrong count.
  count = std::min<int64_t>(count, 64);
  for (int64_t i = 0; i < count; ++i) {
    switch (type) {
    case onnx::TensorProto::FLOAT:
      t.add_float_data(in.ConsumeFloatingPoint<float>());
      break;
    case onnx::TensorProto::DOUBLE:
      t.add_double_data(in.ConsumeFloatingPoint<double>());
      break;
    case onnx::TensorProto::INT64:
      t.add_int64_data(smallInt(in));
      break;
    case onnx::TensorProto::STRING:
      t.add_string_data(in.ConsumeRandomLengthString(8));
      break;
    case onnx::TensorProto::UINT64:
      t.add_uint64_data(in.ConsumeIntegral<uint64_t>());
      break;
    default:
      t.add_int32_data(static_cast<int32_t>(smallInt(in)));
      break;
    }
  }
}

void addAttribute(FuzzedDataProvider &in, onnx::NodeProto &node,
                  const std::string &name, const std::string &type) {
  onnx::AttributeProto *a = node.add_attribute();
  a->set_name(name);
  std::string t = type;
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0)
    t = in.PickValueInArray({"INT", "FLOAT", "STRING", "INTS", "TENSOR"});
  if (t == "INT") {
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(smallInt(in));
  } else if (t == "FLOAT") {
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(in.ConsumeFloatingPoint<float>());
  } else if (t == "STRING") {
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(in.PickValueInArray(strings));
  } else if (t == "INTS") {
    a->set_type(onnx::AttributeProto::INTS);
    int n = in.ConsumeIntegralInRange<int>(0, 8);
    for (int i = 0; i < n; ++i)
      a->add_ints(smallInt(in));
  } else if (t == "FLOATS") {
    a->set_type(onnx::AttributeProto::FLOATS);
    int n = in.ConsumeIntegralInRange<int>(0, 6);
    for (int i = 0; i < n; ++i)
      a->add_floats(in.ConsumeFloatingPoint<float>());
  } else if (t == "STRINGS") {
    a->set_type(onnx::AttributeProto::STRINGS);
    int n = in.ConsumeIntegralInRange<int>(0, 4);
    for (int i = 0; i < n; ++i)
      a->add_strings(in.PickValueInArray(strings));
  } else if (t == "TENSOR") {
    a->set_type(onnx::AttributeProto::TENSOR);
    std::vector<int64_t> dims;
    int rank = in.ConsumeIntegralInRange<int>(0, 3);
    for (int i = 0; i < rank; ++i)
      dims.push_back(dim(in));
    fillTensor(in, *a->mutable_t(), elementType(in), dims);
  } else {
    a->set_type(onnx::AttributeProto::GRAPH);
    a->mutable_g()->set_name("g");
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  const OpInfo &op = ops[in.ConsumeIntegralInRange<size_t>(
      0, sizeof(ops) / sizeof(ops[0]) - 1)];
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(
      in.ConsumeIntegralInRange<int>(op.since, std::max(op.since, 25)));
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("fuzz");
  onnx::NodeProto *node = graph->add_node();
  node->set_op_type(op.op);
  node->set_name("n");

  // Inputs: around the schema's arity; graph inputs or constants.
  int maxInputs = op.maxInputs < 0 ? op.minInputs + 3
                                    : std::min(op.maxInputs, op.minInputs + 6);
  int numInputs = in.ConsumeIntegralInRange<int>(0, maxInputs + 1);
  for (int i = 0; i < numInputs; ++i) {
    std::string name = "in" + std::to_string(i);
    if (in.ConsumeIntegralInRange<int>(0, 9) == 0) {
      node->add_input(""); // An omitted optional input.
      continue;
    }
    node->add_input(name);
    int type = elementType(in);
    std::vector<int64_t> dims;
    int rank = in.ConsumeIntegralInRange<int>(0, 5);
    for (int r = 0; r < rank; ++r)
      dims.push_back(dim(in));
    if (in.ConsumeBool()) {
      onnx::TensorProto *t = graph->add_initializer();
      t->set_name(name);
      fillTensor(in, *t, type, dims);
      continue;
    }
    onnx::ValueInfoProto *vi = graph->add_input();
    vi->set_name(name);
    auto *tensor = vi->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    auto *shape = tensor->mutable_shape();
    for (int64_t d : dims)
      shape->add_dim()->set_dim_value(d);
  }

  // Attributes: the schema's names, then sometimes a stray one.
  std::string attrs = op.attributes;
  size_t pos = 0;
  while (pos < attrs.size()) {
    size_t end = attrs.find(' ', pos);
    if (end == std::string::npos)
      end = attrs.size();
    std::string item = attrs.substr(pos, end - pos);
    pos = end + 1;
    size_t colon = item.find(':');
    if (colon == std::string::npos || !in.ConsumeBool())
      continue;
    std::string type = item.substr(colon + 1);
    if (!type.empty() && type.back() == '!')
      type.pop_back();
    addAttribute(in, *node, item.substr(0, colon), type);
  }

  int numOutputs = in.ConsumeIntegralInRange<int>(0, 3);
  for (int i = 0; i < numOutputs; ++i) {
    std::string name = "out" + std::to_string(i);
    node->add_output(name);
    onnx::ValueInfoProto *vi = graph->add_output();
    vi->set_name(name);
    // A tensor of known rank and symbolic dims: the importer infers them.
    auto *tensor = vi->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elementType(in));
    int rank = in.ConsumeIntegralInRange<int>(0, 4);
    for (int r = 0; r < rank; ++r)
      tensor->mutable_shape()->add_dim()->set_dim_param("d" + std::to_string(r));
  }

  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return 0;
  msfuzz::importAndCompile(bytes);
  return 0;
}
