"""Scalars of one YAML text, read as PyYAML's safe loader reads them (YAML 1.1 resolution for
plain ones, the known scalar tags for tagged ones), except that timestamps stay strings and binary
stays base64 text; other tags are refused. Plain scalars are remembered, since keys and label
values repeat in every object. Used by ``yaml_events``' reader, event by event."""

from __future__ import annotations

from typing import Any

import yaml

from toposched.intake.parse.bounds import at_mark, syntax_error
from toposched.model import Problem, SpecError

PREFIX = "tag:yaml.org,2002:"
TEXT_TAGS = frozenset({PREFIX + "str", PREFIX + "timestamp", PREFIX + "value"})  # "=" reads as text
_SCALAR_TAGS = frozenset({PREFIX + t for t in ("null", "bool", "int", "float", "binary")}) | TEXT_TAGS
MERGE = object()  # the value of a plain ``<<`` key
_CACHE_LIMIT = 100_000  # plain scalars remembered


class ScalarValues:
    """The scalars of the text ``loader`` reads (``source`` names it in errors)."""

    def __init__(self, loader: Any, source: str) -> None:
        self.loader = loader  # the C loader, which has no type stubs
        self.source = source
        self.plain: dict[str, Any] = {}

    def plain_scalar(self, text: str, mark: Any) -> Any:
        """A plain scalar resolved as YAML 1.1 and remembered: keys and most values repeat."""
        tag = self.loader.resolve(yaml.ScalarNode, text, (True, False))
        value = self.construct(tag, text, mark)
        if len(self.plain) >= _CACHE_LIMIT:
            self.plain.clear()
        self.plain[text] = value
        return value

    def tagged_scalar(self, event: Any) -> Any:
        """``!`` (resolved as if untagged), ``!!str`` and the other known scalar tags."""
        tag, text = event.tag, event.value
        if tag == "!":
            return self.plain_scalar(text, event.start_mark) if event.implicit[0] else text
        if tag in TEXT_TAGS:
            return text
        if tag not in _SCALAR_TAGS:
            raise self.unsupported(tag, event.start_mark)
        return self.construct(tag, text, event.start_mark)

    def construct(self, tag: str, text: str, mark: Any) -> Any:
        if tag in TEXT_TAGS:
            return text
        if tag == PREFIX + "merge":
            return MERGE
        try:
            return self.loader.yaml_constructors[tag](self.loader, yaml.ScalarNode(tag, text))
        except (ValueError, LookupError, yaml.YAMLError):  # e.g. ``!!int abc``, ``!!bool maybe``
            raise syntax_error(
                self.source, mark.line + 1, mark.column + 1, f"{text!r} is not a valid {tag}"
            ) from None

    def unsupported(self, tag: str, mark: Any) -> SpecError:
        return SpecError(
            [
                Problem(
                    at_mark(self.source, mark),
                    f"invalid YAML: the tag {tag!r} is not supported",
                    "remove the tag: write plain mappings, lists, strings, numbers and booleans",
                )
            ]
        )
