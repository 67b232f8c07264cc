#!/usr/bin/env python3
"""The GPU checks of a session that is lent a GPU, prepared ahead and run in
one go (a lease is short; the GPU machine has no LLVM, no ms-compile and
nothing to fetch, but has Python with NumPy).

  gpu-kit.py prepare KIT [--bin-dir DIR] [--target cuda] [--only NAMES]
                         [--onnx-tests DIR] [--bench-dir DIR]
      Here, where ms-compile is: compiles every e2e op test (test/e2e/ops)
      and PyTorch model (test/e2e/torch) for the target at O0, O1 and O2,
      with the op test's inputs (check.py's, seed 1234) and its NumPy
      reference outputs, or the model's stored inputs and PyTorch outputs,
      and the tolerance each test states (an op test whose data would take
      over 2 MB makes it where it runs instead); the benchmarks of
      bench/cuda (<name>.mlir, and the transformer layers of layers.py,
      exported to ONNX with their weights as inputs) at O1 and O2, and
      each variant a benchmark names (`// VARIANT: NAME FLAGS...`: the
      case bench-<name>@NAME, compiled with FLAGS too; --bench-dir DIR
      takes the <name>.mlir benchmarks from DIR instead); ONNX's
      conformance tests (node and simple models, DIR: ../shared/onnx-tests)
      at O1, packed with their data; and copies ms-run, libms_runtime.so
      and the runtime's gtest suites (ms-runtime-tests) into KIT. A test
      that does not compile for the target is listed and left out. NAMES:
      comma-separated test names (file names without .mlir, model
      directories, or bench-<name>) to prepare only those (then without the
      conformance tests, unless --onnx-filter REGEX picks some).

  gpu-kit.py check KIT [--device cuda] [--bench N] [--report FILE] [--jobs N]
                       [--case-timeout S] [--only NAMES]
      There: runs every case and level with KIT's ms-run on the device
      (--jobs at a time), compares each output with its reference at the
      test's tolerance and prints one line per case and level; runs the
      conformance tests against the target's expected-failure list
      (test/onnx/<target>-O1-xfail.tsv) and the runtime's suites for the
      device (BackendTest and HalTest on it; on cuda also CUDA graphs and
      collectives within the device), a check each; then a summary; exits
      1 if any failed. With --bench N, also times the models at O1 and O2
      (ms-run --bench N: the median of N runs after warm-up, one at a time)
      and prints the milliseconds and O1/O2, and runs the benchmarks (a
      fused elementwise chain, 4096^3 GEMMs in f32 and on tensor cores in
      bf16 (compiled with the file's COMPILE-FLAGS, compared at its
      TOLERANCE), softmax, layer norm, reductions, a BERT-base layer and a
      GPT-2 block): each against PyTorch's result (when PyTorch is there)
      and timed at O1 and O2 beside PyTorch eager and torch.compile, with
      bandwidth as a share of the device's copy bandwidth and matrix-product
      throughput, then all of them as one Markdown table, and the variants
      beside their benchmark in another (a benchmark's variants share its
      PyTorch result and timings: PyTorch runs and torch.compile compiles
      once a benchmark). --report FILE
      writes the same as JSON, with the GPU and PyTorch that ran it.
      --only NAMES runs those cases alone (onnx-conformance and
      runtime-tests name those checks).

`--target cpu` and `--device cpu` run the same steps on the CPU (how the kit
itself is tested: test/e2e/gpu-kit.test).
"""

import argparse
import concurrent.futures
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E2E = os.path.join(ROOT, "test", "e2e")
LEVELS = ("O0", "O1", "O2")


def import_torch():
    """PyTorch, or None where it is not installed: test/e2e/torch (on
    sys.path for check.py) is a folder of tests, which Python would
    otherwise import as an empty namespace package."""
    try:
        import torch
    except ImportError:
        return None
    return torch if getattr(torch, "__file__", None) else None


