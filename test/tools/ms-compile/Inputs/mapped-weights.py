"""Writes the models of mapped-weights.test into the directory argv[1]:

- model.onnx: y = relu(x @ W1 + b1) @ W2 + relu(x @ W1 + b1) @ S and
  z = (x @ transpose(W3)) @ reshape(W4, [128, 256]), x [4, 128]; W1
  (128 KiB), W2 (64 KiB), W3 (64 KiB) and W4 (128 KiB, stored flat) at
  least 64 KiB each, so the importer refers to them in the mapped file; b1
  (1 KiB) and S (64 KiB, every element 0.5: a splat) are copied;
- ext.onnx and ext.onnx.data: the same model with every initializer in the
  external-data file, at offsets that are multiples of 64;
- x.npy, and y.npy and z.npy computed with NumPy (float64, then rounded).

The models are encoded with utils/gen-onnx-test-models.py's protobuf
writer, so that no onnx package is needed.
"""
import importlib.util
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
spec = importlib.util.spec_from_file_location(
    "gen", os.path.join(ROOT, "utils", "gen-onnx-test-models.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

out = sys.argv[1]
rng = np.random.default_rng(7)
weights = {
    "W1": rng.standard_normal((128, 256)).astype(np.float32) * 0.1,
    "b1": rng.standard_normal((256,)).astype(np.float32),
    "W2": rng.standard_normal((256, 64)).astype(np.float32) * 0.1,
    "W3": rng.standard_normal((128, 128)).astype(np.float32) * 0.1,
    "W4": rng.standard_normal((128 * 256,)).astype(np.float32) * 0.1,
    "S": np.full((256, 64), 0.5, dtype=np.float32),
}
shape = np.array([128, 256], dtype=np.int64)
nodes = [
    gen.node("MatMul", ["x", "W1"], ["h"], "mm1"),
    gen.node("Add", ["h", "b1"], ["hb"], "add1"),
    gen.node("Relu", ["hb"], ["r"], "relu1"),
    gen.node("MatMul", ["r", "W2"], ["y2"], "mm2"),
    gen.node("MatMul", ["r", "S"], ["ys"], "mms"),
    gen.node("Add", ["y2", "ys"], ["y"], "add2"),
    gen.node("Transpose", ["W3"], ["W3t"], "t3", attrs=gen.attr_ints("perm", [1, 0])),
    gen.node("MatMul", ["x", "W3t"], ["u"], "mm3"),
    gen.node("Reshape", ["W4", "shape"], ["W4r"], "reshape4"),
    gen.node("MatMul", ["u", "W4r"], ["z"], "mm4"),
]
inputs = [gen.value_info("x", gen.FLOAT, [4, 128])]
outputs = [gen.value_info("y", gen.FLOAT, [4, 64]),
           gen.value_info("z", gen.FLOAT, [4, 256])]
shape_init = gen.tensor("shape", gen.INT64, [2], shape.tobytes())


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


inline = [gen.tensor(n, gen.FLOAT, list(w.shape), w.tobytes())
          for n, w in weights.items()]
write("model.onnx", gen.model(gen.graph(nodes, inputs, outputs,
                                        inline + [shape_init])))

data = bytearray()
external = []
for n, w in weights.items():
    data += bytes(-len(data) % 64)
    entries = b"".join(
        gen.f_bytes(13, gen.f_bytes(1, key) + gen.f_bytes(2, value))
        for key, value in (("location", "ext.onnx.data"),
                           ("offset", str(len(data))),
                           ("length", str(w.nbytes))))
    external.append(b"".join(gen.f_int(1, d) for d in w.shape) +
                    gen.f_int(2, gen.FLOAT) + gen.f_bytes(8, n) + entries +
                    gen.f_int(14, 1))
    data += w.tobytes()
write("ext.onnx.data", bytes(data))
write("ext.onnx", gen.model(gen.graph(nodes, inputs, outputs,
                                      external + [shape_init])))

x = rng.standard_normal((4, 128)).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)
w = {n: v.astype(np.float64) for n, v in weights.items()}
x64 = x.astype(np.float64)
r = np.maximum(x64 @ w["W1"] + w["b1"], 0)
y = r @ w["W2"] + r @ w["S"]
z = (x64 @ w["W3"].T) @ w["W4"].reshape(128, 256)
np.save(os.path.join(out, "y.npy"), y.astype(np.float32))
np.save(os.path.join(out, "z.npy"), z.astype(np.float32))
