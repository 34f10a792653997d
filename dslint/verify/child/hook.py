"""Lazy import hook: patch a module when (and only when) the target imports it.

Importing torch eagerly would cost every process 1.5-2 s and change what the target does
before its own imports; a meta-path finder that wraps the loader of the few modules the
verifier patches costs nothing until one of them loads.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from typing import Callable, Dict


def _patch_dataloader(module) -> None:
    from . import patch

    patch.install(module)


def _patch_resource_tracker(module) -> None:
    from . import mptrack

    mptrack.install(module)


PATCHES: Dict[str, Callable] = {
    "torch.utils.data.dataloader": _patch_dataloader,
    "multiprocessing.resource_tracker": _patch_resource_tracker,
}


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner, patch: Callable):
        self.inner = inner
        self.patch = patch

    def __getattr__(self, name):  # get_code, is_package, resource readers...
        return getattr(self.inner, name)

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        self.patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        patch = PATCHES.get(fullname)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, patch)
                return spec
        return None


def install() -> None:
    for name, patch in PATCHES.items():
        if name in sys.modules:  # already imported (e.g. by a chained sitecustomize)
            patch(sys.modules[name])
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
