#!/usr/bin/env python3
"""Compiles an msgraph test program, runs it with ms-run and compares every
output with a NumPy reference.

Directives in the test file (comment lines):
  // REFERENCE: <expr>     one per output, in order; the inputs are a0, a1, ...
                           (NumPy arrays), `np` and the helpers of ref.py are
                           in scope
  // INPUT <i>: <expr>     optional generator for input i; `rng`
                           (numpy Generator), `shape` and `dtype` are in scope
  // TOLERANCE: rtol=R atol=A
  // COMPILE-FLAGS: <extra ms-compile flags>

Usage: check.py TEST.mlir --bin-dir DIR --work-dir DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref  # noqa: E402

DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "bool": np.bool_,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "string": np.str_,
}


def directives(text):
    refs, inputs, tol, flags = [], {}, (1e-5, 1e-6), []
    for line in text.splitlines():
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
    return refs, inputs, tol, flags


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


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write("command failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
        sys.exit(1)
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test")
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args()
    text = open(args.test).read()
    refs, input_exprs, (rtol, atol), flags = directives(text)
    os.makedirs(args.work_dir, exist_ok=True)
    compile_ = os.path.join(args.bin_dir, "ms-compile")
    module = os.path.join(args.work_dir, "test.msm")
    run([compile_, args.test, "-o", module] + flags)
    plan = json.loads(run([compile_, args.test, "--compile-to=plan"] + flags))

    rng = np.random.default_rng(1234)
    inputs, cmd = [], [os.path.join(args.bin_dir, "ms-run"), module,
                       "--output-dir", os.path.join(args.work_dir, "out")]
    for i, desc in enumerate(plan["inputs"]):
        dtype, shape = DTYPES[desc["dtype"]], tuple(desc["shape"])
        if i in input_exprs:
            a = np.asarray(eval(input_exprs[i], {"np": np, "rng": rng, "shape": shape,
                                                 "dtype": dtype})).astype(dtype)
        else:
            a = default_input(rng, shape, dtype)
        path = os.path.join(args.work_dir, "in%d.npy" % i)
        np.save(path, a)
        cmd += ["--input", "%s=%s" % (desc["name"], path)]
        inputs.append(a)
    run(cmd)

    scope = {"np": np, **{k: getattr(ref, k) for k in dir(ref) if not k.startswith("_")}}
    scope.update({"a%d" % i: a for i, a in enumerate(inputs)})
    if len(refs) != len(plan["outputs"]):
        print("expected %d REFERENCE lines, found %d" % (len(plan["outputs"]), len(refs)))
        return 1
    ok = True
    for desc, expr in zip(plan["outputs"], refs):
        got = np.load(os.path.join(args.work_dir, "out", desc["name"] + ".npy"))
        want = np.asarray(eval(expr, scope))
        want_dtype = DTYPES[desc["dtype"]]
        if want_dtype == np.str_:
            # Strings: exact, whatever the '<U' width; a -1 extent in the
            # plan is data-dependent, so only the reference fixes the shape.
            same = got.dtype.kind == "U" and got.shape == want.shape and (got == want).all()
            print("%s: %s %s %s" % (desc["name"], got.dtype, got.shape,
                                    "ok" if same else "MISMATCH (got %r, want %r)"
                                    % (got.tolist(), want.tolist())))
            ok = ok and same
            continue
        if got.shape != want.shape or got.dtype != want_dtype:
            print("%s: expected %s %s, found %s %s" % (desc["name"], want_dtype.__name__,
                                                       want.shape, got.dtype, got.shape))
            ok = False
            continue
        if np.issubdtype(got.dtype, np.floating):
            close = np.isclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)
        else:
            close = got == want.astype(got.dtype)
        err = (np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
               if got.size else 0.0)
        print("%s: %s %s max abs err %.3g (rtol %g, atol %g) %s"
              % (desc["name"], got.dtype, got.shape, err, rtol, atol,
                 "ok" if close.all() else "MISMATCH"))
        if not close.all():
            bad = np.argwhere(~close)[:5]
            for idx in bad:
                idx = tuple(idx)
                print("  at %s: got %r want %r" % (idx, got[idx], want[idx]))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
