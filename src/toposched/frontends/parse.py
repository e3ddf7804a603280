"""The one YAML parser: text at the edge (CLI file, HTTP body, trace, watch) → plain documents.

Every input is bounded before anything walks it. libyaml composes the node graph (it refuses
nesting deeper than its own limit), then this module checks the graph without expanding it:

* size of the text (bytes);
* nesting depth;
* alias expansion: how many nodes the documents would have with every alias expanded, beyond
  the nodes actually written (a 342-byte "billion laughs" expands to ~10^9);
* duplicate mapping keys, which YAML allows silently (the last one wins) and which in a spec
  always hide a mistake.

Only then are the documents built. Timestamps stay strings and binary stays base64 text, so
every document is plain JSON data (mappings, lists, str, int, float, bool, None) that can be
stored and re-read without YAML.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from toposched.model import Problem, SpecError

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc,valid-type]  # CSafeLoader has no stubs of its own
    """The safe loader (C when PyYAML has libyaml), building only JSON-compatible values."""


def _as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]  # scalar nodes only


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_text)
_Loader.add_constructor("tag:yaml.org,2002:binary", _as_text)


@dataclass(frozen=True, slots=True)
class InputLimits:
    """Bounds on one input text. The defaults fit a 14k-node ``kubectl get nodes,pods -o yaml``
    dump and reject what no real spec needs."""

    max_bytes: int = 64 * 1024 * 1024
    max_depth: int = 64
    max_alias_expansion: int = 10_000  # extra nodes aliases may add when expanded


DEFAULT_LIMITS = InputLimits()


def parse_documents(
    text: str | bytes, *, source: str, limits: InputLimits = DEFAULT_LIMITS
) -> list[Any]:
    """Every non-empty document of ``text``; any problem is a ``SpecError`` naming ``source``
    (with ``:line:column`` for syntax errors) and the fix."""
    data = _utf8(text, source) if isinstance(text, str) else text
    size = len(data)
    if size > limits.max_bytes:
        raise SpecError(
            [
                Problem(
                    source,
                    f"is {size} bytes; the limit is {limits.max_bytes}",
                    "split the input into smaller files or raise the input limit",
                )
            ]
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError([Problem(source, "is not UTF-8 text", "give a YAML or JSON file")]) from None
    _check_nesting_bound(text, source, limits)
    loader = _Loader(text)
    documents: list[Any] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            _check_graph(node, source, limits)
            document = loader.construct_document(node)
            if document is not None:
                documents.append(document)
    except yaml.MarkedYAMLError as exc:
        raise SpecError([_syntax_problem(exc, source)]) from None
    except yaml.YAMLError as exc:
        raise SpecError([_invalid(exc, source)]) from None
    finally:
        loader.dispose()
    return documents


def _utf8(text: str, source: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, e.g. "\ud800" in a JSON request body
        raise SpecError(
            [Problem(source, f"holds an invalid character at position {exc.start}", "give UTF-8 text")]
        ) from None


# libyaml composes nested collections by recursion in C, which a deep enough input (tens of
# thousands of levels) turns into a crash no handler can catch. Its parser keeps its stack on the
# heap, so the depth is measured from the event stream before anything is composed.
_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _check_nesting_bound(text: str, source: str, limits: InputLimits) -> None:
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Base):
            if isinstance(event, _OPEN):
                depth += 1
                if depth > limits.max_depth:
                    raise SpecError(
                        [
                            Problem(
                                _at(source, event),
                                f"is nested more than {limits.max_depth} levels deep",
                                "flatten the document",
                            )
                        ]
                    )
            elif isinstance(event, _CLOSE):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" in str(exc.problem):  # newer libyaml stops at its own depth limit
            where = source if exc.problem_mark is None else _at_mark(source, exc.problem_mark)
            raise SpecError(
                [Problem(where, f"is nested more than {limits.max_depth} levels deep", "flatten the document")]
            ) from None
        raise SpecError([_syntax_problem(exc, source)]) from None
    except yaml.YAMLError as exc:
        raise SpecError([_invalid(exc, source)]) from None


def _invalid(exc: yaml.YAMLError, source: str) -> Problem:
    return Problem(source, f"invalid YAML: {exc}", "check the file is YAML or JSON")


def _syntax_problem(exc: yaml.MarkedYAMLError, source: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    what = exc.problem or exc.context or "syntax error"
    return Problem(
        f"{source}:{line}:{column}",
        f"invalid YAML at line {line}, column {column}: {what}",
        "check the indentation and quoting near that line",
    )


def _check_graph(root: yaml.Node, source: str, limits: InputLimits) -> None:
    """Alias expansion and duplicate keys of one composed document, without recursion (the
    depth is bounded already).

    ``expanded`` counts each node once per path that reaches it (what a walk of the built
    document would visit); ``distinct`` counts each node once. Aliases are the difference."""
    distinct: set[int] = set()
    expanded = 0
    budget = limits.max_alias_expansion
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack.pop()
        expanded += 1
        first = id(node) not in distinct
        distinct.add(id(node))
        if expanded - len(distinct) > budget:
            raise SpecError(
                [
                    Problem(
                        source,
                        f"aliases expand to more than {budget} extra nodes",
                        "write the repeated parts out, or use fewer nested aliases",
                    )
                ]
            )
        if isinstance(node, yaml.MappingNode):
            if first:
                _check_keys(node, source)
            for key, value in node.value:
                stack += (key, value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _check_keys(node: yaml.MappingNode, source: str) -> None:
    seen: dict[str, yaml.Node] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        if key.value in seen:
            first = seen[key.value].start_mark.line + 1
            raise SpecError(
                [
                    Problem(
                        _at(source, key),
                        f"duplicate key {key.value!r} (first at line {first})",
                        "keep one of them: YAML would silently use the last",
                    )
                ]
            )
        seen[key.value] = key


def _at(source: str, node: yaml.Node | yaml.Event) -> str:
    mark = node.start_mark
    return source if mark is None else _at_mark(source, mark)


def _at_mark(source: str, mark: Any) -> str:  # yaml.Mark, or the C parser's own Mark type
    return f"{source}:{mark.line + 1}:{mark.column + 1}"


def read_file(path: str, *, what: str) -> bytes:
    """A file's bytes (``-`` = standard input) for ``parse_documents``; a file that cannot be
    read is a ``SpecError`` naming it and the fix."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        reason, hint = "file not found", f"check the path of the {what}"
    except IsADirectoryError:
        reason, hint = "is a directory", f"give the path of the {what} file"
    except PermissionError:
        reason, hint = "permission denied", "make the file readable"
    except OSError as exc:
        reason, hint = f"cannot be read ({exc.strerror or exc})", f"check the path of the {what}"
    raise SpecError([Problem(path, reason, hint)])


def first_mapping(documents: list[Any]) -> Mapping[str, Any] | None:
    """The first document when it is a mapping (what recognisers look at first)."""
    return documents[0] if documents and isinstance(documents[0], Mapping) else None
