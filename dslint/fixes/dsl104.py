"""DSL104 (unsafe): open a dataset's handle lazily, in the worker that reads it.

For ``self.<attr> = <factory>(<param>, ...)`` in ``__init__`` (``<param>`` a parameter of
``__init__``):

- the line becomes ``self.<param> = <param>`` and ``self.<attr> = None`` (the first is
  left out when ``__init__`` already stores the parameter under that name);
- every other method that reads ``self.<attr>`` (all of them reached from
  ``__getitem__`` / ``__iter__``) starts with
  ``if self.<attr> is None: self.<attr> = <factory>(self.<param>, ...)``.

When ``__init__`` itself goes on using the handle (to count frames or records), the
handle stays opened there and is closed (``release()`` / ``close()``) and set to ``None``
at the end of ``__init__``, so the workers open their own.

Not offered for module-level handles, for a method outside the worker's reach that uses
the handle (``__len__``, ``close``, ``__del__``), nor when ``__init__`` returns early.
"""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Set

import libcst as cst

from ..analysis.summary import Span
from ..model.queries import WORKER_METHODS
from ..diagnostics import Finding
from .base import Decline, FileContext, FixPlan, docstring_count, finding_span, parse_statement

CODE = "DSL104"
CLOSE = {
    "cv2.VideoCapture": "release",
    "h5py.File": "close",
    "lmdb.open": "close",
    "lmdb.Environment": "close",
    "sqlite3.connect": "close",
    "builtins.open": "close",
    "io.open": "close",
    "tarfile.open": "close",
    "tarfile.TarFile": "close",
    "zipfile.ZipFile": "close",
    "av.open": "close",
    "pandas.HDFStore": "close",
    "tables.open_file": "close",
    "rasterio.open": "close",
    "netCDF4.Dataset": "close",
}


class Handle(NamedTuple):
    attr: str
    constructor: str
    span: Span


def _handle(ctx: FileContext, item: Finding) -> Handle:
    if item.fact("owner") != "class":
        raise Decline("not a handle created in __init__")
    return Handle(item.fact("attr"), item.fact("constructor"), finding_span(item))


def _self_attr(node: cst.CSTNode, self_name: str) -> Optional[str]:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self_name:
        return node.attr.value
    return None


class _Reads(cst.CSTVisitor):
    """``self.<attr>`` reads and ``self.<method>(...)`` calls in one method."""

    def __init__(self, self_name: str):
        self.self_name = self_name
        self.attrs: List[cst.Attribute] = []
        self.returns = 0
        self.none_tests: Set[str] = set()
        self.depth = 0

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if _self_attr(node, self.self_name) is not None:
            self.attrs.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        if self.depth == 0:
            self.returns += 1

    def visit_FunctionDef(self, node) -> None:
        self.depth += 1

    def leave_FunctionDef(self, node) -> None:
        self.depth -= 1

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, (cst.Is, cst.Equal)):
            right = node.comparisons[0].comparator
            if isinstance(right, cst.Name) and right.value == "None":
                attr = _self_attr(node.left, self.self_name)
                if attr:
                    self.none_tests.add(attr)


def _first_param(func: cst.FunctionDef) -> str:
    params = list(func.params.posonly_params) + list(func.params.params)
    if not params:
        raise Decline("method without self")
    return params[0].name.value


def _reads(func: cst.FunctionDef) -> _Reads:
    visitor = _Reads(_first_param(func))
    func.body.visit(visitor)
    return visitor


def _replace_params(expr: cst.BaseExpression, self_name: str, params: Dict[str, str]) -> cst.BaseExpression:
    """``expr`` with the loaded names in ``params`` turned into ``self.<attr>``."""

    class Swap(cst.CSTTransformer):
        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
            return updated.with_changes(attr=original.attr)

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
            return updated.with_changes(keyword=original.keyword)

        def leave_Name(self, original: cst.Name, updated: cst.Name):
            if original.value in params:
                return cst.Attribute(value=cst.Name(self_name), attr=cst.Name(params[original.value]))
            return updated

    return expr.visit(Swap())


def _loaded_names(expr: cst.CSTNode) -> Set[str]:
    found: Set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

        def visit_Lambda(self, node) -> bool:
            return False

    expr.visit(Collect())
    return found


