//===- MsModule.cpp - the ms._ms extension module -------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

namespace py = pybind11;

namespace ms::python {

Errors &errors() {
  static Errors instance;
  return instance;
}

void raise(PyObject *type, const std::string &message, const char *code) {
  if (!code) {
    PyErr_SetString(type, message.c_str());
    throw py::error_already_set();
  }
  py::object error = py::reinterpret_borrow<py::object>(type)(message);
  error.attr("code") = code;
  PyErr_SetObject(type, error.ptr());
  throw py::error_already_set();
}
} // namespace ms::python

PYBIND11_MODULE(_ms, m) {
  using namespace ms::python;
  m.doc() = "ms compiler and runtime bindings (use the `ms` package)";
  Errors &e = errors();
  e.error = PyErr_NewExceptionWithDoc(
      "ms.Error", "Base class of the errors ms raises.", PyExc_Exception,
      nullptr);
  e.compileError = PyErr_NewExceptionWithDoc(
      "ms.CompileError",
      "Tracing or compiling failed; the message holds the compiler's "
      "diagnostics, each with the source line of the op that caused it.",
      e.error, nullptr);
  e.runtimeError = PyErr_NewExceptionWithDoc(
      "ms.ExecutionError",
      "Loading or running a compiled module failed (corrupt module file, "
      "wrong input shape or dtype, ...).",
      e.error, nullptr);
  if (!e.error || !e.compileError || !e.runtimeError)
    throw py::error_already_set();
  m.attr("Error") = py::handle(e.error);
  m.attr("CompileError") = py::handle(e.compileError);
  m.attr("ExecutionError") = py::handle(e.runtimeError);
  populateCompilerBindings(m);
  populateRuntimeBindings(m);
}
