"""ast → ModuleSummary: the one pass that turns a file into facts.

The walk keeps the scope of every node, builds a LoaderSite for each loader construction
with its keywords resolved to three-valued facts, records Dataset-like classes with their
handles and stored callables, and summarises every function and unguarded module-level
statement by whether it starts worker processes.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from . import names
from .model import (
    BatchMove,
    CallableArg,
    ClassFacts,
    FunctionFacts,
    Handle,
    Keyword,
    LoaderSite,
    ModuleSummary,
    ProcessStart,
    Span,
    StatementFacts,
)
from .scopes import Resolver, Scope, ScopeBuilder
from .values import W_UNKNOWN, Evaluator
from ..prefilter import ALL as ALL_ASPECTS

NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Last names of process-starting callables (resolved fully only when one of these is seen).
PROCESS_FUNC_NAMES = frozenset({"spawn", "start_processes", "Pool", "ProcessPoolExecutor", "start"})
CV2_THREAD_SETTINGS = frozenset({"setNumThreads", "getNumThreads", "ocl", "setUseOptimized"})
# Calls that look at a loader without iterating it.
INERT_CALLEES = frozenset(
    {"builtins.len", "builtins.print", "builtins.isinstance", "builtins.type", "builtins.id",
     "builtins.repr", "builtins.str", "builtins.hasattr", "builtins.getattr", "builtins.setattr"}
)


def is_main_guard(test: ast.AST) -> bool:
    """``__name__ == "__main__"`` in either order."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    has_name = any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
    has_main = any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
    return has_name and has_main


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` that runs in the same scope (nested defs excluded)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(child))


def body_nodes(stmts: Iterable[ast.stmt]) -> Iterator[ast.AST]:
    for stmt in stmts:
        yield stmt
        if not isinstance(stmt, NESTED_SCOPES):
            yield from own_nodes(stmt)


def loaded_names(expr: ast.AST) -> Set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def last_part(qualname: Optional[str]) -> str:
    return qualname.rsplit(".", 1)[-1] if qualname else ""


class Summarizer:
    def __init__(self, path: str, text: str, module: str, is_package: bool, aspects=ALL_ASPECTS):
        self.aspects = aspects
        self.path = path
        self.text = text
        self.lines = text.splitlines()
        self.module = module
        self.is_package = is_package

    # positions ------------------------------------------------------------
    def _col(self, row: int, byte_col: int) -> int:
        line = self.lines[row - 1] if 0 < row <= len(self.lines) else ""
        if line.isascii():
            return byte_col + 1
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace")) + 1

    def span(self, node: ast.AST) -> Span:
        row = node.lineno
        end_row = getattr(node, "end_lineno", None) or row
        end_col = getattr(node, "end_col_offset", None)
        return Span(
            row,
            self._col(row, node.col_offset),
            end_row,
            self._col(end_row, end_col) if end_col is not None else self._col(row, node.col_offset) + 1,
        )

    def source(self, node: ast.AST) -> str:
        """The exact source text of ``node``."""
        row, end_row = node.lineno, getattr(node, "end_lineno", node.lineno)
        first = self.lines[row - 1].encode("utf-8") if row <= len(self.lines) else b""
        if row == end_row:
            return first[node.col_offset : node.end_col_offset].decode("utf-8", "replace")
        parts = [first[node.col_offset :].decode("utf-8", "replace")]
        parts.extend(self.lines[row : end_row - 1])
        last = self.lines[end_row - 1].encode("utf-8") if end_row <= len(self.lines) else b""
        parts.append(last[: node.end_col_offset].decode("utf-8", "replace"))
        return "\n".join(parts)

    # driver ---------------------------------------------------------------
    def run(self, tree: ast.Module) -> ModuleSummary:
        builder = ScopeBuilder(self.module, self.is_package, walrus=":=" in self.text)
        self.root = builder.build(tree)
        self.resolver = Resolver(self.module, self.root, builder.scope_of)
        self.values = Evaluator(self.resolver)
        self.summary = ModuleSummary(self.path, self.module, self.is_package)
        self.sites: Dict[int, LoaderSite] = {}
        self.site_nodes: Dict[int, ast.Call] = {}
        self.site_scope: Dict[int, Scope] = {}
        self._scan_module_imports(tree)
        wanted = self.aspects
        if wanted & {"loaders", "processes", "cv2", "throttle"}:
            self._walk(tree.body, self.root, guarded=False)
        if self.summary.loaders or wanted & {"processes", "throttle", "handles"}:
            self._functions(tree)
        if self.summary.loaders or "processes" in wanted:
            self._statements(tree)
        self._classes(tree)
        self._batch_moves()
        from .extra_facts import collect; collect(self, tree)  # noqa: E702  facts of the catalogue beyond the core six
        return self.summary

    # imports and cv2 --------------------------------------------------------
    def _scan_module_imports(self, tree: ast.Module) -> None:
        imported: List[str] = []
        for stmt in self._module_level(tree.body, include_guard=True):
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    imported.append(alias.name)
                    if alias.name == "cv2" and self.summary.cv2_import is None:
                        self.summary.cv2_import = self.span(stmt)
                        self.summary.cv2_alias = alias.asname or "cv2"
            elif isinstance(stmt, ast.ImportFrom):
                base = stmt.module or ""
                if stmt.level:
                    from .scopes import resolve_relative

                    base = resolve_relative(self.module, self.is_package, stmt.level, stmt.module)
                if base:
                    imported.append(base)
                for alias in stmt.names:
                    if alias.name != "*" and base:
                        imported.append(f"{base}.{alias.name}")
                if base == "cv2" and self.summary.cv2_import is None:
                    self.summary.cv2_import = self.span(stmt)
        self.summary.imports = tuple(dict.fromkeys(imported))

    def _module_level(self, stmts, include_guard: bool) -> Iterator[ast.stmt]:
        """Module-level statements, flattened through if/try/with/for bodies."""
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield stmt
                continue
            if isinstance(stmt, ast.If) and is_main_guard(stmt.test):
                if include_guard:
                    yield from self._module_level(stmt.body, include_guard)
                yield from self._module_level(stmt.orelse, include_guard)
                continue
            yield stmt
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    yield from self._module_level(inner, include_guard)
            for handler in getattr(stmt, "handlers", []) or []:
                yield from self._module_level(handler.body, include_guard)

    def _is_set_threads(self, call: ast.Call, scope: Scope) -> bool:
        """``cv2.setNumThreads(n)`` that throttles: 0 or 1, or a value the project manages."""
        if self.resolver.qualname(call.func, scope) != names.CV2_SET_THREADS or not call.args:
            return False
        value = self.values.constant_int(call.args[0], scope)
        return value is None or value <= 1

    # the main walk: loader sites -------------------------------------------
    def _walk(self, stmts, scope: Scope, guarded: bool) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for expr in self._header_exprs(stmt):
                    self._visit_expr(expr, scope, guarded)
                inner = self.resolver.scope_for(stmt) or scope
                self._walk(stmt.body, inner, guarded)
                continue
            if isinstance(stmt, ast.If) and scope is self.root and is_main_guard(stmt.test):
                self._walk(stmt.body, scope, True)
                self._walk(stmt.orelse, scope, guarded)
                continue
            for field, value in ast.iter_fields(stmt):
                items = value if isinstance(value, list) else [value]
                for item in items:
                    if isinstance(item, ast.stmt):
                        self._walk([item], scope, guarded)
                    elif isinstance(item, ast.excepthandler):
                        if item.type is not None:
                            self._visit_expr(item.type, scope, guarded)
                        self._walk(item.body, scope, guarded)
                    elif isinstance(item, ast.AST):
                        self._visit_expr(item, scope, guarded)

    def _header_exprs(self, stmt) -> List[ast.AST]:
        if isinstance(stmt, ast.ClassDef):
            return list(stmt.bases) + [k.value for k in stmt.keywords] + list(stmt.decorator_list)
        args = stmt.args
        return list(stmt.decorator_list) + list(args.defaults) + [d for d in args.kw_defaults if d]

    def _visit_expr(self, expr: ast.AST, scope: Scope, guarded: bool) -> None:
        cv2_alias = self.summary.cv2_alias if self.summary.cv2_import is not None else None
        throttle = "throttle" in self.aspects
        loaders = "loaders" in self.aspects
        for node in ast.walk(expr):
            if (
                cv2_alias is not None
                and isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == cv2_alias
                and node.attr not in CV2_THREAD_SETTINGS
                and not self.summary.cv2_used
                and self.resolver.qualname(node.value, scope) == "cv2"
            ):
                self.summary.cv2_used = True
            if isinstance(node, ast.Call):
                if throttle and self._is_set_threads(node, scope):
                    self.summary.cv2_throttled_anywhere = True
                    if scope is self.root and not guarded:
                        self.summary.cv2_throttled_at_import = True
                site = self._loader_site(node, scope, guarded) if loaders else None
                if site is not None:
                    self.sites[id(node)] = site
                    self.site_nodes[id(site)] = node
                    self.site_scope[id(site)] = scope
                    self.summary.loaders.append(site)

    # loader sites -------------------------------------------------------------
    def _loader_factory(self, func: ast.AST, scope: Scope):
        """(callee, is torch's DataLoader, pre-bound keywords) or None."""
        qual = self.resolver.qualname(func, scope)
        if qual in names.LOADERS:
            return qual, True, []
        if isinstance(func, ast.Name):
            found = self.resolver.single_value(func.id, scope)
            if found is not None and isinstance(found[0], ast.Call):
                call, owner = found
                if self.resolver.qualname(call.func, owner) in names.PARTIAL and call.args:
                    inner = self.resolver.qualname(call.args[0], owner)
                    if inner in names.LOADERS:
                        return inner, True, [(k, owner) for k in call.keywords]
        return (qual, False, []) if qual and not qual.startswith("builtins.") else None

    def _loader_site(self, call: ast.Call, scope: Scope, guarded: bool) -> Optional[LoaderSite]:
        factory = self._loader_factory(call.func, scope)
        if factory is None:
            return None
        callee, known, prebound = factory
        keywords: Dict[str, Tuple[ast.keyword, Scope]] = {}
        for keyword, owner in prebound:
            if keyword.arg:
                keywords[keyword.arg] = (keyword, owner)
        if not known and not any(k.arg in names.LOADER_HINT_KEYWORDS for k in call.keywords):
            return None
        splat_unresolved = False
        for keyword in call.keywords:
            if keyword.arg is not None:
                keywords[keyword.arg] = (keyword, scope)
                continue
            resolved = self._resolve_splat(keyword.value, scope)
            if resolved is None:
                splat_unresolved = True
            else:
                keywords.update(resolved)
        positional: Dict[str, ast.AST] = {}
        if known:
            for name, arg in zip(names.LOADER_POSITIONAL, call.args):
                if isinstance(arg, ast.Starred):
                    splat_unresolved = True
                    break
                positional[name] = arg
        elif call.args:
            positional["dataset"] = call.args[0]

        def value_of(name: str):
            if name in keywords:
                keyword, owner = keywords[name]
                return keyword.value, owner
            if name in positional:
                return positional[name], scope
            return None, scope

        workers_expr, workers_scope = value_of("num_workers")
        if workers_expr is None and (splat_unresolved or not known):
            workers = W_UNKNOWN
        else:
            workers = self.values.workers(workers_expr, workers_scope)
        site = LoaderSite(
            span=self.span(call),
            callee=callee,
            known_loader=known,
            scope=scope.qualname,
            guarded=guarded,
            workers=workers,
            workers_source=self.source(workers_expr) if workers_expr is not None else None,
            splat_unresolved=splat_unresolved,
        )
        for name, (keyword, owner) in keywords.items():
            site.keywords[name] = Keyword(
                self.span(keyword) if hasattr(keyword, "lineno") else self.span(keyword.value),
                self.source(keyword.value),
                self.values.truthy(keyword.value, owner),
            )
        for role in ("collate_fn", "worker_init_fn"):
            expr, owner = value_of(role)
            if expr is not None:
                site.callables.extend(self._unpicklable(expr, owner, role))
                if role == "worker_init_fn":
                    site.worker_init_fn = self.resolver.qualname(expr, owner)
        dataset_expr, dataset_scope = value_of("dataset")
        self._dataset(site, dataset_expr, dataset_scope)
        return site

    def _resolve_splat(self, expr: ast.AST, scope: Scope):
        """``**kw`` where kw is a literal dict in reach → its keywords, else None."""
        value, owner = expr, scope
        if isinstance(expr, ast.Name):
            found = self.resolver.single_value(expr.id, scope)
            if found is None:
                return None
            value, owner = found
        result = {}
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return None
                result[key.value] = (ast.keyword(arg=key.value, value=item), owner)
            return result
        if isinstance(value, ast.Call) and self.resolver.qualname(value.func, owner) == "builtins.dict":
            if value.args or any(k.arg is None for k in value.keywords):
                return None
            return {k.arg: (k, owner) for k in value.keywords}
        return None

    def _dataset(self, site: LoaderSite, expr: Optional[ast.AST], scope: Scope) -> None:
        if expr is None:
            return
        if isinstance(expr, ast.Name):
            found = self.resolver.single_value(expr.id, scope)
            if found is None:
                return
            expr, scope = found
        if not isinstance(expr, ast.Call):
            return
        site.dataset_class = self.resolver.qualname(expr.func, scope)
        for arg in list(expr.args) + [k.value for k in expr.keywords]:
            site.callables.extend(self._unpicklable(arg, scope, "dataset argument"))

    # unpicklable callables ------------------------------------------------------
    def _unpicklable(self, expr: ast.AST, scope: Scope, role: str, depth: int = 0) -> List[CallableArg]:
        if depth > 5:
            return []
        if isinstance(expr, ast.Lambda):
            return [CallableArg(role, "lambda", "<lambda>", self.span(expr), self._lambda_free_vars(expr, scope))]
        if isinstance(expr, ast.Name):
            return self._unpicklable_name(expr, scope, role, depth)
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return [c for elt in expr.elts for c in self._unpicklable(elt, scope, role, depth + 1)]
        if isinstance(expr, ast.Dict):
            return [c for v in expr.values if v is not None for c in self._unpicklable(v, scope, role, depth + 1)]
        if isinstance(expr, ast.IfExp):
            return self._unpicklable(expr.body, scope, role, depth + 1) + self._unpicklable(
                expr.orelse, scope, role, depth + 1
            )
        if isinstance(expr, ast.BoolOp):
            return [c for v in expr.values for c in self._unpicklable(v, scope, role, depth + 1)]
        if isinstance(expr, ast.Call):
            callee = self.resolver.qualname(expr.func, scope)
            if isinstance(expr.func, ast.Name):
                local = self._local_definition(expr.func.id, scope)
                if local is not None and isinstance(local[0], ast.ClassDef):
                    node, _ = local
                    return [CallableArg(role, "nested class", node.name, self.span(expr.func), (), self._def_span(node))]
            if last_part(callee) in names.STORING_WRAPPERS_LAST:
                args = list(expr.args) + [k.value for k in expr.keywords]
                return [c for a in args for c in self._unpicklable(a, scope, role, depth + 1)]
        return []

    def _local_definition(self, name: str, scope: Scope):
        """(def/class node, owner scope) when ``name`` is defined inside a function."""
        bindings = self.resolver.lookup(name, scope)
        if not bindings:
            return None
        owner = self.resolver.owner(name, scope)
        if owner is None or owner.kind != "function":
            return None
        for binding in bindings:
            if binding.kind in ("def", "class"):
                return binding.node, owner
        return None

    def _unpicklable_name(self, expr: ast.Name, scope: Scope, role: str, depth: int) -> List[CallableArg]:
        local = self._local_definition(expr.id, scope)
        if local is not None:
            node, _ = local
            kind = "nested class" if isinstance(node, ast.ClassDef) else "nested function"
            free = () if isinstance(node, ast.ClassDef) else self._def_free_vars(node)
            return [CallableArg(role, kind, node.name, self.span(expr), free, self._def_span(node))]
        found = self.resolver.single_value(expr.id, scope)
        if found is not None:
            value, owner = found
            if isinstance(value, ast.Lambda):
                return [CallableArg(role, "lambda", expr.id, self.span(expr), self._lambda_free_vars(value, owner), self.span(value))]
            if isinstance(value, ast.Call):
                return [
                    CallableArg(c.role, c.kind, c.name, self.span(expr), c.free_vars, c.definition or c.span)
                    for c in self._unpicklable(value, owner, role, depth + 1)
                ]
        return []

    def _def_span(self, node) -> Span:
        row = node.lineno
        line = self.lines[row - 1] if row <= len(self.lines) else ""
        col = line.find(node.name)
        col = col + 1 if col >= 0 else self._col(row, node.col_offset)
        return Span(row, col, row, col + len(node.name))

    def _lambda_free_vars(self, node: ast.Lambda, scope: Scope) -> Tuple[str, ...]:
        params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        bound = params | {
            n.id for n in ast.walk(node.body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        free = set()
        for name in loaded_names(node.body) - bound:
            owner = self.resolver.owner(name, scope)
            if owner is not None and owner.kind == "function":
                free.add(name)
        return tuple(sorted(free))

    def _def_free_vars(self, node) -> Tuple[str, ...]:
        """Names a nested def reads from the functions around it (closure variables)."""
        inner = self.resolver.scope_for(node)
        if inner is None:
            return ()
        free = set()
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                owner = self.resolver.owner(child.id, inner)
                if owner is not None and owner.kind == "function" and self._is_enclosing(owner, inner):
                    free.add(child.id)
        return tuple(sorted(free))

    @staticmethod
    def _is_enclosing(outer: Scope, inner: Scope) -> bool:
        scope = inner.parent
        while scope is not None:
            if scope is outer:
                return True
            scope = scope.parent
        return False

    # functions and statements: who starts worker processes ----------------------
    def _functions(self, tree: ast.Module) -> None:
        process_facts = bool(self.summary.loaders) or "processes" in self.aspects
        attrs_wanted = "handles" in self.aspects
        throttle_wanted = "throttle" in self.aspects
        for stmt in self.resolver.function_nodes():
            scope = self.resolver.scope_for(stmt)
            facts = FunctionFacts(stmt.name, scope.qualname)
            if process_facts:
                facts.starts, calls = self._process_facts(stmt.body, scope)
                facts.calls = frozenset(calls)
            if attrs_wanted or throttle_wanted:
                assigned = set()
                for node in body_nodes(stmt.body):
                    if throttle_wanted and isinstance(node, ast.Call) and self._is_set_threads(node, scope):
                        facts.throttles_cv2 = True
                    if attrs_wanted and isinstance(node, (ast.Assign, ast.AnnAssign)):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        for target in targets:
                            if isinstance(target, ast.Attribute) and not (
                                isinstance(target.value, ast.Name) and target.value.id == "self"
                            ):
                                assigned.add(target.attr)
                facts.assigned_attrs = frozenset(assigned)
            key = stmt.name if scope.parent is self.root else scope.qualname
            self.summary.functions.setdefault(key, facts)

    def _statements(self, tree: ast.Module) -> None:
        for stmt in self._unguarded_simple(tree.body):
            starts, calls = self._process_facts([stmt], self.root, header_only=True)
            if starts is not None or calls:
                self.summary.statements.append(StatementFacts(self.span(stmt), starts, frozenset(calls)))

    def _unguarded_simple(self, stmts) -> Iterator[ast.stmt]:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
                continue
            if isinstance(stmt, ast.If) and is_main_guard(stmt.test):
                yield from self._unguarded_simple(stmt.orelse)
                continue
            yield stmt
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    yield from self._unguarded_simple(inner)
            for handler in getattr(stmt, "handlers", []) or []:
                yield from self._unguarded_simple(handler.body)

    def _statement_nodes(self, stmts, header_only: bool) -> Iterator[ast.AST]:
        if not header_only:
            yield from body_nodes(stmts)
            return
        for stmt in stmts:
            yield stmt
            for field, value in ast.iter_fields(stmt):
                if field in ("body", "orelse", "finalbody", "handlers"):
                    continue
                items = value if isinstance(value, list) else [value]
                for item in items:
                    if isinstance(item, ast.AST):
                        yield item
                        if not isinstance(item, NESTED_SCOPES):
                            yield from own_nodes(item)

    def _process_facts(self, stmts, scope: Scope, header_only: bool = False):
        """(first direct ProcessStart, names of same-module functions called)."""
        loader_vars = self._loader_vars(scope)
        starts: Optional[ProcessStart] = None
        calls: Set[str] = set()
        for node in self._statement_nodes(stmts, header_only):
            if isinstance(node, ast.For) or isinstance(node, ast.comprehension):
                site = self._iterated_site(node.iter, scope, loader_vars)
                if site is not None and starts is None and site.workers != frozenset({"zero"}):
                    starts = ProcessStart(f"iterates a DataLoader with {self._workers_text(site)} workers", site.span)
            if not isinstance(node, ast.Call):
                continue
            func_name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            hands_over = any(isinstance(a, ast.Name) and a.id in loader_vars for a in node.args) or any(
                isinstance(k.value, ast.Name) and k.value.id in loader_vars for k in node.keywords
            ) or any(id(a) in self.sites for a in node.args)
            if func_name not in PROCESS_FUNC_NAMES and not hands_over and func_name not in ("iter", "next"):
                if isinstance(node.func, ast.Name) and self._module_function(node.func.id, scope):
                    calls.add(node.func.id)
                continue
            callee = self.resolver.qualname(node.func, scope)
            if callee and last_part(callee) in ("iter", "next") and node.args:
                site = self._iterated_site(node.args[0], scope, loader_vars)
                if site is not None and starts is None and site.workers != frozenset({"zero"}):
                    starts = ProcessStart(f"iterates a DataLoader with {self._workers_text(site)} workers", site.span)
            if starts is None:
                starts = self._process_start(node, callee, scope)
            if isinstance(node.func, ast.Name) and self._module_function(node.func.id, scope):
                calls.add(node.func.id)
            if starts is None and callee not in INERT_CALLEES:
                for arg in list(node.args) + [k.value for k in node.keywords]:
                    site = loader_vars.get(arg.id) if isinstance(arg, ast.Name) else self.sites.get(id(arg))
                    if site is not None and site.workers != frozenset({"zero"}) and self._is_call_statement(node, stmts):
                        target = self.source(node.func) or "a function"
                        starts = ProcessStart(
                            f"hands a DataLoader with {self._workers_text(site)} workers to `{target}()`",
                            site.span,
                        )
                        break
        return starts, calls

    def _is_call_statement(self, call: ast.Call, stmts) -> bool:
        """Whether ``call``'s result is discarded (a call statement), i.e. it consumes the loader."""
        return id(call) in self._expression_statement_calls

    @property
    def _expression_statement_calls(self) -> Set[int]:
        cached = getattr(self, "_expr_calls", None)
        if cached is None:
            cached = {
                id(node.value)
                for node in ast.walk(self._tree)
                if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            }
            self._expr_calls = cached
        return cached

    @staticmethod
    def _workers_text(site: LoaderSite) -> str:
        from .values import describe

        return describe(site.workers)

    def _module_function(self, name: str, scope: Scope) -> bool:
        owner = self.resolver.owner(name, scope)
        return owner is self.root and any(b.kind == "def" for b in self.root.bindings.get(name, []))

    def _process_start(self, call: ast.Call, callee: Optional[str], scope: Scope) -> Optional[ProcessStart]:
        if callee in names.PROCESS_STARTERS:
            return ProcessStart(f"calls `{callee}`")
        if isinstance(call.func, ast.Attribute) and call.func.attr == "start":
            target = call.func.value
            if isinstance(target, ast.Name):
                found = self.resolver.single_value(target.id, scope)
                target = found[0] if found else target
                scope = found[1] if found else scope
            if isinstance(target, ast.Call) and self.resolver.qualname(target.func, scope) in names.PROCESS_CLASSES:
                return ProcessStart("starts a `multiprocessing.Process`")
        return None

    def _loader_vars(self, scope: Scope) -> Dict[str, LoaderSite]:
        """Names in ``scope`` bound to a loader construction (or to a wrapper of one)."""
        cache = getattr(self, "_loader_var_cache", None)
        if cache is None:
            cache = self._loader_var_cache = {}
        if id(scope) in cache:
            return cache[id(scope)]
        result: Dict[str, LoaderSite] = {}
        for name, bindings in scope.bindings.items():
            for binding in bindings:
                if binding.kind == "assign" and isinstance(binding.value, ast.Call):
                    site = self.sites.get(id(binding.value))
                    if site is not None:
                        result[name] = site
        # names assigned from a call that takes a loader (accelerator.prepare(loader), ...)
        for _ in range(2):
            for name, bindings in scope.bindings.items():
                for binding in bindings:
                    value = binding.value
                    if name in result or not isinstance(value, ast.Call):
                        continue
                    for arg in value.args:
                        if isinstance(arg, ast.Name) and arg.id in result:
                            result[name] = result[arg.id]
        if scope is not self.root:
            for name, site in self._loader_vars(self.root).items():
                if name not in scope.bindings:
                    result.setdefault(name, site)
        cache[id(scope)] = result
        return result

    def _iterated_site(self, expr: ast.AST, scope: Scope, loader_vars) -> Optional[LoaderSite]:
        """The loader a ``for`` iterates, seeing through enumerate()/tqdm()/zip()/iter()."""
        for _ in range(4):
            if isinstance(expr, ast.Name):
                return loader_vars.get(expr.id)
            if isinstance(expr, ast.Call):
                if id(expr) in self.sites:
                    return self.sites[id(expr)]
                if last_part(self.resolver.qualname(expr.func, scope) or getattr(expr.func, "attr", "")) in names.ITERATION_WRAPPERS_LAST and expr.args:
                    for arg in expr.args:
                        site = self._iterated_site(arg, scope, loader_vars)
                        if site is not None:
                            return site
                return None
            return None
        return None

    # DSL301: where batches go ---------------------------------------------------
    def _batch_moves(self) -> None:
        for site in self.summary.loaders:
            pin = site.keywords.get("pin_memory")
            if pin is None or pin.truthy != "true":
                continue
            call = self.site_nodes[id(site)]
            scope = self.site_scope[id(site)]
            if scope.kind == "class":
                continue
            names_of_site = {n for n, s in self._loader_vars(scope).items() if s is site}
            body = scope.node.body
            moves = self._moves_in(body, names_of_site, scope)
            for callee_def, param in self._handed_to_functions(body, names_of_site, scope):
                inner = self.resolver.scope_for(callee_def)
                if inner is not None:
                    moves.extend(self._moves_in(callee_def.body, {param}, inner))
            site.batch_moves = moves

    def _handed_to_functions(self, body, loader_names: Set[str], scope: Scope):
        for node in body_nodes(body):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            bindings = self.resolver.lookup(node.func.id, scope) or []
            defs = [b.node for b in bindings if b.kind == "def"]
            if len(defs) != 1:
                continue
            params = [a.arg for a in list(getattr(defs[0].args, "posonlyargs", [])) + list(defs[0].args.args)]
            for index, arg in enumerate(node.args):
                if isinstance(arg, ast.Name) and arg.id in loader_names and index < len(params):
                    yield defs[0], params[index]
            for keyword in node.keywords:
                if isinstance(keyword.value, ast.Name) and keyword.value.id in loader_names and keyword.arg:
                    yield defs[0], keyword.arg

    def _moves_in(self, body, loader_names: Set[str], scope: Scope) -> List[BatchMove]:
        moves: List[BatchMove] = []
        if not loader_names:
            return moves
        vars_map = {name: None for name in loader_names}
        for node in body_nodes(body):
            if not isinstance(node, (ast.For, ast.AsyncFor)):
                continue
            if not self._iterates_names(node.iter, vars_map, scope):
                continue
            tainted = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            loop_nodes = list(body_nodes(node.body))
            for _ in range(3):
                for inner in loop_nodes:
                    if isinstance(inner, ast.Assign) and loaded_names(inner.value) & tainted:
                        for target in inner.targets:
                            tainted |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
                    elif isinstance(inner, ast.comprehension) and loaded_names(inner.iter) & tainted:
                        tainted |= {n.id for n in ast.walk(inner.target) if isinstance(n, ast.Name)}
                    elif isinstance(inner, (ast.For, ast.AsyncFor)) and loaded_names(inner.iter) & tainted:
                        tainted |= {n.id for n in ast.walk(inner.target) if isinstance(n, ast.Name)}
            for inner in loop_nodes:
                move = self._device_move(inner, tainted, scope)
                if move is not None:
                    moves.append(move)
        return moves

    def _iterates_names(self, expr: ast.AST, loader_names, scope: Scope) -> bool:
        return self._iterated_site(expr, scope, {n: True for n in loader_names}) is not None

    def _device_move(self, node: ast.AST, tainted: Set[str], scope: Scope) -> Optional[BatchMove]:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            return None
        method = node.func.attr
        if method not in ("to", "cuda") or not (loaded_names(node.func.value) & tainted):
            return None
        if method == "to" and not self._is_device_target(node, scope):
            return None
        non_blocking = False
        for keyword in node.keywords:
            if keyword.arg == "non_blocking":
                non_blocking = not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False)
        if method == "cuda" and len(node.args) >= 2:
            non_blocking = True
        if method == "to" and len(node.args) >= 3:
            non_blocking = True
        return BatchMove(self.span(node), method, non_blocking)

    def _is_device_target(self, call: ast.Call, scope: Scope) -> bool:
        if any(k.arg == "device" for k in call.keywords):
            return True
        if not call.args:
            return False
        first = call.args[0]
        if isinstance(first, ast.Constant):
            return isinstance(first.value, str) and not first.value.startswith("cpu")
        qual = self.resolver.qualname(first, scope)
        if qual and qual.startswith("torch.") and last_part(qual) in names.TORCH_DTYPES:
            return False
        if isinstance(first, ast.Attribute) and first.attr == "dtype":
            return False
        if isinstance(first, ast.Name) and "dtype" in first.id.lower():
            return False
        if isinstance(first, ast.Call) and last_part(self.resolver.qualname(first.func, scope)) == "device":
            arg = first.args[0] if first.args else None
            return not (isinstance(arg, ast.Constant) and str(arg.value).startswith("cpu"))
        return True

    # classes ----------------------------------------------------------------------
    def _classes(self, tree: ast.Module) -> None:
        module_handles = self._module_handle_candidates(tree) if "handles" in self.aspects else {}
        for node in self.resolver.class_nodes():
            self.summary.classes.append(self._class_facts(node, module_handles))
        self.summary.module_handles = list(module_handles.values())

    def _module_handle_candidates(self, tree: ast.Module) -> Dict[str, Handle]:
        found: Dict[str, Handle] = {}
        for stmt in self._unguarded_simple(tree.body):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if isinstance(stmt.value, ast.Call):
                    ctor = self.resolver.qualname(stmt.value.func, self.root)
                    if ctor in names.HANDLE_CONSTRUCTORS:
                        name = stmt.targets[0].id
                        found[name] = Handle(name, ctor, self.span(stmt.value), False, False)
        return found

    def _class_facts(self, node: ast.ClassDef, module_handles: Dict[str, Handle]) -> ClassFacts:
        scope = self.resolver.scope_for(node)
        outer = scope.parent if scope is not None else self.root
        bases = tuple(self.resolver.qualname(b, outer) or "" for b in node.bases)
        qualname = f"{self.module}.{scope.qualname}" if scope is not None else node.name
        facts = ClassFacts(node.name, qualname, self._def_span(node), node.lineno, bases)
        methods = {
            stmt.name: stmt for stmt in node.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        if self.summary.cv2_import is not None:
            facts.uses_cv2 = self._uses_cv2(node)
        if "throttle" in self.aspects:
            facts.throttles_cv2 = any(
                isinstance(n, ast.Call) and self._is_set_threads(n, self.resolver.scope_for(m) or self.root)
                for m in methods.values()
                for n in ast.walk(m)
            )
        if not node.bases or not self.aspects & {"classes", "cv2", "handles"}:
            return facts
        init = methods.get("__init__")
        if module_handles:
            _, worker_names = self._worker_reads(methods)
            for name in worker_names:
                if name in module_handles:
                    module_handles[name].used_by_worker = True
        if init is not None:
            init_scope = self.resolver.scope_for(init) or self.root
            reassigned: Optional[Set[str]] = None
            derived: Dict[str, str] = {}
            for stmt in body_nodes(init.body):
                if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                    continue
                attr = self._self_attr(stmt.targets[0])
                if attr is None:
                    continue
                value = stmt.value
                facts.stored_callables.extend(
                    c for c in self._unpicklable(value, init_scope, "dataset attribute") if c.kind == "lambda" or c.kind.startswith("nested")
                )
                if isinstance(value, ast.Call):
                    ctor = self.resolver.qualname(value.func, init_scope)
                    if ctor in names.HANDLE_CONSTRUCTORS:
                        if reassigned is None:
                            reassigned = self._attrs_assigned_outside_init(methods)
                        facts.handles.append(Handle(attr, ctor, self.span(value), False, attr in reassigned))
                        continue
                root_attr = self._self_attr_root(value)
                if root_attr is not None:
                    derived[attr] = root_attr
            if facts.handles:
                closed = self._released_in_init(init, {h.attr for h in facts.handles})
                facts.handles = [h for h in facts.handles if h.attr not in closed]
                worker_attrs, _ = self._worker_reads(methods)
                for handle in facts.handles:
                    users = {handle.attr} | {d for d, r in derived.items() if r == handle.attr}
                    handle.used_by_worker = bool(users & worker_attrs)
        return facts

    def _released_in_init(self, init, attrs: Set[str]) -> Set[str]:
        """Handles ``__init__`` drops again (``self.env = None`` / ``del self.env`` after opening)."""
        released: Set[str] = set()
        opened: Set[str] = set()
        for stmt in sorted(
            (n for n in body_nodes(init.body) if isinstance(n, (ast.Assign, ast.Delete))),
            key=lambda n: (n.lineno, n.col_offset),
        ):
            targets = stmt.targets
            for target in targets:
                attr = self._self_attr(target)
                if attr not in attrs:
                    continue
                if isinstance(stmt, ast.Delete) or (
                    isinstance(stmt.value, ast.Constant) and stmt.value.value is None and attr in opened
                ):
                    released.add(attr)
                elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                    opened.add(attr)
                    released.discard(attr)
        return released

    def _uses_cv2(self, node: ast.ClassDef) -> bool:
        for child in ast.walk(node):
            if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                scope = self._scope_at(child, node)
                if self.resolver.qualname(child.value, scope) == "cv2":
                    return True
        return False

    def _scope_at(self, child, class_node) -> Scope:
        return self.resolver.scope_for(class_node) or self.root

    @staticmethod
    def _self_attr(target: ast.AST) -> Optional[str]:
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            return target.attr
        return None

    def _self_attr_root(self, expr: ast.AST) -> Optional[str]:
        """``self.h5["x"]`` / ``self.h5.get(...)`` → "h5"."""
        while isinstance(expr, (ast.Subscript, ast.Attribute, ast.Call)):
            if isinstance(expr, ast.Call):
                expr = expr.func
                continue
            attr = self._self_attr(expr)
            if attr is not None:
                return attr
            expr = expr.value
        return None

    def _attrs_assigned_outside_init(self, methods) -> Set[str]:
        """Attributes (re)opened outside ``__init__``: the handle is opened lazily.

        An assignment under ``if self.x is None:`` does not count: when ``__init__`` left
        the handle open, that branch never runs in the worker, so the handle stays shared.
        """
        assigned: Set[str] = set()
        for name, method in methods.items():
            if name == "__init__":
                continue
            guarded = self._none_guarded_assignments(method)
            for node in ast.walk(method):
                targets = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                    targets = [node.target]
                for target in targets:
                    attr = self._self_attr(target)
                    if attr and (id(node), attr) not in guarded:
                        assigned.add(attr)
        return assigned

    def _none_guarded_assignments(self, method) -> Set[Tuple[int, str]]:
        found: Set[Tuple[int, str]] = set()
        for node in ast.walk(method):
            if not isinstance(node, ast.If):
                continue
            attr = self._none_test(node.test)
            if attr is None:
                continue
            for inner in body_nodes(node.body):
                if isinstance(inner, ast.Assign) and any(self._self_attr(t) == attr for t in inner.targets):
                    found.add((id(inner), attr))
        return found

    def _none_test(self, test: ast.AST) -> Optional[str]:
        """``self.x is None`` / ``not self.x`` / ``self.x == None`` → "x"."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._self_attr(test.operand)
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.Eq))
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            return self._self_attr(test.left)
        return None

    def _worker_reads(self, methods) -> Tuple[Set[str], Set[str]]:
        """self attributes and module names read by the methods workers run."""
        todo = [m for m in names.WORKER_METHODS if m in methods]
        seen: Set[str] = set()
        attrs: Set[str] = set()
        module_names: Set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            method = methods[name]
            method_scope = self.resolver.scope_for(method) or self.root
            for node in ast.walk(method):
                attr = self._self_attr(node)
                if attr is not None:
                    attrs.add(attr)
                    if attr in methods:
                        todo.append(attr)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    if self.resolver.owner(node.id, method_scope) is self.root:
                        module_names.add(node.id)
        return attrs, module_names


def summarize(path: str, text: str, tree: ast.Module, module: str, is_package: bool,
              aspects=ALL_ASPECTS) -> ModuleSummary:
    summarizer = Summarizer(path, text, module, is_package, aspects)
    summarizer._tree = tree
    return summarizer.run(tree)
