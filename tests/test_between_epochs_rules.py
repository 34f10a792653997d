"""Issue 17, part B: what the main process does between steps and epochs (DSL304 fresh
iterators, DSL404 changes persistent workers never see, DSL406 DDP without a sampler that
splits by rank). Each rule fires where its parts are proven and stays silent on the
look-alikes the issue lists; the real CLI, the flake8 plugin and SARIF carry them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dslint import catalogue

from .conftest import FIXTURES, lint_json, run_cli

CODES = ("DSL304", "DSL404", "DSL406")


@pytest.mark.parametrize("code", CODES)
def test_rule_has_fixtures_that_fire_and_look_alikes(code):
    folder = FIXTURES / "rules" / code
    expected = [line for line in (folder / "EXPECTED").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert expected and all(line.endswith(code) for line in expected)
    assert any(p.name.startswith("ok") for p in folder.glob("*.py")), "needs a look-alike"
    found = lint_json("--select", code, ".", cwd=folder)
    assert {f["code"] for f in found} == {code}
    assert all(f["filename"].removeprefix("./").startswith("bad") for f in found)


@pytest.mark.parametrize("code", CODES)
def test_on_by_default_and_listed(code):
    rule = catalogue.RULES[code]
    assert rule.default is True and rule.fix is None
    listed = run_cli("rules").stdout
    assert code in listed and rule.name in listed
    assert rule.name in run_cli("rule", code).stdout


def test_sarif_and_flake8_carry_the_new_rules():
    folder = FIXTURES / "rules" / "DSL406"
    sarif = json.loads(run_cli("check", "--no-cache", "--output-format", "sarif", ".", cwd=folder).stdout)
    run = sarif["runs"][0]
    assert {"DSL304", "DSL404", "DSL406"} <= {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    result = next(r for r in run["results"] if r["ruleId"] == "DSL406")
    notes = [loc["message"]["text"] for loc in result["relatedLocations"]]
    assert any("wrapped in `DistributedDataParallel`" in n for n in notes) and result["codeFlows"]
    pytest.importorskip("flake8")
    out = subprocess.run([sys.executable, "-m", "flake8", "--select", "DSL4", "."], cwd=FIXTURES / "rules" / "DSL404",
                         capture_output=True, text=True).stdout
    assert "bad_set_epoch.py:29:9: DSL404" in out and "`self.epoch` assigned here" in out


HEADER = "import torch\nfrom torch.utils.data import DataLoader, Dataset, TensorDataset\n"


@pytest.mark.parametrize(
    "body,rows",
    [
        # a new iterator and one batch per pass: fires
        ("def f(ds):\n    loader = DataLoader(ds, num_workers=2)\n    for _ in range(9):\n"
         "        next(iter(loader))\n", [6]),
        # unknown workers: unknown stays unknown
        ("def f(ds, workers):\n    loader = DataLoader(ds, num_workers=workers)\n    for _ in range(9):\n"
         "        next(iter(loader))\n", []),
        # persistent or not, a new iterator throws the prefetched batches away: fires either way
        ("def f(ds, keep):\n    loader = DataLoader(ds, num_workers=2, persistent_workers=keep)\n"
         "    for _ in range(9):\n        next(iter(loader))\n", [6]),
        ("def f(ds):\n    loader = DataLoader(ds, num_workers=2, persistent_workers=True)\n"
         "    for _ in range(9):\n        next(iter(loader))\n", [6]),
        # a loop over loaders, a loader built on each pass
        ("def f(ds):\n    a = DataLoader(ds, num_workers=2)\n    b = DataLoader(ds, num_workers=2)\n"
         "    for loader in (a, b):\n        next(iter(loader))\n", []),
        ("def f(ds):\n    for _ in range(9):\n        loader = DataLoader(ds, num_workers=2)\n"
         "        next(iter(loader))\n", []),
        # kept and drained: made per epoch, read by an inner loop; made again only when exhausted
        ("def f(ds):\n    loader = DataLoader(ds, num_workers=2)\n    for _ in range(9):\n"
         "        it = iter(loader)\n        while True:\n            try:\n                next(it)\n"
         "            except StopIteration:\n                break\n", []),
        ("def f(ds):\n    loader = DataLoader(ds, num_workers=2)\n    it = iter(loader)\n    while True:\n"
         "        try:\n            batch = next(it)\n        except StopIteration:\n            it = iter(loader)\n", []),
    ],
)
def test_fresh_iterator_precision(lint_snippet, body, rows):
    found = [row for code, row in lint_snippet(HEADER + body, select=("DSL304",))]
    assert found == rows


DATASET = (
    "class D(Dataset):\n    def __init__(self):\n        self.epoch = 0\n        self.calls = 0\n"
    "    def set_epoch(self, e):\n        self.epoch = e\n    def count(self):\n        self.calls += 1\n"
    "    def __len__(self):\n        return 8\n    def __getitem__(self, i):\n        return self.epoch\n"
)


@pytest.mark.parametrize(
    "body,rows",
    [
        ("def f(keep=True):\n    ds = D()\n    loader = DataLoader(ds, num_workers=2, persistent_workers=keep)\n"
         "    for e in range(3):\n        ds.set_epoch(e)\n        for b in loader:\n            pass\n", [19]),
        # persistence unknown (a parameter nobody sets has its default: here, none)
        ("def f(keep):\n    ds = D()\n    loader = DataLoader(ds, num_workers=2, persistent_workers=keep)\n"
         "    for e in range(3):\n        ds.set_epoch(e)\n        for b in loader:\n            pass\n", []),
        # an attribute the workers never read, and a change made once before the first epoch
        ("def f():\n    ds = D()\n    loader = DataLoader(ds, num_workers=2, persistent_workers=True)\n"
         "    ds.set_epoch(5)\n    for e in range(3):\n        ds.count()\n        ds.calls = e\n"
         "        for b in loader:\n            pass\n", []),
        # zero workers: DSL201's business, not this rule's
        ("def f():\n    ds = D()\n    loader = DataLoader(ds, persistent_workers=True)\n"
         "    for e in range(3):\n        ds.set_epoch(e)\n        for b in loader:\n            pass\n", []),
    ],
)
def test_stale_dataset_precision(lint_snippet, body, rows):
    found = [row for code, row in lint_snippet(HEADER + DATASET + body, select=("DSL404",))]
    assert found == rows


DDP_HEADER = HEADER + (
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "from torch.utils.data import RandomSampler, Sampler\n"
    "from torch.utils.data.distributed import DistributedSampler\n"
    "import torch.distributed as dist\n"
)
TRAIN = ("def train(model, loader, opt):\n    for x, y in loader:\n        model(x).sum().backward()\n"
         "        opt.step()\n")


@pytest.mark.parametrize(
    "body,rows",
    [
        ("def f(opt):\n    ds = TensorDataset(torch.randn(8, 2))\n"
         "    train(DDP(torch.nn.Linear(2, 1)), DataLoader(ds, shuffle=True), opt)\n", [13]),
        ("def f(opt):\n    ds = TensorDataset(torch.randn(8, 2))\n    m = DDP(torch.nn.Linear(2, 1))\n"
         "    train(m, DataLoader(ds, sampler=RandomSampler(ds)), opt)\n", [14]),
        # a dataset the model cannot see (a parameter nobody passes): unknown stays unknown
        ("def f(ds, opt):\n    train(DDP(torch.nn.Linear(2, 1)), DataLoader(ds, shuffle=True), opt)\n", []),
        # a DistributedSampler among the possibilities, a rank-aware or unknown sampler
        ("def f(ds, opt, distributed):\n    s = DistributedSampler(ds) if distributed else None\n"
         "    train(DDP(torch.nn.Linear(2, 1)), DataLoader(ds, sampler=s), opt)\n", []),
        ("class S(Sampler):\n    def __iter__(self):\n        return iter(range(dist.get_rank(), 8, 2))\n"
         "def f(ds, opt):\n    train(DDP(torch.nn.Linear(2, 1)), DataLoader(ds, sampler=S()), opt)\n", []),
        ("def f(ds, opt, sampler):\n    train(DDP(torch.nn.Linear(2, 1)), DataLoader(ds, sampler=sampler), opt)\n", []),
        # data sliced by rank before the dataset is built (a slice, through a parameter)
        ("def f(x, opt):\n    r, w = dist.get_rank(), dist.get_world_size()\n"
         "    ds = TensorDataset(x[r::w])\n    train(DDP(torch.nn.Linear(2, 1)), DataLoader(ds), opt)\n", []),
        ("def build(files):\n    return TensorDataset(files)\n"
         "def f(x, opt):\n    ds = build(x[dist.get_rank()::2])\n"
         "    train(DDP(torch.nn.Linear(2, 1)), DataLoader(ds), opt)\n", []),
        # no training in the loop: evaluation on every rank
        ("def evaluate(model, loader):\n    for x, y in loader:\n        model(x)\n"
         "def f(ds):\n    evaluate(DDP(torch.nn.Linear(2, 1)), DataLoader(ds))\n", []),
        # no distributed wrapper
        ("def f(ds, opt):\n    train(torch.nn.Linear(2, 1), DataLoader(ds, shuffle=True), opt)\n", []),
    ],
)
def test_ddp_sampler_precision(lint_snippet, body, rows):
    found = [row for code, row in lint_snippet(DDP_HEADER + TRAIN + body, select=("DSL406",))]
    assert found == rows


FLOWER_CLIENT = '''
import flwr as fl
import torch
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self):
        self.size = 64

    def grow(self, number):
        self.size = 64 * number

    def __len__(self):
        return 1024

    def __getitem__(self, index):
        return torch.zeros(self.size), index % 2


class Client(fl.client.NumPyClient):
    def __init__(self):
        self.data = Windows()
        self.loader = DataLoader(self.data, batch_size=8, num_workers=2, persistent_workers=True)

    def fit(self, parameters, config):
        self.data.grow(int(config["server_round"]))
        seen = 0
        for features, labels in self.loader:
            seen += len(labels)
        return parameters, seen, {}

    def evaluate(self, parameters, config):
        first = next(iter(self.loader))
        return 0.0, len(first[1]), {}


if __name__ == "__main__":
    fl.client.start_client(server_address="127.0.0.1:8080", client=Client().to_client())
'''


def test_methods_a_framework_repeats_name_who_calls_them(tmp_path):
    """A Flower client's ``fit`` runs once per round with the loader its ``__init__`` built: the
    change to the dataset there (DSL404) and the fresh iterator its ``evaluate`` takes (DSL304)
    say so."""
    (tmp_path / "client.py").write_text(FLOWER_CLIENT, encoding="utf-8")
    found = {item["code"]: item for item in lint_json("client.py", cwd=tmp_path)}
    assert sorted(found) == ["DSL304", "DSL404"]
    assert "between two calls of `fit` (Flower calls it once per round)" in found["DSL404"]["message"]
    assert found["DSL404"]["location"]["row"] == 27  # `self.data.grow(...)` in `fit`
    assert "in `Client.evaluate` (Flower calls it once per round)" in found["DSL304"]["message"]
