"""Known topologies as the Grove ClusterTopology objects a PodCliqueSet is admitted against."""

from __future__ import annotations

from typing import Any

from toposched.model import Topology


def cluster_topology_object(topology: Topology) -> dict[str, Any]:
    """A Grove ClusterTopology for a topology: each level's domain is its alias, else the last
    segment of its label key (``topology.kubernetes.io/zone`` → ``zone``)."""
    names = {key: alias for alias, key in topology.aliases.items()}
    levels = [{"domain": names.get(key) or _domain(key), "key": key} for key in topology.levels]
    return {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "ClusterTopology",
        "metadata": {"name": topology.name},
        "spec": {"levels": levels},
    }


def _domain(key: str) -> str:
    last = key.rsplit("/", 1)[-1].lower()
    return "host" if last == "hostname" else "".join(c if c.isalnum() or c == "-" else "-" for c in last)
