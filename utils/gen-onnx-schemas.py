#!/usr/bin/env python3
"""Generates lib/Importer/ONNX/OnnxSchemas.inc from ONNX's docs/Changelog.md.

The importer checks every node against its op's schema (inputs, outputs,
element types, attribute types) before a converter runs; this script turns
the Changelog (every version of every default-domain op) into that table.

    python3 utils/gen-onnx-schemas.py path/to/onnx/docs/Changelog.md \
        > lib/Importer/ONNX/OnnxSchemas.inc

One line per op version:
    MS_ONNX_SCHEMA("Conv", 11, 2, 3, "X:T W:T B?:T", 1, 1, "Y:T",
                   "auto_pad:STRING dilations:INTS ...", "T=float16|float|double")
  - min/max inputs and outputs (-1: unbounded);
  - each input/output `name[?|*|+]:type` (? optional, * variadic of one type,
    + variadic of mixed types); a type is a constraint name or, inline, a
    `|`-list of element types in parentheses; `any` when not a tensor type;
  - each attribute `name:TYPE` (AttributeProto's type name), `!` when required;
  - each constraint `T=elem|elem|...` (`any` when it allows non-tensors).
"""
import html
import re
import sys

ATTR_TYPES = {
    "int": "INT", "float": "FLOAT", "string": "STRING", "tensor": "TENSOR",
    "graph": "GRAPH", "sparse tensor": "SPARSE_TENSOR", "type proto": "TYPE_PROTO",
    "list of ints": "INTS", "list of floats": "FLOATS", "list of strings": "STRINGS",
    "list of tensors": "TENSORS", "list of graphs": "GRAPHS",
    "list of sparse tensors": "SPARSE_TENSORS", "list of type protos": "TYPE_PROTOS",
}


def element_types(text):
    """'tensor(float), tensor(int64)' -> 'float|int64'; 'any' if a non-tensor."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    out = []
    for item in items:
        m = re.fullmatch(r"tensor\((\w+)\)", item)
        if not m:
            return "any"
        out.append(m.group(1))
    return "|".join(out) if out else "any"


def parse_range(header, count):
    m = re.search(r"\((\d+) - (\d+|&#8734;)\)", header)
    if not m:
        return count, count
    hi = -1 if m.group(2) == "&#8734;" else int(m.group(2))
    if hi >= 2**31 - 1:  # Some schemas spell "unbounded" as INT_MAX.
        hi = -1
    return int(m.group(1)), hi


def parse_values(lines, constraints):
    """<dt> lines of an Inputs/Outputs list -> 'name[?*+]:type' items."""
    out = []
    for line in lines:
        m = re.match(r"<dt><tt>([^<]+)</tt>(?: \(([^)]*)\))? : (.*)</dt>", line)
        if not m:
            continue
        name, flags, type_ = m.group(1), (m.group(2) or ""), m.group(3).strip()
        mark = ""
        if "optional" in flags:
            mark = "?"
        if "variadic" in flags:
            mark = "+" if "heterogeneous" in flags else "*"
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", type_) and type_ not in ("tensor",):
            t = type_
        else:
            t = "(" + element_types(type_) + ")"
        out.append("%s%s:%s" % (name, mark, t))
    return out


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    # Only the default domain: up to the next top-level domain heading.
    start = text.index("# ai.onnx (default)")
    end = text.find("\n# ", start + 1)
    text = text[start:end if end >= 0 else len(text)]
    sections = re.split(r'\n### <a name="[^"]+"></a>\*\*', text)[1:]
    rows = []
    for section in sections:
        head = re.match(r"([A-Za-z0-9_]+)-(\d+)\*\*", section)
        if not head:
            continue
        op, version = head.group(1), int(head.group(2))
        parts = re.split(r"\n#### ", section)
        attrs, ins, outs, cons = [], None, None, []
        for part in parts[1:]:
            title, _, body = part.partition("\n")
            lines = [l.strip() for l in body.splitlines() if l.strip().startswith("<dt>")]
            if title.startswith("Attributes"):
                for line in lines:
                    m = re.match(r"<dt><tt>([^<]+)</tt> : ([a-z ]+?)\s*(\(required\))?(?: \(default[^)]*\))?</dt>", line)
                    if m and m.group(2).strip() in ATTR_TYPES:
                        attrs.append("%s:%s%s" % (m.group(1), ATTR_TYPES[m.group(2).strip()],
                                                  "!" if m.group(3) else ""))
            elif title.startswith("Inputs"):
                ins = (title, parse_values(lines, cons))
            elif title.startswith("Outputs"):
                outs = (title, parse_values(lines, cons))
            elif title.startswith("Type Constraints"):
                for line in lines:
                    m = re.match(r"<dt><tt>([^<]+)</tt> : (.*)</dt>", line)
                    if m:
                        cons.append("%s=%s" % (m.group(1), element_types(m.group(2))))
        ins = ins or ("", [])
        outs = outs or ("", [])
        min_in, max_in = parse_range(ins[0], len(ins[1]))
        min_out, max_out = parse_range(outs[0], len(outs[1]))
        rows.append('MS_ONNX_SCHEMA("%s", %d, %d, %d, "%s", %d, %d, "%s", "%s", "%s")' % (
            op, version, min_in, max_in, " ".join(ins[1]), min_out, max_out,
            " ".join(outs[1]), " ".join(attrs), " ".join(cons)))
    print("// Generated by utils/gen-onnx-schemas.py from ONNX's docs/Changelog.md;")
    print("// do not edit. Regenerate with a newer Changelog to pick up new op versions.")
    print("// MS_ONNX_SCHEMA(op, since, minInputs, maxInputs, inputs, minOutputs,")
    print("//                maxOutputs, outputs, attributes, typeConstraints)")
    print()
    print("#ifndef MS_ONNX_SCHEMA")
    print('#error "define MS_ONNX_SCHEMA first"')
    print("#endif")
    print()
    for row in sorted(set(rows), key=lambda r: (r.split('"')[1], int(r.split(",")[1]))):
        print(row)
    print()
    print("#undef MS_ONNX_SCHEMA")


if __name__ == "__main__":
    main()
