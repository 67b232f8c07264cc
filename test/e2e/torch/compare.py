#!/usr/bin/env python3
"""Compares an output of ms-run with PyTorch's reference output.

Usage: compare.py ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A]

Passes when |actual - expected| <= atol + rtol * |expected| everywhere
(numpy.allclose) and the shapes and dtypes agree. Prints the maximum absolute
and relative errors either way; exits 1 with a message naming the worst
element on a mismatch.
"""
import argparse
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("actual")
    p.add_argument("expected")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    args = p.parse_args()

    actual, expected = np.load(args.actual), np.load(args.expected)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        sys.exit("compare.py: FAIL: %s is %s%s, expected %s%s" % (
            args.actual, actual.dtype, list(actual.shape), expected.dtype,
            list(expected.shape)))

    a, e = actual.astype(np.float64), expected.astype(np.float64)
    nonfinite = ~np.isfinite(a) & np.isfinite(e)
    err = np.abs(a - e)
    rel = err / np.maximum(np.abs(e), np.finfo(np.float32).tiny)
    max_abs = float(np.max(err)) if err.size else 0.0
    max_rel = float(np.max(rel)) if rel.size else 0.0
    print("compare.py: %s%s max abs error %.3g, max rel error %.3g "
          "(rtol %g, atol %g)" % (actual.dtype, list(actual.shape), max_abs,
                                  max_rel, args.rtol, args.atol))

    bad = nonfinite | ~np.isclose(a, e, rtol=args.rtol, atol=args.atol)
    if bad.any():
        idx = np.unravel_index(
            np.argmax(np.where(bad, np.nan_to_num(err, nan=np.inf), -1)),
            bad.shape)
        sys.exit("compare.py: FAIL: %d of %d elements differ beyond rtol %g "
                 "atol %g (%d not finite); worst at %s: got %r, expected %r" % (
                     int(bad.sum()), bad.size, args.rtol, args.atol,
                     int(nonfinite.sum()), list(map(int, idx)),
                     float(a[idx]), float(e[idx])))
    print("compare.py: OK")


if __name__ == "__main__":
    main()
