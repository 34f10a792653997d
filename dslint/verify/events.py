"""The one channel from the target's processes to the supervisor: a JSON-lines file.

Every process of the target (main, forked or spawned workers, re-imported mains) appends
whole lines with one ``write`` on an ``O_APPEND`` descriptor, so lines never interleave
and nothing is lost when a process is killed: what was written is on disk. The
supervisor also reads it while the target runs, which is what drives the watchdog.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Dict, List, Tuple

ENV_EVENTS = "DSLINT_VERIFY_EVENTS"

_fd_pid: Tuple[int, int] = (-1, -1)  # (fd, pid that opened it)


def _fd() -> int:
    global _fd_pid
    fd, pid = _fd_pid
    if pid != os.getpid():  # a forked child reopens: harmless either way with O_APPEND
        path = os.environ.get(ENV_EVENTS)
        if not path:
            return -1
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        _fd_pid = (fd, os.getpid())
    return fd


def own_fds() -> List[int]:
    """Descriptors this module holds (excluded from the inherited-handle evidence)."""
    return [_fd_pid[0]] if _fd_pid[0] >= 0 else []


def emit(ev: str, **fields: Any) -> None:
    """Append one event; never raises into the user's program."""
    try:
        fd = _fd()
        if fd < 0:
            return
        record: Dict[str, Any] = {"ev": ev, "pid": os.getpid(), "t": time.time()}
        record.update(fields)
        os.write(fd, (json.dumps(record, default=repr) + "\n").encode())
    except Exception:  # noqa: BLE001 - evidence is best effort, the target must not die of it
        pass


class Reader:
    """Incremental reader used by the supervisor (keeps a partial last line)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0
        self.partial = b""
        self.events: List[Dict[str, Any]] = []

    def poll(self) -> List[Dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return []
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        new = []
        for line in lines:
            try:
                new.append(json.loads(line))
            except ValueError:
                continue
        self.events.extend(new)
        return new
