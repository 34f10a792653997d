"""Each project boundary is analysed on its own: what one project gets never depends on the
other projects linted in the same run, nor on whether workers shared the boundaries."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dslint import boundaries, config, engine, parallel

FACTORY = """\
from torch.utils.data import DataLoader


def make(dataset, workers):
    return DataLoader(dataset, num_workers=workers, persistent_workers=True)


def main(dataset):
    for batch in make(dataset, 0):
        print(batch)
"""


def _project(root: Path, files: dict) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    return root


def _crowded(root: Path) -> Path:
    """Another project calling a ``make`` of its own from more places than the caller search
    follows (``model.resolver.MAX_CANDIDATES``): linted in one model with the first project,
    the callers of the first project's ``make`` would be unknown."""
    calls = "\n".join(f"    make({i})" for i in range(60))
    return _project(root, {"busy.py": f"from torch.utils.data import Dataset\n\n\ndef make(x):\n    return x\n\n\n"
                                      f"def run():\n{calls}\n"})


def _findings(paths, root: Path, jobs=None):
    settings = config.Settings(root=str(root), jobs=jobs, cache=False)
    result = engine.run([str(p) for p in paths], settings)
    return sorted((Path(f.path).name, f.code, f.row) for f in result.findings)


def test_a_project_gets_the_same_findings_alone_and_beside_another(tmp_path):
    first = _project(tmp_path / "first", {"train.py": FACTORY})
    other = _crowded(tmp_path / "other")
    alone = _findings([first], tmp_path)
    assert ("train.py", "DSL201", 5) in alone  # zero workers passed by the only caller
    together = _findings([first, other], tmp_path)
    assert [f for f in together if f[0] == "train.py"] == alone


@pytest.mark.skipif(not parallel.FORK, reason="workers are forked")
def test_boundaries_shared_with_workers_give_the_serial_answer(tmp_path, monkeypatch):
    projects = [_project(tmp_path / f"p{i}", {"train.py": FACTORY}) for i in range(3)]
    projects.append(_crowded(tmp_path / "other"))
    serial = _findings(projects, tmp_path, jobs=1)
    assert [f for f in serial if f[1] == "DSL201"] == [("train.py", "DSL201", 5)] * 3
    started = []
    real_map = parallel.map_shared

    def spy(function, chunks, workers, done=None, tuple_types=()):
        started.append(workers)
        return real_map(function, chunks, workers, done, tuple_types)

    monkeypatch.setattr(parallel, "PARSE_BYTES_PER_WORKER", 1)  # small projects: workers anyway
    monkeypatch.setattr(parallel, "idle_cores", lambda since: None)
    monkeypatch.setattr(parallel, "map_shared", spy)
    monkeypatch.setattr(boundaries, "cap_jobs", lambda jobs, tasks: 2)
    assert _findings(projects, tmp_path, jobs=2) == serial
    assert started and max(started) >= 1, started  # the boundaries really went to a worker
