"""Grove ClusterTopology objects (``grove.io/v1alpha1``) and the KAI Topology Grove keeps per
ClusterTopology (``kai.scheduler/v1alpha1``), from the model's ``Topology``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toposched.model import Problem, Topology, TopologySpecError

GROVE_API = "grove.io/v1alpha1"
KAI_API = "kai.scheduler/v1alpha1"


def domains_of(topology: Topology) -> list[tuple[str, str]]:
    """(domain, key) per level, broadest first. The domain is the level's alias; a level without
    one is named by the last segment of its label key."""
    by_key = {key: alias for alias, key in topology.aliases.items()}
    return [(by_key.get(key) or key.rsplit("/", 1)[-1], key) for key in topology.levels]


def cluster_topology(
    topology: Topology,
    *,
    labels: Mapping[str, str] | None = None,
    references: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """A ClusterTopology object; ``references`` are (schedulerName, topologyReference) bindings."""
    levels = domains_of(topology)
    seen: set[str] = set()
    for i, (domain, _) in enumerate(levels):
        if domain in seen:
            raise TopologySpecError(
                [
                    Problem(
                        f"spec.levels[{i}].domain",
                        f"domain {domain!r} is used twice",
                        "give each level an alias",
                    )
                ]
            )
        seen.add(domain)
    metadata: dict[str, Any] = {"name": topology.name}
    if labels:
        metadata["labels"] = dict(labels)
    spec: dict[str, Any] = {"levels": [{"domain": d, "key": k} for d, k in levels]}
    if references:
        spec["schedulerTopologyReferences"] = [
            {"schedulerName": s, "topologyReference": t} for s, t in references
        ]
    return {"apiVersion": GROVE_API, "kind": "ClusterTopology", "metadata": metadata, "spec": spec}


def kai_topology(name: str, keys: Sequence[str], owner: str | None = None) -> dict[str, Any]:
    """A KAI Topology with these node label keys; ``owner`` names the controlling ClusterTopology."""
    metadata: dict[str, Any] = {"name": name}
    if owner is not None:
        metadata["ownerReferences"] = [
            {"apiVersion": GROVE_API, "kind": "ClusterTopology", "name": owner, "controller": True}
        ]
    return {
        "apiVersion": KAI_API,
        "kind": "Topology",
        "metadata": metadata,
        "spec": {"levels": [{"nodeLabel": key} for key in keys]},
    }
