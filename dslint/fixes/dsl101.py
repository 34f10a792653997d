"""DSL101 (unsafe): put the script's executable statements behind the main guard.

Module-level statements are sorted into what stays (the docstring, imports, constant
assignments of literals, ``def``/``class``, ``if``/``try`` blocks made only of those, and
statements before the last import that start nothing, such as ``sys.path.insert``) and
what moves (everything else, always including the statements the rule flagged).

- Only calls of the module's own functions move (the bare ``main()``): they move,
  unchanged, under ``if __name__ == "__main__":`` (a new one at the end of the file, or the
  top of the existing one).
- Otherwise they move, in order, into a new ``def main():`` placed where the first one
  was, and ``main()`` is called under the guard. Moved names that other code still uses
  as globals (read by a function or class, or also bound by a statement that stays) are
  declared ``global`` in ``main`` so they keep working. When the module already binds
  ``main``, the statements move under the guard instead, unchanged.

Not offered when a statement that stays reads a moved name while the module is being
imported (a decorator, a default value, a class body), when moved code uses
``locals()``/``exec``/``eval``/``globals()``/``vars()`` or ``import *``, or when moved
statements follow an existing main guard.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Sequence, Set

import libcst as cst

from ..diagnostics import Finding
from .base import BUILTIN_NAMES, Decline, FileContext, FixPlan, blank_lines, docstring_count, split_leading, with_blank_prefix
from . import importers, scopes
from .dsl102 import module_bound_names

CODE = "DSL101"
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def is_main_guard(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.If):
        return False
    test = stmt.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    if not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    has_name = any(isinstance(s, cst.Name) and s.value == "__name__" for s in sides)
    has_main = any(isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__" for s in sides)
    return has_name and has_main


def _parse(ctx: FileContext, stmt: cst.BaseStatement) -> List[ast.stmt]:
    try:
        return ast.parse(cst.Module(body=[stmt.with_changes(leading_lines=[])]).code).body
    except SyntaxError as exc:  # pragma: no cover - a statement of a module that parsed
        raise Decline(f"cannot parse a statement alone: {exc}")


def _is_literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _kept_kind(node: ast.stmt, first: bool) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass)):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return True  # a docstring or a bare string used as a comment
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Name) for t in node.targets) and _is_literal(node.value)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and (node.value is None or _is_literal(node.value))
    if isinstance(node, (ast.If, ast.Try)) and not (isinstance(node, ast.If) and _ast_guard(node)):
        inner = list(node.body) + list(node.orelse) + list(getattr(node, "finalbody", []))
        for handler in getattr(node, "handlers", []):
            inner.extend(handler.body)
        return all(_kept_kind(s, False) for s in inner)
    return False


def _ast_guard(node: ast.If) -> bool:
    test = node.test
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _own_nodes(nodes: Sequence[ast.AST]):
    """Nodes that run in module scope (nested function/class/lambda bodies excluded)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)
            stack.extend(d for d in node.args.defaults)
            stack.extend(d for d in node.args.kw_defaults if d is not None)
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend(node.decorator_list)
            stack.extend(node.bases)
            stack.extend(k.value for k in node.keywords)
            stack.extend(node.body)  # a class body runs at definition time
            continue
        if isinstance(node, ast.Lambda):
            stack.extend(node.args.defaults)
            continue
        if isinstance(node, COMPREHENSIONS):
            stack.append(node.generators[0].iter)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _bound(nodes: Sequence[ast.AST]) -> Set[str]:
    names: Set[str] = set()
    for node in _own_nodes(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _read_at_import(nodes: Sequence[ast.AST]) -> Set[str]:
    return {n.id for n in _own_nodes(nodes) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _nested_references(tree: ast.Module) -> Set[str]:
    """Names used inside functions, lambdas and class bodies (read, written or declared global)."""
    names: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, SCOPES):
            body = node.body if isinstance(node.body, list) else [node.body]
            for inner in body:
                for child in ast.walk(inner):
                    if isinstance(child, ast.Name):
                        names.add(child.id)
                    elif isinstance(child, ast.Global):
                        names.update(child.names)
    return names


def _stays_global(group: List[ast.stmt], nested: Set[str], parsed, moved: Set[int]) -> bool:
    if not group or not all(isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None for n in group):
        return False
    bound = _bound(group)
    if not bound or not bound <= nested:
        return False
    kept = [node for i, g in enumerate(parsed) if i not in moved for node in g]
    visible = _bound(kept) | BUILTIN_NAMES | {"__name__", "__file__", "__doc__", "__spec__"}
    return _read_at_import(group) <= visible


def _effects(nodes: Sequence[ast.AST], functions: Dict[str, ast.AST]) -> Set[str]:
    """Every name evaluating ``nodes`` touches, through the module's own functions and
    classes it calls (what those read and write too)."""
    names = {n.id for n in _own_nodes(nodes) if isinstance(n, ast.Name)}
    todo = [n for n in names if n in functions]
    seen: Set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        inner = scopes.outer_reads(functions[name]) | scopes.declared_anywhere(functions[name], ast.Global)
        names |= inner
        todo.extend(n for n in inner if n in functions)
    return names


def _with_local_constants(parsed: List[List[ast.stmt]], moved: List[int], nested: Set[str]) -> List[int]:
    """``moved`` plus the constant assignments between moved statements that only moved
    code uses (``total = 0`` before the loop that adds to it): they move along, in order."""
    moved_set = set(moved)
    candidates = [i for i in range(moved[0] + 1, moved[-1]) if i not in moved_set
                  and parsed[i] and all(isinstance(n, (ast.Assign, ast.AnnAssign)) for n in parsed[i])]
    for index in candidates:
        names = _bound(parsed[index])
        others = [node for i, group in enumerate(parsed) if i not in moved_set and i != index for node in group]
        if names and not names & (nested | _bound(others) | _read_at_import(others)):
            moved_set.add(index)
    return sorted(moved_set)


def _check_order(ctx: FileContext, parsed: List[List[ast.stmt]], moved: List[int], guards: List[int]) -> None:
    """Statements that stay below the first moved one now run before it: decline when
    either could see the other (a class body reading a setting the moved code changes,
    random numbers drawn in another order, an import)."""
    moved_set = set(moved)
    later = [i for i in range(moved[0] + 1, len(parsed)) if i not in moved_set and i not in guards]
    if not later:
        return
    functions = {node.name: node for node in ctx.tree.body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for index in later:
        group = parsed[index]
        if any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in _own_nodes(group)):
            raise Decline("an import below moved code would run before it")
        touched = _effects([node for i in moved if i < index for node in parsed[i]], functions)
        if _effects(group, functions) & touched:
            raise Decline("a statement that stays would run before moved code it depends on")


def _calls_only(stmts: Sequence[List[ast.stmt]], functions: Set[str]) -> bool:
    for group in stmts:
        for node in group:
            if not (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id in functions
            ):
                return False
    return True


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    key = (CODE,)
    if key in ctx.plans:
        return ctx.plans[key]
    fix = _plan(ctx)
    ctx.plans[key] = fix
    return fix


def _plan(ctx: FileContext) -> FixPlan:
    body = list(ctx.module.body)
    parsed = [_parse(ctx, stmt) for stmt in body]
    flagged: Set[int] = set()
    for item in ctx.findings:
        if item.code != CODE:
            continue
        for node in ctx.nodes_at(item.location.row, item.location.column):
            try:
                flagged.add(ctx.top_index(ctx.top_statement(node)))
            except Decline:
                continue
            break
    if not flagged:
        raise Decline("flagged statement not found")

    guards = [i for i, stmt in enumerate(body) if is_main_guard(stmt)]
    first_doc = docstring_count(body)
    imports = [i for i, group in enumerate(parsed) if group and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in group)]
    last_import = imports[-1] if imports else -1
    moved: List[int] = []
    for index, group in enumerate(parsed):
        if index in guards or index < first_doc:
            continue
        if index in flagged:
            moved.append(index)
            continue
        if all(_kept_kind(node, index == 0) for node in group):
            continue
        if index < last_import:
            continue  # runs before an import that may need it (sys.path, environment)
        moved.append(index)
    if not moved:
        raise Decline("nothing to move")
    if guards and max(moved) > guards[0]:
        raise Decline("moved statements would run after the existing guard's body")
    if guards and not isinstance(body[guards[0]].body, cst.IndentedBlock):
        raise Decline("existing guard is a one-line suite")
    # Assignments at the head of the moved run that feed other code as globals and read
    # only what stays (``logger = logging.getLogger(__name__)``) stay where they are: they
    # run in the same order, and spawn workers that re-import the module still get them.
    nested = _nested_references(ctx.tree)
    while moved and moved[0] not in flagged and _stays_global(parsed[moved[0]], nested, parsed, set(moved)):
        moved.pop(0)
    if not moved:
        raise Decline("nothing to move")
    moved = _with_local_constants(parsed, moved, nested)
    moved_set = set(moved)
    moved_ast = [node for i in moved for node in parsed[i]]
    kept_ast = [node for i, group in enumerate(parsed) if i not in moved_set for node in group]
    if scopes.has_star_import(ctx.tree):
        raise Decline("a star import binds names this file cannot know")
    for node in _own_nodes(moved_ast):
        if isinstance(node, ast.Name) and node.id in scopes.NAMESPACE_CALLS:
            raise Decline("moved code inspects its namespace")
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            raise Decline("moved code declares global names")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            raise Decline("a def or class under the guard is missing where workers and importers look for it")

    moved_bound = _bound(moved_ast)
    kept_bound = _bound(kept_ast)
    if _read_at_import(kept_ast) & (moved_bound - kept_bound):
        raise Decline("code that stays reads a moved name while the module is imported")
    _check_order(ctx, parsed, moved, guards)
    imported = importers.names_imported_from(ctx.path)
    if imported is importers.EVERYTHING or moved_bound & imported:
        raise Decline("another module imports a name the fix would move")

    functions = {
        node.name for node in kept_ast if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    calls_only = _calls_only([parsed[i] for i in moved], functions)
    # In main() moved names become local: only when nothing else reads them as globals.
    # Otherwise the statements move unchanged under the guard and stay module-level.
    shared = moved_bound & (nested | kept_bound)
    use_guard_only = calls_only or bool(shared) or "main" in module_bound_names(ctx.tree)
    guard_index = guards[0] if guards else None
    module = ctx.module

    if use_guard_only:
        message = 'Move the module-level statements under `if __name__ == "__main__":`'
    else:
        message = 'Move the module-level statements into `main()`, called under `if __name__ == "__main__":`'
    fix = FixPlan(CODE, message, "unsafe", key=(CODE,))

    def rewrite(groups, updated_module: cst.Module) -> List[cst.BaseStatement]:
        moved_cores: List[cst.BaseStatement] = []
        for index in moved:
            _, _, core, after = groups[index]
            moved_cores.extend(_unindent_blanks(s) for s in (*core, *after))
        for position, stmt in enumerate(moved_cores):
            blanks = len(split_leading(stmt.leading_lines)[0])
            if position == 0 or blanks > 1:
                moved_cores[position] = with_blank_prefix(stmt, 0 if position == 0 else 1)
        if use_guard_only:
            guarded = moved_cores
            main_def = None
        else:
            inner = list(moved_cores)
            main_def = cst.FunctionDef(
                name=cst.Name("main"),
                params=cst.Parameters(),
                body=cst.IndentedBlock(body=inner),
                leading_lines=blank_lines(2 if moved[0] > 0 else 0),
            )
            guarded = [cst.parse_statement("main()\n", config=module.config_for_parsing)]
        out: List[cst.BaseStatement] = []
        pad_next = False
        for index, (_, before, core, after) in enumerate(groups):
            if index in moved_set:
                out.extend(before)
                if index == moved[0] and main_def is not None:
                    if before:
                        out.append(main_def.with_changes(leading_lines=blank_lines(2)))
                    else:
                        out.append(main_def)
                    pad_next = True
                continue
            items = [*before, *core, *after]
            if index == guard_index:
                items = [_prepend_to_guard(s, guarded) if s is core[0] else s for s in items]
            if pad_next and items:
                blanks, _ = split_leading(items[0].leading_lines)
                if len(blanks) < 2:
                    items[0] = with_blank_prefix(items[0], 2)
                pad_next = False
            out.extend(items)
        if guard_index is None:
            guard = cst.parse_statement(
                f'if __name__ == "__main__":\n{module.default_indent}pass\n', config=module.config_for_parsing
            )
            guard = guard.with_changes(
                body=guard.body.with_changes(body=guarded),
                leading_lines=blank_lines(2) if out else [],
            )
            out.append(guard)
        return out

    fix.module_op = rewrite
    return fix


def _unindent_blanks(stmt: cst.BaseStatement) -> cst.BaseStatement:
    """Blank lines from module level carry no indentation once moved into a block."""
    lines = [line.with_changes(indent=False) if line.comment is None else line for line in stmt.leading_lines]
    return stmt.with_changes(leading_lines=lines)


def _prepend_to_guard(guard: cst.BaseStatement, statements: List[cst.BaseStatement]) -> cst.BaseStatement:
    if not isinstance(guard, cst.If) or not isinstance(guard.body, cst.IndentedBlock):
        raise Decline("existing guard is a one-line suite")
    return guard.with_changes(body=guard.body.with_changes(body=[*statements, *guard.body.body]))
