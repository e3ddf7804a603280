"""The items of a large YAML ``List`` read in bulk by rapidyaml, where its values are the event reader's.

A 14k-node ``kubectl get nodes,pods -o yaml`` dump is 3.5 million libyaml events, and handing
each one to Python as an object is most of what reading it costs. rapidyaml parses in C++ and
writes JSON, which the ``json`` module reads in C: a few times faster. But rapidyaml resolves
plain scalars by JSON's rules, not YAML 1.1's (``on`` stays text, ``1e3`` becomes a number),
writes an alias as its ``*name``, drops tags, checks none of the bounds and pairs surrogate
escapes; and JSON keeps the last of two equal keys. So this reads only what it can tell it reads
as the event reader does:

* the text (``_plain_list``): one document, a mapping at column 0 whose ``items`` is a sequence
  at column 0, as kubectl prints it; no tag, document marker, directive, surrogate escape, tab,
  carriage return or character YAML reads otherwise (C0/C1 controls, NEL, line and paragraph
  separators, BOM); no line starting deeper than half the nesting bound, so that no value nests
  deeper than the bound;
* the JSON: no key YAML 1.1 reads as other than text (``1``, ``true``), no number it reads as
  text (``1e3``), no duplicate key (``_Checks``); and any text value that, written plain, YAML
  1.1 would read as another value (``True``, ``~``, ``0755``, an alias) must have been quoted in
  the YAML (``_written_plain``: kubectl quotes such text, ``status: "True"``).

Items are read in chunks of whole items, so memory stays that of one chunk. Whatever it cannot
read this way (a chunk rapidyaml or the JSON decoder refuses, or one of the above) hands over
to the event reader, which reads the text again and gives every item after those already handed
out, or its error with its line: whatever this module reads is what the event reader reads (a
property test holds the two equal).
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

import yaml

from toposched.frontends.parse.bounds import InputLimits, Parsed
from toposched.frontends.parse.yaml_events import read_yaml
from toposched.model import SpecError

try:
    import ryml
except ImportError:  # pragma: no cover - a declared dependency; the event reader reads everything anyway
    ryml = None

BULK_FROM = 1 << 20  # texts from 1 MiB: below, the event reader costs little and stays the only reader
_CHUNK = 1 << 18  # bytes of items handed to rapidyaml at once (larger chunks cost memory, not time)

_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n"
_NON_ASCII = bytes(range(0x80, 0x100))
# Non-ASCII characters YAML reads otherwise: C1 controls (NEL among them), line and paragraph
# separators, the BOM, non-characters.
_SPECIAL_UTF8 = re.compile(rb"\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]")
_MARKERS = (b"---", b"...", b"%")  # document markers and directives, at the start of a line
_SURROGATE_ESCAPE = re.compile(rb"\\(?:u|U0000)[dD][89a-fA-F]")  # which YAML refuses and JSON pairs up
_TAG_START = re.compile(rb"[ \n\[{,]!")  # where a tag may begin (and some "!" in text)
_ITEMS = re.compile(rb"items:[ ]*\n(?=-[ \n])")  # at the start of a line
_ITEM_START = re.compile(rb"\n-[ \n]")
_AFTER_ITEMS = re.compile(rb"\n[^ \n-]")  # the next key of the document, at column 0
_JSON_FLOAT_YAML_TOO = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+(?:[eE][-+][0-9]+)?")
_TEXT_TAGS = frozenset({"tag:yaml.org,2002:" + t for t in ("str", "timestamp", "value")})  # kept as text
_MAYBE_NOT_TEXT = frozenset(
    "-+.0123456789~<*!&YyNnTtFfOo"
)  # first letters of plain scalars YAML may not read as text
# What YAML 1.1 (PyYAML's resolver) reads as other than text, less what JSON reads as a literal.
_NOT_TEXT = (
    r"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|~|null|Null|NULL"
    r"|[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
    r"|<<|!|&|\*"
)
_JSON_LITERAL = r"true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_SUSPECT = re.compile(rf"(?!(?:{_JSON_LITERAL})$)(?:{_NOT_TEXT})|\*.*", re.DOTALL)
# JSON string values (not keys: ``mapping`` checks those) that may be ``suspect``.
_CANDIDATES_JSON = re.compile(r'"([-+.0-9~<*!&YyNnTtFfOo][^"\\]*)"(?!:)')
_RESOLVER: Any = yaml.SafeLoader("")  # PyYAML's YAML 1.1 resolver, which the event reader's loader has too


class _HandOverError(Exception):
    """A chunk the fast path does not read the way the event reader does."""


def read_items_bulk(data: bytes, source: str, limits: InputLimits) -> Iterator[Parsed] | None:
    """``read_yaml(..., stream_items=True)`` for a large ``List`` in the shape the module
    docstring names, or None when the text is not in that shape (the caller reads it with the
    event reader)."""
    if ryml is None or len(data) < BULK_FROM:
        return None
    layout = _plain_list(data, limits)
    if layout is None:
        return None
    return _read(data, source, limits, *layout)


def _plain_list(data: bytes, limits: InputLimits) -> tuple[int, int, int] | None:
    """Where the ``items`` key is and where its items start and end, when the text is in shape."""
    # Patterns starting with "\n" are searched fast; one matching at each line start is not.
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
        or any(data.startswith(marker) or b"\n" + marker in data for marker in _MARKERS)
        or (b"!" in data and _TAG_START.search(data))
        or _SURROGATE_ESCAPE.search(data)
        or re.match(deep, data)  # a search from each line start is much slower than one for "\n"
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


def _read(data: bytes, source: str, limits: InputLimits, key: int, start: int, end: int) -> Iterator[Parsed]:
    handed_out = 0
    try:
        head = _only_mapping(read_yaml(data[:key] or b"{}", source, limits, stream_items=False))
        for items in _chunks(data, start, end):
            for item in items:
                yield Parsed(0, item, handed_out, head)
                handed_out += 1
        # The document without its items: its line numbers are not the text's, so an error in it
        # is the event reader's to report.
        rest = data[:key] + b"items: []\n" + data[end:]
        document = _only_mapping(read_yaml(rest, source, limits, stream_items=False))
    except (_HandOverError, SpecError):
        # The event reader from the first item not handed out: its values, or its error.
        yield from islice(read_yaml(data, source, limits, stream_items=True), handed_out, None)
        return
    yield Parsed(0, document)


def _only_mapping(documents: Iterator[Parsed]) -> dict[str, Any]:
    found = [parsed.value for parsed in documents]
    if len(found) > 1 or (found and not isinstance(found[0], dict)):
        raise _HandOverError
    return found[0] if found else {}


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
    try:
        with _stderr_silenced():
            tree = ryml.parse_in_arena(text)
        if not tree.is_seq(tree.root_id()):
            raise _HandOverError
        as_json = ryml.emit_json_malloc(tree, tree.root_id())
        del tree
        items = json.loads(as_json, object_pairs_hook=checks.mapping, parse_float=checks.number)
    except (ValueError, RecursionError, ryml.ExceptionBasic):  # bad JSON or YAML, too deep for the decoder
        raise _HandOverError from None
    if not isinstance(items, list):
        raise _HandOverError
    suspects = {value for value in set(_CANDIDATES_JSON.findall(as_json)) if suspect(value)}
    if suspects and _written_plain(text, suspects):
        raise _HandOverError
    return items


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """rapidyaml prints each error to the process's stderr before it raises it; the event reader
    then reports it properly. Silenced on the main thread only (the CLI's): elsewhere another
    thread's output would be lost with it."""
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
    """Hooks for the JSON decoder that decline keys and numbers the event reader reads otherwise,
    and duplicate keys."""

    def __init__(self) -> None:
        self._text_keys: set[str] = set()  # keys that are text written plain (field names repeat)

    def mapping(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        mapping = dict(pairs)
        if len(mapping) != len(pairs):
            raise _HandOverError  # a duplicate key: the event reader names it with its line
        if not mapping.keys() <= self._text_keys:  # one check in C
            for key in mapping:
                if not reads_as_text(key):
                    raise _HandOverError
                self._text_keys.add(key)
        return mapping

    @staticmethod
    def number(text: str) -> float:
        """A JSON number with a fraction or exponent: YAML 1.1 reads it as a float only with both
        a fraction and, with an exponent, its sign (``1e3`` and ``1.0e3`` are text)."""
        if _JSON_FLOAT_YAML_TOO.fullmatch(text) is None:
            raise _HandOverError
        return float(text)


def _written_plain(text: bytes, suspects: set[str]) -> bool:
    """Whether one of ``suspects`` stands in ``text`` as a whole plain scalar: after a key's
    ": ", an entry's "- ", a flow "[", "{" or "," or at the start of a line, and before the end
    of the line, a comment or a flow "," "]" "}". kubectl quotes all such text it writes
    (``status: "True"``), so this looks for rare words, each followed by what ends a plain scalar."""
    words = b"|".join(re.escape(s.encode()) for s in sorted(suspects, key=len, reverse=True))
    for found in re.finditer(b"(?:" + words + rb")(?= *(?:[\n#,\]}]|$))", text):
        start = found.start()
        before = text[text.rfind(b"\n", 0, start) + 1 : start]
        spaced = before.rstrip(b" ")
        if not spaced or spaced[-1:] in b"[{," or (spaced[-1:] in b":-?" and spaced != before):
            return True
    return False


def reads_as_text(key: str) -> bool:
    """Whether a key, written plain, is text in YAML 1.1 (JSON keys always are)."""
    if key and key[0] not in _MAYBE_NOT_TEXT:
        return True
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, key, (True, False))
    return not key.startswith("*") and tag in _TEXT_TAGS


def suspect(value: str) -> bool:
    """Whether text JSON holds would be another value in YAML 1.1 had it been written plain:
    what YAML 1.1 reads as a boolean, null, number or merge key, and an alias (rapidyaml writes
    one as ``*name``); not what JSON would read as a literal, which rapidyaml writes as such
    when plain, so that JSON holds it as text only when it was quoted."""
    return _SUSPECT.fullmatch(value) is not None
