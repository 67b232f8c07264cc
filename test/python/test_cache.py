"""The on-disk cache: shared across processes, atomic under concurrent
writers, and rebuilt when an entry is corrupt."""

import glob
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ms

SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    import ms
    from ms import ops

    @ms.jit
    def block(x, w):
        return ops.softmax(ops.gelu(x @ w), axis=-1)

    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 16)).astype(np.float32)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = block(x, w)
    info = block.cache_info()
    info["warnings"] = [str(c.message) for c in caught]
    info["checksum"] = float(np.abs(y).sum())
    print(json.dumps(info))
""")


def run_script(tmp_path, cache, count=1):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, MS_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, str(script)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(count)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def entries(cache):
    return sorted(glob.glob(os.path.join(cache, "*.msm")))


def test_second_process_compiles_nothing(tmp_path):
    cache = tmp_path / "cache"
    first, = run_script(tmp_path, cache)
    assert first["compiles"] == 1 and first["disk_hits"] == 0
    assert len(entries(cache)) == 1
    second, = run_script(tmp_path, cache)
    assert second["compiles"] == 0 and second["disk_hits"] == 1
    assert second["traces"] == 1
    assert second["checksum"] == first["checksum"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage"])
def test_corrupt_entry_is_detected_and_rebuilt(tmp_path, damage):
    cache = tmp_path / "cache"
    first, = run_script(tmp_path, cache)
    entry, = entries(cache)
    data = bytearray(open(entry, "rb").read())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
    elif damage == "truncate":
        data = data[:len(data) // 3]
    elif damage == "empty":
        data = b""
    else:
        data = b"not a module file" * 10
    with open(entry, "wb") as f:
        f.write(data)
    rebuilt, = run_script(tmp_path, cache)
    assert rebuilt["compiles"] == 1 and rebuilt["disk_hits"] == 0
    assert any("corrupt cache entry" in w for w in rebuilt["warnings"])
    assert rebuilt["checksum"] == first["checksum"]
    again, = run_script(tmp_path, cache)
    assert again["compiles"] == 0 and again["disk_hits"] == 1
    assert not again["warnings"]


def test_concurrent_writers_leave_one_valid_entry(tmp_path):
    cache = tmp_path / "cache"
    results = run_script(tmp_path, cache, count=4)
    assert len({r["checksum"] for r in results}) == 1
    assert len(entries(cache)) == 1
    assert not glob.glob(os.path.join(cache, "*.tmp")) and not glob.glob(
        os.path.join(cache, ".ms-*"))
    after, = run_script(tmp_path, cache)
    assert after["compiles"] == 0 and after["disk_hits"] == 1


def test_empty_cache_dir_keeps_modules_private(tmp_path):
    first, = run_script(tmp_path, "")
    second, = run_script(tmp_path, "")
    assert first["compiles"] == 1 and second["compiles"] == 1


def test_key_depends_on_graph_and_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("MS_CACHE_DIR", str(tmp_path))
    a = np.ones((2, 2), np.float32)
    ms.jit(lambda x: x + 1.0)(a)
    ms.jit(lambda x: x + 2.0)(a)
    ms.jit(lambda x: x + 1.0, target_cpu="x86-64")(a)
    assert len(entries(tmp_path)) == 3
    f = ms.jit(lambda x: x + 1.0)
    f(a)
    assert f.cache_info() == {"traces": 1, "compiles": 0, "disk_hits": 1,
                              "signatures": 1}


def test_identity_names_each_cpu_of_a_list():
    # "native" in a list of CPUs is this host with its features, as alone:
    # a module cached on another host is not reused here.
    native = ms._ms.compiler_identity("native")
    listed = ms._ms.compiler_identity("native,x86-64-v3")
    host = native.split(";cpu ")[1]
    assert listed.split(";cpu ")[1] == host + ",x86-64-v3"


def test_unwritable_cache_dir_still_runs(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MS_CACHE_DIR", str(blocker / "cache"))
    with pytest.warns(RuntimeWarning, match="cannot write the cache entry"):
        out = ms.jit(lambda x: x * 3.0)(np.ones(2, np.float32))
    np.testing.assert_array_equal(out, [3, 3])
