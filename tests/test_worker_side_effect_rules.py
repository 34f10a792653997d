"""Issue 17, part A: DSL108 processes-in-worker, DSL109 threads-alive-at-fork, DSL405
worker-state-mutation and DSL502 batches-retained, as queries on the model. Their fixtures
(``fixtures/rules/<CODE>``, ``fixtures/flows/worker_side_effects``) are checked by
test_catalogue_rules.py and test_flows.py; here: their place in the catalogue and the CLI,
and the precision traps that separate a hazard from its look-alike."""

from __future__ import annotations

import json
import textwrap

import pytest

from dslint import catalogue
from dslint.model.effects import process_start_kind

from .conftest import FIXTURES, lint_json, run_cli

CODES = ("DSL108", "DSL109", "DSL405", "DSL502")


@pytest.mark.parametrize("code", CODES)
def test_catalogued_on_by_default_without_a_fix(code):
    rule = catalogue.RULES[code]
    assert rule.default is True and rule.fix is None
    assert code in run_cli("rules").stdout
    page = run_cli("rule", code)
    assert page.returncode == 0 and rule.name in page.stdout


def test_sarif_describes_the_rules_and_relates_the_places():
    result = run_cli("check", "--no-cache", "--output-format", "sarif", ".",
                     cwd=FIXTURES / "flows" / "worker_side_effects")
    run = json.loads(result.stdout)["runs"][0]
    assert set(CODES) <= {r["id"] for r in run["tool"]["driver"]["rules"]}
    found = {r["ruleId"]: r for r in run["results"]}
    assert set(found) == set(CODES)
    places = {loc["physicalLocation"]["artifactLocation"]["uri"] for loc in found["DSL502"]["relatedLocations"]}
    assert {"engine.py", "loaders.py", "train.py"} <= places


@pytest.mark.parametrize("qualname,kind", [
    ("multiprocessing.Pool", "starts a process pool"),
    ("multiprocessing.get_context().Pool", "starts a process pool"),
    ("torch.multiprocessing.spawn", "spawns processes"),
    ("concurrent.futures.ProcessPoolExecutor", "starts a process pool"),
    ("multiprocessing.get_context().Process().start", "starts a process"),
    ("multiprocessing.pool.ThreadPool", None),
    ("multiprocessing.dummy.Pool", None),
    ("concurrent.futures.ThreadPoolExecutor", None),
    ("mylib.Pool", None),
])
def test_process_starters(qualname, kind):
    assert process_start_kind(qualname) == kind


WORKERS = textwrap.dedent("""
    import multiprocessing
    import torch
    from torch.utils.data import DataLoader, Dataset
""")


def _main(dataset, extra=""):
    return textwrap.dedent(f"""
    def main():
        for batch in DataLoader({dataset}, batch_size=4, num_workers=2{extra}):
            print(batch)


    if __name__ == "__main__":
        main()
    """)


@pytest.mark.parametrize("body,codes", [
    # a spawn context's pool is a process pool too
    ("        with multiprocessing.get_context('spawn').Pool(2) as pool:\n"
     "            return torch.tensor(pool.map(abs, [index]))\n", ["DSL108"]),
    # one process asked of `datasets`: no pool
    ("        from datasets import load_dataset\n"
     "        rows = load_dataset('text', data_files='a.txt').map(len, num_proc=1)\n"
     "        return torch.tensor(index)\n", []),
])
def test_processes_in_worker_traps(lint_snippet, body, codes):
    source = WORKERS + textwrap.dedent("""
    class Data(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, index):
    """) + body + _main("Data()")
    assert [c for c, _ in lint_snippet(source)] == codes


def test_pool_closed_in_a_method_or_spawned_workers_are_not_threads_alive_at_fork(lint_snippet):
    source = WORKERS + textwrap.dedent("""
    from multiprocessing.pool import ThreadPool


    class Closed(Dataset):
        def __init__(self):
            self.pool = ThreadPool(4)
            self.values = self.pool.map(abs, range(8))

        def release(self):
            self.pool.terminate()

        def __len__(self):
            return 8

        def __getitem__(self, index):
            return torch.tensor(self.values[index])
    """) + _main("Closed()")
    assert lint_snippet(source) == []