def _assigned_in(func: cst.FunctionDef) -> Set[str]:
    """Names bound in ``func`` itself (parameters excluded)."""
    names: Set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            for name in _target_names(node.target):
                names.add(name)

        def visit_FunctionDef(self, node) -> bool:
            return node is func

        def visit_For(self, node: cst.For) -> None:
            names.update(_target_names(node.target))

        def visit_AsName(self, node: cst.AsName) -> None:
            names.update(_target_names(node.name))

        def visit_Import(self, node: cst.Import) -> None:
            names.update(_import_binding(node, alias) for alias in node.names)

        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            if isinstance(node.names, cst.ImportStar):
                raise Decline("import * inside a method")
            names.update(_import_binding(node, alias) for alias in node.names)

    func.visit(Collect())
    return names


def _target_names(node: cst.CSTNode) -> List[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _target_names(e.value)]
    if isinstance(node, cst.StarredElement):
        return _target_names(node.value)
    return []


# What a handle is opened for: a mode that writes cannot be opened once per worker.
MODE_POSITION = {"builtins.open": 1, "io.open": 1, "tarfile.open": 1, "tarfile.TarFile": 1,
                 "zipfile.ZipFile": 1, "h5py.File": 1}


def _mode(call: cst.Call, constructor: str) -> Optional[str]:
    """The mode string the handle is opened with ("r" when left out), None when not a literal."""
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None and arg.keyword.value == "mode":
            value = arg.value
            return value.evaluated_value if isinstance(value, cst.SimpleString) else None
    positional = [a for a in call.args if a.keyword is None]
    position = MODE_POSITION[constructor]
    if len(positional) <= position:
        return "r"
    value = positional[position].value
    return value.evaluated_value if isinstance(value, cst.SimpleString) else None


def _check_mode(call: cst.Call, constructor: str) -> None:
    """Decline a handle that writes: reopened in each worker, ``"w"`` truncates what the
    other workers wrote, ``"x"`` fails in every worker (the file exists), ``"+"`` modes
    write at offsets the handles no longer share, and an archive or HDF5 file written by
    several handles at once is corrupt. ``"a"`` appends at the end whoever writes."""
    if constructor not in MODE_POSITION:
        return
    mode = _mode(call, constructor)
    if not isinstance(mode, str):
        raise Decline("the open mode is not a literal")
    if constructor in ("builtins.open", "io.open"):
        if set(mode) & set("wx+"):
            raise Decline(f"mode {mode!r} writes from every worker")
    elif not mode.startswith("r") or "+" in mode:
        raise Decline(f"mode {mode!r} writes from every worker")


