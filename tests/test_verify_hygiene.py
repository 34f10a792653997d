"""Whatever the target does, the verifier reports it as the target's doing (exit 2 with
its traceback summary, never a dslint traceback) and leaves no process behind."""

from __future__ import annotations

import os
import time

import pytest

pytest.importorskip("torch")

from .verify_helpers import alive, fixture, leftovers, rows, verify  # noqa: E402


def test_target_failing_on_its_own():
    report = verify(fixture("hygiene/own_failure.py"))
    assert report["_rc"] == 2
    (err,) = report["errors"]
    assert "failed on its own" in err and "FileNotFoundError" in err and "own_failure.py" in err
    assert "Traceback" not in report["_stderr"]


@pytest.mark.parametrize("name,code", [("worker_exit.py", "3"), ("worker_sigkill.py", "-9")])
def test_dead_worker_reported_with_exit_code(name, code):
    report = verify("--timeout", "30", fixture(f"hygiene/{name}"))
    assert report["_rc"] == 2, report
    (row,) = rows(report, "loader-error")
    assert row["verdict"] == "error" and f": {code}" in row["evidence"], row
    assert not leftovers(report)


def test_daemons_and_relaunches_are_killed(tmp_path):
    pidfile = tmp_path / "pids"
    report = verify("--timeout", "30", fixture("hygiene/escapes.py"), "--", str(pidfile))
    assert report["_rc"] in (0, 2), report
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) >= 4  # main, its setsid daemon, a re-launched copy and its daemon
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if alive(p)]
    assert not leftovers(report)


def test_bad_target_is_a_usage_error(tmp_path):
    report = verify(str(tmp_path / "missing.py"))
    assert report["_rc"] == 2 and "no such file" in report["_stderr"]
    report = verify(fixture("dsl402_shared_rng.py"), "--bogus")
    assert report["_rc"] == 2 and "after --" in report["_stderr"]


def test_no_leftover_shm_or_children_after_many_loaders():
    before = set(os.listdir("/dev/shm"))
    report = verify("--start-method", "forkserver", fixture("dsl402_shared_rng_fixed.py"))
    assert report["_rc"] == 0, report
    new = {n for n in set(os.listdir("/dev/shm")) - before if n.startswith("torch_")}
    assert not new
    assert not leftovers(report)
