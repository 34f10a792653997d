"""Loaders that hang every time: reported as hangs with the workers' stacks within the
timeout, attributed to their rule, and nothing of the target left running."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from .verify_helpers import fixture, leftovers, make_video, probe_verdicts, rows, torch_shm, verify  # noqa: E402


def _hang_checks(report, code):
    assert report["_rc"] == 1, report.get("_stderr") or report
    (loader,) = [lo for lo in report["loaders"] if lo["metrics"].get("hang")]
    hang = loader["metrics"]["hang"]
    worker_stacks = [s for pid, s in hang["stacks"].items() if int(pid) != hang["root"]]
    assert worker_stacks and any("__getitem__" in s for s in worker_stacks), hang["stacks"]
    assert str(hang["root"]) in hang["stacks"]  # the main process's stack too
    assert loader["probes"][code]["verdict"] == "confirmed"
    assert "__getitem__" in loader["probes"][code]["evidence"]
    assert any(r["verdict"] == "fixed" for r in rows(report, code)), report["findings"]
    assert probe_verdicts(report["after_fix"]["loaders"], code) == ["not-reproduced"]
    assert not leftovers(report)


def test_openmp_after_fork_hang():
    shm_before = torch_shm()
    report = verify("--timeout", "8", fixture("dsl107_omp_hang.py"), "--against", fixture("dsl107_omp_hang_fixed.py"))
    _hang_checks(report, "DSL107")
    assert "2 threads" in report["loaders"][0]["probes"]["DSL107"]["evidence"]
    assert not (torch_shm() - shm_before)


def test_video_decoded_before_fork_hang(tmp_path):
    video = make_video(tmp_path / "clip.avi")
    report = verify("--timeout", "8", fixture("dsl104_decoded_hang.py"),
                    "--against", fixture("dsl104_shared_handle_fixed.py"), "--", video)
    _hang_checks(report, "DSL104")
    assert "clip.avi" in report["loaders"][0]["probes"]["DSL104"]["evidence"]


def test_unexplained_hang_is_reported_as_hang():
    report = verify("--timeout", "6", fixture("hygiene/sleeper_hang.py"))
    assert report["_rc"] == 1
    (row,) = rows(report, "hang")
    assert row["verdict"] == "confirmed" and "sleeper_hang.py" in row["evidence"]
    assert not leftovers(report)
