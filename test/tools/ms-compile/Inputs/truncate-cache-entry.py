"""Truncates by one byte the first kernel cache entry (by name) whose payload
is an ELF file of type E_TYPE (1: a code part, 3: a linked library).

Usage: truncate-cache-entry.py CACHE_DIR E_TYPE"""
import os
import struct
import sys

HEADER = 32  # the entry's header, before the payload

directory, wanted = sys.argv[1], int(sys.argv[2])
for name in sorted(os.listdir(directory)):
    path = os.path.join(directory, name)
    with open(path, "rb") as f:
        head = f.read(HEADER + 18)
    if len(head) == HEADER + 18 and head[HEADER:HEADER + 4] == b"\x7fELF" and \
            struct.unpack_from("<H", head, HEADER + 16)[0] == wanted:
        os.truncate(path, os.path.getsize(path) - 1)
        sys.exit(0)
sys.exit("no entry of ELF type %d in %s" % (wanted, directory))
