#!/usr/bin/env python3
"""The GPU checks of a session that is lent a GPU, prepared ahead and run in
one go (a lease is short; the GPU machine has no LLVM, no ms-compile and
nothing to fetch, but has Python with NumPy).

  gpu-kit.py prepare KIT [--bin-dir DIR] [--target cuda] [--only NAMES]
      Here, where ms-compile is: compiles every e2e op test (test/e2e/ops)
      and PyTorch model (test/e2e/torch) for the target at O0, O1 and O2,
      with the op test's inputs (check.py's, seed 1234) and its NumPy
      reference outputs, or the model's stored inputs and PyTorch outputs,
      and the tolerance each test states; copies ms-run, libms_runtime.so
      and the runtime's gtest suites (ms-runtime-tests) into KIT. A test that does not compile for the target is listed and
      left out. NAMES: comma-separated test names (file names without
      .mlir, model directories or bench-<name> for bench/cuda/<name>.mlir)
      to prepare only those.

  gpu-kit.py check KIT [--device cuda] [--bench N] [--report FILE]
      There: runs every case and level with KIT's ms-run on the device,
      compares each output with its reference at the test's tolerance and
      prints one line per case and level, runs the runtime's suites for the
      device (BackendTest and HalTest on it; on cuda also CUDA graphs and
      collectives within the device) as one more check, then a summary;
      exits 1 if any failed. With --bench N, also times the models at O1 and O2 (ms-run
      --bench N: the median of N runs after warm-up) and prints the
      milliseconds and O1/O2, and runs the benchmarks of bench/cuda (a
      fused elementwise chain, 4096^3 GEMMs in f32 and on tensor cores
      in bf16 (compiled with the file's COMPILE-FLAGS), softmax, layer norm): each
      against PyTorch's result (when PyTorch is there) and timed at O1 and
      O2 beside PyTorch eager and torch.compile, with bandwidth as a share
      of the device's copy bandwidth and GEMM throughput. --report FILE
      writes the same as JSON.

`--target cpu` and `--device cpu` run the same steps on the CPU (how the kit
itself is tested: test/e2e/gpu-kit.test).
"""

import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E2E = os.path.join(ROOT, "test", "e2e")
LEVELS = ("O0", "O1", "O2")


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


def prepare_op_test(args, check, msm, path, case_dir):
    """Writes one op test's case; returns its record, or a reason to skip."""
    text = open(path).read()
    refs, input_exprs, (rtol, atol), flags, skips, _ = check.directives(text)
    rounded = check.sets_precision(flags)
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
    if rounded and args.target == "cuda":
        # cuda rounds every product's operands with --precision, and
        # convolves directly.
        scope = check.cuda_scope(scope)
    if len(refs) != len(plan["outputs"]):
        return "expected %d REFERENCE lines, found %d" % (len(plan["outputs"]), len(refs))
    outputs = []
    for i, (expr, desc) in enumerate(zip(refs, plan["outputs"])):
        np.save(os.path.join(case_dir, "ref%d.npy" % i), np.asarray(eval(expr, scope)))
        outputs.append({"name": desc["name"], "ref": "ref%d.npy" % i,
                        "dtype": desc["dtype"]})
    return {"levels": modules, "inputs": record_inputs, "outputs": outputs,
            "rtol": rtol, "atol": atol, "model": False}


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


def prepare_bench(args, msm, path, case_dir):
    """Writes one benchmark's case (bench/cuda): modules at O1 and O2, its
    signature and directives; inputs are made where it runs."""
    text = open(path).read()
    bench = {"torch": None, "moves": 0, "flops": 0}
    for key, pattern in (("torch", r"//\s*TORCH:\s*(.*)"), ("moves", r"//\s*MOVES:\s*(\d+)"),
                         ("flops", r"//\s*FLOPS:\s*(\d+)")):
        m = re.search(pattern, text)
        if m:
            bench[key] = m.group(1).strip() if key == "torch" else int(m.group(1))
    m = re.search(r"//\s*COMPILE-FLAGS:\s*(.*)", text)
    flags = m.group(1).split() if m else []
    modules = {}
    for level in ("O1", "O2"):
        error = compile_case(args, path, level, flags, os.path.join(case_dir, level + ".msm"))
        if error:
            return "does not compile at %s: %s" % (level, error.splitlines()[0])
        modules[level] = level + ".msm"
    plan = msm.read_meta(os.path.join(case_dir, "O1.msm"))
    bench["inputs"] = [[d["name"], d["dtype"], d["shape"]] for d in plan["inputs"]]
    bench["outputs"] = [[d["name"], d["dtype"], d["shape"]] for d in plan["outputs"]]
    return {"levels": modules, "inputs": {}, "outputs": [], "rtol": 1e-3,
            "atol": 1e-3, "model": False, "bench": bench}


