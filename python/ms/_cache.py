"""The on-disk cache of compiled modules.

Entries are module files named by a SHA-256 of the traced graph (printed
without source locations), the compile settings and the compiler's identity
(its build and the target CPU). They are written to a temporary file in the
cache directory and renamed into place, so a crash or a concurrent writer
never leaves a partial entry; an entry that fails the runtime's validation
(corruption) is reported with a warning, removed and rebuilt, and one that
is whole but cannot run on the device (PTX for another GPU) raises.

The directory is `$MS_CACHE_DIR`, else `$XDG_CACHE_HOME/ms`, else
`~/.cache/ms`. Setting `MS_CACHE_DIR` to an empty string keeps compiled
modules in a private temporary directory for the process only.
"""

import atexit
import functools
import hashlib
import os
import shutil
import tempfile
import threading
import warnings

from . import _ms

_FORMAT = "ms-jit-cache-v1"
_lock = threading.Lock()
_private_dir = None


def cache_dir():
    """The directory holding cached modules (created on demand)."""
    configured = os.environ.get("MS_CACHE_DIR")
    if configured == "":
        return _process_dir()
    if configured is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        configured = os.path.join(base, "ms")
    return configured


def _process_dir():
    global _private_dir
    with _lock:
        if _private_dir is None:
            _private_dir = tempfile.mkdtemp(prefix="ms-jit-")
            atexit.register(shutil.rmtree, _private_dir, True)
        return _private_dir


@functools.lru_cache(maxsize=None)
def _identity(target_cpu):
    return _ms.compiler_identity(target_cpu)


def key_of(graph_text, settings):
    """The cache key of a graph compiled with `settings` (a tuple)."""
    digest = hashlib.sha256()
    for part in (_FORMAT, _identity(settings[2]), repr(settings), graph_text):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def write_atomically(path, data):
    """Writes `data` to `path` through a temporary file and a rename."""
    directory = os.path.dirname(path) or "."
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".ms-",
                                suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def load_or_compile(builder, settings, stats):
    """The Executable for the finished `builder`: from the disk cache when
    present and valid, else compiled and stored. `settings` is (level,
    target, target_cpu, multi_copy, precision); `stats` counts "compiles"
    and "disk_hits"."""
    level, target, target_cpu, multi_copy, precision = settings
    # An unavailable device is the caller's error, not a corrupt entry.
    _ms.check_device(target)
    directory = cache_dir()
    key = key_of(builder.print(False), settings)
    path = os.path.join(directory, key + ".msm")
    if os.path.exists(path):
        try:
            executable = _ms.Executable(path, target)
            stats["disk_hits"] += 1
            return executable
        except _ms.ExecutionError as error:
            # A module that is whole but cannot run here (PTX for another
            # GPU: "unavailable") would fail the same way once recompiled.
            if getattr(error, "code", None) == "unavailable":
                raise
            warnings.warn(f"ms: discarding corrupt cache entry ({error}); "
                          "recompiling", RuntimeWarning, stacklevel=4)
            try:
                os.unlink(path)
            except OSError:
                pass
    data = builder.compile(level, target, target_cpu, multi_copy, precision)
    stats["compiles"] += 1
    try:
        os.makedirs(directory, exist_ok=True)
        write_atomically(path, data)
    except OSError as error:
        warnings.warn(f"ms: cannot write the cache entry in {directory} "
                      f"({error}); using a private directory",
                      RuntimeWarning, stacklevel=4)
        path = os.path.join(_process_dir(), key + ".msm")
        write_atomically(path, data)
    return _ms.Executable(path, target)
