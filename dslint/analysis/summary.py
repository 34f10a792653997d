"""What one file contributes to the semantic model: its scopes, bindings, calls and loops.

A summary records *values with symbolic references* (``analysis.values``), never a rule's
answer: which names a scope binds and to what, what each function returns, every call
with its arguments, every loop with what it iterates, every attribute store. Whether a
value is a DataLoader, a lambda or zero workers is decided per run by the resolver, which
follows the references across functions, classes and files.

A summary depends on the file's text only (not on where the file sits in a package):
relative imports stay relative until the project index knows the module's name. That is
what makes summaries cacheable by content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from .values import Name, Value


class Span(NamedTuple):
    """1-based rows and 1-based character columns; the end is exclusive."""

    row: int
    col: int
    end_row: int
    end_col: int


class Binding(NamedTuple):
    """One way a name gets a value in a scope.

    ``kind``: assign | aug (augmented assignment) | loop (a ``for`` target) | with (a
    ``with ... as`` target) | import | def | class | other (except-as, match, del...).
    """

    kind: str
    value: Value
    span: Span
    guarded: bool = False  # module level, under ``if __name__ == "__main__":``
    pos: int = 0  # where the binding takes effect (``values.position``): the end of its statement
    block: int = -1  # the innermost conditional block of its scope it is made in (-1: none)


class Param(NamedTuple):
    """A parameter; for a lambda or def, ``default`` is a value of the enclosing scope."""

    name: str
    kind: str  # posonly | pos | kwonly | vararg | kwarg
    default: Optional[Value]
    span: Span  # the parameter's name
    default_span: Optional[Span] = None
    annotation: str = ""  # dotted text of a simple annotation (``int``, ``Dataset``)


class CallSite(NamedTuple):
    """One call expression. Its result is ``values.Call(index)``."""

    scope: str  # qualname of the enclosing function or class, "" at module level
    func: Value
    args: Tuple[Value, ...]  # ``Starred`` for ``*args``
    keywords: Tuple[Tuple[Optional[str], Value], ...]  # (None, mapping) for ``**kwargs``
    span: Span
    arg_spans: Tuple[Span, ...]
    keyword_spans: Tuple[Span, ...]  # the whole ``name=value`` (or ``**kwargs``)
    loop: int = -1  # innermost enclosing loop of the same scope (index into ``loops``)
    guarded: bool = False  # module level, under the main guard
    statement: bool = False  # an expression statement: the result is discarded
    handlers: Tuple[str, ...] = ()  # exceptions caught by enclosing ``try`` blocks of the scope
    top: Optional[Span] = None  # the module-level statement holding a module-level call


class Loop(NamedTuple):
    """A ``for``/``while`` loop or a comprehension's ``for``."""

    scope: str
    kind: str  # for | while | comp
    iter: Optional[Value]  # what a for iterates; None for while
    target: Optional[str]  # the loop variable when it is a plain name
    span: Span  # the header: ``for`` to the end of the iterable (``while`` to its test)
    body: Optional[Span]  # the first statement of the body
    end_row: int
    parent: int = -1  # enclosing loop of the same scope
    guarded: bool = False
    top: Optional[Span] = None  # the module-level statement holding a module-level loop


class AttrStore(NamedTuple):
    """``target.attr = value`` (``attr`` "[]" for ``target[key] = value``)."""

    scope: str
    target: Value
    attr: str
    value: Value
    span: Span  # the stored value (the target for del)
    kind: str = "assign"  # assign | aug | del | with
    none_guarded: bool = False  # under ``if target.attr is None`` / ``if not target.attr``
    loop: int = -1
    block: int = -1  # the innermost conditional block of its scope it is made in (-1: always runs)
    key: Optional[Value] = None  # for ``target[key] = value``
    fills: bool = False  # made directly in the body of ``if target.attr == 0:`` (or None, or falsy)


def bound_once(value: Value, scope) -> Value:
    """What a local name is bound to when ``scope`` (a function's or a module's summary, or
    None) binds it once, by an assignment (else the value itself)."""
    if type(value) is Name and scope is not None:
        bindings = scope.bindings.get(value.id, ())
        if len(bindings) == 1 and bindings[0].kind == "assign":
            return bindings[0].value
    return value


