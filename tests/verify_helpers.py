"""Shared helpers for the ``dslint verify`` tests: run the verifier as a user would (a
subprocess), read its JSON, and check that nothing of the target is left behind."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Set

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "verify"
MARK = "DSLINT_VERIFY_TMPDIR"


def environment(tmpdir: Optional[Path] = None) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    if tmpdir is not None:  # the verifier's folders go there: a test sees exactly its own
        env["TMPDIR"] = str(tmpdir)
    return env


def command(*args: str, fmt: str = "json") -> List[str]:
    return [sys.executable, "-m", "dslint.verify", "--output-format", fmt, *args]


def verify(*args: str, cwd: Optional[Path] = None, timeout: float = 240, tmpdir: Optional[Path] = None,
           fmt: str = "json") -> Dict[str, Any]:
    """Run ``python -m dslint.verify --output-format json ARGS``; return the report with
    the exit code under ``"_rc"`` (and the raw streams under ``"_stdout"``/``"_stderr"``)."""
    res = subprocess.run(command(*args, fmt=fmt), cwd=str(cwd or ROOT), env=environment(tmpdir),
                         capture_output=True, text=True, timeout=timeout)
    try:
        report = json.loads(res.stdout) if fmt == "json" else {}
    except ValueError:
        report = {}
    report["_rc"] = res.returncode
    report["_stdout"] = res.stdout
    report["_stderr"] = res.stderr
    return report


def fixture(name: str) -> str:
    return str(FIXTURES / name)


def rows(report: Dict[str, Any], code: str) -> List[Dict[str, Any]]:
    return [f for f in report.get("findings", []) if f["code"] == code]


def verdicts(report: Dict[str, Any]) -> Dict[str, Set[str]]:
    out: Dict[str, Set[str]] = {}
    for f in report.get("findings", []):
        out.setdefault(f["code"], set()).add(f["verdict"])
    return out


def probe_verdicts(loaders: List[Dict[str, Any]], code: str) -> List[str]:
    return [lo["probes"][code]["verdict"] for lo in loaders if code in lo.get("probes", {})]


def alive(pid: int) -> bool:
    """A live (not zombie) process."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def session_members(sid: int) -> List[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
            out.append(int(name))
    return out


def marked(prefix: str) -> List[int]:
    """Live processes whose verifier mark (its run folder) starts with ``prefix``."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                entries = fh.read().split(b"\0")
        except OSError:
            continue
        if any(e.startswith(f"{MARK}={prefix}".encode()) for e in entries) and alive(int(name)):
            out.append(int(name))
    return out


def leftovers(report: Dict[str, Any], tmpdir: Optional[Path] = None) -> List[int]:
    """Processes of the target still alive: in its session, any pid it reported, or any
    process carrying the mark of a run folder under ``tmpdir``."""
    pids = set()
    for run in report.get("hygiene", []):
        if run.get("root_pid"):
            pids.update(session_members(run["root_pid"]))
        pids.update(p for p in run.get("pids_seen", []) if alive(p))
    for lo in report.get("loaders", []):
        for w in lo.get("metrics", {}).get("workers", []):
            if alive(w["pid"]):
                pids.add(w["pid"])
        for pid in (lo.get("metrics", {}).get("hang") or {}).get("processes", {}):
            if alive(int(pid)):
                pids.add(int(pid))
    if tmpdir is not None:
        pids.update(marked(str(tmpdir)))
    return sorted(pids)


def run_folders(tmpdir: Path) -> List[str]:
    return sorted(n for n in os.listdir(tmpdir) if n.startswith("dslint-verify-"))


def assert_clean(report: Dict[str, Any], tmpdir: Path) -> None:
    """No process, run folder, registered semaphore/segment or torch segment left."""
    deadline = time.monotonic() + 5
    while leftovers(report, tmpdir) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not leftovers(report, tmpdir)
    assert not run_folders(tmpdir)
    for run in report.get("hygiene", []):
        assert not run["survivors"], run
        for name in run["registered_unlinked"] + run["shm_removed"]:
            assert not os.path.exists(os.path.join("/dev/shm", name)), name
        assert not torch_shm_of(run["pids_seen"])


def torch_shm_of(pids) -> List[str]:
    prefixes = tuple(f"torch_{p}_" for p in pids)
    try:
        return [n for n in os.listdir("/dev/shm") if prefixes and n.startswith(prefixes)]
    except OSError:
        return []


def digest(folder: Path) -> Dict[str, str]:
    """Every file under ``folder`` with the hash of its bytes (what --fix must not change)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def make_video(path: Path, frames: int = 60) -> str:
    import cv2
    import numpy as np

    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(frames):
        out.write(np.full((48, 64, 3), i * 4 % 256, np.uint8))
    out.release()
    return str(path)
