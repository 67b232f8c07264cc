//===- Passes.td - ms program-level passes -----------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TRANSFORMS_PASSES_TD
#define MS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineKernelsPass : Pass<"ms-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "outlines each msgraph op of the entry function into a kernel";
  let description = [{
    The O0 partitioning: every msgraph op of the entry function other than a
    constant moves into its own function `kernel_<N>` (in program order,
    tagged `ms.kernel`) and is replaced by a `func.call`. What remains in the
    entry function (constants, calls, casts and the return) is the host
    program from which the execution plan is built.

    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = msgraph.exp %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    // becomes
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = call @kernel_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    func.func @kernel_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
      %0 = msgraph.exp %arg0 : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: @main, or the only public function)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // MS_TRANSFORMS_PASSES_TD