def prepare(args):
    check = load_check()
    msm = check.msm
    only = set(n for n in args.only.split(",") if n) if args.only else None
    sources = [(os.path.splitext(os.path.basename(p))[0], p, False)
               for p in sorted(glob.glob(os.path.join(E2E, "ops", "*.mlir")))]
    sources += [(os.path.basename(p), p, True)
                for p in sorted(glob.glob(os.path.join(E2E, "torch", "*")))
                if os.path.isdir(p) and os.path.exists(os.path.join(p, "model.onnx"))]
    sources += [("bench-" + os.path.splitext(os.path.basename(p))[0], p, "bench")
                for p in sorted(glob.glob(os.path.join(ROOT, "bench", "cuda", "*.mlir")))]
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
            record = prepare_bench(args, msm, path, case_dir)
        elif model:
            record = prepare_model(args, msm, path, case_dir)
        else:
            record = prepare_op_test(args, check, msm, path, case_dir)
        if isinstance(record, str):
            skipped[name] = record
            shutil.rmtree(case_dir)
            continue
        cases[name] = record
    with open(os.path.join(args.kit, "kit.json"), "w") as f:
        json.dump({"target": args.target, "cases": cases, "skipped": skipped}, f,
                  indent=1, sort_keys=True)
    for name, reason in sorted(skipped.items()):
        print("skipped %s: %s" % (name, reason))
    print("prepared %d cases (%d models) for %s, %d skipped, in %s"
          % (len(cases), sum(c["model"] for c in cases.values()), args.target,
             len(skipped), args.kit))
    return 0


def run_case(args, kit, name, case, level, work):
    """Runs one case at one level; returns (ok, the comparison's lines)."""
    check = load_check()
    case_dir = os.path.join(args.kit, "cases", name)
    out = os.path.join(work, name, level)
    cmd = [os.path.join(args.kit, "bin", "ms-run"), os.path.join(case_dir, case["levels"][level]),
           "--device", args.device, "--output-dir", out]
    for input_name, file in sorted(case["inputs"].items()):
        cmd += ["--input", "%s=%s" % (input_name, os.path.join(case_dir, file))]
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(args.kit, "lib"))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        return False, ["ms-run failed (exit %d): %s" % (p.returncode,
                                                         (p.stderr or p.stdout).strip()[:400])]
    ok, lines = True, []
    import contextlib
    import io
    for desc in case["outputs"]:
        got = np.load(os.path.join(out, desc["name"] + ".npy"))
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
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(args.kit, "lib"))
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
    cmd = [os.path.join(args.kit, "bin", "ms-run"), os.path.join(case_dir, module),
           "--device", args.device, "--bench", str(args.bench)]
    for input_name, file in sorted(inputs.items()):
        cmd += ["--input", "%s=%s" % (input_name, os.path.join(case_dir, file))]
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(args.kit, "lib"))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    m = re.search(r"median_ms[ :=]+([0-9.]+)", p.stdout)
    return float(m.group(1)) if p.returncode == 0 and m else None


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


