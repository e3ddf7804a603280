"""Defragmentation advice: the values ``toposched.engine.defrag`` builds and the CLI and the API
print."""

from __future__ import annotations

from dataclasses import dataclass

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PodMove:
    namespace: str
    pod: str
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class WorkloadMove:
    workload: str  # namespace/owner, or namespace/pod for a pod without an owner
    pods: tuple[PodMove, ...]


@dataclass(frozen=True, slots=True)
class DefragPlan:
    """The domains to free (paths of level values) and the moves that free them. ``freed`` may
    hold fewer domains than asked for; ``reason`` then says why no further domain could be freed."""

    level: str
    wanted: int
    freed: tuple[Path, ...]
    moves: tuple[WorkloadMove, ...]
    already_free: int
    reason: str = ""

    @property
    def complete(self) -> bool:
        return len(self.freed) == self.wanted

    @property
    def pods_moved(self) -> int:
        return sum(len(move.pods) for move in self.moves)
