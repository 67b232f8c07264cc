//===- RepeatedSteps.h - runs of plan steps that repeat ---------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Finds the back-to-back repetition of launches and copies that a model's
// identical layers leave in a plan (or an offloaded graph), and the buffers
// one written-once body of it takes. The plan outlines it as an
// `msexec.body` run by `msexec.call` steps; the CPU target emits an
// offloaded graph's as one function called once per layer.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_TRANSFORMS_REPEATEDSTEPS_H
#define MS_DIALECT_EXEC_TRANSFORMS_REPEATEDSTEPS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace mlir::ms::exec {
/// Steps that repeat back to back: the `length` steps from `start` and the
/// `count - 1` runs after them launch the same kernels and copy the same
/// types, on the same queues, in the same order.
struct RepeatedSteps {
  size_t start = 0, length = 0, count = 0;
  /// For each step of a run and each of its operands, the body argument it
  /// is: one per distinct tuple of the buffers that operand has in the
  /// runs, so a buffer one step writes and the next reads is one argument
  /// and a layer's own weights are another.
  llvm::SmallVector<llvm::SmallVector<unsigned>> argumentOf;
  /// For each body argument, the first (step of a run, operand) that is it.
  llvm::SmallVector<std::pair<size_t, unsigned>> representatives;

  /// Returns the buffer argument `argument` is bound to in run `run`.
  Value getBinding(llvm::ArrayRef<Operation *> steps, size_t run,
                   unsigned argument) const {
    auto [step, operand] = representatives[argument];
    return steps[start + run * length + step]->getOperand(operand);
  }
};

/// Returns the repetition among `steps` that saves the most steps when its
/// runs become calls of one body (`count * length` steps become `length +
/// count`), or one with a count of 0 if none saves any. Only launches and
/// copies repeat.
RepeatedSteps findRepeatedSteps(llvm::ArrayRef<Operation *> steps);
} // namespace mlir::ms::exec

#endif // MS_DIALECT_EXEC_TRANSFORMS_REPEATEDSTEPS_H
