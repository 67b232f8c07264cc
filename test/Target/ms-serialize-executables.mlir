// RUN: ms-opt %s -split-input-file -ms-serialize-executables='target-cpu=x86-64' -verify-diagnostics | FileCheck %s
// RUN: ms-opt %s -split-input-file -ms-serialize-executables='target-cpu=x86-64 textual=true' -verify-diagnostics | FileCheck %s --check-prefix=TEXT

// CHECK: msexec.binary @cpu target("cpu") format("cpu-elf") data("\7FELF
// CHECK-NOT: msexec.executable
// TEXT: msexec.binary @cpu target("cpu") format("llvm-ir") data("; ModuleID
// TEXT-SAME: define void @ms_kernel_0(ptr
msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @ms_kernel_0(%args: !llvm.ptr) {
      llvm.return
    }
  }
}

// -----

// expected-error @+1 {{target 'cuda' is not built into this compiler}}
msexec.executable @gpu target("cuda") {
  builtin.module {
  }
}
