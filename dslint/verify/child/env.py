"""Environment variables that carry the supervisor's settings into every target process
(inherited by forked, spawned and forkserver children alike)."""

import os

EVENTS = "DSLINT_VERIFY_EVENTS"
STACKS = "DSLINT_VERIFY_STACKS"
START_METHOD = "DSLINT_VERIFY_START_METHOD"
BATCHES = "DSLINT_VERIFY_BATCHES"
ROOT_PID = "DSLINT_VERIFY_ROOT_PID"
TMPDIR = "DSLINT_VERIFY_TMPDIR"
DRIVE = "DSLINT_VERIFY_DRIVE"
SITE = "DSLINT_VERIFY_SITE"  # set by the factory runner: the factory's own location


def is_root() -> bool:
    """The target's main process (not a worker, not a re-imported main)."""
    return os.environ.get(ROOT_PID) == str(os.getpid())


def batches() -> int:
    try:
        return max(1, int(os.environ.get(BATCHES, "8")))
    except ValueError:
        return 8
