#!/usr/bin/env python3
"""Writes the small ONNX models the importer tests use
(test/Importer/ONNX/Inputs/), including deliberately broken ones.

The models are encoded with a tiny protobuf writer (field numbers from the
ONNX IR specification) so that no onnx package is needed; rerun this script
after changing it and commit the outputs.
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "test", "Importer", "ONNX", "Inputs")


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    return varint(num << 3 | wire) + payload


def f_int(num, v):
    return field(num, 0, varint(v))


def f_bytes(num, b):
    if isinstance(b, str):
        b = b.encode()
    return field(num, 2, varint(len(b)) + b)


def f_float(num, v):
    return field(num, 5, struct.pack("<f", v))


FLOAT, UINT8, INT64, STRING, BOOL = 1, 2, 7, 8, 9


def tensor_type(elem, dims):
    shape = b"".join(f_bytes(1, f_int(1, d) if isinstance(d, int) else f_bytes(2, d))
                     for d in dims)
    return f_bytes(1, f_int(1, elem) + f_bytes(2, shape))


def value_info(name, elem, dims):
    return f_bytes(1, name) + f_bytes(2, tensor_type(elem, dims))


def sequence_info(name, elem):
    """A ValueInfoProto of a sequence of `elem` tensors of unknown shape."""
    element = f_bytes(1, f_int(1, elem))
    return f_bytes(1, name) + f_bytes(2, f_bytes(4, f_bytes(1, element)))


def node(op, inputs, outputs, name="", domain="", attrs=b""):
    out = b"".join(f_bytes(1, i) for i in inputs)
    out += b"".join(f_bytes(2, o) for o in outputs)
    if name:
        out += f_bytes(3, name)
    out += f_bytes(4, op)
    if domain:
        out += f_bytes(7, domain)
    return out + attrs


def attr_int(name, v):
    return f_bytes(5, f_bytes(1, name) + f_int(20, 2) + f_int(3, v))


def attr_ints(name, vs):
    return f_bytes(5, f_bytes(1, name) + f_int(20, 7) + b"".join(f_int(8, v) for v in vs))


def attr_string(name, v):
    return f_bytes(5, f_bytes(1, name) + f_int(20, 3) + f_bytes(4, v))


def attr_strings(name, vs):
    return f_bytes(5, f_bytes(1, name) + f_int(20, 8) + b"".join(f_bytes(9, v) for v in vs))


def tensor(name, elem, dims, raw):
    return b"".join(f_int(1, d) for d in dims) + f_int(2, elem) + f_bytes(8, name) + f_bytes(9, raw)


def graph(nodes, inputs, outputs, initializers=()):
    out = b"".join(f_bytes(1, n) for n in nodes)
    out += f_bytes(2, "g")
    out += b"".join(f_bytes(5, t) for t in initializers)
    out += b"".join(f_bytes(11, i) for i in inputs)
    out += b"".join(f_bytes(12, o) for o in outputs)
    return out


def model(g, opset=17):
    return f_int(1, 8) + f_bytes(8, f_int(2, opset)) + f_bytes(2, "gen") + f_bytes(7, g)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    x = value_info("x", FLOAT, [2, 3])
    y = value_info("y", FLOAT, [2, 3])
    # A valid model: y = relu(x) + w, with an initializer.
    w = tensor("w", FLOAT, [3], struct.pack("<3f", 1.0, -2.0, 0.5))
    good = model(graph([node("Relu", ["x"], ["r"], "relu0"),
                        node("Add", ["r", "w"], ["y"], "add0")], [x], [y], [w]))
    write("add-relu.onnx", good)
    # Symbolic batch dimension, pinned with --input-shape.
    write("dynamic-batch.onnx", model(graph(
        [node("Relu", ["x"], ["y"], "relu0")],
        [value_info("x", FLOAT, ["batch", 3])], [value_info("y", FLOAT, ["batch", 3])])))
    # A weight of 8 KiB, whose bytes the importer copies straight from the
    # file into its constant (the protobuf is parsed without them); its raw
    # data comes twice, and the last wins, as in a protobuf parse. Cut
    # inside those bytes, the model is truncated.
    xl = value_info("x", FLOAT, [2048])
    yl = value_info("y", FLOAT, [2048])
    wl = (f_int(1, 2048) + f_int(2, FLOAT) + f_bytes(8, "w") +
          f_bytes(9, bytes(8192)) +
          f_bytes(9, struct.pack("<2048f", *(i * 0.5 for i in range(2048)))))
    large = model(graph([node("Add", ["x", "w"], ["y"], "add0")], [xl], [yl],
                        [wl]))
    write("large-initializer.onnx", large)
    write("truncated-initializer.onnx", large[:-100])
    # Broken files.
    write("truncated.onnx", good[: len(good) // 2])
    write("garbage.onnx", b"\xff\xfe this is not a protobuf \x00\x01\x02" * 3)
    write("unsupported-ops.onnx", model(graph(
        [node("Relu", ["x"], ["a"], "relu0"),
         node("FancyOp", ["a"], ["b"], "fancy0"),
         node("Einsum", ["b"], ["c"], "einsum0"),
         node("Custom", ["c"], ["y"], "custom0", domain="com.example")], [x], [y])))
    write("cycle.onnx", model(graph(
        [node("Relu", ["b"], ["a"], "first"), node("Relu", ["a"], ["b"], "second"),
         node("Identity", ["b"], ["y"], "out")], [x], [y])))
    write("dangling.onnx", model(graph(
        [node("Add", ["x", "nowhere"], ["y"], "add0")], [x], [y])))
    write("bad-shapes.onnx", model(graph(
        [node("Add", ["x", "z"], ["y"], "add0")],
        [x, value_info("z", FLOAT, [4, 5])], [y])))
    write("unknown-dtype.onnx", model(graph(
        [node("Relu", ["x"], ["y"], "relu0")],
        [value_info("x", 99, [2, 3])], [y])))
    write("float8-initializer.onnx", model(graph(
        [node("Add", ["x", "w"], ["y"], "add0")], [x], [y],
        [tensor("w", 17, [3], b"\x01\x02\x03")])))
    write("wrong-output-shape.onnx", model(graph(
        [node("Relu", ["x"], ["y"], "relu0")], [x], [value_info("y", FLOAT, [3, 2])])))
    write("short-initializer.onnx", model(graph(
        [node("Add", ["x", "w"], ["y"], "add0")], [x], [y],
        [tensor("w", FLOAT, [3], struct.pack("<2f", 1.0, 2.0))])))
    # Sequences: read by a non-sequence op; an out-of-range constant
    # position; a position computed at run time.
    pair = node("SequenceConstruct", ["x", "x"], ["s"], "construct")
    write("sequence-misuse.onnx", model(graph(
        [pair, node("Relu", ["s"], ["y"], "relu0")], [x], [y])))
    write("sequence-position.onnx", model(graph(
        [pair, node("SequenceAt", ["s", "pos"], ["y"], "at")], [x], [y],
        [tensor("pos", INT64, [], struct.pack("<q", 5))])))
    write("sequence-runtime-position.onnx", model(graph(
        [pair, node("SequenceAt", ["s", "pos"], ["y"], "at")],
        [x, value_info("pos", INT64, [])], [y])))

    # A shape computed at run time from a graph input: the error names it.
    one = tensor("one", INT64, [2], struct.pack("<2q", 0, 0))
    write("runtime-derived-shape.onnx", model(graph(
        [node("Add", ["s", "one"], ["s2"], "add0"),
         node("Reshape", ["x", "s2"], ["y"], "reshape0")],
        [x, value_info("s", INT64, [2])], [value_info("y", FLOAT, [3, 2])], [one])))
    # Gradient (ai.onnx.preview.training): d = (a + b) * a, so
    # dd/da = 2a + b and dd/db = a; and one through an op it cannot
    # differentiate.
    training = "ai.onnx.preview.training"
    a, b = value_info("a", FLOAT, [2, 3]), value_info("b", FLOAT, [3])
    grads = node("Gradient", ["a", "b"], ["da", "db"], "grad", training,
                 attr_strings("xs", ["a", "b"]) + attr_string("y", "d"))
    write("gradient.onnx", model(graph(
        [node("Add", ["a", "b"], ["c"], "add0"), node("Mul", ["c", "a"], ["d"], "mul0"), grads],
        [a, b], [value_info("d", FLOAT, [2, 3]), value_info("da", FLOAT, [2, 3]),
                 value_info("db", FLOAT, [3])])))
    write("gradient-unsupported.onnx", model(graph(
        [node("Add", ["a", "b"], ["c"], "add0"), node("Softmax", ["c"], ["d"], "softmax0"), grads],
        [a, b], [value_info("da", FLOAT, [2, 3]), value_info("db", FLOAT, [3])])))
    # Strings: StringNormalizer, Equal and Identity on a string input; a
    # string initializer is rejected.
    words, key = value_info("words", STRING, [4]), value_info("key", STRING, [1])
    write("strings.onnx", model(graph(
        [node("StringNormalizer", ["words"], ["normalized"], "norm0", "",
              attr_string("case_change_action", "UPPER") +
              attr_strings("stopwords", ["monday"])),
         node("Equal", ["words", "key"], ["same"], "eq0"),
         node("Identity", ["words"], ["copy"], "id0")],
        [words, key],
        [value_info("normalized", STRING, ["n"]), value_info("same", BOOL, [4]),
         value_info("copy", STRING, [4])]), opset=19))
    stop = (f_int(1, 1) + f_int(2, STRING) + f_bytes(6, "monday") +
            f_bytes(8, "stop"))
    write("string-initializer.onnx", model(graph(
        [node("Equal", ["words", "stop"], ["same"], "eq0")],
        [words], [value_info("same", BOOL, [4])], [stop])))
    # Training-mode Dropout draws its mask at import time (seed 3); a ratio of
    # 1 is rejected.
    x = value_info("x", FLOAT, [2, 3])
    on = tensor("on", BOOL, [], b"\x01")
    for name, ratio in (("dropout-training.onnx", 0.5), ("dropout-bad-ratio.onnx", 1.0)):
        r = tensor("r", FLOAT, [], struct.pack("<f", ratio))
        write(name, model(graph(
            [node("Dropout", ["x", "r", "on"], ["y", "mask"], "drop0", "",
                  attr_int("seed", 3))],
            [x], [value_info("y", FLOAT, [2, 3]), value_info("mask", BOOL, [2, 3])],
            [r, on])))
    # A sequence graph input (its element shapes come from --input-shape)
    # read with SequenceAt and returned whole through Identity.
    one = tensor("one", INT64, [], struct.pack("<q", 1))
    write("sequence-io.onnx", model(graph(
        [node("SequenceAt", ["xs", "one"], ["second"], "at0"),
         node("Identity", ["xs"], ["ys"], "id0")],
        [sequence_info("xs", FLOAT)],
        [value_info("second", FLOAT, ["n"]), sequence_info("ys", FLOAT)], [one])))
    # Attribute values the importer rejects by name: a BitShift direction
    # other than LEFT/RIGHT, a DepthToSpace blocksize that does not divide
    # the channels.
    a, s = value_info("a", UINT8, [4]), value_info("s", UINT8, [4])
    write("bitshift-bad-direction.onnx", model(graph(
        [node("BitShift", ["a", "s"], ["y"], "shift0", "",
              attr_string("direction", "UP"))],
        [a, s], [value_info("y", UINT8, [4])])))
    x = value_info("x", FLOAT, [1, 8, 2, 2])
    write("depth-to-space-bad-block.onnx", model(graph(
        [node("DepthToSpace", ["x"], ["y"], "d2s0", "",
              attr_int("blocksize", 3))],
        [x], [value_info("y", FLOAT, [1, 1, 6, 6])])))

    # Crash classes the fuzzers found (issue 20), each now a clear error.
    x = value_info("x", FLOAT, [1, 8, 2, 2])
    y4 = value_info("y", FLOAT, [1, 8, 2, 2])
    write("crash-missing-input.onnx", model(graph(
        [node("Reshape", ["x"], ["y"], "reshape0")], [x], [y4])))
    write("crash-extra-input.onnx", model(graph(
        [node("Selu", ["x", "x"], ["y"], "selu0")], [x], [y4])))
    write("crash-no-inputs.onnx", model(graph(
        [node("Gelu", [], ["y"], "gelu0")], [x], [y4]), opset=20))
    write("crash-attribute-type.onnx", model(graph(
        [node("Transpose", ["x"], ["y"], "transpose0", "",
              f_bytes(5, f_bytes(1, "perm") + f_int(20, 1) + f_float(2, 1.0)))],
        [x], [y4])))
    write("crash-missing-attribute.onnx", model(graph(
        [node("Cast", ["x"], ["y"], "cast0")], [x], [y4])))
    write("crash-mixed-types.onnx", model(graph(
        [node("Add", ["x", "i"], ["y"], "add0")],
        [x, value_info("i", INT64, [1, 8, 2, 2])], [y4])))
    write("crash-huge-blocksize.onnx", model(graph(
        [node("DepthToSpace", ["x"], ["y"], "d2s0", "",
              attr_int("blocksize", 1 << 32))], [x], [y4])))
    # A constant with huge dims and few values (typed fields, not raw).
    huge = f_int(1, 1 << 40) + f_int(2, FLOAT) + f_bytes(8, "w") + f_bytes(
        4, struct.pack("<3f", 1, 2, 3))
    write("crash-huge-constant.onnx", model(graph(
        [node("Add", ["x", "w"], ["y"], "add0")], [x], [y4], [huge])))

    # Window attributes the converters compute with before any verifier:
    # a zero stride under auto_pad, sizes that overflow int64, an output
    # beyond the size limit, a short output_padding list.
    wt = tensor("wt", FLOAT, [8, 8, 1, 1], struct.pack("<64f", *([0.0] * 64)))
    same = attr_string("auto_pad", "SAME_UPPER")
    for name, attrs in (
            ("crash-conv-zero-stride.onnx", same + attr_ints("strides", [0, 0])),
            ("crash-conv-huge-strides.onnx",
             same + attr_ints("strides", [1 << 62] * 2) +
             attr_ints("dilations", [1 << 62] * 2)),
            ("crash-conv-huge-output.onnx",
             attr_ints("pads", [1 << 30] * 4))):
        write(name, model(graph([node("Conv", ["x", "wt"], ["y"], "conv0", "", attrs)],
                                [x], [y4], [wt])))
    write("crash-pool-window-overflow.onnx", model(graph(
        [node("MaxPool", ["x"], ["y"], "pool0", "",
              same + attr_ints("kernel_shape", [3, 3]) +
              attr_ints("dilations", [1 << 62] * 2))], [x], [y4])))
    write("crash-convtranspose-short-padding.onnx", model(graph(
        [node("ConvTranspose", ["x", "wt"], ["y"], "convt0", "",
              attr_ints("output_padding", [1]) + attr_ints("output_shape", [3, 3]))],
        [x], [y4], [wt])))

    # Expand to a negative dim, and to dims whose product overflows int64
    # (each within the per-dim limit): folding the Expand counted elements.
    for name, dims in (("crash-expand-negative-dim.onnx", [-3, 2]),
                       ("crash-expand-overflowing-dims.onnx", [1 << 33, 1 << 33, 2])):
        shape = tensor("shape", INT64, [len(dims)],
                       struct.pack("<%dq" % len(dims), *dims))
        write(name, model(graph(
            [node("Expand", ["c", "shape"], ["y"], "expand0")], [],
            [value_info("y", FLOAT, [1, 1])],
            [tensor("c", FLOAT, [2], struct.pack("<2f", 1, 2)), shape])))

    def external(location):
        entry = f_bytes(13, f_bytes(1, "location") + f_bytes(2, location))
        return (f_int(1, 4) + f_int(2, FLOAT) + f_bytes(8, "w") + entry +
                f_int(14, 1))
    xs = value_info("x", FLOAT, [4])
    for name, location in (("crash-external-device.onnx", "/dev/zero"),
                           ("crash-external-escape.onnx", "../../secret.bin")):
        write(name, model(graph(
            [node("Add", ["x", "w"], ["y"], "add0")], [xs],
            [value_info("y", FLOAT, [4])], [external(location)])))


if __name__ == "__main__":
    main()
