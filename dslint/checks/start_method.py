"""DSL106 start-method: ``set_start_method`` where it runs twice.

The start method can be set once per process. At module level outside the main guard the
call runs again in every spawned child (which re-imports the main module after its start
method was already set), and a second call in the same code path always fails:
``RuntimeError: context has already been set``, also in a helper called after the first
(``main()`` sets it, then calls a setup function that sets it again).
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional, Tuple

from ..analysis.values import last_name
from ..diagnostics import Finding
from ..model.externals import truthiness
from ..model.objects import Bound, Cls, Ctx, Func, Step
from ..model.project import sites_in_scope
from ..model.queries import Model
from .base import finding

CODE = "DSL106"
ERROR = "`RuntimeError: context has already been set`"
CATCHES = frozenset({"RuntimeError", "Exception", "BaseException", "ValueError", "*"})


def _forced(model: Model, site) -> bool:
    ctx = Ctx(site[0], site[1].scope)
    call = site[1]
    for name, value in call.keywords:
        if name == "force":
            return truthiness(model.resolver.eval(value, ctx)) != "false"
        if name is None:
            return True
    if len(call.args) >= 2:
        return truthiness(model.resolver.eval(call.args[1], ctx)) != "false"
    return False


def check(model: Model) -> Iterator[Finding]:
    seen: Dict[Tuple[str, str, bool], int] = {}
    calls = [(module, model.project.summary(module).calls[index]) for module, index, _ in model.start_method_calls()]
    reported = set()
    for module, call in sorted(calls, key=lambda c: (c[0], c[1].span.row, c[1].span.col)):
        key = (module, call.scope, call.guarded)
        earlier = seen.get(key)
        seen.setdefault(key, call.span.row)
        if _forced(model, (module, call)) or CATCHES & set(call.handlers):
            continue
        if not call.scope and not call.guarded:
            if _asks_method(model, module, ""):
                continue  # ``if mp.get_start_method(allow_none=True) is None:``: a spawned child has it set
            reported.add((module, call.span))
            yield finding(
                model, CODE, module, call.span,
                "`set_start_method(...)` at module level outside `if __name__ == \"__main__\":` runs again when "
                f"spawned workers re-import this module and raises {ERROR}: move it under the main guard",
            )
        elif earlier is not None:
            reported.add((module, call.span))
            yield finding(
                model, CODE, module, call.span,
                f"Second `set_start_method(...)` (first at line {earlier}) raises {ERROR}: remove it or pass "
                "`force=True`",
            )
    if calls:
        yield from _after_import_time_call(model, calls, reported)
        yield from _through_calls(model, calls, seen, reported)


def _after_import_time_call(model: Model, calls, reported) -> Iterator[Finding]:
    """A call under the main guard of a program one of whose imported modules sets the start
    method at import time (module level, unguarded): importing it already set it, so the
    guard's call is the second and raises in the main process itself."""
    at_import = {module: call for module, call in calls if not call.scope and not call.guarded
                 and not _forced(model, (module, call)) and not CATCHES & set(call.handlers)
                 and not _asks_method(model, module, "")}
    if not at_import:
        return
    for module, call in calls:
        if call.scope or not call.guarded or (module, call.span) in reported or _forced(model, (module, call)) \
                or CATCHES & set(call.handlers):
            continue
        first = next(((other, at_import[other]) for other in sorted(model.import_closure(module))
                      if other != module and other in at_import), None)
        if first is None:
            continue
        other, earlier = first
        reported.add((module, call.span))
        yield finding(
            model, CODE, module, call.span,
            f"Second `set_start_method(...)`: importing `{model.project.modules[other].name}` already set it "
            f"(its module-level call), so this one raises {ERROR} in the main process: remove one or pass "
            "`force=True`",
            (Step(other, earlier.span, "set at import time here"),),
        )


