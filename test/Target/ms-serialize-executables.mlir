// RUN: ms-opt %s -split-input-file -ms-serialize-executables='target-cpu=x86-64' -verify-diagnostics | FileCheck %s
// RUN: ms-opt %s -split-input-file -ms-serialize-executables='target-cpu=x86-64 textual=true' -verify-diagnostics | FileCheck %s --check-prefix=TEXT
// RUN: ms-opt %s -split-input-file -ms-serialize-executables='target-cpu=x86-64-v3' -verify-diagnostics | FileCheck %s --check-prefix=V3
// RUN: not ms-opt %s -split-input-file -ms-serialize-executables='target-cpu=pentium9' 2>&1 | FileCheck %s --check-prefix=BAD

// The baseline x86-64 needs no extension the module file records; the
// binary of a newer CPU lists those it needs.
// CHECK: msexec.binary @cpu target("cpu") format("cpu-elf") data("\7FELF
// CHECK-NOT: msexec.executable
// V3: msexec.binary @cpu target("cpu") format("cpu-elf") requires(["sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt", "movbe"]) data("\7FELF
// BAD: error: unknown --target-cpu 'pentium9': expected native or an LLVM CPU name
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

// expected-error @+1 {{target 'tpu' is not built into this compiler}}
msexec.executable @tpu target("tpu") {
  builtin.module {
  }
}
