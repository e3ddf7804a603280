"""toposched's side of a case: ``toposched place`` (faithful search) on the dump of the cluster
kube-scheduler saw and the gang's objects as the API server stored them, read as the command
reads its files (each as a ``v1 List`` in JSON).

A dump can be renamed before it is read (``Renaming``): label values and node names get a prefix
that sorts them first. toposched breaks every tie of its scores by these names, so a renaming
that makes toposched choose what kube-scheduler chose shows that choice to be one of the tied
answers kube-scheduler draws from at random: the scores are untouched, only the order of equals.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toposched.cli.workloads import place_documents
from toposched.intake.cluster import load_cluster_report
from toposched.intake.parse import parse_documents
from toposched.model import Placement, ToposchedError


@dataclass(frozen=True, slots=True)
class Renaming:
    """New names that sort first: ``values[(label key, value)]`` and ``nodes[node name]``."""

    values: Mapping[tuple[str, str], str] = field(default_factory=dict)
    nodes: Mapping[str, str] = field(default_factory=dict)

    def node_back(self) -> dict[str, str]:
        return {new: old for old, new in self.nodes.items()}

    def apply(self, items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The dump's items with the new names (the items themselves are not changed)."""
        out = []
        for item in items:
            if item.get("kind") == "Node":
                metadata = dict(item["metadata"])
                labels = dict(metadata.get("labels") or {})
                for key, value in labels.items():
                    labels[key] = self.values.get((key, value), value)
                metadata["labels"] = labels
                metadata["name"] = self.nodes.get(metadata["name"], metadata["name"])
                out.append({**item, "metadata": metadata})
            else:
                node = item["spec"].get("nodeName")
                out.append({**item, "spec": {**item["spec"], "nodeName": self.nodes.get(node, node)}})
        return out


@dataclass(frozen=True, slots=True)
class Ours:
    """toposched's answer: each pod's node (None: left pending), or why it refused."""

    nodes: Mapping[str, str | None]
    refused: str | None = None  # the refusal's message
    group: str | None = None  # the PodGroup a refusal names
    error: str | None = None  # the input was rejected


def cluster_text(items: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)})


def gang_text(documents: Sequence[Mapping[str, Any]]) -> str:
    """The gang as ``kubectl get -o json`` prints several objects: one List."""
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(documents)})


def place(
    dump: Sequence[Mapping[str, Any]],
    documents: Sequence[Mapping[str, Any]],
    renaming: Renaming | None = None,
) -> Ours:
    """toposched's placement of ``documents`` on the cluster of ``dump`` (renamed first)."""
    renaming = renaming or Renaming()
    try:
        cluster, _ = load_cluster_report(cluster_text(renaming.apply(dump)), source="cluster.json")
        parsed = parse_documents(gang_text(documents), source="gang.json")
        outcome = place_documents(parsed, cluster)
    except ToposchedError as exc:
        return Ours({}, error=f"{type(exc).__name__}: {exc}")
    back = renaming.node_back()
    result = outcome.result
    if isinstance(result, Placement):
        return Ours({p.pod: back.get(p.node, p.node) if p.node else None for p in result.pods})
    return Ours({}, refused=result.message, group=result.group)
