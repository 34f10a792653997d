"""Leave nothing behind even when the verifier itself is killed.

Each run's temporary folder holds an ``owner`` file (the verifier's pid and start time)
and every process of the target carries ``DSLINT_VERIFY_TMPDIR=<folder>`` in its
environment, so what belongs to a run can be found from the folder alone. ``reap``
kills those processes (and the run's session), unlinks the semaphores and shared-memory
segments they registered with multiprocessing's resource tracker and the ``torch_<pid>_*``
segments of their pids, and removes the folder.

Run as a script (``python -I -S guard.py``) this is the verifier's guard: a process in
its own session that reads ``run FOLDER SID`` / ``done FOLDER`` lines on stdin and, when
stdin ends with runs not done (the verifier died, even by SIGKILL), reaps them. At start
the verifier sweeps folders whose owner is gone (``sweep_stale``).

Standard library only: the guard must start fast and without the verifier's imports.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
from typing import Iterable, List, Optional, Set, Tuple

PREFIX = "dslint-verify-"
MARK = "DSLINT_VERIFY_TMPDIR"
OWNER = "owner"
EVENTS = "events.jsonl"
SHM = "/dev/shm"


def _starttime(pid: int) -> Optional[str]:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def make_folder(kind: str = "") -> str:
    """A run's temporary folder, marked with its owner (this process)."""
    folder = tempfile.mkdtemp(prefix=PREFIX + kind)
    with open(os.path.join(folder, OWNER), "w") as fh:
        fh.write(f"{os.getpid()} {_starttime(os.getpid())}\n")
    return folder


def owner_alive(folder: str) -> bool:
    try:
        with open(os.path.join(folder, OWNER)) as fh:
            pid, start = fh.read().split()
        return _starttime(int(pid)) == start
    except (OSError, ValueError):
        # no owner file yet: a folder being created this instant, or not ours; old ones go
        try:
            return time.time() - os.stat(folder).st_mtime < 60
        except OSError:
            return True


def marked_pids(folder: str) -> List[int]:
    """Live processes started for this run, wherever they went (other sessions, init)."""
    entry = f"{MARK}={folder}".encode()
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if entry in fh.read().split(b"\0"):
                    out.append(int(name))
        except OSError:
            continue
    return out


def _events(folder: str) -> Iterable[dict]:
    try:
        with open(os.path.join(folder, EVENTS), "rb") as fh:
            for line in fh:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue
    except OSError:
        return


def registered(events: Iterable[dict]) -> Set[Tuple[str, str]]:
    """(name, type) of the semaphores and segments still registered with the tracker."""
    names: Set[Tuple[str, str]] = set()
    for e in events:
        key = (e.get("name"), e.get("rtype"))
        if e.get("ev") == "mp_register":
            names.add(key)
        elif e.get("ev") == "mp_unregister":
            names.discard(key)
    return names


def shm_path(name: str, rtype: str) -> Optional[str]:
    base = name.lstrip("/")
    if not base or "/" in base:
        return None
    if rtype == "semaphore":
        return os.path.join(SHM, "sem." + base)
    if rtype == "shared_memory":
        return os.path.join(SHM, base)
    return None


def unlink_registered(names: Iterable[Tuple[str, str]]) -> List[str]:
    removed = []
    for name, rtype in sorted(names, key=repr):
        path = shm_path(str(name), str(rtype))
        if path is None:
            continue
        try:
            os.unlink(path)
            removed.append(os.path.basename(path))
        except OSError:
            pass
    return removed


def unlink_torch_segments(pids: Iterable[int]) -> List[str]:
    prefixes = tuple(f"torch_{p}_" for p in pids)
    removed = []
    try:
        names = os.listdir(SHM)
    except OSError:
        return removed
    for name in names:
        if prefixes and name.startswith(prefixes):
            try:
                os.unlink(os.path.join(SHM, name))
                removed.append(name)
            except OSError:
                pass
    return removed


def kill_marked(folder: str, sid: int = 0, grace_s: float = 5.0) -> List[int]:
    """SIGKILL the run's session and every marked process until none is left."""
    killed: Set[int] = set()
    deadline = time.monotonic() + grace_s
    while True:
        if sid > 1:
            try:
                os.killpg(sid, signal.SIGKILL)
            except OSError:
                pass
        alive = marked_pids(folder)
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        if not alive or time.monotonic() > deadline:
            return sorted(killed)
        time.sleep(0.05)


def reap(folder: str, sid: int = 0) -> None:
    """Everything of one run, gone: processes, registered segments, the folder."""
    kill_marked(folder, sid)
    evts = list(_events(folder))
    unlink_registered(registered(evts))
    unlink_torch_segments({e.get("pid") for e in evts if isinstance(e.get("pid"), int)})
    shutil.rmtree(folder, ignore_errors=True)


def sweep_stale(base: Optional[str] = None) -> List[str]:
    """Reap the folders of verifiers that died without cleaning up."""
    base = base or tempfile.gettempdir()
    swept = []
    try:
        names = os.listdir(base)
    except OSError:
        return swept
    for name in names:
        folder = os.path.join(base, name)
        if name.startswith(PREFIX) and os.path.isdir(folder) and not os.path.islink(folder) \
                and not owner_alive(folder):
            reap(folder)
            swept.append(folder)
    return swept


class Guard:
    """The verifier's side: start the guard process, tell it about each run."""

    def __init__(self) -> None:
        import subprocess
        import threading

        self._lock = threading.Lock()
        try:
            self.proc: Optional["subprocess.Popen"] = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, close_fds=True,
            )
        except OSError:
            self.proc = None

    def _send(self, line: str) -> None:
        with self._lock:
            if self.proc is None or self.proc.stdin is None:
                return
            try:
                self.proc.stdin.write(line.encode() + b"\n")
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass

    def started(self, folder: str, sid: int = 0) -> None:
        self._send(f"run {folder} {sid}")

    def finished(self, folder: str) -> None:
        self._send(f"done {folder}")

    def close(self) -> None:
        """End the guard (nothing is left for it to do): it exits at end of input."""
        if self.proc is None:
            return
        with self._lock:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a stuck guard must not hang the verifier
            pass


def main() -> int:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)  # the guard outlives the verifier on purpose
    runs = {}
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 3 and parts[0] == "run":
            runs[parts[1]] = int(parts[2])
        elif len(parts) == 2 and parts[0] == "done":
            runs.pop(parts[1], None)
    for folder, sid in runs.items():
        reap(folder, sid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
