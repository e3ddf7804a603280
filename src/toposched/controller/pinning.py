"""How an ungated pod is held to the node its gang's placement chose.

On a topology whose lowest level is the node (the hostname, or ``NODE_LEVEL``), the ungate patch
pins each pod by a ``kubernetes.io/hostname`` node selector, as Kueue's ungater does. A node
without that label (kube.all-nodes, an upstream PodGroup's topology, takes every node, whatever
its labels) would match no such selector and leave the pod Pending forever: its pod is pinned by
node affinity on the node's name instead (``matchFields`` on ``metadata.name``). The API server
lets a gated pod gain both, and nothing else of the kind (see ``wire.core.pinned_affinity``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.controller.kubeapi import Object
from toposched.model import HOSTNAME, Node, Topology
from toposched.wire.core import pinned_affinity, unpinned_affinity


def pinned(patch: Mapping[str, Any], pod: Object, node: Node, topology: Topology) -> dict[str, Any]:
    """The ungate ``patch`` of ``pod`` (a node selector and the gate's removal), pinning it by
    node name where ``node`` has no hostname label."""
    if not topology.hostname_is_lowest or HOSTNAME in node.labels:
        return dict(patch)
    spec = {k: v for k, v in (patch.get("spec") or {}).items() if k != "nodeSelector"}
    spec["affinity"] = pinned_affinity((pod.get("spec") or {}).get("affinity"), node.name)
    return {**patch, "spec": spec}


def unpin(spec: dict[str, Any], node: str) -> None:
    """Take the pin on ``node``'s name out of a pod ``spec`` (in place), as ``pinned`` added it."""
    if "affinity" not in spec:
        return
    affinity = unpinned_affinity(spec["affinity"], node)
    if affinity is None:
        del spec["affinity"]
    else:
        spec["affinity"] = affinity
