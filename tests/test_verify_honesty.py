"""Verdicts say what was tested: correct code that looks like a hazard is not CONFIRMED,
a hazard that shows only by luck is judged by structure, what cannot be tested here says
so (NEEDS CUDA, NOT TESTED with the reason), and a finding takes evidence only from its
own loader. Each case runs the real command on a fixture in fixtures/verify/honesty/."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from .verify_helpers import assert_clean, fixture, probe_verdicts, rows, verify  # noqa: E402


@pytest.mark.parametrize("name", ["dsl402_init_only.py", "dsl402_reseeded_per_worker.py"])
def test_shared_generator_not_drawn_in_workers_is_not_confirmed(name, tmp_path):
    report = verify("--timeout", "30", fixture(f"honesty/{name}"), tmpdir=tmp_path)
    assert report["_rc"] == 0, report["_stderr"]
    (probe,) = [lo["probes"]["DSL402"] for lo in report["loaders"]]
    assert probe["verdict"] == "not-reproduced"
    assert "start from the same state" in probe["evidence"] and "do not draw identical values" in probe["evidence"]
    assert not rows(report, "DSL402")
    assert_clean(report, tmp_path)


def test_unsharded_shuffled_stream_is_confirmed_by_structure(tmp_path):
    """Few duplicates show in a shuffled stream's first batches; that no worker reads
    get_worker_info() is what proves every worker yields the whole stream."""
    report = verify("--timeout", "30", fixture("honesty/dsl401_shuffled_stream.py"), tmpdir=tmp_path)
    (row,) = rows(report, "DSL401")
    assert row["verdict"] == "confirmed" and "no worker read get_worker_info()" in row["evidence"], row
    assert report["_rc"] == 1
    assert_clean(report, tmp_path)


def test_cuda_only_when_available_needs_cuda(tmp_path):
    report = verify("--timeout", "30", fixture("honesty/dsl105_guarded.py"), tmpdir=tmp_path)
    (row,) = rows(report, "DSL105")
    assert row["verdict"] == "needs-cuda", row
    assert "torch.cuda.is_available() at" in row["evidence"] and "dsl105_guarded.py:14" in row["evidence"]
    assert report["_rc"] == 0
    assert_clean(report, tmp_path)


def test_cuda_initialisation_in_a_worker_is_intercepted(tmp_path):
    report = verify("--timeout", "30", fixture("dsl105_cuda_in_worker.py"), tmpdir=tmp_path)
    (row,) = rows(report, "DSL105")
    assert row["verdict"] == "confirmed" and "initialised CUDA at" in row["evidence"]
    assert "dsl105_cuda_in_worker.py:16 in __getitem__" in row["evidence"]


def test_finding_of_a_loader_never_built_takes_no_other_evidence(tmp_path):
    report = verify("--timeout", "30", fixture("honesty/two_loaders.py"), tmpdir=tmp_path)
    (row,) = rows(report, "DSL402")
    assert row["verdict"] == "not-tested"
    assert "never built" in row["evidence"] and "two_loaders.py:25" in row["evidence"]
    assert probe_verdicts(report["loaders"], "DSL402") == ["not-reproduced"]  # the other loader's
    assert report["_rc"] == 0
    assert_clean(report, tmp_path)


def test_all_start_methods_side_by_side(tmp_path):
    report = verify("--timeout", "60", "--start-method", "all", fixture("dsl102_unpicklable.py"), tmpdir=tmp_path)
    assert report["start_methods"] == ["fork", "spawn", "forkserver"]
    (row,) = rows(report, "DSL102")
    assert row["verdict"] == "confirmed" and row["start_methods"] == ["fork", "forkserver", "spawn"]
    assert sorted(h["start_method"] for h in report["hygiene"]) == ["fork", "forkserver", "spawn"]
    assert_clean(report, tmp_path)


def test_every_descriptor_the_parent_had_open_is_compared(tmp_path):
    """A handle no walk of the dataset finds (it hides in a closure) is still caught: the
    workers share the parent's open file description and move its offset."""
    data = tmp_path / "records.bin"
    data.write_bytes(bytes(range(256)) * 4)
    report = verify("--timeout", "30", fixture("honesty/dsl104_hidden_handle.py"), "--", str(data), tmpdir=tmp_path)
    (row,) = rows(report, "DSL104")
    assert row["verdict"] == "confirmed" and not row["static"]  # no static finding: seen at run time only
    assert "records.bin" in row["evidence"] and "shared offset moved" in row["evidence"]
    assert report["_rc"] == 1
    assert_clean(report, tmp_path)


def test_text_report_fits_80_columns(tmp_path):
    report = verify("--timeout", "30", fixture("dsl402_shared_rng.py"), "--against",
                    fixture("dsl402_shared_rng_fixed.py"), tmpdir=tmp_path, fmt="text")
    text = report["_stdout"]
    assert report["_rc"] == 0 and "DSL402  FIXED (fork)" in text
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "rule: https://github.com/dslint/dslint/blob/main/rules/DSL402.md" in text
    assert "fix: Reseed the generator per worker" in text and "exit 0: nothing confirmed" in text


def test_main_guard_masked_by_an_unpicklable_collate_is_not_tested(tmp_path):
    """Spawn fails to pickle the lambda before any worker starts: nothing re-imported the
    module, so DSL101 is NOT TESTED (with that reason), never NOT REPRODUCED."""
    report = verify("--timeout", "30", fixture("honesty/dsl101_masked_by_lambda.py"), tmpdir=tmp_path)
    (row,) = rows(report, "DSL101")
    assert row["verdict"] == "not-tested", row
    assert "no spawn worker started" in row["evidence"] and "pickle" in row["evidence"], row
    assert [r["verdict"] for r in rows(report, "DSL102")] == ["confirmed"]
    assert report["_rc"] == 1
    assert_clean(report, tmp_path)


def test_multiprocessing_value_pickles_as_at_worker_start(tmp_path):
    """spawn pickles the dataset while starting the worker, when an ``mp.Value`` may travel:
    the probe pickles it that way, so nothing is confirmed (it was, wrongly, before)."""
    report = verify("--timeout", "30", fixture("honesty/dsl102_shared_value.py"), tmpdir=tmp_path)
    assert not rows(report, "DSL102"), report
    assert probe_verdicts(report["loaders"], "DSL102") != ["confirmed"]
    assert report["_rc"] == 0
    assert_clean(report, tmp_path)
