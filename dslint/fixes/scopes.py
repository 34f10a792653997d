"""Python's name scoping, as far as a fix that moves code needs it.

A fix that moves a callable to module level (DSL102) or statements into a function
(DSL101) keeps the program's meaning only when every name it moves reads the same
binding afterwards. These helpers answer that from the ``ast``: which names a scope reads
from the scopes around it, which names a module binds and how, where a star import makes
the module's names unknowable, and which identifiers a class body mangles.
"""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Set

FUNCTION_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
SCOPES = (*FUNCTION_SCOPES, ast.ClassDef, *COMPREHENSIONS)
# Calls that read or write a scope's variables by name: moving code away from them breaks them.
NAMESPACE_CALLS = frozenset({"locals", "globals", "vars", "exec", "eval", "dir"})


def has_star_import(tree: ast.Module) -> bool:
    """``from x import *`` anywhere: the names it binds cannot be known from this file."""
    return any(isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names) for node in ast.walk(tree))


def header_expressions(node: ast.AST) -> List[ast.expr]:
    """What a ``def``/``lambda``/``class`` statement evaluates in the scope around it."""
    out: List[ast.expr] = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        out.extend(args.defaults)
        out.extend(d for d in args.kw_defaults if d is not None)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.extend(node.decorator_list)
    if isinstance(node, ast.ClassDef):
        out.extend(node.bases)
        out.extend(k.value for k in node.keywords)
    return out


def annotations(node: ast.AST) -> List[ast.expr]:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    found = [a.annotation for a in every if a is not None and a.annotation is not None]
    return found + ([node.returns] if node.returns is not None else [])


def own_children(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes evaluated in ``scope`` itself: not its header, not the bodies of inner scopes."""
    if isinstance(scope, ast.Lambda):
        stack: List[ast.AST] = [scope.args, scope.body]
    elif isinstance(scope, COMPREHENSIONS):
        stack = [g for g in scope.generators]
        stack += [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
    elif isinstance(scope, ast.Module):
        stack = list(scope.body)
    else:
        stack = [*scope.body]
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.append(scope.args)
    first_iter = scope.generators[0].iter if isinstance(scope, COMPREHENSIONS) else None
    while stack:
        node = stack.pop()
        if node is first_iter:
            continue  # evaluated in the enclosing scope
        yield node
        if isinstance(node, ast.arguments):
            stack.extend(a for a in (*node.posonlyargs, *node.args, *node.kwonlyargs, node.vararg, node.kwarg) if a)
            continue
        if isinstance(node, ast.arg):
            continue
        if isinstance(node, SCOPES):
            stack.extend(header_expressions(node))
            stack.extend(annotations(node))
            if isinstance(node, COMPREHENSIONS):
                stack.append(node.generators[0].iter)
            continue
        stack.extend(ast.iter_child_nodes(node))


def inner_scopes(scope: ast.AST) -> Iterator[ast.AST]:
    for node in own_children(scope):
        if isinstance(node, SCOPES):
            yield node


def bound_in(scope: ast.AST) -> Set[str]:
    """Names local to ``scope`` (parameters, assignments, imports, defs; not ``global``/``nonlocal``)."""
    names: Set[str] = set()
    declared: Set[str] = set()
    for node in own_children(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    return names - declared


def declared(scope: ast.AST, kind) -> Set[str]:
    return {n for node in own_children(scope) if isinstance(node, kind) for n in node.names}


def declared_anywhere(node: ast.AST, kind) -> Set[str]:
    """Names a ``global`` (or ``nonlocal``) statement anywhere in ``node`` declares."""
    return {n for child in ast.walk(node) if isinstance(child, kind) for n in child.names}


def loaded_in(scope: ast.AST) -> Set[str]:
    return {n.id for n in own_children(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def outer_reads(scope: ast.AST) -> Set[str]:
    """Names ``scope`` (and the scopes inside it) read from outside it: free or global."""
    local = bound_in(scope) if not isinstance(scope, ast.Module) else set()
    reads = loaded_in(scope) | declared(scope, ast.Nonlocal)
    for inner in inner_scopes(scope):
        from_inner = outer_reads(inner)
        if isinstance(scope, ast.ClassDef):
            reads |= from_inner  # a class body's names are not seen by the functions inside it
        else:
            reads |= from_inner - local
        reads |= {n.id for e in header_expressions(inner) + annotations(inner) for n in ast.walk(e)
                  if isinstance(n, ast.Name)}
    return (reads - local) | (declared(scope, ast.Global) & reads)


def chain_to(tree: ast.Module, target: ast.AST) -> Optional[List[ast.AST]]:
    """The scopes around ``target``, outermost first (the module excluded)."""

    def visit(node: ast.AST, chain: List[ast.AST]) -> Optional[List[ast.AST]]:
        if node is target:
            return chain
        inner = chain + [node] if isinstance(node, SCOPES) else chain
        for child in ast.iter_child_nodes(node):
            found = visit(child, inner)
            if found is not None:
                return found
        return None

    return visit(tree, [])


def identifiers(node: ast.AST) -> Iterator[str]:
    """Every identifier a class body would mangle when it starts with two underscores."""
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            yield child.id
        elif isinstance(child, ast.Attribute):
            yield child.attr
        elif isinstance(child, ast.arg):
            yield child.arg
        elif isinstance(child, ast.keyword) and child.arg:
            yield child.arg
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield child.name
        elif isinstance(child, ast.alias):
            yield child.asname or child.name


def is_private(name: str) -> bool:
    """``__x`` (not ``__x__``): mangled to ``_Class__x`` inside a class body."""
    return name.startswith("__") and not name.endswith("__") and len(name.strip("_")) > 0


def module_bindings(tree: ast.Module) -> dict:
    """Name -> the module-level nodes that bind it (in if/try/with/for blocks too)."""
    found: dict = {}

    def bind(name: str, node: ast.AST) -> None:
        found.setdefault(name, []).append(node)

    for statement in tree.body:
        for node in _binding_walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bind(node.id, statement)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind(node.name, statement)
            elif isinstance(node, ast.alias):
                bind((node.asname or node.name).split(".")[0], statement)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bind(node.name, statement)
    for node in ast.walk(tree):  # ``global x`` in a function binds the module's x
        if isinstance(node, ast.Global):
            for name in node.names:
                bind(name, node)
    return found


def _binding_walk(statement: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a module-level statement that run in module scope."""
    stack = [statement]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, SCOPES):
            stack.extend(header_expressions(node))
            if isinstance(node, COMPREHENSIONS):
                stack.append(node.generators[0].iter)
            continue
        stack.extend(ast.iter_child_nodes(node))


def literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def module_constants(tree: ast.Module) -> Set[str]:
    """Names bound exactly once, by a module-level ``NAME = <literal>``, and never rebound."""
    out: Set[str] = set()
    for name, nodes in module_bindings(tree).items():
        if len(nodes) != 1:
            continue
        node = nodes[0]
        if node in tree.body and isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and literal(node.value):
            out.add(name)
    return out


def future_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__"
        and any(a.name == "annotations" for a in node.names)
        for node in tree.body
    )


def calls_namespace(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in NAMESPACE_CALLS for n in ast.walk(node))


def global_reads(tree: ast.Module) -> Set[str]:
    """Names some code reads from module scope (or the builtins)."""
    reads = loaded_in(tree)
    for scope in inner_scopes(tree):
        reads |= outer_reads(scope)
    return reads
