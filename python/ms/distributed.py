"""The process's place in a multi-process run: `rank()` and `world_size()`
from the launcher's environment (`python3 -m ms.launch`, which sets MS_RANK
and MS_WORLD_SIZE, or mpirun, which sets OMPI_COMM_WORLD_RANK/SIZE or
PMI_RANK/SIZE). Without a launcher the process is rank 0 of a world of 1.

The runtime creates its communicator from the same variables
(docs/Runtime.md): a module compiled for a mesh of N devices runs only in a
world of N processes.
"""

import os

_VARIABLES = (("MS_RANK", "MS_WORLD_SIZE"),
              ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
              ("PMI_RANK", "PMI_SIZE"))


def _read():
    for rank_name, size_name in _VARIABLES:
        rank, size = os.environ.get(rank_name), os.environ.get(size_name)
        if rank is None and size is None:
            continue
        try:
            rank, size = int(rank), int(size)
        except (TypeError, ValueError):
            raise RuntimeError(
                f"{rank_name}={os.environ.get(rank_name)!r} and "
                f"{size_name}={os.environ.get(size_name)!r}: expected two "
                "integers") from None
        if size < 1 or not 0 <= rank < size:
            raise RuntimeError(f"{rank_name}={rank} is not a rank of a "
                               f"world of {size_name}={size}")
        return rank, size
    return 0, 1


def rank():
    """This process's rank (0 without a launcher)."""
    return _read()[0]


def world_size():
    """The number of processes (1 without a launcher)."""
    return _read()[1]


def is_main():
    """True on rank 0, the rank that usually prints and writes files."""
    return rank() == 0
