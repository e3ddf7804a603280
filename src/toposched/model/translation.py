"""One gang written as another scheduler's objects (``toposched compile --to TARGET``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Translation:
    """The target's objects for a gang, and what of the gang the target cannot express: one
    sentence each, naming the group, the constraint and what was written instead ("group workers:
    kube-scheduler has no preferred level; rack written as required")."""

    target: str
    objects: tuple[Mapping[str, Any], ...]
    unexpressed: tuple[str, ...] = ()
    # What the user must still add before the target acts on the objects ("name a LocalQueue").
    advice: tuple[str, ...] = ()