def run_bench(args, name, case, work):
    """Runs benchmark `name`: ms at O1 and O2 against PyTorch's result, then
    timed (when --bench) beside PyTorch eager and torch.compile. Returns
    (ok, lines, timing)."""
    check = load_check()
    bench = case["bench"]
    case_dir = os.path.join(args.kit, "cases", name)
    rng = np.random.default_rng(1234)
    inputs, bind = [], []
    os.makedirs(os.path.join(work, name))
    for i, (input_name, dtype, shape) in enumerate(bench["inputs"]):
        a = rng.uniform(-1, 1, shape).astype(check.DTYPES[dtype])
        path = os.path.join(work, name, "in%d.npy" % i)
        np.save(path, a)
        bind += ["--input", "%s=%s" % (input_name, path)]
        inputs.append(a)
    try:
        import torch
    except ImportError:
        torch = None
    device = "cuda" if args.device == "cuda" else "cpu"
    want, eager = None, None
    lines = []
    if torch is not None and bench["torch"]:
        torch.backends.cuda.matmul.allow_tf32 = False
        # The PyTorch function, as torch.compile can trace it.
        names = ", ".join("a%d" % i for i in range(len(inputs)))
        function = eval("lambda %s: %s" % (names, bench["torch"]), {"torch": torch})
        try:
            targs = [torch.from_numpy(a).to(device) for a in inputs]
            eager = lambda: function(*targs)  # noqa: E731
            want = eager().cpu().numpy()
        except Exception as e:  # noqa: BLE001 (a PyTorch without this device)
            lines.append("no PyTorch reference on %s: %s" % (device, str(e).splitlines()[0][:200]))
            torch, eager = None, None
    if want is None:
        lines.append("results not checked (no PyTorch reference)")
    sync = (torch.cuda.synchronize if torch is not None and device == "cuda"
            else (lambda: None))
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(args.kit, "lib"))
    ok, timing = True, {}
    for level in sorted(case["levels"]):
        module = os.path.join(case_dir, case["levels"][level])
        out = os.path.join(work, name, level)
        cmd = [os.path.join(args.kit, "bin", "ms-run"), module, "--device", args.device,
               "--output-dir", out] + bind
        if args.bench:
            cmd += ["--bench", str(args.bench)]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if p.returncode != 0:
            lines.append("[%s] ms-run failed (exit %d): %s"
                         % (level, p.returncode, (p.stderr or p.stdout).strip()[:400]))
            ok = False
            continue
        m = re.search(r"median_ms[ :=]+([0-9.]+)", p.stdout)
        timing[level] = float(m.group(1)) if m else None
        if want is not None:
            import contextlib
            import io
            got = np.load(os.path.join(out, bench["outputs"][0][0] + ".npy"))
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                ok = check.compare(got, want, check.DTYPES[bench["outputs"][0][1]],
                                   case["rtol"], case["atol"], "[%s]" % level) and ok
            lines += text.getvalue().splitlines()
    if args.bench and eager is not None:
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


def check_kit(args):
    kit = json.load(open(os.path.join(args.kit, "kit.json")))
    results, failed = {}, 0
    with tempfile.TemporaryDirectory() as work:
        for name, case in sorted(kit["cases"].items()):
            if "bench" in case:
                continue
            for level in sorted(case["levels"]):
                ok, lines = run_case(args, kit, name, case, level, work)
                failed += not ok
                results.setdefault(name, {})[level] = {"ok": ok, "detail": lines}
                print("%s %s %s: %s" % ("PASS" if ok else "FAIL", name, level,
                                        "; ".join(lines)))
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
            for name, case in sorted(benches.items()):
                ok, lines, timing = run_bench(args, name, case, work)
                failed += not ok
                results.setdefault(name, {})["bench"] = {"ok": ok, "detail": lines}
                timings[name] = timing
                print("%s %s: %s" % ("PASS" if ok else "FAIL", name, "; ".join(lines)))
    total = sum(len(c["levels"]) for c in kit["cases"].values() if "bench" not in c)
    total += len(benches)
    suites = run_suites(args)
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
            json.dump({"device": args.device, "results": results, "timings": timings,
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
    c = sub.add_parser("check")
    c.add_argument("kit")
    c.add_argument("--device", default="cuda")
    c.add_argument("--bench", type=int, default=0)
    c.add_argument("--report", default="")
    args = ap.parse_args()
    return prepare(args) if args.command == "prepare" else check_kit(args)


if __name__ == "__main__":
    sys.exit(main())
