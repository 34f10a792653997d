"""Symbolic values: what an expression denotes, written in terms of other places.

The extractor turns every expression the model cares about into one of these small,
immutable trees. Names stay names (``Name("workers")``): which binding they mean is
decided later by the resolver, in the scope that owns the value, so a summary never
depends on other files. A call is a reference into its module's call table, a lambda into
its lambda table, so the same call is one object wherever it is mentioned.

Everything here is plain data (tuples of strings and numbers): summaries are computed in
worker processes, cached as JSON and combined per run.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple, Union


class Const(NamedTuple):
    """A literal: int, float, str, bool or None."""

    value: Any


class Name(NamedTuple):
    """A name loaded in the value's scope (local, parameter, closure, global, import, builtin).

    ``pos`` is where it is loaded (``position(row, col)``): only the bindings that reach
    that point count (``loader = prepare(loader)`` replaces the first binding after it).
    """

    id: str
    pos: int = 0


class Imported(NamedTuple):
    """A module or module member named by an import executed in a function body.

    ``level`` > 0 is a relative import (``from ..data import x``: level 2, path "data.x").
    Module-level imports are bindings of the module instead (see ``Binding``).
    """

    path: str
    level: int = 0


class Attr(NamedTuple):
    base: "Value"
    name: str


class Item(NamedTuple):
    """``base[key]``."""

    base: "Value"
    key: "Value"


class Call(NamedTuple):
    """The result of the call at ``index`` in the module's call table."""

    index: int


class FunctionRef(NamedTuple):
    """A function of this module (a ``def`` or a lambda), by its qualified name in the module."""

    qualname: str


class ClassRef(NamedTuple):
    """A class of this module, by its qualified name in the module."""

    qualname: str


class Seq(NamedTuple):
    """A list, tuple or set display (``kind``), or a comprehension (``kind`` "comp")."""

    kind: str
    items: Tuple["Value", ...]


class DictDisplay(NamedTuple):
    """``{k: v, ...}``; a ``None`` key is a ``**mapping`` entry."""

    keys: Tuple[Optional["Value"], ...]
    values: Tuple["Value", ...]


class Op(NamedTuple):
    """An operator applied to operands.

    ``op``: arithmetic (``+ - * // % /``), ``neg``, ``not``, ``and``, ``or``, ``if``
    (operands: test, body, orelse), comparisons (``== != < <= > >= is is-not in not-in``,
    two operands), ``fstr`` (a formatted string).
    """

    op: str
    args: Tuple["Value", ...]


class Element(NamedTuple):
    """An element produced by iterating ``base`` (a ``for`` target, a comprehension variable)."""

    base: "Value"


class Part(NamedTuple):
    """Position ``index`` of an unpacked value (``a, b = base``); -1 for a starred target."""

    base: "Value"
    index: int


class Starred(NamedTuple):
    """``*value`` in a call or display."""

    value: "Value"


class Unknown(NamedTuple):
    """A value the model does not follow (``why`` is for debugging)."""

    why: str = ""


Value = Union[Const, Name, Imported, Attr, Item, Call, FunctionRef, ClassRef, Seq, DictDisplay, Op, Element, Part, Starred, Unknown]
VALUE_TYPES = (Const, Name, Imported, Attr, Item, Call, FunctionRef, ClassRef, Seq, DictDisplay, Op, Element, Part, Starred, Unknown)

def distinct_types(*classes) -> None:
    """Make instances of different classes unequal even when their fields are equal.

    A NamedTuple compares as a plain tuple: ``Name("x") == Const("x")``. Values and the
    resolver's objects are dictionary keys and members of sets, so each class gets an
    equality and a hash that include the class.
    """

    def __eq__(self, other):
        return type(self) is type(other) and tuple.__eq__(self, other)

    def __ne__(self, other):
        return not __eq__(self, other)

    for cls in classes:

        def __hash__(self, _salt=hash(cls.__name__)):  # the class's part computed once
            return tuple.__hash__(self) ^ _salt

        cls.__eq__ = __eq__
        cls.__ne__ = __ne__
        cls.__hash__ = __hash__


distinct_types(*VALUE_TYPES)

UNKNOWN = Unknown()
SLICE = Unknown("slice")  # the key of ``x[a:b]``: a part of ``x`` of the same kind
NONE = Const(None)


def position(row: int, col: int) -> int:
    """A source position as one comparable int."""
    return row * 65536 + min(col, 65535)


FAR = position(1 << 30, 0)  # after everything: what a function called later sees


def same_value(left, right) -> bool:
    """Equality that ignores where names are loaded (``workers`` here and ``workers`` there)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, Name):
        return left.id == right.id
    if isinstance(left, tuple):
        return len(left) == len(right) and all(same_value(a, b) for a, b in zip(left, right))
    return left == right


def last_name(value: Value) -> str:
    """The rightmost identifier of a name or attribute chain (``a.b.DataLoader`` → DataLoader)."""
    kind = type(value)  # asked for every call site of a project: exact types, no subclass to allow for
    if kind is Name:
        return value.id
    if kind is Attr:
        return value.name
    if kind is Imported:
        return value.path.rpartition(".")[2]
    return ""


def dotted(value: Value) -> Optional[str]:
    """``a.b.c`` for a pure name/attribute chain, else None."""
    parts = []
    while isinstance(value, Attr):
        parts.append(value.name)
        value = value.base
    if not isinstance(value, Name):
        return None
    parts.append(value.id)
    return ".".join(reversed(parts))


def root_name(value: Value) -> Optional[str]:
    """The name an attribute/subscript/call chain starts from (``self`` in ``self.a.b[0]``)."""
    while True:
        if isinstance(value, Name):
            return value.id
        if isinstance(value, (Attr, Item)):
            value = value.base
        else:
            return None


def mentions(value: Value, names, calls=(), callees: bool = False) -> bool:
    """Whether ``value`` loads one of ``names`` (without following references); given its
    module's call table, ``calls``, also in the positional arguments of the calls it holds
    (and, with ``callees``, in what they call: ``kwargs.get("shuffle")``)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Name):
            if item.id in names:
                return True
        elif isinstance(item, (Attr, Element, Starred)):
            stack.append(item[0])
        elif isinstance(item, (Item, Part)):
            stack.append(item.base)
            if isinstance(item, Item):
                stack.append(item.key)
        elif isinstance(item, (Seq, Op)):
            stack.extend(item[1])
        elif isinstance(item, DictDisplay):
            stack.extend(k for k in item.keys if k is not None)
            stack.extend(item.values)
        elif calls and isinstance(item, Call):
            stack.extend(calls[item.index].args)
            if callees:
                stack.append(calls[item.index].func)
    return False