def load_check():
    """test/e2e/check.py as a module: its directives, inputs and compare."""
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    sys.path.insert(0, E2E)
    spec = importlib.util.spec_from_file_location("check", os.path.join(E2E, "check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_case(args, source, level, flags, out):
    """Compiles `source` for the kit's target at `level` into `out`; returns
    the error text, or None."""
    cmd = [os.path.join(args.bin_dir, "ms-compile"), source, "-O" + level[1:],
           "--target", args.target, "-o", out] + flags
    p = subprocess.run(cmd, capture_output=True, text=True)
    return None if p.returncode == 0 else (p.stderr or p.stdout).strip()


# An op test whose inputs and references take more bytes than this makes
# them where it runs (the kit travels within a size limit).
MAX_CASE_DATA = 2 << 20


def write_op_data(check, plan, text, target, case_dir):
    """Writes an op test's inputs (check.py's, seed 1234) and its NumPy
    references into `case_dir`; returns (inputs, outputs) for its record,
    or a reason it cannot."""
    refs, input_exprs, _, flags, _, _ = check.directives(text)
    if len(refs) != len(plan["outputs"]):
        return "expected %d REFERENCE lines, found %d" % (len(plan["outputs"]), len(refs))
    rng = np.random.default_rng(1234)
    inputs, record_inputs = [], {}
    for i, desc in enumerate(plan["inputs"]):
        dtype, shape = check.DTYPES[desc["dtype"]], tuple(desc["shape"])
        if i in input_exprs:
            a = np.asarray(eval(input_exprs[i], {"np": np, "rng": rng, "shape": shape,
                                                 "dtype": dtype})).astype(dtype)
        else:
            a = check.default_input(rng, shape, dtype)
        np.save(os.path.join(case_dir, "in%d.npy" % i), a)
        record_inputs[desc["name"]] = "in%d.npy" % i
        inputs.append(a)
    ref = check.ref
    scope = {"np": np, **{k: getattr(ref, k) for k in dir(ref) if not k.startswith("_")}}
    scope.update({"a%d" % i: a for i, a in enumerate(inputs)})
    if check.sets_precision(flags) and target == "cuda":
        # cuda rounds every product's operands with --precision, and
        # convolves directly.
        scope = check.cuda_scope(scope)
    outputs = []
    for i, (expr, desc) in enumerate(zip(refs, plan["outputs"])):
        want = np.asarray(eval(expr, scope))
        # An f32 output's float64 reference travels as f32: half the bytes;
        # its rounding (2^-24, 6e-8 relative) is a small part of every
        # tolerance (the tightest, rtol 1e-6, is 17 times as large).
        if want.dtype == np.float64 and desc["dtype"] == "f32":
            want = want.astype(np.float32)
        np.save(os.path.join(case_dir, "ref%d.npy" % i), want)
        outputs.append({"name": desc["name"], "ref": "ref%d.npy" % i,
                        "dtype": desc["dtype"]})
    return record_inputs, outputs


def prepare_op_test(args, check, msm, path, case_dir):
    """Writes one op test's case; returns its record, or a reason to skip."""
    text = open(path).read()
    _, _, (rtol, atol), flags, skips, _ = check.directives(text)
    flags = [f for f in flags if not f.startswith(check.CPU_FLAGS[0])]
    levels = [l for l in LEVELS if l not in skips]
    modules = {}
    for level in levels:
        module = os.path.join(case_dir, level + ".msm")
        error = compile_case(args, path, level, flags, module)
        if error:
            return "does not compile at %s: %s" % (level, error.splitlines()[0])
        modules[level] = level + ".msm"
    if not modules:
        return "every level is skipped"
    plan = msm.read_meta(os.path.join(case_dir, next(iter(modules.values()))))
    data = write_op_data(check, plan, text, args.target, case_dir)
    if isinstance(data, str):
        return data
    record = {"levels": modules, "inputs": data[0], "outputs": data[1],
              "rtol": rtol, "atol": atol, "model": False}
    files = [os.path.join(case_dir, f) for f in os.listdir(case_dir) if f.endswith(".npy")]
    if sum(os.path.getsize(f) for f in files) > MAX_CASE_DATA:
        for f in files:
            os.remove(f)
        record["generate"] = os.path.relpath(path, ROOT)
    return record


def generate_op_data(check, kit, name, case, kit_dir):
    """Makes a case's inputs and references where it runs, when the kit left
    them out; returns None, or the reason it could not."""
    if "generate" not in case:
        return None
    case_dir = os.path.join(kit_dir, "cases", name)
    try:
        plan = check.msm.read_meta(os.path.join(case_dir, next(iter(case["levels"].values()))))
        text = open(os.path.join(ROOT, case["generate"])).read()
        data = write_op_data(check, plan, text, kit["target"], case_dir)
    except Exception as e:  # noqa: BLE001 (reported as the case's failure)
        return "inputs and references not made here: %s: %s" % (type(e).__name__, e)
    return data if isinstance(data, str) else None


def prepare_model(args, msm, model_dir, case_dir):
    """Writes one PyTorch model's case; returns its record, or a reason."""
    name = os.path.basename(model_dir)
    test = open(model_dir + ".test").read()
    m = re.search(r"compare\.py \S+ \S+ --rtol (\S+) --atol (\S+)", test)
    if not m:
        return "no tolerance in %s.test" % name
    modules = {}
    for level in LEVELS:
        error = compile_case(args, os.path.join(model_dir, "model.onnx"), level, [],
                             os.path.join(case_dir, level + ".msm"))
        if error:
            return "does not compile at %s: %s" % (level, error.splitlines()[0])
        modules[level] = level + ".msm"
    plan = msm.read_meta(os.path.join(case_dir, "O0.msm"))
    inputs, outputs = {}, []
    for desc in plan["inputs"]:
        shutil.copy(os.path.join(model_dir, desc["name"] + ".npy"), case_dir)
        inputs[desc["name"]] = desc["name"] + ".npy"
    for desc in plan["outputs"]:
        ref = "ref_" + desc["name"] + ".npy"
        shutil.copy(os.path.join(model_dir, desc["name"] + ".npy"),
                    os.path.join(case_dir, ref))
        outputs.append({"name": desc["name"], "ref": ref, "dtype": desc["dtype"]})
    return {"levels": modules, "inputs": inputs, "outputs": outputs,
            "rtol": float(m.group(1)), "atol": float(m.group(2)), "model": True}


def bench_variants(path):
    """The variants a benchmark names (`// VARIANT: NAME FLAGS...`), by
    name: each is compiled with its flags after COMPILE-FLAGS."""
    return {m.group(1): m.group(2).split()
            for m in re.finditer(r"//\s*VARIANT:\s*(\S+)\s*(.*)", open(path).read())}


def prepare_bench(args, msm, path, case_dir, variant=None):
    """Writes one benchmark's case (bench/cuda): modules at O1 and O2, its
    signature and directives (with `variant`'s flags, if named); inputs are
    made where it runs."""
    text = open(path).read()
    bench = {"torch": None, "moves": 0, "flops": 0}
    for key, pattern in (("torch", r"//\s*TORCH:\s*(.*)"), ("moves", r"//\s*MOVES:\s*(\d+)"),
                         ("flops", r"//\s*FLOPS:\s*(\d+)")):
        m = re.search(pattern, text)
        if m:
            bench[key] = m.group(1).strip() if key == "torch" else int(m.group(1))
    m = re.search(r"//\s*COMPILE-FLAGS:\s*(.*)", text)
    flags = m.group(1).split() if m else []
    if variant:
        flags += bench_variants(path)[variant]
    m = re.search(r"//\s*TOLERANCE:\s*rtol=(\S+)\s+atol=(\S+)", text)
    rtol, atol = (float(m.group(1)), float(m.group(2))) if m else (1e-3, 1e-3)
    return compile_bench(args, msm, path, flags, case_dir, bench, rtol, atol)


def compile_bench(args, msm, source, flags, case_dir, bench, rtol, atol):
    """A benchmark's record: `source` compiled at O1 and O2, `bench` given
    the module's signature; or a reason it does not compile."""
    modules = {}
    for level in ("O1", "O2"):
        error = compile_case(args, source, level, flags, os.path.join(case_dir, level + ".msm"))
        if error:
            return "does not compile at %s: %s" % (level, error.splitlines()[0])
        modules[level] = level + ".msm"
    plan = msm.read_meta(os.path.join(case_dir, "O1.msm"))
    bench["inputs"] = [[d["name"], d["dtype"], d["shape"]] for d in plan["inputs"]]
    bench["outputs"] = [[d["name"], d["dtype"], d["shape"]] for d in plan["outputs"]]
    return {"levels": modules, "inputs": {}, "outputs": [], "rtol": rtol,
            "atol": atol, "model": False, "bench": bench}


# The level of the kit's ONNX conformance run (its expected failures:
# test/onnx/<target>-O1-xfail.tsv).
CONFORMANCE_LEVEL = "O1"


def prepare_conformance(args):
    """Compiles ONNX's conformance tests (node and simple models) for the
    kit's target and packs the modules and the tests' data into
    KIT/onnx/modules.tar.gz and tests.tar.gz (a tenth of the bytes); returns
    the kit's record, or None when there is no test data."""
    tests = args.onnx_tests
    if not os.path.exists(os.path.join(tests, "MANIFEST.tsv")):
        return None
    out = os.path.join(args.kit, "onnx")
    # A test that does not compile has no module: where the kit runs it
    # fails as not compiled, which its expected-failure list accounts for.
    p = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "onnx-conformance"),
                        "--target", args.target, "--level", CONFORMANCE_LEVEL,
                        "--compile-only", "--skip-light",
                        "--save-modules", os.path.join(out, "modules"),
                        "--build-dir", os.path.dirname(os.path.abspath(args.bin_dir)),
                        "--tests-dir", tests, "--jobs", str(os.cpu_count() or 2),
                        "--filter", args.onnx_filter],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        # Unexpected failures here fail the same way there; say so now.
        print("warning: compiling the conformance tests: %s"
              % "; ".join(l for l in p.stdout.splitlines() if l.startswith("FAIL "))[:2000])
    with tarfile.open(os.path.join(out, "tests.tar.gz"), "w:gz") as tar:
        for name in ("MANIFEST.tsv", "node", "simple"):
            tar.add(os.path.join(tests, name), arcname=name)
    modules = os.path.join(out, "modules")
    count = len(os.listdir(modules))
    with tarfile.open(modules + ".tar.gz", "w:gz") as tar:
        tar.add(modules, arcname=".")
    shutil.rmtree(modules)
    return {"level": CONFORMANCE_LEVEL, "modules": count, "filter": args.onnx_filter}


