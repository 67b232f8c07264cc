"""Reads the sections of a module file: the meta section (signature, buffers,
plan; JSON) and the code sections with the CPU features they require.

The layout is docs/ModuleFormat.md: a 64-byte header (magic "MSMODULE",
version, section count, ...), then 48-byte section entries (kind, flags,
offset, size, checksum, requirements, reserved); kind 1 is the meta JSON.

As a script: msm.py MODULE [--extract-cpu-elf OUT] [--extract-cuda-ptx OUT]
prints one line per section (kind, size, required CPU features), then one
per weight file the module refers to (path as recorded, size, the bytes of
its weights the module uses), and writes the first cpu-elf (or cuda-ptx: JSON with the PTX and the launches) section
to OUT. With --steps it prints the plan instead: a line per body (its name,
parameters and step kinds), then a line per step (its kind; a call names its
body).
"""
import argparse
import json
import os
import re
import struct

_META = 1
_KINDS = {1: "meta", 2: "weights", 3: "cpu-elf", 4: "cuda-ptx", 5: "npu-program"}


def _read_cpu_features():
    """Names of the CPU feature bits of a section's requirements, parsed from
    kCpuFeatures in runtime/include/ms/runtime/ModuleFormat.h."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "runtime", "include", "ms", "runtime", "ModuleFormat.h")
    text = open(path).read()
    table = re.search(r"kCpuFeatures\[\] = \{(.*?)\};", text, re.S).group(1)
    return re.findall(r'"([^"]+)"', table)


CPU_FEATURES = _read_cpu_features()


def read_sections(path):
    """Returns the sections of module file `path` as (kind name, bytes,
    [required CPU feature names]) tuples, in file order."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"MSMODULE":
        raise ValueError("%s: not a module file" % path)
    (count,) = struct.unpack_from("<I", data, 12)
    (table,) = struct.unpack_from("<Q", data, 24)
    sections = []
    for i in range(count):
        kind, _flags, offset, size, _sum, needs = struct.unpack_from(
            "<IIQQQQ", data, table + 48 * i)
        names = [CPU_FEATURES[b] if b < len(CPU_FEATURES) else "#%d" % b
                 for b in range(64) if needs >> b & 1]
        sections.append((_KINDS.get(kind, str(kind)), data[offset:offset + size], names))
    return sections


def read_meta(path):
    """Returns the meta JSON of module file `path` as a dict."""
    for kind, data, _ in read_sections(path):
        if kind == _KINDS[_META]:
            return json.loads(data.decode("utf-8"))
    raise ValueError("%s: no meta section" % path)


def run_steps(meta):
    """The steps of plan `meta` in the order they run: a call's body steps in
    its place (their buffers are the body's parameters)."""
    bodies = meta.get("bodies", [])
    steps = []
    for step in meta.get("steps", []):
        if step.get("kind") == "call":
            steps += bodies[step["body"]]["steps"]
        else:
            steps.append(step)
    return steps


def _read_dtypes():
    """dtype name -> NumPy dtype name ("" when none), parsed from the one table
    of element types (runtime/include/ms/runtime/DTypes.def)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "runtime", "include", "ms", "runtime", "DTypes.def")
    table = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'MS_DTYPE\(\w+, "(\w+)", [^,]+, \w+, \d+, "(\w*)"', line)
            if m:
                table[m.group(1)] = m.group(2)
    return table


DTYPES = _read_dtypes()


def main():
    ap = argparse.ArgumentParser(description="Lists a module file's sections.")
    ap.add_argument("module")
    ap.add_argument("--extract-cpu-elf", metavar="OUT",
                    help="write the first cpu-elf section to OUT")
    ap.add_argument("--extract-cuda-ptx", metavar="OUT",
                    help="write the first cuda-ptx section to OUT")
    ap.add_argument("--extract-npu-program", metavar="OUT",
                    help="write the first npu-program section to OUT")
    ap.add_argument("--steps", action="store_true",
                    help="print the plan's bodies and steps instead")
    args = ap.parse_args()
    if args.steps:
        meta = read_meta(args.module)
        bodies = meta.get("bodies", [])
        for body in bodies:
            print("body %s (%d params): %s" % (
                body["name"], body["params"],
                " ".join(step["kind"] for step in body["steps"])))
        for step in meta["steps"]:
            print(step["kind"] + (" " + bodies[step["body"]]["name"]
                                  if step["kind"] == "call" else ""))
        return
    wanted = {"cpu-elf": args.extract_cpu_elf, "cuda-ptx": args.extract_cuda_ptx,
              "npu-program": args.extract_npu_program}
    extracted = set()
    meta = None
    for kind, data, needs in read_sections(args.module):
        print("%s %d bytes%s" % (kind, len(data),
                                 ", requires " + " ".join(needs) if needs else ""))
        if kind == "meta":
            meta = json.loads(data)
        if wanted.get(kind) and kind not in extracted:
            with open(wanted[kind], "wb") as f:
                f.write(data)
            extracted.add(kind)
    def file_bytes(buffer):
        # A relayout's source lies in the file; the buffer is its layout.
        relayout = buffer.get("relayout")
        if not relayout:
            return buffer["size"]
        count = 1
        for size in relayout["shape"]:
            count *= size
        return count * relayout["element_bytes"]

    for index, file in enumerate((meta or {}).get("weight_files", [])):
        weights = [b for b in meta["buffers"]
                   if b["kind"] == "weight" and b.get("file") == index]
        relaid = sum(1 for b in weights if "relayout" in b)
        print("weight file %s %d bytes, %d used%s" % (
            file["path"], file["size"], sum(file_bytes(b) for b in weights),
            ", %d laid out as the module loads" % relaid if relaid else ""))
    for kind, out in wanted.items():
        if out and kind not in extracted:
            raise SystemExit("msm.py: %s has no %s section" % (args.module, kind))


if __name__ == "__main__":
    main()
