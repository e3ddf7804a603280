"""The bounds every input text is held to, what one parsed value is, and the problems the readers
raise (one wording for YAML and JSON)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toposched.model import Problem, SpecError


@dataclass(frozen=True, slots=True)
class InputLimits:
    """Bounds on one input text. The defaults fit a 100k-node ``kubectl get nodes,pods -o yaml``
    dump and reject what no real spec needs."""

    max_bytes: int = 1 << 30  # a 100k-node dump, as kubectl prints it in JSON
    max_depth: int = 64
    max_alias_expansion: int = 10_000  # extra nodes aliases may add when expanded


DEFAULT_LIMITS = InputLimits()


@dataclass(frozen=True, slots=True)
class Parsed:
    """One value read from a text: a whole document, or one element of a document's top-level
    ``items`` list when items are streamed (``item`` is its index; ``head`` is the document's
    mapping as read so far, so ``kind`` is there when the text gives it before ``items``)."""

    document: int  # index among the non-empty documents of the text
    value: Any
    item: int | None = None
    head: Any = None


def too_large(source: str, size: int, limits: InputLimits) -> SpecError:
    return SpecError(
        [
            Problem(
                source,
                f"is {size} bytes; the limit is {limits.max_bytes}",
                "split the input into smaller files or raise the input limit",
            )
        ]
    )


def too_deep(where: str, limits: InputLimits) -> SpecError:
    return SpecError(
        [Problem(where, f"is nested more than {limits.max_depth} levels deep", "flatten the document")]
    )


def too_many_aliases(source: str, limits: InputLimits) -> SpecError:
    return SpecError(
        [
            Problem(
                source,
                f"aliases expand to more than {limits.max_alias_expansion} extra nodes",
                "write the repeated parts out, or use fewer nested aliases",
            )
        ]
    )


def duplicate_key(where: str, key: object, first_line: int | None) -> SpecError:
    first = "" if first_line is None else f" (first at line {first_line})"
    return SpecError(
        [
            Problem(
                where, f"duplicate key {key!r}{first}", "keep one of them: YAML would silently use the last"
            )
        ]
    )


def syntax_error(source: str, line: int, column: int, what: str, *, language: str = "YAML") -> SpecError:
    return SpecError(
        [
            Problem(
                f"{source}:{line}:{column}",
                f"invalid {language} at line {line}, column {column}: {what}",
                "check the indentation and quoting near that line"
                if language == "YAML"
                else "check the brackets, commas and quoting near that line",
            )
        ]
    )


def at_mark(source: str, mark: Any) -> str:  # yaml.Mark, or the C parser's own Mark type
    return source if mark is None else f"{source}:{mark.line + 1}:{mark.column + 1}"
