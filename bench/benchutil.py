"""Helpers the benchmark scripts share."""
import platform
import subprocess


def run(cmd, env=None):
    """Runs `cmd`; returns its standard output, or raises RuntimeError with
    the first line of its error output."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError((p.stderr.strip() or p.stdout.strip() or
                            "exit %d" % p.returncode).splitlines()[0])
    return p.stdout


def cpu_name():
    """The CPU's model name."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
