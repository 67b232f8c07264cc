//===- GraphBuilder.h - build and compile msgraph from outside --*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The compiler's surface for embedders such as the Python JIT: build an
// msgraph function op by op (each op's type inferred and verified as it is
// added), compile it to a module file, or print it at a pipeline stage. The
// header uses standard C++ types only, so an embedder built with exceptions
// (pybind11) includes no LLVM or MLIR header. Failures return false and fill
// an error string holding the compiler's diagnostics, each prefixed with the
// location of the op that caused it ("file.py:12:5: error: ...").
//
//===----------------------------------------------------------------------===//

#ifndef MS_COMPILER_GRAPHBUILDER_H
#define MS_COMPILER_GRAPHBUILDER_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ms::api {

/// The type of a tensor: an element type named as the runtime names it
/// ("f16", "bf16", "f32", "f64", "bool", "i8" ... "i64", "u8" ... "u64") and a
/// static shape.
struct TensorSpec {
  std::string dtype;
  std::vector<int64_t> shape;
};

/// Where an op came from in the embedder's source.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// Options of one compilation (see mlir::ms::CompileOptions).
struct CompileSettings {
  int optLevel = 0;
  std::string target = "cpu";
  /// "native" (the host) or an LLVM CPU name such as "x86-64".
  std::string targetCpu = "native";
  /// Multi-copy parallelism of a sharded function (1: none).
  int64_t multiCopy = 1;
  /// Precision in which matmuls multiply (TargetOptions::precision): empty
  /// for the target's default, "f32", "bf16" or "f16".
  std::string precision;
};

/// Builds one msgraph function `@main` and compiles it. Not thread-safe; each
/// builder owns its MLIR context, so distinct builders may be used from
/// distinct threads at once.
class GraphBuilder {
public:
  /// Starts an empty function named `name` (used in diagnostics only).
  explicit GraphBuilder(const std::string &name = "main");
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder &) = delete;
  GraphBuilder &operator=(const GraphBuilder &) = delete;

  /// Adds a function argument named `name`; returns its value id, or -1.
  int addInput(const std::string &name, const TensorSpec &spec,
               std::string &error);
  /// Adds a constant holding `bytes` (dense, row-major, `spec`'s layout; i1
  /// one byte per element); returns its value id, or -1.
  int addConstant(const TensorSpec &spec, const void *data, size_t bytes,
                  const SourceLocation &loc, std::string &error);
  /// Adds op `name` (e.g. "msgraph.add") with `operands` (value ids) and
  /// `attributes`, an MLIR attribute dictionary in text form ("" for none).
  /// Ops that infer their result type get it inferred; others take
  /// `resultType`. The op is verified. Returns the result's value id, or -1.
  int addOp(const std::string &name, const std::vector<int> &operands,
            const std::string &attributes, const TensorSpec *resultType,
            const SourceLocation &loc, std::string &error);
  /// Returns the type of value `id`.
  TensorSpec typeOf(int id) const;
  /// Compiles the function for a mesh of devices of `shape` with axes
  /// `axes` (docs/spec/msdist.md); call before any sharding below.
  bool setMesh(const std::vector<int64_t> &shape,
               const std::vector<std::string> &axes, std::string &error);
  /// Lays out value `id` as `spec` says (command-line form: "dp,-");
  /// returns the constrained value's id, or -1.
  int addConstraint(int id, const std::string &spec, const SourceLocation &loc,
                    std::string &error);
  /// Splits input `index` for its users as `spec` says (the caller passes
  /// the whole value).
  bool setInputSharding(int index, const std::string &spec, std::string &error);
  /// Returns output `index` laid out as `spec` says (after finish; the
  /// default is whole on every rank).
  bool setOutputSharding(int index, const std::string &spec,
                         std::string &error);
  /// Ends the function returning `outputs`; the builder takes no more ops.
  bool finish(const std::vector<int> &outputs, std::string &error);

  /// Prints the function (after finish). Without locations the text depends
  /// only on the computation, so it keys caches.
  std::string print(bool withLocations) const;
  /// Compiles a copy of the function into module file bytes.
  bool compile(const CompileSettings &settings, std::string &moduleBytes,
               std::string &error) const;
  /// Compiles a copy of the function up to phase `stage` (graph, kernels,
  /// plan, linalg, bufferized, llvm, llvmir, serialize; see
  /// compileStages) and returns that phase's text.
  bool lower(const CompileSettings &settings, const std::string &stage,
             std::string &text, std::string &error) const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// Imports the ONNX model at `path` (dynamic dims pinned by `inputShapes`,
/// name to shape) and compiles it into module file bytes.
bool compileOnnxFile(const std::string &path, const CompileSettings &settings,
                     const std::map<std::string, std::vector<int64_t>> &inputShapes,
                     std::string &moduleBytes, std::string &error);

/// The phase names `GraphBuilder::lower` accepts for `target`, in order
/// (empty when the target is not built).
std::vector<std::string> compileStages(const std::string &target = "cpu");

/// The architecture to compile for the cuda target on a GPU whose compute
/// capability `deviceArch` names ("sm_90" -> "sm_90a"; ms_device_arch), or
/// "" for a GPU older than every architecture ms generates code for.
std::string cudaArchFor(const std::string &deviceArch);

/// Identifies this compiler build and the code it generates for `targetCpu`
/// ("native" resolves to the host CPU's name): keys on-disk caches.
std::string compilerIdentity(const std::string &targetCpu);

} // namespace ms::api

#endif // MS_COMPILER_GRAPHBUILDER_H
