"""Fast tests of the verifier's parts: arguments, judges, finding-to-loader mapping,
the report (80 columns, versioned JSON, exit codes), the real fix API on a copy, and
bootstrap chaining."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dslint.diagnostics import Finding, Location, Related
from dslint.verify import assemble, bootstrap, command, judges, outcome, report, stacks, static
from dslint.verify.model import (
    CONFIRMED,
    ERROR,
    FIXED,
    NEEDS_CUDA,
    NOT_REPRODUCED,
    NOT_TESTED,
    VERDICTS,
    FixSummary,
    LoaderOutcome,
    Probe,
    Report,
    Row,
    RunOutcome,
    Throughput,
)
from dslint.verify.target import TargetError, parse

from .verify_helpers import FIXTURES, ROOT, digest


def _args(*argv):
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(list(argv))
    command._normalise(args)
    return args


def test_arguments_split_at_double_dash():
    args = _args("train.py", "--timeout", "3", "--", "--timeout", "9", "x")
    assert (args.target, args.timeout, args.args) == ("train.py", 3.0, ["--timeout", "9", "x"])
    args = _args("--start-method", "all", "pkg.mod:make", "--fix")
    assert (args.target, args.start_method, args.fix, args.args) == ("pkg.mod:make", "all", True, [])
    with pytest.raises(TargetError):
        _args("train.py", "--epochs", "1")  # the target's own option needs --
    with pytest.raises(TargetError):
        _args()


def test_target_parsing(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("")
    t = parse("train.py", ["-x"], cwd=str(tmp_path))
    assert t.kind == "script" and t.argv("py") == ["py", str(script), "-x"]
    f = parse("pkg.data:make_loader", [], cwd=str(tmp_path))
    assert f.kind == "factory" and f.argv("py")[1:4] == ["-m", "dslint.verify.child.factory", "pkg.data:make_loader"]
    moved = t.relocated(str(tmp_path), "/copy")
    assert moved.spec == "/copy/train.py" and moved.cwd == "/copy"
    with pytest.raises(TargetError):
        parse("nope.py", [], cwd=str(tmp_path))


def test_traceback_summary_names_exception_and_frame():
    err = 'junk\nTraceback (most recent call last):\n  File "a.py", line 3, in <module>\n    f()\n' \
          '  File "a.py", line 2, in f\n    1/0\nZeroDivisionError: division by zero\n'
    assert outcome.traceback_summary(err) == 'ZeroDivisionError: division by zero (File "a.py", line 2, in f)'


def test_error_summary_prefers_worker_frame_and_exit_codes():
    msg = ("Caught AssertionError in DataLoader worker process 1.\nOriginal Traceback (most recent call last):\n"
           '  File "/x/torch/utils/data/_utils/worker.py", line 1, in _worker_loop\n'
           '  File "/p/ds.py", line 9, in __getitem__\n    t.cuda()\n'
           '  File "/tmp/b/dslint/verify/child/worker.py", line 60, in spy_lazy_init\n'
           "AssertionError: Torch not compiled with CUDA enabled")
    text = judges.error_summary({"type": "AssertionError", "message": msg})
    assert text.startswith("worker 1 raised AssertionError: Torch not compiled") and text.endswith("__getitem__")
    text = judges.error_summary({"type": "RuntimeError", "message": "DataLoader worker exited"}, {"7": -9, "8": None})
    assert text.endswith("(worker exit codes: pid 7: -9)")


def _ctx(**kw):
    base = dict(info={"num_workers": 2}, facts={"as_written": {}}, start_method="fork")
    base.update(kw)
    return judges.Ctx(**base)


def _rng(fp):
    return {"dataset.rng": {"kind": "numpy.random.Generator", "fp": fp}}


def test_rng_judge_needs_identical_draws_not_only_identical_starts():
    starts = [{"worker_id": i, "rng": _rng("s")} for i in (0, 1)]
    drew_same = [{"ev": "worker_batch", "worker_id": i, "count": 1, "rng": _rng("a")} for i in (0, 1)]
    probe = judges.dsl402(_ctx(workers=starts, worker_events=drew_same))
    assert probe.verdict == CONFIRMED and "drew identical values" in probe.evidence
    never_drawn = [{"ev": "worker_batch", "worker_id": i, "count": 1, "rng": _rng("s")} for i in (0, 1)]
    probe = judges.dsl402(_ctx(workers=starts, worker_events=never_drawn))
    assert probe.verdict == NOT_REPRODUCED and "do not draw identical values" in probe.evidence
    replaced = [{"ev": "worker_batch", "worker_id": i, "count": 1, "rng": _rng(f"own{i}")} for i in (0, 1)]
    assert judges.dsl402(_ctx(workers=starts, worker_events=replaced)).verdict == NOT_REPRODUCED
    differ = [{"worker_id": i, "rng": _rng(str(i))} for i in (0, 1)]
    assert judges.dsl402(_ctx(workers=differ)).verdict == NOT_REPRODUCED
    assert judges.dsl402(_ctx(info={"num_workers": 1}, workers=starts)) is None


def test_thread_judge_compares_with_control():
    run = lambda t: {"workers": {"1": {"threads": t, "involuntary_ctxt_switches": 10}}}  # noqa: E731
    assert judges.dsl103(_ctx(facts={"as_written": run(4), "cv2_off": run(3)})).verdict == CONFIRMED
    assert judges.dsl103(_ctx(facts={"as_written": run(3), "cv2_off": run(3)})).verdict == NOT_REPRODUCED
    assert judges.dsl103(_ctx(facts={"as_written": run(4)})) is None  # no control: cannot tell


def test_stream_judge_uses_totals_then_worker_info_reads():
    info = {"num_workers": 2, "iterable": True}
    exhausted = {"as_written": {"exhausted": True, "samples": {"received": 200, "unique": 100}},
                 "serial": {"exhausted": True, "samples": {"received": 100, "unique": 100}}}
    probe = judges.dsl401(_ctx(info=info, facts=exhausted))
    assert probe.verdict == CONFIRMED and "200 samples with 2 workers vs 100" in probe.evidence
    exhausted["as_written"]["samples"] = {"received": 100, "unique": 100}
    assert judges.dsl401(_ctx(info=info, facts=exhausted)).verdict == NOT_REPRODUCED
    running = {"as_written": {"samples": {"received": 64, "unique": 64}},
               "serial": {"samples": {"received": 640, "unique": 640}}}
    assert judges.dsl401(_ctx(info=info, facts=running)).verdict == CONFIRMED  # nobody asked who they are
    asked = [{"ev": "worker_info_used", "what": "id", "site": "ds.py:9 in __iter__"}]
    probe = judges.dsl401(_ctx(info=info, facts=running, worker_events=asked))
    assert probe.verdict == NOT_REPRODUCED and "ds.py:9" in probe.evidence


def test_cuda_judge():
    init = [{"ev": "worker_cuda", "what": "init", "site": "ds.py:5 in __getitem__", "worker_id": 0}]
    assert judges.dsl105(_ctx(worker_events=init)).verdict == CONFIRMED
    asked = [{"ev": "worker_cuda", "what": "is_available", "site": "ds.py:4 in __getitem__"}]
    probe = judges.dsl105(_ctx(worker_events=asked, facts={"as_written": {}, "cuda_available": False}))
    assert probe.verdict == NEEDS_CUDA and "ds.py:4" in probe.evidence
    assert judges.dsl105(_ctx(facts={"as_written": {}, "cuda_available": True})).verdict == NOT_REPRODUCED


def test_main_guard_under_fork_is_not_tested():
    probe = judges.dsl101(_ctx())
    assert probe.verdict == NOT_TESTED and "spawn" in probe.evidence


def test_pickle_failures_split_between_handles_and_callables():
    handle = "cannot pickle 'cv2.VideoCapture' object"
    facts = {"pickle": {"dataset": {"ok": False, "type": "TypeError", "message": handle},
                        "collate_fn": {"ok": True, "bytes": 3}, "worker_init_fn": {"ok": True, "bytes": 3}}}
    assert judges.dsl104(_ctx(facts=facts)).verdict == CONFIRMED
    assert judges.dsl102(_ctx(facts=facts)).verdict == NOT_REPRODUCED
    facts["pickle"]["dataset"]["message"] = "Can't pickle local object 'main.<locals>.<lambda>'"
    assert judges.dsl102(_ctx(facts=facts)).verdict == CONFIRMED


def test_construction_messages_map_to_rules():
    assert judges.construction_code("persistent_workers option needs num_workers > 0") == "DSL201"
    assert judges.construction_code("prefetch_factor option could only be specified in multiprocessing.") == "DSL202"
    assert judges.construction_code("sampler option is mutually exclusive with shuffle") == "DSL203"
    assert judges.construction_code("something else") is None


def test_stacks_innermost_and_spans():
    dump = ('Thread 0x1 (most recent call first):\n  File "q.py", line 1 in _feed\n\n'
            'Current thread 0x2 (most recent call first):\n  File "/p/ds.py", line 5 in __getitem__\n'
            '  File "w.py", line 9 in _worker_loop\n')
    assert stacks.innermost(dump).startswith('File "/p/ds.py", line 5 in __getitem__')
    assert stacks.first_in(dump, [{"file": "/p/ds.py", "line": 3, "end_line": 8}]) == ("/p/ds.py", 5, "__getitem__")
    assert stacks.first_in(dump, [{"file": "/p/ds.py", "line": 6, "end_line": 8}]) is None


def _finding(code, path, row, related=()):
    loc = Location(row, 1)
    rel = tuple(Related(path, Location(r, 1), Location(r, 1), "given to this loader") for r in related)
    return Finding(code, "msg", path, loc, loc, related=rel)


def _loader(path, line, dataset_span=None):
    info = {"num_workers": 2}
    if dataset_span:
        info["dataset"] = {"file": path, "line": dataset_span[0], "end_line": dataset_span[1]}
    return LoaderOutcome(site={"path": path, "line": line, "end_line": line}, start_method="fork", info=info)


def test_findings_take_evidence_from_their_own_loader_only(tmp_path):
    path = str(tmp_path / "train.py")
    first, second = _loader(path, 20, (5, 12)), _loader(path, 30)
    assert static.loaders_for(_finding("DSL402", path, 8, related=[30]), [first, second]) == [second]
    assert static.loaders_for(_finding("DSL402", path, 8, related=[40]), [first, second]) == [first]  # its code
    assert static.loaders_for(_finding("DSL402", path, 14, related=[40]), [first, second]) == []
    assert static.loaders_for(_finding("DSL106", path, 2), [first, second]) == [first, second]
    run = RunOutcome("fork", loaders=[first], constructed=[{"site": first.site, "probed": True}])
    reason = static.why_untested(_finding("DSL402", path, 14, related=[40]), [run])
    assert "never built" in reason and "train.py:40" in reason


def test_hang_through_a_findings_code_is_that_finding():
    path = "/p/ds.py"
    lo = _loader(path, 30, (10, 20))
    lo.hung = True
    lo.probes = {"hang": Probe("hang", CONFIRMED, "stuck")}
    lo.metrics["hang"] = {"root": 1, "stalled_s": 4.0, "processes": {},
                          "stacks": {"1": 'File "/p/train.py", line 3 in main',
                                     "2": f'  File "{path}", line 15 in __getitem__\n'}}
    run = RunOutcome("fork", loaders=[lo])
    (row,) = assemble.build("t", [run], [_finding("DSL103", path, 10, related=[30])], True).rows
    assert row.verdict == CONFIRMED and "worker pid 2 stuck at /p/ds.py:15 in __getitem__" in row.evidence
    (row,) = assemble.build("t", [run], [_finding("DSL402", path, 10, related=[30])], True).rows[:1]
    assert row.verdict == NOT_TESTED and "hung" in row.evidence  # not a rule whose symptom is a hang


def _report(rows, **kw):
    lo = _loader("/p/train.py", 9)
    lo.probes = {"DSL402": Probe("DSL402", CONFIRMED, "x")}
    return Report("train.py", rows=rows, runs=[RunOutcome("fork", loaders=[lo])], start_methods=["fork"], **kw)


def test_exit_codes():
    def code(*verdicts, errors=()):
        return _report([Row("DSL402", "a.py", 1, v, "") for v in verdicts], errors=list(errors)).exit_code()

    assert code(FIXED, NOT_REPRODUCED, NOT_TESTED, NEEDS_CUDA) == 0
    assert code(FIXED, CONFIRMED) == 1
    assert code(NOT_REPRODUCED, errors=["boom"]) == 2 and code(ERROR) == 2


def test_text_fits_80_columns_and_cuts_nothing():
    long_path = "/" + "/".join(["a_rather_long_folder_name"] * 6) + "/train.py"
    evidence = " ".join(f"word{i}" for i in range(120)) + " /an/unbreakable/" + "x" * 100
    rows = [Row("DSL104", long_path, 12, CONFIRMED, evidence, "the message " * 20, ["fork", "spawn"], True,
                before=Throughput("s", 10.0, 0.5), after=Throughput("s", 20.0, 0.4)),
            Row("DSL402", "/p/train.py", 3, NOT_TESTED, "its loader was never built", "m", [], True)]
    out = io.StringIO()
    report.write_text(_report(rows, fix=FixSummary(1, ["train.py"], "--- a/train.py\n+++ b/train.py\n")), out)
    text = out.getvalue()
    lines = text.splitlines()
    diff_at = lines.index("--- a/train.py")
    assert all(len(ln) <= 80 for ln in lines[:diff_at]), [ln for ln in lines if len(ln) > 80]
    flat = "".join(text.split())
    for word in evidence.split():
        assert word in flat  # wrapped, never cut
    assert "- DSL104  CONFIRMED (fork, spawn)" in text  # a row too wide became a list entry
    assert "rule: https://" in text and "fix: " in text and "10.0 batches/s" in text and "20.0 batches/s" in text
    assert "NOT TESTED" in text and "exit 1: confirmed" in text


def test_json_is_versioned_and_keeps_its_keys():
    doc = report.to_json(_report([Row("DSL402", "/p/a.py", 3, FIXED, "e", "m", ["fork"], True)]))
    assert doc["schema"] == "dslint-verify-report" and doc["version"] == 1
    assert set(doc) == {"schema", "version", "dslint_version", "target", "start_methods", "exit_code", "summary",
                        "findings", "loaders", "after_fix", "fix", "errors", "notes", "hygiene", "wall_s"}
    assert doc["summary"] == {v.replace("-", "_"): int(v == FIXED) for v in VERDICTS}
    (row,) = doc["findings"]
    assert set(row) == {"code", "path", "line", "message", "static", "verdict", "start_methods", "evidence",
                        "loaders", "advice", "rule_url", "fix_applied", "throughput_before", "throughput_after"}
    assert row["rule_url"].endswith("/DSL402.md") and row["advice"] and doc["exit_code"] == 0


def test_compare_marks_fixed_only_when_tested_again():
    before = Report("t", rows=[Row("DSL402", "a.py", 3, CONFIRMED, "same state"),
                               Row("DSL103", "a.py", 1, CONFIRMED, "4 vs 3")])
    lo = _loader("b.py", 9)
    lo.probes = {"DSL402": Probe("DSL402", NOT_REPRODUCED, "own states")}
    after = Report("t", rows=[Row("DSL103", "b.py", 1, CONFIRMED, "4 vs 3")], runs=[RunOutcome("fork", [lo])])
    merged = assemble.compare(before, after)
    assert {r.code: r.verdict for r in merged.rows} == {"DSL402": FIXED, "DSL103": CONFIRMED}
    assert merged.exit_code() == 1
    broken = assemble.compare(before, Report("t", errors=["the target failed on its own"]))
    assert {r.verdict for r in broken.rows} == {CONFIRMED}  # a fix that cannot be re-tested proves nothing
    assert "could not be proven" in broken.rows[0].evidence and broken.exit_code() == 1


def test_fix_paths_fixes_in_place_with_the_real_fixer(tmp_path):
    pytest.importorskip("libcst")
    from dslint import api

    for name in ("dsl201_persistent_without_workers.py", "dsl402_shared_rng.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    before = digest(FIXTURES)
    result = api.fix_paths([str(tmp_path)], unsafe=True)
    assert digest(FIXTURES) == before
    fixed = str(tmp_path / "dsl201_persistent_without_workers.py")
    assert result.fixed == 1 and list(result.changes) == [fixed]
    assert result.codes[fixed]["DSL201"] == 1
    assert "num_workers=0, persistent_workers=True" not in Path(fixed).read_text()
    diff = result.diff(str(tmp_path))
    assert diff.startswith("--- a/dsl201_persistent_without_workers.py") and "-    loader = " in diff
    assert [f.code for f in result.remaining] == ["DSL402"]  # no automatic fix for it
    assert not (tmp_path / ".dslint_cache").exists()


def test_bootstrap_chains_an_existing_sitecustomize(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "sitecustomize.py").write_text("import os\nos.environ['USER_SITE_RAN'] = '1'\n")
    boot = bootstrap.write(str(tmp_path / "boot"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([boot, str(user)]),
               DSLINT_VERIFY_EVENTS=str(tmp_path / "events.jsonl"), DSLINT_VERIFY_STACKS=str(tmp_path))
    code = ("import os, sys; print(os.environ.get('USER_SITE_RAN'), "
            "'dslint.verify.child.boot' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "True", "False"]  # both ran; torch not imported eagerly
    assert '"ev": "boot"' in (tmp_path / "events.jsonl").read_text()


def test_repository_root_is_the_checkout():
    assert (ROOT / "dslint" / "verify").is_dir()
