"""Engine behaviour on real files: name resolution, worker counts, cross-file facts."""

from __future__ import annotations

import textwrap

import pytest

from .conftest import FIXTURES

LOOP = """
def main():
    for batch in loader:
        pass
"""


@pytest.mark.parametrize(
    "imports,call",
    [
        ("from torch.utils.data import DataLoader", "DataLoader"),
        ("from torch.utils.data import DataLoader as DL", "DL"),
        ("from torch.utils.data.dataloader import DataLoader as DL", "DL"),
        ("import torch.utils.data as tud", "tud.DataLoader"),
        ("import torch", "torch.utils.data.DataLoader"),
        ("from torch.utils import data", "data.DataLoader"),
    ],
)
def test_dataloader_is_recognised_however_imported(lint_snippet, imports, call):
    code = f"{imports}\n\ndef main(ds):\n    return {call}(ds, num_workers=0, persistent_workers=True)\n"
    assert lint_snippet(code) == [("DSL201", 4)]


def test_local_name_called_dataloader_is_not_a_loader(lint_snippet):
    code = """
    def DataLoader(*args, **kwargs):
        return args

    def main(ds):
        return DataLoader(ds, persistent_workers=True)
    """
    assert lint_snippet(code) == []


def test_try_except_import_fallback_is_deterministic(lint_snippet):
    code = """
    try:
        from torch.utils.data import DataLoader
    except ImportError:
        DataLoader = None

    def main(ds):
        return DataLoader(ds, persistent_workers=True)
    """
    assert lint_snippet(code) == [("DSL201", 8)]


@pytest.mark.parametrize(
    "workers,fires",
    [
        ("0", True),
        ("4", False),
        ("os.cpu_count()", False),
        ("min(8, os.cpu_count())", False),
        ("WORKERS", False),  # module constant 4
        ("ZERO", True),  # module constant 0
        ("args.workers", False),  # unknown: the user's choice
        ("0 if sys.platform == 'win32' else 8", True),  # the zero branch counts
        ("8 if fast else 2", False),
    ],
)
def test_persistent_workers_three_valued_workers(lint_snippet, workers, fires):
    code = f"""
    import os, sys
    from torch.utils.data import DataLoader
    WORKERS = 4
    ZERO = 0

    def main(ds, args, fast):
        return DataLoader(ds, num_workers={workers}, persistent_workers=True)
    """
    assert bool(lint_snippet(code)) is fires


def test_literal_kwargs_dict_is_resolved(lint_snippet):
    code = """
    from torch.utils.data import DataLoader

    def main(ds):
        kwargs = dict(batch_size=8, persistent_workers=True)
        return DataLoader(ds, **kwargs)
    """
    assert lint_snippet(code) == [("DSL201", 5)]  # at the keyword, inside dict(...)


def test_unresolved_kwargs_make_workers_unknown(lint_snippet):
    code = """
    from torch.utils.data import DataLoader

    def main(ds, loader_kwargs):
        return DataLoader(ds, persistent_workers=True, **loader_kwargs)
    """
    assert lint_snippet(code) == []


def test_partial_of_dataloader_is_a_loader(lint_snippet):
    code = """
    import functools
    from torch.utils.data import DataLoader

    make_loader = functools.partial(DataLoader, num_workers=4)

    def main(ds):
        return make_loader(ds, collate_fn=lambda b: b)
    """
    assert lint_snippet(code) == [("DSL102", 8)]


def test_project_subclass_across_files(tmp_path, lint_snippet):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "loaders.py").write_text(
        "from torch.utils.data import DataLoader\n\nclass FastLoader(DataLoader):\n    pass\n"
    )
    code = """
    from pkg.loaders import FastLoader

    def main(ds):
        return FastLoader(ds, num_workers=2, collate_fn=lambda b: b)
    """
    lint_snippet(code, name="train.py")
    from dslint import config, engine

    result = engine.run([str(tmp_path)], config.Settings(root=str(tmp_path), select=["DSL"]))
    assert [(f.code, f.path.endswith("train.py"), f.row) for f in result.findings] == [("DSL102", True, 5)]


