"""Reads the meta section (signature, buffers, plan; JSON) of a module file.

The layout is docs/ModuleFormat.md: a 64-byte header (magic "MSMODULE",
version, section count, ...), then 48-byte section entries (kind, flags,
offset, size, checksum, reserved); kind 1 is the meta JSON.
"""
import json
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
