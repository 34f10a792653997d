"""Run the target once, under one start method, in its own session, with a watchdog.

The target's output goes to files (a pipe held by an orphan would block the reader
forever); its events are read as they arrive. Progress is any event; a stall longer than
the timeout while a probe or the script's loop is pulling batches is a hang: stacks and
/proc facts are taken from every process, then the session is killed. Whatever happens,
the session is killed and swept afterwards and the target's shm segments removed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import bootstrap, cleanup, events, procfs, stacks
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


def _environment(tmp: str, start_method: Optional[str], batches: int, drive: bool) -> Dict[str, str]:
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("DSLINT_VERIFY_")}
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


def run(
    target: Target,
    start_method: Optional[str],
    timeout: float,
    batches: int = 8,
    drive: bool = True,
    startup_timeout: Optional[float] = None,
) -> RunResult:
    """Run ``target`` once; always returns (the target's failures are data)."""
    startup_timeout = startup_timeout or max(120.0, 4 * timeout)
    tmp = tempfile.mkdtemp(prefix="dslint-verify-")
    result = RunResult(start_method=start_method or "default")
    shm_before = cleanup.shm_entries()
    child_env = _environment(tmp, start_method, batches, drive)
    reader = events.Reader(child_env[env.EVENTS])
    out_path, err_path = os.path.join(tmp, "stdout.txt"), os.path.join(tmp, "stderr.txt")
    t0 = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(
            target.argv(),
            cwd=target.cwd,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            close_fds=True,
        )
    result.root_pid = proc.pid
    tracker = cleanup.Tracker(proc.pid)
    last_progress = time.monotonic()
    stopped_at: Optional[float] = None
    try:
        while True:
            now = time.monotonic()
            if reader.poll():
                last_progress = now
            tracker.scan()  # cheap (/proc/*/stat); remembers short-lived workers too
            if proc.poll() is not None:
                break
            phase = _phase(reader.events)
            if phase == "stopped":
                stopped_at = stopped_at or now
                if now - stopped_at > 5.0:
                    break
            else:
                limit = startup_timeout if phase == "startup" else timeout
                if now - last_progress > limit:
                    result.events = reader.events
                    result.hang = _hang_facts(result, tracker, tmp, now - last_progress)
                    break
            time.sleep(0.05)
    finally:
        tracker.scan()
        reader.poll()
        result.events = reader.events
        result.cleanup = cleanup.kill_all(tracker)
        try:
            result.returncode = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            result.returncode = None
        result.cleanup.update(cleanup.clean_shm(shm_before, tracker.seen))
        result.cleanup["pids_seen"] = sorted(tracker.seen)
        result.wall_s = round(time.monotonic() - t0, 2)
        result.stdout_tail = _tail(out_path)
        result.stderr_tail = _tail(err_path)
        if os.environ.get("DSLINT_VERIFY_KEEP"):
            result.cleanup["kept"] = tmp
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return result
