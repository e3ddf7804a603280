"""JSON text → plain values with the standard library's C decoder, many times faster than reading
the same text as YAML (``kubectl ... -o json`` dumps).

This is a fast path only: text that is not strict JSON within the bounds raises
``NotJsonError`` and is then read as YAML (JSON is YAML), which also names the line of a
duplicate key or of too deep a nesting. Nesting is measured on the bytes before decoding (the
decoder recurses); keys are checked for duplicates as each object is decoded; the text is
decoded a window at a time, so a large dump is held once, as bytes.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Generator, Iterator
from typing import Any

import numpy as np

from toposched.intake.parse.bounds import InputLimits, Parsed

_STARTS_JSON = re.compile(rb"[ \t\n\r]*[\[{]")
_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER_GOES_ON = frozenset("0123456789+-.eE")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_QUOTE, _OPENERS = ord('"'), np.frombuffer(b"[{", dtype=np.uint8)
TOO_DEEP = "too deep"  # NotJsonError's reason when the brackets nest past the limit


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


def read_json(
    data: bytes, limits: InputLimits, *, stream_items: bool, window: int = 1 << 22
) -> Iterator[Parsed]:
    """The one document of ``data``, or with ``stream_items`` each element of its top-level
    ``items`` list as soon as it is decoded, then the document (its ``items`` left empty). The
    text is decoded ``window`` bytes at a time. Raises ``NotJsonError`` (possibly after values
    were handed out)."""
    if nesting_depth(data) > limits.max_depth:
        raise NotJsonError(TOO_DEEP)
    text = _Window(data, window)
    try:
        if stream_items and text.next_char() == "{":
            text.pos += 1
            value = yield from _streamed_object(text)
        else:
            text.next_char()
            value = text.value()
        if text.next_char():
            raise text.error("Extra data")
    except json.JSONDecodeError as exc:
        column = exc.colno + (text.columns if exc.lineno == 1 else 0)
        raise NotJsonError(exc.msg, exc.lineno + text.lines, column) from None
    except _DuplicateKeyError as exc:
        raise NotJsonError("duplicate key", key=exc.key) from None
    except (ValueError, RecursionError) as exc:
        raise NotJsonError(str(exc)) from None
    yield Parsed(0, value)


class _Window:
    """The text decoded a window at a time: what is held as text is the unread rest of a window
    and the value being decoded, never the whole text beside its bytes."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size = data, size
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.decoded = 0  # bytes decoded so far
        self.text = ""
        self.pos = 0
        self.lines = 0  # line breaks in the text dropped before ``text``
        self.columns = 0  # characters of the line ``text`` starts in, dropped before it

    def extend(self) -> bool:
        """Decode more, at least as much as is held (so retries stay linear); False at the end."""
        if self.decoded >= len(self.data):
            return False
        end = self.decoded + max(self.size, len(self.text))
        more = self.decoder.decode(self.data[self.decoded : end], final=end >= len(self.data))
        self.decoded = end
        last_break = self.text.rfind("\n", 0, self.pos)
        self.lines += self.text.count("\n", 0, self.pos)
        self.columns = self.pos - last_break - 1 if last_break >= 0 else self.columns + self.pos
        self.text = self.text[self.pos :] + more
        self.pos = 0
        return True

    def next_char(self) -> str:
        """The next character after white space ("" at the end of the text)."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]  # matches ""
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.extend():
                return ""

    def value(self) -> Any:
        """The JSON value at ``pos``; one cut off by the window's end is decoded again with more."""
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                if self.extend():
                    continue
                raise
            # a number cut by the window's end ("-15" of "-150.5") decodes too: go on with more
            if (end < len(self.text) and self.text[end] not in _NUMBER_GOES_ON) or not self.extend():
                self.pos = end
                return value

    def error(self, message: str) -> json.JSONDecodeError:
        return json.JSONDecodeError(message, self.text, self.pos)


def _streamed_object(text: _Window) -> Generator[Parsed, None, dict[str, Any]]:
    """The top-level object from just after its ``{``, handing out the elements of ``items``."""
    head: dict[str, Any] = {}
    if text.next_char() == "}":
        text.pos += 1
        return head
    while True:
        if text.next_char() != '"':
            raise text.error("Expecting property name enclosed in double quotes")
        key = text.value()
        if text.next_char() != ":":
            raise text.error("Expecting ':' delimiter")
        text.pos += 1
        if key in head:
            raise _DuplicateKeyError(key)
        if key == "items" and text.next_char() == "[":
            text.pos += 1
            head[key] = []
            yield from _streamed_items(text, head)
        else:
            text.next_char()
            head[key] = text.value()
        separator = text.next_char()
        if separator not in (",", "}"):
            raise text.error("Expecting ',' delimiter")
        text.pos += 1
        if separator == "}":
            return head


def _streamed_items(text: _Window, head: dict[str, Any]) -> Generator[Parsed, None, None]:
    if text.next_char() == "]":
        text.pos += 1
        return
    index = 0
    while True:
        text.next_char()
        yield Parsed(0, text.value(), index, head)
        index += 1
        separator = text.next_char()
        if separator not in (",", "]"):
            raise text.error("Expecting ',' delimiter")
        text.pos += 1
        if separator == "]":
            return
