"""Stacks of a hung target, taken before the kill.

SIGUSR1 makes each Python process write its own stack (faulthandler, registered per pid
by the bootstrap; works even in a worker blocked in native code and gives the Python
line). ``py-spy dump --native``, when on PATH, names the native culprit (libgomp,
FFmpeg's slice threads). Only processes known to have the handler get SIGUSR1: for any
other process its default action would be to terminate.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple


def _read(path: str) -> str:
    try:
        with open(path, errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def python_stacks(pids: Iterable[int], directory: str, wait_s: float = 3.0) -> Dict[int, str]:
    pids = list(pids)
    before = {pid: len(_read(os.path.join(directory, f"{pid}.txt"))) for pid in pids}
    for pid in pids:
        try:
            os.kill(pid, signal.SIGUSR1)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + wait_s
    out: Dict[int, str] = {}
    while time.monotonic() < deadline:
        out = {}
        for pid in pids:
            text = _read(os.path.join(directory, f"{pid}.txt"))[before[pid]:]
            if text.strip():
                out[pid] = text.strip()
        if len(out) == len(pids):
            time.sleep(0.1)  # let the last lines land
            break
        time.sleep(0.05)
    return {pid: _read(os.path.join(directory, f"{pid}.txt"))[before[pid]:].strip() for pid in out}


def native_stacks(pids: Iterable[int], timeout_s: float = 10.0) -> Dict[int, str]:
    exe = shutil.which("py-spy")
    if not exe:
        return {}
    out = {}
    for pid in pids:
        try:
            res = subprocess.run(
                [exe, "dump", "--native", "--pid", str(pid)],
                capture_output=True,
                text=True,
                timeout=timeout_s,
            )
            out[pid] = (res.stdout or res.stderr).strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            out[pid] = f"py-spy failed: {exc}"
    return out


def _blocks(stack: str):
    block: list = []
    for line in stack.splitlines():
        if line.startswith(("Thread 0x", "Current thread 0x")) and block:
            yield block
            block = []
        block.append(line)
    if block:
        yield block


def innermost(stack: str, limit: int = 4) -> str:
    """The few innermost frames of the interesting thread of one faulthandler dump (the
    one running the dataset, else the one that took the signal), for a one-line summary."""
    blocks = list(_blocks(stack))
    if not blocks:
        return ""

    def score(block) -> int:
        text = "\n".join(block)
        return 2 * ("_worker_loop" in text or "__getitem__" in text) + block[0].startswith("Current")

    best = max(blocks, key=score)
    frames = [ln.strip() for ln in best if ln.strip().startswith("File ")]
    return " <- ".join(frames[:limit])


_FRAME = re.compile(r'File "([^"]+)", line (\d+) in (\S+)')


def frames(stack: str) -> List[Tuple[str, int, str]]:
    """(path, line, function) of every frame in a faulthandler dump, innermost first
    within each thread."""
    return [(m.group(1), int(m.group(2)), m.group(3)) for m in _FRAME.finditer(stack)]


def first_in(stack: str, spans: Sequence[Dict[str, Any]]) -> Optional[Tuple[str, int, str]]:
    """The innermost frame that lies in one of ``spans`` ({file, line, end_line}; a span
    without lines covers its whole file)."""
    for path, line, func in frames(stack):
        real = os.path.realpath(path)
        for span in spans:
            if not span.get("file") or os.path.realpath(span["file"]) != real:
                continue
            start, end = span.get("line"), span.get("end_line")
            if start is None or start <= line <= (end or start):
                return path, line, func
    return None
