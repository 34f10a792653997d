"""DSL101 main-guard: code that starts workers must not run when the module is imported.

Under spawn and forkserver every worker re-imports the main module; if starting workers
is part of importing it, the child tries to start workers during its own bootstrap:
``RuntimeError: An attempt has been made to start a new process before the current
process has finished its bootstrapping phase``. Followed through calls: a module-level
``main()`` whose callee builds a loader in another file and iterates it is reported at
the ``main()`` line.
"""

from __future__ import annotations

from typing import Iterator, Set, Tuple

from ..diagnostics import Finding
from ..model import loaders
from ..analysis.values import Attr, Call
from ..model.objects import Bound, Ctx, Ext, Found, Func, SiteRef, Step
from ..model.project import package_main, sites_in_scope
from ..model.queries import Model
from .base import finding

CODE = "DSL101"
# Calls that run a function they are given, in this process, before they return: command-line
# runners (``fire.Fire(main)``) and search drivers (``study.optimize(objective)`` of Optuna,
# hyperopt's ``fmin(fn=...)``, ``wandb.agent(sweep_id, function=train)``): where the function is
# given (position, keyword). Ray Tune is not one: its trials run in Ray's own worker processes,
# whose main module is Ray's, not this script.
FUNCTION_RUNNERS = {
    "fire.Fire": (0, "component"), "typer.run": (0, "function"), "jsonargparse.CLI": (0, "components"),
    "jsonargparse.auto_cli": (0, "components"), "tyro.cli": (0, "f"),
    "hyperopt.fmin": (0, "fn"), "hyperopt.fmin.fmin": (0, "fn"), "wandb.agent": (1, "function"),
}
OPTUNA_STUDIES = ("optuna.create_study()", "optuna.load_study()", "optuna.study.create_study()",
                  "optuna.study.load_study()", "optuna.Study(", "optuna.study.Study(")


def function_runner(qualname: str):
    """(position, keyword) of the function a call of ``qualname`` runs, or None."""
    found = FUNCTION_RUNNERS.get(qualname)
    if found is None and qualname.endswith(".optimize") and qualname.startswith(OPTUNA_STUDIES):
        return 0, "func"
    return found
FIX_HINT = 'move it into a function called under `if __name__ == "__main__":`'
WHY = "spawn/forkserver workers re-import this module and fail while bootstrapping"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, object]] = set()
    for iteration in model.iterations():
        if iteration.scope or package_main(iteration.module):
            continue
        summary = model.project.summary(iteration.module)
        if iteration.loop is not None:
            record = summary.loops[iteration.loop]
        else:
            record = summary.calls[iteration.call]
        if record.guarded:
            continue
        workers = model.workers(iteration.loader)
        if not workers.processes or model.fork_chosen(iteration.loader):
            continue
        built = loaders.construction_step(model.resolver, iteration.loader)
        here_built = built is not None and built.module == iteration.module and _module_level(model, iteration.loader)
        # at the loop or call itself (inside a module-level ``with`` or ``if`` too), one finding
        # per module-level statement
        span = built.span if here_built else record.span
        statement = (iteration.module, record.top or record.span)
        if (iteration.module, span) in reported or statement in reported:
            continue
        reported.update({(iteration.module, span), statement})
        if here_built:
            message = (f"DataLoader built and iterated at module level (iterates a DataLoader with "
                       f"{workers.describe()} workers) outside `if __name__ == \"__main__\":`; {WHY}: {FIX_HINT}")
        else:
            message = (f"Module-level code iterates a DataLoader with {workers.describe()} workers outside "
                       f"`if __name__ == \"__main__\":`; {WHY}: {FIX_HINT}")
        yield finding(model, CODE, iteration.module, span, message,
                      (Step(iteration.module, iteration.span, "iterated here"), built))
    for info in model.project.eager_modules():
        if package_main(info.key):
            continue
        for index in sites_in_scope(model.project, info.key, ""):
            site = info.summary.calls[index]
            if site.guarded:
                continue
            statement = (info.key, site.top or site.span)
            if statement in reported or (info.key, site.span) in reported:
                continue
            reason = _call_reason(model, info.key, index)
            if reason is None:
                continue
            span = site.span
            reported.update({statement, (info.key, span)})
            text, trail = reason
            yield finding(model, CODE, info.key, span,
                          f"Module-level call runs at import time and {text}; {WHY}: {FIX_HINT}", trail)


def _module_level(model: Model, loader) -> bool:
    base = loaders.base_loader(loader)
    return base is not None and base.site is not None and not model.project.call(base.site).scope


def _call_reason(model: Model, module: str, index: int):
    direct = model.process_start(module, index)
    if direct is not None:
        return direct, ()
    site = model.project.summary(module).calls[index]
    ctx = model.resolver.context(module)
    for found in _entry_functions(model, site, ctx, index):
        obj = found.obj
        func = obj if isinstance(obj, Func) else obj.func if isinstance(obj, Bound) else None
        summary = model.function_summary(func) if func is not None else None
        if summary is None or summary.is_generator:
            continue  # calling a generator function runs none of its body (``data = cycle(loader)``)
        started = model.starts_workers(func)
        if started is not None:
            name = func.qualname.rpartition(".")[2]
            return f"`{name}()` {started[0]}", started[1]
    return None


# Decorators registering a command on a command-line app (``@app.command()`` of typer,
# ``@cli.command()`` of a click group): calling the app runs the command the arguments name.
COMMAND_DECORATORS = frozenset({"command", "callback"})


def _entry_functions(model: Model, site, ctx: Ctx, index: int):
    """What a module-level call runs: its callee, the function a CLI runner is given, or the
    commands registered on the app it calls (``app()`` after ``@app.command() def train``)."""
    callees = model.resolver.eval(site.func, ctx)
    for found in callees:
        runner = function_runner(found.obj.qualname) if isinstance(found.obj, Ext) else None
        if runner is not None:
            position, keyword = runner
            return model.resolver.keyword_at(SiteRef(ctx.module, index), ctx, keyword, position) or ()
    return callees + _commands(model, ctx.module, {f.obj for f in callees})


def _commands(model: Model, module: str, apps) -> tuple:
    """The functions of ``module`` registered as commands of one of ``apps``."""
    summary = model.project.summary(module)
    found = []
    for function in summary.functions.values():
        for decorator in function.decorators:
            if type(decorator) is not Call:
                continue
            target = summary.calls[decorator.index].func
            if type(target) is Attr and target.name in COMMAND_DECORATORS and any(
                    f.obj in apps for f in model.resolver.eval(target.base, model.resolver.context(module))):
                found.append(Found(Func(module, function.qualname)))
                break
    return tuple(found)
