"""DSL103 (safe): ``cv2.setNumThreads(0)`` right after the module's ``import cv2``.

The call goes on its own line after the import statement, in the same block, so an import
inside ``try:`` gets its call inside the same ``try:`` (it only runs when the import
worked). ``import cv2 as cv`` gets ``cv.setNumThreads(0)``; ``from cv2 import x`` gets
``import cv2`` first.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.summary import Span
from ..diagnostics import Finding
from .base import Decline, FileContext, FixPlan, parse_statement

CODE = "DSL103"


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


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    found = item.fact("cv2_import")
    if found is None:
        raise Decline("no cv2 import")
    span = Span(*found)
    lines = ctx.nodes_at(span.row, span.col, cst.SimpleStatementLine)
    statement = None
    for node in ctx.nodes_at(span.row, span.col, (cst.Import, cst.ImportFrom)):
        statement = ctx.parent(node)
    if statement is None and lines:
        statement = lines[0]
    if not isinstance(statement, cst.SimpleStatementLine):
        raise Decline("import not on a statement line of its own")
    container = ctx.parent(statement)
    if not isinstance(container, (cst.Module, cst.IndentedBlock)):
        raise Decline("import in a one-line suite")
    _, alias = _alias_of(statement)
    if alias is None:
        if _binds_cv2_elsewhere(ctx):
            raise Decline("cv2 bound to something else")
        code = "import cv2\ncv2.setNumThreads(0)\n"
        name = "cv2"
    else:
        name = alias
        code = f"{alias}.setNumThreads(0)\n"
    module = ctx.module
    fix = FixPlan(CODE, f"Insert `{name}.setNumThreads(0)` after the import", "safe", key=(CODE, id(statement)))

    def build():
        if "\n" in code.rstrip("\n"):
            first, second = code.rstrip("\n").split("\n")
            return [parse_statement(first + "\n", module), parse_statement(second + "\n", module)]
        return [parse_statement(code, module)]

    fix.insert_after(statement, build)
    return fix


def _binds_cv2_elsewhere(ctx: FileContext) -> bool:
    import ast

    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Name) and node.id == "cv2" and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.alias) and (node.asname or node.name) == "cv2" and node.name != "cv2":
            return True
    return False
