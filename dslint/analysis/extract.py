"""ast → ModuleSummary in one traversal.

Every statement and expression of the file is visited once. Expressions become symbolic
values (``analysis.values``); calls, loops, lambdas, defs, classes and attribute stores
are recorded in the summary's tables as they are met. Names are not resolved here: a
value keeps ``Name("x")`` and the resolver decides later, in the scope that owns it,
whether ``x`` is a local, a parameter, a closure variable, a global or an import.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from .summary import AttrStore, Binding, CallSite, ClassSummary, FunctionSummary, Loop, ModuleSummary, Param, Span
from .values import (
    NONE,
    SLICE,
    UNKNOWN,
    Attr,
    Call,
    ClassRef,
    Const,
    DictDisplay,
    Element,
    FunctionRef,
    Imported,
    Item,
    Name,
    Op,
    Part,
    Seq,
    Starred,
    Unknown,
    Value,
    position,
)
from .values import last_name as last_name_of

MAX_STR = 120  # longer string constants are kept as Unknown (docstrings, prompts)

BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
    ast.MatMult: "@",
}
CMPOPS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is-not", ast.In: "in", ast.NotIn: "not-in",
}
UNARYOPS = {ast.USub: "neg", ast.Not: "not", ast.UAdd: "pos", ast.Invert: "inv"}
CONST_TYPES = (int, float, bool, type(None))
_NAME, _LOAD, _CONSTANT, _ATTRIBUTE = ast.Name, ast.Load, ast.Constant, ast.Attribute
_PLAIN = frozenset(CONST_TYPES)  # the exact types of ``ast.Constant`` values kept as they are
UNKNOWN_STR, UNKNOWN_CONST = Unknown("str"), Unknown("const")
_new = tuple.__new__  # builds a NamedTuple without its Python-level ``__new__`` (same object, less work)


def is_main_guard(test: ast.AST) -> bool:
    """``__name__ == "__main__"`` in either order, alone or as one operand of an ``and``
    (``if __name__ == "__main__" and not args.dry_run:`` runs its body only as the script)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(is_main_guard(value) for value in test.values)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


class Scope:
    """What the traversal accumulates for one module, function, lambda or class body."""

    __slots__ = ("kind", "qualname", "bindings", "loads", "attr_loads", "self_reads", "self_item_stores", "self_inert", "self_used",
                 "returns", "return_guards",
                 "generator", "globals", "nonlocals", "self_name", "methods", "fields", "blocks", "main_only", "fills",
                 "positive", "capped", "param_tests", "tests", "param_copies")

    def __init__(self, kind: str, qualname: str, self_name: Optional[str] = None):
        self.kind = kind
        self.qualname = qualname
        self.bindings: Dict[str, List[Binding]] = {}
        self.loads: Set[str] = set()
        self.attr_loads: Set[str] = set()
        self.self_reads: Set[str] = set()
        self.self_item_stores: Set[str] = set()  # of ``self_reads``: loaded only as ``self.<attr>[key] = value``
        # of ``self_reads``: loaded where the value drives nothing (a log call, a test that only
        # logs, the attribute's own new value: ``self.n = self.n + 1``)
        self.self_inert: Set[str] = set()
        self.self_used: Set[str] = set()  # ... and loaded anywhere else
        self.returns: List[Value] = []
        self.return_guards: List[Tuple[int, Tuple[Tuple[str, object], ...]]] = []  # one per return
        self.generator = False
        self.globals: Set[str] = set()
        self.nonlocals: Set[str] = set()
        self.self_name = self_name
        self.methods: List[str] = []
        self.fields: List[Param] = []
        self.blocks: List[Tuple[int, int, int]] = []
        self.main_only: List[Span] = []
        self.fills: List[Tuple[str, int]] = []
        self.positive: List[Tuple[Tuple[str, ...], int, int]] = []
        self.capped: List[Tuple[int, int, int, Value, int]] = []
        self.param_tests: List[Tuple[int, str, str]] = []
        self.tests: List[Tuple[Value, Span]] = []
        self.param_copies: Dict[str, Optional[str]] = {}  # ``self.<attr> = <param>`` made once, unconditionally

    def frozen_bindings(self) -> Dict[str, Tuple[Binding, ...]]:
        return {name: tuple(items) for name, items in self.bindings.items()}


