//===- Bindings.h - shared pieces of the _ms extension ----------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The `ms._ms` extension binds the compiler (ms/Compiler/GraphBuilder.h,
// standard C++ types only) and the runtime C API. This translation-unit
// family is the only code in ms built with C++ exceptions, which pybind11
// needs; it includes no LLVM or MLIR header.
//
//===----------------------------------------------------------------------===//

#ifndef MS_PYTHON_BINDINGS_H
#define MS_PYTHON_BINDINGS_H

#include <pybind11/pybind11.h>

#include <string>

namespace ms::python {

/// The package's exception types (created by the module initializer).
struct Errors {
  /// ms.Error: the base of every ms exception.
  PyObject *error = nullptr;
  /// ms.CompileError: tracing or compilation failed.
  PyObject *compileError = nullptr;
  /// ms.ExecutionError: loading or running a module failed.
  PyObject *runtimeError = nullptr;
};
Errors &errors();

/// Raises `type` with `message` (throws pybind11::error_already_set);
/// with a `code` (a runtime status's: "data_loss", ...), the exception's
/// `code` attribute holds it.
[[noreturn]] void raise(PyObject *type, const std::string &message,
                        const char *code = nullptr);

void populateCompilerBindings(pybind11::module_ &m);
void populateRuntimeBindings(pybind11::module_ &m);

} // namespace ms::python

#endif // MS_PYTHON_BINDINGS_H
