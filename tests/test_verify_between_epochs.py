"""``dslint verify`` on what the main process does between steps and epochs (issue 17,
part B): a new iterator per step counted by the worker processes it starts (DSL304), the
persistent workers' copies of the dataset compared with the main process's after an epoch
(DSL404), and two gloo ranks on one CPU machine compared by what each draws (DSL406).
Each hazard is CONFIRMED as written and FIXED against its hand-fixed twin, running the
real command on real loaders; the judges' thresholds are checked on recorded facts."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from dslint.verify import judges  # noqa: E402
from dslint.verify.model import CONFIRMED, NOT_REPRODUCED, NOT_TESTED  # noqa: E402

from .verify_helpers import assert_clean, fixture, probe_verdicts, rows, verify  # noqa: E402

CASES = [
    ("DSL304", "dsl304_fresh_iterator.py", "worker processes started for those 3 batches"),
    ("DSL404", "dsl404_stale_dataset.py", "`epoch` is 1 in the main process but 0 in workers 0, 1"),
    ("DSL406", "dsl406_whole_dataset_per_rank.py", "each rank's RandomSampler draws 64 of its 64 samples"),
]


@pytest.mark.parametrize("code,hazard,seen", CASES, ids=[c[0] for c in CASES])
def test_confirmed_as_written_and_fixed_in_the_twin(code, hazard, seen, tmp_path):
    twin = hazard.replace(".py", "_fixed.py")
    report = verify("--timeout", "60", fixture(f"between_epochs/{hazard}"), "--against",
                    fixture(f"between_epochs/{twin}"), tmpdir=tmp_path)
    assert report["_rc"] == 0, report["_stderr"] + report["_stdout"][-2000:]
    (row,) = rows(report, code)
    assert row["static"] and row["verdict"] == "fixed", row
    assert seen in row["evidence"] and "after:" in row["evidence"]
    assert "confirmed" in probe_verdicts(report["loaders"], code)
    assert probe_verdicts(report["after_fix"]["loaders"], code) == ["not-reproduced"]
    assert_clean(report, tmp_path)


def _ctx(**fields):
    base = {"info": {"num_workers": 2, "persistent_workers": True}, "facts": {"as_written": {}},
            "start_method": "fork"}
    base.update(fields)
    return judges.Ctx(**base)


def _iter(n, after, exhausted, started):
    return {"ev": "script_iter", "n": n, "after": after, "exhausted": exhausted, "started": started}


def test_fresh_iterators_need_two_new_starts_after_unfinished_iterators():
    one = judges.dsl304(_ctx(script=[_iter(2, 1, False, 2)]))
    assert one.verdict == NOT_REPRODUCED
    epochs = judges.dsl304(_ctx(script=[_iter(2, 4, True, 2), _iter(3, 4, True, 2)]))
    assert epochs.verdict == NOT_REPRODUCED and "after the previous one ended" in epochs.evidence
    fresh = judges.dsl304(_ctx(script=[_iter(2, 1, False, 2), _iter(3, 1, False, 2)]))
    assert fresh.verdict == CONFIRMED and "4 worker processes started for those 2 batches" in fresh.evidence
    persistent = judges.dsl304(_ctx(script=[_iter(2, 1, False, 0), _iter(3, 1, False, 0)]))
    assert persistent.verdict == CONFIRMED and "reset the persistent workers" in persistent.evidence
    ended = judges.dsl304(_ctx(script=[_iter(2, 4, True, 0), _iter(3, 4, True, 0)]))
    assert ended.verdict == NOT_REPRODUCED and "on the same (persistent) workers" in ended.evidence
    assert judges.dsl304(_ctx(script=[])) is None
    kept = judges.dsl304(_ctx(script=[{"ev": "drive", "steps": 8}]))
    assert kept.verdict == NOT_REPRODUCED and "took 8 batches from one iterator" in kept.evidence


def _state(ev, epoch, state, worker=None):
    out = {"ev": ev, "epoch": epoch, "state": state}
    if worker is not None:
        out["worker_id"] = worker
    return out


def test_stale_copies_are_compared_per_epoch_and_attribute():
    script = [_state("main_state", 1, {"epoch": "0", "n": "8"}), _state("main_state", 2, {"epoch": "1", "n": "8"}),
              _state("worker_state", 2, {"epoch": "0", "n": "8"}, 0), _state("worker_state", 2, {"epoch": "1", "n": "8"}, 1)]
    probe = judges.dsl404(_ctx(script=script))
    assert probe.verdict == CONFIRMED and "`epoch` is 1 in the main process but 0 in worker 0" in probe.evidence
    same = [s for s in script if s.get("worker_id") != 0]
    assert judges.dsl404(_ctx(script=same)).verdict == NOT_REPRODUCED
    nothing_plain = [_state("main_state", 2, {}), _state("worker_state", 2, {}, 0)]
    assert judges.dsl404(_ctx(script=nothing_plain)) is None
    first_only = judges.dsl404(_ctx(script=script[:1]))
    assert first_only.verdict == NOT_TESTED and "second epoch" in first_only.evidence
    assert judges.dsl404(_ctx(info={"num_workers": 2, "persistent_workers": False}, script=script)) is None


def _rank(rank, fingerprint="abc", draws=64, distributed=False):
    return {"ev": "rank_facts", "rank": rank, "world_size": 2, "sampler": "RandomSampler", "dataset_len": 64,
            "draws": draws, "fingerprint": fingerprint, "distributed_sampler": distributed}


def test_ranks_are_compared_by_data_and_draws():
    assert judges.dsl406(_ctx(ranks=[_rank(0), _rank(1)])).verdict == CONFIRMED
    assert judges.dsl406(_ctx(ranks=[_rank(0), _rank(1, fingerprint="def")])).verdict == NOT_REPRODUCED
    assert judges.dsl406(_ctx(ranks=[_rank(0, draws=32, distributed=True), _rank(1, draws=32, distributed=True)])
                         ).verdict == NOT_REPRODUCED
    alone = judges.dsl406(_ctx(ranks=[_rank(0)]))
    assert alone.verdict == NOT_TESTED and "1 of 2 ranks" in alone.evidence
    assert judges.dsl406(_ctx(ranks=[])) is None