def run_conformance(args, kit):
    """Runs the kit's ONNX conformance modules on the device against the
    target's expected-failure list; returns (ok, one line, the FAIL and
    XPASS lines), or None when the kit has none."""
    onnx = kit.get("onnx")
    if not onnx:
        return None
    out = os.path.join(args.kit, "onnx")
    tests = os.path.join(out, "tests")
    for packed in ("tests", "modules"):
        where = os.path.join(out, packed)
        if os.path.exists(where):
            continue
        with tarfile.open(where + ".tar.gz") as tar:
            try:
                tar.extractall(where, filter="data")
            except TypeError:  # a Python before 3.11.4
                tar.extractall(where)
    cmd = [sys.executable, os.path.join(ROOT, "utils", "onnx-conformance"),
           "--target", kit["target"], "--level", onnx["level"], "--skip-light",
           "--modules", os.path.join(out, "modules"), "--tests-dir", tests,
           "--build-dir", args.kit, "--jobs", str(max(1, args.jobs)),
           "--filter", onnx.get("filter", "")]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=kit_env(args),
                           timeout=1200)
    except subprocess.TimeoutExpired:
        return False, "timed out after 1200 s", []
    lines = p.stdout.splitlines()
    unexpected = [l for l in lines if l.startswith(("FAIL ", "XPASS "))]
    summary = "; ".join(l for l in lines[-2:] if l) or (p.stderr or "no output")[-400:]
    return p.returncode == 0, "%s at %s: %s" % (kit["target"], onnx["level"], summary), unexpected


