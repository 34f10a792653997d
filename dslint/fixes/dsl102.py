"""DSL102: hoist a lambda or nested ``def`` handed to workers to a module-level ``def``.

- A lambda becomes ``def <role>(<params>): return <body>`` (role: ``collate_fn``,
  ``worker_init_fn``, ``transform``; a fresh name when taken), inserted before the
  module-level statement that contained it; the lambda is replaced by the name.
- A nested ``def`` moves, unchanged, before the module-level statement that contained it.
- Safe when the callable reads no variable of an enclosing function. Otherwise unsafe: the
  hoisted function takes those variables as extra parameters and the hand-over point
  passes ``functools.partial(<name>, var=var, ...)`` (``import functools`` added when
  missing).

Not offered for nested classes, for ``self.x = lambda`` stored by a dataset, when a name
the callable reads cannot be seen at module level, or when a hoisted ``def`` would take a
name the module already binds.
"""

from __future__ import annotations

import ast
from typing import List, NamedTuple, Optional, Sequence, Set, Tuple

import libcst as cst

from ..analysis.summary import Span
from ..diagnostics import Finding
from . import scopes
from .base import (
    BUILTIN_NAMES,
    Decline,
    FileContext,
    FixPlan,
    blank_lines,
    docstring_count,
    finding_span,
    split_leading,
    with_blank_prefix,
)

CODE = "DSL102"
ROLE_NAMES = {"collate_fn": "collate_fn", "worker_init_fn": "worker_init_fn", "process target": "run_process",
              "process initializer": "init_process"}


class CallableArg(NamedTuple):
    """What the rule found: the callable, where it is handed over and where it is defined."""

    # collate_fn | worker_init_fn | dataset argument | dataset attribute | process target | process initializer
    role: str
    kind: str  # lambda | nested function | nested class
    name: str
    span: Span  # the hand-over point (the lambda itself for a lambda)
    free_vars: Tuple[str, ...]
    definition: Optional[Span]


def _callable(ctx: FileContext, item: Finding) -> CallableArg:
    kind = item.fact("kind")
    if kind not in ("lambda", "nested function", "nested class"):
        raise Decline("not a lambda or a nested definition")
    definition = item.fact("definition")
    return CallableArg(item.fact("role"), kind, item.fact("name"), finding_span(item),
                       tuple(item.fact("free_vars", ())), Span(*definition) if definition else None)


def module_bound_names(tree: ast.Module) -> Set[str]:
    """Names bound at module level (also inside module-level if/try/with/for blocks)."""
    bound: Set[str] = set()
    stack: List[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return bound


def _module_index_of(ctx: FileContext, node: ast.AST) -> int:
    """Index in the module body of the top-level statement around ``node``."""
    for index, statement in enumerate(ctx.tree.body):
        if statement.lineno <= node.lineno <= (statement.end_lineno or statement.lineno):
            return index
    raise Decline("not inside a module-level statement")


def _bound_before(ctx: FileContext, index: int) -> Set[str]:
    """Names the module binds in the statements before ``index``."""
    return module_bound_names(ast.Module(body=ctx.tree.body[:index], type_ignores=[]))


def _stable_header(ctx: FileContext, target: ast.AST, chain: List[ast.AST], index: int) -> None:
    """Defaults, decorators and annotations run where the callable is defined: once it moves
    they run at import time, before statement ``index``; they must mean the same there."""
    if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) and target.decorator_list:
        raise Decline("a decorator would run once at import instead of where the def was")
    enclosing = {n for s in chain for n in scopes.bound_in(s)}
    constants = scopes.module_constants(ctx.tree)
    before = _bound_before(ctx, index)
    for default in scopes.header_expressions(target):
        if scopes.literal(default):
            continue
        if isinstance(default, ast.Name) and default.id in constants and default.id in before \
                and default.id not in enclosing:
            continue
        raise Decline("a default value is evaluated where the callable is defined")
    if scopes.future_annotations(ctx.tree):
        return
    for annotation in scopes.annotations(target):
        for node in ast.walk(annotation):
            if isinstance(node, ast.Call):
                raise Decline("an annotation calls code where the def is")
            if isinstance(node, ast.Name) and (node.id in enclosing or node.id not in before | BUILTIN_NAMES):
                raise Decline(f"the annotation name {node.id} is not bound at module level before the def")