@dataclass
class FunctionSummary:
    """A ``def`` or a lambda (``kind`` "lambda", named ``<lambda>``)."""

    qualname: str
    name: str
    span: Span  # the name after ``def`` (the whole lambda for a lambda)
    scope: str  # enclosing scope's qualname, "" for the module
    scope_kind: str  # module | function | class
    kind: str = "function"  # function | lambda
    params: Tuple[Param, ...] = ()
    decorators: Tuple[Value, ...] = ()
    bindings: Dict[str, Tuple[Binding, ...]] = field(default_factory=dict)
    declared_global: FrozenSet[str] = frozenset()
    declared_nonlocal: FrozenSet[str] = frozenset()
    returns: Tuple[Value, ...] = ()
    # per return (empty: none is guarded): (block, (parameter, what holds)...) where the tests of the
    # ``if <param test>: return ...`` passed before it must fail (``if split == "train": return A``)
    return_guards: Tuple[Tuple[int, Tuple[Tuple[str, object], ...]], ...] = ()
    is_generator: bool = False
    loads: FrozenSet[str] = frozenset()  # names loaded in its own body
    attr_loads: FrozenSet[str] = frozenset()  # attribute names loaded (``x.attr``)
    self_reads: FrozenSet[str] = frozenset()  # ``<first param>.<attr>`` loaded
    self_item_stores: FrozenSet[str] = frozenset()  # of those, loaded only to store an item (``self.cache[k] = v``)
    # of those, loaded only where the value drives nothing: logged (a log call, a test that only
    # logs) or to compute the attribute's own new value (``self.longest = max(self.longest, n)``)
    self_inert: FrozenSet[str] = frozenset()
    guarded: bool = False  # defined under the main guard
    end_row: int = 0
    blocks: Tuple[Tuple[int, int, int], ...] = ()  # conditional blocks: (parent, first row, last row)
    main_only: Tuple[Span, ...] = ()  # branches (blocks, or expressions of an `a if b else c`) only the main process takes
    fills: Tuple[Tuple[str, int], ...] = ()  # (name, position) of bindings made directly in ``if name == 0:`` (or None, falsy)
    positive: Tuple[Tuple[Tuple[str, ...], int, int], ...] = ()  # (name or (root, attr), rows) of ``if x > 0:`` bodies
    # loop code run a counted number of times: (first row, last row, -1, count, counter) of ``if len(kept) < 4:``
    # bodies, (0, 0, loop index, count, counter) of a loop ended by ``if i >= 8: break``; ``counter`` is
    # the loop whose variable is tested (-1 for ``len(...)``, -2 for a variable of no enclosing loop)
    capped: Tuple[Tuple[int, int, int, Value, int], ...] = ()
    # (block, parameter, what holds there: none | not none | falsy | truthy) of ``if p is None:`` and the like
    param_tests: Tuple[Tuple[int, str, str], ...] = ()
    tests: Tuple[Tuple[Value, Span], ...] = ()  # (value, span) of the tests of its ``if``, ``while`` and ``assert``


@dataclass
class ClassSummary:
    qualname: str
    name: str
    span: Span  # the class name
    header_row: int
    scope: str
    scope_kind: str
    bases: Tuple[Value, ...] = ()
    keywords: Tuple[Tuple[str, Value], ...] = ()
    decorators: Tuple[Value, ...] = ()
    bindings: Dict[str, Tuple[Binding, ...]] = field(default_factory=dict)
    methods: Tuple[str, ...] = ()  # names of the functions defined in its body
    fields: Tuple[Param, ...] = ()  # annotated class attributes, in order (dataclass/NamedTuple)
    guarded: bool = False


@dataclass
class ModuleSummary:
    path: str
    bindings: Dict[str, Tuple[Binding, ...]] = field(default_factory=dict)
    star_imports: Tuple[Value, ...] = ()  # ``Imported`` of ``from x import *``
    imports: Tuple[Value, ...] = ()  # ``Imported`` executed when the module is imported
    functions: Dict[str, FunctionSummary] = field(default_factory=dict)
    classes: Dict[str, ClassSummary] = field(default_factory=dict)
    calls: List[CallSite] = field(default_factory=list)
    loops: List[Loop] = field(default_factory=list)
    stores: List[AttrStore] = field(default_factory=list)
    has_main_guard: bool = False
    blocks: Tuple[Tuple[int, int, int], ...] = ()  # conditional blocks of module-level code
    capped: Tuple[Tuple[int, int, int, Value, int], ...] = ()  # counted caps of module-level loops (as a function's)

    def scope(self, qualname: str):
        """The function or class summary of ``qualname`` ("" is the module itself)."""
        if not qualname:
            return self
        return self.functions.get(qualname) or self.classes.get(qualname)


SUMMARY_TYPES = (Span, Binding, Param, CallSite, Loop, AttrStore, FunctionSummary, ClassSummary, ModuleSummary)
