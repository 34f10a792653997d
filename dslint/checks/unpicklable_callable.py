"""DSL102 unpicklable-callable: what reaches a worker must survive pickling.

spawn and forkserver (Windows, macOS, Linux from Python 3.14) pickle the dataset,
``collate_fn`` and ``worker_init_fn`` for every worker. Lambdas, functions or classes
defined inside a function, and those defined under ``if __name__ == "__main__":`` (the
child imports the script as ``__mp_main__``, where they do not exist) cannot be pickled:
``iter(loader)`` fails. So do functions and classes defined in a notebook's cells: a
worker cannot import the notebook (``Can't get attribute 'X' on <module '__main__' (built-in)>``).
Found wherever the object is stored: a keyword, a dataset attribute, a transform inside
``Compose``, a default argument kept by ``__init__``.
"""

from __future__ import annotations

import re

from typing import Dict, Iterator, Optional, Tuple

from ..analysis.summary import Span
from ..diagnostics import Finding
from ..model.objects import Cls, Func, Inst, Step
from ..model.project import package_main
from ..model.queries import Model
from .base import finding, value_span

CODE = "DSL102"
FIX = "define it at module level with `def`"
NOTEBOOK_FIX = "define it in a `.py` module next to the notebook and import it from there"
NOTEBOOK_WHY = "it is defined in a notebook, whose cells workers cannot import"
PACKAGE_MAIN_FIX = "define it in another module of the package and import it from there"
PACKAGE_MAIN_WHY = "it is defined in the package's `__main__.py`, which workers do not import"
UNIMPORTABLE = {NOTEBOOK_WHY: NOTEBOOK_FIX, PACKAGE_MAIN_WHY: PACKAGE_MAIN_FIX}  # main modules workers cannot import


def unpicklable(model: Model, obj) -> Optional[Tuple[str, str, object]]:
    """(what it is, why it cannot be pickled, (module, span) of its definition) or None."""
    if isinstance(obj, Func):
        function = model.function_summary(obj)
        if function is None:
            return None
        if function.kind == "lambda":
            return "lambda", "a lambda has no importable name", (obj.module, function.span)
        if function.scope_kind == "function":
            return f"nested function `{function.name}`", "it is defined inside a function", (obj.module, function.span)
        if function.guarded and function.scope_kind == "module":
            return (f"function `{function.name}`", "it is defined under `if __name__ == \"__main__\":`, which "
                    "workers do not run", (obj.module, function.span))
        why = _unimportable(model, obj.module)
        if function.scope_kind == "module" and why:
            return f"function `{function.name}`", why, (obj.module, function.span)
        return None
    cls = obj.cls if isinstance(obj, Inst) and isinstance(obj.cls, Cls) else obj if isinstance(obj, Cls) else None
    if cls is not None:
        klass = model.project.klass(cls.module, cls.qualname)
        if klass is None:
            return None
        noun = "instance of " if isinstance(obj, Inst) else ""
        if klass.scope_kind == "function":
            return f"{noun}nested class `{klass.name}`", "the class is defined inside a function", (cls.module, klass.span)
        if klass.guarded and klass.scope_kind == "module":
            return (f"{noun}class `{klass.name}`", "the class is defined under `if __name__ == \"__main__\":`, "
                    "which workers do not run", (cls.module, klass.span))
        why = _unimportable(model, cls.module)
        if klass.scope_kind == "module" and why:
            return f"{noun}class `{klass.name}`", why, (cls.module, klass.span)
    return None


def _unimportable(model: Model, module: str) -> str:
    """Why a worker cannot import ``module`` to find what it defines ("" when it can): a
    notebook's cells are the kernel's ``__main__``; a package's ``__main__.py`` run with
    ``python -m`` is never imported again by spawn/forkserver children."""
    info = model.project.modules.get(module)
    if info is None:
        return ""
    if info.path.endswith(".ipynb"):
        return NOTEBOOK_WHY
    return PACKAGE_MAIN_WHY if package_main(info.path) else ""


def _hand_over(trail):
    """Where a named function or class is handed over: the call storing it in the dataset
    (``ds.set_transform(f)``), else the argument that passes it on."""
    for step in trail:
        if step is not None and step.note.startswith("stored by"):
            return step.module, step.span
    for step in reversed(trail):
        if step is not None and (step.note.startswith(("passed as", "argument"))):
            return step.module, step.span
    return None


