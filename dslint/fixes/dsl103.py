"""DSL103 (safe): ``cv2.setNumThreads(0)`` once the module's imports are done.

The call goes on its own line after the import block that holds ``import cv2``, so no
import comes after code (flake8/ruff E402) and the block stays one sorted block
(isort/ruff I001):

- at module level the block runs through the imports, the ``if``/``try``/``with``
  statements among them and ``__dunder__`` assignments (what E402 lets come before an
  import); the call follows the last import of it, after one blank line;
- inside a block (``try:``, a function) it follows the run of import lines that holds
  the import, in the same block, so an import guarded by ``try:`` gets its call guarded too.

``import cv2 as cv`` gets ``cv.setNumThreads(0)``; ``from cv2 import imread`` gets
``setNumThreads`` added to its names (in sorted order) and ``setNumThreads(0)``.
"""

from __future__ import annotations

import ast
import textwrap
from typing import List, Optional, Sequence

import libcst as cst

from ..analysis.summary import Span
from ..diagnostics import Finding
from . import scopes
from .base import BUILTIN_NAMES, Decline, FileContext, FixPlan, blank_lines, parse_statement

CODE = "DSL103"
SETTER = "setNumThreads"


def _alias_of(statement: cst.SimpleStatementLine):
    """(the small Import statement, the name cv2 is bound to) or (ImportFrom, None)."""
    for small in statement.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                if alias.evaluated_name == "cv2":
                    return small, alias.evaluated_alias or "cv2"
        elif isinstance(small, cst.ImportFrom) and small.relative == () and small.module is not None:
            if cst.helpers.get_full_name_for_node(small.module) == "cv2":
                return small, None
    raise Decline("no cv2 import on that line")


def _is_import_line(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def _holds_import(stmt: cst.BaseStatement) -> bool:
    found = []

    class Find(cst.CSTVisitor):
        def visit_Import(self, node) -> None:
            found.append(node)

        def visit_ImportFrom(self, node) -> None:
            found.append(node)

        def visit_FunctionDef(self, node) -> bool:
            return False

        def visit_ClassDef(self, node) -> bool:
            return False

    stmt.visit(Find())
    return bool(found)


def _dunder_assignment(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
        [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else [])
    return bool(targets) and all(
        isinstance(t, cst.Name) and t.value.startswith("__") and t.value.endswith("__") for t in targets
    )


def _allowed_before_imports(stmt: cst.BaseStatement) -> bool:
    """What E402 lets come before a module-level import without ending the import block."""
    return _is_import_line(stmt) or isinstance(stmt, (cst.If, cst.Try, cst.With)) or _dunder_assignment(stmt)


def _anchor(body: Sequence[cst.BaseStatement], index: int, module_level: bool) -> int:
    """Index of the statement the call goes after."""
    last = index
    for position in range(index + 1, len(body)):
        stmt = body[position]
        if module_level and _allowed_before_imports(stmt):
            if _holds_import(stmt):
                last = position
            continue
        if not module_level and _is_import_line(stmt):
            last = position
            continue
        break
    return last


def _rebinds(statements: Sequence[cst.BaseStatement], module: cst.Module, name: str) -> bool:
    """Whether any of ``statements`` binds ``name`` (the call would use another object)."""
    code = textwrap.dedent("".join(module.code_for_node(s) for s in statements))
    try:
        return name in scopes.module_bindings(ast.parse(code))
    except SyntaxError:
        return True


def _insert_name(names: Sequence[cst.ImportAlias], new: str) -> List[cst.ImportAlias]:
    """``names`` with ``new`` added where isort's order puts it (appended when unsorted)."""

    def key(name: str):
        kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
        return kind, name.lower(), name

    current = [a.evaluated_alias or a.evaluated_name for a in names]
    position = len(names)
    if [key(n) for n in current] == sorted(key(n) for n in current):
        position = next((i for i, n in enumerate(current) if key(n) > key(new)), len(names))
    names = list(names)
    separator = names[0].comma if len(names) > 1 else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if position == len(names):
        last = names[-1]
        names[-1] = last.with_changes(comma=names[-2].comma if len(names) > 1 else separator)
        names.append(cst.ImportAlias(name=cst.Name(new), comma=last.comma))
    else:
        before = names[position - 1].comma if position > 0 else separator
        if not isinstance(before, cst.Comma):
            before = separator
        names.insert(position, cst.ImportAlias(name=cst.Name(new), comma=before))
    return names


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    found = item.fact("cv2_import")
    if found is None:
        raise Decline("no cv2 import")
    span = Span(*found)
    statement: Optional[cst.CSTNode] = None
    for node in ctx.nodes_at(span.row, span.col, (cst.Import, cst.ImportFrom)):
        statement = ctx.parent(node)
    if statement is None:
        lines = ctx.nodes_at(span.row, span.col, cst.SimpleStatementLine)
        statement = lines[0] if lines else None
    if not isinstance(statement, cst.SimpleStatementLine):
        raise Decline("import not on a statement line of its own")
    container = ctx.parent(statement)
    if not isinstance(container, (cst.Module, cst.IndentedBlock)):
        raise Decline("import in a one-line suite")
    small, alias = _alias_of(statement)
    body = list(container.body)
    index = next(i for i, s in enumerate(body) if s is statement)
    anchor_index = _anchor(body, index, isinstance(container, cst.Module))
    module = ctx.module
    name = alias or SETTER
    if _rebinds(body[index + 1 : anchor_index + 1], module, name):
        raise Decline(f"{name} is bound again before the end of the import block")
    if alias is None:
        if isinstance(small.names, cst.ImportStar):
            raise Decline("from cv2 import *")
        taken = set(scopes.module_bindings(ctx.tree)) | scopes.global_reads(ctx.tree) | BUILTIN_NAMES
        if SETTER in taken:
            raise Decline(f"{SETTER} is a name the module already uses")
        message = f"Import `{SETTER}` from cv2 and call `{SETTER}(0)` after the imports"
    else:
        message = f"Insert `{alias}.{SETTER}(0)` after the imports"
    code = f"{name}(0)\n" if alias is None else f"{alias}.{SETTER}(0)\n"
    fix = FixPlan(CODE, message, "safe", key=(CODE, id(statement)))
    if alias is None:
        fix.on_node(small, lambda updated: updated.with_changes(names=_insert_name(updated.names, SETTER)))
    blank = 1 if isinstance(container, cst.Module) else 0

    def build() -> List[cst.BaseStatement]:
        return [parse_statement(code, module).with_changes(leading_lines=blank_lines(blank))]

    fix.insert_after(body[anchor_index], build)
    return fix
