#!/usr/bin/env python3
"""Compiles an msgraph test program at each optimization level, runs it with
ms-run and compares every output with a NumPy reference, and the outputs of
every level with those of the first (O0).

Directives in the test file (comment lines):
  // REFERENCE: <expr>     one per output, in order; the inputs are a0, a1, ...
                           (NumPy arrays), `np` and the helpers of ref.py are
                           in scope
  // INPUT <i>: <expr>     optional generator for input i; `rng`
                           (numpy Generator), `shape` and `dtype` are in scope
  // TOLERANCE: rtol=R atol=A
  // COMPILE-FLAGS: <extra ms-compile flags>
  // SKIP-LEVEL <level>: <reason>
                           do not compile or run this test at <level> (O2, ...);
                           the reason is required

Every level compiles with `-O<n>` and runs on the same inputs (generated once,
seed 1234); the signature (the inputs and outputs in the module's meta
section, read by utils/msm.py) must be the same at every level. Each level's
outputs are checked against the reference, and each level after the first
against the first level's outputs, with the same tolerance. Every message
names the level it is about.

With --ptxas, every level the cuda target compiles (O0, O1, O2) is also
compiled for it (`--target cuda`, PTX for sm_90a) and ptxas must accept the
PTX of its module without serializing its wgmma instructions (ptxas's
"Potential Performance Loss: wgmma.mma_async instructions are serialized"
notes, C7510 to C7520, which `ptxas -v` prints: each makes a kernel's
warpgroup products wait for one another). With --fake-cuda DIR (the directory of the runtime's CUDA
driver stand-in, runtime/test/cuda/FakeCuda.cpp), each such module also runs
with `ms-run --device cuda` on the stand-in, which interprets the PTX on the
CPU, and its outputs are compared with the reference (the file's TOLERANCE;
the file's COMPILE-FLAGS apply but --target-cpu, and where they set
--precision, the reference is evaluated with winograd_bf16() as conv() of
bf16-rounded operands, since the cuda target rounds every product's operands
and convolves directly).
A test named in --cuda-xfail FILE (lines `NAME [LEVEL...] # reason`) must
compile and pass ptxas but fail to run on the stand-in.

With --npu-xfail FILE, every level the npu target compiles (O0, O1) is also
compiled for it (`--target npu`) and run on the simulated NPU
(`ms-run --device npu`), and its outputs are compared with the reference with
the tolerance of
  // NPU-TOLERANCE: rtol=R atol=A
(default: the file's TOLERANCE; contractions take fp16 inputs on the cube, so
files with matmuls state a looser one). A test named in FILE (lines
`NAME [LEVEL...] # reason`: the levels listed, or every level) must fail to
compile for the npu target; one that compiles when listed is an error too.

Usage: check.py TEST.mlir --bin-dir DIR --work-dir DIR [--levels O0,O2]
                [--compile-flags "FLAGS"]   (after the file's COMPILE-FLAGS)
                [--ptxas PATH] [--fake-cuda DIR] [--cuda-xfail FILE]
                [--npu-xfail FILE]
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "utils"))
import msm  # noqa: E402
import ref  # noqa: E402

# NumPy types of the module format's dtypes (the table in DTypes.def); string
# tensors are NumPy unicode arrays.
DTYPES = {name: np.dtype(numpy).type for name, numpy in msm.DTYPES.items() if numpy}
DTYPES["string"] = np.str_
LEVELS = ("O0", "O1", "O2")
# The levels the cuda and npu targets compile.
CUDA_LEVELS = ("O0", "O1", "O2")
NPU_LEVELS = ("O0", "O1")


class Failure(Exception):
    """A command of one level failed; the message says which."""


def directives(text):
    refs, inputs, tol, flags, skips = [], {}, (1e-5, 1e-6), [], {}
    npu_tol = None
    for line in text.splitlines():
        m = re.match(r"\s*//\s*NPU-TOLERANCE:\s*rtol=(\S+)\s+atol=(\S+)", line)
        if m:
            npu_tol = (float(m.group(1)), float(m.group(2)))
        m = re.match(r"\s*//\s*REFERENCE:\s*(.*)", line)
        if m:
            refs.append(m.group(1))
        m = re.match(r"\s*//\s*INPUT (\d+):\s*(.*)", line)
        if m:
            inputs[int(m.group(1))] = m.group(2)
        m = re.match(r"\s*//\s*TOLERANCE:\s*rtol=(\S+)\s+atol=(\S+)", line)
        if m:
            tol = (float(m.group(1)), float(m.group(2)))
        m = re.match(r"\s*//\s*COMPILE-FLAGS:\s*(.*)", line)
        if m:
            flags += m.group(1).split()
        if re.match(r"\s*//\s*SKIP-LEVEL", line):
            m = re.match(r"\s*//\s*SKIP-LEVEL (O\d):\s*(\S.*)", line)
            if not m or m.group(1) not in LEVELS:
                raise SystemExit("check.py: bad directive %r; expected "
                                 "'// SKIP-LEVEL O<n>: <reason>'" % line.strip())
            skips[m.group(1)] = m.group(2).strip()
    return refs, inputs, tol, flags, skips, npu_tol or tol


def default_input(rng, shape, dtype):
    if dtype == np.str_:
        words = np.array(["alpha", "Beta", "gamma", "", "Straße", "\u00e9t\u00e9"])
        return rng.choice(words, shape)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -8
        return rng.integers(lo, 9, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def run(level, cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise Failure("[%s] command failed (exit %d): %s\n%s%s"
                      % (level, p.returncode, " ".join(cmd), p.stdout, p.stderr))
    return p.stdout


def check_ptxas(level, cmd):
    """Runs ptxas (`cmd`, with -v); fails where it does not accept the PTX
    or serializes a kernel's wgmma instructions."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure("[%s] command failed (exit %d): %s\n%s%s"
                      % (level, p.returncode, " ".join(cmd), p.stdout, p.stderr))
    serialized = [line.strip() for line in (p.stdout + p.stderr).splitlines()
                  if "wgmma.mma_async instructions are serialized" in line]
    if serialized:
        raise Failure("[%s] ptxas serializes wgmma: %s\n%s"
                      % (level, " ".join(cmd), "\n".join(serialized)))


