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


def print_table(header, rows):
    """Prints `header` and `rows` (lists of strings) as aligned columns: the
    first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in list(rows) + [header])
              for i in range(len(header))]
    for row in [header] + list(rows):
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))
