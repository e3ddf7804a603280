"""The items of a large YAML ``List`` read in bulk by rapidyaml, where its values are the event reader's.

A 14k-node ``kubectl get nodes,pods -o yaml`` dump is 3.5 million libyaml events, and handing
each one to Python as an object is most of what reading it costs. rapidyaml parses in C++ and
writes JSON, which the ``json`` module reads in C: a few times faster. But the two parsers do not
read all YAML alike: rapidyaml resolves plain scalars by its own rules, not YAML 1.1's (``on``
stays text, ``1e3`` becomes a number, ``nan`` becomes ``.nan``), keeps aliases as ``*name``,
drops tags, accepts some text libyaml refuses and checks none of the bounds; JSON keeps the last
of two equal keys. So the bulk reader takes only text in the block style kubectl prints, and
hands everything else to the event reader before reading anything (``_plain_list``):

* one document: a mapping at column 0 whose ``items`` is a block sequence at column 0, the rest
  of the document read by the event reader first;
* where a value begins (after a key's ": ", an entry's "- ", or indentation at the start of a
  line) no flow collection but ``[]`` and ``{}``, no anchor, alias, tag, complex key, directive,
  reserved or misplaced indicator, and only plain block scalar headers (``|``, ``>-``, ...);
* no document marker, surrogate escape, tab, carriage return or character YAML reads otherwise
  (C0/C1 controls, NEL, line and paragraph separators, BOM), and no line starting deeper than
  half the nesting bound, so that no value nests deeper than the bound;
* the body of a literal block scalar after a simple key (an annotation holding JSON, as
  ``kubectl apply`` leaves one) is text to both: the rule on where a value begins and the one
  below skip it, the others hold there too;
* every plain scalar that could be other than text (it starts like a number, or is a word YAML
  or rapidyaml reads as a boolean, null or float) reads the same in both: each distinct one is
  read by both parsers at once and compared (``_plain_scalars_agree``);
* while reading: no key YAML 1.1 reads as other than text, and no duplicate key (``_Checks``).

Items are read in chunks of whole items, so memory stays that of one chunk. A chunk rapidyaml
refuses (bad YAML) hands over to the event reader, which reads the text again and gives every
item after those already handed out, or its error with its line.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any

from toposched.intake.parse.bounds import InputLimits, Parsed
from toposched.intake.parse.yaml_events import read_yaml, resolves_to_text
from toposched.model import SpecError

try:
    import ryml
except ImportError:  # pragma: no cover - a declared dependency; the event reader reads everything anyway
    ryml = None

BULK_FROM = 1 << 20  # texts from 1 MiB: below, the event reader costs little and stays the only reader
_CHUNK = 1 << 18  # bytes of items handed to rapidyaml at once (larger chunks cost memory, not time)
_KEYS_KEPT = 100_000  # keys known to be text, remembered (field names repeat)

_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n"
_NON_ASCII = bytes(range(0x80, 0x100))
# Non-ASCII characters YAML reads otherwise: C1 controls (NEL among them), line and paragraph
# separators, the BOM, non-characters.
_SPECIAL_UTF8 = re.compile(rb"\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]")
_SURROGATE_ESCAPE = re.compile(rb"\\(?:u|U0000)[dD][89a-fA-F]")  # which YAML refuses and JSON pairs up
_MARKERS = re.compile(rb"\n(?:---|\.\.\.|%)")  # document markers and directives (at the start: _FIRST_MARKER)
_FIRST_MARKER = re.compile(rb"---|\.\.\.|%")

# Where a value begins: after a key's ": " or an entry's "- " (one space, as kubectl writes them;
# a second space is not kubectl's shape), or after the indentation of a line. Every pattern below
# starts with a literal: one that may match at any position is searched many times slower.
#
# What may not begin a value: a flow collection other than an empty one, an anchor, alias or
# tag, a complex key, a directive, a reserved or flow indicator, a comment in place of a value.
_NO_START = rb"(?:[\[{](?![\]}][ ]*\n)|[\]},&*!%@`?#])"
# On a line of its own, what is not a key, an entry or text going on from the line before: a
# scalar that might not be text, or a block scalar header (kubectl writes neither there).
# (Any short word starting like yes, no, on, off, true, false, null, inf, nan, "<<" or "=": a
# search ignoring case is much slower. Possessive repeats: what follows them never starts with
# what they repeat, and giving nothing back spares trying again at every line.)
_ALONE = rb"(?:-(?! )|[+.0-9~|>]|[yYnNoOtTfFiI<=][a-zA-Z<]{0,7}+[ ]*+(?:#|\n))"
_ODD_START = tuple(
    re.compile(pattern)
    for pattern in (
        b": (?: |" + _NO_START + b")",
        b"- (?: |" + _NO_START + b")",
        rb"\n *+(?:" + _NO_START + b"|" + _ALONE + b")",
    )
)
# A block scalar header with more than chomping (four patterns: a literal start is searched fast).
_ODD_HEADERS = tuple(re.compile(start + rb"(?![-+]?\n)") for start in (b": \\|", b": >", b"- \\|", b"- >"))
_QUOTE_COLON = (re.compile(rb'":[^ \n]'), re.compile(rb"':[^ \n]"))  # JSON-like keys: a value right after ":"
# Plain scalars after ": " or "- " that might not be text: they start like a number or a null,
# or they are words YAML 1.1 or rapidyaml reads as booleans, nulls or floats. The scalar ends at
# the end of the line, or before a comment.
_MAYBE_NOT_TEXT = (
    rb"((?:-(?! )|[+.0-9~])[^\n]*?|(?i:yes|no|on|off|true|false|null|y|n|inf|infinity|nan|<<|=))"
    rb"(?:[ ]+#[^\n]*)?[ ]*\n"
)
_PLAIN_SCALARS = (re.compile(b": " + _MAYBE_NOT_TEXT), re.compile(b"- " + _MAYBE_NOT_TEXT))
# A literal block scalar after a simple key, as kubectl writes an annotation that holds JSON
# (``kubectl.kubernetes.io/last-applied-configuration: |``): its body is text to both parsers,
# whatever its lines start with, so the shape checks skip it. The body: the first line deeper
# than the key's, then the lines at that line's indentation and empty ones.
_LITERAL_BODY = re.compile(
    rb"\n( *)[A-Za-z0-9_][A-Za-z0-9_./-]*: \|[-+]?(\n(\1 +)[^ \n][^\n]*(?:\n\3[^\n]*|\n(?=\n))*)\n"
)
_LITERAL_HEADER = re.compile(rb": \|[-+]?\n")
_ITEMS = re.compile(rb"items:[ ]*\n(?=-[ \n])")  # at the start of a line
_ITEM_START = re.compile(rb"\n-[ \n]")
_AFTER_ITEMS = re.compile(rb"\n[^ \n-]")  # the next key of the document, at column 0


class _HandOverError(Exception):
    """What the bulk reader does not read the way the event reader does."""


def read_items_bulk(data: bytes, source: str, limits: InputLimits) -> Iterator[Parsed] | None:
    """``read_yaml(..., stream_items=True)`` for a large ``List`` in the shape the module
    docstring names, or None when the text is not in that shape (the caller reads it with the
    event reader)."""
    if ryml is None or len(data) < BULK_FROM:
        return None
    outside = _Outside(data)
    layout = _plain_list(outside, limits)
    if layout is None:
        return None
    key, start, end = layout
    try:
        head = _only_mapping(read_yaml(data[:key] or b"{}", source, limits, stream_items=False))
        # The document without its items; its lines are not the text's, so the event reader
        # reports any error in it.
        rest = data[:key] + b"items: []\n" + data[end:]
        document = _only_mapping(read_yaml(rest, source, limits, stream_items=False))
    except (_HandOverError, SpecError):
        return None
    if not _plain_scalars_agree(outside, limits):
        return None
    return _read(data, source, limits, head, document, start, end)


def _plain_list(outside: _Outside, limits: InputLimits) -> tuple[int, int, int] | None:
    """Where the ``items`` key is and where its items start and end, when the text is in shape
    (what begins a value is looked for ``outside`` the bodies of literal block scalars)."""
    data = outside.data
    line = data.find(b"\nitems:")
    key = 0 if data.startswith(b"items:") else line + 1 if line >= 0 else -1
    found = _ITEMS.match(data, key) if key >= 0 else None
    if found is None or data.find(b"\nitems:", key) >= 0:
        return None
    start = found.end()
    after = _AFTER_ITEMS.search(data, start)
    end = after.start() + 1 if after is not None else len(data)
    deep = b"[ -]{%d}" % max(1, limits.max_depth // 2 - 1)
    if (
        _special_characters(data)
        or _FIRST_MARKER.match(data)
        or _MARKERS.search(data)
        or _SURROGATE_ESCAPE.search(data)
        or any(outside.search(pattern) for pattern in _ODD_START)
        or ((b"|" in data or b">" in data) and any(outside.search(pattern) for pattern in _ODD_HEADERS))
        or any(outside.search(pattern) for pattern in _QUOTE_COLON)
        or re.match(deep, data)
        or re.search(b"\n" + deep, data)
    ):
        return None
    return key, start, end


def _special_characters(data: bytes) -> bool:
    """Whether the text holds a character YAML reads otherwise than as itself."""
    odd = data.translate(None, _PRINTABLE_ASCII)  # what is left: tab, CR, other controls, non-ASCII
    if not odd:
        return False
    if odd.translate(None, _NON_ASCII):
        return True  # an ASCII control character
    return _SPECIAL_UTF8.search(data) is not None


class _Outside:
    """The text outside the bodies of literal block scalars after simple keys (``_LITERAL_BODY``),
    as the ranges between them: each range ends with the line break before a body's first line
    and the next starts with the one after its last line, so a pattern found in a range is not
    inside a body, and every line outside the bodies is in one."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.ranges: list[tuple[int, int]] = []
        at = 0
        for header in _LITERAL_HEADER.finditer(data):
            if header.start() < at:
                continue  # inside the body just skipped
            line = data.rfind(b"\n", 0, header.start())
            body = _LITERAL_BODY.match(data, line) if line >= 0 else None
            if body is not None:
                self.ranges.append((at, body.start(2) + 1))
                at = body.end(2)
        self.ranges.append((at, len(data)))

    def search(self, pattern: re.Pattern[bytes]) -> bool:
        return any(pattern.search(self.data, lo, hi) for lo, hi in self.ranges)

    def findall(self, pattern: re.Pattern[bytes]) -> list[Any]:
        return [found for lo, hi in self.ranges for found in pattern.findall(self.data, lo, hi)]


