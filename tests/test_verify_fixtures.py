"""Every hazard fixture in fixtures/verify/ is CONFIRMED by its rule in the default run
(NEEDS CUDA where only a GPU can show it) and its fixed twin confirms nothing; where
dslint has a fix, ``verify --fix`` runs the real fixer on a copy and shows FIXED, with
the user's files byte-identical. Runs the real command on real loaders, on CPU."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("torch")

from .verify_helpers import (  # noqa: E402
    FIXTURES,
    assert_clean,
    digest,
    fixture,
    probe_verdicts,
    rows,
    verdicts,
    verify,
)

# (rule, hazard, fixed twin): dslint has a fix for the hazard -> proven with --fix
FIXABLE = [
    ("DSL101", "dsl101_main_guard.py", "dsl101_main_guard_fixed.py"),
    ("DSL102", "dsl102_unpicklable.py", "dsl102_unpicklable_fixed.py"),
    ("DSL103", "dsl103_cv2_threads.py", "dsl103_cv2_threads_fixed.py"),
    ("DSL104", "dsl104_shared_handle.py", "dsl104_shared_handle_fixed.py"),
    ("DSL201", "dsl201_persistent_without_workers.py", "dsl201_persistent_without_workers_fixed.py"),
    ("DSL202", "dsl202_prefetch_without_workers.py", "dsl202_prefetch_without_workers_fixed.py"),
    ("DSL301", "dsl301_pin_blocking.py", "dsl301_pin_blocking_fixed.py"),
]
# no automatic fix: the hand-fixed twin is the fix (--against)
HAND_FIXED = [
    ("DSL105", "dsl105_cuda_in_worker.py", "dsl105_cuda_in_worker_fixed.py"),
    ("DSL203", "dsl203_sampler_conflict.py", "dsl203_sampler_conflict_fixed.py"),
    ("DSL401", "dsl401_iterable_unsharded.py", "dsl401_iterable_unsharded_fixed.py"),
    ("DSL402", "dsl402_shared_rng.py", "dsl402_shared_rng_fixed.py"),
]
# covered by test_verify_hangs.py
HANGS = {"dsl104_decoded_hang.py", "dsl104_module_capture.py", "dsl107_omp_hang.py"}
NEEDS_GPU = {"DSL301"}  # pinned-memory overlap: nothing to measure without CUDA


def _confirmed_probes(loaders):
    return sorted({c for lo in loaders for c, p in lo["probes"].items() if p["verdict"] == "confirmed"})


def test_every_hazard_fixture_is_covered():
    hazards = {p.name for p in FIXTURES.glob("dsl*.py") if not p.stem.endswith("_fixed")}
    covered = {h for _, h, _ in FIXABLE + HAND_FIXED} | HANGS
    assert hazards == covered
    for name in hazards:
        twin = name.replace(".py", "_fixed.py")
        assert (FIXTURES / twin).exists() or name == "dsl104_decoded_hang.py", twin


@pytest.mark.parametrize("code,hazard,twin", FIXABLE, ids=[f[0] for f in FIXABLE])
def test_fix_proves_the_fix_on_a_copy(code, hazard, twin, tmp_path):
    before = digest(FIXTURES)
    report = verify("--timeout", "30", "--fix", fixture(hazard), tmpdir=tmp_path)
    assert digest(FIXTURES) == before  # the user's files, byte for byte
    assert report["_rc"] == 0, report["_stderr"] + report["_stdout"][-2000:]
    found = rows(report, code)
    row = found[0]
    assert found and all(r["fix_applied"] and r["static"] for r in found)
    if code in NEEDS_GPU:
        assert {r["verdict"] for r in found} == {"needs-cuda"} and "no CUDA device here" in row["evidence"]
    else:
        assert len(found) == 1
        # FIXED: CONFIRMED as written (the default run), not confirmed on the fixed copy
        assert row["verdict"] == "fixed", row
        assert "before:" in row["evidence"] and "after:" in row["evidence"]
        assert code not in _confirmed_probes(report["after_fix"]["loaders"])
        assert row["throughput_before"] and row["throughput_after"]
        assert row["throughput_after"]["batches_per_s"], row
    assert report["fix"]["applied"] >= 1 and f"a/{hazard}" in report["fix"]["diff"]
    assert row["rule_url"].endswith(f"{code}.md") and "Autofix" in row["advice"]
    assert_clean(report, tmp_path)
    if code in ("DSL101", "DSL102"):  # only spawn can show them: run automatically
        assert "spawn" in report["start_methods"]


@pytest.mark.parametrize("code,hazard,twin", HAND_FIXED, ids=[f[0] for f in HAND_FIXED])
def test_hand_fixed_twin(code, hazard, twin, tmp_path):
    report = verify("--timeout", "30", fixture(hazard), "--against", fixture(twin), tmpdir=tmp_path)
    assert report["_rc"] == 0, report["_stderr"] + report["_stdout"][-2000:]
    found = rows(report, code)
    assert found and {r["verdict"] for r in found} == {"fixed"}, found
    assert "confirmed" in probe_verdicts(report["loaders"], code)  # as written
    assert not _confirmed_probes(report["after_fix"]["loaders"])  # the twin confirms nothing
    assert_clean(report, tmp_path)


@pytest.mark.parametrize("twin", [t for _, _, t in FIXABLE], ids=[f[0] for f in FIXABLE])
def test_fixed_twin_confirms_nothing(twin, tmp_path):
    report = verify("--timeout", "30", fixture(twin), tmpdir=tmp_path)
    assert report["_rc"] == 0, report
    assert not any("confirmed" in v for v in verdicts(report).values()), report["findings"]
    assert not _confirmed_probes(report["loaders"])
    assert_clean(report, tmp_path)


def test_dsl101_under_fork_only_is_not_tested(tmp_path):
    report = verify("--timeout", "30", "--start-method", "fork", fixture("dsl101_main_guard.py"), tmpdir=tmp_path)
    (row,) = rows(report, "DSL101")
    assert row["verdict"] == "not-tested" and "spawn" in row["evidence"]
    assert report["_rc"] == 0 and report["start_methods"] == ["fork"]


def test_factory_target(tmp_path):
    for spec in ("factory_loader:make_loader", "factory_loader:make_parts"):
        report = verify("--timeout", "30", spec, cwd=Path(fixture("")), tmpdir=tmp_path)
        found = rows(report, "DSL402")
        assert report["_rc"] == 1 and found and found[0]["verdict"] == "confirmed", report
        assert found[0]["path"].endswith("factory_loader.py")


def test_fix_copy_does_not_walk_linked_folders(tmp_path):
    """``up -> ..`` in the project made the copy for --fix descend into the parent again and
    again (internal error after 40 levels); linked folders are linked again in the copy."""
    project = tmp_path / "home" / "proj"
    (project / "pkg").mkdir(parents=True)
    hazard = (FIXTURES / "dsl201_persistent_without_workers.py").read_text(encoding="utf-8")
    (project / "train.py").write_text(hazard, encoding="utf-8")
    (project / "up").symlink_to("..")
    (project / "alias").symlink_to("pkg")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    report = verify("--timeout", "30", "--fix", "train.py", cwd=project, tmpdir=scratch)
    assert report["_rc"] == 0, report["_stderr"] + report["_stdout"][-2000:]
    assert [r["verdict"] for r in rows(report, "DSL201")] == ["fixed"]
    assert (project / "train.py").read_text(encoding="utf-8") == hazard
    assert os.readlink(project / "up") == ".." and os.readlink(project / "alias") == "pkg"
    assert_clean(report, scratch)


def test_fix_of_a_read_only_checkout_is_proven_on_a_writable_copy(tmp_path):
    """The fixer refuses read-only files; the copy --fix works on is the verifier's own,
    so a read-only project (a CI checkout, a shared folder) still shows FIXED."""
    project = tmp_path / "proj"
    project.mkdir()
    hazard = (FIXTURES / "dsl201_persistent_without_workers.py").read_text(encoding="utf-8")
    script = project / "train.py"
    script.write_text(hazard, encoding="utf-8")
    script.chmod(0o444)
    project.chmod(0o555)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    try:
        report = verify("--timeout", "30", "--fix", "train.py", cwd=project, tmpdir=scratch)
    finally:
        project.chmod(0o755)
    assert report["_rc"] == 0, report["_stderr"] + report["_stdout"][-2000:]
    assert [r["verdict"] for r in rows(report, "DSL201")] == ["fixed"]
    assert "read-only" not in report["_stderr"]
    assert script.read_text(encoding="utf-8") == hazard and (script.stat().st_mode & 0o777) == 0o444
    assert_clean(report, scratch)
