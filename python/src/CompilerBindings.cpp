//===- CompilerBindings.cpp - the compiler as seen from Python ------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Binds ms::api::GraphBuilder (op-by-op construction of an msgraph function
// with inference and verification at each op) and ONNX compilation. Long
// compilations release the GIL.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "ms/Compiler/GraphBuilder.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using ms::api::CompileSettings;
using ms::api::GraphBuilder;
using ms::api::SourceLocation;
using ms::api::TensorSpec;

namespace ms::python {

static py::tuple toTuple(const std::vector<int64_t> &shape) {
  py::tuple t(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    t[i] = py::int_(shape[i]);
  return t;
}

static CompileSettings settingsOf(int level, const std::string &target,
                                  const std::string &targetCpu,
                                  int64_t multiCopy = 1,
                                  const std::string &precision = "") {
  CompileSettings settings;
  settings.optLevel = level;
  settings.multiCopy = multiCopy;
  settings.precision = precision;
  settings.target = target;
  settings.targetCpu = targetCpu;
  return settings;
}

void populateCompilerBindings(py::module_ &m) {
  py::class_<GraphBuilder>(m, "GraphBuilder",
                           "Builds one msgraph function op by op.")
      .def(py::init<const std::string &>(), py::arg("name") = "main")
      .def(
          "add_input",
          [](GraphBuilder &self, const std::string &name,
             const std::string &dtype, const std::vector<int64_t> &shape) {
            std::string error;
            int id = self.addInput(name, TensorSpec{dtype, shape}, error);
            if (id < 0)
              raise(errors().compileError, error);
            return id;
          },
          py::arg("name"), py::arg("dtype"), py::arg("shape"))
      .def(
          "add_constant",
          [](GraphBuilder &self, py::buffer data, const std::string &dtype,
             const std::vector<int64_t> &shape, const std::string &file,
             int line) {
            // Only C-contiguous data is read as it is; the size must match
            // (checked by addConstant).
            Py_buffer view;
            if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0)
              throw py::error_already_set();
            std::string error;
            int id = self.addConstant(
                TensorSpec{dtype, shape}, view.buf,
                static_cast<size_t>(view.len), SourceLocation{file, line, 0},
                error);
            PyBuffer_Release(&view);
            if (id < 0)
              raise(errors().compileError, error);
            return id;
          },
          py::arg("data"), py::arg("dtype"), py::arg("shape"),
          py::arg("file") = "", py::arg("line") = 0)
      .def(
          "add_op",
          [](GraphBuilder &self, const std::string &name,
             const std::vector<int> &operands, const std::string &attributes,
             py::object resultType, const std::string &file, int line) {
            TensorSpec result;
            const TensorSpec *resultPtr = nullptr;
            if (!resultType.is_none()) {
              auto [dtype, shape] =
                  resultType.cast<std::pair<std::string, std::vector<int64_t>>>();
              result = TensorSpec{dtype, shape};
              resultPtr = &result;
            }
            std::string error;
            int id = self.addOp(name, operands, attributes, resultPtr,
                                SourceLocation{file, line, 0}, error);
            if (id < 0)
              raise(errors().compileError, error);
            TensorSpec type = self.typeOf(id);
            return py::make_tuple(id, type.dtype, toTuple(type.shape));
          },
          py::arg("name"), py::arg("operands"), py::arg("attributes") = "",
          py::arg("result_type") = py::none(), py::arg("file") = "",
          py::arg("line") = 0,
          "Adds an op; returns (value id, dtype, shape). Raises CompileError "
          "with the compiler's diagnostic when the op is invalid.")
      .def(
          "set_mesh",
          [](GraphBuilder &self, const std::vector<int64_t> &shape,
             const std::vector<std::string> &axes) {
            std::string error;
            if (!self.setMesh(shape, axes, error))
              raise(errors().compileError, error);
          },
          py::arg("shape"), py::arg("axes"))
      .def(
          "add_constraint",
          [](GraphBuilder &self, int id, const std::string &spec,
             const std::string &file, int line) {
            std::string error;
            int result = self.addConstraint(
                id, spec, SourceLocation{file, line, 0}, error);
            if (result < 0)
              raise(errors().compileError, error);
            return result;
          },
          py::arg("id"), py::arg("spec"), py::arg("file") = "",
          py::arg("line") = 0,
          "Lays out value `id` as `spec` (\"dp,-\") says; returns the new "
          "value id.")
      .def(
          "set_input_sharding",
          [](GraphBuilder &self, int index, const std::string &spec) {
            std::string error;
            if (!self.setInputSharding(index, spec, error))
              raise(errors().compileError, error);
          },
          py::arg("index"), py::arg("spec"))
      .def(
          "set_output_sharding",
          [](GraphBuilder &self, int index, const std::string &spec) {
            std::string error;
            if (!self.setOutputSharding(index, spec, error))
              raise(errors().compileError, error);
          },
          py::arg("index"), py::arg("spec"))
      .def("finish",
           [](GraphBuilder &self, const std::vector<int> &outputs) {
             std::string error;
             if (!self.finish(outputs, error))
               raise(errors().compileError, error);
           })
      .def("print", &GraphBuilder::print, py::arg("locations") = false)
      .def(
          "compile",
          [](GraphBuilder &self, int level, const std::string &target,
             const std::string &targetCpu, int64_t multiCopy,
             const std::string &precision) {
            std::string bytes, error;
            bool ok;
            {
              py::gil_scoped_release release;
              ok = self.compile(
                  settingsOf(level, target, targetCpu, multiCopy, precision),
                  bytes, error);
            }
            if (!ok)
              raise(errors().compileError, error);
            return py::bytes(bytes);
          },
          py::arg("level") = 0, py::arg("target") = "cpu",
          py::arg("target_cpu") = "native", py::arg("multi_copy") = 1,
          py::arg("precision") = "")
      .def(
          "lower",
          [](GraphBuilder &self, const std::string &stage, int level,
             const std::string &target, const std::string &targetCpu,
             int64_t multiCopy, const std::string &precision) {
            std::string text, error;
            bool ok;
            {
              py::gil_scoped_release release;
              ok = self.lower(
                  settingsOf(level, target, targetCpu, multiCopy, precision),
                  stage, text, error);
            }
            if (!ok)
              raise(errors().compileError, error);
            return text;
          },
          py::arg("stage"), py::arg("level") = 0, py::arg("target") = "cpu",
          py::arg("target_cpu") = "native", py::arg("multi_copy") = 1,
          py::arg("precision") = "");

  m.def(
      "compile_onnx_file",
      [](const std::string &path, int level, const std::string &target,
         const std::string &targetCpu,
         const std::map<std::string, std::vector<int64_t>> &inputShapes,
         const std::string &precision) {
        std::string bytes, error;
        bool ok;
        {
          py::gil_scoped_release release;
          ok = ms::api::compileOnnxFile(
              path, settingsOf(level, target, targetCpu, 1, precision),
              inputShapes, bytes, error);
        }
        if (!ok)
          raise(errors().compileError, error);
        return py::bytes(bytes);
      },
      py::arg("path"), py::arg("level") = 0, py::arg("target") = "cpu",
      py::arg("target_cpu") = "native",
      py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>(),
      py::arg("precision") = "",
      "Imports and compiles an ONNX model; returns the module file bytes.");
  m.def("compile_stages", &ms::api::compileStages, py::arg("target") = "cpu",
        "The phase names lower() accepts for a target, in order.");
  m.def("cuda_arch_for", &ms::api::cudaArchFor, py::arg("device_arch"),
        "The architecture to compile for on a GPU of compute capability "
        "device_arch ('sm_90' -> 'sm_90a'); '' when ms has none for it.");
  m.def("compiler_identity", &ms::api::compilerIdentity,
        py::arg("target_cpu") = "native",
        "Identifies this compiler build and target CPU (keys the disk "
        "cache).");
}

} // namespace ms::python
