"""Leave nothing behind: kill the target's session, reap it, remove its shm segments.

Orphaned workers stuck in native code never notice their parent died, and a pipe held by
one blocks its reader forever, so the whole session is SIGKILLed after every run, then
swept until empty. Pids are remembered with their start time while the target runs, so a
process that left the session (``setsid``) is still found, and a recycled pid is not
mistaken for it; processes carrying the run's mark in their environment are found
wherever they went. ``torch_shm_manager`` runs in its own session on purpose and cleans
the segments of dead processes itself; whatever it has not cleaned after a grace period
and was made by one of the target's pids is unlinked here, and so are the semaphores and
segments the target registered with multiprocessing's resource tracker (which is killed
with the rest before it can unlink them).
"""

from __future__ import annotations

import os
import re
import signal
import time
from typing import Any, Dict, Iterable, List, Set, Tuple

from . import guard, procfs

SHM = "/dev/shm"
_SHM_PID = re.compile(r"^torch_(\d+)_")
_SPARED = ("torch_shm_manager",)


class Tracker:
    """Every process seen in the target's session (pid -> start time, name) and the CPU
    time and I/O they have used so far (what tells a slow start from a stalled one)."""

    def __init__(self, sid: int, folder: str = "") -> None:
        self.sid = sid
        self.folder = folder
        self.seen: Dict[int, Tuple[int, str]] = {}
        self.cpu: Dict[int, int] = {}
        self.io: Dict[int, int] = {}

    def scan(self) -> List[int]:
        live = []
        for pid in procfs.all_pids():
            st = procfs.stat(pid)
            if st and st.session == self.sid:
                self.seen.setdefault(pid, (st.starttime, st.comm))
                self.cpu[pid] = max(self.cpu.get(pid, 0), st.cpu_ticks)
                if st.state not in ("Z", "X"):
                    live.append(pid)
        return live

    def work(self, live: Iterable[int]) -> Tuple[int, int]:
        """(CPU ticks, bytes of I/O) used by the target so far; never decreases."""
        for pid in live:
            self.io[pid] = max(self.io.get(pid, 0), procfs.io_bytes(pid))
        return sum(self.cpu.values()), sum(self.io.values())

    def _ours(self, pid: int) -> bool:
        return bool(self.folder) and procfs.environ_has(pid, f"{guard.MARK}={self.folder}".encode())

    def strays(self) -> List[int]:
        """Remembered processes still alive (same start time) outside the session, and
        orphans adopted by this process (as subreaper) that carry this run's mark."""
        out = []
        for pid in procfs.adopted_children():
            st = procfs.stat(pid)
            if st and st.comm not in _SPARED and self._ours(pid):
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
    """SIGKILL the session, every remembered and every marked process until none is left."""
    killed: Set[int] = set()
    try:
        os.killpg(tracker.sid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    deadline = time.monotonic() + grace_s
    survivors: List[int] = []
    while True:
        alive = set(tracker.scan()) | set(tracker.strays())
        if tracker.folder:
            alive |= set(guard.marked_pids(tracker.folder))
        for pid in sorted(alive):
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(tracker.seen)
        if not alive:
            break
        if time.monotonic() > deadline:
            survivors = sorted(alive)
            break
        time.sleep(0.05)
    return {"killed": sorted(killed), "survivors": survivors}


def shm_entries() -> Set[str]:
    try:
        return set(os.listdir(SHM))
    except OSError:
        return set()


def clean_shm(before: Set[str], pids: Iterable[int], grace_s: float = 3.0) -> Dict[str, List[str]]:
    """torch's segments that the target's processes made and nobody removed."""
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


def clean_registered(events: List[Dict[str, Any]]) -> Dict[str, List[str]]:
    """Semaphores and SharedMemory segments registered with the resource tracker and
    never unregistered: the tracker would have unlinked them, had it not been killed."""
    return {"unlinked": guard.unlink_registered(guard.registered(events))}
