"""YAML configuration files as plain data: the subset read, what it refuses, and that a file
is read only inside the project (a linted tree is untrusted)."""

from __future__ import annotations

import json
import os

import pytest

from dslint.model import yamlconfig

from .conftest import run_cli

CONFIG = """\
# comments and blank lines are skipped
defaults:
  - data: small
  - _self_

data:
  root: "/data/x"   # a quoted string
  num_workers: 0
  pin_memory: yes
  size: [512, 1024]
  ratio: 1.5e-3
  cache: ~
  pf: ${data.other}
optim: {lr: 0.1, name: adam}
"""


def _plain(entry):
    value = entry.value
    if isinstance(value, dict):
        return {key: _plain(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_plain(child) for child in value]
    return "UNKNOWN" if value is yamlconfig.UNKNOWN else value


def test_the_subset_training_configs_use():
    document = yamlconfig.parse(CONFIG)
    assert _plain(document) == {
        "defaults": [{"data": "small"}, "_self_"],
        "data": {"root": "/data/x", "num_workers": 0, "pin_memory": True, "size": [512, 1024], "ratio": 1.5e-3,
                 "cache": None, "pf": "UNKNOWN"},
        "optim": {"lr": 0.1, "name": "adam"},
    }
    assert document.value["data"].value["num_workers"].row == 8


def test_a_list_of_mappings():
    """``- name: a`` with the item's other keys below it (tasks, datasets, transforms)."""
    text = "tasks:\n  - name: a\n    size: 64\n    extra:\n      k: 1\n  - name: b\n    size: 16\n  - plain\nworkers: 6\n"
    assert _plain(yamlconfig.parse(text)) == {
        "tasks": [{"name": "a", "size": 64, "extra": {"k": 1}}, {"name": "b", "size": 16}, "plain"],
        "workers": 6,
    }


@pytest.mark.parametrize("text", ["a: &anchor 1\nb: *anchor\n", "a: !!python/object x\n", "a: |\n  text\n",
                                  "a: 1\n---\nb: 2\n", "a:\n\t b: 1\n", "- a\nb: 1\n",
                                  "a:\n  - q\n    r: 1\n", "a:\n  - x: 1\n     y: 2\n"])
def test_yaml_outside_the_subset_is_unknown(text):
    assert yamlconfig.parse(text) is None


def _project(tmp_path, config_text, config_path="configs/train.yaml"):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    path = tmp_path / config_path
    path.parent.mkdir(parents=True, exist_ok=True)
    if config_text is not None:
        path.write_text(config_text)
    (tmp_path / "train.py").write_text(
        "from omegaconf import OmegaConf\nfrom torch.utils.data import DataLoader\n\n\n"
        "def main(ds):\n"
        f"    cfg = OmegaConf.load({config_path!r})\n"
        "    return DataLoader(ds, num_workers=cfg.workers, persistent_workers=True)\n")
    return tmp_path


def _codes(tmp_path):
    result = run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    return [item["code"] for item in json.loads(result.stdout)]


def test_a_zero_in_the_file_is_the_default_the_program_runs_with(tmp_path):
    assert _codes(_project(tmp_path, "workers: 0\n")) == ["DSL201"]
    (tmp_path / "configs" / "train.yaml").write_text("workers: 4\n")
    assert _codes(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_config_reached_through_a_link_out_of_the_project_is_not_read(tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text("workers: 0\n")
    project = _project(tmp_path / "project", None)
    os.symlink(outside, project / "configs" / "train.yaml")
    assert _codes(project) == []  # unknown workers: nothing to say


def test_a_cached_run_is_redone_when_the_config_file_changes(tmp_path):
    project = _project(tmp_path, "workers: 0\n")

    def cached():
        result = run_cli("check", "--output-format", "json", ".", cwd=project)
        assert result.returncode in (0, 1), result.stderr
        return [item["code"] for item in json.loads(result.stdout)]

    assert cached() == ["DSL201"]
    assert cached() == ["DSL201"]  # warm: the findings are reused
    (project / "configs" / "train.yaml").write_text("workers: 4\n")
    assert cached() == []  # no Python file changed, the configuration did


def test_an_edit_to_an_unread_file_still_reuses_a_run_that_looked_for_configs(tmp_path):
    """A hydra app makes the analysis look for `conf/config` with and without `.yaml`, and a
    script loads a JSON file through `yaml.safe_load`: only YAML files are recorded, so an
    edit to a file the analysis never read reuses the findings (nothing is parsed)."""
    from dslint import config, engine

    project = _project(tmp_path, "workers: 0\n")
    (project / "conf").mkdir()
    (project / "conf" / "config.yaml").write_text("workers: 2\n")
    (project / "app.py").write_text(
        "import hydra\nimport yaml\nfrom torch.utils.data import DataLoader\n\n\n"
        "@hydra.main(config_path='conf', config_name='config')\n"
        "def main(cfg):\n"
        "    extra = yaml.safe_load(open('extra.json'))\n"
        "    for batch in DataLoader(range(4), num_workers=cfg.workers, prefetch_factor=extra['pf']):\n"
        "        print(batch)\n")
    (project / "notes.py").write_text("x = 1\n")

    def lint():
        settings = config.Settings(root=str(project), cache=True, select=["DSL"], jobs=1)
        return engine.run([str(project)], settings)

    first = lint()
    assert first.parsed > 0 and [f.code for f in first.findings] == ["DSL201"]
    (project / "notes.py").write_text("x = 2  # nothing dslint looks for\n")
    again = lint()
    assert again.parsed == 0 and again.findings == first.findings
