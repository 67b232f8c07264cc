//===- Passes.td - target-independent code generation passes -*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_PASSES_TD
#define MS_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

def SerializeExecutablesPass : Pass<"ms-serialize-executables",
                                    "::mlir::ModuleOp"> {
  let summary = "turns each lowered executable into its target's binary";
  let description = [{
    The last phase of code generation: each `msexec.executable` is handed
    to the target backend registered under its `target` name, which
    serializes its lowered kernels (CPU: an ELF shared object; CUDA: PTX and
    its launches), and is replaced by an `msexec.binary` holding the bytes.
    With `textual` the backend gives a readable form instead (CPU:
    optimized LLVM IR; CUDA: PTX).

    ```mlir
    msexec.executable @cpu target("cpu") { module { llvm.func ... } }
    // becomes
    msexec.binary @cpu target("cpu") format("cpu-elf") data("\7FELF...")
    ```
  }];
  let options = [
    Option<"targetCpu", "target-cpu", "std::string", /*default=*/"\"native\"",
           "CPU to generate code for: native or an LLVM CPU name">,
    Option<"cacheDir", "cache-dir", "std::string", /*default=*/"\"\"",
           "Kernel cache directory (empty: no cache)">,
    Option<"cudaArch", "cuda-arch", "std::string", /*default=*/"\"sm_90a\"",
           "CUDA architecture to generate PTX for (sm_80, sm_90a, ...)">,
    Option<"textual", "textual", "bool", /*default=*/"false",
           "Serialize a readable form (LLVM IR) instead of the binary">,
  ];
}

#endif // MS_TARGET_PASSES_TD