PROCESS = "process:"  # the role of a callable handed to what starts processes: ``process:<starter>``
INITIALIZER = "initializer:"  # a pool's initializer: ``initializer:<starter>``


def _starter(role: str) -> Optional[str]:
    """What starts the processes a callable is handed to, for the roles ``process:<starter>``
    and ``initializer:<starter>``."""
    for prefix in (PROCESS, INITIALIZER):
        if role.startswith(prefix):
            return role[len(prefix):]
    return None


def _how(role: str, trail) -> str:
    stored = next((s.note for s in trail if s is not None and s.note.startswith(("stored as", "stored by"))), None)
    starter = _starter(role)
    if starter is not None:
        given = f"passed as `initializer` to `{starter}`" if role.startswith(INITIALIZER) else f"passed to `{starter}`"
        return f"{stored} on an object {given}" if stored else given
    given = next((s.note for s in trail if s is not None and s.note.startswith("argument `")), "")
    if role in ("collate_fn", "worker_init_fn"):
        name = given[len("argument `"):-1] if given else role
        return f"passed as `{name}`" if name == role else f"passed as `{name}` (the loader's `{role}`)"
    if stored and stored.startswith("stored by"):  # ``ds.set_transform(f)``
        return f"{stored.replace('stored by', 'stored in the dataset by')}"
    if stored:
        return f"{stored} on the dataset"
    if trail and trail[-1] is not None and trail[-1].note == "argument `dataset`":
        return "used as the dataset"
    kept = re.fullmatch(r"argument `(\w+)`", given)
    if kept is not None and kept.group(1) != "dataset":  # an argument of the loader's call the library
        return f"passed as `{kept.group(1)}`, which the loader's dataset keeps,"  # keeps in its dataset (mapper)
    return "given to the dataset"


def check(model: Model) -> Iterator[Finding]:
    handed = list(_handed(model))
    shared = _handed_over_twice(model, handed)
    reported = set()
    for obj, role, trail, context, evidence in handed:
        yield from _report(model, obj, role, trail, context, reported, evidence, shared.get(obj, ()))


def _handed(model: Model):
    """(callable, role, trail, context, evidence) for everything pickled for processes."""
    for loader in model.all_loaders():
        workers = model.workers(loader)
        if not workers.processes or model.fork_chosen(loader):
            continue
        for obj, role, trail in model.pickled(loader):
            yield (obj, role, trail, f"loader has {workers.describe()} workers",
                   workers.trail("positive") or workers.trail("unknown"))
    for obj, role, trail in model.set_on_given_loaders():
        yield obj, role, trail, "the loader is the caller's, with workers unknown", ()
    for obj, role, trail in model.process_targets():
        yield obj, role, trail, _process_context(role), ()
    for dataset in model.datasets_without_loader():
        klass = model.project.klass(dataset.cls.module, dataset.cls.qualname)
        for obj, role, trail in model.object_graph([(dataset, "dataset", ())]):
            if model.defined_in_tests(obj):
                continue  # a test's argument to a library dataset says nothing of what users pass
            yield obj, role, trail, f"dataset `{klass.name}` is made for DataLoader workers", ()


def _handed_over_twice(model: Model, handed) -> Dict[object, Tuple[Step, ...]]:
    """Nested functions handed over at more than one place (``collate_fn=collate`` for the
    training and the validation loader): one root cause, reported once at the definition,
    with every hand-over as a related location."""
    places: Dict[object, Dict[Tuple[str, Span], None]] = {}
    for obj, _role, trail, _context, _evidence in handed:
        if isinstance(obj, Func):
            handover = _hand_over(trail)
            if handover is not None:
                places.setdefault(obj, {})[handover] = None
    return {obj: tuple(Step(module, value_span(model, module, span), "handed over here") for module, span in found)
            for obj, found in places.items() if len(found) > 1}


