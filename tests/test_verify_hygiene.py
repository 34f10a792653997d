"""Whatever the target does, and whatever happens to the verifier, nothing is left behind:
no process of the target, no run folder, no semaphore or shared-memory segment it
registered. The target's own failures are reported as its own (exit 2 with its
traceback summary, never a dslint traceback)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

from .verify_helpers import (  # noqa: E402
    ROOT,
    alive,
    assert_clean,
    command,
    environment,
    fixture,
    leftovers,
    marked,
    rows,
    run_folders,
    verify,
)


def test_target_failing_on_its_own(tmp_path):
    report = verify(fixture("hygiene/own_failure.py"), tmpdir=tmp_path)
    assert report["_rc"] == 2
    (err,) = report["errors"]
    assert "failed on its own" in err and "FileNotFoundError" in err and "own_failure.py" in err
    assert "Traceback" not in report["_stderr"]
    assert_clean(report, tmp_path)


@pytest.mark.parametrize("name,code", [("worker_exit.py", "3"), ("worker_sigkill.py", "-9")])
def test_dead_worker_reported_with_exit_code(name, code, tmp_path):
    report = verify("--timeout", "10", fixture(f"hygiene/{name}"), tmpdir=tmp_path)
    assert report["_rc"] == 2, report
    (row,) = rows(report, "loader-error")
    assert row["verdict"] == "error" and f": {code}" in row["evidence"], row
    assert_clean(report, tmp_path)


def test_daemons_and_relaunches_are_killed(tmp_path):
    pidfile = tmp_path / "pids"
    report = verify("--timeout", "10", fixture("hygiene/escapes.py"), "--", str(pidfile), tmpdir=tmp_path)
    assert report["_rc"] in (0, 2), report
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) >= 4  # main, its setsid daemon, a re-launched copy and its daemon
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if alive(p)]
    assert_clean(report, tmp_path)


def test_bad_target_is_a_usage_error(tmp_path):
    report = verify(str(tmp_path / "missing.py"))
    assert report["_rc"] == 2 and "no such file" in report["_stderr"]
    report = verify(fixture("dsl402_shared_rng.py"), "--bogus")
    assert report["_rc"] == 2 and "after --" in report["_stderr"]


def test_hang_under_spawn_leaves_no_semaphore_or_segment(tmp_path):
    """multiprocessing's resource tracker is killed with the target: the semaphores and
    the user's SharedMemory segment it would have unlinked are unlinked by the verifier."""
    namefile = tmp_path / "segment"
    report = verify("--timeout", "5", fixture("hygiene/spawn_hang_shm.py"), "--", str(namefile), tmpdir=tmp_path)
    assert report["_rc"] == 1, report["_stderr"]
    assert rows(report, "hang")
    (run,) = report["hygiene"]
    unlinked = run["registered_unlinked"]
    segment = namefile.read_text().lstrip("/")
    assert segment in unlinked and any(n.startswith("sem.mp-") for n in unlinked), unlinked
    assert not os.path.exists(f"/dev/shm/{segment}")
    assert_clean(report, tmp_path)


def _registered(folder: Path):
    """Names the target registered so far, read from its run folder while it runs."""
    names = set()
    try:
        lines = (folder / "events.jsonl").read_text().splitlines()
    except OSError:
        return names, False
    workers = False
    for line in lines:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("ev") == "mp_register":
            kind = "sem." if e["rtype"] == "semaphore" else ""
            names.add(kind + e["name"].lstrip("/"))
        workers |= e.get("ev") == "worker"
    return names, workers


def _guards(tmp_path: Path):
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            env = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"verify/guard.py" in cmdline and f"TMPDIR={tmp_path}".encode() in env and alive(int(name)):
            out.append(int(name))
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_killing_the_verifier_leaves_nothing(sig, tmp_path):
    namefile = tmp_path / "segment"
    proc = subprocess.Popen(command("--timeout", "120", fixture("hygiene/spawn_hang_shm.py"), "--", str(namefile)),
                            cwd=str(ROOT), env=environment(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        names, ready = set(), False
        while not ready and time.monotonic() < deadline:  # the spawned workers are in __getitem__
            time.sleep(0.2)
            folders = run_folders(tmp_path)
            if folders:
                names, ready = _registered(tmp_path / folders[0])
        assert ready and names and marked(str(tmp_path)), "the target never started its workers"
        segment = namefile.read_text().lstrip("/")
        assert segment in names
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    if sig != signal.SIGKILL:
        assert proc.returncode == 128 + sig, err
        assert f"interrupted by {sig.name}" in err
    deadline = time.monotonic() + 20  # after SIGKILL the guard does the cleaning
    while (run_folders(tmp_path) or marked(str(tmp_path)) or _guards(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not marked(str(tmp_path))
    assert not run_folders(tmp_path)
    assert not _guards(tmp_path)
    assert not [n for n in names if os.path.exists(f"/dev/shm/{n}")]


def test_stale_run_folders_are_swept(tmp_path):
    """A folder whose verifier is gone (its owner's pid and start time no longer match)
    is reaped at the next start, with the processes still carrying its mark; a live
    verifier's folder is left alone."""
    stale = tmp_path / "dslint-verify-stale"
    stale.mkdir()
    (stale / "owner").write_text("1 0\n")  # pid 1 never started at tick 0: owner gone
    orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                              env={**os.environ, "DSLINT_VERIFY_TMPDIR": str(stale)})
    live = tmp_path / "dslint-verify-live"
    live.mkdir()
    start = Path(f"/proc/{os.getpid()}/stat").read_bytes().rsplit(b")", 1)[1].split()[19].decode()
    (live / "owner").write_text(f"{os.getpid()} {start}\n")
    try:
        report = verify("--timeout", "10", fixture("dsl202_prefetch_without_workers_fixed.py"), tmpdir=tmp_path)
        assert report["_rc"] == 0, report["_stderr"]
        orphan.wait(timeout=10)
        assert not stale.exists() and live.exists()
        assert not leftovers(report, stale)
    finally:
        if orphan.poll() is None:
            orphan.kill()
