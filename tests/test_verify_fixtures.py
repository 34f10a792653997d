"""Each runnable hazard fixture is CONFIRMED by its rule's probe, its fixed twin is NOT
REPRODUCED, and the pair shows FIXED (``--against`` runs the twin through the same
FIXED logic ``--fix`` uses). Runs the real verifier on real loaders, on CPU."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from .verify_helpers import fixture, leftovers, make_video, probe_verdicts, rows, torch_shm, verify  # noqa: E402

# (rule, hazard fixture, fixed twin, start method)
PAIRS = [
    ("DSL102", "dsl102_unpicklable.py", "dsl102_unpicklable_fixed.py", "all"),
    ("DSL101", "dsl101_main_guard.py", "dsl101_main_guard_fixed.py", "all"),
    ("DSL103", "dsl103_cv2_threads.py", "dsl103_cv2_threads_fixed.py", "fork"),
    ("DSL105", "dsl105_cuda_in_worker.py", "dsl105_cuda_in_worker_fixed.py", "fork"),
    ("DSL201", "dsl201_persistent_without_workers.py", "dsl201_persistent_without_workers_fixed.py", "fork"),
    ("DSL202", "dsl202_prefetch_without_workers.py", "dsl202_prefetch_without_workers_fixed.py", "fork"),
    ("DSL203", "dsl203_sampler_conflict.py", "dsl203_sampler_conflict_fixed.py", "fork"),
    ("DSL401", "dsl401_iterable_unsharded.py", "dsl401_iterable_unsharded_fixed.py", "fork"),
    ("DSL402", "dsl402_shared_rng.py", "dsl402_shared_rng_fixed.py", "fork"),
]


def _check_pair(report, code, construction=False):
    assert report["_rc"] == 1, report.get("_stderr") or report
    # the hazard, as written: the probe of its rule confirms it ...
    assert "confirmed" in probe_verdicts(report["loaders"], code), report["loaders"]
    # ... the twin does not reproduce it (construction errors: the twin builds a loader) ...
    after = report["after_fix"]["loaders"]
    if construction:
        assert after and all(code not in lo["probes"] for lo in after)
    else:
        assert probe_verdicts(after, code) and set(probe_verdicts(after, code)) == {"not-reproduced"}, after
    # ... so the finding is FIXED, with the evidence of both runs.
    found = rows(report, code)
    assert found and all(r["verdict"] == "fixed" for r in found), found
    assert "before:" in found[0]["evidence"] and "after:" in found[0]["evidence"]
    assert not leftovers(report)


@pytest.mark.parametrize("code,hazard,twin,method", PAIRS, ids=[p[0] for p in PAIRS])
def test_hazard_confirmed_twin_not_reproduced(code, hazard, twin, method):
    shm_before = torch_shm()
    report = verify("--timeout", "60", "--start-method", method, fixture(hazard), "--against", fixture(twin))
    _check_pair(report, code, construction=code in ("DSL201", "DSL202", "DSL203"))
    assert not (torch_shm() - shm_before)


def test_spawn_only_hazards_show_under_spawn_not_fork():
    """DSL101 needs spawn/forkserver: under fork the probe says so instead of confirming."""
    report = verify("--timeout", "60", "--start-method", "fork", fixture("dsl101_main_guard.py"))
    verdicts = probe_verdicts(report["loaders"], "DSL101")
    assert verdicts == ["not-reproduced"]
    assert "spawn" in report["loaders"][0]["probes"]["DSL101"]["evidence"]


def test_shared_video_handle(tmp_path):
    video = make_video(tmp_path / "clip.avi")
    report = verify("--timeout", "60", fixture("dsl104_shared_handle.py"),
                    "--against", fixture("dsl104_shared_handle_fixed.py"), "--", video)
    _check_pair(report, "DSL104")
    evidence = report["loaders"][0]["probes"]["DSL104"]["evidence"]
    assert "clip.avi" in evidence and "same open file description" in evidence
    assert "cannot pickle 'cv2.VideoCapture' object" in evidence  # what spawn would hit


def test_pin_memory_needs_cuda_on_cpu():
    report = verify("--timeout", "60", fixture("dsl301_pin_blocking.py"))
    verdicts = probe_verdicts(report["loaders"], "DSL301")
    assert verdicts == ["needs-cuda"]
    evidence = report["loaders"][0]["probes"]["DSL301"]["evidence"]
    assert "pin_memory=True:" in evidence and "pin_memory=False:" in evidence  # measured cost
    assert report["_rc"] == 0 or rows(report, "DSL301")


def test_factory_target():
    for spec in ("factory_loader:make_loader", "factory_loader:make_parts"):
        report = verify("--timeout", "60", spec, cwd=fixture(""))
        found = rows(report, "DSL402")
        assert report["_rc"] == 1 and found and found[0]["verdict"] == "confirmed", report
        assert found[0]["filename"].endswith("factory_loader.py")
