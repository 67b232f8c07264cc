"""Checks that ms-compile leaves an output file that already holds the
module's bytes as it is (same inode, modification time set to now) and
replaces one that differs anywhere (in the held header, in the weights,
shorter, longer) with the whole module, equal to one compiled fresh.

Usage: unchanged-output.py MS_COMPILE WORK_DIR
"""
import os
import subprocess
import sys

ms_compile, work = sys.argv[1:3]
# A 1 MiB weight, so that the module is longer than the 64 KiB held in
# memory before the comparison, and a module shorter than that.
big = os.path.join(work, "big.mlir")
with open(big, "w") as f:
    f.write("""func.func @main(%x: tensor<4x512xf32>) -> tensor<4x512xf32> {
  %w = msgraph.constant dense<0.25> : tensor<512x512xf32>
  %y = msgraph.matmul %x, %w : (tensor<4x512xf32>, tensor<512x512xf32>) -> tensor<4x512xf32>
  return %y : tensor<4x512xf32>
}
""")
small = os.path.join(work, "small.mlir")
with open(small, "w") as f:
    f.write("""func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = msgraph.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
""")


def compile(model, out, level="-O1"):
    run = subprocess.run([ms_compile, model, level, "-o", out, "--no-cache",
                          "--time-report"], check=True, capture_output=True,
                         text=True)
    return "held the same bytes" in run.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


for model, name in ((big, "big"), (small, "small")):
    out = os.path.join(work, name + ".msm")
    fresh = os.path.join(work, name + "-fresh.msm")
    assert not compile(model, fresh)
    expected = read(fresh)
    assert not compile(model, out), "a new file was not written"
    assert read(out) == expected

    # The same bytes: the file is left, its time set.
    os.utime(out, (978307200, 978307200))
    inode = os.stat(out).st_ino
    assert compile(model, out), name + ": the same bytes were written again"
    assert os.stat(out).st_ino == inode
    assert os.stat(out).st_mtime > 978307200 + 86400
    assert read(out) == expected

    # Any difference: the whole module replaces the file.
    def changed(data):
        return [("header", data[:20] + bytes([data[20] ^ 1]) + data[21:]),
                ("last byte", data[:-1] + bytes([data[-1] ^ 1])),
                ("shorter", data[:len(data) // 2]),
                ("longer", data + b"\0"),
                ("empty", b"")]
    for what, data in changed(expected):
        with open(out, "wb") as f:
            f.write(data)
        inode = os.stat(out).st_ino
        assert not compile(model, out), name + ", " + what + ": not written"
        assert read(out) == expected, name + ", " + what + ": differs"
    # Another module to the same path.
    other = os.path.join(work, name + "-O0.msm")
    compile(model, other, "-O0")
    assert not compile(model, out, "-O0")
    assert read(out) == read(other)
    assert not [n for n in os.listdir(work) if n.endswith(".tmp")]
    print(name + ": unchanged file kept, changed ones replaced")
