"""Facts for the catalogue beyond the core six (DSL105–107, 202, 203, 302, 303, 401–403, 501)
and the training-library entry points that count as starting workers for DSL101.

Runs at the end of ``Summarizer.run`` on the same tree, resolver and loader sites; it only
adds facts (fields of the model with defaults), gated by the pre-filter's aspects so files
that cannot matter cost nothing:

- loader sites (always, when the file has any): the collate_fn, the start method, whether
  ``sampler``/``batch_sampler``/``prefetch_factor`` are None, the sampler's class, the epoch
  loop that re-iterates the loader and a training loop over it;
- ``workercode``: per function and per Dataset class, CUDA work, thread settings, constant
  seeds, generators stored in ``__init__``, sharding by worker, object tables;
- ``startmethod``: every ``set_start_method`` call with its guard/force/try context;
- ``trainer``: calls of known training-library entry points (``YOLO(...).train()``).
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Set, Tuple

from . import names
from .model import (
    ClassFacts,
    EpochLoop,
    FunctionFacts,
    LoaderSite,
    ObjectTable,
    ProcessStart,
    RngAttr,
    Span,
    StartMethodCall,
    StatementFacts,
    WorkerHazard,
)
from .scopes import Scope

DEVICE_FACTORY_KWARG = "device"
TABLE_CALLS = frozenset(
    {"builtins.list", "builtins.dict", "builtins.sorted", "json.load", "json.loads", "pickle.load",
     "pickle.loads", "yaml.safe_load", "yaml.load", "builtins.set"}
)
# A function is walked only when its text has one of these (or the module shards somewhere).
FUNCTION_WORDS = ("cuda", ".to(", "set_num_threads", "threadpool_limits", "seed", "default_rng", "Generator",
                  "RandomState")
CLASS_CUDA_WORDS = ("cuda", ".to(", "set_num_threads", "threadpool_limits")
CLASS_RNG_WORDS = ("default_rng", "RandomState", "Generator", "Random(")
# self attributes whose iteration means "a wrapped iterable/dataset decides the sharding"
DELEGATE_WORDS = ("dataset", "datapipe", "loader", "iterable", "iterator", "source_dp", "pipe")
RUNTIME_ERRORS = frozenset({"RuntimeError", "Exception", "BaseException", "ValueError"})


def _last(qualname: Optional[str]) -> str:
    return qualname.rsplit(".", 1)[-1] if qualname else ""


def _self_attr(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


class ExtraFacts:
    def __init__(self, summarizer, tree: ast.Module):
        self.s = summarizer
        self.tree = tree
        self.resolver = summarizer.resolver
        self.values = summarizer.values
        self.summary = summarizer.summary
        self.root = summarizer.root
        self.aspects = summarizer.aspects

    def run(self) -> None:
        if self.summary.loaders:
            for site in self.summary.loaders:
                self._site(site)
            if any(site.sampler_class in names.DISTRIBUTED_SAMPLERS for site in self.summary.loaders):
                self.summary.set_epoch_called = any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "set_epoch"
                    for n in ast.walk(self.tree)
                )
        if "workercode" in self.aspects:
            self._functions()
            self._classes()
        if "startmethod" in self.aspects:
            self._start_methods(self.tree.body, self.root, guarded=False, protected=False)
        if "trainer" in self.aspects:
            self._trainer_entry_points()

    # loader sites -------------------------------------------------------------
    def _site_values(self, site: LoaderSite) -> Dict[str, Tuple[ast.AST, Scope]]:
        call = self.s.site_nodes[id(site)]
        scope = self.s.site_scope[id(site)]
        values: Dict[str, Tuple[ast.AST, Scope]] = {}
        factory = self.s._loader_factory(call.func, scope)
        if factory is not None:
            for keyword, owner in factory[2]:
                if keyword.arg:
                    values[keyword.arg] = (keyword.value, owner)
        if site.known_loader:
            for name, arg in zip(names.LOADER_POSITIONAL, call.args):
                if isinstance(arg, ast.Starred):
                    break
                values[name] = (arg, scope)
        elif call.args:
            values["dataset"] = (call.args[0], scope)
        for keyword in call.keywords:
            if keyword.arg is not None:
                values[keyword.arg] = (keyword.value, scope)
            else:
                resolved = self.s._resolve_splat(keyword.value, scope)
                for name, (kw, owner) in (resolved or {}).items():
                    values[name] = (kw.value, owner)
        return values

    def _site(self, site: LoaderSite) -> None:
        values = self._site_values(site)
        scope = self.s.site_scope[id(site)]
        if "collate_fn" in values:
            site.collate_fn = self._callable_name(*values["collate_fn"])
        if "multiprocessing_context" in values:
            site.start_method = self._start_method_value(*values["multiprocessing_context"])
        for name in ("sampler", "batch_sampler", "prefetch_factor"):
            if name in values:
                site.nullness[name] = self._nullness(*values[name])
        if "batch_size" in values:
            expr, owner = values["batch_size"]
            if isinstance(expr, ast.Constant) and (expr.value is None or type(expr.value) is int):
                site.batch_size_const = repr(expr.value)
            else:
                value = self.values.constant_int(expr, owner)
                if value is not None:
                    site.batch_size_const = repr(value)
        if "prefetch_factor" in values:
            workers_expr = values.get("num_workers", (None, scope))[0]
            site.prefetch_when_zero = self._when_zero(*values["prefetch_factor"], workers_expr)
        if "sampler" in values:
            self._sampler(site, *values["sampler"])
        if scope.kind != "class":
            self._loops(site, scope)

    def _callable_name(self, expr: ast.AST, scope: Scope) -> Optional[str]:
        if isinstance(expr, ast.Call) and self.resolver.qualname(expr.func, scope) in names.PARTIAL and expr.args:
            expr = expr.args[0]
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return self.resolver.qualname(expr, scope)
        return None

    def _start_method_value(self, expr: ast.AST, scope: Scope, depth: int = 0) -> Optional[str]:
        if depth > 4:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.Name):
            found = self.resolver.single_value(expr.id, scope)
            if found is not None:
                return self._start_method_value(found[0], found[1], depth + 1)
        if isinstance(expr, ast.Call) and _last(self.resolver.qualname(expr.func, scope)) == "get_context":
            if expr.args:
                return self._start_method_value(expr.args[0], scope, depth + 1)
        return None

    def _nullness(self, expr: ast.AST, scope: Scope, depth: int = 0) -> str:
        """none | value | maybe (a branch is None, another is not) | unknown."""
        if depth > 5:
            return "unknown"
        if isinstance(expr, ast.Constant):
            return "none" if expr.value is None else "value"
        if isinstance(expr, (ast.Call, ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.Lambda)):
            return "value"
        if isinstance(expr, ast.IfExp):
            parts = {self._nullness(expr.body, scope, depth + 1), self._nullness(expr.orelse, scope, depth + 1)}
            return self._merge(parts)
        if isinstance(expr, ast.Name):
            values = self.resolver.assigned_values(expr.id, scope)
            if values:
                return self._merge({self._nullness(v, o, depth + 1) for v, o in values})
        return "unknown"

    @staticmethod
    def _merge(parts: Set[str]) -> str:
        if len(parts) == 1:
            return next(iter(parts))
        if "unknown" in parts:
            return "unknown"
        return "maybe"

    def _when_zero(self, expr: ast.AST, scope: Scope, workers_expr: Optional[ast.AST], depth: int = 0) -> str:
        """The prefetch_factor value where the workers are zero: none | value | unknown, or
        tested-value when the expression itself tests the workers and picks a value for zero."""
        if depth > 5:
            return "unknown"
        if isinstance(expr, ast.Constant):
            return "none" if expr.value is None else "value"
        if isinstance(expr, ast.IfExp):
            branch = self._zero_branch(expr.test, workers_expr, scope)
            if branch is not None:
                chosen = self._when_zero(expr.body if branch else expr.orelse, scope, workers_expr, depth + 1)
                return "tested-value" if chosen in ("value", "tested-value") else chosen
            parts = {self._when_zero(expr.body, scope, workers_expr, depth + 1),
                     self._when_zero(expr.orelse, scope, workers_expr, depth + 1)}
            parts = {"value" if p == "tested-value" else p for p in parts}
            return "value" if parts == {"value"} else "none" if parts == {"none"} else "unknown"
        if isinstance(expr, ast.Name):
            found = self.resolver.single_value(expr.id, scope)
            if found is not None:
                return self._when_zero(found[0], found[1], workers_expr, depth + 1)
            return "unknown"
        if self.values.constant_int(expr, scope) is not None:
            return "value"
        return "unknown"

    def _zero_branch(self, test: ast.AST, workers_expr: Optional[ast.AST], scope: Scope) -> Optional[bool]:
        """Truth of ``test`` when the workers are zero, when the test is about the workers."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._zero_branch(test.operand, workers_expr, scope)
            return None if inner is None else not inner
        if self._is_workers(test, workers_expr):
            return False  # ``if num_workers`` is false at zero
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, op, right = test.left, test.ops[0], test.comparators[0]
            flipped = False
            if not self._is_workers(left, workers_expr) and self._is_workers(right, workers_expr):
                left, right, flipped = right, left, True
            if not self._is_workers(left, workers_expr):
                return None
            bound = self.values.constant_int(right, scope)
            if bound is None:
                return None
            ops = {ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b, ast.Lt: lambda a, b: a < b,
                   ast.LtE: lambda a, b: a <= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}
            fn = ops.get(type(op))
            if fn is None:
                return None
            return fn(bound, 0) if flipped else fn(0, bound)
        return None

    def _is_workers(self, expr: ast.AST, workers_expr: Optional[ast.AST]) -> bool:
        if workers_expr is not None and ast.dump(expr) == ast.dump(workers_expr):
            return True
        name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""
        return "worker" in name.lower()

    def _sampler(self, site: LoaderSite, expr: ast.AST, scope: Scope) -> None:
        ref = None
        if isinstance(expr, ast.Name):
            ref = expr.id
            found = self.resolver.assigned_values(expr.id, scope)
            calls = [(v, o) for v, o in (found or []) if isinstance(v, (ast.Call, ast.IfExp))]
            if not calls:
                return
            expr, scope = calls[0]
        if isinstance(expr, ast.IfExp):
            expr = expr.body if isinstance(expr.body, ast.Call) else expr.orelse
        if not isinstance(expr, ast.Call):
            return
        site.sampler_class = self.resolver.qualname(expr.func, scope)
        shuffle = None
        if len(expr.args) > 3:
            shuffle = expr.args[3]
        for keyword in expr.keywords:
            if keyword.arg == "shuffle":
                shuffle = keyword.value
        site.sampler_shuffle = "true" if shuffle is None else self.values.truthy(shuffle, scope)
        if ref is None:
            owner = self.s.site_scope[id(site)]
            loader_names = sorted(n for n, s in self.s._loader_vars(owner).items() if s is site)
            ref = f"{loader_names[0]}.sampler" if loader_names else None
        site.sampler_ref = ref

    # loops over a loader ------------------------------------------------------------
    def _scope_loops(self, scope: Scope) -> Tuple[list, list]:
        """(every for/while loop, every call by name) in the scope's own body, once per scope."""
        cache = self.__dict__.setdefault("_loop_cache", {})
        if id(scope) not in cache:
            loops, calls = [], []
            for node in self.s_body_nodes(scope.node.body):
                if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                    loops.append(node)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (node.args or node.keywords):
                    calls.append(node)
            cache[id(scope)] = (loops, calls)
        return cache[id(scope)]

    def _loops(self, site: LoaderSite, scope: Scope) -> None:
        from .values import W_POSITIVE, W_ZERO

        wanted_epoch = (site.workers == W_POSITIVE and "persistent_workers" not in site.keywords) or (
            site.sampler_class in names.DISTRIBUTED_SAMPLERS
        )
        wanted_training = site.workers == W_ZERO
        if not (wanted_epoch or wanted_training):
            return
        loops, calls = self._scope_loops(scope)
        if not loops:
            return
        call = self.s.site_nodes[id(site)]
        loader_vars = self.s._loader_vars(scope)
        names_of_site = {n for n, s in loader_vars.items() if s is site}
        # where the loader is iterated: a for over it, or a call handing it to a same-module
        # function that iterates that parameter
        iterations: List[Tuple[ast.AST, Optional[ast.AST]]] = []  # (node, training loop or None)
        for loop in loops:
            if isinstance(loop, (ast.For, ast.AsyncFor)) and self.s._iterated_site(loop.iter, scope, loader_vars) is site:
                iterations.append((loop, loop))
        if names_of_site:
            for node in calls:
                for definition, param in self.s._handed_to_functions([ast.Expr(node)], names_of_site, scope):
                    inner = self._param_loop(definition, param)
                    if inner is not None:
                        iterations.append((node, inner))
        if not iterations:
            return
        if wanted_training:
            for _, loop in iterations:
                if loop is not None and self._trains(loop.body):
                    site.training_loop = self._header_span(loop)
                    break
        if not wanted_epoch:
            return
        # the epoch loop: an outer loop after the construction that contains an iteration
        best = None
        for outer in loops:
            if outer.lineno <= call.lineno:
                continue  # built inside the loop (a new loader each pass) or after it
            end = outer.end_lineno or outer.lineno
            for node, _ in iterations:
                if node is not outer and outer.lineno < node.lineno <= end:
                    if best is None or outer.lineno < best[0].lineno:
                        best = (outer, node)
                    break
        if best is not None:
            outer, inner = best
            target = outer.target.id if isinstance(outer, (ast.For, ast.AsyncFor)) and isinstance(outer.target, ast.Name) else None
            site.epoch_loop = EpochLoop(self._header_span(outer), target, self.s.span(outer.body[0]), self.s.span(inner))

    def _param_loop(self, definition, param: str) -> Optional[ast.AST]:
        cache = self.__dict__.setdefault("_param_loop_cache", {})
        key = (id(definition), param)
        if key not in cache:
            cache[key] = None
            for node in self.s_body_nodes(definition.body):
                if isinstance(node, (ast.For, ast.AsyncFor)) and self._iterates_param(node.iter, param):
                    cache[key] = node
                    break
        return cache[key]

    def _iterates_param(self, expr: ast.AST, param: str) -> bool:
        for _ in range(4):
            if isinstance(expr, ast.Name):
                return expr.id == param
            if isinstance(expr, ast.Call) and expr.args:
                func = expr.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if name not in names.ITERATION_WRAPPERS_LAST:
                    return False
                expr = expr.args[0]
                continue
            return False
        return False

    def _trains(self, body) -> bool:
        for node in self.s_body_nodes(body):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "backward":
                    return True
                if node.func.attr == "step":
                    receiver = node.func.value
                    name = receiver.id if isinstance(receiver, ast.Name) else receiver.attr if isinstance(receiver, ast.Attribute) else ""
                    if "optim" in name.lower():
                        return True
        return False

    def _header_span(self, loop: ast.AST) -> Span:
        end = loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else loop.test
        start = self.s.span(loop)
        stop = self.s.span(end)
        return Span(start.row, start.col, stop.end_row, stop.end_col)

    @staticmethod
    def s_body_nodes(stmts) -> Iterator[ast.AST]:
        from .summarize import body_nodes

        return body_nodes(stmts)

    # functions: what code a worker may run does ---------------------------------------
    def _functions(self) -> None:
        local_calls: Dict[str, Set[str]] = {}
        consults: Set[str] = set()
        facts_by_key: Dict[str, Tuple[ast.AST, Scope, dict]] = {}
        lines = self.s.lines
        texts = {}
        # only module-level functions: the index resolves collate_fn/worker_init_fn to those
        functions = [
            n for n in self.root.node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        for node in functions:
            texts[id(node)] = "\n".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])
        # functions that may consult get_worker_info(), directly or by calling one that does
        # (by text first: only those are walked for the call graph)
        consult_names = {n.name for n in functions if any(w in texts[id(n)] for w in names.SHARDING_NAMES)}
        grew = bool(consult_names)
        while grew:
            grew = False
            for n in functions:
                if n.name not in consult_names and any(c in texts[id(n)] for c in consult_names):
                    consult_names.add(n.name)
                    grew = True
        for node in functions:
            scope = self.resolver.scope_for(node)
            if scope is None:
                continue
            key = node.name
            text = texts[id(node)]
            if node.name not in consult_names and not any(w in text for w in FUNCTION_WORDS):
                continue  # nothing a worker-code rule looks for: skip the walk
            found = self._scan(node, scope)
            facts_by_key[key] = (node, scope, found)
            if scope.parent is self.root:
                local_calls[key] = found["calls"]
                if found["consults"]:
                    consults.add(key)
        changed = True
        while changed:
            changed = False
            for name, calls in local_calls.items():
                if name not in consults and calls & consults:
                    consults.add(name)
                    changed = True
        self.consulting_functions = consults
        for key, (node, scope, found) in facts_by_key.items():
            interesting = (
                found["cuda"] or found["threads"] or found["seed"] or found["reseeds"] or key in consults
            )
            if not interesting:
                continue
            facts = self.summary.functions.get(key)
            if facts is None:
                facts = FunctionFacts(node.name, scope.qualname)
                self.summary.functions[key] = facts
            facts.cuda_work = found["cuda"]
            facts.thread_setting = found["threads"]
            facts.constant_seed = found["seed"]
            facts.consults_worker_info = key in consults
            facts.reseeded_attrs = frozenset(found["reseeds"])

    def _scan(self, node: ast.AST, scope: Scope) -> dict:
        found = {"cuda": None, "threads": None, "seed": None, "reseeds": set(), "calls": set(), "consults": False}
        for child in ast.walk(node):
            if isinstance(child, ast.Name):
                if child.id in names.SHARDING_NAMES:
                    found["consults"] = True
                continue
            if isinstance(child, ast.Attribute):
                if child.attr in names.SHARDING_NAMES:
                    found["consults"] = True
                continue
            if isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and _self_attr(target) is None:
                        found["reseeds"].add(target.attr)
                        if target.attr == "state" and isinstance(target.value, ast.Attribute):
                            inner = target.value  # x.rng.bit_generator.state = ...
                            if inner.attr == "bit_generator" and isinstance(inner.value, ast.Attribute):
                                found["reseeds"].add(inner.value.attr)
                continue
            if not isinstance(child, ast.Call):
                continue
            func = child.func
            if isinstance(func, ast.Name) and self.s._module_function(func.id, scope):
                found["calls"].add(func.id)
            if isinstance(func, ast.Attribute) and func.attr in names.RESEED_METHODS:
                receiver = func.value
                if (isinstance(receiver, ast.Attribute) and _self_attr(receiver) is None
                        and self.resolver.qualname(receiver, scope) is None):
                    found["reseeds"].add(receiver.attr)
            if found["cuda"] is None:
                found["cuda"] = self._cuda_work(child, scope)
            if found["threads"] is None:
                found["threads"] = self._thread_setting(child, scope)
            if found["seed"] is None:
                found["seed"] = self._constant_seed(child, scope)
        return found

    def _cuda_work(self, call: ast.Call, scope: Scope) -> Optional[WorkerHazard]:
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr == "cuda":
                base = self.resolver.qualname(func.value, scope)
                if base not in ("torch",) and not (base or "").startswith("torch.cuda"):
                    return WorkerHazard(self.s.span(call), "`.cuda()`")
            if func.attr == "to":
                device = call.args[0] if call.args else None
                for keyword in call.keywords:
                    if keyword.arg == "device":
                        device = keyword.value
                if device is not None and self._is_cuda(device, scope):
                    return WorkerHazard(self.s.span(call), f"`.to({self.s.source(device)})`")
        qual = self.resolver.qualname(func, scope)
        if qual and qual.startswith("torch.cuda.") and _last(qual) not in names.CUDA_QUERIES:
            return WorkerHazard(self.s.span(call), f"`{self.s.source(func)}()`")
        if qual and qual.startswith("torch."):
            for keyword in call.keywords:
                if keyword.arg == DEVICE_FACTORY_KWARG and self._is_cuda(keyword.value, scope):
                    return WorkerHazard(self.s.span(call), f"`{self.s.source(func)}(..., device={self.s.source(keyword.value)})`")
        return None

    def _is_cuda(self, expr: ast.AST, scope: Scope, depth: int = 0) -> bool:
        if depth > 4:
            return False
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, str) and expr.value.startswith("cuda")
        if isinstance(expr, ast.Name):
            found = self.resolver.single_value(expr.id, scope)
            return found is not None and self._is_cuda(found[0], found[1], depth + 1)
        if isinstance(expr, ast.Call) and _last(self.resolver.qualname(expr.func, scope)) == "device" and expr.args:
            return self._is_cuda(expr.args[0], scope, depth + 1)
        if isinstance(expr, ast.IfExp):
            return self._is_cuda(expr.body, scope, depth + 1) or self._is_cuda(expr.orelse, scope, depth + 1)
        return False

    def _thread_setting(self, call: ast.Call, scope: Scope) -> Optional[WorkerHazard]:
        qual = self.resolver.qualname(call.func, scope)
        if qual not in names.THREAD_SETTERS:
            return None
        value = call.args[0] if call.args else None
        for keyword in call.keywords:
            if keyword.arg in ("limits", "num_threads", "n"):
                value = keyword.value
        if value is None:
            return None
        number = self.values.constant_int(value, scope)
        if number is not None:
            if number <= 1:
                return None
        elif self.values.workers(value, scope) != frozenset({"positive"}) or not isinstance(value, ast.Call):
            return None  # only os.cpu_count()-like values count when not a constant
        return WorkerHazard(self.s.span(call), f"`{self.s.source(call)}`")

    def _constant_seed(self, call: ast.Call, scope: Scope) -> Optional[WorkerHazard]:
        qual = self.resolver.qualname(call.func, scope)
        if qual not in names.GLOBAL_SEEDERS or not call.args:
            return None
        if self.values.constant_int(call.args[0], scope) is None:
            return None
        return WorkerHazard(self.s.span(call), f"`{self.s.source(call)}`")

    # classes: what a Dataset's workers run ------------------------------------------------
    def _classes(self) -> None:
        by_name = {facts.header_row: facts for facts in self.summary.classes}
        for node in self.resolver.class_nodes():
            if not node.bases:
                continue
            facts = by_name.get(node.lineno)
            if facts is None:
                continue
            methods = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if not any(m in methods for m in names.WORKER_METHODS):
                continue
            text = "\n".join(self.s.lines[node.lineno - 1 : node.end_lineno or node.lineno])
            worker = self._closure(methods, [m for m in names.WORKER_METHODS if m in methods])
            for method in worker if any(w in text for w in CLASS_CUDA_WORDS) else ():
                scope = self.resolver.scope_for(method) or self.root
                for child in ast.walk(method):
                    if not isinstance(child, ast.Call):
                        continue
                    if facts.cuda_work is None:
                        facts.cuda_work = self._cuda_work(child, scope)
                    if facts.thread_setting is None:
                        facts.thread_setting = self._thread_setting(child, scope)
            if "__iter__" in methods:
                self._iterable(facts, methods)
            init = methods.get("__init__")
            if init is not None:
                if any(w in text for w in CLASS_RNG_WORDS):
                    self._rngs(facts, methods, init, worker)
                if "__getitem__" in methods:
                    self._tables(facts, methods, init)

    def _closure(self, methods, start: List[str]) -> List[ast.AST]:
        todo = list(start)
        seen: Set[str] = set()
        out = []
        while todo:
            name = todo.pop()
            if name in seen or name not in methods:
                continue
            seen.add(name)
            out.append(methods[name])
            for child in ast.walk(methods[name]):
                attr = _self_attr(child)
                if attr in methods and attr not in seen:
                    todo.append(attr)
        return out

    def _iterable(self, facts: ClassFacts, methods) -> None:
        facts.iter_span = self.s._def_span(methods["__iter__"])
        path = self._closure(methods, ["__iter__", "__next__"])
        init = methods.get("__init__")
        dataset_params: Set[str] = set()
        if init is not None:
            for arg in list(init.args.args) + list(init.args.kwonlyargs):
                text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                if any(w in arg.arg.lower() for w in ("dataset", "datapipe", "source_dp")) or any(
                    w in text for w in ("Dataset", "IterDataPipe")
                ):
                    dataset_params.add(arg.arg)
        delegated_attrs: Set[str] = set()
        if init is not None:
            for stmt in ast.walk(init):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    attr = _self_attr(stmt.targets[0])
                    if attr and isinstance(stmt.value, ast.Name) and stmt.value.id in dataset_params:
                        delegated_attrs.add(attr)
        delegated_attrs |= {
            n.attr for m in path for n in ast.walk(m)
            if _self_attr(n) is not None and any(w in n.attr.lower() for w in DELEGATE_WORDS)
        }
        consults = getattr(self, "consulting_functions", set())
        calls: Set[str] = set()
        for method in path:
            scope = self.resolver.scope_for(method) or self.root
            for child in ast.walk(method):
                if isinstance(child, ast.Name) and child.id in names.SHARDING_NAMES:
                    facts.shards = True
                elif isinstance(child, ast.Attribute) and child.attr in names.SHARDING_NAMES:
                    facts.shards = True
                elif isinstance(child, (ast.For, ast.comprehension)) and _self_attr(child.iter) in delegated_attrs:
                    facts.delegates = True
                elif isinstance(child, ast.YieldFrom) and self._mentions_attrs(child.value, delegated_attrs):
                    facts.delegates = True
                elif isinstance(child, ast.Call):
                    func = child.func
                    if isinstance(func, ast.Name) and func.id in ("iter",) and child.args and self._mentions_attrs(child.args[0], delegated_attrs):
                        facts.delegates = True
                    if isinstance(func, ast.Name) and self.s._module_function(func.id, scope):
                        if func.id in consults:
                            facts.shards = True
                        continue
                    if _self_attr(func) is not None:
                        continue
                    qual = self.resolver.qualname(func, scope)
                    if qual and not qual.startswith("builtins.") and qual.count(".") >= 1:
                        calls.add(qual)
        facts.iter_calls = frozenset(sorted(calls)[:64])

    @staticmethod
    def _mentions_attrs(expr: ast.AST, attrs: Set[str]) -> bool:
        return any(_self_attr(n) in attrs for n in ast.walk(expr))

    def _rngs(self, facts: ClassFacts, methods, init, worker) -> None:
        scope = self.resolver.scope_for(init) or self.root
        found: Dict[str, RngAttr] = {}
        for stmt in ast.walk(init):
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                continue
            attr = _self_attr(stmt.targets[0])
            if attr is None or not isinstance(stmt.value, ast.Call):
                continue
            value = stmt.value
            ctor = self.resolver.qualname(value.func, scope)
            if ctor not in names.RNG_CONSTRUCTORS and isinstance(value.func, ast.Attribute) and value.func.attr == "manual_seed":
                inner = value.func.value
                if isinstance(inner, ast.Call):
                    ctor = self.resolver.qualname(inner.func, scope)
            if ctor in names.RNG_CONSTRUCTORS:
                found[attr] = RngAttr(attr, ctor, self.s.span(value), False, False)
            elif attr in found:
                del found[attr]  # replaced by something else later in __init__
        if not found:
            return
        for method in worker:
            for child in ast.walk(method):
                attr = _self_attr(child)
                if attr in found:
                    found[attr].used_by_worker = True
        # reseeded where it matters: in code a worker runs, or in a per-worker hook method
        reseeders = list(worker) + [m for n, m in methods.items() if "worker" in n.lower()]
        for method in reseeders:
            for child in ast.walk(method):
                targets = []
                if isinstance(child, ast.Assign):
                    targets = child.targets
                elif isinstance(child, (ast.AnnAssign, ast.AugAssign)):
                    targets = [child.target]
                for target in targets:
                    attr = _self_attr(target)
                    if attr in found:
                        found[attr].reseeded = True
                if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                    attr = _self_attr(child.func.value)
                    if attr in found and child.func.attr in names.RESEED_METHODS:
                        found[attr].reseeded = True
        facts.rngs = list(found.values())

    def _tables(self, facts: ClassFacts, methods, init) -> None:
        scope = self.resolver.scope_for(init) or self.root
        last: Dict[str, Tuple[str, ast.AST]] = {}
        appended: Set[str] = set()
        for stmt in sorted((n for n in ast.walk(init) if isinstance(n, (ast.Assign, ast.Call))),
                           key=lambda n: (n.lineno, n.col_offset)):
            if isinstance(stmt, ast.Call):
                if isinstance(stmt.func, ast.Attribute) and stmt.func.attr in ("append", "extend", "update"):
                    attr = _self_attr(stmt.func.value)
                    if attr:
                        appended.add(attr)
                continue
            if len(stmt.targets) != 1:
                continue
            attr = _self_attr(stmt.targets[0])
            if attr is None:
                continue
            kind = self._table_kind(stmt.value, scope)
            if kind is None:
                last.pop(attr, None)
                continue
            last[attr] = (kind, stmt.value)
        if not last:
            return
        indexed: Set[str] = set()
        for method in self._closure(methods, ["__getitem__"]):
            for child in ast.walk(method):
                if isinstance(child, ast.Subscript):
                    attr = _self_attr(child.value)
                    if attr in last:
                        indexed.add(attr)
        for attr in sorted(indexed):
            kind, value = last[attr]
            empty = isinstance(value, (ast.List, ast.Dict)) and not (value.elts if isinstance(value, ast.List) else value.keys)
            if empty and attr not in appended:
                continue
            facts.object_tables.append(ObjectTable(attr, kind, self.s.span(value)))

    def _table_kind(self, value: ast.AST, scope: Scope) -> Optional[str]:
        if isinstance(value, (ast.List, ast.ListComp)):
            return "list"
        if isinstance(value, (ast.Dict, ast.DictComp)):
            return "dict"
        if isinstance(value, ast.Call):
            qual = self.resolver.qualname(value.func, scope)
            if qual in TABLE_CALLS:
                return "dict" if qual == "builtins.dict" else "list"
        return None

    # set_start_method -----------------------------------------------------------------------
    def _start_methods(self, stmts, scope: Scope, guarded: bool, protected: bool) -> None:
        from .summarize import is_main_guard

        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = self.resolver.scope_for(stmt) or scope
                self._start_methods(stmt.body, inner, guarded, False)
                continue
            if isinstance(stmt, ast.ClassDef):
                continue
            if isinstance(stmt, ast.If) and scope is self.root and is_main_guard(stmt.test):
                self._start_methods(stmt.body, scope, True, protected)
                self._start_methods(stmt.orelse, scope, guarded, protected)
                continue
            if isinstance(stmt, ast.Try) or (hasattr(ast, "TryStar") and isinstance(stmt, ast.TryStar)):
                catches = any(self._catches_runtime(h) for h in stmt.handlers)
                self._start_methods(stmt.body, scope, guarded, protected or catches)
                for handler in stmt.handlers:
                    self._start_methods(handler.body, scope, guarded, protected)
                self._start_methods(stmt.orelse, scope, guarded, protected)
                self._start_methods(stmt.finalbody, scope, guarded, protected)
                continue
            for field, value in ast.iter_fields(stmt):
                items = value if isinstance(value, list) else [value]
                for item in items:
                    if isinstance(item, ast.stmt):
                        self._start_methods([item], scope, guarded, protected)
                    elif isinstance(item, ast.AST) and not isinstance(item, ast.excepthandler):
                        for node in ast.walk(item):
                            if isinstance(node, ast.Call):
                                self._start_method_call(node, scope, guarded, protected)
                    elif isinstance(item, ast.excepthandler):
                        self._start_methods(item.body, scope, guarded, protected)

    def _catches_runtime(self, handler: ast.excepthandler) -> bool:
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        return any(_last(self.resolver.qualname(t, self.root) or getattr(t, "id", "")) in RUNTIME_ERRORS for t in types)

    def _start_method_call(self, call: ast.Call, scope: Scope, guarded: bool, protected: bool) -> None:
        if not isinstance(call.func, (ast.Name, ast.Attribute)):
            return
        if _last(getattr(call.func, "attr", None) or getattr(call.func, "id", None)) != "set_start_method":
            return
        qual = self.resolver.qualname(call.func, scope)
        if qual not in names.START_METHOD_SETTERS:
            return
        force = False
        for keyword in call.keywords:
            if keyword.arg == "force":
                force = self.values.truthy(keyword.value, scope) != "false"
        if len(call.args) >= 2:
            force = self.values.truthy(call.args[1], scope) != "false"
        method = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
        self.summary.start_method_calls.append(
            StartMethodCall(self.s.span(call), scope.qualname, guarded, force, protected,
                            method if isinstance(method, str) else None)
        )

    # training-library entry points (DSL101) ------------------------------------------------
    def _trainer_entry_points(self) -> None:
        table: Dict[str, List[Tuple[str, str]]] = {}
        for entry in names.trainer_entry_points():
            package, cls, method = names.split_entry_point(entry)
            table.setdefault(method, []).append((package, cls))
        for node in self.resolver.function_nodes():
            scope = self.resolver.scope_for(node)
            if scope is None or scope.parent is not self.root:
                continue
            facts = self.summary.functions.get(node.name)
            if facts is None or facts.starts is not None:
                continue
            for child in self.s_body_nodes(node.body):
                reason = self._entry_call(child, scope, table)
                if reason is not None:
                    facts.starts = ProcessStart(reason)
                    break
        existing = {st.span: st for st in self.summary.statements}
        for stmt in self.s._unguarded_simple(self.tree.body):
            for child in self.s._statement_nodes([stmt], True):
                reason = self._entry_call(child, self.root, table)
                if reason is None:
                    continue
                span = self.s.span(stmt)
                found = existing.get(span)
                if found is None:
                    found = StatementFacts(span)
                    self.summary.statements.append(found)
                    existing[span] = found
                if found.starts is None:
                    found.starts = ProcessStart(reason)
                break

    def _entry_call(self, node: ast.AST, scope: Scope, table) -> Optional[str]:
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return None
        candidates = table.get(node.func.attr)
        if not candidates:
            return None
        receiver, owner = node.func.value, scope
        if isinstance(receiver, ast.Name):
            found = self.resolver.single_value(receiver.id, scope)
            if found is None:
                return None
            receiver, owner = found
        if not isinstance(receiver, ast.Call):
            return None
        func = receiver.func
        cls = self.resolver.qualname(func, owner)
        if cls is None and isinstance(func, ast.Attribute):
            cls = self.resolver.qualname(func.value, owner)  # Runner.from_cfg(cfg)
        elif isinstance(func, ast.Attribute) and not any(self._class_matches(cls, p, c) for p, c in candidates):
            cls = self.resolver.qualname(func.value, owner)
        if cls is None:
            return None
        for package, wanted in candidates:
            if self._class_matches(cls, package, wanted):
                return f"calls `{wanted}(...).{node.func.attr}()`, which starts DataLoader workers"
        return None

    @staticmethod
    def _class_matches(qualname: Optional[str], package: str, cls: str) -> bool:
        if not qualname:
            return False
        return (qualname.split(".")[0] == package) and qualname.rsplit(".", 1)[-1] == cls


def collect(summarizer, tree: ast.Module) -> None:
    """Entry point called once at the end of ``Summarizer.run``."""
    ExtraFacts(summarizer, tree).run()
