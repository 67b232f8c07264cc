//===- RuntimeBindings.cpp - running compiled modules from Python ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Binds a loaded module as `Executable`: calling it with arrays runs the
// module on the runtime. Inputs are read in place through the buffer
// protocol (no copy when they are C-contiguous and of the module's dtype);
// outputs are fresh NumPy arrays that the kernels write directly. Runs
// release the GIL; each concurrent caller gets its own context from a pool,
// so one Executable may be called from several threads at once.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "ms/runtime/ms_runtime.h"

#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace ms::python {
namespace {
/// The name of a runtime status code, as ms.ExecutionError's `code`.
const char *codeName(ms_status_code_t code) {
  switch (code) {
  case MS_INVALID_ARGUMENT:
    return "invalid_argument";
  case MS_NOT_FOUND:
    return "not_found";
  case MS_DATA_LOSS:
    return "data_loss";
  case MS_UNIMPLEMENTED:
    return "unimplemented";
  case MS_UNAVAILABLE:
    return "unavailable";
  default:
    return "internal";
  }
}

/// Takes ownership of `status`; raises ms.ExecutionError when it is an
/// error, its `code` the status's (codeName).
void check(ms_status_t status, const std::string &what = "") {
  if (!status)
    return;
  std::string message = ms_status_message(status);
  const char *code = codeName(ms_status_code(status));
  ms_status_free(status);
  raise(errors().runtimeError, what.empty() ? message : what + ": " + message,
        code);
}

/// The process's device named `name` ("cpu", "cuda" or "npu"), created on first
/// use; raises ms.ExecutionError when it is unknown or unavailable.
ms_device_t deviceNamed(const std::string &name) {
  static std::mutex mutex;
  static std::map<std::string, ms_device_t> devices;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = devices.find(name);
  if (it != devices.end())
    return it->second;
  ms_device_kind_t kind;
  if (name == "cpu")
    kind = MS_DEVICE_CPU;
  else if (name == "cuda")
    kind = MS_DEVICE_CUDA;
  else if (name == "npu")
    kind = MS_DEVICE_NPU_SIM;
  else
    raise(errors().runtimeError,
          "unknown device '" + name + "'; expected cpu, cuda or npu");
  ms_device_t device = nullptr;
  check(ms_device_create(kind, &device),
        "cannot create the " + name + " device");
  devices[name] = device;
  return device;
}

/// What the Python side needs of one dtype (DTypes.def).
struct DTypeRow {
  ms_dtype_t dtype;
  const char *numpy;
  const char *formats;
};
constexpr DTypeRow dtypeRows[] = {
#define MS_DTYPE(ENUM, NAME, SIZE, KIND, BITS, NUMPY, NPY, FORMATS)               \
  {MS_DTYPE_##ENUM, NUMPY, FORMATS},
#include "ms/runtime/DTypes.def"
};

/// The table row of `dtype`, or null.
const DTypeRow *rowOf(ms_dtype_t dtype) {
  for (const DTypeRow &row : dtypeRows)
    if (row.dtype == dtype)
      return &row;
  return nullptr;
}

/// NumPy's name for a runtime dtype ("" when NumPy has none).
const char *numpyName(ms_dtype_t dtype) {
  const DTypeRow *row = rowOf(dtype);
  return row ? row->numpy : "";
}

/// Whether a buffer of struct format `format` and `itemsize` holds `dtype`.
bool formatMatches(const char *format, Py_ssize_t itemsize, ms_dtype_t dtype) {
  if (!format)
    format = "B";
  // Native or little-endian only (the CPU device is little-endian): a
  // big-endian array would be read byte-swapped.
  while (*format && std::strchr("@=<>!", *format)) {
    if (*format == '>' || *format == '!')
      return false;
    ++format;
  }
  if (!*format || format[1])
    return false;
  if (static_cast<size_t>(itemsize) != ms_dtype_size(dtype))
    return false;
  const DTypeRow *row = rowOf(dtype);
  return row && std::strchr(row->formats, *format) != nullptr;
}

/// Describes a buffer's element type for error messages.
std::string formatName(const Py_buffer &view) {
  std::string format = view.format ? view.format : "B";
  return "'" + format + "' (" + std::to_string(view.itemsize) + " bytes)";
}

/// A Py_buffer released on destruction (with the GIL held).
struct BufferView {
  Py_buffer view{};
  bool held = false;
  BufferView() = default;
  BufferView(const BufferView &) = delete;
  ~BufferView() {
    if (held)
      PyBuffer_Release(&view);
  }
};

struct TensorInfo {
  std::string name;
  ms_dtype_t dtype;
  std::vector<int64_t> shape;
  py::tuple shapeTuple;
  py::object numpyDtype;
};

/// The process's communicator, from the launcher's environment (MS_RANK and
/// MS_WORLD_SIZE from ms.launch or ms-run --nproc, or mpirun's variables; a
/// world of one process without them), created on first use and kept for
/// the life of the process: every sharded module runs in it.
ms_comm_t processComm() {
  static std::mutex mutex;
  static ms_comm_t comm = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!comm) {
    ms_status_t status;
    {
      py::gil_scoped_release release;
      status = ms_comm_create_from_env(&comm);
    }
    check(status, "cannot join the launcher's processes");
  }
  return comm;
}

class Executable {
public:
  Executable(const std::string &path, const std::string &deviceName)
      : path(path), device(deviceNamed(deviceName)),
        onHost(deviceName == "cpu"), comm(processComm()) {
    ms_module_t raw = nullptr;
    ms_status_t status;
    {
      py::gil_scoped_release release;
      status = ms_module_load(device, path.c_str(), &raw);
    }
    check(status);
    module.reset(raw);
    py::module_ numpy = py::module_::import("numpy");
    empty = numpy.attr("empty");
    asArray = numpy.attr("array");
    describe(ms_module_input_count(raw), ms_module_input_info, inputs, numpy);
    describe(ms_module_output_count(raw), ms_module_output_info, outputs,
             numpy);
  }

