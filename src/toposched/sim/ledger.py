"""The simulator's own count of GPUs in use, per node and per rack, kept from the placements the
scheduler reports. It is what utilisation and fragmentation are measured on, and it is the
independent check that the scheduler never books a node beyond its GPUs."""

from __future__ import annotations

from collections.abc import Mapping

from toposched.model import Cluster
from toposched.sim.clusters import GPU, total_gpus


class Ledger:
    """GPUs used per node (all nodes) and free per rack (Ready nodes only)."""

    def __init__(self, cluster: Cluster, rack_level: str) -> None:
        self.capacity: dict[str, int] = {n.name: n.allocatable.get(GPU, 0) for n in cluster.nodes}
        self.rack: dict[str, str] = {n.name: n.labels.get(rack_level, "") for n in cluster.nodes}
        self.used: dict[str, int] = dict.fromkeys(self.capacity, 0)
        self.down: set[str] = set()
        self.total = total_gpus(cluster)
        self.in_use = 0
        self._rack_used: dict[str, int] = dict.fromkeys(self.rack.values(), 0)
        self._rack_free: dict[str, int] = dict.fromkeys(self.rack.values(), 0)  # on Ready nodes
        self._rack_down: dict[str, int] = dict.fromkeys(self.rack.values(), 0)
        for name, gpus in self.capacity.items():
            self._rack_free[self.rack[name]] += gpus
        self.overcommits: list[str] = []

    def charge(self, usage: Mapping[str, int], sign: int, at: float) -> None:
        """Add (``sign`` 1) or remove (-1) GPUs per node; a node booked beyond its GPUs, or below
        zero, is recorded in ``overcommits``."""
        for node, gpus in usage.items():
            delta = sign * gpus
            self.used[node] += delta
            self.in_use += delta
            rack = self.rack[node]
            self._rack_used[rack] += delta
            if node not in self.down:
                self._rack_free[rack] -= delta
            if not 0 <= self.used[node] <= self.capacity[node]:
                self.overcommits.append(
                    f"t={at:g}s node {node}: {self.used[node]} GPUs booked of {self.capacity[node]}"
                )

    def set_ready(self, node: str, ready: bool) -> None:
        """Count a node's free GPUs as usable (Ready) or not."""
        if ready == (node not in self.down):
            return
        free = self.capacity[node] - self.used[node]
        rack = self.rack[node]
        if ready:
            self.down.discard(node)
            self._rack_free[rack] += free
            self._rack_down[rack] -= 1
        else:
            self.down.add(node)
            self._rack_free[rack] -= free
            self._rack_down[rack] += 1

    def fragmented(self) -> int:
        """Free GPUs that cannot host a whole-rack gang: those of racks partly used or partly down."""
        return sum(
            free for rack, free in self._rack_free.items() if self._rack_used[rack] or self._rack_down[rack]
        )
