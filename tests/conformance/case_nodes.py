"""A conformance case's node as the engine's ``Node``: the fields the kube and Kueue cases share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.model import Node, Resources, Taint, TaintEffect


def case_node(raw: Mapping[str, Any], allocatable: Resources) -> Node:
    """``raw``'s name, labels, taints, readiness and cordon, with ``allocatable`` (the caller's:
    the kube and Kueue cases charge what runs there differently)."""
    taints = tuple(
        Taint(t["key"], t.get("value", ""), TaintEffect(t.get("effect", "NoSchedule")))
        for t in raw.get("taints", ())
    )
    return Node.create(
        raw["name"],
        raw.get("labels", {}),
        allocatable,
        taints,
        ready=raw.get("ready", True),
        unschedulable=raw.get("unschedulable", False),
    )
