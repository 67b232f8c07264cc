# -*- Python -*-
# lit configuration for the ms test suite.

import os
import platform
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "corpus", "regressions", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "check.py", "ref.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ms_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%ms_src_root", config.ms_src_root))
config.substitutions.append(("%ms_obj_root", config.ms_obj_root))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# The compilers' kernel cache: one for the test runs of this build, not the
# user's.
config.environment["MS_CACHE_DIR"] = os.path.join(config.ms_obj_root, "test",
                                                  "ms-cache")
llvm_config.use_default_substitutions()

tool_dirs = [config.ms_tools_dir, config.llvm_tools_dir]
tools = ["ms-opt", "ms-compile", "ms-run", "ms-runtime-tests", "ms-compiler-unit-tests"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Tests of x86 code generation (--target-cpu=x86-64-v3 and the like).
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64-host")

# The Python package (python/) is built.
if config.ms_python_enabled:
    config.available_features.add("python-bindings")

# ONNX's conformance data lives beside the checkout (../shared/onnx-tests).
if os.path.exists(os.path.join(os.path.dirname(config.ms_src_root), "shared",
                               "onnx-tests", "MANIFEST.tsv")):
    config.available_features.add("onnx-tests")

# The structure-aware fuzzer needs clang's FuzzedDataProvider.h to build.
if os.path.exists(os.path.join(config.ms_obj_root, "bin", "ms-fuzz-onnx-node")):
    config.available_features.add("fuzz-onnx-node")

# CUDA's ptxas (PATH or /usr/local/cuda) checks the cuda target's PTX
# offline; no GPU is needed.
config.ms_ptxas = shutil.which("ptxas") or shutil.which(
    "ptxas", path="/usr/local/cuda/bin")
if config.ms_ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ms_ptxas))

# Multi-process runs: the runtime's Gloo plugin (ms-run --nproc) and its MPI
# plugin with Open MPI's launcher (mpirun -np N ms-run).
lib_dir = os.path.join(config.ms_obj_root, "lib")
if os.path.exists(os.path.join(lib_dir, "libms_comm_gloo.so")):
    config.available_features.add("gloo")
if os.path.exists(os.path.join(lib_dir, "libms_comm_mpi.so")) and \
        shutil.which("mpirun"):
    config.available_features.add("mpirun")
    # Open MPI refuses to start as root without both variables; in the
    # sanitizer build its own allocations (never freed) are not our leaks.
    asan = os.environ.get("ASAN_OPTIONS", "")
    config.substitutions.append(
        ("%mpirun", "env OMPI_ALLOW_RUN_AS_ROOT=1 "
         "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=%s "
         "mpirun --oversubscribe" % (asan + ":detect_leaks=0").lstrip(":")))

# The CUDA driver stand-in the runtime's cuda backend is tested with when
# no GPU is present (runtime/test/cuda/FakeCuda.cpp).
fake_cuda = os.path.join(config.ms_obj_root, "runtime", "fake-cuda")
if os.path.exists(os.path.join(fake_cuda, "libcuda.so.1")):
    config.available_features.add("fake-cuda")
    config.substitutions.append(("%fake_cuda", fake_cuda))