def test_a_shared_counter_object_is_no_worker_state_mutation(lint_snippet):
    """open_clip's pattern: `self.epoch += 1` only when `epoch` is not the shared object the
    project passes (a class wrapping an mp.Value)."""
    source = WORKERS + textwrap.dedent("""
    class SharedEpoch:
        def __init__(self, epoch=0):
            self.shared = multiprocessing.Value("i", epoch)

        def __iadd__(self, step):
            with self.shared.get_lock():
                self.shared.value += step
            return self


    class Shards(Dataset):
        def __init__(self, epoch):
            self.epoch = epoch

        def __len__(self):
            return 8

        def __getitem__(self, index):
            self.epoch += 1
            return torch.tensor([index, self.epoch.shared.value])
    """) + _main("Shards(SharedEpoch())")
    assert lint_snippet(source) == []


def test_sharing_strategy_set_by_the_entry_script_silences_batches_retained(tmp_path):
    """The loop is in engine.py; train.py imports it and may set the strategy at import time."""
    (tmp_path / "engine.py").write_text(textwrap.dedent("""
    def collect(loader):
        kept = []
        for (features,) in loader:
            kept.append(features.numpy())
        return kept
    """), encoding="utf-8")
    entry = textwrap.dedent("""
    import torch
    import torch.multiprocessing
    from torch.utils.data import DataLoader, TensorDataset

    from engine import collect

    {strategy}


    def main():
        print(len(collect(DataLoader(TensorDataset(torch.randn(64, 4)), batch_size=4, num_workers=2))))


    if __name__ == "__main__":
        main()
    """)
    from dslint import config, engine

    def codes(strategy):
        (tmp_path / "train.py").write_text(entry.format(strategy=strategy), encoding="utf-8")
        settings = config.Settings(root=str(tmp_path), select=["DSL502"])
        return [(f.path.rsplit("/", 1)[-1], f.code) for f in engine.run([str(tmp_path)], settings).findings]

    assert codes("") == [("engine.py", "DSL502")]
    assert codes('torch.multiprocessing.set_sharing_strategy("file_system")') == []


def test_flake8_plugin_reports_them_with_their_places():
    pytest.importorskip("flake8")
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "flake8", "--select", "DSL", "."], capture_output=True, text=True,
                            cwd=FIXTURES / "flows" / "worker_side_effects")
    codes = {line.split(": ", 1)[1].split(" ", 1)[0] for line in result.stdout.splitlines() if ": DSL" in line}
    assert codes == set(CODES), result.stdout + result.stderr
    line = next(l for l in result.stdout.splitlines() if "DSL502" in l)
    assert line.startswith("./engine.py:8:") and "(see engine.py:6: the loop over the loader" in line


def test_threads_sharing_objects_name_the_object_and_where_the_thread_starts():
    """DSL109's shared-object findings name the object (not "module lock", which only a
    module-level lock is), and a thread a method starts on a shared object is reported where
    that method is called, with the ``.start()`` among the related locations."""
    folder = FIXTURES / "rules" / "DSL109"
    findings = lint_json("--select", "DSL109", "bad_thread_shares_cache.py", "bad_thread_started_by_method.py",
                         "bad_module_lock_refresher.py", cwd=folder)
    by_place = {(f["filename"].removeprefix("./"), f["location"]["row"]): f for f in findings}
    cache = by_place[("bad_thread_shares_cache.py", 56)]["message"]
    assert "runs a method of the `PageCache`" in cache and "module lock" not in cache
    assert "module lock `_lock`" in by_place[("bad_module_lock_refresher.py", 24)]["message"]
    started = by_place[("bad_thread_started_by_method.py", 47)]
    assert "runs a method of the `WarmCache`" in started["message"]
    notes = {(r["location"]["row"], r["message"]) for r in started["related"]}
    assert (25, "the thread starts here") in notes
