"""Leave nothing behind: kill the target's session, reap it, remove its shm segments.

Orphaned workers stuck in native code never notice their parent died, and a pipe held by
one blocks its reader forever, so the whole session is SIGKILLed after every run, then
swept until empty. Pids are remembered with their start time while the target runs, so a
process that left the session (``setsid``) is still found, and a recycled pid is not
mistaken for it. ``torch_shm_manager`` runs in its own session on purpose and cleans the
segments of dead processes itself; whatever it has not cleaned after a grace period and
was made by one of the target's pids is unlinked here.
"""

from __future__ import annotations

import os
import re
import signal
import time
from typing import Dict, Iterable, List, Set, Tuple

from . import procfs

SHM = "/dev/shm"
_SHM_PID = re.compile(r"^torch_(\d+)_")
_SPARED = ("torch_shm_manager",)


class Tracker:
    """Every process seen in the target's session: pid -> start time."""

    def __init__(self, sid: int) -> None:
        self.sid = sid
        self.seen: Dict[int, Tuple[int, str]] = {}

    def scan(self) -> List[int]:
        live = []
        for pid in procfs.all_pids():
            st = procfs.stat(pid)
            if st and st.session == self.sid:
                self.seen.setdefault(pid, (st.starttime, st.comm))
                if st.state not in ("Z", "X"):
                    live.append(pid)
        return live

    def strays(self) -> List[int]:
        """Remembered processes still alive (same start time) outside the session, and
        orphans this process adopted as subreaper (whatever session they moved to)."""
        out = []
        for pid in procfs.adopted_children():
            st = procfs.stat(pid)
            if st and st.comm not in _SPARED:
                self.seen.setdefault(pid, (st.starttime, st.comm))
                out.append(pid)
        for pid, (start, _comm) in list(self.seen.items()):
            st = procfs.stat(pid)
            if st and st.starttime == start and st.state not in ("Z", "X") and st.comm not in _SPARED:
                out.append(pid)
        return out


def _reap(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except (ChildProcessError, OSError):
            pass


def kill_all(tracker: Tracker, grace_s: float = 5.0) -> Dict[str, List[int]]:
    """SIGKILL the session and every remembered process until none is left."""
    killed: Set[int] = set()
    try:
        os.killpg(tracker.sid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    deadline = time.monotonic() + grace_s
    survivors: List[int] = []
    while True:
        alive = sorted(set(tracker.scan()) | set(tracker.strays()))
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(tracker.seen)
        if not alive:
            break
        if time.monotonic() > deadline:
            survivors = alive
            break
        time.sleep(0.05)
    return {"killed": sorted(killed), "survivors": survivors}


def shm_entries() -> Set[str]:
    try:
        return set(os.listdir(SHM))
    except OSError:
        return set()


def clean_shm(before: Set[str], pids: Iterable[int], grace_s: float = 3.0) -> Dict[str, List[str]]:
    """Segments the target's processes made and nobody removed."""
    ours = {str(p) for p in pids}

    def leaked() -> List[str]:
        out = []
        for name in shm_entries() - before:
            match = _SHM_PID.match(name)
            if match and match.group(1) in ours:
                out.append(name)
        return sorted(out)

    deadline = time.monotonic() + grace_s
    left = leaked()
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = leaked()
    removed = []
    for name in left:
        try:
            os.unlink(os.path.join(SHM, name))
            removed.append(name)
        except OSError:
            pass
    return {"removed": removed, "left": sorted(set(leaked()))}
