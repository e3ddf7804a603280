"""YAML bytes → plain values in one pass over libyaml's event stream.

Composing a node graph and then constructing it (PyYAML's loader) visits every value three
times and keeps the whole graph; here each event is turned into its value at once, and the
bounds are checked on the way:

* nesting depth, counted from the start and end events, so a deep input is refused before
  anything recursive sees it (libyaml's composer recurses in C, which tens of thousands of
  levels turn into a crash no handler can catch);
* alias expansion: each anchored value remembers how many values it stands for (its aliases
  expanded), and every alias adds that many to the document's budget (a 342-byte "billion
  laughs" expands to ~10^9); an alias to a collection still open (a cycle) expands forever;
* duplicate mapping keys, which YAML allows silently (the last one wins) and which in a spec
  always hide a mistake.

Values are what PyYAML's safe loader builds (``twin_load`` is that loader; a property test holds
them equal), except that timestamps stay strings and binary stays base64 text, so every value
is plain JSON data; tags other than the scalar ones PyYAML knows are refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from toposched.intake.parse.bounds import (
    InputLimits,
    Parsed,
    at_mark,
    duplicate_key,
    syntax_error,
    too_deep,
    too_many_aliases,
)
from toposched.intake.parse.yaml_scalars import MERGE, PREFIX, TEXT_TAGS, ScalarValues
from toposched.model import Problem, SpecError

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc,valid-type]  # CSafeLoader has no stubs of its own
    """The safe loader (C when PyYAML has libyaml), building only JSON-compatible values."""


def _as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]  # scalar nodes only


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_text)
_Loader.add_constructor("tag:yaml.org,2002:binary", _as_text)


def twin_load(data: bytes | str) -> list[Any]:
    """The documents as PyYAML's own (composing) loader builds them: the readable reference the
    event reader is tested against. It checks no bounds: give it only trusted text."""
    return [doc for doc in yaml.load_all(data, Loader=_Loader) if doc is not None]


_MAP, _SEQ = PREFIX + "map", PREFIX + "seq"
_COLLECTIONS = (dict, list)


_RESOLVER: Any = yaml.SafeLoader("")  # the YAML 1.1 resolver, as every loader here has it


def resolves_to_text(text: str) -> bool:
    """Whether ``text`` written plain is read as text (timestamps and "=" are kept as text)."""
    return _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) in TEXT_TAGS


class _Frame:
    """A collection being read."""

    __slots__ = ("anchor", "is_map", "key", "key_origin", "merges", "size", "start_mark", "streamed", "value")

    def __init__(
        self, value: dict[Any, Any] | list[Any], anchor: str | None, size: int, start_mark: Any
    ) -> None:
        self.value: Any = value
        self.is_map = isinstance(value, dict)
        self.anchor = anchor
        self.size = size  # values read before this one: its own count is the difference at its end
        self.start_mark = start_mark
        self.key: Any = _NO_KEY
        self.key_origin: Any = None  # the event (or frame) of the key: its start_mark is where it is
        self.merges: list[tuple[Any, Any]] | None = None
        self.streamed = -1  # >= 0: the document's ``items``, handed out one by one (the next index)


_NO_KEY = object()


def read_yaml(data: bytes, source: str, limits: InputLimits, *, stream_items: bool) -> Iterator[Parsed]:
    """The non-empty documents of ``data`` (UTF-8 YAML), or with ``stream_items`` each element of
    a document's top-level ``items`` list as soon as it is read, then the document itself (its
    ``items`` left empty). Any problem is a ``SpecError`` naming ``source`` and the fix."""
    loader = _Loader(data)
    try:
        yield from _Reader(loader, source, limits, data).documents(stream_items)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if "nesting depth" in str(exc.problem):  # newer libyaml stops at its own depth limit
            raise too_deep(at_mark(source, mark), limits) from None
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        raise syntax_error(source, line, column, exc.problem or exc.context or "syntax error") from None
    except yaml.YAMLError as exc:
        raise SpecError([Problem(source, f"invalid YAML: {exc}", "check the file is YAML or JSON")]) from None
    finally:
        loader.dispose()


class _Reader:
    """One pass over the events of one text."""

    def __init__(self, loader: Any, source: str, limits: InputLimits, data: bytes) -> None:
        self.loader = loader  # the C loader, which has no type stubs
        self.data = data
        self.source = source
        self.limits = limits
        self.scalars = ScalarValues(loader, source)

    def documents(self, stream_items: bool) -> Iterator[Parsed]:  # one loop: the per-event cost is the cost
        get_event = self.loader.get_event
        scalars = self.scalars
        plain, plain_scalar, tagged_scalar = scalars.plain, scalars.plain_scalar, scalars.tagged_scalar
        scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
        mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
        mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
        max_depth = self.limits.max_depth
        stack: list[_Frame] = []
        anchors: dict[str, tuple[Any, int]] = {}
        open_anchors: set[str] = set()
        count = extra = document = 0
        root: Any = None
        parent: _Frame | None = None  # the innermost open collection: stack[-1]
        while True:
            event = get_event()
            kind = type(event)
            if kind is scalar_event:
                if event.tag is None:  # untagged: most scalars, and the cached plain ones first
                    text = event.value
                    value = plain.get(text, _NO_KEY) if event.implicit[0] else text
                    if value is _NO_KEY:
                        value = plain_scalar(text, event.start_mark)
                else:
                    value = tagged_scalar(event)
                count += 1
                if event.anchor is not None:
                    anchors[event.anchor] = (value, 1)
                origin = event
            elif kind is mapping_start or kind is sequence_start:
                if len(stack) >= max_depth:
                    raise too_deep(at_mark(self.source, event.start_mark), self.limits)
                if event.tag is not None and event.tag not in (_MAP, _SEQ, "!"):
                    raise scalars.unsupported(event.tag, event.start_mark)
                frame = _Frame({} if kind is mapping_start else [], event.anchor, count, event.start_mark)
                count += 1
                if event.anchor is not None:
                    open_anchors.add(event.anchor)
                if stream_items and len(stack) == 1 and not frame.is_map and stack[0].key == "items":
                    frame.streamed = 0
                stack.append(frame)
                parent = frame
                continue
            elif kind is mapping_end or kind is sequence_end:
                frame = stack.pop()
                parent = stack[-1] if stack else None
                value = frame.value
                if frame.merges:
                    self.merge(frame.value, frame.merges)
                if frame.anchor is not None:
                    anchors[frame.anchor] = (value, count - frame.size)
                    open_anchors.discard(frame.anchor)
                origin = frame
            elif kind is alias_event:
                name = event.anchor
                if name in open_anchors:  # a cycle: expanding it never ends
                    raise too_many_aliases(self.source, self.limits)
                if name not in anchors:
                    mark = event.start_mark
                    raise syntax_error(
                        self.source, mark.line + 1, mark.column + 1, f"found undefined alias {name!r}"
                    )
                value, size = anchors[name]
                count += size
                extra += size
                if extra > self.limits.max_alias_expansion:
                    raise too_many_aliases(self.source, self.limits)
                origin = event
            elif kind is yaml.DocumentStartEvent:
                anchors.clear()
                count = extra = 0
                root = None
                continue
            elif kind is yaml.DocumentEndEvent:
                if root is not None:
                    yield Parsed(document, root)
                    document += 1
                continue
            elif kind is yaml.StreamEndEvent or event is None:
                return
            else:  # StreamStartEvent
                continue
            # a value is complete: put it where it belongs
            if value is MERGE and not (parent is not None and parent.is_map and parent.key is _NO_KEY):
                raise scalars.unsupported(PREFIX + "merge", origin.start_mark)
            if parent is None:
                root = value
            elif not parent.is_map:
                if parent.streamed >= 0:
                    yield Parsed(document, value, parent.streamed, stack[0].value)
                    parent.streamed += 1
                else:
                    parent.value.append(value)
            elif parent.key is _NO_KEY:
                if isinstance(value, _COLLECTIONS):
                    mark = origin.start_mark
                    raise syntax_error(self.source, mark.line + 1, mark.column + 1, "found unhashable key")
                parent.key = value
                parent.key_origin = origin
            else:
                key = parent.key
                parent.key = _NO_KEY
                if key is MERGE:
                    if parent.merges is None:
                        parent.merges = []
                    parent.merges.append((value, parent.key_origin.start_mark))
                elif key in parent.value:
                    raise self.duplicate(parent, key)
                else:
                    parent.value[key] = value

    def merge(self, own: dict[Any, Any], merges: list[tuple[Any, Any]]) -> None:
        """``<<: *base`` (or a list of them): keys written in the mapping win over merged ones, and
        earlier merged mappings over later ones, as in PyYAML."""
        merged: dict[Any, Any] = {}
        for value, mark in merges:
            sources = value if isinstance(value, list) else [value]
            if not all(isinstance(source, dict) for source in sources):
                raise syntax_error(
                    self.source,
                    mark.line + 1,
                    mark.column + 1,
                    "expected a mapping or list of mappings for merging",
                )
            for source in reversed(sources):
                merged.update(source)
        merged.update(own)
        own.clear()
        own.update(merged)

    def duplicate(self, frame: _Frame, key: Any) -> SpecError:
        """The second ``key`` of the mapping being read, with the line of the first. Finding that
        line reads the text again up to there: only an error pays for it."""
        second = frame.key_origin.start_mark
        reader = _Reader(_Loader(self.data), self.source, self.limits, self.data)
        try:
            first = reader.first_key_line(frame.start_mark.index, key)
        finally:
            reader.loader.dispose()
        return duplicate_key(at_mark(self.source, second), key, first)

    def first_key_line(self, mapping_index: int, key: Any) -> int | None:
        """The line of the first ``key`` of the mapping that starts at ``mapping_index``."""
        depth: int | None = None  # 0: among the mapping's own keys and values
        is_key = True
        while True:
            event: Any = self.loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return None
            opens = isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent)
            if depth is None:
                depth = 0 if opens and event.start_mark.index == mapping_index else None
            elif opens:
                depth += 1
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                if depth == 0:
                    return None
                depth -= 1
                is_key = is_key if depth else not is_key
            elif depth == 0:
                if is_key and isinstance(event, yaml.ScalarEvent):
                    if event.tag is not None:
                        value = self.scalars.tagged_scalar(event)
                    elif event.implicit[0]:
                        value = self.scalars.plain_scalar(event.value, event.start_mark)
                    else:
                        value = event.value
                    mark: Any = event.start_mark
                    if value == key and type(value) is type(key):
                        return int(mark.line) + 1
                is_key = not is_key
