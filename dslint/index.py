"""The project index: facts that cross files, built once per run from all summaries.

Which classes are Datasets or DataLoaders (through project base classes in other files),
which modules a module imports at import time, and which functions are used as
``worker_init_fn``. Lookups accept the many spellings of one module: ``data.datasets``
also matches ``src.data.datasets``, and a class re-exported by a package ``__init__`` is
followed to its definition. Files the pre-filter skipped are summarised on demand, only
when a lookup needs them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from .analysis import names
from .analysis.model import ClassFacts, FunctionFacts, LoaderSite, ModuleSummary

LazySummary = Callable[[], Optional[ModuleSummary]]
LazyImports = Callable[[], Tuple[str, ...]]


class ProjectIndex:
    def __init__(
        self,
        summaries: Iterable[ModuleSummary],
        lazy: Optional[Dict[str, LazySummary]] = None,
        lazy_imports: Optional[Dict[str, LazyImports]] = None,
    ):
        self._lazy_imports: Dict[str, LazyImports] = dict(lazy_imports or {})
        self._closures: Dict[str, Set[str]] = {}
        self.modules: Dict[str, ModuleSummary] = {}
        self.classes: Dict[str, Tuple[ClassFacts, ModuleSummary]] = {}
        self.functions: Dict[str, FunctionFacts] = {}
        self.sites: List[Tuple[LoaderSite, ModuleSummary]] = []
        self._lazy: Dict[str, LazySummary] = dict(lazy or {})
        self._by_suffix: Dict[str, List[str]] = defaultdict(list)
        for module in self._lazy:
            self._add_suffixes(module)
        for summary in summaries:
            self.add(summary)
        self._dataset_memo: Dict[str, bool] = {}
        self._loader_memo: Dict[str, bool] = {}
        self._dataset_sites: Optional[Dict[str, List[Tuple[LoaderSite, ModuleSummary]]]] = None

    def add(self, summary: ModuleSummary, with_sites: bool = True) -> None:
        if summary.module not in self._lazy:
            self._add_suffixes(summary.module)
        self.modules[summary.module] = summary
        for facts in summary.classes:
            self.classes[facts.qualname] = (facts, summary)
        for name, function in summary.functions.items():
            self.functions[f"{summary.module}.{name}"] = function
        if with_sites:
            for site in summary.loaders:
                self.sites.append((site, summary))

    def _add_suffixes(self, module: str) -> None:
        parts = module.split(".")
        for i in range(len(parts)):
            self._by_suffix[".".join(parts[i:])].append(module)

    # modules ----------------------------------------------------------------
    def find_module(self, name: str) -> Optional[str]:
        """The project module ``name`` refers to (exact, else the shortest suffix match)."""
        matches = self._by_suffix.get(name)
        if not matches:
            return None
        if name in matches:
            return name
        return min(matches, key=len)

    def summary(self, module: Optional[str]) -> Optional[ModuleSummary]:
        if module is None:
            return None
        found = self.modules.get(module)
        if found is None and module in self._lazy:
            found = self._lazy.pop(module)()
            if found is not None:
                self.add(found, with_sites=False)
        return found

    def imports_of(self, module: str) -> Tuple[str, ...]:
        summary = self.modules.get(module)
        if summary is not None:
            return summary.imports
        lazy = self._lazy_imports.pop(module, None)
        if lazy is None:
            return ()
        imports = lazy()
        self._lazy_imports[module] = lambda: imports
        return imports

    def import_closure(self, module: str) -> Set[str]:
        """Project modules executed when ``module`` is imported (parent packages too)."""
        if module in self._closures:
            return self._closures[module]
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
        self._closures[module] = seen
        return seen

    # classes ----------------------------------------------------------------
    def find_class(self, qualname: Optional[str], depth: int = 0) -> Optional[Tuple[ClassFacts, ModuleSummary]]:
        if not qualname or depth > 4:
            return None
        if qualname in self.classes:
            return self.classes[qualname]
        prefix, _, name = qualname.rpartition(".")
        module = self.find_module(prefix) if prefix else None
        summary = self.summary(module)
        if summary is None:
            return None
        wanted = f"{summary.module}.{name}"
        if wanted in self.classes:
            return self.classes[wanted]
        # re-exported: ``from .datasets import MyDataset`` in a package __init__
        for imported in summary.imports:
            if imported.rpartition(".")[2] == name and imported != qualname:
                found = self.find_class(imported, depth + 1)
                if found is not None:
                    return found
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
        if self._dataset_sites is None:
            table: Dict[str, List[Tuple[LoaderSite, ModuleSummary]]] = defaultdict(list)
            for site, summary in self.loader_sites():
                found = self.find_class(site.dataset_class)
                if found is not None:
                    table[found[0].qualname].append((site, summary))
            self._dataset_sites = table
        return self._dataset_sites.get(class_qualname, [])

    def function(self, qualname: Optional[str]) -> Optional[FunctionFacts]:
        if not qualname:
            return None
        if qualname in self.functions:
            return self.functions[qualname]
        prefix, _, name = qualname.rpartition(".")
        summary = self.summary(self.find_module(prefix) if prefix else None)
        if summary is not None:
            return summary.functions.get(name)
        return None

    def worker_init_functions(self) -> List[FunctionFacts]:
        found = []
        for site, _ in self.loader_sites():
            function = self.function(site.worker_init_fn)
            if function is not None:
                found.append(function)
        return found
