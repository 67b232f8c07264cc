//===- PtxInterpreter.h - runs generated PTX on the CPU for tests ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The driver stand-in (FakeCuda.cpp) runs the PTX that ms generates with this
// interpreter, so that kernels are checked for results on machines without a
// GPU. It takes the subset of PTX that LLVM's NVPTX backend emits for ms's
// kernels (integer, float and predicate arithmetic, conversions, global,
// shared, local and parameter memory, branches, bar.sync, shfl.sync, mma,
// ldmatrix (.trans too), calls of the module's `.func`s, inlined at each
// call with their own registers, labels and local memory); a module with
// anything else fails to load, naming the line. A block's
// threads run one at a time up to each barrier or shuffle (all of a warp's
// lanes exchange at once), the order of the threads reversed every other
// round; a shared, local or global access outside its buffer, a barrier or
// shuffle some thread never reaches, a data race on shared memory
// (SharedRaces.h), or more instructions than the launch's budget fails
// it, naming the kernel (and the instruction).
// Approximate instructions (ex2.approx, ...) compute exactly and .ftz is not
// applied: results are at least as accurate as a GPU's.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_TEST_CUDA_PTXINTERPRETER_H
#define MS_RUNTIME_TEST_CUDA_PTXINTERPRETER_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ms::fakecuda {

class PtxModuleImpl;

/// The stand-in's tensor map (cuTensorMapEncodeTiled's 128 opaque bytes): a
/// tiled view of global memory whose boxes cp.async.bulk.tensor loads,
/// innermost dimension first; elements past the end read as zeros. With
/// `swizzleBytes` (32, 64 or 128: a box's rows are that long), a box lands
/// with the 16-byte chunks of each row permuted as the hardware's
/// swizzle does: the chunk bits of an address (4 and up) XORed with its
/// row bits (7 and up), as many as the swizzle has chunks.
struct FakeTensorMap {
  static constexpr uint32_t kMagic = 0x50414d54; // "TMAP"
  uint32_t magic = 0, dataType = 0, rank = 0, elementBytes = 0;
  uint64_t address = 0;
  uint64_t dims[5] = {};
  /// Bytes between neighbours along each dimension (strides[0]: the
  /// element's size).
  uint64_t strides[5] = {};
  uint32_t box[5] = {};
  uint32_t swizzleBytes = 0;
};
static_assert(sizeof(FakeTensorMap) == 128, "a CUtensorMap's size");

/// Whether [address, address + size) lies in memory a kernel may touch (a
/// live allocation of the driver).
using GlobalCheck = std::function<bool(uint64_t address, size_t size)>;

/// A parsed PTX module and the memory of its `.global` variables.
class PtxModule {
public:
  /// Parses `ptx`; null with `error` set when it is malformed or uses what
  /// the interpreter does not implement.
  static std::unique_ptr<PtxModule> parse(const std::string &ptx,
                                          std::string &error);
  ~PtxModule();

  /// Whether the module defines entry `name`.
  bool hasEntry(const std::string &name) const;
  /// The byte sizes of entry `name`'s parameters (at most 8 each).
  std::vector<size_t> getParamSizes(const std::string &name) const;
  /// Runs entry `name` on a grid of `grid` x 1 x 1 blocks of `block` x 1 x 1
  /// threads, each block with `dynamicShared` bytes of dynamic shared
  /// memory (where the module's `.extern .shared` arrays start), with
  /// `params` (as cuLaunchKernel takes them), at most `maxSteps`
  /// instructions in all, each block's shared memory checked for data
  /// races when `checkRaces` (SharedRaces.h), and global memory between
  /// the blocks (GlobalRaces.h); returns an error message, or an empty
  /// string.
  std::string launch(const std::string &name, unsigned grid, unsigned block,
                     unsigned dynamicShared, void **params,
                     const GlobalCheck &isGlobal, uint64_t maxSteps,
                     bool checkRaces = true) const;
  /// Whether [address, address + size) lies in a `.global` variable.
  bool ownsGlobal(uint64_t address, size_t size) const;

private:
  PtxModule();
  std::unique_ptr<PtxModuleImpl> impl;
};

} // namespace ms::fakecuda

#endif // MS_RUNTIME_TEST_CUDA_PTXINTERPRETER_H