def hoisting_free_names(ctx: FileContext, target: ast.AST) -> Tuple[str, ...]:
    """The enclosing-function variables ``target`` reads (to pass with ``functools.partial``).

    Declines where moving ``target`` to module level would change what it computes: a
    star import (the names it binds are unknown), a class-private name (mangled only inside
    the class), a default, decorator or annotation that depends on where it is evaluated,
    ``nonlocal``/``super()``, or a name module level cannot see.
    """
    tree = ctx.tree
    if scopes.has_star_import(tree):
        raise Decline("a star import binds names this file cannot know")
    chain = scopes.chain_to(tree, target)
    if chain is None:
        raise Decline("callable not found")
    if any(isinstance(s, ast.ClassDef) for s in chain) and any(scopes.is_private(n) for n in scopes.identifiers(target)):
        raise Decline("a class-private name is mangled only inside its class")
    _stable_header(ctx, target, chain, _module_index_of(ctx, target))
    reads = scopes.outer_reads(target)
    if reads & {"super", "__class__"} or scopes.declared(target, ast.Nonlocal) or scopes.calls_namespace(target):
        raise Decline("the callable depends on the scope it is defined in")
    function_bound = {n for s in chain if not isinstance(s, ast.ClassDef) for n in scopes.bound_in(s)}
    free = reads & function_bound
    if any(n.startswith("__") for n in free):
        raise Decline("reads a private name of its function")
    unknown = reads - free - module_bound_names(tree) - BUILTIN_NAMES - MODULE_DUNDERS
    if unknown:
        raise Decline(f"reads {sorted(unknown)} which module level cannot see")
    return tuple(sorted(free))


MODULE_DUNDERS = frozenset({"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__"})


def _ast_node(ctx: FileContext, kind, row: int, col: int) -> ast.AST:
    for node in ast.walk(ctx.tree):
        if isinstance(node, kind) and node.lineno == row and ctx_col(ctx, node) == col:
            return node
    raise Decline("ast node not found")


def ctx_col(ctx: FileContext, node: ast.AST) -> int:
    line = ctx.text.splitlines()[node.lineno - 1] if node.lineno <= len(ctx.text.splitlines()) else ""
    return len(line.encode("utf-8")[: node.col_offset].decode("utf-8", "replace")) + 1