def _through_calls(model: Model, calls, first_rows, reported) -> Iterator[Finding]:
    """Calls made in a function that module-level code calls: unguarded, it runs again in every
    spawned child (``setup()`` at the top of the script); after a ``set_start_method`` of the same
    block (``mp.set_start_method("spawn"); main()`` where ``main`` sets it again), it is the second;
    so is one a function's own calls reach after its ``set_start_method``."""
    setting = {}
    for module, call in calls:
        if not call.scope or _forced(model, (module, call)) or CATCHES & set(call.handlers):
            continue
        if _asks_method(model, module, call.scope):
            continue  # ``if mp.get_start_method(allow_none=True) is None:``: sets it only when unset
        setting.setdefault((module, call.scope), call)
    if not setting:
        return
    memo: Dict[Func, object] = {}
    yield from _after_set_in_function(model, first_rows, setting, memo, reported)
    yield from _one_call_after_another(model, setting, reported)
    for info in model.project.eager_modules():
        for index in sites_in_scope(model.project, info.key, ""):
            site = info.summary.calls[index]
            first = first_rows.get((info.key, "", site.guarded))
            if site.guarded and (first is None or first >= site.span.row):
                continue
            for found in model.resolver.eval(site.func, Ctx(info.key, "")):
                func = _called_function(model, found.obj)
                reached = _reaches(model, func, setting, memo) if func is not None else None
                if reached is None:
                    continue
                module, call, trail = reached
                if (module, call.span) in reported:
                    break
                reported.add((module, call.span))
                step = Step(info.key, site.span, "called at module level" if not site.guarded else
                            f"called after the `set_start_method(...)` of line {first}")
                if site.guarded:
                    text = (f"Second `set_start_method(...)` (the main guard set it at line {first} before calling "
                            f"this) raises {ERROR}: remove one or pass `force=True`")
                else:
                    text = (f"`set_start_method(...)` runs at import time (module-level code calls this function "
                            f"outside `if __name__ == \"__main__\":`), again in every spawned worker, and raises "
                            f"{ERROR}: call it under the main guard")
                yield finding(model, CODE, module, call.span, text, (step,) + trail)
                break


def _after_set_in_function(model: Model, first_rows, setting, memo, reported) -> Iterator[Finding]:
    """Calls a function makes after its own ``set_start_method`` (``main()`` sets it, then calls
    a helper that sets it again), on every path through that first call (within its block):
    the helper's call is the second."""
    for (module, scope, _), first in sorted(first_rows.items()):
        if not scope or _asks_method(model, module, scope):
            continue
        summary = model.project.summary(module)
        function = summary.functions.get(scope)
        blocks = [b for b in function.blocks if b[1] <= first <= b[2]] if function is not None else []
        last = min((b[2] for b in blocks), default=1 << 30)  # the end of the first call's innermost block
        for index in sites_in_scope(model.project, module, scope):
            site = summary.calls[index]
            if not first < site.span.row <= last or CATCHES & set(site.handlers):
                continue
            for found in model.resolver.eval(site.func, Ctx(module, scope)):
                func = _called_function(model, found.obj)
                reached = _reaches(model, func, setting, memo) if func is not None else None
                if reached is None:
                    continue
                where, call, trail = reached
                if (where, call.span) not in reported:
                    reported.add((where, call.span))
                    name = scope.rpartition(".")[2]
                    step = Step(module, site.span, f"called after the `set_start_method(...)` of line {first}")
                    yield finding(model, CODE, where, call.span,
                                  f"Second `set_start_method(...)` (`{name}` set it at line {first} before calling "
                                  f"this) raises {ERROR}: remove one or pass `force=True`", (step,) + trail)
                break


CALL_DEPTH = 4  # calls followed up from a ``set_start_method`` to the code calling it


