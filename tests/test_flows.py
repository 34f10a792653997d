"""Issue 10's flows: hazards spread over functions, attributes, configs and files are found,
with the places that make them true shown beside them; their look-alikes stay silent.

Each ``fixtures/flows/<name>/EXPECTED`` lists ``path:row CODE`` for every finding of the
default rules (so every other file there, the ``ok_*`` look-alikes, must be silent),
optionally followed by ``| path:row, ...``: places that must be among its related locations.
"""

from __future__ import annotations

import json

import pytest

from .conftest import FIXTURES, lint_json, run_cli

FLOWS = sorted(p.parent for p in (FIXTURES / "flows").glob("*/EXPECTED"))


def _expected(repo):
    out = []
    for line in (repo / "EXPECTED").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, _, related = line.partition("|")
        out.append((head.strip(), {r.strip() for r in related.split(",") if r.strip()}))
    return sorted(out, key=lambda item: item[0])


def _got(repo):
    out = []
    for item in lint_json(".", cwd=repo):
        head = f"{item['filename'].removeprefix('./')}:{item['location']['row']} {item['code']}"
        places = {f"{r['filename'].removeprefix('./')}:{r['location']['row']}" for r in item["related"]}
        out.append((head, places))
    return sorted(out, key=lambda item: item[0])


@pytest.mark.parametrize("repo", FLOWS, ids=[r.name for r in FLOWS])
def test_flow_repo(repo):
    expected, got = _expected(repo), _got(repo)
    assert [head for head, _ in got] == [head for head, _ in expected]
    for (head, places), (_, wanted) in zip(got, expected):
        assert wanted <= places, f"{head}: missing related {sorted(wanted - places)} (has {sorted(places)})"


def test_each_pass_moves_its_own_loop_batch():
    """Two loops reusing ``images, targets``: a copy in the second pass is of the second
    loader's batch (the first pass's bindings end where the second loop binds the names
    again), in a comprehension over a field too; the message names that loader alone."""
    found = {item["location"]["row"]: item for item in lint_json(".", cwd=FIXTURES / "flows" / "loop_targets")}
    assert sorted(found) == [6, 9]  # one finding per loop: its other copy is a related location
    for row, loader, other in ((6, "train.py:7", "epochs.py:7"), (9, "train.py:8", "epochs.py:10")):
        assert f"loader ({loader})" in found[row]["message"], found[row]["message"]
        related = {f"{r['filename']}:{r['location']['row']}" for r in found[row]["related"]}
        assert related & {"train.py:7", "train.py:8"} == {loader}
        assert other in related


def test_related_locations_in_text_sarif_and_flake8():
    repo = FIXTURES / "flows" / "defaults_configs"
    text = run_cli("check", "--no-cache", ".", cwd=repo).stdout
    assert "= because:" in text
    assert "config.py:7:24: default of field `num_workers`" in text
    assert "7 | num_workers: int = 0" in text

    sarif = json.loads(run_cli("check", "--no-cache", "--output-format", "sarif", ".", cwd=repo).stdout)
    result = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "DSL201")
    places = [(loc["physicalLocation"]["artifactLocation"]["uri"], loc["physicalLocation"]["region"]["startLine"])
              for loc in result["relatedLocations"]]
    assert ("config.py", 7) in places
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert flow[-1]["location"]["physicalLocation"]["region"]["startLine"] == 15  # the finding (the DataLoader call) ends the flow

    github = run_cli("check", "--no-cache", "--output-format", "github", ".", cwd=repo).stdout
    assert "see datamodule.py:15" in github or "config.py:7" in github


def test_related_locations_in_flake8_message():
    pytest.importorskip("flake8")
    import subprocess
    import sys

    repo = FIXTURES / "flows" / "defaults_configs"
    result = subprocess.run([sys.executable, "-m", "flake8", "--select", "DSL", "."], cwd=repo,
                            capture_output=True, text=True)
    line = next(l for l in result.stdout.splitlines() if "DSL201" in l)
    assert "(see " in line and "config.py:7: default of field `num_workers`" in line


def test_refined_store_read_where_a_property_and_its_setter_share_a_name(lint_snippet):
    """A getter and its setter are two functions with one qualified name (the model keeps the
    getter's summary): whether a store in the setter is refined later is judged in the
    function holding it (this crashed on Lightning's ``Trainer.logger``); the raw batch the
    setter stores stays visible to ``use()``."""
    code = '''
        import torch
        from torch.utils.data import DataLoader, TensorDataset


        class Holder:
            def __init__(self, loader):
                self.loader = iter(loader)
                self._batch = None

            @property
            def batch(self):
                return self._batch

            @batch.setter
            def batch(self, value):
                if value is None:
                    self._batch = next(self.loader)
                else:
                    self._batch = value

            def use(self):
                return self._batch.cuda()


        def main():
            loader = DataLoader(TensorDataset(torch.zeros(8, 2)), num_workers=2, pin_memory=True)
            holder = Holder(loader)
            holder.batch = None
            holder.use()


        if __name__ == "__main__":
            main()
    '''
    assert [code for code, _ in lint_snippet(code)] == ["DSL301"]


def test_opencv_through_a_helper_module_is_reported_where_cv2_is_imported():
    """The dataset's module imports no cv2: the finding (and its fix) go to the helper module
    that does, naming its import line; numpy calls on what OpenCV returned are no OpenCV calls."""
    repo = FIXTURES / "rules" / "DSL103"
    found = [f for f in lint_json(".", cwd=repo) if f["filename"].endswith("augment.py")]
    assert len(found) == 1
    item = found[0]
    assert "(cv2 imported at line 2)" in item["message"]
    assert item["fix"] is not None and "cv2.setNumThreads(0)" in item["fix"]["edits"][0]["content"]
    called = [r for r in item["related"] if r["message"] == "OpenCV called in worker code"]
    assert [(r["filename"].removeprefix("./"), r["location"]["row"]) for r in called] == [("yolo/augment.py", 9)]


def test_config_file_named_on_the_command_line(tmp_path):
    """``Config.fromfile(args.config)``: the run reads one of the project's config files, so a
    debug config giving zero workers makes the persistent loader raise; without that config
    every file gives four workers and nothing is reported."""
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "flows" / "config_files", repo)
    assert [(f["filename"], f["code"]) for f in lint_json(".", cwd=repo)] == [("detlite/builder.py", "DSL201")]
    (repo / "configs" / "debug_1gpu.py").unlink()
    assert lint_json(".", cwd=repo) == []