def signature(plan):
    return [(d["name"], d["dtype"], list(d["shape"]))
            for d in plan["inputs"]] + \
        [("->",)] + [(d["name"], d["dtype"], list(d["shape"])) for d in plan["outputs"]]


def compare(got, want, want_dtype, rtol, atol, label):
    """Prints one line for `label` (and up to 5 mismatching elements);
    returns whether `got` has `want`'s shape, the element type `want_dtype`
    and `want`'s values within the tolerance (floats compare in f64)."""
    if want_dtype == np.str_:
        # Strings: exact, whatever the '<U' width; a -1 extent in the plan is
        # data-dependent, so only the reference fixes the shape.
        same = got.dtype.kind == "U" and got.shape == want.shape and bool((got == want).all())
        print("%s: %s %s %s" % (label, got.dtype, got.shape,
                                "ok" if same else "MISMATCH (got %r, want %r)"
                                % (got.tolist(), want.tolist())))
        return same
    if got.shape != want.shape or got.dtype != want_dtype:
        print("%s: expected %s %s, found %s %s MISMATCH"
              % (label, np.dtype(want_dtype), want.shape, got.dtype, got.shape))
        return False
    if np.issubdtype(got.dtype, np.floating):
        close = np.isclose(got.astype(np.float64), want.astype(np.float64),
                           rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = got == want.astype(got.dtype)
    err = (np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
           if got.size else 0.0)
    print("%s: %s %s max abs err %.3g (rtol %g, atol %g) %s"
          % (label, got.dtype, got.shape, err, rtol, atol,
             "ok" if close.all() else "MISMATCH"))
    if close.all():
        return True
    for idx in np.argwhere(~close)[:5]:
        idx = tuple(idx)
        print("  at %s: got %r want %r" % (idx, got[idx], want[idx]))
    return False


# ms-compile flags the npu check drops (it compiles at its default precision,
# f16, and compares with its own NPU-TOLERANCE); the cuda check drops the
# first alone and compiles with the file's --precision.
CPU_FLAGS = ("--target-cpu", "--precision")


def sets_precision(flags):
    """Whether ms-compile `flags` set --precision."""
    return any(f.startswith("--precision") for f in flags)


def cuda_scope(scope):
    """The reference scope of the cuda target with --precision bf16: every
    product rounds its operands to bfloat16 (on tensor cores or not), and
    convolutions are direct (no Winograd transforms to round)."""
    return dict(scope, winograd_bf16=lambda x, w, b=None, pads=None: ref.conv(
        ref.bf16(x), ref.bf16(w), b, pads=pads))


def check_cuda(args, compile_, levels, flags, bind, plan, wants, dtypes, tol):
    """Compiles the test for cuda at each level it supports; ptxas checks
    the PTX of the module's cuda-ptx section (none when no kernel runs on the
    device); with the driver stand-in, the module runs on it (its PTX
    interpreted) and the outputs are compared with the reference."""
    ok = True
    flags = [f for f in flags if not f.startswith(CPU_FLAGS[0])]
    env = None
    if args.fake_cuda:
        env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(
            p for p in (args.fake_cuda, os.environ.get("LD_LIBRARY_PATH")) if p))
    name = os.path.splitext(os.path.basename(args.test))[0]
    listed = expected_failures(args.cuda_xfail) if args.cuda_xfail else {}
    for level in levels:
        if level not in CUDA_LEVELS:
            continue
        label = "cuda " + level
        xfail = name in listed and (not listed[name] or level in listed[name])
        module = os.path.join(args.work_dir, "test-cuda-%s.msm" % level)
        try:
            run(label, [compile_, args.test, "-O" + level[1:], "--target", "cuda",
                        "-o", module] + flags)
            sections = [data for kind, data, _ in msm.read_sections(module)
                        if kind == "cuda-ptx"]
            text = json.loads(sections[0])["ptx"] if sections else ""
            if args.ptxas and ".entry" in text:
                ptx = os.path.join(args.work_dir, "test-%s.ptx" % level)
                with open(ptx, "w") as f:
                    f.write(text)
                check_ptxas(label, [args.ptxas, "-arch=sm_90a", "-v", ptx, "-o", os.devnull])
            if not env:
                continue
            out = os.path.join(args.work_dir, "out-cuda-%s" % level)
            cmd = [os.path.join(args.bin_dir, "ms-run"), module, "--device", "cuda",
                   "--output-dir", out] + bind
            if xfail:
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if p.returncode == 0:
                    print("[%s] runs, but %s lists it as an expected failure"
                          % (label, os.path.basename(args.cuda_xfail)))
                    ok = False
                else:
                    print("[%s] fails to run, as %s expects: %s"
                          % (label, os.path.basename(args.cuda_xfail),
                             p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""))
                continue
            run(label, cmd, env=env)
        except Failure as e:
            print(e)
            ok = False
            continue
        for desc, want, dtype in zip(plan["outputs"], wants, dtypes):
            got = np.load(os.path.join(out, desc["name"] + ".npy"))
            ok = compare(got, want, dtype, tol[0], tol[1],
                         "[%s] %s" % (label, desc["name"])) and ok
    return ok


