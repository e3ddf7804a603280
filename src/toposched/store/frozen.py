"""Read-only JSON values: what ``MemoryStore`` keeps and hands out for placements and explanations.

A frozen value equals, serialises and reads like the plain ``dict``/``list`` it was made from, but
every mutating method raises ``TypeError``, so a caller cannot change stored state through what
it read. The store can then hand out the stored value itself instead of a deep copy on every read
(the scheduler reads every holding workload every cycle).
"""

from __future__ import annotations

from math import isfinite
from typing import Any, NoReturn

from toposched.store.codecs import copy_json
from toposched.store.records import Json


def _refuse(*_: object, **__: object) -> NoReturn:
    raise TypeError("stored JSON is read-only; copy it (e.g. copy.deepcopy) to change it")


class FrozenDict(dict[str, Any]):
    """A JSON object that cannot be changed."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return thaw(self)  # type: ignore[no-any-return]  # a deep copy is for changing

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return FrozenDict, (dict(self),)


class FrozenList(list[Any]):
    """A JSON array that cannot be changed."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)  # type: ignore[no-any-return]  # a deep copy is for changing

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return FrozenList, (list(self),)


def freeze(value: Json) -> Json:
    """A read-only deep copy of a JSON value (objects and arrays frozen, scalars as they are)."""
    if isinstance(value, dict):
        return FrozenDict({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return FrozenList([freeze(item) for item in value])
    return value


class _NotPlainError(Exception):
    """A value ``frozen_copy`` leaves to the JSON round trip."""


def frozen_copy(value: Json) -> Json:
    """``freeze(copy_json(value))``, what the store keeps of a caller's JSON: a checked, frozen
    deep copy with object keys sorted as the JSON text writes them. Values made only of plain
    JSON types (dicts with string keys, lists, strings, ints, finite floats, booleans, None), as
    the loop's placements and explanations are, are copied in one pass instead of being written
    and parsed; anything else goes through JSON, so the result is the same."""
    try:
        return _plain(value)
    except _NotPlainError:
        return freeze(copy_json(value))


def _plain(value: Json) -> Json:
    kind = type(value)
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise _NotPlainError
        return FrozenDict({key: _plain(value[key]) for key in sorted(value)})
    if kind is list:
        return FrozenList([_plain(item) for item in value])
    if kind is str or kind is int or kind is bool or value is None or (kind is float and isfinite(value)):
        return value
    raise _NotPlainError


def thaw(value: Json) -> Json:
    """A plain, changeable deep copy of a (frozen) JSON value."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thaw(item) for item in value]
    return value
