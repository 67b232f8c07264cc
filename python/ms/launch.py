"""`python3 -m ms.launch --nproc N script.py [args...]`: runs N local ranks of
a script, as torchrun does. Each rank is a `python3 script.py args...`
process with MS_RANK, MS_WORLD_SIZE and MS_RENDEZVOUS (a fresh directory
the ranks meet in, removed afterwards) in its environment; `ms.jit` with a
mesh and `ms.distributed` read them. If a rank fails, the others are
stopped after a short grace period; the exit status is the first failed
rank's (0 when all succeed). Under mpirun, run the script directly instead:
`mpirun -np N python3 script.py`.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m ms.launch",
        description="Runs N local ranks of a Python script.")
    parser.add_argument("--nproc", type=int, required=True,
                        help="number of ranks (processes) to start")
    parser.add_argument("--grace", type=float, default=5.0,
                        help="seconds the other ranks get to finish after "
                             "one failed (default 5)")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER,
                        help="arguments passed to the script")
    options = parser.parse_args(argv)
    if not 1 <= options.nproc <= 4096:
        parser.error(f"--nproc {options.nproc}: expected 1 to 4096 ranks")
    if not os.path.isfile(options.script):
        parser.error(f"cannot open script '{options.script}'")

    rendezvous = tempfile.mkdtemp(prefix="ms-launch-")
    ranks = []
    try:
        for rank in range(options.nproc):
            env = dict(os.environ, MS_RANK=str(rank),
                       MS_WORLD_SIZE=str(options.nproc),
                       MS_RENDEZVOUS=rendezvous)
            ranks.append(subprocess.Popen(
                [sys.executable, options.script] + options.args, env=env))
        status = 0
        deadline = None
        running = set(range(options.nproc))
        while running:
            for rank in sorted(running):
                code = ranks[rank].poll()
                if code is None:
                    continue
                running.discard(rank)
                if code != 0 and status == 0:
                    status = code if code > 0 else 128 - code
                    print(f"ms.launch: rank {rank} exited with status "
                          f"{code}; stopping the others", file=sys.stderr)
                    deadline = time.monotonic() + options.grace
            if deadline is not None and time.monotonic() > deadline:
                for rank in running:
                    ranks[rank].send_signal(signal.SIGKILL)
                for rank in running:
                    ranks[rank].wait()
                break
            time.sleep(0.02)
        return status
    except KeyboardInterrupt:
        for process in ranks:
            process.send_signal(signal.SIGKILL)
        return 130
    finally:
        for process in ranks:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(rendezvous, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