def expected_failures(path):
    """{test name: the levels expected to fail (all when empty)} from an
    expected-failure file (npu-xfail.txt, cuda-xfail.txt): lines
    `NAME [LEVEL...] # reason`."""
    names = {}
    for line in open(path):
        words = line.split("#", 1)[0].split()
        if words:
            names[words[0]] = set(words[1:])
    return names


def check_npu(args, compile_, levels, flags, bind, plan, wants, dtypes, tol):
    """Compiles the test for the npu at each level it supports, runs it on
    the simulated NPU and compares with the reference."""
    name = os.path.splitext(os.path.basename(args.test))[0]
    listed = expected_failures(args.npu_xfail)
    flags = [f for f in flags if not f.startswith(CPU_FLAGS)]
    ok = True
    for level in levels:
        if level not in NPU_LEVELS:
            continue
        label = "npu " + level
        xfail = name in listed and (not listed[name] or level in listed[name])
        module = os.path.join(args.work_dir, "test-npu-%s.msm" % level)
        p = subprocess.run([compile_, args.test, "-O" + level[1:], "--target", "npu",
                            "-o", module] + flags, capture_output=True, text=True)
        if p.returncode != 0:
            if xfail:
                print("[%s] fails to compile, as %s expects: %s"
                      % (label, os.path.basename(args.npu_xfail),
                         p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""))
                continue
            print("[%s] command failed (exit %d): %s" % (label, p.returncode, p.stderr))
            ok = False
            continue
        if xfail:
            print("[%s] compiles, but %s lists it as an expected failure"
                  % (label, os.path.basename(args.npu_xfail)))
            ok = False
            continue
        out = os.path.join(args.work_dir, "out-npu-%s" % level)
        try:
            run(label, [os.path.join(args.bin_dir, "ms-run"), module, "--device", "npu",
                        "--output-dir", out] + bind)
        except Failure as e:
            print(e)
            ok = False
            continue
        for desc, want, dtype in zip(plan["outputs"], wants, dtypes):
            got = np.load(os.path.join(out, desc["name"] + ".npy"))
            ok = compare(got, want, dtype, tol[0], tol[1],
                         "[%s] %s" % (label, desc["name"])) and ok
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test")
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--levels", default="O0,O2",
                    help="comma-separated optimization levels; the first is "
                         "the one the others are compared with (default O0,O2)")
    ap.add_argument("--compile-flags", default="",
                    help="more ms-compile flags, e.g. --target-cpu=x86-64-v3")
    ap.add_argument("--ptxas", default="",
                    help="also compile for cuda and check the PTX with ptxas")
    ap.add_argument("--fake-cuda", default="",
                    help="also run the cuda modules on the CUDA driver stand-in "
                         "in this directory (it interprets their PTX)")
    ap.add_argument("--cuda-xfail", default="",
                    help="with --fake-cuda: the file listing the tests expected "
                         "to fail to run on the cuda device")
    ap.add_argument("--npu-xfail", default="",
                    help="also compile for the npu and run on its simulator; "
                         "the file lists the tests expected not to compile")
    args = ap.parse_args()
    text = open(args.test).read()
    refs, input_exprs, (rtol, atol), flags, skips, npu_tol = directives(text)
    flags += shlex.split(args.compile_flags)
    levels = [l.strip() for l in args.levels.split(",") if l.strip()]
    for level in levels:
        if level not in LEVELS:
            print("check.py: unknown level %r in --levels; expected %s"
                  % (level, ", ".join(LEVELS)))
            return 2
    for level, reason in sorted(skips.items()):
        if level in levels:
            print("[%s] skipped: %s" % (level, reason))
    levels = [l for l in levels if l not in skips]
    if not levels:
        print("check.py: every level is skipped")
        return 1
    os.makedirs(args.work_dir, exist_ok=True)
    compile_ = os.path.join(args.bin_dir, "ms-compile")

    ok = True
    plans, modules = {}, {}
    for level in levels:
        opt = "-O" + level[1:]
        try:
            module = os.path.join(args.work_dir, "test-%s.msm" % level)
            run(level, [compile_, args.test, opt, "-o", module] + flags)
            plans[level] = msm.read_meta(module)
            modules[level] = module
        except Failure as e:
            print(e)
            ok = False
        except ValueError as e:
            print("[%s] cannot read the module's signature: %s" % (level, e))
            ok = False
    if not plans:
        return 1
    first = next(l for l in levels if l in plans)
    plan = plans[first]
    for level in list(plans):
        if signature(plans[level]) != signature(plan):
            print("[%s] the module's signature differs from %s's:\n  %s: %s\n  %s: %s"
                  % (level, first, first, signature(plan), level, signature(plans[level])))
            del plans[level]
            ok = False

    # Inputs: generated once, shared by every level.
    rng = np.random.default_rng(1234)
    inputs, bind = [], []
    for i, desc in enumerate(plan["inputs"]):
        dtype, shape = DTYPES[desc["dtype"]], tuple(desc["shape"])
        if i in input_exprs:
            a = np.asarray(eval(input_exprs[i], {"np": np, "rng": rng, "shape": shape,
                                                 "dtype": dtype})).astype(dtype)
        else:
            a = default_input(rng, shape, dtype)
        path = os.path.join(args.work_dir, "in%d.npy" % i)
        np.save(path, a)
        bind += ["--input", "%s=%s" % (desc["name"], path)]
        inputs.append(a)

    scope = {"np": np, **{k: getattr(ref, k) for k in dir(ref) if not k.startswith("_")}}
    scope.update({"a%d" % i: a for i, a in enumerate(inputs)})
    if len(refs) != len(plan["outputs"]):
        print("expected %d REFERENCE lines, found %d" % (len(plan["outputs"]), len(refs)))
        return 1
    wants = [np.asarray(eval(expr, scope)) for expr in refs]
    dtypes = [DTYPES[desc["dtype"]] for desc in plan["outputs"]]

    results = {}
    for level in levels:
        if level not in plans:
            continue
        out = os.path.join(args.work_dir, "out-%s" % level)
        try:
            run(level, [os.path.join(args.bin_dir, "ms-run"), modules[level],
                        "--output-dir", out] + bind)
        except Failure as e:
            print(e)
            ok = False
            continue
        got = [np.load(os.path.join(out, desc["name"] + ".npy")) for desc in plan["outputs"]]
        results[level] = got
        for desc, g, want, dtype in zip(plan["outputs"], got, wants, dtypes):
            ok = compare(g, want, dtype, rtol, atol, "[%s] %s" % (level, desc["name"])) and ok
    if args.ptxas or args.fake_cuda:
        # With --precision the cuda target rounds every product's operands
        # and convolves directly where the cpu's bf16 Winograd rounds its
        # transforms.
        cuda_wants = wants
        if sets_precision(flags):
            cuda_wants = [np.asarray(eval(expr, cuda_scope(scope))) for expr in refs]
        ok = check_cuda(args, compile_, levels, flags, bind, plan, cuda_wants,
                        dtypes, (rtol, atol)) and ok
    if args.npu_xfail:
        ok = check_npu(args, compile_, levels, flags, bind, plan, wants, dtypes,
                       npu_tol) and ok
    # Every level against the first one that ran.
    base = next((l for l in levels if l in results), None)
    for level in levels:
        if level == base or level not in results:
            continue
        for desc, g, b, dtype in zip(plan["outputs"], results[level], results[base], dtypes):
            ok = compare(g, b, dtype, rtol, atol,
                         "[%s vs %s] %s" % (level, base, desc["name"])) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