  ~Executable() {
    for (ms_context_t context : contexts)
      ms_context_free(context);
  }

  /// Runs the module on `args` (one array-like per input, in order); returns
  /// the outputs as a tuple of new arrays.
  py::tuple run(py::sequence args) {
    size_t count = static_cast<size_t>(py::len(args));
    if (count != inputs.size())
      raise(PyExc_TypeError, "'" + path + "' takes " +
                                 std::to_string(inputs.size()) +
                                 " inputs, but " + std::to_string(count) +
                                 " were given");
    std::vector<BufferView> views(inputs.size() + outputs.size());
    std::vector<py::object> keepAlive;
    std::vector<ms_tensor_t> in(inputs.size()), out(outputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      bindInput(i, args[i], views[i], keepAlive, in[i]);
    py::tuple results(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const TensorInfo &info = outputs[i];
      py::object array = empty(info.shapeTuple, info.numpyDtype);
      BufferView &view = views[inputs.size() + i];
      if (PyObject_GetBuffer(array.ptr(), &view.view,
                             PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0)
        throw py::error_already_set();
      view.held = true;
      out[i] = ms_tensor_t{view.view.buf,
                           static_cast<uint64_t>(view.view.len), info.dtype,
                           static_cast<uint32_t>(info.shape.size()),
                           info.shape.data()};
      results[i] = std::move(array);
    }
    ms_status_t status = nullptr;
    {
      py::gil_scoped_release release;
      // A device whose memory the host cannot see runs on copies: the
      // inputs written to device buffers, the outputs read back.
      std::vector<DeviceBuffer> staged(onHost ? 0 : in.size() + out.size());
      std::vector<ms_tensor_t> hostOut = out;
      for (size_t i = 0; i < staged.size() && !status; ++i) {
        ms_tensor_t &tensor = i < in.size() ? in[i] : out[i - in.size()];
        status = ms_buffer_allocate(device, tensor.size, &staged[i].buffer);
        if (!status && i < in.size())
          status =
              ms_buffer_write(staged[i].buffer, 0, tensor.data, tensor.size);
        if (!status)
          tensor.data = ms_buffer_data(staged[i].buffer);
      }
      ms_context_t context = status ? nullptr : acquireContext(status);
      if (!status) {
        status = ms_context_run(context, in.data(), in.size(), out.data(),
                                out.size());
        releaseContext(context);
      }
      for (size_t i = 0; i < out.size() && !status && !onHost; ++i)
        status = ms_buffer_read(staged[in.size() + i].buffer, 0,
                                hostOut[i].data, hostOut[i].size);
    }
    check(status, "running '" + path + "'");
    return results;
  }

  py::list describeAll(const std::vector<TensorInfo> &tensors) const {
    py::list list;
    for (const TensorInfo &t : tensors)
      list.append(py::make_tuple(t.name, ms_dtype_name(t.dtype), t.shapeTuple));
    return list;
  }

  std::string path;
  std::vector<TensorInfo> inputs, outputs;

private:
  /// A device buffer freed on destruction.
  struct DeviceBuffer {
    ms_buffer_t buffer = nullptr;
    DeviceBuffer() = default;
    DeviceBuffer(DeviceBuffer &&other) noexcept
        : buffer(std::exchange(other.buffer, nullptr)) {}
    ~DeviceBuffer() { ms_buffer_free(buffer); }
  };

  /// The device the module is loaded on, and whether the host can read its
  /// memory (the CPU).
  ms_device_t device;
  bool onHost;

  using InfoFn = ms_status_t (*)(ms_module_t, size_t, ms_tensor_info_t *);

  void describe(size_t count, InfoFn fn, std::vector<TensorInfo> &into,
                py::module_ &numpy) {
    for (size_t i = 0; i < count; ++i) {
      ms_tensor_info_t info;
      check(fn(module.get(), i, &info));
      TensorInfo t;
      t.name = info.name;
      t.dtype = info.dtype;
      t.shape.assign(info.shape, info.shape + info.rank);
      t.shapeTuple = py::tuple(info.rank);
      for (uint32_t d = 0; d < info.rank; ++d)
        t.shapeTuple[d] = py::int_(info.shape[d]);
      const char *name = numpyName(info.dtype);
      if (*name)
        t.numpyDtype = numpy.attr("dtype")(name);
      else
        t.numpyDtype = py::none();
      into.push_back(std::move(t));
    }
  }

  void bindInput(size_t i, py::handle arg, BufferView &view,
                 std::vector<py::object> &keepAlive, ms_tensor_t &tensor) {
    const TensorInfo &info = inputs[i];
    if (info.numpyDtype.is_none())
      raise(errors().runtimeError,
            "input '" + info.name + "' has dtype " +
                ms_dtype_name(info.dtype) + ", which NumPy cannot hold");
    py::handle source = arg;
    if (!PyObject_CheckBuffer(source.ptr()) ||
        PyObject_GetBuffer(source.ptr(), &view.view,
                           PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      // Lists, scalars and strided arrays: one contiguous copy. Arrays of
      // another dtype are rejected below rather than silently converted.
      bool isBuffer = PyObject_CheckBuffer(source.ptr());
      keepAlive.push_back(
          isBuffer ? asArray(source, py::arg("order") = "C")
                   : asArray(source, info.numpyDtype, py::arg("order") = "C"));
      source = keepAlive.back();
      if (PyObject_GetBuffer(source.ptr(), &view.view,
                             PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0)
        throw py::error_already_set();
    }
    view.held = true;
    if (!formatMatches(view.view.format, view.view.itemsize, info.dtype))
      raise(errors().runtimeError,
            "input '" + info.name + "': expected dtype " +
                ms_dtype_name(info.dtype) + ", but found format " +
                formatName(view.view));
    if (static_cast<size_t>(view.view.ndim) != info.shape.size() ||
        !std::equal(info.shape.begin(), info.shape.end(), view.view.shape)) {
      std::string found = "(";
      for (int d = 0; d < view.view.ndim; ++d)
        found += (d ? ", " : "") + std::to_string(view.view.shape[d]);
      raise(errors().runtimeError,
            "input '" + info.name + "': expected shape " +
                py::repr(info.shapeTuple).cast<std::string>() +
                ", but found " + found +
                (view.view.ndim == 1 ? ",)" : ")"));
    }
    tensor = ms_tensor_t{view.view.buf, static_cast<uint64_t>(view.view.len),
                         info.dtype, static_cast<uint32_t>(info.shape.size()),
                         info.shape.data()};
  }

  /// Pops a free context or creates one (called without the GIL).
  ms_context_t acquireContext(ms_status_t &status) {
    status = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!contexts.empty()) {
        ms_context_t context = contexts.back();
        contexts.pop_back();
        return context;
      }
    }
    ms_context_t context = nullptr;
    status = ms_context_create_with_comm(module.get(), comm, &context);
    return context;
  }

  void releaseContext(ms_context_t context) {
    std::lock_guard<std::mutex> lock(mutex);
    contexts.push_back(context);
  }

  struct ModuleDeleter {
    void operator()(ms_module_t m) const { ms_module_free(m); }
  };
  std::unique_ptr<ms_module, ModuleDeleter> module;
  /// The process's communicator (processComm), for sharded modules.
  ms_comm_t comm;
  py::object empty, asArray;
  std::mutex mutex;
  std::vector<ms_context_t> contexts;
};

} // namespace

void populateRuntimeBindings(py::module_ &m) {
  py::class_<Executable>(m, "Executable",
                         "A module file loaded on a device (cpu, cuda, npu).")
      .def(py::init<const std::string &, const std::string &>(),
           py::arg("path"), py::arg("device") = "cpu")
      .def("run", &Executable::run, py::arg("args"),
           "Runs the module; returns a tuple of new arrays.")
      .def_property_readonly(
          "inputs", [](const Executable &e) { return e.describeAll(e.inputs); },
          "[(name, dtype, shape)] of the inputs.")
      .def_property_readonly(
          "outputs",
          [](const Executable &e) { return e.describeAll(e.outputs); },
          "[(name, dtype, shape)] of the outputs.")
      .def_readonly("path", &Executable::path);
  m.def(
      "dtypes",
      [] {
        py::dict table;
        for (const DTypeRow &row : dtypeRows)
          table[py::str(ms_dtype_name(row.dtype))] = py::str(row.numpy);
        return table;
      },
      "Each dtype name ms knows -> NumPy's name for it ('' when none).");
  m.def("runtime_version", [] { return std::string(ms_runtime_version()); });
  m.def(
      "device_arch",
      [](const std::string &name) {
        return std::string(ms_device_arch(deviceNamed(name)));
      },
      py::arg("name"),
      "The architecture of device `name`'s hardware ('sm_90' for a GPU of "
      "compute capability 9.0; '' for cpu and npu); raises "
      "ms.ExecutionError unless the device can be used here.");
  m.def(
      "check_device", [](const std::string &name) { deviceNamed(name); },
      py::arg("name"),
      "Raises ms.ExecutionError unless the device `name` can be used here.");
}

} // namespace ms::python