def _only_mapping(documents: Iterator[Parsed]) -> dict[str, Any]:
    found = [parsed.value for parsed in documents]
    if len(found) > 1 or (found and not isinstance(found[0], dict)):
        raise _HandOverError
    return found[0] if found else {}


def _plain_scalars_agree(outside: _Outside, limits: InputLimits) -> bool:
    """Whether every distinct plain scalar of the text (``outside`` literal bodies) that might
    not be text reads the same in both parsers: read as one list by each and compared, value
    and type."""
    scalars = {scalar for pattern in _PLAIN_SCALARS for scalar in outside.findall(pattern)}
    if not scalars:
        return True
    text = b"".join(b"- " + scalar + b"\n" for scalar in sorted(scalars))
    try:
        [expected] = [parsed.value for parsed in read_yaml(text, "plain scalars", limits, stream_items=False)]
        got = _chunk(text, _Checks())
    except (_HandOverError, SpecError, ValueError):
        return False
    return same_values(got, expected)


def same_values(a: Any, b: Any) -> bool:
    """Equal and of the same types all through (in Python ``True == 1 == 1.0``)."""
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same_values, a, b))
    return bool(a == b or (a != a and b != b))  # NaN is NaN


def _read(
    data: bytes,
    source: str,
    limits: InputLimits,
    head: dict[str, Any],
    document: dict[str, Any],
    start: int,
    end: int,
) -> Iterator[Parsed]:
    handed_out = 0
    try:
        for items in _chunks(data, start, end):
            for item in items:
                yield Parsed(0, item, handed_out, head)
                handed_out += 1
    except _HandOverError:
        # The event reader from the first item not handed out: its values, or its error.
        yield from islice(read_yaml(data, source, limits, stream_items=True), handed_out, None)
        return
    yield Parsed(0, document)


