"""Summaries computed ahead by a forked helper: the same summaries, the same findings."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from dslint import config, engine, parallel, prefetch

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

pytestmark = pytest.mark.skipif(not parallel.FORK, reason="the helper is forked")


def _wait_for(path: str, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False


def _modules(tmp_path: Path, count: int) -> list:
    paths = []
    for number in range(count):
        path = tmp_path / f"helpers_{number}.py"
        path.write_text(f"import torch\n\n\ndef to_device_{number}(batch, device):\n"
                        f"    return batch.to(device)\n\n\nSCALE = {number}\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def test_a_prefetched_summary_is_the_one_computed_on_demand(tmp_path):
    paths = _modules(tmp_path, 3)
    ahead = prefetch.Prefetch(paths, engine.summarise_path, engine._summary_tuple_types())
    try:
        assert _wait_for(os.path.join(ahead.folder, "2"))
        for path in paths:
            taken = ahead.take(path)
            assert taken is not None and taken.summary == engine.summarise_path(path).summary
        assert ahead.take(paths[0]) is None  # taken once: the resolver keeps it from then on
    finally:
        folder = ahead.folder
        ahead.close()
    assert not os.path.exists(folder) and not ahead.process.is_alive()


def test_what_is_taken_before_it_is_ready_is_computed_here_and_skipped_there(tmp_path):
    paths = _modules(tmp_path, 3)

    def slow(path):
        time.sleep(0.3)
        return engine.summarise_path(path)

    ahead = prefetch.Prefetch(paths, slow, engine._summary_tuple_types())
    try:
        assert ahead.take(paths[1]) is None  # not ready: the caller summarises it itself
        assert _wait_for(os.path.join(ahead.folder, "2"))
        assert not os.path.exists(os.path.join(ahead.folder, "1"))  # the helper skipped it
        assert ahead.take(paths[2]) is not None
    finally:
        ahead.close()


def test_no_helper_without_a_second_job_or_enough_source(tmp_path):
    paths = _modules(tmp_path, 2)
    sizes = [os.path.getsize(p) for p in paths]
    assert prefetch.start(paths, sizes, 1, 1.0, engine.summarise_path) is None  # --jobs 1
    assert prefetch.start(paths, sizes, 2, 1.0, engine.summarise_path) is None  # a few hundred bytes
    assert prefetch.start(paths, [prefetch.MIN_BYTES] * 2, 2, 0.1, engine.summarise_path) is None  # busy machine


@pytest.mark.skipif(config.cap_jobs(None, 2) < 2, reason="one core: no helper")
def test_findings_are_the_same_with_summaries_computed_ahead(tmp_path, monkeypatch):
    project = tmp_path / "helper_modules"
    shutil.copytree(FIXTURES / "flows" / "helper_modules", project)
    settings = config.Settings(root=str(project), select=["DSL"], cache=False)

    def findings():
        return sorted((f.path, f.location.row, f.code, f.message) for f in engine.run([str(project)], settings).findings)

    monkeypatch.setenv("DSLINT_NO_PREFETCH", "1")
    alone = findings()
    monkeypatch.delenv("DSLINT_NO_PREFETCH")
    monkeypatch.setattr(prefetch, "MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "idle_cores", lambda since: 1.0)
    taken = []
    original = prefetch.Prefetch.take

    def take(self, path):
        deadline = time.monotonic() + 20
        while self.numbers.get(path) is not None and time.monotonic() < deadline and \
                not os.path.exists(os.path.join(self.folder, str(self.numbers[path]))):
            time.sleep(0.02)  # wait for the helper, so that the test sees its summaries used
        found = original(self, path)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(prefetch.Prefetch, "take", take)
    assert findings() == alone and alone
    assert any(taken)
