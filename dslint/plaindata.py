"""Dataclasses and NamedTuples as plain JSON data, and back: what the cache stores.

Nothing read back can run code: a value is rebuilt only from JSON numbers, strings,
booleans and null, and from the classes of a fixed registry handed to the ``Codec`` (never
a class named by the data). Every rebuilt object is checked against the registry's shape
(known class, right number of fields, JSON scalars at the leaves); anything else raises
``Invalid``.

Encoding: a scalar is itself; any container is a JSON array whose first item is a tag:
a class of the registry by its index (``[3, field, field, ...]``), or one of the negative
tags below for ``tuple``, ``list``, ``dict`` (flattened key/value pairs) and ``frozenset``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Sequence, Tuple

TUPLE, LIST, DICT, FROZENSET = -1, -2, -3, -4
SCALARS = frozenset({str, int, float, bool, type(None)})


class Invalid(ValueError):
    """The data is not an encoding of the registry's classes."""


def is_record(cls: type) -> bool:
    """A class the codec can store: a dataclass or a NamedTuple."""
    return isinstance(cls, type) and (
        dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))
    )


def records_of(*modules) -> List[type]:
    """Every dataclass and NamedTuple defined in ``modules`` (not imported into them)."""
    found: List[type] = []
    for module in modules:
        for value in vars(module).values():
            if is_record(value) and value.__module__ == module.__name__ and value not in found:
                found.append(value)
    return found


def field_names(cls: type) -> Tuple[str, ...]:
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return tuple(cls._fields)


class Codec:
    """Encode and decode instances of a fixed set of record classes."""

    def __init__(self, classes: Sequence[type]):
        self.classes = list(classes)
        self.tags: Dict[type, int] = {cls: i for i, cls in enumerate(self.classes)}
        self.fields = [field_names(cls) for cls in self.classes]
        self.builders: List[Callable[[List[Any]], Any]] = [self._builder(i) for i in range(len(self.classes))]

    def schema(self) -> List[List[Any]]:
        """Names and fields of the classes, in tag order: a file written under another
        schema is not read."""
        return [[cls.__qualname__, list(names)] for cls, names in zip(self.classes, self.fields)]

    # encoding -------------------------------------------------------------------------------
    def encode(self, value: Any) -> Any:
        """Plain JSON-able data for ``value``; TypeError for anything outside the registry."""
        kind = type(value)
        if kind in SCALARS:
            return value
        tag = self.tags.get(kind)
        if tag is not None:
            if dataclasses.is_dataclass(value):
                return [tag, *(self.encode(getattr(value, name)) for name in self.fields[tag])]
            return [tag, *(self.encode(item) for item in value)]
        if kind is tuple:
            return [TUPLE, *(self.encode(item) for item in value)]
        if kind is list:
            return [LIST, *(self.encode(item) for item in value)]
        if kind is dict:
            out: List[Any] = [DICT]
            for key, item in value.items():
                out.append(self.encode(key))
                out.append(self.encode(item))
            return out
        if kind is frozenset:
            return [FROZENSET, *(self.encode(item) for item in value)]
        raise TypeError(f"cannot store a {kind.__name__}")

    # decoding -------------------------------------------------------------------------------
    def decode(self, data: Any) -> Any:
        """The value ``data`` encodes; Invalid when it is not such an encoding."""
        try:
            return self._decode(data)
        except Invalid:
            raise
        except (TypeError, ValueError, IndexError, RecursionError) as exc:
            raise Invalid(f"{type(exc).__name__}: {exc}") from None

    def _decode(self, data: Any) -> Any:
        if type(data) is not list:
            if type(data) in SCALARS:
                return data
            raise Invalid(f"unexpected {type(data).__name__}")
        if not data or type(data[0]) is not int:
            raise Invalid("a container without a tag")
        tag = data[0]
        decode, scalars = self._decode, SCALARS
        items = [item if type(item) in scalars else decode(item) for item in data[1:]]
        if tag >= 0:
            if tag >= len(self.builders):
                raise Invalid(f"unknown class tag {tag}")
            return self.builders[tag](items)
        if tag == TUPLE:
            return tuple(items)
        if tag == LIST:
            return items
        if tag == DICT:
            if len(items) % 2:
                raise Invalid("a mapping with an odd number of items")
            return dict(zip(items[::2], items[1::2]))
        if tag == FROZENSET:
            return frozenset(items)
        raise Invalid(f"unknown container tag {tag}")

    def _builder(self, tag: int) -> Callable[[List[Any]], Any]:
        cls, names = self.classes[tag], self.fields[tag]
        count = len(names)

        def wrong(items: List[Any]) -> Invalid:
            return Invalid(f"{cls.__qualname__} takes {count} fields, not {len(items)}")

        if dataclasses.is_dataclass(cls):

            def build_dataclass(items: List[Any]) -> Any:
                if len(items) != count:
                    raise wrong(items)
                return cls(**dict(zip(names, items)))

            return build_dataclass
        new = tuple.__new__

        def build_tuple(items: List[Any]) -> Any:
            if len(items) != count:
                raise wrong(items)
            return new(cls, items)

        return build_tuple