def _report(model: Model, obj, role, trail, context, reported, evidence, handovers=()) -> Iterator[Finding]:
    found = unpicklable(model, obj)
    if found is None:
        return
    what, why, (module, span) = found
    definition = span
    if why in UNIMPORTABLE:  # one finding per definition of such a module, at the first place it is handed over
        if (module, definition) in reported:
            return
        reported.add((module, definition))
    defined = ()
    if not what.startswith("lambda"):
        handover = _hand_over(trail)
        # a factory's nested function stays at its definition: one finding however often it is handed over
        if handovers:
            defined = handovers  # handed over at several places: once, at the definition
        elif handover is not None and not _handed_over_outside(model, obj, handover):
            defined = (Step(module, definition, "defined here"),)
            module, span = handover[0], value_span(model, *handover)
    if (module, span) in reported:
        return
    reported.add((module, span))
    kind, name, free = _kind(model, obj)
    yield finding(
        model, CODE, module, span,
        f"{what[0].upper()}{what[1:]} {_how(role, trail)} cannot be pickled{_for_whom(role)} "
        f"({why}; {context}): {UNIMPORTABLE.get(why, FIX)}",
        defined + tuple(trail) + tuple(evidence),
        role=_role(role, trail), kind=kind, name=name, free_vars=free, definition=tuple(definition),
        fixable=kind in FIXED_KINDS,
    )


def _handed_over_outside(model: Model, obj, handover) -> bool:
    """A nested function handed over outside the function that defines it (a factory returns
    it: ``transform = build_transform(cfg)`` in another module): reported at its definition,
    the one place every hand-over shares and the fix changes."""
    if not isinstance(obj, Func):
        return False
    function = model.function_summary(obj)
    if function is None or function.scope_kind != "function":
        return False
    outer = model.project.function(obj.module, function.scope)
    module, span = handover
    return outer is not None and (module != obj.module or not outer.span.row <= span.row <= outer.end_row)


def _process_context(role: str) -> str:
    starter = _starter(role)
    if role.startswith(INITIALIZER):
        return f"`{starter}` pickles its initializer for every process it starts"
    if starter.endswith(".Process"):
        return f"a `{starter}` target is pickled to start the process"
    if "spawn" in starter or "start_processes" in starter:
        return f"`{starter}` pickles it for every process it starts"
    return f"`{starter}` pickles it to send each task to the pool's processes"


def _for_whom(role: str) -> str:
    """Who cannot have it: spawn/forkserver workers of a loader, of a ``Process`` or of a
    pool's initializer; any process of a pool's tasks or of torch's spawn (pickled whatever
    the platform's start method)."""
    starter = _starter(role)
    if starter is None:
        return " for spawn/forkserver workers"
    spawned = starter.endswith(".Process") or role.startswith(INITIALIZER)
    return " for spawn/forkserver processes" if spawned else ""


def _role(role: str, trail) -> str:
    if role in ("collate_fn", "worker_init_fn"):
        return role
    if role.startswith(INITIALIZER):
        return "process initializer"
    if _starter(role) is not None:
        return "process target"
    if any(s.note.startswith("stored as") for s in trail if s is not None):
        return "dataset attribute"
    return "dataset argument"


FIXED_KINDS = ("lambda", "nested function")  # what ``dslint.fixes.dsl102`` rewrites (when what it reads allows)


def _kind(model: Model, obj):
    """(kind, name, free variables) of an unpicklable callable, for the fixer."""
    if isinstance(obj, Func):
        function = model.function_summary(obj)
        kind = "lambda" if function.kind == "lambda" else "nested function" if function.scope_kind == "function" \
            else "main-guard function" if function.guarded else _unimportable_kind(model, obj.module, "function")
        return kind, function.name, free_variables(model, obj)
    cls = obj.cls if isinstance(obj, Inst) else obj
    klass = model.project.klass(cls.module, cls.qualname)
    kind = "nested class" if klass.scope_kind == "function" else "main-guard class" if klass.guarded \
        else _unimportable_kind(model, cls.module, "class")
    return kind, klass.name, ()


def _unimportable_kind(model: Model, module: str, what: str) -> str:
    return f"{'notebook' if _unimportable(model, module) == NOTEBOOK_WHY else 'package-main'} {what}"


def free_variables(model: Model, func: Func) -> tuple:
    """Names a nested function or lambda reads from the functions around it (its closure)."""
    summary = model.project.summary(func.module)
    function = summary.functions.get(func.qualname)
    inner = {n for n, bindings in function.bindings.items()}
    free = set()
    for name in function.loads - inner:
        scope = function.scope
        while scope:
            outer = summary.functions.get(scope)
            if outer is None:
                klass = summary.classes.get(scope)
                scope = klass.scope if klass is not None else ""
                continue
            if name in outer.bindings:
                free.add(name)
                break
            scope = outer.scope
    return tuple(sorted(free))
