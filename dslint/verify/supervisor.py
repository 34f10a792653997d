"""Run the target once, under one start method, in its own session, with a watchdog.

The target's output goes to files (a pipe held by an orphan would block the reader
forever); its events are read as they arrive. Progress is any event; a stall longer than
the timeout while a probe or the script's loop is pulling batches is a hang: stacks and
/proc facts are taken from every process, then the session is killed. Before the first
probe (and in the script's own loop) CPU time and I/O count as progress too, so a stall
there is reported after the same timeout while slow imports are not. Whatever happens,
the session is killed and swept afterwards, and the target's shm segments, semaphores
and folder removed; the guard process does the same if the verifier itself dies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import bootstrap, cleanup, events, guard, procfs, stacks
from .child import env
from .target import Target


@dataclass
class RunResult:
    start_method: str
    returncode: Optional[int] = None
    events: List[Dict[str, Any]] = field(default_factory=list)
    stdout_tail: str = ""
    stderr_tail: str = ""
    hang: Optional[Dict[str, Any]] = None
    cleanup: Dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0
    root_pid: int = 0

    def of(self, kind: str) -> List[Dict[str, Any]]:
        return [e for e in self.events if e.get("ev") == kind]


def _tail(path: str, limit: int = 12000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _environment(tmp: str, start_method: Optional[str], batches: int, drive: bool,
                 timeout: float) -> Dict[str, str]:
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("DSLINT_VERIFY_")}
    child_env[env.PARENT] = str(os.getpid())
    child_env[env.BUDGET] = str(round(min(1.0, timeout / 4), 2))
    boot = bootstrap.write(os.path.join(tmp, "boot"))
    child_env["PYTHONPATH"] = bootstrap.pythonpath(boot, os.environ.get("PYTHONPATH", ""))
    child_env[env.EVENTS] = os.path.join(tmp, "events.jsonl")
    child_env[env.STACKS] = os.path.join(tmp, "stacks")
    child_env[env.TMPDIR] = tmp
    child_env[env.BATCHES] = str(batches)
    child_env[env.DRIVE] = "1" if drive else "0"
    child_env["PYTHONFAULTHANDLER"] = "1"  # a segfaulting main still leaves a stack
    if start_method:
        child_env[env.START_METHOD] = start_method
    os.makedirs(child_env[env.STACKS], exist_ok=True)
    return child_env


def _phase(evts: List[Dict[str, Any]]) -> str:
    """Where the target is: 'startup' (before any probe), 'probe' or 'drive', 'stopped'."""
    phase = "startup"
    for e in evts:
        ev = e.get("ev")
        if ev == "stopped":
            return "stopped"
        if ev == "probe_start":
            phase = "probe"
        elif ev == "drive_start":
            phase = "drive"
        elif ev == "probe_result" and phase == "probe":
            phase = "between"
    return phase


def _python_pids(evts: List[Dict[str, Any]], alive: List[int]) -> List[int]:
    """Processes known to run the bootstrap (so SIGUSR1 dumps rather than kills)."""
    known = {e.get("pid") for e in evts if e.get("ev") in ("boot", "forked", "worker")}
    return [p for p in alive if p in known]


def _hang_facts(result: RunResult, tracker: cleanup.Tracker, tmp: str, stalled_s: float) -> Dict[str, Any]:
    evts = result.events
    alive = tracker.scan()
    root = result.root_pid
    procs: Dict[str, Any] = {}
    prefork = [e for e in evts if e.get("ev") == "prefork"]
    fds = prefork[-1]["snapshot"]["fds"] if prefork else []
    for pid in alive:
        st = procfs.stat(pid)
        facts: Dict[str, Any] = dict(procfs.thread_facts(pid))
        facts.update(ppid=st.ppid if st else None, comm=st.comm if st else "", wchan=procfs.wchan(pid))
        if pid != root and st and st.ppid == root:
            facts["shared_fds"] = [
                {"fd": f["fd"], "path": f["path"]}
                for f in fds
                if procfs.same_open_file(root, f["fd"], pid, f["fd"])
            ]
        procs[str(pid)] = facts
    py = _python_pids(evts, alive)
    dumps = stacks.python_stacks(py, os.path.join(tmp, "stacks"))
    native = stacks.native_stacks(alive)
    last = [e for e in evts if e.get("ev") in ("probe_start", "drive_start")]
    return {
        "phase": _phase(evts),
        "root": root,
        "loader": last[-1].get("loader") if last else None,
        "stalled_s": round(stalled_s, 1),
        "processes": procs,
        "stacks": {str(k): v for k, v in dumps.items()},
        "native_stacks": {str(k): v for k, v in native.items()},
        "py_spy": bool(shutil.which("py-spy")),
    }


class Cancelled(Exception):
    """The verifier was interrupted (SIGINT, SIGTERM, SIGHUP) while the target ran."""


class _Progress:
    """Is the target getting anywhere? Any event is progress; before the first probe and
    while the script's own loop runs, so is CPU time or I/O (imports, data preparation,
    a download) - a stall is none of them for the whole timeout. While a probe pulls
    batches only batches count (a spinning worker is no progress)."""

    _CPU_TICKS = 5  # 50 ms of CPU in a second
    _IO_BYTES = 64 << 10

    def __init__(self, tracker: cleanup.Tracker) -> None:
        self.tracker = tracker
        self.last = time.monotonic()
        self.checked = 0.0
        self.work = (0, 0)

    def event(self, now: float) -> None:
        self.last = now

    def busy(self, now: float, live: List[int]) -> None:
        if now - self.checked < 1.0:
            return
        self.checked = now
        cpu, io = self.tracker.work(live)
        if cpu - self.work[0] >= self._CPU_TICKS or io - self.work[1] >= self._IO_BYTES:
            self.last = now
        self.work = (cpu, io)

    def stalled(self, now: float) -> float:
        return now - self.last


def _launch(target: Target, child_env: Dict[str, str], tmp: str) -> subprocess.Popen:
    out_path, err_path = os.path.join(tmp, "stdout.txt"), os.path.join(tmp, "stderr.txt")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        return subprocess.Popen(
            target.argv(),
            cwd=target.cwd,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            close_fds=True,
        )


def run(
    target: Target,
    start_method: Optional[str],
    timeout: float,
    batches: int = 8,
    drive: bool = True,
    startup_cap: Optional[float] = None,
    cancel: Optional[threading.Event] = None,
    watch: Optional[guard.Guard] = None,
) -> RunResult:
    """Run ``target`` once; always returns (the target's failures are data), unless
    ``cancel`` is set, which raises ``Cancelled`` after the same cleanup."""
    startup_cap = startup_cap or max(120.0, 6 * timeout)
    tmp = guard.make_folder()
    result = RunResult(start_method=start_method or "default")
    shm_before = cleanup.shm_entries()
    child_env = _environment(tmp, start_method, batches, drive, timeout)
    reader = events.Reader(child_env[env.EVENTS])
    t0 = time.monotonic()
    proc: Optional[subprocess.Popen] = None
    tracker = cleanup.Tracker(0, tmp)
    try:
        proc = _launch(target, child_env, tmp)
        result.root_pid = tracker.sid = proc.pid
        if watch is not None:
            watch.started(tmp, proc.pid)
        _watch(proc, result, reader, tracker, tmp, timeout, startup_cap, cancel)
    finally:
        _finish(proc, result, reader, tracker, tmp, shm_before, t0)
        if watch is not None:
            watch.finished(tmp)
    return result


def _watch(proc: subprocess.Popen, result: RunResult, reader: events.Reader, tracker: cleanup.Tracker,
           tmp: str, timeout: float, startup_cap: float, cancel: Optional[threading.Event]) -> None:
    progress = _Progress(tracker)
    t0 = time.monotonic()
    stopped_at: Optional[float] = None
    while True:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        now = time.monotonic()
        if reader.poll():
            progress.event(now)
        live = tracker.scan()  # cheap (/proc/*/stat); remembers short-lived workers too
        if proc.poll() is not None:
            return
        phase = _phase(reader.events)
        if phase == "stopped":
            stopped_at = stopped_at or now
            if now - stopped_at > 5.0:
                return
        else:
            if phase in ("startup", "between", "drive"):
                progress.busy(now, live)
            stalled = progress.stalled(now)
            too_long = phase == "startup" and now - t0 > startup_cap
            if stalled > timeout or too_long:
                result.events = reader.events
                result.hang = _hang_facts(result, tracker, tmp, stalled)
                if too_long:
                    result.hang["cap_s"] = round(startup_cap, 1)
                return
        time.sleep(0.05)


def _finish(proc: Optional[subprocess.Popen], result: RunResult, reader: events.Reader,
            tracker: cleanup.Tracker, tmp: str, shm_before: set, t0: float) -> None:
    """Kill and sweep whatever the target left, record what was cleaned, drop the folder."""
    reader.poll()
    result.events = reader.events
    if proc is not None:
        tracker.scan()
        result.cleanup = cleanup.kill_all(tracker)
        try:
            result.returncode = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            result.returncode = None
        reader.poll()
        result.events = reader.events
        result.cleanup.update(cleanup.clean_registered(result.events))
        result.cleanup.update(cleanup.clean_shm(shm_before, tracker.seen))
        result.cleanup["pids_seen"] = sorted(tracker.seen)
    result.wall_s = round(time.monotonic() - t0, 2)
    result.stdout_tail = _tail(os.path.join(tmp, "stdout.txt"))
    result.stderr_tail = _tail(os.path.join(tmp, "stderr.txt"))
    if os.environ.get("DSLINT_VERIFY_KEEP"):
        result.cleanup["kept"] = tmp
    else:
        shutil.rmtree(tmp, ignore_errors=True)