def test_dataset_class_from_another_module(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "__init__.py").write_text("from .base import Base\n")
    (tmp_path / "data" / "base.py").write_text(
        "from torch.utils.data import Dataset\n\nclass Base(Dataset):\n    pass\n"
    )
    (tmp_path / "data" / "video.py").write_text(
        textwrap.dedent(
            """
            import cv2
            from data import Base

            class Frames(Base):
                def __init__(self, path):
                    self.cap = cv2.VideoCapture(path)

                def __getitem__(self, i):
                    cv2.setNumThreads(0)
                    return self.cap.read()
            """
        )
    )
    from dslint import config, engine

    result = engine.run([str(tmp_path)], config.Settings(root=str(tmp_path), select=["DSL"]))
    assert [(f.code, f.row) for f in result.findings] == [("DSL104", 7)]


def test_nested_function_with_closure_is_reported_at_hand_over(lint_snippet):
    code = """
    from torch.utils.data import DataLoader

    def main(ds, pad):
        def collate(batch):
            return pad(batch)
        loader = DataLoader(ds, num_workers=2, collate_fn=collate)
        return loader
    """
    assert lint_snippet(code) == [("DSL102", 7)]


def test_module_level_loop_reports_at_loader(lint_snippet):
    code = """
    from torch.utils.data import DataLoader
    loader = DataLoader(range(10), num_workers=2)
    for batch in loader:
        pass
    """
    assert lint_snippet(code) == [("DSL101", 3)]


def test_guarded_module_level_loop_is_fine(lint_snippet):
    code = """
    from torch.utils.data import DataLoader
    if __name__ == "__main__":
        loader = DataLoader(range(10), num_workers=2)
        for batch in loader:
            pass
    """
    assert lint_snippet(code) == []


def test_transitive_call_chain_reports_at_call(lint_snippet):
    code = """
    import torch.multiprocessing as mp

    def worker(rank):
        pass

    def launch():
        mp.spawn(worker, nprocs=2)

    def main():
        launch()

    main()
    """
    assert lint_snippet(code) == [("DSL101", 13)]


def test_pin_memory_moves_in_helper_function(lint_snippet):
    code = """
    import torch
    from torch.utils.data import DataLoader

    def train_one_epoch(model, data_loader, device):
        for images, targets in data_loader:
            images = images.to(device)
            targets = [t.to(device, non_blocking=True) for t in targets]
            model(images)

    def main(ds, model, device):
        loader = DataLoader(ds, num_workers=2, pin_memory=torch.cuda.is_available())
        train_one_epoch(model, loader, device)
    """
    assert lint_snippet(code) == [("DSL301", 7)]


def test_columns_count_characters_not_bytes(lint_snippet, tmp_path):
    code = 'from torch.utils.data import DataLoader\n\ndef main(ds):\n    é = "ü"; return DataLoader(ds, persistent_workers=True)\n'
    path = tmp_path / "u.py"
    path.write_text(code, encoding="utf-8")
    from dslint import config, engine

    findings = engine.run([str(path)], config.Settings(root=str(tmp_path), select=["DSL"])).findings
    assert [(f.row, f.col) for f in findings] == [(4, code.splitlines()[3].index("persistent") + 1)]


def test_a_boundary_model_is_freed_without_the_cyclic_collector(monkeypatch):
    """A run pauses the cyclic garbage collector, so whatever the resolver refers to must not
    refer back to it: one boundary's model (the resolver and its memo, hundreds of MB on a
    large project) is freed by reference counting as soon as its rules have run."""
    import gc
    import weakref

    from dslint import api
    from dslint.model import resolver as resolver_module

    made = []
    original = resolver_module.Resolver.__init__

    def remember(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(weakref.ref(self))

    monkeypatch.setattr(resolver_module.Resolver, "__init__", remember)
    fixture = str(FIXTURES / "libraries" / "ignite_project")
    collecting = gc.isenabled()
    gc.disable()
    try:
        findings = api.lint_paths([fixture], select=("DSL",), cache=False)
        assert findings, "the fixture's findings need the engines index the resolver holds"
        assert made and all(ref() is None for ref in made)
    finally:
        if collecting:
            gc.enable()
