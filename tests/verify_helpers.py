"""Shared helpers for the ``dslint verify`` tests: run the verifier as a user would (a
subprocess), read its JSON, and check that nothing of the target is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "verify"


def verify(*args: str, cwd: Optional[Path] = None, timeout: float = 240) -> Dict[str, Any]:
    """Run ``python -m dslint.verify --output-format json ARGS``; return the report with
    the exit code under ``"_rc"`` (and the raw streams when the output is not JSON)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    res = subprocess.run(
        [sys.executable, "-m", "dslint.verify", "--output-format", "json", *args],
        cwd=str(cwd or ROOT),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    try:
        report = json.loads(res.stdout)
    except ValueError:
        report = {"_stdout": res.stdout}
    report["_rc"] = res.returncode
    report["_stderr"] = res.stderr
    return report


def fixture(name: str) -> str:
    return str(FIXTURES / name)


def rows(report: Dict[str, Any], code: str) -> List[Dict[str, Any]]:
    return [f for f in report.get("findings", []) if f["code"] == code]


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


def leftovers(report: Dict[str, Any]) -> List[int]:
    """Processes of the target still alive: in its session, or any pid it reported."""
    pids = set()
    for run in report.get("hygiene", []):
        pids.update(session_members(run["root_pid"]))
        pids.update(p for p in run.get("pids_seen", []) if alive(p))
    for lo in report.get("loaders", []):
        for w in lo.get("metrics", {}).get("workers", []):
            if alive(w["pid"]):
                pids.add(w["pid"])
        for pid in (lo.get("metrics", {}).get("hang") or {}).get("processes", {}):
            if alive(int(pid)):
                pids.add(int(pid))
    return sorted(pids)


def torch_shm() -> set:
    try:
        return {n for n in os.listdir("/dev/shm") if n.startswith("torch_")}
    except OSError:
        return set()


def make_video(path: Path, frames: int = 60) -> str:
    import cv2
    import numpy as np

    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(frames):
        out.write(np.full((48, 64, 3), i * 4 % 256, np.uint8))
    out.release()
    return str(path)
