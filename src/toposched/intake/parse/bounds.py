"""The bounds every input text is held to, what one parsed value is, and the problems the readers
raise (one wording for YAML and JSON)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toposched.model import Problem, SpecError
from toposched.model.limits import MAX_CLUSTER_DUMP_BYTES, MAX_SPEC_BYTES, MIB


@dataclass(frozen=True, slots=True)
class InputLimits:
    """Bounds on one input text. The defaults are a spec's (``model.limits`` sets the sizes);
    ``CLUSTER_DUMP_LIMITS`` lets a cluster dump be larger."""

    max_bytes: int = MAX_SPEC_BYTES
    max_depth: int = 64
    max_alias_expansion: int = 10_000  # extra nodes aliases may add when expanded
    too_large_hint: str = "split the input into smaller files"  # the fix a too-large input is told


DEFAULT_LIMITS = InputLimits()  # a workload spec, topology, pool, configuration or tokens file
CLUSTER_DUMP_LIMITS = InputLimits(max_bytes=MAX_CLUSTER_DUMP_BYTES)  # kubectl's dump of a cluster


@dataclass(frozen=True, slots=True)
class Parsed:
    """One value read from a text: a whole document, or one element of a document's top-level
    ``items`` list when items are streamed (``item`` is its index; ``head`` is the document's
    mapping as read so far, so ``kind`` is there when the text gives it before ``items``)."""

    document: int  # index among the non-empty documents of the text
    value: Any
    item: int | None = None
    head: Any = None


def too_large(source: str, size: int | None, limits: InputLimits) -> SpecError:
    """``size`` is None when reading stopped at the limit (a stream, a device)."""
    what = f"is {size} bytes" if size is not None else f"is more than {limits.max_bytes} bytes"
    return SpecError(
        [
            Problem(
                source,
                f"{what}; the limit is {limits.max_bytes} bytes ({_mib(limits.max_bytes)})",
                limits.too_large_hint,
            )
        ]
    )


def _mib(size: int) -> str:
    return f"{size / MIB:g} MiB"


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
