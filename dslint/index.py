"""The project index: facts that cross files, built once per run from all summaries.

Which classes are Datasets or DataLoaders (through project base classes in other files),
which modules a module imports at import time, and which functions are used as
``worker_init_fn``. Lookups accept the many spellings of one module: ``data.datasets``
also matches ``src.data.datasets`` and a class re-exported by a package ``__init__``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from .analysis import names
from .analysis.model import ClassFacts, FunctionFacts, LoaderSite, ModuleSummary


class ProjectIndex:
    def __init__(
        self,
        summaries: Iterable[ModuleSummary],
        lazy_imports: Optional[Dict[str, Callable[[], Tuple[str, ...]]]] = None,
    ):
        self.modules: Dict[str, ModuleSummary] = {}
        self.classes: Dict[str, Tuple[ClassFacts, ModuleSummary]] = {}
        self.classes_by_name: Dict[str, List[str]] = defaultdict(list)
        self.functions: Dict[str, FunctionFacts] = {}
        self.sites: List[Tuple[LoaderSite, ModuleSummary]] = []
        self._lazy_imports = lazy_imports or {}
        for summary in summaries:
            self.modules[summary.module] = summary
            for facts in summary.classes:
                self.classes[facts.qualname] = (facts, summary)
                self.classes_by_name[facts.name].append(facts.qualname)
            for name, function in summary.functions.items():
                self.functions[f"{summary.module}.{name}"] = function
            for site in summary.loaders:
                self.sites.append((site, summary))
        self._module_names = set(self.modules) | set(self._lazy_imports)
        self._dataset_memo: Dict[str, bool] = {}
        self._loader_memo: Dict[str, bool] = {}

    # modules ----------------------------------------------------------------
    def find_module(self, name: str) -> Optional[str]:
        if name in self._module_names:
            return name
        suffix = "." + name
        matches = [m for m in self._module_names if m.endswith(suffix)]
        return min(matches, key=len) if matches else None

    def imports_of(self, module: str) -> Tuple[str, ...]:
        summary = self.modules.get(module)
        if summary is not None:
            return summary.imports
        lazy = self._lazy_imports.get(module)
        return lazy() if lazy is not None else ()

    def import_closure(self, module: str) -> Set[str]:
        """Project modules executed when ``module`` is imported (parents packages too)."""
        seen: Set[str] = set()
        todo = [module]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            parts = current.split(".")
            for i in range(1, len(parts)):
                parent = self.find_module(".".join(parts[:i]))
                if parent and parent not in seen:
                    todo.append(parent)
            for imported in self.imports_of(current):
                found = self.find_module(imported)
                if found and found not in seen:
                    todo.append(found)
        return seen

    # classes ----------------------------------------------------------------
    def find_class(self, qualname: Optional[str]) -> Optional[Tuple[ClassFacts, ModuleSummary]]:
        if not qualname:
            return None
        if qualname in self.classes:
            return self.classes[qualname]
        suffix = "." + qualname
        matches = [q for q in self.classes if q.endswith(suffix)]
        if len(matches) == 1:
            return self.classes[matches[0]]
        # a class re-exported by a package: ``from data import MyDataset``
        prefix, _, name = qualname.rpartition(".")
        candidates = self.classes_by_name.get(name, [])
        if len(candidates) == 1 and prefix and self.find_module(prefix):
            return self.classes[candidates[0]]
        return None

    def is_dataset(self, qualname: Optional[str]) -> bool:
        return self._inherits(qualname, names.is_dataset_base, self._dataset_memo)

    def is_loader_class(self, qualname: Optional[str]) -> bool:
        return self._inherits(qualname, lambda q: q in names.LOADERS, self._loader_memo)

    def _inherits(self, qualname, is_root, memo, depth: int = 0) -> bool:
        if not qualname or depth > 12:
            return False
        if is_root(qualname):
            return True
        if qualname in memo:
            return memo[qualname]
        memo[qualname] = False  # cycle guard
        found = self.find_class(qualname)
        result = False
        if found is not None:
            result = any(self._inherits(base, is_root, memo, depth + 1) for base in found[0].bases)
        memo[qualname] = result
        return result

    # loaders ----------------------------------------------------------------
    def is_loader_site(self, site: LoaderSite) -> bool:
        return site.known_loader or self.is_loader_class(site.callee)

    def loader_sites(self) -> Iterable[Tuple[LoaderSite, ModuleSummary]]:
        return ((site, summary) for site, summary in self.sites if self.is_loader_site(site))

    def sites_for_dataset(self, class_qualname: str) -> List[Tuple[LoaderSite, ModuleSummary]]:
        result = []
        for site, summary in self.loader_sites():
            found = self.find_class(site.dataset_class)
            if found is not None and found[0].qualname == class_qualname:
                result.append((site, summary))
        return result

    def function(self, qualname: Optional[str]) -> Optional[FunctionFacts]:
        if not qualname:
            return None
        if qualname in self.functions:
            return self.functions[qualname]
        suffix = "." + qualname
        matches = [q for q in self.functions if q.endswith(suffix)]
        return self.functions[matches[0]] if len(matches) == 1 else None

    def worker_init_functions(self) -> List[FunctionFacts]:
        found = []
        for site, _ in self.loader_sites():
            function = self.function(site.worker_init_fn)
            if function is not None:
                found.append(function)
        return found