class Extractor:
    def __init__(self, path: str, text: str):
        self.path = path
        self.lines = text.split("\n")
        self.wide: Set[int] = set()  # rows with a non-ASCII character, where bytes are not characters
        if text.isascii():
            self.span = self._ascii_span
        else:
            self.wide = {row for row, line in enumerate(self.lines, 1) if not line.isascii()}
        self.summary = ModuleSummary(path)
        self.module_scope = Scope("module", "")
        self.scope = self.module_scope
        self.loop = -1  # innermost loop of the current scope
        self.guarded = False
        self.handlers: Tuple[str, ...] = ()
        self.none_guards: Tuple[Tuple[str, str], ...] = ()  # (root name, attr) tested for None
        self.not_none: Tuple[str, ...] = ()  # ``ast.dump`` of expressions the enclosing ``if``s hold not None
        self.filling: Tuple[Tuple[Tuple[str, ...], int], ...] = ()  # (target, body block) of ``if <target unset>:``
        self.top: Optional[Span] = None
        self.imports: List[Value] = []
        self.block = -1  # innermost conditional block of the current scope
        # (parameter, what holds) of the ``if <param test>: return ...`` passed in the enclosing blocks:
        # what follows them runs only when their test failed
        self.exits: Tuple[Tuple[str, object], ...] = ()
        self.effective = 0  # where bindings made by the current statement take effect
        self.reporting = False  # inside a log call's arguments or the test of a block that only logs
        self.updating: Optional[str] = None  # ``<attr>`` while evaluating the value of ``self.<attr> = ...``
        self.stmt_dispatch = {
            ast.FunctionDef: self._def, ast.AsyncFunctionDef: self._def, ast.ClassDef: self._class,
            ast.Return: self._return, ast.Assign: self._assign, ast.AugAssign: self._augassign,
            ast.AnnAssign: self._annassign, ast.For: self._for, ast.AsyncFor: self._for, ast.While: self._while,
            ast.If: self._if, ast.With: self._with, ast.AsyncWith: self._with, ast.Try: self._try,
            ast.Expr: self._expr_stmt, ast.Import: self._import, ast.ImportFrom: self._import_from,
            ast.Global: self._global, ast.Nonlocal: self._nonlocal, ast.Delete: self._delete,
            ast.Assert: self._assert,
        }
        if hasattr(ast, "TryStar"):
            self.stmt_dispatch[ast.TryStar] = self._try
        self.expr_dispatch = {
            ast.Subscript: self._subscript, ast.Call: self._call, ast.Lambda: self._lambda,
            ast.List: self._display, ast.Tuple: self._display, ast.Set: self._display, ast.Dict: self._dict,
            ast.BinOp: self._binop, ast.UnaryOp: self._unaryop, ast.BoolOp: self._boolop,
            ast.Compare: self._compare, ast.IfExp: self._ifexp, ast.JoinedStr: self._joinedstr,
            ast.ListComp: self._comprehension, ast.SetComp: self._comprehension,
            ast.GeneratorExp: self._comprehension, ast.DictComp: self._comprehension,
            ast.NamedExpr: self._namedexpr, ast.Yield: self._yield, ast.YieldFrom: self._yield,
            ast.Starred: self._starred, ast.Slice: self._slice,
        }

    # positions ------------------------------------------------------------------
    def _col(self, row: int, byte_col: int) -> int:
        if row not in self.wide:
            return byte_col + 1
        line = self.lines[row - 1]
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace")) + 1

    def span(self, node: ast.AST) -> Span:
        """The node's span (``_ascii_span`` in an ASCII file; a parsed node has every position)."""
        row, end_row, wide = node.lineno, node.end_lineno, self.wide
        col = node.col_offset + 1 if row not in wide else self._col(row, node.col_offset)
        end_col = node.end_col_offset + 1 if end_row not in wide else self._col(end_row, node.end_col_offset)
        return _new(Span, (row, col, end_row, end_col))

    @staticmethod
    def _ascii_span(node: ast.AST) -> Span:
        """``span`` of an ASCII file: byte offsets are character offsets (a parsed node has every position)."""
        return _new(Span, (node.lineno, node.col_offset + 1, node.end_lineno, node.end_col_offset + 1))

    def spans(self, nodes) -> Tuple[Span, ...]:
        if self.wide:
            span = self.span
            return tuple([span(node) for node in nodes])
        return tuple([_new(Span, (n.lineno, n.col_offset + 1, n.end_lineno, n.end_col_offset + 1)) for n in nodes])

    def name_span(self, node, name: str) -> Span:
        """The span of ``name`` in ``def name`` / ``class name`` (the header's first line)."""
        row = node.lineno
        line = self.lines[row - 1] if row <= len(self.lines) else ""
        col = line.find(name, node.col_offset)
        col = self._col(row, col) if col >= 0 else self._col(row, node.col_offset)
        return _new(Span, (row, col, row, col + len(name)))

    # driver ---------------------------------------------------------------------
    def run(self, tree: ast.Module) -> ModuleSummary:
        for stmt in tree.body:
            self.top = self.span(stmt)
            self.statement(stmt)
        self.top = None
        summary = self.summary
        summary.bindings = self.module_scope.frozen_bindings()
        summary.imports = tuple(self.imports)
        summary.blocks = tuple(self.module_scope.blocks)
        summary.capped = tuple(self.module_scope.capped)
        return summary

    def statement(self, stmt: ast.stmt) -> None:
        col = stmt.end_col_offset or 0
        self.effective = (stmt.end_lineno or stmt.lineno) * 65536 + (col if col < 65535 else 65535)  # values.position
        handler = self.stmt_dispatch.get(type(stmt))
        if handler is not None:
            handler(stmt)
            return
        # raise, assert, match, pass...: record what their expressions contain
        for name, value in ast.iter_fields(stmt):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt):
                        self.statement(item)
                    elif isinstance(item, ast.expr):
                        self.expr(item)
                    elif isinstance(item, ast.AST):
                        self._other_node(item)
            elif isinstance(value, ast.expr):
                self.expr(value)
            elif isinstance(value, ast.AST):
                self._other_node(value)

    def _other_node(self, node: ast.AST) -> None:
        """match cases, patterns, keywords... anything holding statements or expressions."""
        for _, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else (value,)
            for item in items:
                if isinstance(item, ast.stmt):
                    self.statement(item)
                elif isinstance(item, ast.expr):
                    self.expr(item)
                elif isinstance(item, ast.AST):
                    self._other_node(item)
            if type(node).__name__.startswith("Match") and isinstance(value, str):
                self.bind_name(value, UNKNOWN, self.span(node), "other")

    # bindings -------------------------------------------------------------------
    def bind_name(self, name: str, value: Value, span: Span, kind: str = "assign") -> None:
        scope = self.scope
        if name in scope.globals:
            scope = self.module_scope
        block = self.block if scope is self.scope else -1
        binding = _new(Binding, (kind, value, span, self.guarded, self.effective, block))
        if self.filling and block >= 0 and ((name,), block) in self.filling:
            scope.fills.append((name, self.effective))
        made = scope.bindings.get(name)
        if made is None:
            scope.bindings[name] = [binding]
        else:
            made.append(binding)

    def bind_target(self, target: ast.AST, value: Value, kind: str = "assign",
                    source: Optional[ast.AST] = None) -> None:
        """Bind ``target`` to ``value``; ``source`` is the value's node (attribute stores keep its span)."""
        kind_of = type(target)
        if kind_of is _NAME:
            self.bind_name(target.id, value, self.span(target), kind)
        elif kind_of is ast.Tuple or kind_of is ast.List:
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    self.bind_target(element.value, _new(Part, (value, -1)), kind)
                else:
                    self.bind_target(element, _new(Part, (value, index)), kind)
        elif kind_of is _ATTRIBUTE:
            self.store(target.value, target.attr, value, source if source is not None else target, kind)
        elif kind_of is ast.Subscript:
            key = self.expr(target.slice)
            self.store(target.value, "[]", value, source if source is not None else target, kind, key)
        elif kind_of is ast.Starred:
            self.bind_target(target.value, value, kind)

    def store(self, base: ast.AST, attr: str, value: Value, node: ast.AST, kind: str, key: Optional[Value] = None) -> None:
        item_store = self._self_item_store(base, attr, kind)
        target = self.expr(base)
        if item_store is not None:
            self.scope.self_item_stores.add(item_store)
        root = target.id if isinstance(target, Name) else None
        guarded = root is not None and (root, attr) in self.none_guards
        fills = root is not None and self.block >= 0 and ((root, attr), self.block) in self.filling
        self.summary.stores.append(_new(AttrStore, (self.scope.qualname, target, attr, value, self.span(node), kind, guarded,
                                                    self.loop, self.block, key, fills)))
        if root is not None and root == self.scope.self_name:
            self._note_param_copy(attr, value, kind, key)

    def _note_param_copy(self, attr: str, value: Value, kind: str, key: Optional[Value]) -> None:
        """Remember ``self.<attr> = <param>`` stored once on every way through the method (not
        in a branch or loop, the parameter not rebound): a later ``if self.<attr>:`` tests
        what the caller passed, like ``if <param>:``."""
        copies = self.scope.param_copies
        copied = None
        if attr not in copies and kind == "assign" and key is None and self.block < 0 and self.loop < 0 \
                and type(value) is Name:
            bindings = self.scope.bindings.get(value.id, ())
            if len(bindings) == 1 and bindings[0].kind == "param":
                copied = value.id
        copies[attr] = copied  # a second store of the attribute: no longer the parameter

    def _self_attribute(self, target: ast.AST) -> Optional[str]:
        """``<attr>`` when ``target`` is ``self.<attr>`` of the method being read."""
        if type(target) is _ATTRIBUTE and type(target.value) is _NAME and self.scope.self_name is not None \
                and target.value.id == self.scope.self_name:
            return target.attr
        return None

    def _self_item_store(self, base: ast.AST, attr: str, kind: str) -> Optional[str]:
        """``<attr>`` of ``self.<attr>[key] = value`` when this scope has not read ``self.<attr>``
        otherwise before: storing an item does not read the container (``+=`` on an item does)."""
        scope = self.scope
        if attr != "[]" or kind != "assign" or scope.self_name is None or type(base) is not _ATTRIBUTE:
            return None
        if type(base.value) is not _NAME or base.value.id != scope.self_name:
            return None
        read = base.attr in scope.self_reads and base.attr not in scope.self_item_stores
        return None if read else base.attr

    def conditional(self, stmts, first_row: int, last_row: int, prelude=None) -> None:
        """Run ``stmts`` as a block that may not execute (a branch, a loop body, a handler);
        ``prelude`` binds what the block binds on entry (a loop target, an ``except`` name)."""
        if not stmts and prelude is None:
            return
        blocks = self.scope.blocks
        blocks.append((self.block, first_row, last_row))
        saved, saved_exits = self.block, self.exits
        self.block = len(blocks) - 1
        if prelude is not None:
            prelude()
        statement = self.statement
        for stmt in stmts:
            statement(stmt)
        self.block, self.exits = saved, saved_exits

    def _block(self, stmts) -> None:
        statement = self.statement
        for stmt in stmts:
            statement(stmt)

    def _rows(self, stmts) -> Tuple[int, int]:
        return stmts[0].lineno, max([s.end_lineno for s in stmts])

    def branch(self, stmts) -> None:
        if stmts:
            self.conditional(stmts, *self._rows(stmts))

    # statements -----------------------------------------------------------------
    def _params(self, args: ast.arguments) -> Tuple[Param, ...]:
        """Parameters, with defaults converted in the *enclosing* scope (where Python evaluates them)."""
        param = self._param
        posonly = args.posonlyargs
        defaults = args.defaults
        first_default = len(posonly) + len(args.args) - len(defaults)  # the first positional with a default
        params: List[Param] = [param(arg, "posonly", defaults[index - first_default] if index >= first_default else None)
                               for index, arg in enumerate(posonly)]
        for index, arg in enumerate(args.args, len(posonly)):
            params.append(param(arg, "pos", defaults[index - first_default] if index >= first_default else None))
        if args.vararg is not None:
            params.append(self._param(args.vararg, "vararg", None))
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            params.append(self._param(arg, "kwonly", default))
        if args.kwarg is not None:
            params.append(self._param(args.kwarg, "kwarg", None))
        return tuple(params)

    def _param(self, arg: ast.arg, kind: str, default: Optional[ast.expr]) -> Param:
        annotation = arg.annotation
        annotation = (_dotted(annotation) or "") if type(annotation) is _NAME or type(annotation) is _ATTRIBUTE else ""
        if default is None:
            return _new(Param, (arg.arg, kind, None, self.span(arg), None, annotation))
        return _new(Param, (arg.arg, kind, self.expr(default), self.span(arg), self.span(default), annotation))

    def _child_qualname(self, name: str) -> str:
        outer = self.scope
        if outer.kind == "module":
            return name
        if outer.kind == "class":
            return f"{outer.qualname}.{name}"
        return f"{outer.qualname}.<locals>.{name}"

    def _def(self, node) -> None:
        outer = self.scope
        name = node.name
        decorators = tuple([self.expr(d) for d in node.decorator_list])
        params = self._params(node.args)
        qualname = self._child_qualname(name)
        span = self.name_span(node, name)
        self.bind_name(name, _new(FunctionRef, (qualname,)), span, "def")
        self_name = None
        if outer.kind == "class":
            outer.methods.append(name)
            is_static = any(type(d) is Name and d.id == "staticmethod" for d in decorators)
            if params and not is_static and params[0].kind in ("pos", "posonly"):
                self_name = params[0].name
        scope = Scope("function", qualname, self_name)
        self._bind_params(scope, params)
        summary = FunctionSummary(qualname, name, span, outer.qualname, outer.kind,
                                  "function", params, decorators, guarded=self.guarded,
                                  end_row=node.end_lineno or node.lineno)
        self._enter(scope, node.body)
        self._finish_function(summary, scope)

    @staticmethod
    def _bind_params(scope: Scope, params: Tuple[Param, ...]) -> None:
        bindings = scope.bindings
        for param in params:
            bindings.setdefault(param.name, []).append(_new(Binding, ("param", UNKNOWN, param.span, False, 0, -1)))

    def _enter(self, scope: Scope, body) -> None:
        saved = (self.scope, self.loop, self.handlers, self.none_guards, self.guarded, self.block, self.filling,
                 self.not_none, self.exits)
        self.scope, self.loop, self.handlers, self.none_guards, self.guarded, self.block = scope, -1, (), (), False, -1
        self.not_none = ()
        self.filling = ()
        self.exits = ()
        if isinstance(body, list):
            self._block(body)
        else:
            self.returned(self.expr(body))
        self.scope, self.loop, self.handlers, self.none_guards, self.guarded, self.block, self.filling, \
            self.not_none, self.exits = saved

    def _finish_function(self, summary: FunctionSummary, scope: Scope) -> None:
        summary.bindings = scope.frozen_bindings()
        summary.declared_global = frozenset(scope.globals)
        summary.declared_nonlocal = frozenset(scope.nonlocals)
        summary.returns = tuple(scope.returns)
        if any(guard != (-1, ()) for guard in scope.return_guards):
            summary.return_guards = tuple(scope.return_guards)
        summary.blocks = tuple(scope.blocks)
        summary.main_only = tuple(scope.main_only)
        summary.fills = tuple(scope.fills)
        summary.positive = tuple(scope.positive)
        summary.capped = tuple(scope.capped)
        summary.param_tests = tuple(scope.param_tests)
        summary.tests = tuple(scope.tests)
        summary.is_generator = scope.generator
        summary.loads = frozenset(scope.loads)
        summary.attr_loads = frozenset(scope.attr_loads)
        summary.self_reads = frozenset(scope.self_reads)
        summary.self_item_stores = frozenset(scope.self_item_stores)
        summary.self_inert = frozenset(scope.self_inert - scope.self_used)
        self.summary.functions.setdefault(summary.qualname, summary)

    def _class(self, node: ast.ClassDef) -> None:
        outer = self.scope
        bases = tuple(self.expr(b) for b in node.bases)
        keywords = tuple((k.arg, self.expr(k.value)) for k in node.keywords if k.arg)
        decorators = tuple(self.expr(d) for d in node.decorator_list)
        qualname = self._child_qualname(node.name)
        span = self.name_span(node, node.name)
        self.bind_name(node.name, ClassRef(qualname), span, "class")
        scope = Scope("class", qualname)
        self._enter(scope, node.body)
        self.summary.classes.setdefault(qualname, ClassSummary(
            qualname, node.name, span, node.lineno, outer.qualname, outer.kind, bases, keywords, decorators,
            scope.frozen_bindings(), tuple(scope.methods), tuple(scope.fields), self.guarded,
        ))

    def returned(self, value: Value) -> None:
        """``value`` is returned (or yielded) here, under the branch tests in effect."""
        self.scope.returns.append(value)
        self.scope.return_guards.append((self.block, self.exits))

    def _return(self, node: ast.Return) -> None:
        self.returned(self.expr(node.value) if node.value is not None else Const(None))

    def _assign(self, node: ast.Assign) -> None:
        updating = self.updating
        self.updating = self._self_attribute(node.targets[0]) if len(node.targets) == 1 else None
        value = self.expr(node.value)
        self.updating = updating
        if self.not_none and isinstance(node.value, (ast.Name, ast.Attribute)) and ast.dump(node.value) in self.not_none:
            value = Op("notnone", (value,))  # ``if args.workers is not None: cfg.workers = args.workers``
        for target in node.targets:
            self.bind_target(target, value, "assign", node.value)

    def _augassign(self, node: ast.AugAssign) -> None:
        value = self.expr(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            self.bind_name(target.id, Op(BINOPS.get(type(node.op), "?"),
                                         (Name(target.id, position(target.lineno, target.col_offset)), value)),
                           self.span(target), "aug")
            self.scope.loads.add(target.id)
        else:
            self.bind_target(target, value, "aug")

    def _annassign(self, node: ast.AnnAssign) -> None:
        value = self.expr(node.value) if node.value is not None else None
        if self.scope.kind == "class" and isinstance(node.target, ast.Name):
            annotation = _dotted(node.annotation) if isinstance(node.annotation, (ast.Name, ast.Attribute)) else ""
            self.scope.fields.append(Param(node.target.id, "pos", value, self.span(node.target),
                                           self.span(node.value) if node.value is not None else None,
                                           annotation or ""))
        if value is not None:
            self.bind_target(node.target, value, source=node.value)

    def _loop_record(self, kind: str, iterable: Optional[Value], target: Optional[str], header: Span,
                     body: Optional[Span], end_row: int) -> int:
        loops = self.summary.loops
        loops.append(_new(Loop, (self.scope.qualname, kind, iterable, target, header, body, end_row, self.loop,
                                 self.guarded, self.top if self.scope.kind == "module" else None)))
        return len(loops) - 1

    def _for(self, node) -> None:
        iterable = self.expr(node.iter)
        start, stop = self.span(node), self.span(node.iter)
        header = Span(start.row, start.col, stop.end_row, stop.end_col)
        target = node.target.id if isinstance(node.target, ast.Name) else None
        index = self._loop_record("for", iterable, target, header, self.span(node.body[0]) if node.body else None,
                                  node.end_lineno or node.lineno)
        self.effective = position(stop.end_row, stop.end_col)

        def bind_target():
            self.bind_target(node.target, Element(iterable), "loop")

        saved = self.loop
        self.loop = index
        self.conditional(node.body, header.row, node.end_lineno or node.lineno, bind_target)
        self.loop = saved
        self.branch(node.orelse)

    def _test(self, test: ast.AST) -> None:
        """Record the test of an ``if``/``while``/``assert``: what it reads decides nothing for
        the model but is a read (``if dataset.skipped > 10:``)."""
        value = self.expr(test)
        if self.scope.kind == "function":
            self.scope.tests.append((value, self.span(test)))

    def _assert(self, node: ast.Assert) -> None:
        self._test(node.test)
        if node.msg is not None:
            self.expr(node.msg)

    def _while(self, node: ast.While) -> None:
        test_span = self.span(node.test)
        self._test(node.test)
        start = self.span(node)
        header = Span(start.row, start.col, test_span.end_row, test_span.end_col)
        index = self._loop_record("while", None, None, header, self.span(node.body[0]) if node.body else None,
                                  node.end_lineno or node.lineno)
        saved = self.loop
        self.loop = index
        self.branch(node.body)
        self.loop = saved
        self.branch(node.orelse)

    def _if(self, node: ast.If) -> None:
        if self.scope.kind == "module" and not self.guarded and is_main_guard(node.test):
            self.summary.has_main_guard = True
            self.guarded = True
            if isinstance(node.test, ast.BoolOp):  # the other operands run only as the script too
                self.top = self.span(node)
                self.expr(node.test)
            blocks = self.scope.blocks
            blocks.append((self.block, *self._rows(node.body)))
            saved_block, self.block = self.block, len(blocks) - 1
            for stmt in node.body:
                self.top = self.span(stmt)
                self.statement(stmt)
            self.guarded, self.block = False, saved_block
            self.branch(node.orelse)
            return
        if not node.orelse and not self.reporting and all(_reports(stmt) for stmt in node.body):
            self.reporting = True  # ``if self.seen % 1000 == 0: log.debug(...)``
            self._test(node.test)
            self.reporting = False
        else:
            self._test(node.test)
        main = self._main_process_test(node.test)
        if main is not None:
            taken = node.body if main else node.orelse
            if taken:
                first, last = self._rows(taken)
                self.scope.main_only.append(_new(Span, (first, 1, last, 1 << 30)))  # whole rows
            elif isinstance(node.body[-1], (ast.Return, ast.Raise)) and self.scope.kind != "module":
                # ``if info is not None: return x``: what follows in this block runs in the main process
                last = self.scope.blocks[self.block][2] if self.block >= 0 else 1 << 30
                self.scope.main_only.append(_new(Span, (node.end_lineno + 1, 1, last, 1 << 30)))
        tested, unset = _none_test(node.test), _unset_target(node.test)
        if self.loop >= 0:
            self._count_cap(node)
        positive = _positive_target(node.test)
        if positive is not None and self.scope.kind != "module":
            self.scope.positive.append((positive, *self._rows(node.body)))
        elif unset is not None and node.orelse and self.scope.kind != "module":
            self.scope.positive.append((unset, *self._rows(node.orelse)))
        elif unset is not None and not node.orelse and self.scope.kind != "module" and _tests_zero(node.test) \
                and isinstance(node.body[-1], (ast.Return, ast.Raise)):
            # ``if self.num_workers == 0: return {}``: the rest of the block runs with workers
            last = self.scope.blocks[self.block][2] if self.block >= 0 else 1 << 30
            self.scope.positive.append((unset, node.end_lineno + 1, last))
        saved, saved_filling = self.none_guards, self.filling
        if tested is not None:
            self.none_guards = saved + (tested,)
        if unset is not None:  # the body is the block ``conditional`` opens next
            self.filling = saved_filling + ((unset, len(self.scope.blocks)),)
        param_test = self._param_test(node.test)
        for held_in_body in self._body_param_tests(node.test, param_test):
            self.scope.param_tests.append((len(self.scope.blocks), *held_in_body))
        saved_not_none = self.not_none
        held, none_in_body = _not_none_test(node.test)
        if held is not None and not none_in_body:
            self.not_none = saved_not_none + (held,)
        self.branch(node.body)
        self.none_guards, self.filling, self.not_none = saved, saved_filling, saved_not_none
        if param_test is not None and node.orelse:
            self.scope.param_tests.append((len(self.scope.blocks), param_test[0], negated_test(param_test[1])))
        if param_test is not None and isinstance(node.body[-1], (ast.Return, ast.Raise)):
            self.exits = self.exits + ((param_test[0], negated_test(param_test[1])),)
        if held is not None and none_in_body:
            self.not_none = saved_not_none + (held,)
        self.branch(node.orelse)
        self.not_none = saved_not_none

    def _body_param_tests(self, test: ast.AST, whole) -> List[Tuple[str, str]]:
        """What the body of ``if test:`` may assume about parameters: the test itself, or each
        part of ``a and b`` (``if distributed and not isinstance(ds, IterableDataset):`` runs
        only when ``distributed`` is truthy)."""
        if whole is not None:
            return [whole]
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return [part for part in map(self._param_test, test.values) if part is not None]
        return []

    def _param_test(self, test: ast.AST) -> Optional[Tuple[str, str]]:
        """(parameter, what holds in the body) for ``if param is None:`` ("none"),
        ``if param is not None:`` ("not none"), ``if not param:`` ("falsy"), ``if param:``
        ("truthy"): a branch only some callers take (``if video_loader is None:
        self.loader = VideoLoader(lambda ...)``)."""
        held = "truthy"
        compared = _compared_to_none(test)
        constants = _compared_to_constants(test)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, held = test.operand, "falsy"
        elif compared is not None:
            test, held = compared[0], "none" if compared[1] else "not none"
        elif constants is not None:
            test, held = constants
        if self.scope.kind != "function":
            return None
        if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == self.scope.self_name:
            copied = self.scope.param_copies.get(test.attr)
            return (copied, held) if copied is not None and len(self.scope.bindings.get(copied, ())) == 1 else None
        if not isinstance(test, ast.Name):
            return None
        bindings = self.scope.bindings.get(test.id, ())
        if len(bindings) != 1 or (bindings[0].kind != "param" and (constants is None or bindings[0].kind != "assign")):
            return None  # rebound before the test: not what the caller passed
        return test.id, held

    def _count_cap(self, node: ast.If) -> None:
        """Record an ``if`` inside a loop that bounds how often its body runs by a count:
        ``if len(kept) < 4:``, ``if i == 0:`` / ``if i < 8:`` on a loop variable, or that ends
        the loop after a count (``if i >= 8: break``)."""
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return
        op, left, bound = type(test.ops[0]), test.left, test.comparators[0]
        if not isinstance(bound, (ast.Constant, ast.Name, ast.Attribute)):
            return
        counted = isinstance(left, ast.Name) and any(b.kind == "loop" for b in self.scope.bindings.get(left.id, ()))
        sized = isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
        value = self.expr(bound)
        counter = self._counting_loop(left.id) if counted else -1
        if (sized and op in (ast.Lt, ast.LtE)) or (counted and op in (ast.Eq, ast.Lt, ast.LtE)):
            self.scope.capped.append((*self._rows(node.body), -1, value, counter))
        elif counted and op in (ast.Eq, ast.Gt, ast.GtE) and isinstance(node.body[-1], ast.Break):
            self.scope.capped.append((0, 0, self.loop, value, counter))

    def _counting_loop(self, name: str) -> int:
        """The enclosing loop whose variable ``name`` is (-2 when none is): only that loop's
        passes are counted by a test on it (``if epoch == 0:`` in a loop over batches inside
        the epoch loop lets every batch of epoch 0 through)."""
        loops, index = self.summary.loops, self.loop
        bindings = [b for b in self.scope.bindings.get(name, ()) if b.kind == "loop"]
        while index >= 0:
            header = loops[index].span
            if any(header.row <= b.span.row <= header.end_row for b in bindings):
                return index
            index = loops[index].parent
        return -2

    def _main_process_test(self, test: ast.AST) -> Optional[bool]:
        """True when ``test`` holds only in the main process, False when it fails only there,
        None otherwise: it asks ``get_worker_info()`` (directly, or through a name of this
        function bound to its result) whether it is None (``if info is None:``, ``if not
        info:``, ``if get_worker_info() is not None:``, ``if info:``), alone or as an operand
        of ``and`` (True) or ``or`` (False)."""
        if isinstance(test, ast.BoolOp):  # ``info is None and self.on_gpu``: true only in the main process
            parts = [self._main_process_test(value) for value in test.values]
            wanted = isinstance(test.op, ast.And)  # ``info is not None or ...``: false only in the main process
            return wanted if wanted in parts else None
        main = False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, main = test.operand, True
        named = self._named_worker_test(test)
        if named is not None:  # ``in_worker = get_worker_info() is not None`` ... ``if not in_worker:``
            return named != main
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None and isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))):
            main = main != isinstance(test.ops[0], (ast.Is, ast.Eq))
            test = test.left
        return main if self._asks_worker_info(test) else None

    def _named_worker_test(self, node: ast.AST) -> Optional[bool]:
        """For a name of this function bound only to ``get_worker_info() is None`` (True: it
        holds in the main process) or ``... is not None`` (False: it holds in a worker)."""
        if not isinstance(node, ast.Name) or self.scope.kind == "module":
            return None
        found = set()
        for binding in self.scope.bindings.get(node.id, ()):
            value = binding.value
            if not (type(value) is Op and value.op in ("is", "is-not", "==", "!=") and value.args[1] == NONE
                    and type(value.args[0]) is Call
                    and last_name_of(self.summary.calls[value.args[0].index].func) == "get_worker_info"):
                return None
            found.add(value.op in ("is", "=="))
        return found.pop() if len(found) == 1 else None

    def _asks_worker_info(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call):
            return (_dotted(node.func) or "").rpartition(".")[2] == "get_worker_info"
        if not isinstance(node, ast.Name) or self.scope.kind == "module":
            return False
        calls = self.summary.calls
        for binding in self.scope.bindings.get(node.id, ()):
            value = binding.value
            if type(value) is Call and last_name_of(calls[value.index].func) == "get_worker_info":
                return True
        return False

    def _with(self, node) -> None:
        for item in node.items:
            value = self.expr(item.context_expr)
            if item.optional_vars is not None:
                self.effective = position(item.context_expr.end_lineno, item.context_expr.end_col_offset)
                self.bind_target(item.optional_vars, value, "with")
        self._block(node.body)

    def _try(self, node) -> None:
        caught: List[str] = []
        for handler in node.handlers:
            if handler.type is None:
                caught.append("*")
            else:
                types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                caught.extend(_dotted(t).rpartition(".")[2] if _dotted(t) else "?" for t in types)
        saved = self.handlers
        self.handlers = saved + tuple(caught)
        self.branch(node.body)
        self.handlers = saved
        for handler in node.handlers:
            if handler.type is not None:
                self.expr(handler.type)

            def bind_name(handler=handler):
                if handler.name:
                    self.bind_name(handler.name, UNKNOWN, self.span(handler), "other")

            self.conditional(handler.body, handler.lineno, handler.end_lineno or handler.lineno, bind_name)
        self.branch(node.orelse)
        self._block(node.finalbody)

    def _expr_stmt(self, node: ast.Expr) -> None:
        value = node.value
        if isinstance(value, ast.Constant):
            return  # docstrings and bare literals
        result = self.expr(value)
        if type(result) is Call:
            calls = self.summary.calls
            site = calls[result.index]
            calls[result.index] = _new(CallSite, site[:9] + (True,) + site[10:])  # ``statement``

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                value = Imported(alias.name)
                self.bind_name(alias.asname, value, self.span(node), "import")
            else:
                top = alias.name.split(".")[0]
                self.bind_name(top, Imported(top), self.span(node), "import")
                value = Imported(alias.name)
            if self.scope.kind == "module" and not self.guarded:
                self.imports.append(value)

    def _import_from(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        level = node.level
        at_import_time = self.scope.kind == "module" and not self.guarded
        if at_import_time:
            self.imports.append(_new(Imported, (base, level)))
        span = None
        for alias in node.names:
            name = alias.name
            if name == "*":
                if self.scope.kind == "module":
                    self.summary.star_imports += (Imported(base, level),)
                continue
            imported = _new(Imported, (f"{base}.{name}" if base else name, level))
            if span is None:
                span = self.span(node)
            self.bind_name(alias.asname or name, imported, span, "import")
            if at_import_time:
                self.imports.append(imported)

    def _global(self, node: ast.Global) -> None:
        self.scope.globals.update(node.names)

    def _nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.nonlocals.update(node.names)

    def _delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                self.store(target.value, target.attr, UNKNOWN, target, "del")
            elif isinstance(target, ast.Subscript):  # ``del params["shuffle"]``: the key is gone after it
                self.store(target.value, "[]", UNKNOWN, target, "del", self.expr(target.slice))

    # expressions ----------------------------------------------------------------
    def expr(self, node: ast.AST) -> Value:
        kind = type(node)
        # the commonest expressions (names, constants, attributes: three in four) are handled inline
        if kind is _NAME:
            name = node.id
            if type(node.ctx) is _LOAD:
                self.scope.loads.add(name)
            col = node.col_offset
            return _new(Name, (name, node.lineno * 65536 + (col if col < 65535 else 65535)))
        if kind is _CONSTANT:
            value = node.value
            if type(value) in _PLAIN:
                return _new(Const, (value,))
            if type(value) is str:
                return _new(Const, (value,)) if len(value) <= MAX_STR else UNKNOWN_STR
            return UNKNOWN_CONST
        if kind is _ATTRIBUTE:
            base = self.expr(node.value)
            attr = node.attr
            scope = self.scope
            scope.attr_loads.add(attr)
            if scope.self_name is not None and type(base) is Name and base[0] == scope.self_name:
                scope.self_reads.add(attr)
                (scope.self_inert if self.reporting or attr == self.updating else scope.self_used).add(attr)
                if scope.self_item_stores:
                    scope.self_item_stores.discard(attr)
            return _new(Attr, (base, attr))
        handler = self.expr_dispatch.get(kind)
        if handler is not None:
            return handler(node)
        for child in ast.iter_child_nodes(node):  # await, slices, formatted values...
            if isinstance(child, ast.expr):
                self.expr(child)
            elif isinstance(child, ast.AST):
                self._other_node(child)
        return UNKNOWN

    def _subscript(self, node: ast.Subscript) -> Value:
        base = self.expr(node.value)
        key = self.expr(node.slice)
        return _new(Item, (base, SLICE if type(node.slice) is ast.Slice else key))

    def _slice(self, node: ast.Slice) -> Value:
        """``a:b`` in a key of several parts (``x[i, :n]``): a slice, like a whole ``x[a:b]``."""
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.expr(part)
        return SLICE

    def _starred(self, node: ast.Starred) -> Value:
        return Starred(self.expr(node.value))

    def _call(self, node: ast.Call) -> Value:
        expr, span = self.expr, self.span
        func = expr(node.func)
        reporting = self.reporting
        if not reporting and _is_report(node.func):
            self.reporting = True
        arg_nodes, keyword_nodes = node.args, node.keywords
        if arg_nodes:
            args = tuple([expr(a) for a in arg_nodes])
            arg_spans = self.spans(arg_nodes)
        else:
            args = arg_spans = ()
        if keyword_nodes:
            keywords = tuple([(k.arg, expr(k.value)) for k in keyword_nodes])
            keyword_spans = self.spans(keyword_nodes)
        else:
            keywords = keyword_spans = ()
        self.reporting = reporting
        scope = self.scope
        calls = self.summary.calls
        calls.append(_new(CallSite, (
            scope.qualname, func, args, keywords, span(node), arg_spans, keyword_spans,
            self.loop, self.guarded, False, self.handlers, self.top if scope.kind == "module" else None,
        )))
        return _new(Call, (len(calls) - 1,))

    def _lambda(self, node: ast.Lambda) -> Value:
        params = self._params(node.args)
        span = self.span(node)
        qualname = self._child_qualname(f"<lambda:{span.row}:{span.col}>")
        scope = Scope("function", qualname)
        self._bind_params(scope, params)
        summary = FunctionSummary(qualname, "<lambda>", span, self.scope.qualname, self.scope.kind, "lambda",
                                  params, guarded=self.guarded, end_row=span.end_row)
        self._enter(scope, node.body)
        self._finish_function(summary, scope)
        return FunctionRef(qualname)

    def _display(self, node) -> Value:
        kind = "list" if isinstance(node, ast.List) else "tuple" if isinstance(node, ast.Tuple) else "set"
        return _new(Seq, (kind, tuple([self.expr(e) for e in node.elts])))

    def _dict(self, node: ast.Dict) -> Value:
        keys = tuple(self.expr(k) if k is not None else None for k in node.keys)
        return DictDisplay(keys, tuple(self.expr(v) for v in node.values))

    def _binop(self, node: ast.BinOp) -> Value:
        return _new(Op, (BINOPS.get(type(node.op), "?"), (self.expr(node.left), self.expr(node.right))))

    def _unaryop(self, node: ast.UnaryOp) -> Value:
        return _new(Op, (UNARYOPS.get(type(node.op), "?"), (self.expr(node.operand),)))

    def _boolop(self, node: ast.BoolOp) -> Value:
        return _new(Op, ("and" if type(node.op) is ast.And else "or", tuple([self.expr(v) for v in node.values])))

    def _compare(self, node: ast.Compare) -> Value:
        left = self.expr(node.left)
        parts = []
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            parts.append(_new(Op, (CMPOPS.get(type(op), "?"), (left, right))))
            left = right
        return parts[0] if len(parts) == 1 else _new(Op, ("and", tuple(parts)))

    def _ifexp(self, node: ast.IfExp) -> Value:
        if self.scope.kind != "module":
            main = self._main_process_test(node.test)
            if main is not None:
                self.scope.main_only.append(self.span(node.body if main else node.orelse))
        return _new(Op, ("if", (self.expr(node.test), self.expr(node.body), self.expr(node.orelse))))

    def _joinedstr(self, node: ast.JoinedStr) -> Value:
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                parts.append(self.expr(value.value))
                if value.format_spec is not None:
                    self.expr(value.format_spec)
            else:
                parts.append(self.expr(value))
        return _new(Op, ("fstr", tuple(parts)))

    def _comprehension(self, node) -> Value:
        saved = self.effective
        # its variables are bound before its element is computed, which is written first:
        # they take effect where the comprehension starts (``[t.cuda() for t in targets]``)
        self.effective = position(node.lineno, node.col_offset)
        for generator in node.generators:
            iterable = self.expr(generator.iter)
            target = generator.target.id if isinstance(generator.target, ast.Name) else None
            self._loop_record("comp", iterable, target, self.span(generator.iter), None,
                              getattr(node, "end_lineno", None) or node.lineno)
            self.bind_target(generator.target, Element(iterable), "loop")
            for condition in generator.ifs:
                self.expr(condition)
        self.effective = saved
        if isinstance(node, ast.DictComp):
            self.expr(node.key)
            element = self.expr(node.value)
        else:
            element = self.expr(node.elt)
        return Seq("comp", (element,))

    def _namedexpr(self, node: ast.NamedExpr) -> Value:
        value = self.expr(node.value)
        self.bind_target(node.target, value)
        return value

    def _yield(self, node) -> Value:
        self.scope.generator = True
        if node.value is not None:
            value = self.expr(node.value)
            self.returned(Element(value) if isinstance(node, ast.YieldFrom) else value)
        return UNKNOWN


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _compared_to_none(test: ast.AST) -> Optional[Tuple[ast.AST, bool]]:
    """(X, whether the test is ``is``) for ``X is None`` / ``X is not None``."""
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return test.left, isinstance(test.ops[0], ast.Is)
    return None


def _not_none_test(test: ast.AST) -> Tuple[Optional[str], bool]:
    """(``ast.dump`` of X, whether the body is where X is None) for ``if X is not None:`` (X
    not None in the body) and ``if X is None:`` (X not None in the ``else``), X a name or an
    attribute chain."""
    compared = _compared_to_none(test)
    if compared is not None and isinstance(compared[0], (ast.Name, ast.Attribute)):
        return ast.dump(compared[0]), compared[1]
    return None, False


def _none_test(test: ast.AST) -> Optional[Tuple[str, str]]:
    """``x.attr is None`` / ``not x.attr`` / ``x.attr == None`` / ``not hasattr(x, "attr")`` → (x, attr)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "hasattr":
            if len(inner.args) == 2 and isinstance(inner.args[0], ast.Name) and isinstance(inner.args[1], ast.Constant):
                return (inner.args[0].id, str(inner.args[1].value))
            return None
        return _name_attr(inner)
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return _name_attr(test.left)
    return None


NEGATED_TESTS = {"none": "not none", "not none": "none", "falsy": "truthy", "truthy": "falsy"}
CONSTANT_TESTS = {ast.Eq: "in", ast.In: "in", ast.NotEq: "not in", ast.NotIn: "not in"}


def negated_test(held):
    """What holds in the ``else`` of a branch where ``held`` holds in the body."""
    if isinstance(held, tuple):
        return ("not in" if held[0] == "in" else "in", held[1])
    return NEGATED_TESTS[held]


def _compared_to_constants(test: ast.AST):
    """(operand, ("in" | "not in", constants)) for ``mode == "train"``, ``phase != "val"``,
    ``split in ("val", "test")``: a branch taken for some values of one name."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or type(test.ops[0]) not in CONSTANT_TESTS:
        return None
    op, right = type(test.ops[0]), test.comparators[0]
    if op in (ast.Eq, ast.NotEq):
        items = [right]
    elif isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        items = right.elts
    else:
        return None
    if not items or not all(isinstance(i, ast.Constant) and type(i.value) in (str, int, bool) for i in items):
        return None
    return test.left, (CONSTANT_TESTS[op], tuple(i.value for i in items))


def _unset_target(test: ast.AST) -> Optional[Tuple[str, ...]]:
    """What ``test`` holds exactly when it is unset, as (name,) or (root name, attr): ``not x``,
    ``x is None``, ``x == 0``, ``x <= 0``, ``x < 1``, or several of these joined by ``or``
    (``if args.workers is None or args.workers == 0:``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        targets = {_unset_target(value) for value in test.values}
        return targets.pop() if len(targets) == 1 and None not in targets else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _target_key(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant):
        op, bound = type(test.ops[0]), test.comparators[0].value
        if ((op in (ast.Is, ast.Eq) and bound is None) or (op is ast.Eq and bound == 0 and type(bound) is int)
                or (op is ast.LtE and bound == 0) or (op is ast.Lt and bound == 1)):
            return _target_key(test.left)
    return None


def _tests_zero(test: ast.AST) -> bool:
    """Whether an unset test (``_unset_target``) catches zero, not only None."""
    if isinstance(test, ast.BoolOp):
        return any(_tests_zero(value) for value in test.values)
    return not (isinstance(test, ast.Compare) and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None)


def _positive_target(test: ast.AST) -> Optional[Tuple[str, ...]]:
    """What ``test`` holds only when it is positive (or truthy), as (name,) or (root name,
    attr): ``x > 0``, ``x >= 1``, ``x != 0``, ``x``, or one operand of an ``and``
    (``if args.workers > 0 and not args.debug:``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return next((key for key in map(_positive_target, test.values) if key is not None), None)
    if isinstance(test, (ast.Name, ast.Attribute)):
        return _target_key(test)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant):
        op, bound = type(test.ops[0]), test.comparators[0].value
        if type(bound) is int and ((op is ast.Gt and bound >= 0) or (op is ast.GtE and bound >= 1)
                                   or (op is ast.NotEq and bound == 0)):
            return _target_key(test.left)
    return None


def _target_key(node: ast.AST) -> Optional[Tuple[str, ...]]:
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return (node.value.id, node.attr)
    return None


def _name_attr(node: ast.AST) -> Optional[Tuple[str, str]]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return (node.value.id, node.attr)
    return None


def extract(path: str, text: str, tree: ast.Module) -> ModuleSummary:
    return Extractor(path, text).run(tree)


# Calls that only report: ``print(...)``, ``warnings.warn(...)``, ``logger.info(...)`` on a
# name or attribute that says it is a logger (``log``, ``self.logger``, ``LOGGER``...).
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def _is_report(func: ast.AST) -> bool:
    if type(func) is _NAME:
        return func.id == "print"
    if type(func) is not _ATTRIBUTE or func.attr not in LOG_METHODS:
        return False
    base = func.value
    name = base.id if type(base) is _NAME else base.attr if type(base) is _ATTRIBUTE else ""
    return "log" in name.lower() or name == "warnings"


def _reports(stmt: ast.stmt) -> bool:
    """A statement that only reports (a log call, or ``pass``)."""
    if type(stmt) is ast.Pass:
        return True
    return type(stmt) is ast.Expr and type(stmt.value) is ast.Call and _is_report(stmt.value.func)
