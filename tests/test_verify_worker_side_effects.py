"""``dslint verify`` on the hazards of issue 17 (part A), on CPU: DSL108 (a worker starts a
process), DSL109 (threads alive in the parent at the fork), DSL405 (a worker's copy of a
count moves, the main process's does not), DSL502 (the script's loop keeps the batches'
shared-memory tensors). Each hazard is CONFIRMED as written and FIXED against its hand-fixed
twin, through the real command; the judges' edge cases are checked on recorded facts."""

from __future__ import annotations

import pytest

from dslint.verify import judges
from dslint.verify.model import CONFIRMED, NOT_REPRODUCED

from .verify_helpers import FIXTURES, assert_clean, probe_verdicts, rows, verify

FOLDER = FIXTURES / "issue17"
PAIRS = [
    ("DSL108", "dsl108_processes_in_worker.py", "daemonic processes are not allowed to have children"),
    ("DSL109", "dsl109_threads_alive_at_fork.py", "running multiprocessing.pool.worker"),
    ("DSL109", "dsl109_pool_hang.py", "dsl109_pool_hang.py:23 in __getitem__"),  # the workers' pool: a hang
    ("DSL405", "dsl405_worker_state_mutation.py", "`collate_fn.batch_count` kept changing"),
    ("DSL502", "dsl502_batches_retained.py", "tensors of 7 of the 7 earlier batches are still alive"),
]


def test_every_fixture_has_a_twin_and_a_test():
    hazards = {p.name for p in FOLDER.glob("dsl*.py") if not p.stem.endswith("_fixed")}
    assert hazards == {name for _, name, _ in PAIRS}
    assert all((FOLDER / name.replace(".py", "_fixed.py")).is_file() for name in hazards)


@pytest.mark.parametrize("code,hazard,evidence", PAIRS, ids=[p[1].split(".")[0] for p in PAIRS])
def test_confirmed_as_written_and_fixed_by_the_twin(code, hazard, evidence, tmp_path):
    pytest.importorskip("torch")
    twin = hazard.replace(".py", "_fixed.py")
    timeout = "8" if "hang" in hazard else "30"  # a hang is called after this many seconds without a batch
    report = verify("--timeout", timeout, str(FOLDER / hazard), "--against", str(FOLDER / twin), tmpdir=tmp_path)
    assert report["_rc"] == 0, report["_stderr"] + report["_stdout"][-2000:]
    found = rows(report, code)
    assert found and {r["verdict"] for r in found} == {"fixed"}, found
    assert found[0]["static"] and evidence in found[0]["evidence"]
    assert "confirmed" in probe_verdicts(report["loaders"], code)
    assert probe_verdicts(report["after_fix"]["loaders"], code) == ["not-reproduced"]
    assert_clean(report, tmp_path)


# the judges on recorded facts --------------------------------------------------------------
def _ctx(**kw):
    base = dict(info={"num_workers": 2}, facts={"as_written": {"batches": 8}}, start_method="fork")
    base.update(kw)
    return judges.Ctx(**base)


def test_process_judge_needs_a_start_or_the_assertion():
    spied = [{"ev": "worker_process", "worker_id": 1, "site": "/p/ds.py:9 in __getitem__"}]
    probe = judges.dsl108(_ctx(worker_events=spied))
    assert probe.verdict == CONFIRMED and "/p/ds.py:9" in probe.evidence
    caught = {"as_written": {"error": {"type": "AssertionError", "message": "Caught AssertionError in DataLoader "
                                       "worker process 0.\nAssertionError: " + judges.DAEMONIC}}}
    assert judges.dsl108(_ctx(facts=caught)).verdict == CONFIRMED
    assert judges.dsl108(_ctx()).verdict == NOT_REPRODUCED
    other = {"as_written": {"error": {"type": "ValueError", "message": "bad sample"}}}
    assert judges.dsl108(_ctx(facts=other)) is None  # the target failed for its own reasons
    assert judges.dsl108(_ctx(info={"num_workers": 0})) is None


def test_thread_judge_needs_fork_and_a_thread():
    pool = [{"name": f"Thread-{i} (worker)", "daemon": True, "runs": "multiprocessing.pool.worker (pool.py:97)"}
            for i in range(4)]
    probe = judges.dsl109(_ctx(prefork={"threads": pool}))
    assert probe.verdict == CONFIRMED and "4 running multiprocessing.pool.worker" in probe.evidence
    assert judges.dsl109(_ctx(prefork={"threads": []})).verdict == NOT_REPRODUCED
    spawned = judges.dsl109(_ctx(prefork={"threads": pool}, start_method="spawn"))
    assert spawned.verdict == NOT_REPRODUCED and "not forked" in spawned.evidence
    assert judges.dsl109(_ctx(prefork={})) is None  # no snapshot: nothing measured


def _state(worker, count, **values):
    return {"ev": "worker_batch", "worker_id": worker, "count": count, "state": values}


def test_state_judge_needs_a_count_that_keeps_moving():
    facts = {"as_written": {"batches": 8, "state_after": {"collate_fn.n": 0}}}
    prefork = {"state": {"collate_fn.n": 0}}
    counting = [_state(w, c, **{"collate_fn.n": c}) for w in (0, 1) for c in (1, 2, 4)]
    probe = judges.dsl405(_ctx(facts=facts, prefork=prefork, worker_events=counting))
    assert probe.verdict == CONFIRMED and "worker 0: 0 -> 4" in probe.evidence
    # a value each worker sets once (its pid) is per-worker by design, not a lost count
    facts = {"as_written": {"batches": 8, "state_after": {"dataset.pid": 10}}}
    once = [_state(w, c, **{"dataset.pid": 20 + w}) for w in (0, 1) for c in (1, 2, 4)]
    probe = judges.dsl405(_ctx(facts=facts, prefork={"state": {"dataset.pid": 10}}, worker_events=once))
    assert probe.verdict == NOT_REPRODUCED
    # the main process saw the change (shared memory): nothing lost
    facts = {"as_written": {"batches": 8, "state_after": {"collate_fn.n": 8}}}
    assert judges.dsl405(_ctx(facts=facts, prefork=prefork, worker_events=counting)).verdict == NOT_REPRODUCED


def test_retention_judge_reads_the_driven_loop():
    kept = {"earlier_batches": 7, "kept_batches": 7, "shm_fds": [2, 10], "sharing_strategy": "file_descriptor"}
    assert judges.dsl502(_ctx(drive=kept)).verdict == CONFIRMED
    released = dict(kept, kept_batches=0)
    assert judges.dsl502(_ctx(drive=released)).verdict == NOT_REPRODUCED
    file_system = dict(kept, sharing_strategy="file_system")
    assert judges.dsl502(_ctx(drive=file_system)).verdict == NOT_REPRODUCED
    assert judges.dsl502(_ctx(drive={})) is None  # the loop was not driven
    assert judges.dsl502(_ctx(drive=dict(kept, earlier_batches=2))) is None  # too short to tell