def add_params(params: cst.Parameters, names: Sequence[str]) -> cst.Parameters:
    if not names:
        return params
    new = [cst.Param(cst.Name(n)) for n in names]
    has_star = isinstance(params.star_arg, (cst.Param, cst.ParamStar))
    defaults = any(p.default is not None for p in (*params.posonly_params, *params.params))
    if has_star or defaults:
        star = params.star_arg if has_star else cst.ParamStar()
        return params.with_changes(star_arg=star, kwonly_params=[*params.kwonly_params, *new])
    plain = list(params.params)
    if plain and isinstance(plain[-1].comma, cst.Comma) and params.star_kwarg is None:
        plain[-1] = plain[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return params.with_changes(params=[*plain, *new])


def _partial_call(func: str, name: str, free: Sequence[str]) -> cst.Call:
    args = [
        cst.Arg(
            keyword=cst.Name(v),
            value=cst.Name(v),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
        for v in free
    ]
    return cst.Call(func=cst.parse_expression(func), args=[cst.Arg(cst.Name(name)), *args])


def functools_partial(ctx: FileContext, fix: FixPlan, container: cst.BaseStatement) -> str:
    """How to spell ``functools.partial`` here, planning ``import functools`` when needed."""
    for node in ctx.tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "functools":
                    return f"{alias.asname or 'functools'}.partial"
        if isinstance(node, ast.ImportFrom) and node.module == "functools" and not node.level:
            for alias in node.names:
                if alias.name == "partial":
                    return alias.asname or "partial"
    if "functools" in module_bound_names(ctx.tree) | _global_reads(ctx):
        raise Decline("the name functools is taken")
    module = ctx.module

    def build():
        return [cst.parse_statement("import functools\n", config=module.config_for_parsing)]

    fix.requires[("import", "functools")] = (*_functools_place(module.body), build)
    return "functools.partial"


STDLIB_FALLBACK = frozenset({
    "abc", "argparse", "ast", "collections", "contextlib", "copy", "csv", "dataclasses", "datetime", "enum",
    "functools", "glob", "hashlib", "io", "itertools", "json", "logging", "math", "multiprocessing", "os",
    "pathlib", "pickle", "random", "re", "shutil", "signal", "socket", "string", "struct", "subprocess", "sys",
    "tempfile", "threading", "time", "traceback", "typing", "uuid", "warnings", "zipfile",
})


def _stdlib(name: str) -> bool:
    import sys

    return name.split(".")[0] in getattr(sys, "stdlib_module_names", STDLIB_FALLBACK)


def _import_module(stmt: cst.BaseStatement):
    """("import" | "from", module name) of a one-statement import line, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Import) and len(small.names) == 1:
        return "import", small.names[0].evaluated_name
    if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
        return "from", cst.helpers.get_full_name_for_node(small.module)
    return None


def _functools_place(body: Sequence[cst.BaseStatement]):
    """(mode, anchor) for ``import functools`` where isort puts it: among the module's
    standard-library ``import x`` lines in order, else before its first standard-library
    ``from`` import, else as a section of its own before the first import."""
    start = docstring_count(body)
    while start < len(body) and _is_future(body[start]):
        start += 1
    block = []
    for stmt in body[start:]:
        if not (isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom))
                                                                  for s in stmt.body)):
            break
        block.append(stmt)
    if not block:
        return ("after", body[start - 1]) if start else ("section", body[0])
    stdlib = [(stmt, _import_module(stmt)) for stmt in block]
    stdlib = [(stmt, kind, name) for stmt, found in stdlib if found for kind, name in [found] if _stdlib(name)]
    plain = [(stmt, name) for stmt, kind, name in stdlib if kind == "import"]
    smaller = [stmt for stmt, name in plain if name.lower() < "functools"]
    if smaller:  # right after the last one before it: in a block that mixes sections
        return "after", smaller[-1]  # (``import numpy as np`` among them) that is still beside its own
    if plain:
        return "before", plain[0][0]
    if stdlib:
        return "before", stdlib[0][0]
    return "section", block[0]


def _is_future(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name) and s.module.value == "__future__"
        for s in stmt.body
    )


def _enclosing_bound(ctx: FileContext, target: ast.AST) -> Set[str]:
    """Names bound by the functions (and class bodies) around ``target``."""
    return {n for scope in scopes.chain_to(ctx.tree, target) or () for n in scopes.bound_in(scope)}


def _global_reads(ctx: FileContext) -> Set[str]:
    if "global_reads" not in ctx.memo:
        ctx.memo["global_reads"] = scopes.global_reads(ctx.tree)
    return ctx.memo["global_reads"]


def fresh_name(ctx: FileContext, base: str, target: ast.AST) -> str:
    """A name no code of the module binds or reads as a global, nor a scope around ``target``."""
    taken = module_bound_names(ctx.tree) | _enclosing_bound(ctx, target) | ctx.reserved | BUILTIN_NAMES
    taken |= _global_reads(ctx)
    name, number = base, 2
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    ctx.reserved.add(name)
    return name


CALLABLE_WORDS = ("transform", "fn", "func", "hook", "callback", "handler", "filter", "reader", "loader",
                  "decoder", "encoder", "preprocess", "augment", "collate")  # a name that says "a function for"


def _slot_name(ctx: FileContext, node: cst.Lambda) -> Optional[str]:
    """The name that says what the function is for, when the place the lambda is given to
    names a function: the keyword (``target_transform=lambda ...``), ``default_<parameter>``
    for a parameter's default (``noise_fn=lambda s: ...`` becomes
    ``noise_fn=default_noise_fn``), or the attribute it is stored in
    (``self.preprocess_txt = lambda ...``); not ``text=lambda text: ...``."""
    parent = ctx.parent(node)
    name = None
    if isinstance(parent, cst.Arg) and parent.keyword is not None:
        name = parent.keyword.value
    elif isinstance(parent, cst.Param) and parent.default is node:
        name = parent.name.value
    elif isinstance(parent, cst.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0].target, cst.Attribute):
        name = parent.targets[0].target.attr.value
    if name is None or not any(word in name.lower() for word in CALLABLE_WORDS):
        return None
    return f"default_{name}" if isinstance(parent, cst.Param) else name


def _hoist_prefix(ctx: FileContext, container: cst.BaseStatement) -> int:
    count = ctx.hoists.get(id(container), 0)
    ctx.hoists[id(container)] = count + 1
    if ctx.top_index(container) > 0 or count:
        return 2
    return len(split_leading(container.leading_lines)[0])


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    arg = _callable(ctx, item)
    if arg.kind == "lambda":
        return _plan_lambda(ctx, arg)
    if arg.kind == "nested function":
        return _plan_def(ctx, arg)
    raise Decline("nested classes need a hand-written change")


def _plan_lambda(ctx: FileContext, arg: CallableArg) -> FixPlan:
    where = arg.definition if arg.name != "<lambda>" and arg.definition is not None else arg.span
    node = ctx.node_for(where, cst.Lambda)
    key = (CODE, id(node))
    if key in ctx.plans:
        return ctx.plans[key]
    tree_node = _ast_node(ctx, ast.Lambda, where.row, where.col)
    free = hoisting_free_names(ctx, tree_node)
    container = ctx.top_statement(node)
    name = fresh_name(ctx, ROLE_NAMES.get(arg.role) or _slot_name(ctx, node) or "transform", tree_node)
    fix = FixPlan(CODE, f"Hoist the lambda to a module-level `def {name}`", "unsafe" if free else "safe", key=key)
    ctx.plans[key] = fix
    partial = functools_partial(ctx, fix, container) if free else None
    prefix = _hoist_prefix(ctx, container)
    captured = {}

    def replace(updated: cst.Lambda) -> cst.BaseExpression:
        captured["lambda"] = updated
        if partial:
            return _partial_call(partial, name, free)
        return cst.Name(name)

    def build() -> List[cst.BaseStatement]:
        updated = captured["lambda"]
        body = updated.body
        if "\n" in cst.Module([]).code_for_node(body) and not body.lpar:
            body = body.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        params = add_params(updated.params, free)
        return [
            cst.FunctionDef(
                name=cst.Name(name),
                params=params,
                body=cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Return(value=body)])]),
                leading_lines=blank_lines(prefix),
            )
        ]

    fix.on_node(node, replace)
    fix.insert_before(container, build)
    fix.on_stmt(container, _separate)
    return fix


def _separate(core: List[cst.BaseStatement]) -> List[cst.BaseStatement]:
    return [with_blank_prefix(core[0], 2), *core[1:]] if core else core


def _enclosing_function(ctx: FileContext, node: cst.CSTNode) -> cst.FunctionDef:
    for parent in ctx.ancestors(node):
        if isinstance(parent, cst.FunctionDef):
            return parent
    raise Decline("not inside a function")


def _bindings_in_function(func: ast.AST, name: str) -> int:
    count = 0
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            count += node.name == name
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            count += 1
        elif isinstance(node, ast.arg) and node.arg == name:
            count += 1
        elif isinstance(node, ast.alias) and (node.asname or node.name).split(".")[0] == name:
            count += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            count += 2
        stack.extend(ast.iter_child_nodes(node))
    return count


def _references_in_function(func: ast.AST, name: str) -> int:
    return sum(1 for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load))


def _plan_def(ctx: FileContext, arg: CallableArg) -> FixPlan:
    if arg.definition is None:
        raise Decline("no definition")
    name_node = ctx.node_for(arg.definition, cst.Name)
    definition = ctx.parent(name_node)
    if not isinstance(definition, cst.FunctionDef) or definition.name is not name_node:
        raise Decline("not a def")
    key = (CODE, id(definition))
    if key in ctx.plans:
        return ctx.plans[key]
    block = ctx.parent(definition)
    if not isinstance(block, cst.IndentedBlock):
        raise Decline("def in a one-line suite")
    outer = _enclosing_function(ctx, definition)
    name = arg.name
    if name in module_bound_names(ctx.tree) or name in BUILTIN_NAMES or name in ctx.reserved:
        raise Decline("the module already binds that name")
    outer_ast = _ast_def(ctx, outer)
    def_ast = _ast_def(ctx, definition)
    if _bindings_in_function(outer_ast, name) != 1:
        raise Decline("the enclosing function binds that name more than once")
    if scopes.calls_namespace(outer_ast):
        raise Decline("the enclosing function reads its own namespace")
    if name in _global_reads(ctx):
        raise Decline("other code reads that name from module level")
    free = hoisting_free_names(ctx, def_ast)
    if free and _references_in_function(outer_ast, name) != 1:
        raise Decline("the nested def is used elsewhere in its function")
    if free and arg.span == arg.definition:
        raise Decline("handed over outside its function, where its variables cannot be passed")
    handover = ctx.node_for(arg.span, cst.Name) if free else None
    if handover is not None and (handover.value != name or outer not in set(ctx.ancestors(handover))):
        raise Decline("handed over outside its function, where its variables cannot be passed")
    container = ctx.top_statement(definition)
    ctx.reserved.add(name)
    fix = FixPlan(CODE, f"Move `{name}` to module level", "unsafe" if free else "safe", key=key)
    ctx.plans[key] = fix
    partial = functools_partial(ctx, fix, container) if free else None
    prefix = _hoist_prefix(ctx, container)
    captured = {}

    def take(core: List[cst.BaseStatement]) -> List[cst.BaseStatement]:
        captured["def"] = core[0] if core else definition
        return []

    def build() -> List[cst.BaseStatement]:
        hoisted = captured.get("def", definition)
        if isinstance(hoisted, cst.FunctionDef):
            hoisted = hoisted.with_changes(params=add_params(hoisted.params, free))
        _, comments = split_leading(hoisted.leading_lines)
        return [hoisted.with_changes(leading_lines=[*blank_lines(prefix), *comments])]

    fix.on_stmt(definition, take)
    if handover is not None:
        fix.on_node(handover, lambda updated: _partial_call(partial, name, free))
    fix.insert_before(container, build)
    fix.on_stmt(container, _separate)
    return fix


def _ast_def(ctx: FileContext, node: cst.FunctionDef) -> ast.AST:
    row = ctx.row_of(node.name)
    name = node.name.value
    for item in ast.walk(ctx.tree):
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name and item.lineno == row:
            return item
    raise Decline("ast def not found")
