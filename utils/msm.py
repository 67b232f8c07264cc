"""Reads the meta section (signature, buffers, plan; JSON) of a module file.

The layout is docs/ModuleFormat.md: a 64-byte header (magic "MSMODULE",
version, section count, ...), then 48-byte section entries (kind, flags,
offset, size, checksum, reserved); kind 1 is the meta JSON.
"""
import json
import os
import re
import struct

_META = 1


def read_meta(path):
    """Returns the meta JSON of module file `path` as a dict."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"MSMODULE":
        raise ValueError("%s: not a module file" % path)
    (count,) = struct.unpack_from("<I", data, 12)
    (table,) = struct.unpack_from("<Q", data, 24)
    for i in range(count):
        kind, _flags, offset, size = struct.unpack_from("<IIQQ", data, table + 48 * i)
        if kind == _META:
            return json.loads(data[offset:offset + size].decode("utf-8"))
    raise ValueError("%s: no meta section" % path)


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
