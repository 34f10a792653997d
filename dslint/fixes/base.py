"""What every fix shares: a file's LibCST tree with positions, and the plan a fix makes.

A fix never edits text. It looks up, by the finding's position, the LibCST nodes the
rule saw, and records *operations* on them in a ``FixPlan``:

- ``node_ops``: ``original node -> f(updated node) -> new node`` (an expression or a
  statement rewritten in place);
- ``stmt_ops``: ``original statement -> f([updated statement]) -> [statements]`` (a
  statement replaced by several, or removed);
- ``before`` / ``after``: statements inserted around an original statement of a block;
- ``module_op``: a rewrite of the module body as a whole (DSL101's ``main()``).

``combine.apply`` runs every plan of a file in one transformer pass over one tree, so
fixes compose (a ``non_blocking=True`` added inside statements that DSL101 moves into
``main()``) and everything the plans do not touch is printed back byte for byte.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from ..analysis.summary import ModuleSummary, Span
from ..diagnostics import Finding

NodeOp = Callable[[cst.CSTNode], cst.CSTNode]
StmtOp = Callable[[List[cst.BaseStatement]], List[cst.BaseStatement]]
Builder = Callable[[], List[cst.BaseStatement]]


class Decline(Exception):
    """The fix is not offered for this finding (the reason is for debugging only)."""


@dataclass
class FixPlan:
    code: str
    message: str
    applicability: str  # safe | unsafe
    key: Any = None  # two findings with the same key share one plan (one edit)
    node_ops: Dict[int, Tuple[cst.CSTNode, NodeOp]] = field(default_factory=dict)
    stmt_ops: Dict[int, List[StmtOp]] = field(default_factory=dict)
    before: Dict[int, List[Builder]] = field(default_factory=dict)
    after: Dict[int, List[Builder]] = field(default_factory=dict)
    module_op: Optional[Callable[..., List[cst.BaseStatement]]] = None
    # shared insertions (``import functools``): key -> ("after" | "before", anchor, builder)
    requires: Dict[Any, Tuple[str, cst.BaseStatement, Builder]] = field(default_factory=dict)
    keep_alive: List[cst.CSTNode] = field(default_factory=list)

    def on_node(self, node: cst.CSTNode, op: NodeOp) -> None:
        if id(node) in self.node_ops:
            raise Decline("two edits of one node in one fix")
        self.node_ops[id(node)] = (node, op)
        self.keep_alive.append(node)

    def on_stmt(self, stmt: cst.BaseStatement, op: StmtOp) -> None:
        self.stmt_ops.setdefault(id(stmt), []).append(op)
        self.keep_alive.append(stmt)

    def insert_before(self, stmt: cst.BaseStatement, builder: Builder) -> None:
        self.before.setdefault(id(stmt), []).append(builder)
        self.keep_alive.append(stmt)

    def insert_after(self, stmt: cst.BaseStatement, builder: Builder) -> None:
        self.after.setdefault(id(stmt), []).append(builder)
        self.keep_alive.append(stmt)


class FileContext:
    """One file's source, ast, LibCST tree, positions and parents, and its summary."""

    def __init__(self, path: str, raw: bytes, text: str, summary: Optional[ModuleSummary]):
        self.path = path
        self.raw = raw
        self.text = text
        self.summary = summary
        self.module = cst.parse_module(raw)
        self.wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        self.positions = self.wrapper.resolve(PositionProvider)
        self.parents = self.wrapper.resolve(ParentNodeProvider)
        self.tree = ast.parse(text)
        self._by_start: Optional[Dict[Tuple[int, int], List[cst.CSTNode]]] = None
        self._identifiers: Optional[Set[str]] = None
        self.reserved: Set[str] = set()  # names taken by fixes planned in this file
        self.plans: Dict[Any, "FixPlan"] = {}  # plans shared by findings with the same key
        self.hoists: Dict[int, int] = {}  # functions hoisted before a statement so far
        self.findings: List[Finding] = []  # every finding of the file (DSL101 needs them all)
        self.memo: Dict[str, Any] = {}  # per-file analyses the planners share

    # positions -------------------------------------------------------------------
    def _index(self) -> Dict[Tuple[int, int], List[cst.CSTNode]]:
        if self._by_start is None:
            index: Dict[Tuple[int, int], List[cst.CSTNode]] = {}
            for node, where in self.positions.items():
                index.setdefault((where.start.line, where.start.column), []).append(node)
            self._by_start = index
        return self._by_start

    def nodes_at(self, row: int, col: int, types=None) -> List[cst.CSTNode]:
        """Nodes that start at 1-based ``row`` / 1-based character ``col``."""
        found = self._index().get((row, col - 1), [])
        return [n for n in found if types is None or isinstance(n, types)]

    def node_for(self, span: Span, types) -> cst.CSTNode:
        """The node of one of ``types`` that covers exactly ``span`` (else Decline)."""
        candidates = []
        for node in self.nodes_at(span.row, span.col, types):
            where = self.positions[node]
            if (where.end.line, where.end.column) == (span.end_row, span.end_col - 1):
                candidates.append(node)
        if not candidates:
            raise Decline(f"no {types} at {span}")
        return candidates[0]

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        current = self.parents.get(node)
        while current is not None:
            yield current
            current = self.parents.get(current)

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement:
        """The innermost statement (simple line or compound) that contains ``node``."""
        for item in [node, *self.ancestors(node)]:
            if isinstance(item, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return item
        raise Decline("node outside any statement")

    def top_statement(self, node: cst.CSTNode) -> cst.BaseStatement:
        """The module-level statement that contains ``node``."""
        chain = [node, *self.ancestors(node)]
        for item, parent in zip(chain, chain[1:]):
            if isinstance(parent, cst.Module):
                return item
        raise Decline("node outside the module body")

    def top_index(self, stmt: cst.BaseStatement) -> int:
        for index, item in enumerate(self.module.body):
            if item is stmt:
                return index
        raise Decline("not a module-level statement")

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def row_of(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    # names -------------------------------------------------------------------------
    @property
    def identifiers(self) -> Set[str]:
        """Every identifier of the file (names, attributes, parameters, imports)."""
        if self._identifiers is None:
            found: Set[str] = set()
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Name):
                    found.add(node.id)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.add(node.name)
                elif isinstance(node, ast.arg):
                    found.add(node.arg)
                elif isinstance(node, ast.alias):
                    found.add((node.asname or node.name).split(".")[0])
                elif isinstance(node, (ast.Global, ast.Nonlocal)):
                    found.update(node.names)
                elif isinstance(node, ast.ExceptHandler) and node.name:
                    found.add(node.name)
            self._identifiers = found
        return self._identifiers

    def fresh_name(self, base: str) -> str:
        taken = self.identifiers | self.reserved | BUILTIN_NAMES
        name, number = base, 2
        while name in taken:
            name, number = f"{base}_{number}", number + 1
        self.reserved.add(name)
        return name


import builtins as _builtins  # noqa: E402

BUILTIN_NAMES = frozenset(dir(_builtins))


# building nodes -------------------------------------------------------------------------
def blank_lines(count: int) -> List[cst.EmptyLine]:
    return [cst.EmptyLine(indent=False) for _ in range(count)]


def split_leading(lines: Sequence[cst.EmptyLine]) -> Tuple[List[cst.EmptyLine], List[cst.EmptyLine]]:
    """(the blank lines before the first comment, the rest)."""
    lines = list(lines)
    for index, line in enumerate(lines):
        if line.comment is not None:
            return lines[:index], lines[index:]
    return lines, []


def with_blank_prefix(stmt: cst.BaseStatement, count: int) -> cst.BaseStatement:
    """``stmt`` with exactly ``count`` blank lines before its own comments."""
    _, rest = split_leading(stmt.leading_lines)
    return stmt.with_changes(leading_lines=[*blank_lines(count), *rest])


def parse_statement(code: str, module: cst.Module) -> cst.BaseStatement:
    return cst.parse_statement(code, config=module.config_for_parsing)


def parse_expression(code: str, module: cst.Module) -> cst.BaseExpression:
    return cst.parse_expression(code, config=module.config_for_parsing)


def docstring_count(body: Sequence[cst.BaseStatement]) -> int:
    """1 when the body starts with a docstring, else 0."""
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1:
        first = body[0].body[0]
        if isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString)):
            return 1
    return 0


def finding_span(item: Finding) -> Span:
    return Span(item.location.row, item.location.column, item.end_location.row, item.end_location.column)


def keyword_span(item: Finding) -> Span:
    """The keyword a DSL201/DSL202 finding is about: its ``keyword_span`` fact (the finding
    itself may be on the call that holds it), else the finding's own span."""
    written = item.fact("keyword_span")
    return Span(*written) if written else finding_span(item)
