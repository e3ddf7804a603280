"""Which workloads use which topology (GREP-369 "Monitoring"): look before updating or deleting."""

from __future__ import annotations

from dataclasses import dataclass

from toposched.frontends.grove import DEFAULT_TOPOLOGY
from toposched.frontends.grove.operator.topologies import TopologyRegistry


@dataclass(frozen=True, slots=True)
class UsageRow:
    topology: str | None  # None = no constraint anywhere, so no topology applies
    defaulted: bool  # resolved to the default without an explicit name
    namespace: str
    name: str
    scheduled_pods: int

    @property
    def label(self) -> str:
        if self.topology is None:
            return "(none)"
        return f"{self.topology} (default)" if self.defaulted else self.topology


def usage(registry: TopologyRegistry) -> list[UsageRow]:
    """One row per PodCliqueSet, sorted by topology, then namespace/name."""
    rows = []
    for pcs in registry.podcliquesets():
        resolved = pcs.resolved_topology()
        rows.append(
            UsageRow(
                resolved,
                resolved == DEFAULT_TOPOLOGY and not pcs.topology_name,
                pcs.namespace,
                pcs.name,
                registry.scheduled_pods(pcs.key),
            )
        )
    return sorted(rows, key=lambda r: (r.label, r.namespace, r.name))


def format_usage(rows: list[UsageRow]) -> str:
    """Two aligned columns, as the GREP's kubectl/jq example prints them."""
    if not rows:
        return ""
    width = max(len(r.label) for r in rows)
    return "\n".join(f"{r.label.ljust(width)}  {r.namespace}/{r.name}" for r in rows)
