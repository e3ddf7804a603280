"""The one parser: text at the edge (CLI file, HTTP body, trace, watch) → plain documents.

YAML, and JSON (which is YAML) read by the much faster JSON decoder when the text starts with
``{`` or ``[`` and is strict JSON. Every input is held to the same bounds before anything
downstream walks it: size of the text (bytes), nesting depth, alias expansion (YAML), and
duplicate mapping keys, which YAML and JSON allow silently (the last one wins) and which in a
spec always hide a mistake.

Timestamps stay strings and binary stays base64 text, so every document is plain JSON data
(mappings, lists, str, int, float, bool, None) that can be stored and re-read without YAML.
``parse_stream`` hands out the items of a ``kind: List`` one by one, so a dump of 100k nodes
is never held as one document tree; a large YAML list in kubectl's shape is read in bulk by
rapidyaml (``yaml_bulk``), which hands anything it cannot read as the event reader does over to it.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from toposched.intake.parse.bounds import (
    CLUSTER_DUMP_LIMITS,
    DEFAULT_LIMITS,
    InputLimits,
    Parsed,
    duplicate_key,
    syntax_error,
    too_large,
)
from toposched.intake.parse.json_text import TOO_DEEP, NotJsonError, looks_like_json, read_json
from toposched.intake.parse.yaml_bulk import read_items_bulk
from toposched.intake.parse.yaml_events import read_yaml
from toposched.model import Problem, SpecError

__all__ = [
    "CLUSTER_DUMP_LIMITS",
    "DEFAULT_LIMITS",
    "InputLimits",
    "Parsed",
    "first_mapping",
    "parse_documents",
    "parse_json",
    "parse_stream",
    "read_file",
    "split_items",
]


def parse_documents(text: str | bytes, *, source: str, limits: InputLimits = DEFAULT_LIMITS) -> list[Any]:
    """Every non-empty document of ``text``; any problem is a ``SpecError`` naming ``source``
    (with ``:line:column`` for syntax errors) and the fix."""
    return [parsed.value for parsed in _read(text, source, limits, stream_items=False)]


def parse_json(text: str, *, source: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """One value of strict JSON text that sits inside a document (an annotation holding JSON, as
    Kubernetes' ``json.Unmarshal`` reads it), held to the bounds of a document: size and nesting
    are checked before it is decoded. Anything else is a ``SpecError`` naming ``source``, whose
    message says why (the decoder's reason, "nested more than N levels deep")."""
    data = _utf8(text, source)
    if len(data) > limits.max_bytes:
        raise too_large(source, len(data), limits)
    try:
        return next(read_json(data, limits, stream_items=False)).value
    except NotJsonError as exc:
        if exc.reason == TOO_DEEP:
            reason = f"is nested more than {limits.max_depth} levels deep"
        elif exc.key is not None:
            reason = f"has the key {exc.key!r} twice"
        else:
            reason = exc.reason + (f" at line {exc.line} column {exc.column}" if exc.line else "")
        raise SpecError([Problem(source, reason, "write strict JSON")]) from None


def parse_stream(text: str | bytes, *, source: str, limits: InputLimits = DEFAULT_LIMITS) -> Iterator[Parsed]:
    """Like ``parse_documents``, but each element of a document's top-level ``items`` list is
    handed out as soon as it is read (``Parsed.item`` set), before the document itself, whose
    ``items`` is then empty. A problem found late is raised after earlier values were handed out."""
    return _read(text, source, limits, stream_items=True)


def split_items(documents: list[Any]) -> Iterator[Parsed]:
    """Parsed documents in the form ``parse_stream`` hands them out."""
    for d, document in enumerate(documents):
        items = document.get("items") if isinstance(document, Mapping) else None
        if not isinstance(items, list):
            yield Parsed(d, document)
            continue
        for i, item in enumerate(items):
            yield Parsed(d, item, i, document)
        yield Parsed(d, {**document, "items": []})


def _read(text: str | bytes, source: str, limits: InputLimits, *, stream_items: bool) -> Iterator[Parsed]:
    data = _utf8(text, source) if isinstance(text, str) else text
    if len(data) > limits.max_bytes:
        raise too_large(source, len(data), limits)
    if isinstance(text, bytes):
        _check_utf8(data, source)
    if looks_like_json(data):
        handed_out = False
        try:
            for parsed in read_json(data, limits, stream_items=stream_items):
                handed_out = True
                yield parsed
            return
        except NotJsonError as exc:
            if handed_out:  # too late to read it as YAML: say what is wrong, with its line if YAML can
                for _ in read_yaml(data, source, limits, stream_items=stream_items):
                    pass
                if exc.key is not None:
                    raise duplicate_key(source, exc.key, None) from None
                if exc.line:
                    raise syntax_error(source, exc.line, exc.column, exc.reason, language="JSON") from None
                raise SpecError(
                    [Problem(source, f"invalid JSON: {exc.reason}", "write strict JSON")]
                ) from None
    bulk = read_items_bulk(data, source, limits) if stream_items else None
    yield from bulk if bulk is not None else read_yaml(data, source, limits, stream_items=stream_items)


def _utf8(text: str, source: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, e.g. "\ud800" in a JSON request body
        raise SpecError(
            [Problem(source, f"holds an invalid character at position {exc.start}", "give UTF-8 text")]
        ) from None


def _check_utf8(data: bytes, source: str, chunk: int = 1 << 20) -> None:
    """Decode piece by piece, so a large file is not held a second time as text."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(data), chunk):
            decoder.decode(view[start : start + chunk])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise SpecError([Problem(source, "is not UTF-8 text", "give a YAML or JSON file")]) from None


def read_file(path: str, *, what: str, limits: InputLimits = DEFAULT_LIMITS) -> bytes:
    """A file's bytes (``-`` = standard input) for ``parse_documents``; a file that cannot be
    read, or holds more than ``limits.max_bytes`` (reading stops there: a pipe or a device such
    as ``/dev/zero`` is never read whole), is a ``SpecError`` naming it and the fix."""
    if path == "-":
        return _read_bounded(sys.stdin.buffer, "-", limits)
    try:
        with Path(path).open("rb") as file:
            return _read_bounded(file, path, limits)
    except FileNotFoundError:
        reason, hint = "file not found", f"check the path of the {what}"
    except IsADirectoryError:
        reason, hint = "is a directory", f"give the path of the {what} file"
    except PermissionError:
        reason, hint = "permission denied", "make the file readable"
    except OSError as exc:
        reason, hint = f"cannot be read ({exc.strerror or exc})", f"check the path of the {what}"
    raise SpecError([Problem(path, reason, hint)])


def _read_bounded(file: BinaryIO, source: str, limits: InputLimits) -> bytes:
    try:
        info: os.stat_result | None = os.fstat(file.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's stand-in for standard input)
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > limits.max_bytes:
        raise too_large(source, info.st_size, limits)  # its size is known: refuse before reading
    data = file.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise too_large(source, None, limits)
    return data


def first_mapping(documents: list[Any]) -> Mapping[str, Any] | None:
    """The first document when it is a mapping (what recognisers look at first)."""
    return documents[0] if documents and isinstance(documents[0], Mapping) else None
