"""Replays saved inputs through a fuzz target: replay.py BINARY PATH...

Every regular file under each PATH (a file or a directory) is passed to
BINARY by name. Both builds of a target take file names and run each once:
the ordinary build's replay driver (FuzzerMain.cpp) and a libFuzzer build
(which would start fuzzing if given a directory, hence the expansion here).
Prints "replayed N inputs" when none crashed; otherwise passes the target's
output through and exits non-zero.
"""
import os
import subprocess
import sys


def files_under(path):
    if not os.path.isdir(path):
        return [path]
    found = []
    for root, _, names in os.walk(path):
        found.extend(os.path.join(root, name) for name in names)
    return sorted(found)


def main():
    binary, paths = sys.argv[1], sys.argv[2:]
    files = [f for path in paths for f in files_under(path)]
    # A few hundred names per run keeps the command line short.
    for start in range(0, len(files), 200):
        chunk = files[start:start + 200]
        run = subprocess.run([binary] + chunk, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        if run.returncode != 0:
            sys.stdout.buffer.write(run.stdout)
            print(f"{os.path.basename(binary)} failed (exit {run.returncode}) "
                  f"on one of: {' '.join(chunk)}")
            return 1
    print(f"replayed {len(files)} inputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
