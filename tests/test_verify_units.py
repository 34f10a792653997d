"""Fast tests of the verifier's parts: arguments, judges, summaries, bootstrap chaining,
and the --fix flow (copy, fix, re-run, compare) with a stand-in fixer."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dslint.verify import bootstrap, command, judges, outcome, stacks
from dslint.verify.model import CONFIRMED, FIXED, NOT_REPRODUCED, Report, Row
from dslint.verify.target import TargetError, parse

from .verify_helpers import FIXTURES, ROOT


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
           "AssertionError: Torch not compiled with CUDA enabled")
    text = judges.error_summary({"type": "AssertionError", "message": msg})
    assert text.startswith("worker 1 raised AssertionError: Torch not compiled") and "ds.py" in text
    text = judges.error_summary({"type": "RuntimeError", "message": "DataLoader worker exited"}, {"7": -9, "8": None})
    assert text.endswith("(worker exit codes: pid 7: -9)")


def _ctx(**kw):
    base = dict(info={"num_workers": 2}, facts={}, start_method="fork")
    base.update(kw)
    return judges.Ctx(**base)


def test_rng_judge_uses_state_fingerprints():
    same = [{"worker_id": i, "rng": {"dataset.rng": {"kind": "numpy.random.Generator", "fp": "ab"}}} for i in (0, 1)]
    assert judges.dsl402(_ctx(workers=same)).verdict == CONFIRMED
    differ = [{"worker_id": i, "rng": {"dataset.rng": {"kind": "k", "fp": str(i)}}} for i in (0, 1)]
    assert judges.dsl402(_ctx(workers=differ)).verdict == NOT_REPRODUCED
    assert judges.dsl402(_ctx(info={"num_workers": 1}, workers=same)) is None


def test_thread_judge_compares_with_control():
    run = lambda t: {"workers": {"1": {"threads": t, "involuntary_ctxt_switches": 10}}}  # noqa: E731
    facts = {"as_written": run(4), "cv2_off": run(3)}
    assert judges.dsl103(_ctx(facts=facts)).verdict == CONFIRMED
    facts = {"as_written": run(3), "cv2_off": run(3)}
    assert judges.dsl103(_ctx(facts=facts)).verdict == NOT_REPRODUCED
    assert judges.dsl103(_ctx(facts={"as_written": run(4)})) is None  # no control: cannot tell


def test_duplicate_judge_compares_with_serial_run():
    facts = {"as_written": {"samples": {"received": 64, "unique": 32}},
             "serial": {"samples": {"received": 64, "unique": 64}}}
    assert judges.dsl401(_ctx(info={"num_workers": 2, "iterable": True}, facts=facts)).verdict == CONFIRMED
    facts["serial"]["samples"]["unique"] = 32  # the stream itself repeats: not the workers' fault
    assert judges.dsl401(_ctx(info={"num_workers": 2, "iterable": True}, facts=facts)).verdict == NOT_REPRODUCED


def test_pickle_failures_split_between_handles_and_callables():
    facts = {"pickle": {"dataset": {"ok": False, "type": "TypeError", "message": "cannot pickle 'cv2.VideoCapture' object"},
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


def test_innermost_prefers_the_dataset_thread():
    dump = ('Thread 0x1 (most recent call first):\n  File "q.py", line 1 in _feed\n\n'
            'Current thread 0x2 (most recent call first):\n  File "ds.py", line 5 in __getitem__\n'
            '  File "w.py", line 9 in _worker_loop\n')
    assert stacks.innermost(dump).startswith('File "ds.py", line 5 in __getitem__')


def test_compare_marks_fixed_and_still_confirmed():
    before = Report("t", rows=[Row("DSL402", "a.py", 3, CONFIRMED, "same state"),
                               Row("DSL103", "a.py", 1, CONFIRMED, "4 vs 3")])
    after = Report("t", rows=[Row("DSL103", "b.py", 1, CONFIRMED, "4 vs 3")])
    merged = command_compare(before, after)
    verdicts = {r.code: r.verdict for r in merged.rows}
    assert verdicts == {"DSL402": FIXED, "DSL103": CONFIRMED}
    assert merged.exit_code() == 1


def command_compare(before, after):
    from dslint.verify import assemble

    return assemble.compare(before, after)


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


def test_fix_flow_copies_fixes_and_reruns(monkeypatch):
    """--fix with a stand-in fixer: the copy is fixed and re-verified, the original is not."""
    pytest.importorskip("torch")
    from dslint.verify import fixflow, static
    from dslint.verify.verifier import Options, verify

    hazard = FIXTURES / "dsl201_persistent_without_workers.py"
    original = hazard.read_text()
    touched = []

    def fake_fix_paths(paths, unsafe):
        for p in paths:
            text = Path(p).read_text()
            if "persistent_workers=True" in text:
                Path(p).write_text(text.replace("persistent_workers=True", "persistent_workers=False"))
                touched.append(p)
        return len(touched)

    monkeypatch.setattr(static, "fixer", lambda: fake_fix_paths)
    monkeypatch.chdir(ROOT)
    target = parse(str(hazard), [])
    opts = Options(["fork"], timeout=60)
    before = verify(target, opts)
    merged = fixflow.with_fixes(target, opts, before)
    assert touched and not touched[0].startswith(str(FIXTURES))
    assert hazard.read_text() == original
    assert [r.verdict for r in merged.rows if r.code == "DSL201"] == [FIXED]
    assert any("applied 1 fix" in n for n in merged.notes)


def test_fix_without_fixer_says_so(monkeypatch):
    from dslint.verify import fixflow, static

    monkeypatch.setattr(static, "fixer", lambda: None)
    report = fixflow.with_fixes(parse(str(FIXTURES / "dsl402_shared_rng.py"), []), None, Report("t"))
    assert any("fixes are unavailable" in e for e in report.errors)
