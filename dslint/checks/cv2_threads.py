"""DSL103 cv2-threads: OpenCV's thread pool in every worker.

A forked worker inherits OpenCV's setting but not its threads; each worker then runs a
pool sized for the whole machine (oversubscription), and with TBB/OpenMP builds the dead
pool copied by fork can deadlock. ``cv2.setNumThreads(0)`` at import time prevents both.

Followed: OpenCV called by the dataset's ``__getitem__`` and whatever it calls, in any
module (a helper module with no Dataset of its own included). Throttled: a
``setNumThreads(0)`` executed when the module is imported (by it or a project module it
imports), anywhere in the module, in a ``worker_init_fn`` of the loaders that run it, or
in main-process code of a program that imports it (fork-started workers inherit it).
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from ..diagnostics import Finding
from ..model import effects
from ..model.objects import Cls, Func, Inst, Step
from ..model.queries import Model
from .base import finding

CODE = "DSL103"


def check(model: Model) -> Iterator[Finding]:
    programs: Dict[object, List[Tuple[object, effects.Effect]]] = {}
    for loader, workers, function in model.worker_runs():
        if workers is not None and workers.threads:
            continue
        used = effects.uses_cv2(model, function.func, function.self_obj)
        if used is not None:
            key = (loader, None if loader is not None else function.self_obj)
            programs.setdefault(key, []).append((function, used))
    by_module: Dict[str, Tuple[object, str, list]] = {}  # one finding per module: the fix is one line there
    for (loader, _), uses in programs.items():
        if _throttled(model, loader, uses):
            continue
        function = uses[0][0]
        module, span, what = _location(model, loader, uses)
        calls = [Step(u.module, u.site.span, "OpenCV called in worker code") for _, u in uses[:4]]
        if module in by_module:
            first_span, first_what, steps = by_module[module]
            if (span.row, span.col) < (first_span.row, first_span.col):  # report at the first one in the file
                steps = calls + list(function.trail) + steps
                by_module[module] = (span, what, steps)
            else:
                steps.extend(calls[:1] + list(function.trail[:1]))
            continue
        by_module[module] = (span, what, calls + list(function.trail))
    for module, (span, what, steps) in by_module.items():
        steps.extend(_left_behind_steps(model, module))
        cv2_import = _cv2_import_span(model.project.summary(module))
        imported = f"cv2 imported at line {cv2_import[0]}" if cv2_import else "OpenCV called through another module"
        yield finding(
            model, CODE, module, span,
            f"{what} runs OpenCV in DataLoader workers ({imported}) with "
            f"OpenCV's own thread pool in every worker, and nothing the workers import calls "
            f"`cv2.setNumThreads(0)`: add it after the import",
            tuple(steps),
            cv2_import=cv2_import,
            fixable=cv2_import is not None,  # the fix goes after that import
        )


def _location(model: Model, loader, uses):
    """One finding per program: at the first dataset class of the module defining the
    dataset the workers run, when that module imports cv2; else at the first function
    calling OpenCV in a module that imports cv2 (where the fix goes), else at the first
    worker function reaching OpenCV."""
    entries = model.worker_code(loader) if loader is not None else [f for f, _ in uses]
    for function in entries:
        obj = function.self_obj
        if function.role != "dataset" or not isinstance(obj, Inst) or not isinstance(obj.cls, Cls):
            continue
        module = obj.cls.module
        summary = model.project.summary(module)
        if _cv2_import_span(summary) is None:
            break
        datasets = sorted((k for q, k in summary.classes.items() if model.is_dataset_class(Cls(module, q))),
                          key=lambda k: k.header_row)
        klass = datasets[0] if datasets else summary.classes.get(obj.cls.qualname)
        if klass is not None:
            return module, klass.span, f"Dataset `{klass.name}`"
    for _, used in uses:  # ``rasterize()`` of a helper module importing cv2, called by ``__getitem__``
        helper = model.project.summary(used.module)
        scope = helper.functions.get(used.site.scope) if used.site.scope else None
        if _cv2_import_span(helper) is not None and scope is not None:
            return used.module, scope.span, f"`{scope.name}`"
    function = uses[0][0]
    summary = model.function_summary(function.func)
    return function.func.module, summary.span, f"`{summary.name}`"


def _cv2_import_span(summary):
    """The first module-level ``import cv2`` (or ``from cv2 import ...``) statement, for the fixer."""
    from ..analysis.values import Imported

    spans = [b.span for bindings in summary.bindings.values() for b in bindings
             if b.kind == "import" and isinstance(b.value, Imported) and b.value.path.split(".")[0] == "cv2"]
    return tuple(min(spans)) if spans else None


def _throttled(model: Model, loader, uses) -> bool:
    """``cv2.setNumThreads(0)`` runs in the workers' program: at import time of a module the
    workers import (or anywhere in a module whose code they run), in the loader's
    ``worker_init_fn``, or in main-process code of a program that imports the modules."""
    modules = {function.func.module for function, _ in uses}
    built = model.construction(loader) if loader is not None else None
    if built is not None:
        modules.add(built.module)
    if any(effects.module_throttles(model, m) for m in modules):
        return True
    for module in modules:
        for other in model.import_closure(module):
            if "import" in effects.module_throttles(model, other):
                return True
    if loader is not None:
        for found in model.argument(loader, "worker_init_fn") or ():
            for entry in model.callable_entries(found.obj, "worker_init_fn", ()):
                if effects.throttles_cv2(model, entry.func, entry.self_obj) is not None:
                    return True
    return any(_throttled_by_main_process(model, m, built.module if built is not None else None) for m in modules)


def _throttled_by_main_process(model: Model, module: str, built: Optional[str] = None) -> bool:
    """A throttling call in a function that a program importing ``module`` calls: the
    caller's module imports ``module``, or a program imports both it and the module that
    builds the loader (``tools/train.py`` imports the dataset's module to register it,
    and the runner whose set-up calls ``set_multi_processing(opencv_num_threads=0)``
    before it builds the loaders)."""
    programs = None
    for site in _throttle_calls(model):
        if _left_behind_by_spawn(model, site):
            continue
        if module in model.import_closure(site.module):
            return True
        if programs is None:
            programs = [other.key for other in model.project.eager_modules()
                        if module in model.import_closure(other.key)
                        and (built is None or built in model.import_closure(other.key))]
        if any(site.module in model.import_closure(program) for program in programs):
            return True
    return False


def _throttle_calls(model: Model):
    """The calls of the project functions that run ``cv2.setNumThreads(0)`` (somewhere in
    their body, not at import time)."""
    for info in model.project.eager_modules():
        throttle = effects.module_throttles(model, info.key).get("anywhere")
        if throttle is None or not throttle.site.scope:
            continue
        for site, _ in model.resolver.callers(Func(info.key, throttle.site.scope)):
            yield site


def _left_behind_by_spawn(model: Model, site) -> bool:
    """A throttling call made under the main guard of a program that starts its training in
    processes that import it afresh (YOLOX's ``configure_module()`` under the guard, then
    ``launch(main, ...)`` with ``mp.start_processes(..., start_method="spawn")``): the guard
    does not run in them, so the loaders they build fork workers from an unthrottled OpenCV."""
    call = model.project.call(site)
    return not call.scope and call.guarded and model.spawns_processes(site.module)


def _left_behind_steps(model: Model, module: str) -> List[Step]:
    """The throttling calls a spawning program makes under its main guard, where that program
    imports ``module``: why they do not count."""
    return [Step(site.module, model.project.call(site).span,
                 "OpenCV throttled only under the main guard, which the spawned training processes do not run")
            for site in _throttle_calls(model)
            if _left_behind_by_spawn(model, site) and module in model.import_closure(site.module)]
