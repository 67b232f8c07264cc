"""Kills ms-compile (SIGKILL) at moments spread over a compilation that
writes a 64 MB module and fills a kernel cache, then checks what a crash may
leave: no module file, or a whole one that loads and runs; no cache entry
a later compile finds corrupt; and that later compile's module equals one
compiled without the cache. Half the kills with a filled cache find the
module already at the output path (a compile that compares its bytes with
the file's instead of writing).

Usage: kill-compile.py MS_COMPILE MS_RUN MODEL WORK_DIR
"""
import os
import shutil
import signal
import subprocess
import sys
import time

ms_compile, ms_run, model, work = sys.argv[1:5]
cache = os.path.join(work, "cache")
out = os.path.join(work, "out.msm")
def timed(args):
    start = time.perf_counter()
    subprocess.run([ms_compile, model, "-O1", "-o", out] + args, check=True)
    return time.perf_counter() - start


# Kills spread over the time a whole compile takes, with an empty cache
# (killed while the cache is written) and with a filled one (while the
# module is written).
cold = timed(["--no-cache"])
timed(["--cache-dir", cache])
os.remove(out)  # (the time to write the module, not to compare it)
warm = timed(["--cache-dir", cache])
rounds = [(cold * i / 10, True) for i in range(11)] + \
    [(warm * i / 20, False) for i in range(21)]
kills = 0
for i, (delay, empty) in enumerate(rounds):
    if empty:
        shutil.rmtree(cache, ignore_errors=True)
    if empty or i % 2 == 0:
        if os.path.exists(out):
            os.remove(out)
    elif not os.path.exists(out):
        timed(["--cache-dir", cache])
    p = subprocess.Popen([ms_compile, model, "-O1", "-o", out, "--cache-dir",
                          cache],
                         stderr=subprocess.DEVNULL)
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    p.wait()
    kills += p.returncode == -signal.SIGKILL
    if os.path.exists(out):
        # Killed after the rename: the module is whole.
        subprocess.run([ms_run, out], check=True, stdout=subprocess.DEVNULL)
    for name in os.listdir(work):
        # Only the killed writer's temporary file may be left beside it.
        if name.endswith(".tmp"):
            os.remove(os.path.join(work, name))
        else:
            assert name in ("cache", "out.msm"), name

report = subprocess.run([ms_compile, model, "-O1", "-o", out, "--cache-dir", cache,
                         "--time-report"], check=True, capture_output=True, text=True)
assert "corrupt" not in report.stderr, report.stderr
fresh = os.path.join(work, "fresh.msm")
subprocess.run([ms_compile, model, "-O1", "-o", fresh, "--no-cache"], check=True)
with open(out, "rb") as a, open(fresh, "rb") as b:
    assert a.read() == b.read(), "module from the cache differs"
print("killed %d times; no partial module or cache entry" % kills)
