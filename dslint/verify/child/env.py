"""Environment variables that carry the supervisor's settings into every target process
(inherited by forked, spawned and forkserver children alike)."""

import os

EVENTS = "DSLINT_VERIFY_EVENTS"
STACKS = "DSLINT_VERIFY_STACKS"
START_METHOD = "DSLINT_VERIFY_START_METHOD"
BATCHES = "DSLINT_VERIFY_BATCHES"
ROOT_PID = "DSLINT_VERIFY_ROOT_PID"
TMPDIR = "DSLINT_VERIFY_TMPDIR"  # also the mark by which every target process is found
DRIVE = "DSLINT_VERIFY_DRIVE"
SITE = "DSLINT_VERIFY_SITE"  # set by the factory runner: the factory's own location
PARENT = "DSLINT_VERIFY_PARENT"  # the verifier's pid: the target's main dies with it
BUDGET = "DSLINT_VERIFY_BUDGET"  # seconds a probe may spend pulling an iterable to its end


def is_root() -> bool:
    """The target's main process (not a worker, not a re-imported main)."""
    return os.environ.get(ROOT_PID) == str(os.getpid())


def batches() -> int:
    try:
        return max(1, int(os.environ.get(BATCHES, "8")))
    except ValueError:
        return 8


def budget() -> float:
    try:
        return max(0.0, float(os.environ.get(BUDGET, "1")))
    except ValueError:
        return 1.0
