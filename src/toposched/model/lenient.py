"""Reading sections of a Kubernetes object that may be absent or malformed, as empty values; the
rule checks that run afterwards report what is wrong with them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def mapping(raw: object) -> Mapping[str, Any]:
    """``raw`` when it is a mapping, else an empty one."""
    return raw if isinstance(raw, Mapping) else {}


def items(raw: object) -> list[Any]:
    """``raw`` when it is a list, else an empty one."""
    return list(raw) if isinstance(raw, list) else []


def text(raw: object) -> str:
    """``raw`` when it is a string, else ""."""
    return raw if isinstance(raw, str) else ""
