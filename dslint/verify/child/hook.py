"""Lazy import hook: patch DataLoader when (and only when) the target imports it.

Importing torch eagerly would cost every process 1.5-2 s and change what the target does
before its own imports; a meta-path finder that wraps the loader of
``torch.utils.data.dataloader`` costs nothing until that module loads.
"""

from __future__ import annotations

import importlib.abc
import sys

TARGET = "torch.utils.data.dataloader"


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):  # get_code, is_package, resource readers...
        return getattr(self.inner, name)

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        from . import patch

        patch.install(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


def install() -> None:
    if TARGET in sys.modules:  # already imported (e.g. by a chained sitecustomize)
        from . import patch

        patch.install(sys.modules[TARGET])
        return
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
