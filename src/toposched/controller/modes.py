"""The controller's modes (``toposched controller --mode``)."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    UNGATER = "ungater"  # Kueue's topology ungater: place whole gangs, record and ungate their pods
    SYNC = "sync"  # backend sync: keep KAI Topology / PodGroup and Grove ClusterTopology objects

    @property
    def lease_name(self) -> str:
        """Each mode elects its own leader, so both can run in one namespace."""
        return f"toposched-{self.value}"
