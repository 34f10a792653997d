"""Scope-aware name resolution over CPython's ``ast``.

Every name the rules care about (``DataLoader``, ``cv2.setNumThreads``, a nested ``def``)
is resolved through the bindings of the scope it is used in: imports (aliased, relative,
inside functions), assignments and definitions. Nothing is matched on source text, so
``from torch.utils.data import DataLoader as DL`` and a local variable that happens to be
called ``DataLoader`` are told apart.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional

BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass
class Binding:
    """One way a name gets a value in a scope."""

    kind: str  # import | def | class | assign | param | other | global
    node: Optional[ast.AST] = None
    value: Optional[ast.AST] = None  # the assigned expression, for kind == "assign"
    qualname: Optional[str] = None  # for imports


@dataclass
class Scope:
    kind: str  # module | function | class
    node: ast.AST
    parent: Optional["Scope"]
    name: str = ""
    bindings: Dict[str, List[Binding]] = field(default_factory=dict)
    globals_declared: set = field(default_factory=set)

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    @property
    def qualname(self) -> str:
        parts = []
        scope: Optional[Scope] = self
        while scope is not None and scope.kind != "module":
            parts.append(scope.name)
            if scope.kind == "function" and scope is not self:
                parts.append("<locals>")
            scope = scope.parent
        return ".".join(reversed(parts))

    @property
    def in_function(self) -> bool:
        """True when this scope is a function or lies inside one."""
        scope: Optional[Scope] = self
        while scope is not None:
            if scope.kind == "function":
                return True
            scope = scope.parent
        return False


def resolve_relative(module: str, is_package: bool, level: int, name: Optional[str]) -> str:
    """``from ..x import y`` seen in ``module`` → the absolute module name."""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    if name:
        parts.append(name)
    return ".".join(parts)


class ScopeBuilder:
    """Walks a module once and records every scope with its bindings."""

    def __init__(self, module_name: str, is_package: bool, walrus: bool = True):
        self.module_name = module_name
        self.is_package = is_package
        self.walrus = walrus  # False when the source has no ``:=``: skip scanning expressions
        self.scope_of: Dict[int, Scope] = {}  # id(def/class/module node) -> its scope

    def build(self, tree: ast.Module) -> Scope:
        root = Scope("module", tree, None)
        self.scope_of[id(tree)] = root
        self._body(root, tree.body)
        return root

    # statements ---------------------------------------------------------
    def _body(self, scope: Scope, stmts) -> None:
        for stmt in stmts:
            self._stmt(scope, stmt)

    def _stmt(self, scope: Scope, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope.bind(stmt.name, Binding("def", stmt))
            for deco in stmt.decorator_list:
                self._expr(scope, deco)
            self._defaults(scope, stmt.args)
            child = Scope("function", stmt, scope, stmt.name)
            self.scope_of[id(stmt)] = child
            self._params(child, stmt.args)
            self._body(child, stmt.body)
        elif isinstance(stmt, ast.ClassDef):
            scope.bind(stmt.name, Binding("class", stmt))
            for expr in list(stmt.bases) + list(stmt.decorator_list):
                self._expr(scope, expr)
            child = Scope("class", stmt, scope, stmt.name)
            self.scope_of[id(stmt)] = child
            self._body(child, stmt.body)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    scope.bind(alias.asname, Binding("import", stmt, qualname=alias.name))
                else:
                    top = alias.name.split(".")[0]
                    scope.bind(top, Binding("import", stmt, qualname=top))
        elif isinstance(stmt, ast.ImportFrom):
            base = stmt.module or ""
            if stmt.level:
                base = resolve_relative(self.module_name, self.is_package, stmt.level, stmt.module)
            for alias in stmt.names:
                if alias.name == "*":
                    continue
                qual = f"{base}.{alias.name}" if base else alias.name
                scope.bind(alias.asname or alias.name, Binding("import", stmt, qualname=qual))
        elif isinstance(stmt, ast.Assign):
            self._expr(scope, stmt.value)
            for target in stmt.targets:
                self._target(scope, target, stmt.value if isinstance(target, ast.Name) else None)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._expr(scope, stmt.value)
                self._target(scope, stmt.target, stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            self._expr(scope, stmt.value)
            self._target(scope, stmt.target, None)
        elif isinstance(stmt, (ast.Global, ast.Nonlocal)):
            if isinstance(stmt, ast.Global):
                scope.globals_declared.update(stmt.names)
        else:
            for name, value in ast.iter_fields(stmt):
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.stmt):
                            self._stmt(scope, item)
                        elif isinstance(item, ast.AST):
                            self._node(scope, item)
                elif isinstance(value, ast.AST):
                    if name == "target" or name == "optional_vars":
                        self._target(scope, value, None)
                    else:
                        self._node(scope, value)

    def _node(self, scope: Scope, node: ast.AST) -> None:
        if isinstance(node, ast.excepthandler):
            if node.name:
                scope.bind(node.name, Binding("other", node))
            self._body(scope, node.body)
        elif isinstance(node, ast.withitem):
            self._expr(scope, node.context_expr)
            if node.optional_vars is not None:
                self._target(scope, node.optional_vars, None)
        elif isinstance(node, ast.match_case) if hasattr(ast, "match_case") else False:
            self._body(scope, node.body)
        elif isinstance(node, ast.expr):
            self._expr(scope, node)

    def _target(self, scope: Scope, target: ast.AST, value: Optional[ast.AST]) -> None:
        if isinstance(target, ast.Name):
            if target.id in scope.globals_declared:
                root = scope
                while root.parent is not None:
                    root = root.parent
                root.bind(target.id, Binding("assign" if value is not None else "other", target, value))
            else:
                scope.bind(target.id, Binding("assign" if value is not None else "other", target, value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._target(scope, elt, None)
        elif isinstance(target, ast.Starred):
            self._target(scope, target.value, None)

    def _params(self, scope: Scope, args: ast.arguments) -> None:
        every = list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)
        if args.vararg:
            every.append(args.vararg)
        if args.kwarg:
            every.append(args.kwarg)
        for arg in every:
            scope.bind(arg.arg, Binding("param", arg))

    def _defaults(self, scope: Scope, args: ast.arguments) -> None:
        for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self._expr(scope, default)

    # expressions: only lambdas and walrus targets create bindings we track
    def _expr(self, scope: Scope, expr: ast.AST) -> None:
        if not self.walrus:
            return
        for node in _walk_expr(expr):
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                scope.bind(node.target.id, Binding("other", node))


def _walk_expr(expr: ast.AST) -> Iterator[ast.AST]:
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))


class Resolver:
    """Answers "what does this expression name?" inside a given scope."""

    def __init__(self, module_name: str, root: Scope, scope_of: Dict[int, Scope]):
        self.module_name = module_name
        self.root = root
        self.scope_of = scope_of

    def function_nodes(self):
        return [s.node for s in self.scope_of.values() if s.kind == "function"]

    def class_nodes(self):
        return [s.node for s in self.scope_of.values() if s.kind == "class"]

    def scope_for(self, node: ast.AST) -> Optional[Scope]:
        return self.scope_of.get(id(node))

    def lookup(self, name: str, scope: Scope) -> Optional[List[Binding]]:
        """The bindings a load of ``name`` in ``scope`` can see (LEGB, classes skipped)."""
        current: Optional[Scope] = scope
        first = True
        while current is not None:
            if current.kind != "class" or first:
                if name in current.globals_declared:
                    return self.root.bindings.get(name)
                found = current.bindings.get(name)
                if found:
                    return found
            first = False
            current = current.parent
        return None

    def owner(self, name: str, scope: Scope) -> Optional[Scope]:
        """The scope whose binding of ``name`` a load in ``scope`` sees."""
        current: Optional[Scope] = scope
        first = True
        while current is not None:
            if (current.kind != "class" or first) and current.bindings.get(name):
                return current
            first = False
            current = current.parent
        return None

    def qualname(self, expr: ast.AST, scope: Scope, _depth: int = 0) -> Optional[str]:
        """Dotted name of what ``expr`` refers to, e.g. ``torch.utils.data.DataLoader``.

        Names bound by a definition in this module resolve to ``<module>.<qualname>``;
        builtins to ``builtins.<name>``; anything computed resolves to None.
        """
        if _depth > 8:
            return None
        if isinstance(expr, ast.Attribute):
            base = self.qualname(expr.value, scope, _depth + 1)
            return f"{base}.{expr.attr}" if base else None
        if not isinstance(expr, ast.Name):
            return None
        bindings = self.lookup(expr.id, scope)
        if not bindings:
            return f"builtins.{expr.id}" if expr.id in BUILTIN_NAMES else None
        return self._binding_qualname(expr.id, bindings, scope, _depth)

    def _binding_qualname(self, name, bindings, scope, depth) -> Optional[str]:
        imports = {b.qualname for b in bindings if b.kind == "import"}
        if len(imports) == 1:
            return next(iter(imports))
        if imports:
            return sorted(imports)[0]
        definitions = [b for b in bindings if b.kind in ("def", "class")]
        if definitions:
            owner = self.owner(name, scope)
            prefix = owner.qualname if owner is not None else ""
            if owner is not None and owner.kind == "function":
                prefix += ".<locals>"
            inner = f"{prefix}.{name}" if prefix else name
            return f"{self.module_name}.{inner}" if self.module_name else inner
        aliases = [b for b in bindings if b.kind == "assign"]
        if len(aliases) == 1 and len(bindings) == 1:
            value = aliases[0].value
            if isinstance(value, (ast.Name, ast.Attribute)):
                owner = self.owner(name, scope) or scope
                return self.qualname(value, owner, depth + 1)
        return None

    def assigned_values(self, name: str, scope: Scope):
        """Every expression ``name`` may hold in ``scope``, with the scope it came from.

        Returns None when some binding is not a plain assignment (a parameter, a loop
        target, an import): then the value is not knowable statically.
        """
        bindings = self.lookup(name, scope)
        if not bindings or any(b.kind != "assign" for b in bindings):
            return None
        owner = self.owner(name, scope) or self.root
        return [(b.value, owner) for b in bindings]

    def single_value(self, name: str, scope: Scope):
        """(expression, scope) of a name assigned exactly once, else None."""
        values = self.assigned_values(name, scope)
        if values and len(values) == 1:
            return values[0]
        return None