def load_layers():
    """bench/cuda/layers.py as a module (it needs PyTorch)."""
    spec = importlib.util.spec_from_file_location(
        "layers", os.path.join(ROOT, "bench", "cuda", "layers.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepare_layer(args, msm, name, case_dir):
    """Writes one layer benchmark's case (bench/cuda/layers.py): the
    function exported to ONNX with its weights as inputs, compiled at O1
    and O2; inputs are made where it runs."""
    torch = import_torch()
    if torch is None:
        return "no PyTorch here to export it"
    try:
        layers = load_layers()
    except ImportError as e:
        return "no PyTorch here to export it: %s" % e
    function, inputs, flops = layers.LAYERS[name]

    class Layer(torch.nn.Module):
        def forward(self, *tensors):
            return function(*tensors)

    onnx = os.path.join(case_dir, "model.onnx")
    try:
        torch.onnx.export(Layer(), tuple(torch.zeros(shape) for _, shape, _ in inputs), onnx,
                          input_names=[n for n, _, _ in inputs], output_names=["y"],
                          opset_version=17, do_constant_folding=True)
    except Exception as e:  # noqa: BLE001 (an exporter that cannot: listed as skipped)
        return "PyTorch cannot export it: %s" % str(e).splitlines()[0][:200]
    bench = {"torch": None, "layer": name, "moves": 0, "flops": flops,
             "scales": {n: scale for n, _, scale in inputs},
             "arguments": [n for n, _, _ in inputs]}
    record = compile_bench(args, msm, onnx, [], case_dir, bench, 1e-3, 1e-3)
    os.remove(onnx)
    return record


def prepare(args):
    check = load_check()
    msm = check.msm
    only = set(n for n in args.only.split(",") if n) if args.only else None
    sources = [(os.path.splitext(os.path.basename(p))[0], p, False)
               for p in sorted(glob.glob(os.path.join(E2E, "ops", "*.mlir")))]
    sources += [(os.path.basename(p), p, True)
                for p in sorted(glob.glob(os.path.join(E2E, "torch", "*")))
                if os.path.isdir(p) and os.path.exists(os.path.join(p, "model.onnx"))]
    for p in sorted(glob.glob(os.path.join(args.bench_dir, "*.mlir"))):
        name = "bench-" + os.path.splitext(os.path.basename(p))[0]
        sources += [(name, p, "bench")]
        sources += [(name + "@" + v, p, "bench") for v in sorted(bench_variants(p))]
    # The layers' names from the file's text: reading it as a module needs
    # PyTorch (without, each layer is listed as skipped).
    layers_text = open(os.path.join(ROOT, "bench", "cuda", "layers.py")).read()
    sources += [("bench-" + name, name, "layer")
                for name in sorted(re.findall(r'^    "([\w-]+)": \(', layers_text, re.M))]
    if only is not None:
        missing = only - set(name for name, _, _ in sources)
        if missing:
            print("gpu-kit: no test named %s" % ", ".join(sorted(missing)))
            return 2
        sources = [s for s in sources if s[0] in only]
    shutil.rmtree(args.kit, ignore_errors=True)
    os.makedirs(os.path.join(args.kit, "bin"))
    os.makedirs(os.path.join(args.kit, "lib"))
    shutil.copy(os.path.join(args.bin_dir, "ms-run"), os.path.join(args.kit, "bin"))
    shutil.copy(os.path.join(args.bin_dir, "..", "lib", "libms_runtime.so"),
                os.path.join(args.kit, "lib"))
    suites = os.path.join(args.bin_dir, "ms-runtime-tests")
    if os.path.exists(suites):
        shutil.copy(suites, os.path.join(args.kit, "bin"))
    cases, skipped = {}, {}
    for name, path, model in sources:
        case_dir = os.path.join(args.kit, "cases", name)
        os.makedirs(case_dir)
        if model == "bench":
            record = prepare_bench(args, msm, path, case_dir, name.partition("@")[2])
        elif model == "layer":
            record = prepare_layer(args, msm, path, case_dir)
        elif model:
            record = prepare_model(args, msm, path, case_dir)
        else:
            record = prepare_op_test(args, check, msm, path, case_dir)
        if isinstance(record, str):
            skipped[name] = record
            shutil.rmtree(case_dir)
            continue
        cases[name] = record
    record = {"target": args.target, "cases": cases, "skipped": skipped}
    if (only is None or args.onnx_filter) and args.onnx_tests:
        record["onnx"] = prepare_conformance(args)
        if record["onnx"]:
            print("compiled %d ONNX conformance tests at %s"
                  % (record["onnx"]["modules"], CONFORMANCE_LEVEL))
    with open(os.path.join(args.kit, "kit.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    for name, reason in sorted(skipped.items()):
        print("skipped %s: %s" % (name, reason))
    print("prepared %d cases (%d models) for %s, %d skipped, in %s"
          % (len(cases), sum(c["model"] for c in cases.values()), args.target,
             len(skipped), args.kit))
    return 0


def kit_env(args):
    """The environment of the kit's programs: its libraries first, then the
    machine's (where a container may name the driver's folder)."""
    paths = [os.path.abspath(os.path.join(args.kit, "lib"))]
    if os.environ.get("LD_LIBRARY_PATH"):
        paths.append(os.environ["LD_LIBRARY_PATH"])
    return dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(paths))


def run_ms(args, module, arguments):
    """Runs the kit's ms-run on `module` on the device with `arguments`,
    within --case-timeout; returns (its stdout, None), or (None, the
    error line). Safe to call from several threads."""
    cmd = [os.path.join(args.kit, "bin", "ms-run"), module, "--device", args.device]
    try:
        p = subprocess.run(cmd + arguments, capture_output=True, text=True, env=kit_env(args),
                           timeout=args.case_timeout)
    except subprocess.TimeoutExpired:
        return None, "ms-run timed out after %d s" % args.case_timeout
    if p.returncode != 0:
        return None, "ms-run failed (exit %d): %s" % (p.returncode,
                                                      (p.stderr or p.stdout).strip()[:400])
    return p.stdout, None


def median_of(stdout):
    """The median_ms ms-run --bench printed, or None."""
    m = re.search(r"median_ms[ :=]+([0-9.]+)", stdout or "")
    return float(m.group(1)) if m else None


def run_case(args, name, case, level, work):
    """Runs one case at one level with ms-run; returns its error line, or
    None. Safe to call from several threads."""
    case_dir = os.path.join(args.kit, "cases", name)
    return run_ms(args, os.path.join(case_dir, case["levels"][level]),
                  ["--output-dir", os.path.join(work, name, level)]
                  + bind_inputs(case_dir, case["inputs"]))[1]


def bind_inputs(case_dir, inputs):
    """ms-run's --input arguments for a case's input files."""
    return [arg for name, file in sorted(inputs.items())
            for arg in ("--input", "%s=%s" % (name, os.path.join(case_dir, file)))]


def compare_case(check, args, name, case, level, work):
    """Compares one run's outputs with the references; returns (ok, the
    comparison's lines)."""
    import contextlib
    import io
    case_dir = os.path.join(args.kit, "cases", name)
    ok, lines = True, []
    for desc in case["outputs"]:
        got = np.load(os.path.join(work, name, level, desc["name"] + ".npy"))
        want = np.load(os.path.join(case_dir, desc["ref"]))
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            ok = check.compare(got, want, check.DTYPES[desc["dtype"]], case["rtol"],
                               case["atol"], desc["name"]) and ok
        lines += text.getvalue().splitlines()
    return ok, lines


def run_suites(args):
    """Runs the runtime's gtest suites for the device from the kit; returns
    (ok, one line), or None when the kit has none."""
    binary = os.path.join(args.kit, "bin", "ms-runtime-tests")
    if not os.path.exists(binary):
        return None
    tests = "*/%s" % args.device
    if args.device == "cuda":
        tests += ":CudaGraphTest.*:CollectiveTest.EveryOpOnOneCudaRankCopiesOnTheDevice"
    env = kit_env(args)
    try:
        p = subprocess.run([binary, "--gtest_brief=1", "--gtest_filter=" + tests],
                           capture_output=True, text=True, env=env, timeout=600)
    except subprocess.TimeoutExpired:
        return False, "timed out after 600 s"
    passed = re.search(r"\[  PASSED  \] (\d+) test", p.stdout)
    skipped = re.search(r"\[  SKIPPED \] (\d+) test", p.stdout)
    failed = re.findall(r"\[  FAILED  \] (\S+)", p.stdout)
    count = int(passed.group(1)) if passed else 0
    line = "%d passed, %s skipped" % (count, skipped.group(1) if skipped else 0)
    if p.returncode != 0:
        line += ", failed (exit %d): %s" % (
            p.returncode, ", ".join(sorted(set(failed))) or (p.stderr or p.stdout)[-400:])
    elif count == 0:
        line += ": none ran (is the device there?)"
    return p.returncode == 0 and count > 0, line


def bench(args, case_dir, module, inputs):
    """The median milliseconds of `--bench N` runs of `module`."""
    stdout, _ = run_ms(args, os.path.join(case_dir, module),
                       ["--bench", str(args.bench)] + bind_inputs(case_dir, inputs))
    return median_of(stdout)


def median_ms(fn, n, sync):
    """The median milliseconds of `n` calls of `fn` after 3, each waited for."""
    import time
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def run_bench(args, name, case, work, references):
    """Runs benchmark `name`: ms at O1 and O2 against PyTorch's result, then
    timed (when --bench) beside PyTorch eager and torch.compile. PyTorch's
    result and timings are kept in `references` for the benchmark's
    variants (bench-<name>@VARIANT: the same inputs and function), which
    reuse them. Returns (ok, lines, timing)."""
    check = load_check()
    bench = case["bench"]
    case_dir = os.path.join(args.kit, "cases", name)
    rng = np.random.default_rng(1234)
    inputs, bind = [], []
    os.makedirs(os.path.join(work, name))
    scales = bench.get("scales") or {}
    for i, (input_name, dtype, shape) in enumerate(bench["inputs"]):
        scale = scales.get(input_name, 1.0)
        a = rng.uniform(-scale, scale, shape).astype(check.DTYPES[dtype])
        path = os.path.join(work, name, "in%d.npy" % i)
        np.save(path, a)
        bind += ["--input", "%s=%s" % (input_name, path)]
        inputs.append(a)
    torch = import_torch()
    device = "cuda" if args.device == "cuda" else "cpu"
    want, eager = None, None
    lines = []
    key = json.dumps([name.partition("@")[0], bench["inputs"], bench["torch"],
                      bench.get("layer")])
    reference = references.get(key)
    if reference is not None:
        want = reference["want"]
        torch = None
    if torch is not None and (bench["torch"] or bench.get("layer")):
        torch.backends.cuda.matmul.allow_tf32 = False
        # The PyTorch function, as torch.compile can trace it.
        names = ", ".join("a%d" % i for i in range(len(inputs)))
        function = (load_layers().LAYERS[bench["layer"]][0] if bench.get("layer") else
                    eval("lambda %s: %s" % (names, bench["torch"]), {"torch": torch}))
        # A layer's arguments by name: the module's inputs are in the
        # order the importer gives them.
        ordered = inputs
        if bench.get("arguments"):
            by_name = {n: a for (n, _, _), a in zip(bench["inputs"], inputs)}
            missing = [n for n in bench["arguments"] if n not in by_name]
            if missing:
                return False, ["the module has no input %s" % ", ".join(missing)], {}
            ordered = [by_name[n] for n in bench["arguments"]]
        try:
            targs = [torch.from_numpy(a).to(device) for a in ordered]
            eager = lambda: function(*targs)  # noqa: E731
            want = eager().cpu().numpy()
        except Exception as e:  # noqa: BLE001 (a PyTorch without this device)
            lines.append("no PyTorch reference on %s: %s" % (device, str(e).splitlines()[0][:200]))
            torch, eager = None, None
    if want is None:
        lines.append("results not checked (no PyTorch reference)")
    sync = (torch.cuda.synchronize if torch is not None and device == "cuda"
            else (lambda: None))
    ok, timing = True, {}
    for level in sorted(case["levels"]):
        out = os.path.join(work, name, level)
        stdout, error = run_ms(args, os.path.join(case_dir, case["levels"][level]),
                               ["--output-dir", out] + bind
                               + (["--bench", str(args.bench)] if args.bench else []))
        if error:
            lines.append("[%s] %s" % (level, error))
            ok = False
            continue
        timing[level] = median_of(stdout)
        if want is not None:
            import contextlib
            import io
            got = np.load(os.path.join(out, bench["outputs"][0][0] + ".npy"))
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                ok = check.compare(got, want, check.DTYPES[bench["outputs"][0][1]],
                                   case["rtol"], case["atol"], "[%s]" % level) and ok
            lines += text.getvalue().splitlines()
    if reference is not None:
        timing.update(reference["timing"])
    elif args.bench and eager is not None:
        timing["torch_eager"] = median_ms(eager, args.bench, sync)
        compiled = getattr(torch, "compile", None)
        if compiled is not None and device == "cuda":
            try:
                fn = compiled(function)
                timing["torch_compile"] = median_ms(lambda: fn(*targs), args.bench, sync)
            except Exception as e:  # noqa: BLE001 (inductor may be missing)
                lines.append("torch.compile failed: %s" % str(e).splitlines()[0][:200])
        if bench["moves"]:
            src = torch.empty(bench["moves"] // 8, dtype=torch.float32, device=device)
            dst = torch.empty_like(src)
            timing["copy"] = median_ms(lambda: dst.copy_(src), args.bench, sync)
    if reference is None:
        references[key] = {"want": want, "timing": {
            k: v for k, v in timing.items() if k in ("torch_eager", "torch_compile", "copy")}}
    if args.bench:
        parts = ["%s %.3f ms" % (k, v) for k, v in sorted(timing.items()) if v]
        best = min((v for k, v in timing.items() if k in ("O1", "O2") and v), default=None)
        if best and timing.get("torch_eager"):
            parts.append("torch_eager/ms %.2f" % (timing["torch_eager"] / best))
        if best and timing.get("torch_compile"):
            parts.append("torch_compile/ms %.2f" % (timing["torch_compile"] / best))
        if best and bench["moves"]:
            parts.append("%.0f GB/s" % (bench["moves"] / best / 1e6))
            if timing.get("copy"):
                parts.append("%.0f%% of copy bandwidth" % (100 * timing["copy"] / best))
        if best and bench["flops"]:
            parts.append("%.2f TFLOP/s" % (bench["flops"] / best / 1e9))
        lines.append(", ".join(parts))
    return ok, lines, timing


def print_bench_table(benches, timings):
    """The benchmarks' timings as one Markdown table (docs/Performance.md's
    columns): ms at O1 and O2, PyTorch eager and torch.compile, their
    ratios to ms's best level (above 1: ms is faster), and throughput."""
    def ms(value):
        return "%.3f ms" % value if value else "-"
    print("\n| benchmark | ms O1 | ms O2 | PyTorch eager | torch.compile | vs eager "
          "| vs compile | throughput |\n|---|---|---|---|---|---|---|---|")
    for name, case in sorted(benches.items()):
        timing, bench = timings.get(name, {}), case["bench"]
        best = min((timing[k] for k in ("O1", "O2") if timing.get(k)), default=None)
        ratios = ["%.2f" % (timing[k] / best) if best and timing.get(k) else "-"
                  for k in ("torch_eager", "torch_compile")]
        throughput = "-"
        if best and bench["flops"]:
            throughput = "%.1f TFLOP/s" % (bench["flops"] / best / 1e9)
        elif best and bench["moves"]:
            throughput = "%.0f GB/s" % (bench["moves"] / best / 1e6)
            if timing.get("copy"):
                throughput += ", %.0f%% of copy bandwidth" % (100 * timing["copy"] / best)
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, ms(timing.get("O1")), ms(timing.get("O2")), ms(timing.get("torch_eager")),
            ms(timing.get("torch_compile")), ratios[0], ratios[1], throughput))


def print_variant_table(benches, timings):
    """The variants' timings beside their benchmark's, as one Markdown
    table: each level's best time and the benchmark's over the variant's
    (above 1: the variant is faster)."""
    def best(name):
        timing = timings.get(name, {})
        return min((timing[k] for k in ("O1", "O2") if timing.get(k)), default=None)
    variants = sorted(n for n in benches if "@" in n)
    if not variants:
        return
    print("\n| variant | ms best | benchmark's best | benchmark/variant |\n|---|---|---|---|")
    for name in variants:
        mine, theirs = best(name), best(name.partition("@")[0])
        print("| %s | %s | %s | %s |" % (
            name, "%.3f ms" % mine if mine else "-", "%.3f ms" % theirs if theirs else "-",
            "%.2f" % (theirs / mine) if mine and theirs else "-"))


def describe_machine(device):
    """The device and PyTorch that ran the check, for the report."""
    machine = {"device": device}
    torch = import_torch()
    if torch is not None:
        machine["torch"] = torch.__version__
        if device == "cuda" and torch.cuda.is_available():
            machine["gpu"] = torch.cuda.get_device_name(0)
            machine["cuda"] = torch.version.cuda
    return machine


def check_kit(args):
    kit = json.load(open(os.path.join(args.kit, "kit.json")))
    if args.only:
        # Only the named cases, and the conformance run and runtime suites
        # only when named.
        only = set(n for n in args.only.split(",") if n)
        unknown = only - set(kit["cases"]) - {"onnx-conformance", "runtime-tests"}
        if unknown:
            print("gpu-kit: the kit has no case %s" % ", ".join(sorted(unknown)))
            return 2
        kit["cases"] = {n: c for n, c in kit["cases"].items() if n in only}
        if "onnx-conformance" not in only:
            kit.pop("onnx", None)
        args.suites = "runtime-tests" in only
    else:
        args.suites = True
    results, failed = {}, 0
    runs = [(name, case, level) for name, case in sorted(kit["cases"].items())
            if "bench" not in case for level in sorted(case["levels"])]
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        # The cases run --jobs at a time (their results are printed in
        # order); the timings below run one at a time.
        check = load_check()
        missing = {name: generate_op_data(check, kit, name, case, args.kit)
                   for name, case in kit["cases"].items()}
        # Results in the order of `runs`, each printed once it is there.
        errors = pool.map(lambda run: run_case(args, run[0], run[1], run[2], work),
                          [run for run in runs if not missing[run[0]]])
        for name, case, level in runs:
            error = missing[name] or next(errors)
            ok, lines = (False, [error]) if error else compare_case(check, args, name, case,
                                                                    level, work)
            failed += not ok
            results.setdefault(name, {})[level] = {"ok": ok, "detail": lines}
            print("%s %s %s: %s" % ("PASS" if ok else "FAIL", name, level, "; ".join(lines)),
                  flush=True)
    timings = {}
    if args.bench:
        print("\n| model | O1 ms | O2 ms | O1/O2 |\n|---|---|---|---|")
        for name, case in sorted(kit["cases"].items()):
            if not case["model"]:
                continue
            case_dir = os.path.join(args.kit, "cases", name)
            o1 = bench(args, case_dir, case["levels"]["O1"], case["inputs"])
            o2 = bench(args, case_dir, case["levels"]["O2"], case["inputs"])
            timings[name] = {"O1": o1, "O2": o2}
            ratio = "%.2f" % (o1 / o2) if o1 and o2 else "-"
            print("| %s | %s | %s | %s |" % (name, o1, o2, ratio))
    benches = {n: c for n, c in kit["cases"].items() if "bench" in c}
    if benches:
        with tempfile.TemporaryDirectory() as work:
            references = {}
            for name, case in sorted(benches.items()):
                ok, lines, timing = run_bench(args, name, case, work, references)
                failed += not ok
                results.setdefault(name, {})["bench"] = {"ok": ok, "detail": lines}
                timings[name] = timing
                print("%s %s: %s" % ("PASS" if ok else "FAIL", name, "; ".join(lines)))
        if args.bench:
            print_bench_table(benches, timings)
            print_variant_table(benches, timings)
    total = sum(len(c["levels"]) for c in kit["cases"].values() if "bench" not in c)
    total += len(benches)
    conformance = run_conformance(args, kit)
    if conformance is not None:
        ok, line, unexpected = conformance
        failed += not ok
        total += 1
        results["onnx-conformance"] = {"run": {"ok": ok, "detail": [line] + unexpected}}
        for l in unexpected[:50]:
            print("  " + l)
        print("%s onnx-conformance: %s" % ("PASS" if ok else "FAIL", line), flush=True)
    suites = run_suites(args) if args.suites else None
    if suites is not None:
        ok, line = suites
        failed += not ok
        total += 1
        results["runtime-tests"] = {"suites": {"ok": ok, "detail": [line]}}
        print("%s runtime-tests: %s" % ("PASS" if ok else "FAIL", line))
    print("\n%d of %d checks passed on %s (%d cases, %d of them benchmarks; %d "
          "tests skipped when the kit was prepared)"
          % (total - failed, total, args.device, len(kit["cases"]), len(benches),
             len(kit["skipped"])))
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"device": args.device, "machine": describe_machine(args.device),
                       "results": results, "timings": timings,
                       "skipped": kit["skipped"]}, f, indent=1, sort_keys=True)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("kit")
    p.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    p.add_argument("--target", default="cuda")
    p.add_argument("--only", default="")
    p.add_argument("--onnx-tests", default=os.path.join(os.path.dirname(ROOT), "shared",
                                                        "onnx-tests"),
                   help="ONNX's conformance data; its tests go into the kit unless "
                        "--only is given ('' to leave them out)")
    p.add_argument("--bench-dir", default=os.path.join(ROOT, "bench", "cuda"),
                   help="the benchmarks (<name>.mlir) to prepare")
    p.add_argument("--onnx-filter", default="",
                   help="only the conformance tests matching REGEX (also with --only)")
    c = sub.add_parser("check")
    c.add_argument("kit")
    c.add_argument("--device", default="cuda")
    c.add_argument("--bench", type=int, default=0)
    c.add_argument("--report", default="")
    c.add_argument("--only", default="",
                   help="comma-separated cases to run (onnx-conformance and "
                        "runtime-tests name those checks)")
    c.add_argument("--jobs", type=int, default=1,
                   help="cases run at a time (the timings always run alone)")
    c.add_argument("--case-timeout", type=int, default=600,
                   help="seconds one ms-run may take before it counts as failed")
    args = ap.parse_args()
    return prepare(args) if args.command == "prepare" else check_kit(args)


if __name__ == "__main__":
    sys.exit(main())
