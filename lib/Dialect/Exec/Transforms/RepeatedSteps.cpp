//===- RepeatedSteps.cpp - runs of plan steps that repeat -----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/RepeatedSteps.h"
#include "ms/Dialect/Exec/IR/ExecOps.h"

#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::ms::exec;

/// Returns what makes two steps the same step of two layers: the op, its
/// kernel, queue and buffer types; a step that never repeats gets a key of
/// its own.
static std::vector<const void *> stepKey(Operation *op, size_t index) {
  if (!isa<LaunchOp, CopyOp>(op))
    return {nullptr, reinterpret_cast<const void *>(index)};
  std::vector<const void *> key{
      op->getName().getAsOpaquePointer(),
      reinterpret_cast<const void *>(static_cast<intptr_t>(getStepQueue(op)))};
  if (auto launch = dyn_cast<LaunchOp>(op))
    key.push_back(launch.getKernel().getAsOpaquePointer());
  for (Type type : op->getOperandTypes())
    key.push_back(type.getAsOpaquePointer());
  return key;
}

RepeatedSteps mlir::ms::exec::findRepeatedSteps(ArrayRef<Operation *> steps) {
  std::map<std::vector<const void *>, int64_t> ids;
  SmallVector<int64_t> kinds;
  for (auto [i, op] : llvm::enumerate(steps))
    kinds.push_back(ids.try_emplace(stepKey(op, i), ids.size()).first->second);
  size_t n = kinds.size();
  RepeatedSteps best;
  int64_t bestSaved = 0;
  std::vector<size_t> same(n + 1);
  for (size_t length = 1; 2 * length <= n; ++length) {
    // same[i]: how many steps from i equal the steps `length` after them.
    same[n - length] = 0;
    for (size_t i = n - length; i-- > 0;)
      same[i] = kinds[i] == kinds[i + length] ? same[i + 1] + 1 : 0;
    for (size_t i = 0; i + 2 * length <= n; ++i) {
      if (same[i] < length)
        continue;
      size_t count = 1 + same[i] / length;
      int64_t saved = static_cast<int64_t>(count * length) -
                      static_cast<int64_t>(length + count);
      if (saved > bestSaved) {
        bestSaved = saved;
        best.start = i;
        best.length = length;
        best.count = count;
      }
    }
  }
  if (!best.count)
    return best;
  // An argument per distinct tuple of the buffers a (step, operand) has in
  // the runs.
  std::map<std::vector<const void *>, unsigned> argumentOf;
  for (size_t i = 0; i < best.length; ++i) {
    best.argumentOf.emplace_back();
    Operation *first = steps[best.start + i];
    for (unsigned o = 0; o < first->getNumOperands(); ++o) {
      std::vector<const void *> key;
      for (size_t r = 0; r < best.count; ++r)
        key.push_back(steps[best.start + r * best.length + i]
                          ->getOperand(o)
                          .getAsOpaquePointer());
      auto [it, inserted] = argumentOf.try_emplace(key, argumentOf.size());
      if (inserted)
        best.representatives.push_back({i, o});
      best.argumentOf.back().push_back(it->second);
    }
  }
  return best;
}
