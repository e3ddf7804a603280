"""Per-PodSet summaries of a compiled Kueue gang, for printing (CLI, API, docs)."""

from __future__ import annotations

from dataclasses import dataclass

from toposched.model import Gang, Group, Mode, SliceLayer


@dataclass(frozen=True, slots=True)
class PodSetInfo:
    """One PodSet as a user would describe it. For a PodSet group member, ``mode`` and ``level``
    are the group's and ``group`` names it."""

    name: str
    count: int
    mode: Mode
    level: str | None
    slices: tuple[SliceLayer, ...] = ()
    group: str | None = None


def podset_infos(gang: Gang) -> tuple[PodSetInfo, ...]:
    """Every PodSet (leaf) of a gang compiled by this front end, in workload order."""
    infos: list[PodSetInfo] = []
    for child in gang.root.children or (gang.root,):
        if child.is_leaf:
            infos.append(_info(child, child, None))
        else:
            infos.extend(_info(leaf, child, child.name) for leaf in child.leaves())
    return tuple(infos)


def podset_names(gang: Gang) -> tuple[str, ...]:
    """The PodSet names of a gang, in workload order (``main``; ``leader``, ``worker``; ...)."""
    return tuple(info.name for info in podset_infos(gang))


def _info(leaf: Group, owner: Group, group: str | None) -> PodSetInfo:
    return PodSetInfo(leaf.name, len(leaf.pods), owner.mode, owner.level, leaf.slices, group)
