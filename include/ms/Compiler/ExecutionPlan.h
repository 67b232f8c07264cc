//===- ExecutionPlan.h - the host-side execution plan -----------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// What the runtime executes: buffers (inputs, outputs, weights, arena
// slices) and an ordered list of steps (kernel launches and copies). Built
// from the entry function after kernel outlining; serialized as the meta
// section of the module file (docs/ModuleFormat.md).
//
//===----------------------------------------------------------------------===//

#ifndef MS_COMPILER_EXECUTIONPLAN_H
#define MS_COMPILER_EXECUTIONPLAN_H

#include "ms/Compiler/MemoryPlanner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::ms {

/// One buffer of the plan.
struct PlanBuffer {
  enum class Kind { Input, Output, Weight, Arena };
  Kind kind;
  uint64_t size = 0;
  /// Input/output index, or offset into the weights section / arena.
  uint64_t indexOrOffset = 0;
  /// Steps that define and last read the buffer (arena buffers).
  int64_t firstUse = 0, lastUse = 0;
  /// What the buffer holds, for reports.
  std::string description;
};

/// One step of the plan.
struct PlanStep {
  enum class Kind { Launch, Copy, Host };
  Kind kind;
  /// Launch: kernel index; Launch and Host: argument buffer ids (a host
  /// step's operands, then its results).
  int64_t kernel = -1;
  std::vector<int64_t> args;
  /// Host: the op name, its number of operands, the dtype and shape (-1 for
  /// a data-dependent extent) of each argument, and its attributes.
  std::string op;
  int64_t operandCount = 0;
  std::vector<std::string> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  llvm::json::Object attrs;
  /// Copy: source and destination buffers, bytes.
  int64_t src = -1, dst = -1;
  uint64_t size = 0;
};

/// A named, typed tensor of the signature.
struct PlanTensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t buffer = -1;
};

/// A kernel and where it came from.
struct PlanKernel {
  std::string symbol;
  std::string op;
  std::string loc;
};

/// The whole plan.
struct ExecutionPlan {
  std::vector<PlanTensor> inputs, outputs;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanStep> steps;
  std::vector<PlanKernel> kernels;
  /// The weights section: each weight 64-byte aligned.
  std::string weights;
  MemoryPlan memory;
  int optLevel = 0;
  std::string target = "cpu";
  std::string entry;

  /// Writes the meta JSON of the module file.
  void writeJson(llvm::raw_ostream &os) const;
  /// Writes the human-readable memory report (--memory-report).
  void writeMemoryReport(llvm::raw_ostream &os) const;
};

/// Returns the module-file dtype name of a tensor element type, or "" if it
/// has none.
std::string dtypeName(Type elementType);

/// Builds the plan from `entry`, whose body holds only constants, calls of
/// kernel functions, ops the runtime executes (HostExecuted), tensor casts
/// and the return (after ms-outline-kernels).
/// Kernel `i` of the plan is the callee named `kernelSymbols[i]`. Emits an
/// error and fails on anything else.
FailureOr<ExecutionPlan> buildExecutionPlan(func::FuncOp entry,
                                            ArrayRef<std::string> kernelSymbols);

} // namespace mlir::ms

#endif // MS_COMPILER_EXECUTIONPLAN_H
