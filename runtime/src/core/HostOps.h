//===- HostOps.h - operations the runtime implements itself ----*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Plan steps of kind "host" run an operation implemented here instead of a
// compiled kernel: the string operations, whose elements (ms_string_t) point
// at characters of any length and whose results may have data-dependent
// extents. See docs/ModuleFormat.md ("host" steps) and docs/Runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_HOSTOPS_H
#define MS_RUNTIME_CORE_HOSTOPS_H

#include "ms/runtime/Runtime.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ms::rt::impl {
/// Per-context storage of one host step: the characters of the strings it
/// produced in the latest run.
struct HostScratch {
  std::vector<std::string> strings;
};

/// The tensors of a host step as the plan describes them.
struct HostSignature {
  /// Element types of the operands, then the results.
  std::vector<ms_dtype_t> dtypes;
  /// Shapes of the operands, then the results; -1 marks a data-dependent
  /// extent of a result.
  std::vector<std::vector<int64_t>> shapes;
  /// Number of operands.
  size_t operandCount = 0;
};

/// An operation the runtime implements. Its step's argument slots are the
/// operands' data, the results' data, for each result with data-dependent
/// extents a writable int64_t[rank] for its computed shape, and last the
/// step's HostScratch.
class HostOp {
public:
  virtual ~HostOp() = default;
  /// Runs the operation on `args`.
  virtual Status run(void *const *args) const = 0;
  /// Returns the largest byte size result `index` can take.
  virtual uint64_t resultCapacity(size_t index) const = 0;
};

/// Creates host op `name` for `signature` with attributes `attrs` (a JSON
/// object). Fails with a message (without location) when the op is unknown
/// or the signature or attributes do not fit it.
Status createHostOp(const std::string &name, const HostSignature &signature,
                    const nlohmann::json &attrs,
                    std::shared_ptr<const HostOp> &out);

/// Returns true when `shape` has a data-dependent (-1) extent.
bool hasDynamicExtent(const std::vector<int64_t> &shape);
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_HOSTOPS_H