def _one_call_after_another(model: Model, setting, reported) -> Iterator[Finding]:
    """Two calls of one block that each reach an unforced ``set_start_method`` (a setup
    helper setting it from a config, then a launcher setting "spawn"): the second call's runs
    after the first's set it, whichever branch each takes inside."""
    reaching: Dict[object, Tuple[object, Tuple[Step, ...]]] = {}  # call site → (the setting call, how)
    frontier = [(Func(module, scope), (module, call), ()) for (module, scope), call in sorted(setting.items())]
    for _ in range(CALL_DEPTH):
        following = []
        for func, target, trail in frontier:
            for ref, _ in model.resolver.callers(func):
                site = model.project.call(ref)
                if ref in reaching or CATCHES & set(site.handlers):
                    continue
                trail_here = (Step(ref.module, site.span, f"calls `{func.qualname.rpartition('.')[2]}`"),) + trail
                reaching[ref] = (target, trail_here)
                if site.scope:
                    following.append((Func(ref.module, site.scope), target, trail_here))
        frontier = following
    by_scope: Dict[Tuple[str, str], list] = {}
    for ref in reaching:
        by_scope.setdefault((ref.module, model.project.call(ref).scope), []).append(ref)
    for (module, scope), refs in sorted(by_scope.items()):
        if len(refs) < 2:
            continue
        summary = model.project.summary(module)
        function = summary.functions.get(scope) if scope else None
        blocks = function.blocks if function is not None else summary.blocks
        refs.sort(key=lambda ref: model.project.call(ref).span.row)
        first = refs[0]
        first_site = model.project.call(first)
        last = min((b[2] for b in blocks if b[1] <= first_site.span.row <= b[2]), default=1 << 30)
        for ref in refs[1:]:
            site = model.project.call(ref)
            (where, call), trail = reaching[ref]
            if not first_site.span.row < site.span.row <= last or site.guarded != first_site.guarded \
                    or reaching[first][0][1] is call or (where, call.span) in reported:
                continue
            reported.add((where, call.span))
            (earlier_module, earlier), earlier_trail = reaching[first]
            yield finding(
                model, CODE, where, call.span,
                f"Second `set_start_method(...)`: `{last_name(first_site.func)}(...)` "
                f"({where_row(model, module, first_site.span.row, where)}) sets the start method before "
                f"`{last_name(site.func)}(...)` ({where_row(model, module, site.span.row, where)}) reaches this one, "
                f"which raises {ERROR}: remove one or pass `force=True`",
                earlier_trail + (Step(earlier_module, earlier.span, "set first here"),) + trail,
            )
            break


def where_row(model: Model, module: str, row: int, seen_from: str) -> str:
    """``file.py:12`` (``line 12`` in the module the message is about)."""
    if module == seen_from:
        return f"line {row}"
    return f"{model.project.display_path(module)}:{row}"


def _called_function(model: Model, obj) -> Optional[Func]:
    """The project function a call of ``obj`` runs: the function, the method, or a class's
    ``__init__`` (``Runner(cfg)`` whose ``__init__`` calls ``self.setup_env(...)``)."""
    if isinstance(obj, Func):
        return obj
    if isinstance(obj, Bound):
        return obj.func
    if isinstance(obj, Cls):
        return model.resolver.method(obj, "__init__")
    return None


def _asks_method(model: Model, module: str, scope: str) -> bool:
    """Whether the function asks for the current start method before setting one."""
    summary = model.project.summary(module)
    return any(last_name(summary.calls[index].func) == "get_start_method"
               for index in sites_in_scope(model.project, module, scope))


def _reaches(model: Model, func: Func, setting, memo):
    """(module, call, trail) of an unforced ``set_start_method`` that calling ``func`` runs."""
    found = model.through_calls(func, lambda f: _setting_call(setting, f), memo, depth=4)
    if found is None:
        return None
    (module, call), _, trail = found
    return module, call, trail


def _setting_call(setting, func: Func):
    call = setting.get((func.module, func.qualname))
    return (func.module, call) if call is not None else None
