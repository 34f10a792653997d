"""Facts about live processes read from /proc, shared by the supervisor and the probes.

Structural evidence (thread counts, context switches, shared open file descriptions) is
deterministic where wall times and wrong-data rates are luck; this module is where it is
read. Nothing here imports torch.
"""

from __future__ import annotations

import ctypes
import os
import platform
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional

# kcmp(2) syscall numbers; KCMP_FILE compares two open file descriptions.
_KCMP_SYSCALL = {"x86_64": 312, "aarch64": 272, "arm64": 272, "i686": 349, "ppc64le": 354}
_KCMP_FILE = 0
_libc = None


@dataclass
class ProcStat:
    pid: int
    state: str
    ppid: int
    pgrp: int
    session: int
    starttime: int = 0
    comm: str = ""
    cpu_ticks: int = 0  # user + system time, in clock ticks


def stat(pid: int) -> Optional[ProcStat]:
    """Parse /proc/PID/stat (the command name may hold spaces and parentheses)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    comm = raw[raw.find("(") + 1 : raw.rfind(")")]
    rest = raw[raw.rfind(")") + 2 :].split()
    try:
        return ProcStat(pid, rest[0], int(rest[1]), int(rest[2]), int(rest[3]), int(rest[19]), comm,
                        int(rest[11]) + int(rest[12]))
    except (IndexError, ValueError):
        return None


def all_pids() -> Iterator[int]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if name.isdigit():
            yield int(name)


def status(pid: int) -> Dict[str, str]:
    """/proc/PID/status as a dict (empty when the process is gone)."""
    out: Dict[str, str] = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                out[key] = value.strip()
    except OSError:
        pass
    return out


def thread_facts(pid: int) -> Dict[str, int]:
    """Live OS threads and context switches: the oversubscription evidence."""
    st = status(pid)
    facts = {}
    for key, name in (
        ("Threads", "threads"),
        ("voluntary_ctxt_switches", "voluntary_ctxt_switches"),
        ("nonvoluntary_ctxt_switches", "involuntary_ctxt_switches"),
    ):
        if key in st:
            try:
                facts[name] = int(st[key])
            except ValueError:
                pass
    return facts


def fd_target(pid: int, fd: int) -> Optional[str]:
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return None


def fd_info(pid: int, fd: int) -> Dict[str, int]:
    """``pos`` (the shared file offset) and ``flags`` (octal open flags) of one fd."""
    out: Dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/fdinfo/{fd}") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("pos", "flags"):
                    out[key] = int(value.strip(), 8 if key == "flags" else 10)
    except (OSError, ValueError):
        pass
    return out


def fd_pos(pid: int, fd: int) -> Optional[int]:
    return fd_info(pid, fd).get("pos")


_O_ACCMODE, _O_WRONLY, _O_APPEND = 0o3, 0o1, 0o2000


def readable_offset(flags: int) -> bool:
    """An fd whose shared offset matters to readers: not write-only, not append-only."""
    return (flags & _O_ACCMODE) != _O_WRONLY and not flags & _O_APPEND


def open_files(pid: int, sockets: bool = False) -> Dict[int, str]:
    """fd -> path for the files (absolute paths) a process holds open, and with
    ``sockets`` its sockets (``socket:[inode]``)."""
    out = {}
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return out
    for name in fds:
        target = fd_target(pid, int(name))
        if not target:
            continue
        if (target.startswith("/") and not target.startswith(("/proc/", "/dev/"))) or \
                (sockets and target.startswith("socket:")):
            out[int(name)] = target
    return out


def shared_memory_fds(pid: int) -> int:
    """Descriptors a process holds on torch's shared-memory segments (``/dev/shm/torch_*``):
    one per storage received from a worker under the ``file_descriptor`` strategy."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    return sum(1 for name in fds if (fd_target(pid, int(name)) or "").startswith("/dev/shm/torch_"))


def same_open_file(pid1: int, fd1: int, pid2: int, fd2: int) -> Optional[bool]:
    """True when two fds are one open file description (shared offset): kcmp(KCMP_FILE).

    ``None`` when the kernel refuses to say (no kcmp, seccomp, ptrace rules)."""
    global _libc
    nr = _KCMP_SYSCALL.get(platform.machine())
    if nr is None:
        return None
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    res = _libc.syscall(nr, pid1, pid2, _KCMP_FILE, fd1, fd2)
    if res < 0:
        return None
    return res == 0


_subreaper = False


def set_child_subreaper() -> bool:
    """Become the reaper of orphaned descendants: workers whose parent died, daemons that
    left the session with setsid, double forks all become children of this process, so
    they can be found, killed and reaped instead of lingering under PID 1."""
    global _subreaper
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


def adopted_children() -> List[int]:
    """Live children of this process, when it is a subreaper (else none are adopted)."""
    if not _subreaper:
        return []
    me = os.getpid()
    out = []
    for pid in all_pids():
        st = stat(pid)
        if st and st.ppid == me and st.state not in ("Z", "X"):
            out.append(pid)
    return out


def wchan(pid: int) -> str:
    """The kernel function a blocked process sleeps in (``futex_wait_queue`` for a
    deadlocked pool thread)."""
    try:
        with open(f"/proc/{pid}/wchan") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def io_bytes(pid: int) -> int:
    """Bytes read and written by a process so far (files, pipes, sockets): a download or
    a long read is progress even when it costs no CPU."""
    total = 0
    try:
        with open(f"/proc/{pid}/io") as fh:
            for line in fh:
                if line.startswith(("rchar:", "wchar:")):
                    total += int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return total


def environ_has(pid: int, entry: bytes) -> bool:
    """Whether ``KEY=value`` is in a process's start-up environment (how the target's
    processes are recognised wherever they moved: other sessions, reparented to init)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return entry in fh.read().split(b"\0")
    except OSError:
        return False