def _chunks(data: bytes, start: int, end: int) -> Iterator[list[Any]]:
    """The items between ``start`` and ``end``, read a chunk of whole items at a time."""
    checks = _Checks()
    while start < end:
        cut = end
        if end - start > _CHUNK:
            item = _ITEM_START.search(data, start + _CHUNK, end)
            cut = item.start() + 1 if item is not None else end
        yield _chunk(data[start:cut], checks)
        start = cut


def _chunk(text: bytes, checks: _Checks) -> list[Any]:
    """The items of ``text`` (a block sequence at column 0)."""
    try:
        with _stderr_silenced():
            tree = ryml.parse_in_arena(text)
        if not tree.is_seq(tree.root_id()):
            raise _HandOverError
        # Into a buffer of our own: the emitters that return their text leak it (rapidyaml 0.15).
        as_json = bytearray(ryml.compute_json_length(tree, tree.root_id()))
        ryml.emit_json_in_place(tree, as_json, tree.root_id())
        del tree
        items = json.loads(as_json, object_pairs_hook=checks.mapping)
    except (ValueError, RecursionError, ryml.ExceptionBasic):  # bad YAML or JSON
        raise _HandOverError from None
    if not isinstance(items, list):
        raise _HandOverError
    return items


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """rapidyaml prints each error to the process's stderr before it raises it, and the event
    reader then reports it properly. The redirection is process-wide, so it is made only on the
    main thread (the command line's), where no other thread is expected to write meanwhile."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class _Checks:
    """A hook for the JSON decoder: declines duplicate keys and keys YAML 1.1 reads as other
    than text written plain (``1``, ``true``; JSON cannot tell whether they were quoted)."""

    def __init__(self) -> None:
        self._text_keys: set[str] = set()

    def mapping(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        mapping = dict(pairs)
        if len(mapping) != len(pairs):
            raise _HandOverError  # a duplicate key: the event reader names it with its line
        if not mapping.keys() <= self._text_keys:  # one check in C
            if len(self._text_keys) > _KEYS_KEPT:
                self._text_keys.clear()
            for key in mapping:
                if not reads_as_text(key):
                    raise _HandOverError
                self._text_keys.add(key)
        return mapping


def reads_as_text(key: str) -> bool:
    """Whether a key, written plain, is text in YAML 1.1 (as the event reader resolves it)."""
    return not key.startswith("*") and resolves_to_text(key)