def _import_binding(node, alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.evaluated_alias
    name = alias.evaluated_name
    return name.split(".")[0] if isinstance(node, cst.Import) else name


class LocalImport(NamedTuple):
    """``import lmdb`` in ``__init__``'s own body: the line, the statement and the alias."""

    line: cst.SimpleStatementLine
    statement: cst.BaseSmallStatement
    alias: cst.ImportAlias

    def alone(self) -> cst.BaseSmallStatement:
        """The import of this one name, to repeat where the handle is reopened."""
        alias = self.alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if isinstance(self.statement, cst.Import):
            return cst.Import(names=[alias])
        return self.statement.with_changes(names=[alias], lpar=None, rpar=None)


def _local_imports(init: cst.FunctionDef) -> Dict[str, LocalImport]:
    """Names bound by an import statement of ``__init__``'s own body."""
    found: Dict[str, LocalImport] = {}
    if not isinstance(init.body, cst.IndentedBlock):
        return found
    for line in init.body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    found[_import_binding(small, alias)] = LocalImport(line, small, alias)
    return found


def _name_loads(node: cst.CSTNode, name: str, skip: cst.CSTNode) -> int:
    """How often ``name`` is read in ``node`` outside ``skip``."""
    count = 0

    class Count(cst.CSTVisitor):
        def on_visit(self, inner: cst.CSTNode) -> bool:
            nonlocal count
            if inner is skip:
                return False
            if isinstance(inner, cst.Name) and inner.value == name:
                count += 1
            if isinstance(inner, cst.Attribute):
                inner.value.visit(self)
                return False
            if isinstance(inner, (cst.Import, cst.ImportFrom)):
                return False
            return True

    node.visit(Count())
    return count


def _without_import(local: LocalImport):
    """A statement op dropping ``local``'s alias from its line (the line when it was alone)."""

    def drop(core: List[cst.BaseStatement]) -> List[cst.BaseStatement]:
        if not core:
            return core
        line = core[0]
        statement = line.body[0]
        names = [a for a in statement.names if a.evaluated_name != local.alias.evaluated_name
                 or a.evaluated_alias != local.alias.evaluated_alias]
        if not names:
            return core[1:]
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return [line.with_changes(body=[statement.with_changes(names=names)]), *core[1:]]

    return drop


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    handle = _handle(ctx, item)
    call = ctx.node_for(finding_span(item), cst.Call)
    assign = ctx.parent(call)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        raise Decline("not a plain assignment")
    line = ctx.parent(assign)
    block = ctx.parent(line) if line is not None else None
    init = ctx.parent(block) if block is not None else None
    if not (
        isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and isinstance(block, cst.IndentedBlock)
        and isinstance(init, cst.FunctionDef)
        and init.name.value == "__init__"
    ):
        raise Decline("handle not opened by a statement of __init__'s own body")
    class_block = ctx.parent(init)
    cls = ctx.parent(class_block) if class_block is not None else None
    if not isinstance(cls, cst.ClassDef) or not isinstance(class_block, cst.IndentedBlock):
        raise Decline("__init__ outside a class")
    self_name = _first_param(init)
    attr = _self_attr(assign.targets[0].target, self_name)
    if attr is None or attr != handle.attr:
        raise Decline("target is not self.<attr>")

    init_params = [
        p.name.value
        for p in (*init.params.posonly_params, *init.params.params, *init.params.kwonly_params)
        if p.name.value != self_name
    ]
    for star in (init.params.star_arg, init.params.star_kwarg):
        if isinstance(star, cst.Param):
            init_params.append(star.name.value)
    _check_mode(call, handle.constructor)
    used = _loaded_names(call)
    imports = _local_imports(init)
    locals_ = _assigned_in(init) - set(init_params)
    if used & (locals_ - set(imports)):
        raise Decline("the handle is opened from a local variable of __init__")
    needed_imports = [imports[name] for name in sorted(used & set(imports))]
    params = [p for p in init_params if p in used]
    if attr in params:
        raise Decline("parameter and handle share a name")

    # where else the handle lives -----------------------------------------------------
    methods = {s.name.value: s for s in class_block.body if isinstance(s, cst.FunctionDef)}
    reads = {name: _reads(func) for name, func in methods.items()}
    assigned_attrs = _self_assignments(init, self_name)
    all_assigned = set()
    for func in methods.values():
        all_assigned |= set(_self_assignments(func, _first_param(func)))
    all_read = {a.attr.value for r in reads.values() for a in r.attrs}
    inherits_init = "super" in _loaded_names(init.body)
    to_store: List[str] = []
    mapping: Dict[str, str] = {}
    for param in params:
        values = assigned_attrs.get(param)
        if values == [param]:
            mapping[param] = param  # __init__ already keeps it as self.<param>
            continue
        name = param
        # a base class may own self.<param> (torchvision's VisionDataset sets self.root):
        # keep the value under a name of the handle's own
        if values is not None or name in all_assigned or inherits_init or (name in all_read and name not in all_assigned):
            name = f"{attr}_{param}"
        if name in all_assigned or name in all_read or name in methods:
            raise Decline(f"self.{name} is used for something else")
        mapping[param] = name
        to_store.append(param)

    init_uses = [a for a in reads["__init__"].attrs if a.attr.value == attr and a is not assign.targets[0].target]
    close = None
    if init_uses:
        close = CLOSE.get(handle.constructor)
        if close is None or reads["__init__"].returns:
            raise Decline("__init__ keeps using a handle it cannot close")

    reachable = _worker_reachable(methods, reads)
    users = []
    for name, func in methods.items():
        if name == "__init__":
            continue
        if any(a.attr.value == attr for a in reads[name].attrs):
            if name not in reachable:
                raise Decline(f"`{name}` uses the handle outside the workers")
            users.append(func)
    if not users:
        raise Decline("no worker method reads the handle")

    fix = FixPlan(CODE, f"Open `self.{attr}` lazily in the worker", "unsafe", key=(CODE, id(call)))
    module = ctx.module
    store_lines = [parse_statement(f"{self_name}.{mapping[p]} = {p}\n", module) for p in to_store]

    if init_uses:
        def keep_open(core: List[cst.BaseStatement]) -> List[cst.BaseStatement]:
            if not store_lines:
                return core
            first = store_lines[0].with_changes(leading_lines=core[0].leading_lines)
            return [first, *store_lines[1:], core[0].with_changes(leading_lines=[]), *core[1:]]

        fix.on_stmt(line, keep_open)
        last = block.body[-1]
        fix.insert_after(
            last,
            lambda: [
                parse_statement(f"{self_name}.{attr}.{close}()\n", module),
                parse_statement(f"{self_name}.{attr} = None\n", module),
            ],
        )
    else:
        def replace(core: List[cst.BaseStatement]) -> List[cst.BaseStatement]:
            new = [*store_lines, parse_statement(f"{self_name}.{attr} = None\n", module)]
            new[0] = new[0].with_changes(leading_lines=core[0].leading_lines)
            new[-1] = new[-1].with_changes(trailing_whitespace=core[0].trailing_whitespace)
            return new + core[1:]

        fix.on_stmt(line, replace)
        for local in needed_imports:  # the import served only the call that moves out
            if _name_loads(init.body, _import_binding(local.statement, local.alias), call) == 0:
                if len(local.line.body) != 1:
                    raise Decline("an import shares its line with another statement")
                fix.on_stmt(local.line, _without_import(local))

    captured = {}

    def remember(updated: cst.Call) -> cst.Call:
        captured["call"] = updated
        return updated

    fix.on_node(call, remember)
    if "\n" in ctx.code(call):
        raise Decline("multi-line factory call")
    indent = module.default_indent
    for func in users:
        if attr in reads[func.name.value].none_tests:
            continue  # already opens it lazily
        body = func.body
        if not isinstance(body, cst.IndentedBlock):
            raise Decline("one-line method")
        method_self = _first_param(func)
        if (used - set(params)) & (_assigned_in(func) | _param_names(func)):
            raise Decline(f"`{func.name.value}` binds a name the handle is opened with")
        anchor_index = docstring_count(body.body)
        if anchor_index >= len(body.body):
            raise Decline("empty method")
        anchor = body.body[anchor_index]

        def guard(method_self=method_self):
            opened = _replace_params(captured.get("call", call).deep_clone(), method_self, mapping)
            opened_code = cst.Module([]).code_for_node(opened)
            imports = "".join(f"{indent}{cst.Module([]).code_for_node(i.alone())}\n" for i in needed_imports)
            return [
                parse_statement(
                    f"if {method_self}.{attr} is None:\n{imports}{indent}{method_self}.{attr} = {opened_code}\n",
                    module,
                )
            ]

        fix.insert_before(anchor, guard)
    return fix


def _param_names(func: cst.FunctionDef) -> Set[str]:
    params = func.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    names |= {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
    return names


def _self_assignments(func: cst.FunctionDef, self_name: str) -> Dict[str, List[str]]:
    """``self.<attr> = <value>`` in ``func``: attr -> source of each value (names only)."""
    found: Dict[str, List[str]] = {}

    class Collect(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                name = _self_attr(target.target, self_name)
                if name is not None:
                    value = node.value.value if isinstance(node.value, cst.Name) else "<expr>"
                    found.setdefault(name, []).append(value)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            name = _self_attr(node.target, self_name)
            if name is not None:
                found.setdefault(name, []).append("<expr>")

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            name = _self_attr(node.target, self_name)
            if name is not None:
                found.setdefault(name, []).append("<expr>")

    func.visit(Collect())
    return found


def _worker_reachable(methods: Dict[str, cst.FunctionDef], reads: Dict[str, _Reads]) -> Set[str]:
    todo = [m for m in WORKER_METHODS if m in methods]
    seen: Set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in reads[name].attrs:
            if node.attr.value in methods:
                todo.append(node.attr.value)
    return seen
