"""JSON text → plain values with the standard library's C decoder, many times faster than reading
the same text as YAML (``kubectl ... -o json`` dumps).

This is a fast path only: text that is not strict JSON within the bounds raises ``NotJsonError`` and
is then read as YAML (JSON is YAML), which also names the line of a duplicate key or of too
deep a nesting. Nesting is measured on the text before decoding (the decoder recurses); keys
are checked for duplicates as each object is decoded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator
from typing import Any

import numpy as np

from toposched.frontends.parse.bounds import InputLimits, Parsed

_STARTS_JSON = re.compile(rb"[ \t\n\r]*[\[{]")
_SPACE = re.compile(r"[ \t\n\r]*")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_QUOTE, _OPENERS = ord('"'), np.frombuffer(b"[{", dtype=np.uint8)


class NotJsonError(Exception):
    """The text is not strict JSON within the bounds; ``reason`` says why (for the message
    when values were already handed out)."""

    def __init__(self, reason: str, line: int = 0, column: int = 0, key: object = None) -> None:
        super().__init__(reason)
        self.reason, self.line, self.column, self.key = reason, line, column, key


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN and Infinity: YAML reads them as text


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def looks_like_json(data: bytes) -> bool:
    """The text starts with ``{`` or ``[``: JSON, or YAML in flow style (which ``NotJsonError`` sends on)."""
    return _STARTS_JSON.match(data) is not None


def nesting_depth(data: bytes, chunk: int = 1 << 22) -> int:
    """How deep the brackets outside strings nest, in a few passes over the bytes in C: drop
    escaped backslashes and quotes, keep only quotes and brackets, drop what is between quotes.
    Piece by piece, so a large text is not copied whole; no piece ends inside an escape."""
    pieces: list[bytes] = []
    start = 0
    while start < len(data):
        end = min(start + chunk, len(data))
        while end < len(data) and data[end - 1] == 0x5C:  # a backslash: keep what it escapes
            end += 1
        unescaped = data[start:end].replace(b"\\\\", b"").replace(b'\\"', b"")
        pieces.append(unescaped.translate(None, _NOT_STRUCTURE))
        start = end
    marks = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    quotes = marks == _QUOTE
    outside = (np.cumsum(quotes, dtype=np.uint8) & 1) == 0  # even quotes before: not in a string
    brackets = marks[outside & ~quotes]
    if not brackets.size:
        return 0
    return int(np.cumsum(np.where(np.isin(brackets, _OPENERS), 1, -1)).max())


def read_json(data: bytes, limits: InputLimits, *, stream_items: bool) -> Iterator[Parsed]:
    """The one document of ``data``, or with ``stream_items`` each element of its top-level
    ``items`` list as soon as it is decoded, then the document (its ``items`` left empty).
    Raises ``NotJsonError`` (possibly after values were handed out)."""
    if nesting_depth(data) > limits.max_depth:
        raise NotJsonError("too deep")
    text = data.decode("utf-8")
    try:
        pos = _SPACE.match(text).end()  # type: ignore[union-attr]  # matches the empty string
        if stream_items and text.startswith("{", pos):
            value, pos = yield from _streamed_object(text, pos + 1)
        else:
            value, pos = _DECODER.raw_decode(text, pos)
        end = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if end != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
    except json.JSONDecodeError as exc:
        raise NotJsonError(exc.msg, exc.lineno, exc.colno) from None
    except _DuplicateKeyError as exc:
        raise NotJsonError("duplicate key", key=exc.key) from None
    except (ValueError, RecursionError) as exc:
        raise NotJsonError(str(exc)) from None
    yield Parsed(0, value)


def _streamed_object(text: str, pos: int) -> Generator[Parsed, None, tuple[dict[str, Any], int]]:
    """The top-level object from just after its ``{``, handing out the elements of ``items``."""
    head: dict[str, Any] = {}
    pos = _skip(text, pos)
    if text.startswith("}", pos):
        return head, pos + 1
    while True:
        if not text.startswith('"', pos):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        pos = _skip(text, pos + 1)
        if key in head:
            raise _DuplicateKeyError(key)
        if key == "items" and text.startswith("[", pos):
            head[key] = []
            pos = yield from _streamed_items(text, pos + 1, head)
        else:
            head[key], pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text.startswith(",", pos):
            pos = _skip(text, pos + 1)
        elif text.startswith("}", pos):
            return head, pos + 1
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)


def _streamed_items(text: str, pos: int, head: dict[str, Any]) -> Generator[Parsed, None, int]:
    pos = _skip(text, pos)
    if text.startswith("]", pos):
        return pos + 1
    index = 0
    while True:
        value, pos = _DECODER.raw_decode(text, pos)
        yield Parsed(0, value, index, head)
        index += 1
        pos = _skip(text, pos)
        if text.startswith(",", pos):
            pos = _skip(text, pos + 1)
        elif text.startswith("]", pos):
            return pos + 1
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)


def _skip(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]  # matches the empty string
